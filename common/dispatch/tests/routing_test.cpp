// Unit tests of libdglink_pi.so's routing: calls on a test adapter's handles reach
// that adapter, null handles are answered by the dispatch layer itself.
#include "fake_adapters.h"

#include <dglink/pi.h>

#include <gtest/gtest.h>

#include <cstring>
#include <functional>

namespace dglink::dispatch {
namespace {

using test::fakeFolder;

std::string lastError(pi_result &Code) {
  char *Message = nullptr;
  Code = ::piPluginGetLastError(&Message);
  return Message != nullptr ? Message : "<null>";
}

// Handles made by testfake (loaded by a registry of the test's own), used through
// libdglink_pi.so's exported entry points.
class Routing : public ::testing::Test {
protected:
  void SetUp() override {
    const AdapterRecord *Record = Registry.findLoaded("testfake");
    ASSERT_NE(Record, nullptr);
    Counts = std::make_unique<test::FakeCounters>(Record->Library.get());
    ASSERT_TRUE(Counts->valid());
    Counts->reset();
    ASSERT_EQ(Registry.getPlatforms(1, &Platform, nullptr), PI_SUCCESS);
  }

  AdapterRegistry Registry{DiscoveryOptions{{fakeFolder("good")}, {"testfake"}}};
  std::unique_ptr<test::FakeCounters> Counts;
  pi_platform Platform = nullptr;
};

TEST_F(Routing, CallsOnHandlesReachTheAdapterThatMadeThem) {
  char Name[8];
  EXPECT_EQ(::piPlatformGetInfo(Platform, PI_PLATFORM_INFO_NAME, sizeof(Name), Name, nullptr),
            PI_SUCCESS);
  EXPECT_EQ((*Counts)["piPlatformGetInfo"], 1u);

  pi_device Device = nullptr;
  ASSERT_EQ(::piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 1, &Device, nullptr), PI_SUCCESS);
  ASSERT_NE(Device, nullptr);
  EXPECT_EQ((*Counts)["piDevicesGet"], 1u);

  pi_context Context = nullptr;
  ASSERT_EQ(::piContextCreate(nullptr, 1, &Device, &Context), PI_SUCCESS);
  ASSERT_NE(Context, nullptr);
  EXPECT_EQ((*Counts)["piContextCreate"], 1u);

  pi_queue Queue = nullptr;
  ASSERT_EQ(::piQueueCreate(Context, Device, 0, &Queue), PI_SUCCESS);
  EXPECT_EQ(::piQueueFinish(Queue), PI_SUCCESS);
  EXPECT_EQ(::piQueueFinish(Queue), PI_SUCCESS);
  EXPECT_EQ((*Counts)["piQueueFinish"], 2u);

  pi_mem Mem = nullptr;
  ASSERT_EQ(::piMemBufferCreate(Context, PI_MEM_FLAGS_ACCESS_RW, 16, nullptr, &Mem), PI_SUCCESS);
  EXPECT_EQ(::piMemRelease(Mem), PI_SUCCESS);
  EXPECT_EQ((*Counts)["piMemRelease"], 1u);

  pi_program Program = nullptr;
  ASSERT_EQ(::piProgramCreate(Context, "IL", 2, &Program), PI_SUCCESS);
  pi_kernel Kernel = nullptr;
  ASSERT_EQ(::piKernelCreate(Program, "k", &Kernel), PI_SUCCESS);
  int Argument = 0;
  EXPECT_EQ(::piKernelSetArg(Kernel, 0, sizeof(Argument), &Argument), PI_SUCCESS);
  EXPECT_EQ((*Counts)["piKernelSetArg"], 1u);

