// Loading, discovery, device information and the argument checks of the CUDA
// adapter; everything but the device tests runs without a GPU.
#include "test_support.h"

#include <dlfcn.h>

#include <cstring>

using namespace dglink::cuda::test;

namespace {

// A handle of some other adapter: its first field points at another table.
struct ForeignHandle {
  const pi_plugin_functions *Dispatch;
};
const pi_plugin_functions OtherTable{};

TEST(CudaAdapter, LoadsWithDlopenAndInitialises) {
  ASSERT_NE(adapter().Library, nullptr) << adapter().Error;
  EXPECT_STREQ(adapter().Plugin.Targets, "cuda");
  EXPECT_STREQ(adapter().Plugin.PluginVersion, PI_VERSION_STRING);
#define DGLINK_TEST_ENTRY(Name, Ret, Params)                                                       \
  EXPECT_NE(pi().Name, nullptr) << #Name " missing from the table";
  PI_ENTRY_POINTS(DGLINK_TEST_ENTRY)
#undef DGLINK_TEST_ENTRY
  // Every entry point is also exported by name, and the table holds exactly it.
  void *Exported = dlsym(adapter().Library, "piextEnqueueDeviceGlobalVariableWrite");
  ASSERT_NE(Exported, nullptr);
  void *InTable = nullptr;
  auto Function = pi().piextEnqueueDeviceGlobalVariableWrite;
  std::memcpy(&InTable, &Function, sizeof(InTable));
  EXPECT_EQ(Exported, InTable);
}

TEST(CudaAdapter, RefusesAnotherMajorVersion) {
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

TEST(CudaAdapter, PlatformsGetChecksArguments) {
  ASSERT_NE(adapter().Library, nullptr) << adapter().Error;
  EXPECT_EQ(PI_ERROR_INVALID_VALUE, pi().piPlatformsGet(0, nullptr, nullptr));
  pi_platform Platform = nullptr;
  EXPECT_EQ(PI_ERROR_INVALID_VALUE, pi().piPlatformsGet(0, &Platform, nullptr));
}

// Without libcuda or a device the adapter reports zero platforms and succeeds.
TEST(CudaAdapter, ZeroPlatformsWithoutDevice) {
  ASSERT_NE(adapter().Library, nullptr) << adapter().Error;
  pi_uint32 Count = 99;
  ASSERT_PI(pi().piPlatformsGet(0, nullptr, &Count));
  if (Count != 0)
    GTEST_SKIP() << "a CUDA device is present";
  pi_platform Platform = nullptr;
  Count = 99;
  ASSERT_PI(pi().piPlatformsGet(1, &Platform, &Count));
  EXPECT_EQ(Count, 0u);
  EXPECT_EQ(Platform, nullptr);
}

TEST(CudaAdapter, NullHandlesGiveTheContractsCodes) {
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
  EXPECT_EQ(PI_ERROR_INVALID_DEVICE,
            pi().piDeviceGetInfo(nullptr, PI_DEVICE_INFO_NAME, 0, nullptr, nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_CONTEXT, pi().piContextRelease(nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_QUEUE, pi().piQueueFinish(nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_PROGRAM,
            pi().piProgramBuild(nullptr, 0, nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_PROGRAM, pi().piKernelCreate(nullptr, "k", nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_KERNEL, pi().piKernelSetArg(nullptr, 0, 4, &Value));
  EXPECT_EQ(PI_ERROR_INVALID_QUEUE,
            pi().piEnqueueKernelLaunch(nullptr, nullptr, 1, nullptr, nullptr, nullptr, 0, nullptr,
                                       nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_EVENT, pi().piEventRelease(nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_VALUE, pi().piEventsWait(0, nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_CONTEXT, pi().piProgramLink(nullptr, 0, nullptr, nullptr, 0, nullptr,
                                                         nullptr, nullptr, nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_CONTEXT, pi().piProgramCreate(nullptr, &Value, 4, nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_VALUE, pi().piContextCreate(nullptr, 0, nullptr, nullptr));
}

TEST(CudaAdapter, ForeignHandlesAreRefused) {
  ASSERT_NE(adapter().Library, nullptr) << adapter().Error;
  ForeignHandle Foreign{&OtherTable};
  auto *Queue = reinterpret_cast<pi_queue>(&Foreign);
  int Value = 0;
  EXPECT_EQ(PI_ERROR_INVALID_QUEUE,
            pi().piextEnqueueDeviceGlobalVariableWrite(Queue, nullptr, "x", PI_TRUE, 4, 0, &Value,
                                                       0, nullptr, nullptr));
  EXPECT_NE(lastError().find("not a handle of the CUDA adapter"), std::string::npos) << lastError();
  auto *Event = reinterpret_cast<pi_event>(&Foreign);
  EXPECT_EQ(PI_ERROR_INVALID_EVENT, pi().piEventsWait(1, &Event));
}

class CudaDeviceInfo : public CudaDeviceTest {};

std::string deviceString(pi_device Device, pi_device_info Name) {
  size_t Size = 0;
  EXPECT_PI(pi().piDeviceGetInfo(Device, Name, 0, nullptr, &Size));
  std::string Text(Size, '\0');
  EXPECT_PI(pi().piDeviceGetInfo(Device, Name, Size, Text.data(), nullptr));
  Text.resize(Size ? Size - 1 : 0);
  return Text;
}

TEST_F(CudaDeviceInfo, DescribesTheDevice) {
  EXPECT_EQ(deviceString(Device, PI_EXT_DEVICE_INFO_BACKEND_NAME), "cuda");
  EXPECT_FALSE(deviceString(Device, PI_DEVICE_INFO_NAME).empty());
  pi_bool Executes = PI_FALSE;
  ASSERT_PI(pi().piDeviceGetInfo(Device, PI_EXT_DEVICE_INFO_EXECUTES_KERNELS, sizeof(Executes),
                                 &Executes, nullptr));
  EXPECT_EQ(Executes, PI_TRUE);
  pi_device_global_mechanism Globals = PI_DEVICE_GLOBAL_MECHANISM_NONE;
  ASSERT_PI(pi().piDeviceGetInfo(Device, PI_EXT_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM,
                                 sizeof(Globals), &Globals, nullptr));
  EXPECT_EQ(Globals, PI_DEVICE_GLOBAL_MECHANISM_NATIVE);
  pi_usm_mechanism Usm = PI_USM_MECHANISM_NONE;
  ASSERT_PI(
      pi().piDeviceGetInfo(Device, PI_EXT_DEVICE_INFO_USM_MECHANISM, sizeof(Usm), &Usm, nullptr));
  EXPECT_EQ(Usm, PI_USM_MECHANISM_NATIVE);
  const std::string Extensions = deviceString(Device, PI_DEVICE_INFO_EXTENSIONS);
  EXPECT_NE(Extensions.find(PI_EXT_DEVICE_GLOBAL_ACCESS), std::string::npos) << Extensions;
  EXPECT_EQ(deviceString(Device, PI_EXT_DEVICE_INFO_LINK_FORMATS), "nvptx64");
  EXPECT_NE(Extensions.find(PI_EXT_NVPTX64_LINKING), std::string::npos) << Extensions;
  pi_platform Owner = nullptr;
  ASSERT_PI(pi().piDeviceGetInfo(Device, PI_DEVICE_INFO_PLATFORM, sizeof(Owner), &Owner, nullptr));
  EXPECT_EQ(Owner, Platform);
  EXPECT_EQ(PI_ERROR_INVALID_VALUE,
            pi().piDeviceGetInfo(Device, static_cast<pi_device_info>(0x7777), 0, nullptr, nullptr));
}

TEST_F(CudaDeviceInfo, UsmAllocationsAndCopies) {
  void *DevicePtr = nullptr, *HostPtr = nullptr, *SharedPtr = nullptr;
  ASSERT_PI(pi().piextUSMDeviceAlloc(&DevicePtr, Context, Device, nullptr, 4096, 0));
  ASSERT_PI(pi().piextUSMHostAlloc(&HostPtr, Context, nullptr, 4096, 0));
  ASSERT_PI(pi().piextUSMSharedAlloc(&SharedPtr, Context, Device, nullptr, 4096, 0));
  const int Pattern = 0x5A5A1234;
  ASSERT_PI(pi().piextUSMEnqueueFill(Queue, DevicePtr, &Pattern, 4, 4096, 0, nullptr, nullptr));
  ASSERT_PI(
      pi().piextUSMEnqueueMemcpy(Queue, PI_TRUE, HostPtr, DevicePtr, 4096, 0, nullptr, nullptr));
  for (int I = 0; I < 1024; ++I)
    ASSERT_EQ(static_cast<int *>(HostPtr)[I], Pattern) << I;
  std::vector<int> Pageable(1024, 7);
  pi_event Done = nullptr;
  ASSERT_PI(pi().piextUSMEnqueueMemcpy(Queue, PI_FALSE, SharedPtr, Pageable.data(), 4096, 0,
                                       nullptr, &Done));
  ASSERT_PI(pi().piEventsWait(1, &Done));
  EXPECT_EQ(static_cast<int *>(SharedPtr)[1023], 7);
  EXPECT_PI(pi().piEventRelease(Done));
  EXPECT_PI(pi().piextUSMFree(Context, DevicePtr));
  EXPECT_PI(pi().piextUSMFree(Context, HostPtr));
  EXPECT_PI(pi().piextUSMFree(Context, SharedPtr));
}

TEST_F(CudaDeviceInfo, BuffersRoundTrip) {
  std::vector<int> Initial(256);
  for (int I = 0; I < 256; ++I)
    Initial[I] = I * 7;
  pi_mem Buffer = nullptr;
  ASSERT_PI(pi().piMemBufferCreate(Context, PI_MEM_FLAGS_ACCESS_RW | PI_MEM_FLAGS_HOST_PTR_COPY,
                                   1024, Initial.data(), &Buffer));
  const int Patch[2] = {-1, -2};
  ASSERT_PI(
      pi().piEnqueueMemBufferWrite(Queue, Buffer, PI_TRUE, 40, 8, Patch, 0, nullptr, nullptr));
  std::vector<int> Back(256, 0);
  ASSERT_PI(pi().piEnqueueMemBufferRead(Queue, Buffer, PI_TRUE, 0, 1024, Back.data(), 0, nullptr,
                                        nullptr));
  EXPECT_EQ(Back[9], 63);
  EXPECT_EQ(Back[10], -1);
  EXPECT_EQ(Back[11], -2);
  EXPECT_EQ(Back[12], 84);
  EXPECT_EQ(PI_ERROR_INVALID_VALUE, pi().piEnqueueMemBufferRead(Queue, Buffer, PI_TRUE, 1020, 8,
                                                                Back.data(), 0, nullptr, nullptr));
  EXPECT_PI(pi().piMemRelease(Buffer));
}

} // namespace
