// Loading, discovery and the argument checks of the HIP adapter; all of it runs
// without a GPU.
#include "test_support.h"

#include <dlfcn.h>

#include <cstring>

using namespace dglink::hip::test;

namespace {

// A handle of some other adapter: its first field points at another table.
struct ForeignHandle {
  const pi_plugin_functions *Dispatch;
};
const pi_plugin_functions OtherTable{};

TEST(HipAdapter, LoadsWithDlopenAndInitialises) {
  ASSERT_NE(adapter().Library, nullptr) << adapter().Error;
  EXPECT_STREQ(adapter().Plugin.Targets, DGLINK_TEST_ADAPTER_NAME);
  EXPECT_STREQ(adapter().Plugin.PluginVersion, PI_VERSION_STRING);
#define DGLINK_TEST_ENTRY(Name, Ret, Params)                                                       \
  EXPECT_NE(pi().Name, nullptr) << #Name " missing from the table";
  PI_ENTRY_POINTS(DGLINK_TEST_ENTRY)
#undef DGLINK_TEST_ENTRY
  // Every entry point is also exported by name, and the table holds exactly it.
  void *Exported = dlsym(adapter().Library, "piextEnqueueDeviceGlobalVariableRead");
  ASSERT_NE(Exported, nullptr);
  void *InTable = nullptr;
  auto Function = pi().piextEnqueueDeviceGlobalVariableRead;
  std::memcpy(&InTable, &Function, sizeof(InTable));
  EXPECT_EQ(Exported, InTable);
}

// Nothing links libamdhip64 or libcuda: the adapter must load where neither exists.
TEST(HipAdapter, DoesNotLinkTheHipRuntimeOrDriver) {
  ASSERT_NE(adapter().Library, nullptr) << adapter().Error;
  EXPECT_EQ(dlsym(adapter().Library, "hipInit"), nullptr);
  EXPECT_EQ(dlsym(adapter().Library, "cuInit"), nullptr);
}

TEST(HipAdapter, RefusesAnotherMajorVersion) {
  ASSERT_NE(adapter().Library, nullptr) << adapter().Error;
  void *Init = dlsym(adapter().Library, "piPluginInit");
  pi_result (*PluginInit)(pi_plugin *) = nullptr;
  std::memcpy(&PluginInit, &Init, sizeof(Init));
  pi_plugin Plugin{};
  std::strcpy(Plugin.PiVersion, "99.0");
  EXPECT_EQ(PI_ERROR_INVALID_OPERATION, PluginInit(&Plugin));
  EXPECT_NE(lastError().find("99.0"), std::string::npos) << lastError();
  EXPECT_EQ(PI_ERROR_INVALID_VALUE, PluginInit(nullptr));
}

TEST(HipAdapter, PlatformsGetChecksArguments) {
  ASSERT_NE(adapter().Library, nullptr) << adapter().Error;
  EXPECT_EQ(PI_ERROR_INVALID_VALUE, pi().piPlatformsGet(0, nullptr, nullptr));
  pi_platform Platform = nullptr;
  EXPECT_EQ(PI_ERROR_INVALID_VALUE, pi().piPlatformsGet(0, &Platform, nullptr));
}

// Without the runtime or a device the adapter reports zero platforms and succeeds.
TEST(HipAdapter, ZeroPlatformsWithoutDevice) {
  ASSERT_NE(adapter().Library, nullptr) << adapter().Error;
  pi_uint32 Count = 99;
  ASSERT_PI(pi().piPlatformsGet(0, nullptr, &Count));
  if (Count != 0)
    GTEST_SKIP() << "a device is present on this HIP platform";
  pi_platform Platform = nullptr;
  Count = 99;
  ASSERT_PI(pi().piPlatformsGet(1, &Platform, &Count));
  EXPECT_EQ(Count, 0u);
  EXPECT_EQ(Platform, nullptr);
}

TEST(HipAdapter, NullHandlesGiveTheContractsCodes) {
  ASSERT_NE(adapter().Library, nullptr) << adapter().Error;
  int Value = 0;
  EXPECT_EQ(PI_ERROR_INVALID_QUEUE,
            pi().piextEnqueueDeviceGlobalVariableWrite(nullptr, nullptr, "x", PI_TRUE, 4, 0, &Value,
                                                       0, nullptr, nullptr));
  EXPECT_NE(lastError().find("argument 'Queue' is null"), std::string::npos) << lastError();
  EXPECT_NE(lastError().find("piextEnqueueDeviceGlobalVariableWrite"), std::string::npos);
  EXPECT_EQ(PI_ERROR_INVALID_QUEUE,
            pi().piextEnqueueDeviceGlobalVariableRead(nullptr, nullptr, "x", PI_TRUE, 4, 0, &Value,
                                                      0, nullptr, nullptr));
  EXPECT_NE(lastError().find("argument 'Queue' is null"), std::string::npos) << lastError();

  EXPECT_EQ(PI_ERROR_INVALID_PLATFORM,
            pi().piPlatformGetInfo(nullptr, PI_PLATFORM_INFO_NAME, 0, nullptr, nullptr));
  EXPECT_NE(lastError().find("argument 'Platform' is null"), std::string::npos) << lastError();
  EXPECT_EQ(PI_ERROR_INVALID_DEVICE,
            pi().piDeviceGetInfo(nullptr, PI_DEVICE_INFO_NAME, 0, nullptr, nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_CONTEXT, pi().piContextRelease(nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_QUEUE, pi().piQueueFinish(nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_PROGRAM,
            pi().piProgramBuild(nullptr, 0, nullptr, nullptr, nullptr, nullptr));
  EXPECT_NE(lastError().find("argument 'Program' is null"), std::string::npos) << lastError();
  EXPECT_EQ(PI_ERROR_INVALID_PROGRAM, pi().piProgramCompile(nullptr, 0, nullptr, nullptr, 0,
                                                            nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_PROGRAM, pi().piKernelCreate(nullptr, "k", nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_KERNEL, pi().piKernelSetArg(nullptr, 0, 4, &Value));
  EXPECT_EQ(PI_ERROR_INVALID_QUEUE,
            pi().piEnqueueKernelLaunch(nullptr, nullptr, 1, nullptr, nullptr, nullptr, 0, nullptr,
                                       nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_EVENT, pi().piEventRelease(nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_VALUE, pi().piEventsWait(0, nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_CONTEXT, pi().piProgramLink(nullptr, 0, nullptr, nullptr, 0, nullptr,
                                                         nullptr, nullptr, nullptr));
  EXPECT_NE(lastError().find("argument 'Context' is null"), std::string::npos) << lastError();
  EXPECT_EQ(PI_ERROR_INVALID_CONTEXT, pi().piProgramCreate(nullptr, &Value, 4, nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_VALUE, pi().piContextCreate(nullptr, 0, nullptr, nullptr));
  void *Pointer = nullptr;
  EXPECT_EQ(PI_ERROR_INVALID_CONTEXT,
            pi().piextUSMDeviceAlloc(&Pointer, nullptr, nullptr, nullptr, 16, 0));
  EXPECT_EQ(PI_ERROR_INVALID_QUEUE,
            pi().piextUSMEnqueueMemcpy(nullptr, PI_TRUE, &Value, &Value, 4, 0, nullptr, nullptr));
}

TEST(HipAdapter, ForeignHandlesAreRefused) {
  ASSERT_NE(adapter().Library, nullptr) << adapter().Error;
  ForeignHandle Foreign{&OtherTable};
  auto *Queue = reinterpret_cast<pi_queue>(&Foreign);
  int Value = 0;
  EXPECT_EQ(PI_ERROR_INVALID_QUEUE,
            pi().piextEnqueueDeviceGlobalVariableRead(Queue, nullptr, "x", PI_TRUE, 4, 0, &Value, 0,
                                                      nullptr, nullptr));
  EXPECT_NE(lastError().find("not a handle of the HIP adapter"), std::string::npos) << lastError();
  auto *Event = reinterpret_cast<pi_event>(&Foreign);
  EXPECT_EQ(PI_ERROR_INVALID_EVENT, pi().piEventsWait(1, &Event));
  auto *Context = reinterpret_cast<pi_context>(&Foreign);
  EXPECT_EQ(PI_ERROR_INVALID_CONTEXT, pi().piProgramLink(Context, 0, nullptr, nullptr, 0, nullptr,
                                                         nullptr, nullptr, nullptr));
}

} // namespace