  // The entry points without a handle argument of their own route by another one.
  EXPECT_EQ(::piProgramLink(Context, 1, &Device, "", 1, &Program, nullptr, nullptr, &Program),
            PI_SUCCESS);
  EXPECT_EQ((*Counts)["piProgramLink"], 1u);
  EXPECT_EQ(::piextUSMFree(Context, nullptr), PI_SUCCESS);
  EXPECT_EQ((*Counts)["piextUSMFree"], 1u);
  pi_event Event = nullptr;
  ASSERT_EQ(::piEnqueueEventsWait(Queue, 0, nullptr, &Event), PI_SUCCESS);
  ASSERT_NE(Event, nullptr);
  EXPECT_EQ(::piEventsWait(1, &Event), PI_SUCCESS);
  EXPECT_EQ((*Counts)["piEventsWait"], 1u);
  EXPECT_EQ(::piEventRelease(Event), PI_SUCCESS);
  EXPECT_EQ((*Counts)["piEventRelease"], 1u);
  EXPECT_EQ(::piextEnqueueDeviceGlobalVariableRead(Queue, Program, "g", PI_TRUE, 4, 0, &Argument, 0,
                                                   nullptr, nullptr),
            PI_SUCCESS);
  EXPECT_EQ((*Counts)["piextEnqueueDeviceGlobalVariableRead"], 1u);
}

TEST_F(Routing, AdapterMessageReachesPiPluginGetLastError) {
  pi_device Device = nullptr;
  pi_context Context = nullptr;
  pi_program Program = nullptr;
  ASSERT_EQ(::piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 1, &Device, nullptr), PI_SUCCESS);
  ASSERT_EQ(::piContextCreate(nullptr, 1, &Device, &Context), PI_SUCCESS);
  ASSERT_EQ(::piProgramCreate(Context, "IL", 2, &Program), PI_SUCCESS);
  EXPECT_EQ(::piProgramBuild(Program, 1, &Device, "", nullptr, nullptr),
            PI_ERROR_BUILD_PROGRAM_FAILURE);
  pi_result Code = PI_SUCCESS;
  EXPECT_EQ(lastError(Code), "testfake: the build always fails");
  EXPECT_EQ(Code, PI_ERROR_BUILD_PROGRAM_FAILURE);
}

// One call per entry point with a null handle: the dispatch layer answers, with the
// code of DESIGN.md's error table and a message naming the function and argument.
struct NullCase {
  const char *Function;
  const char *Argument;
  pi_result Expected;
  std::function<pi_result()> Call;
};

std::vector<NullCase> nullCases() {
  void *Ptr = nullptr;
  const size_t Sizes[1] = {1};
  return {
      {"piPlatformGetInfo", "Platform", PI_ERROR_INVALID_PLATFORM,
       [] { return ::piPlatformGetInfo(nullptr, PI_PLATFORM_INFO_NAME, 0, nullptr, nullptr); }},
      {"piDevicesGet", "Platform", PI_ERROR_INVALID_PLATFORM,
       [] { return ::piDevicesGet(nullptr, PI_DEVICE_TYPE_ALL, 0, nullptr, nullptr); }},
      {"piDeviceGetInfo", "Device", PI_ERROR_INVALID_DEVICE,
       [] { return ::piDeviceGetInfo(nullptr, PI_DEVICE_INFO_NAME, 0, nullptr, nullptr); }},
      {"piDeviceRetain", "Device", PI_ERROR_INVALID_DEVICE,
       [] { return ::piDeviceRetain(nullptr); }},
      {"piDeviceRelease", "Device", PI_ERROR_INVALID_DEVICE,
       [] { return ::piDeviceRelease(nullptr); }},
      {"piContextCreate", "Devices[0]", PI_ERROR_INVALID_DEVICE,
       [] {
         pi_device Devices[1] = {nullptr};
         return ::piContextCreate(nullptr, 1, Devices, nullptr);
       }},
      {"piContextGetInfo", "Context", PI_ERROR_INVALID_CONTEXT,
       [] {
         return ::piContextGetInfo(nullptr, PI_CONTEXT_INFO_NUM_DEVICES, 0, nullptr, nullptr);
       }},
      {"piContextRetain", "Context", PI_ERROR_INVALID_CONTEXT,
       [] { return ::piContextRetain(nullptr); }},
      {"piContextRelease", "Context", PI_ERROR_INVALID_CONTEXT,
       [] { return ::piContextRelease(nullptr); }},
      {"piQueueCreate", "Context", PI_ERROR_INVALID_CONTEXT,
       [] { return ::piQueueCreate(nullptr, nullptr, 0, nullptr); }},
      {"piQueueGetInfo", "Queue", PI_ERROR_INVALID_QUEUE,
       [] { return ::piQueueGetInfo(nullptr, PI_QUEUE_INFO_CONTEXT, 0, nullptr, nullptr); }},
      {"piQueueFinish", "Queue", PI_ERROR_INVALID_QUEUE, [] { return ::piQueueFinish(nullptr); }},
      {"piQueueRetain", "Queue", PI_ERROR_INVALID_QUEUE, [] { return ::piQueueRetain(nullptr); }},
      {"piQueueRelease", "Queue", PI_ERROR_INVALID_QUEUE, [] { return ::piQueueRelease(nullptr); }},
      {"piMemBufferCreate", "Context", PI_ERROR_INVALID_CONTEXT,
       [] { return ::piMemBufferCreate(nullptr, 0, 1, nullptr, nullptr); }},
      {"piMemRetain", "Mem", PI_ERROR_INVALID_MEM_OBJECT, [] { return ::piMemRetain(nullptr); }},
      {"piMemRelease", "Mem", PI_ERROR_INVALID_MEM_OBJECT, [] { return ::piMemRelease(nullptr); }},
      {"piEnqueueMemBufferRead", "Queue", PI_ERROR_INVALID_QUEUE,
       [Ptr] {
         return ::piEnqueueMemBufferRead(nullptr, nullptr, PI_TRUE, 0, 1, Ptr, 0, nullptr, nullptr);
       }},
      {"piEnqueueMemBufferWrite", "Queue", PI_ERROR_INVALID_QUEUE,
       [Ptr] {
         return ::piEnqueueMemBufferWrite(nullptr, nullptr, PI_TRUE, 0, 1, Ptr, 0, nullptr,
                                          nullptr);
       }},
      {"piextUSMDeviceAlloc", "Context", PI_ERROR_INVALID_CONTEXT,
       [Ptr]() mutable { return ::piextUSMDeviceAlloc(&Ptr, nullptr, nullptr, nullptr, 1, 0); }},
      {"piextUSMHostAlloc", "Context", PI_ERROR_INVALID_CONTEXT,
       [Ptr]() mutable { return ::piextUSMHostAlloc(&Ptr, nullptr, nullptr, 1, 0); }},
      {"piextUSMSharedAlloc", "Context", PI_ERROR_INVALID_CONTEXT,
       [Ptr]() mutable { return ::piextUSMSharedAlloc(&Ptr, nullptr, nullptr, nullptr, 1, 0); }},
      {"piextUSMFree", "Context", PI_ERROR_INVALID_CONTEXT,
       [Ptr] { return ::piextUSMFree(nullptr, Ptr); }},
      {"piextUSMEnqueueMemcpy", "Queue", PI_ERROR_INVALID_QUEUE,
       [Ptr] {
         return ::piextUSMEnqueueMemcpy(nullptr, PI_TRUE, Ptr, Ptr, 1, 0, nullptr, nullptr);
       }},
      {"piextUSMEnqueueFill", "Queue", PI_ERROR_INVALID_QUEUE,
       [Ptr] { return ::piextUSMEnqueueFill(nullptr, Ptr, Ptr, 1, 1, 0, nullptr, nullptr); }},
      {"piProgramCreate", "Context", PI_ERROR_INVALID_CONTEXT,
       [] { return ::piProgramCreate(nullptr, "IL", 2, nullptr); }},
      {"piProgramCreateWithBinary", "Context", PI_ERROR_INVALID_CONTEXT,
       [Sizes] {
         const unsigned char *Binaries[1] = {reinterpret_cast<const unsigned char *>("b")};
         return ::piProgramCreateWithBinary(nullptr, 0, nullptr, Sizes, Binaries, 0, nullptr,
                                            nullptr, nullptr);
       }},
      {"piextProgramCreateWithImage", "Context", PI_ERROR_INVALID_CONTEXT,
       [] { return ::piextProgramCreateWithImage(nullptr, 0, nullptr, nullptr, nullptr); }},
      {"piProgramCompile", "Program", PI_ERROR_INVALID_PROGRAM,
       [] {
         return ::piProgramCompile(nullptr, 0, nullptr, "", 0, nullptr, nullptr, nullptr, nullptr);
       }},
      {"piProgramLink", "Context", PI_ERROR_INVALID_CONTEXT,
       [] {
         return ::piProgramLink(nullptr, 0, nullptr, "", 0, nullptr, nullptr, nullptr, nullptr);
       }},
      {"piProgramBuild", "Program", PI_ERROR_INVALID_PROGRAM,
       [] { return ::piProgramBuild(nullptr, 0, nullptr, "", nullptr, nullptr); }},
      {"piProgramGetInfo", "Program", PI_ERROR_INVALID_PROGRAM,
       [] {
         return ::piProgramGetInfo(nullptr, PI_PROGRAM_INFO_NUM_KERNELS, 0, nullptr, nullptr);
       }},
      {"piProgramGetBuildInfo", "Program", PI_ERROR_INVALID_PROGRAM,
       [] {
         return ::piProgramGetBuildInfo(nullptr, nullptr, PI_PROGRAM_BUILD_INFO_LOG, 0, nullptr,
                                        nullptr);
       }},
      {"piProgramRetain", "Program", PI_ERROR_INVALID_PROGRAM,
       [] { return ::piProgramRetain(nullptr); }},
      {"piProgramRelease", "Program", PI_ERROR_INVALID_PROGRAM,
       [] { return ::piProgramRelease(nullptr); }},
      {"piKernelCreate", "Program", PI_ERROR_INVALID_PROGRAM,
       [] { return ::piKernelCreate(nullptr, "k", nullptr); }},
      {"piKernelSetArg", "Kernel", PI_ERROR_INVALID_KERNEL,
       [] { return ::piKernelSetArg(nullptr, 0, 0, nullptr); }},
      {"piextKernelSetArgPointer", "Kernel", PI_ERROR_INVALID_KERNEL,
       [] { return ::piextKernelSetArgPointer(nullptr, 0, 0, nullptr); }},
      {"piextKernelSetArgMemObj", "Kernel", PI_ERROR_INVALID_KERNEL,
       [] { return ::piextKernelSetArgMemObj(nullptr, 0, nullptr); }},
      {"piKernelGetInfo", "Kernel", PI_ERROR_INVALID_KERNEL,
       [] { return ::piKernelGetInfo(nullptr, PI_KERNEL_INFO_NUM_ARGS, 0, nullptr, nullptr); }},
      {"piKernelRetain", "Kernel", PI_ERROR_INVALID_KERNEL,
       [] { return ::piKernelRetain(nullptr); }},
      {"piKernelRelease", "Kernel", PI_ERROR_INVALID_KERNEL,
       [] { return ::piKernelRelease(nullptr); }},
      {"piEnqueueKernelLaunch", "Queue", PI_ERROR_INVALID_QUEUE,
       [Sizes] {
         return ::piEnqueueKernelLaunch(nullptr, nullptr, 1, nullptr, Sizes, nullptr, 0, nullptr,
                                        nullptr);
       }},
      {"piEventsWait", "EventList[0]", PI_ERROR_INVALID_EVENT,
       [] {
         pi_event Events[1] = {nullptr};
         return ::piEventsWait(1, Events);
       }},
      {"piEventGetInfo", "Event", PI_ERROR_INVALID_EVENT,
       [] {
         return ::piEventGetInfo(nullptr, PI_EVENT_INFO_COMMAND_EXECUTION_STATUS, 0, nullptr,
                                 nullptr);
       }},
      {"piEventRetain", "Event", PI_ERROR_INVALID_EVENT, [] { return ::piEventRetain(nullptr); }},
      {"piEventRelease", "Event", PI_ERROR_INVALID_EVENT, [] { return ::piEventRelease(nullptr); }},
      {"piEnqueueEventsWait", "Queue", PI_ERROR_INVALID_QUEUE,
       [] { return ::piEnqueueEventsWait(nullptr, 0, nullptr, nullptr); }},
      {"piEnqueueEventsWaitWithBarrier", "Queue", PI_ERROR_INVALID_QUEUE,
       [] { return ::piEnqueueEventsWaitWithBarrier(nullptr, 0, nullptr, nullptr); }},
      {"piextEnqueueDeviceGlobalVariableRead", "Queue", PI_ERROR_INVALID_QUEUE,
       [Ptr] {
         return ::piextEnqueueDeviceGlobalVariableRead(nullptr, nullptr, "g", PI_TRUE, 1, 0, Ptr, 0,
                                                       nullptr, nullptr);
       }},
      {"piextEnqueueDeviceGlobalVariableWrite", "Queue", PI_ERROR_INVALID_QUEUE,
       [Ptr] {
         return ::piextEnqueueDeviceGlobalVariableWrite(nullptr, nullptr, "g", PI_TRUE, 1, 0, Ptr,
                                                        0, nullptr, nullptr);
       }},
      {"piMemBufferPartition", "Buffer", PI_ERROR_INVALID_MEM_OBJECT,
       [] {
         pi_buffer_region_struct Region{0, 1};
         return ::piMemBufferPartition(nullptr, 0, PI_BUFFER_CREATE_TYPE_REGION, &Region, nullptr);
       }},
      {"piEnqueueMemBufferCopy", "Queue", PI_ERROR_INVALID_QUEUE,
       [] {
         return ::piEnqueueMemBufferCopy(nullptr, nullptr, nullptr, 0, 0, 1, 0, nullptr, nullptr);
       }},
      {"piEnqueueMemBufferFill", "Queue", PI_ERROR_INVALID_QUEUE,
       [Ptr] {
         return ::piEnqueueMemBufferFill(nullptr, nullptr, Ptr, 1, 0, 1, 0, nullptr, nullptr);
       }},
      {"piEnqueueMemBufferReadRect", "Queue", PI_ERROR_INVALID_QUEUE,
       [Ptr] {
         return ::piEnqueueMemBufferReadRect(nullptr, nullptr, PI_TRUE, nullptr, nullptr, nullptr,
                                             0, 0, 0, 0, Ptr, 0, nullptr, nullptr);
       }},
      {"piEnqueueMemBufferWriteRect", "Queue", PI_ERROR_INVALID_QUEUE,
       [Ptr] {
         return ::piEnqueueMemBufferWriteRect(nullptr, nullptr, PI_TRUE, nullptr, nullptr, nullptr,
                                              0, 0, 0, 0, Ptr, 0, nullptr, nullptr);
       }},
      {"piEnqueueMemBufferCopyRect", "Queue", PI_ERROR_INVALID_QUEUE,
       [] {
         return ::piEnqueueMemBufferCopyRect(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                             0, 0, 0, 0, 0, nullptr, nullptr);
       }},
      {"piEventGetProfilingInfo", "Event", PI_ERROR_INVALID_EVENT,
       [] {
         return ::piEventGetProfilingInfo(nullptr, PI_PROFILING_INFO_COMMAND_END, 0, nullptr,
                                          nullptr);
       }},
      {"piEventSetCallback", "Event", PI_ERROR_INVALID_EVENT,
       [] {
         return ::piEventSetCallback(
             nullptr, PI_EVENT_COMPLETE, [](pi_event, pi_int32, void *) {}, nullptr);
       }},
      {"piextUSMGetMemAllocInfo", "Context", PI_ERROR_INVALID_CONTEXT,
       [] {
         return ::piextUSMGetMemAllocInfo(nullptr, nullptr, PI_MEM_ALLOC_TYPE, 0, nullptr, nullptr);
       }},
      {"piEnqueueMemBufferMap", "Queue", PI_ERROR_INVALID_QUEUE,
       [] {
         void *Map = nullptr;
         return ::piEnqueueMemBufferMap(nullptr, nullptr, PI_TRUE, PI_MAP_READ, 0, 1, 0, nullptr,
                                        nullptr, &Map);
       }},
      {"piEnqueueMemUnmap", "Queue", PI_ERROR_INVALID_QUEUE,
       [Ptr] { return ::piEnqueueMemUnmap(nullptr, nullptr, Ptr, 0, nullptr, nullptr); }},
  };
}

TEST(RoutingNullHandles, AnsweredByTheDispatchLayerWithTheContractsCode) {
  const std::vector<NullCase> Cases = nullCases();
  // Every entry point but piPlatformsGet, piPluginGetLastError and piTearDown.
  size_t EntryPoints = 0;
#define DGLINK_COUNT_ENTRY(Name, Ret, Params) ++EntryPoints;
  PI_ENTRY_POINTS(DGLINK_COUNT_ENTRY)
#undef DGLINK_COUNT_ENTRY
  EXPECT_EQ(Cases.size(), EntryPoints - 3);

  for (const NullCase &Case : Cases) {
    SCOPED_TRACE(Case.Function);
    EXPECT_EQ(Case.Call(), Case.Expected);
    pi_result Code = PI_SUCCESS;
    const std::string Message = lastError(Code);
    EXPECT_EQ(Code, Case.Expected);
    EXPECT_EQ(Message, std::string(Case.Function) + ": argument '" + Case.Argument + "' is null");
  }
}

TEST(RoutingNullHandles, EmptyDeviceAndEventListsAreInvalidValues) {
  pi_device Device = nullptr;
  pi_result Code = PI_SUCCESS;
  EXPECT_EQ(::piContextCreate(nullptr, 0, &Device, nullptr), PI_ERROR_INVALID_VALUE);
  EXPECT_NE(lastError(Code).find("piContextCreate: argument 'Devices'"), std::string::npos);
  EXPECT_EQ(::piContextCreate(nullptr, 1, nullptr, nullptr), PI_ERROR_INVALID_VALUE);
  EXPECT_EQ(Code, PI_ERROR_INVALID_VALUE);

  pi_event Event = nullptr;
  EXPECT_EQ(::piEventsWait(0, &Event), PI_ERROR_INVALID_VALUE);
  EXPECT_NE(lastError(Code).find("piEventsWait: argument 'EventList'"), std::string::npos);
  EXPECT_EQ(::piEventsWait(1, nullptr), PI_ERROR_INVALID_VALUE);
  EXPECT_EQ(Code, PI_ERROR_INVALID_VALUE);
}

TEST(DispatchPluginInit, HandsOutTheDispatchLayersOwnEntryPoints) {
  pi_plugin Plugin{};
  std::strcpy(Plugin.PiVersion, PI_VERSION_STRING);
  ASSERT_EQ(::piPluginInit(&Plugin), PI_SUCCESS);
  EXPECT_STREQ(Plugin.Targets, "dispatch");
  EXPECT_STREQ(Plugin.PluginVersion, PI_VERSION_STRING);
#define DGLINK_CHECK_OWN_ENTRY(Name, Ret, Params) EXPECT_EQ(Plugin.PiFunctionTable.Name, &::Name);
  PI_ENTRY_POINTS(DGLINK_CHECK_OWN_ENTRY)
#undef DGLINK_CHECK_OWN_ENTRY

  pi_plugin Future{};
  std::strcpy(Future.PiVersion, "2.0");
  EXPECT_EQ(::piPluginInit(&Future), PI_ERROR_INVALID_OPERATION);
  EXPECT_EQ(Future.PiFunctionTable.piQueueFinish, nullptr);
}

} // namespace
} // namespace dglink::dispatch
