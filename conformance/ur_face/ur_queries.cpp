// The UR surface PI has no words for, served from the core and the driver (docs/ur.md):
// USM prefetch and advice (hints: checked, then the driver's migration or a command that
// completes), the kernel's resources and sub-groups, and objects made from native
// handles. A scenario of dglink_conformance_ur only; through the bridge a pi_* handle is
// the UR handle.
#include "fixtures.h"
#include "ur_handles.h"

#include <unified-runtime/ur_api.h>

#ifdef DGLINK_NATIVE_OPENCL
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#endif

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <future>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

namespace dglink::conformance {
namespace {

// ---- USM prefetch and advice ----

class UrUsmHints : public QueueTest {};

// Each hint is a command with its event that completes; the bytes stay what they were.
// Bad input gets the codes UR's spec lists (null handles are the loader's to route: with
// several adapters loaded it reads them, so UR's CTS checks those with one).
TEST_P(UrUsmHints, PrefetchAndAdviseCompleteAndKeepTheData) {
  if (usmMechanism() == PI_USM_MECHANISM_NONE)
    GTEST_SKIP() << "device has no USM (PI_EXT_DEVICE_INFO_USM_MECHANISM is NONE)";
  const ur_queue_handle_t Q = asUr(Queue.get());
  constexpr size_t Bytes = 4096;
  void *Usm = nullptr;
  ASSERT_EQ(urUSMDeviceAlloc(asUr(Context.get()), asUr(Device), nullptr, nullptr, Bytes, &Usm),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  std::vector<uint8_t> Data(Bytes);
  std::iota(Data.begin(), Data.end(), uint8_t{3});
  ASSERT_EQ(urEnqueueUSMMemcpy(Q, true, Usm, Data.data(), Bytes, 0, nullptr, nullptr),
            UR_RESULT_SUCCESS);

  for (const ur_usm_migration_flags_t Flags :
       {UR_USM_MIGRATION_FLAG_HOST_TO_DEVICE, UR_USM_MIGRATION_FLAG_DEVICE_TO_HOST}) {
    ur_event_handle_t Event = nullptr;
    ASSERT_EQ(urEnqueueUSMPrefetch(Q, Usm, Bytes, Flags, 0, nullptr, &Event), UR_RESULT_SUCCESS)
        << urLastError(Platform);
    ASSERT_EQ(urEventWait(1, &Event), UR_RESULT_SUCCESS);
    EXPECT_EQ(statusOf(Event), UR_EVENT_STATUS_COMPLETE);
    ur_command_t Command = UR_COMMAND_FORCE_UINT32;
    EXPECT_EQ(urEventGetInfo(Event, UR_EVENT_INFO_COMMAND_TYPE, sizeof(Command), &Command, nullptr),
              UR_RESULT_SUCCESS);
    EXPECT_EQ(Command, UR_COMMAND_USM_PREFETCH);
    EXPECT_EQ(urEventRelease(Event), UR_RESULT_SUCCESS);
  }
  // A part of the allocation, after an event of the queue.
  ur_event_handle_t Before = nullptr, Part = nullptr;
  ASSERT_EQ(urEnqueueEventsWait(Q, 0, nullptr, &Before), UR_RESULT_SUCCESS);
  EXPECT_EQ(urEnqueueUSMPrefetch(Q, static_cast<char *>(Usm) + 1024, 1024,
                                 UR_USM_MIGRATION_FLAG_HOST_TO_DEVICE, 1, &Before, &Part),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  EXPECT_EQ(urEventWait(1, &Part), UR_RESULT_SUCCESS);
  EXPECT_EQ(urEventRelease(Part), UR_RESULT_SUCCESS);
  EXPECT_EQ(urEventRelease(Before), UR_RESULT_SUCCESS);

  ur_event_handle_t Advised = nullptr;
  ASSERT_EQ(urEnqueueUSMAdvise(Q, Usm, Bytes,
                               UR_USM_ADVICE_FLAG_SET_READ_MOSTLY |
                                   UR_USM_ADVICE_FLAG_SET_PREFERRED_LOCATION,
                               &Advised),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_EQ(urEventWait(1, &Advised), UR_RESULT_SUCCESS);
  EXPECT_EQ(statusOf(Advised), UR_EVENT_STATUS_COMPLETE);
  EXPECT_EQ(urEventRelease(Advised), UR_RESULT_SUCCESS);

  std::vector<uint8_t> Back(Bytes);
  ASSERT_EQ(urEnqueueUSMMemcpy(Q, true, Back.data(), Usm, Bytes, 0, nullptr, nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(Back, Data);

  // Bad input.
  const auto HostToDevice = UR_USM_MIGRATION_FLAG_HOST_TO_DEVICE;
  EXPECT_EQ(urEnqueueUSMPrefetch(Q, Usm, Bytes * 2, HostToDevice, 0, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(urEnqueueUSMPrefetch(Q, static_cast<char *>(Usm) + 8, Bytes, HostToDevice, 0, nullptr,
                                 nullptr),
            UR_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(urEnqueueUSMPrefetch(Q, Usm, 0, HostToDevice, 0, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(urEnqueueUSMPrefetch(Q, Usm, Bytes, 1u << 5, 0, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_ENUMERATION);
  EXPECT_EQ(urEnqueueUSMPrefetch(Q, nullptr, Bytes, HostToDevice, 0, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(urEnqueueUSMPrefetch(Q, Usm, Bytes, HostToDevice, 1, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_EVENT_WAIT_LIST);
  std::vector<uint8_t> NotUsm(16);
  EXPECT_EQ(urEnqueueUSMPrefetch(Q, NotUsm.data(), 16, HostToDevice, 0, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_VALUE);
  EXPECT_EQ(urEnqueueUSMAdvise(Q, Usm, Bytes + 1, UR_USM_ADVICE_FLAG_DEFAULT, nullptr),
            UR_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(urEnqueueUSMAdvise(Q, Usm, Bytes, 1u << 20, nullptr),
            UR_RESULT_ERROR_INVALID_ENUMERATION);
  EXPECT_EQ(urUSMFree(asUr(Context.get()), Usm), UR_RESULT_SUCCESS);
}

DGLINK_INSTANTIATE_FOR_DEVICES(UrUsmHints);

// ---- kernel queries ----

class UrKernelQueries : public BuiltProgramTest {};

// The driver's answers, compared with the driver's own where this build reaches it
// (OpenCL: clGetKernelWorkGroupInfo on the kernel's native handle).
TEST_P(UrKernelQueries, GroupAndSubGroupInfoFromTheDriver) {
  ProgramHandle Program;
  ASSERT_NO_FATAL_FAILURE(buildProgram("pattern", Program));
  KernelHandle Kernel;
  ASSERT_NO_FATAL_FAILURE(createKernel(Program.get(), "fill_pattern", Kernel));
  const ur_kernel_handle_t K = asUr(Kernel.get());
  const ur_device_handle_t D = asUr(Device);
  auto Group = [&](ur_kernel_group_info_t Name) {
    size_t Size = 0, Value = 12345;
    EXPECT_EQ(urKernelGetGroupInfo(K, D, Name, 0, nullptr, &Size), UR_RESULT_SUCCESS)
        << Name << ": " << urLastError(Platform);
    EXPECT_EQ(Size, sizeof(size_t));
    EXPECT_EQ(urKernelGetGroupInfo(K, D, Name, sizeof(Value), &Value, nullptr), UR_RESULT_SUCCESS)
        << Name << ": " << urLastError(Platform);
    return Value;
  };
  const size_t Local = Group(UR_KERNEL_GROUP_INFO_LOCAL_MEM_SIZE);
  const size_t Private = Group(UR_KERNEL_GROUP_INFO_PRIVATE_MEM_SIZE);
  const size_t Multiple = Group(UR_KERNEL_GROUP_INFO_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
  EXPECT_GE(Multiple, 1u);
  EXPECT_NE(Local, 12345u);
  EXPECT_NE(Private, 12345u);
#ifdef DGLINK_NATIVE_OPENCL
  if (GetParam().Backend == "opencl") {
    ur_native_handle_t Native = 0, NativeDevice = 0;
    ASSERT_EQ(urKernelGetNativeHandle(K, &Native), UR_RESULT_SUCCESS);
    ASSERT_EQ(urDeviceGetNativeHandle(D, &NativeDevice), UR_RESULT_SUCCESS);
    auto *ClKernel = reinterpret_cast<cl_kernel>(Native);
    auto *ClDevice = reinterpret_cast<cl_device_id>(NativeDevice);
    cl_ulong ClLocal = 0, ClPrivate = 0;
    size_t ClMultiple = 0;
    ASSERT_EQ(clGetKernelWorkGroupInfo(ClKernel, ClDevice, CL_KERNEL_LOCAL_MEM_SIZE,
                                       sizeof(ClLocal), &ClLocal, nullptr),
              CL_SUCCESS);
    ASSERT_EQ(clGetKernelWorkGroupInfo(ClKernel, ClDevice, CL_KERNEL_PRIVATE_MEM_SIZE,
                                       sizeof(ClPrivate), &ClPrivate, nullptr),
              CL_SUCCESS);
    ASSERT_EQ(clGetKernelWorkGroupInfo(ClKernel, ClDevice,
                                       CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                       sizeof(ClMultiple), &ClMultiple, nullptr),
              CL_SUCCESS);
    EXPECT_EQ(Local, ClLocal);
    EXPECT_EQ(Private, ClPrivate);
    EXPECT_EQ(Multiple, ClMultiple);
  }
#endif
  auto SubGroup = [&](ur_kernel_sub_group_info_t Name) {
    size_t Size = 0;
    uint32_t Value = 12345;
    EXPECT_EQ(urKernelGetSubGroupInfo(K, D, Name, 0, nullptr, &Size), UR_RESULT_SUCCESS)
        << Name << ": " << urLastError(Platform);
    EXPECT_EQ(Size, sizeof(uint32_t));
    EXPECT_EQ(urKernelGetSubGroupInfo(K, D, Name, sizeof(Value), &Value, nullptr),
              UR_RESULT_SUCCESS)
        << Name << ": " << urLastError(Platform);
    return Value;
  };
  EXPECT_GE(SubGroup(UR_KERNEL_SUB_GROUP_INFO_MAX_SUB_GROUP_SIZE), 1u);
  EXPECT_GE(SubGroup(UR_KERNEL_SUB_GROUP_INFO_MAX_NUM_SUB_GROUPS), 1u);
  // fill_pattern requires neither a count nor a size of sub-groups.
  EXPECT_EQ(SubGroup(UR_KERNEL_SUB_GROUP_INFO_COMPILE_NUM_SUB_GROUPS), 0u);
  EXPECT_EQ(SubGroup(UR_KERNEL_SUB_GROUP_INFO_SUB_GROUP_SIZE_INTEL), 0u);

  uint8_t Small = 0;
  EXPECT_EQ(urKernelGetGroupInfo(K, D, UR_KERNEL_GROUP_INFO_LOCAL_MEM_SIZE, 1, &Small, nullptr),
            UR_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(urKernelGetSubGroupInfo(K, D, UR_KERNEL_SUB_GROUP_INFO_FORCE_UINT32, sizeof(uint32_t),
                                    &Small, nullptr),
            UR_RESULT_ERROR_INVALID_ENUMERATION);
}

DGLINK_INSTANTIATE_FOR_DEVICES(UrKernelQueries);

// ---- objects from native handles ----

class UrFromNative : public QueueTest {
protected:
#ifdef DGLINK_NATIVE_OPENCL
  // The OpenCL context and device under the fixture's (OpenCL devices only).
  void nativeOpenCl(cl_context &ClContext, cl_device_id &ClDevice) {
    ur_native_handle_t NativeContext = 0, NativeDevice = 0;
    ASSERT_EQ(urContextGetNativeHandle(asUr(Context.get()), &NativeContext), UR_RESULT_SUCCESS);
    ASSERT_EQ(urDeviceGetNativeHandle(asUr(Device), &NativeDevice), UR_RESULT_SUCCESS);
    ClContext = reinterpret_cast<cl_context>(NativeContext);
    ClDevice = reinterpret_cast<cl_device_id>(NativeDevice);
  }
#endif
};

// The native event 0 (UR's CTS makes its dummy wait-list events so) is an event of no
// command: complete, of the context, usable in a wait list.
TEST_P(UrFromNative, EventOfNoCommand) {
  ur_event_handle_t Event = nullptr;
  ASSERT_EQ(urEventCreateWithNativeHandle(0, asUr(Context.get()), nullptr, &Event),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  EXPECT_EQ(statusOf(Event), UR_EVENT_STATUS_COMPLETE);
  ur_context_handle_t Of = nullptr;
  EXPECT_EQ(urEventGetInfo(Event, UR_EVENT_INFO_CONTEXT, handleBytes<ur_context_handle_t>(), &Of,
                           nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(Of, asUr(Context.get()));
  ur_queue_handle_t OfQueue = asUr(Queue.get());
  EXPECT_EQ(urEventGetInfo(Event, UR_EVENT_INFO_COMMAND_QUEUE, handleBytes<ur_queue_handle_t>(),
                           &OfQueue, nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(OfQueue, nullptr);
  EXPECT_EQ(urEventWait(1, &Event), UR_RESULT_SUCCESS);
  // In a wait list, with an event of a command.
  ur_event_handle_t Marker = nullptr, After = nullptr;
  ASSERT_EQ(urEnqueueEventsWait(asUr(Queue.get()), 0, nullptr, &Marker), UR_RESULT_SUCCESS);
  const ur_event_handle_t Both[] = {Event, Marker};
  EXPECT_EQ(urEnqueueEventsWait(asUr(Queue.get()), 2, Both, &After), UR_RESULT_SUCCESS)
      << urLastError(Platform);
  EXPECT_EQ(urEventWait(1, &After), UR_RESULT_SUCCESS);
  EXPECT_EQ(urEnqueueEventsWait(asUr(Queue.get()), 0, &Event, nullptr),
            UR_RESULT_ERROR_INVALID_EVENT_WAIT_LIST);
  uint64_t Time = 0;
  EXPECT_EQ(
      urEventGetProfilingInfo(Event, UR_PROFILING_INFO_COMMAND_END, sizeof(Time), &Time, nullptr),
      UR_RESULT_ERROR_PROFILING_INFO_NOT_AVAILABLE);
  // Both output pointers are optional (UR's CTS asks so of a command's event on a queue
  // without profiling): the answer is the one a query with a value gets.
  EXPECT_EQ(urEventGetProfilingInfo(Event, UR_PROFILING_INFO_COMMAND_QUEUED, sizeof(Time), nullptr,
                                    nullptr),
            UR_RESULT_ERROR_PROFILING_INFO_NOT_AVAILABLE);
  const ur_result_t MarkerAnswer = urEventGetProfilingInfo(Marker, UR_PROFILING_INFO_COMMAND_QUEUED,
                                                           sizeof(Time), &Time, nullptr);
  EXPECT_EQ(urEventGetProfilingInfo(Marker, UR_PROFILING_INFO_COMMAND_QUEUED, sizeof(Time), nullptr,
                                    nullptr),
            MarkerAnswer);
  EXPECT_EQ(urEventRelease(After), UR_RESULT_SUCCESS);
  EXPECT_EQ(urEventRelease(Marker), UR_RESULT_SUCCESS);
  EXPECT_EQ(urEventRelease(Event), UR_RESULT_SUCCESS);
  EXPECT_EQ(urEventCreateWithNativeHandle(0, asUr(Context.get()), nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_NULL_POINTER);
}

// The platform and device of their driver handles are dglink's own handles.
TEST_P(UrFromNative, PlatformAndDeviceAreTheDiscoveredOnes) {
  if (leakCheckerOn())
    GTEST_SKIP() << "UR 0.12's leak checker counts a handle handed out again as created twice";
  ur_native_handle_t NativeDevice = 0;
  ASSERT_EQ(urDeviceGetNativeHandle(asUr(Device), &NativeDevice), UR_RESULT_SUCCESS);
  ur_adapter_handle_t Adapter = nullptr;
  const size_t AdapterBytes = sizeof(Adapter); // NOLINT(bugprone-sizeof-expression)
  ASSERT_EQ(urPlatformGetInfo(reinterpret_cast<ur_platform_handle_t>(Platform),
                              UR_PLATFORM_INFO_ADAPTER, AdapterBytes, &Adapter, nullptr),
            UR_RESULT_SUCCESS);
  ur_device_handle_t Made = nullptr;
  ASSERT_EQ(urDeviceCreateWithNativeHandle(NativeDevice, Adapter, nullptr, &Made),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  EXPECT_EQ(Made, asUr(Device));
  ur_native_handle_t NativePlatform = 0;
  if (urPlatformGetNativeHandle(reinterpret_cast<ur_platform_handle_t>(Platform),
                                &NativePlatform) == UR_RESULT_SUCCESS) {
    ur_platform_handle_t MadePlatform = nullptr;
    ASSERT_EQ(urPlatformCreateWithNativeHandle(NativePlatform, Adapter, nullptr, &MadePlatform),
              UR_RESULT_SUCCESS)
        << urLastError(Platform);
    EXPECT_EQ(MadePlatform, reinterpret_cast<ur_platform_handle_t>(Platform));
  }
}

// A queue and an event made from the driver's handles of dglink's own (OpenCL: the
// cl_command_queue and cl_event; CUDA, HIP: the stream, Level Zero: the immediate command
// list, no event); a backend that cannot adopt them says so.
TEST_P(UrFromNative, QueueAndEventOfTheDriver) {
  const ur_queue_handle_t Q = asUr(Queue.get());
  ur_native_handle_t NativeQueue = 0;
  ASSERT_EQ(urQueueGetNativeHandle(Q, nullptr, &NativeQueue), UR_RESULT_SUCCESS);
#ifdef DGLINK_NATIVE_OPENCL
  auto *ClQueue = reinterpret_cast<cl_command_queue>(NativeQueue);
  cl_uint Before = 0, References = 0;
  if (GetParam().Backend == "opencl") {
    ASSERT_EQ(
        clGetCommandQueueInfo(ClQueue, CL_QUEUE_REFERENCE_COUNT, sizeof(Before), &Before, nullptr),
        CL_SUCCESS);
  }
#endif
  ur_queue_handle_t Made = nullptr;
  const ur_result_t Result =
      urQueueCreateWithNativeHandle(NativeQueue, asUr(Context.get()), asUr(Device), nullptr, &Made);
  const std::string &Backend = GetParam().Backend;
  if (Backend == "cuda" || Backend.rfind("hip", 0) == 0 || Backend == "level_zero") {
    // A queue over dglink's own stream (command list), not owned: the same one, work
    // through it, and it still dglink's queue's after the new queue goes (docs/ur.md).
    // The context is of the one device: a Level Zero list, which does not say its device,
    // needs hDevice only in a context of several.
    ASSERT_EQ(Result, UR_RESULT_SUCCESS) << urLastError(Platform);
    ur_native_handle_t Again = 0;
    EXPECT_EQ(urQueueGetNativeHandle(Made, nullptr, &Again), UR_RESULT_SUCCESS);
    EXPECT_EQ(Again, NativeQueue) << "urQueueGetNativeHandle gives the stream back";
    ur_device_handle_t Of = nullptr;
    EXPECT_EQ(
        urQueueGetInfo(Made, UR_QUEUE_INFO_DEVICE, handleBytes<ur_device_handle_t>(), &Of, nullptr),
        UR_RESULT_SUCCESS);
    EXPECT_EQ(Of, asUr(Device));
    ur_queue_handle_t WithoutDevice = nullptr;
    ASSERT_EQ(urQueueCreateWithNativeHandle(NativeQueue, asUr(Context.get()), nullptr, nullptr,
                                            &WithoutDevice),
              UR_RESULT_SUCCESS)
        << urLastError(Platform);
    EXPECT_EQ(urQueueGetInfo(WithoutDevice, UR_QUEUE_INFO_DEVICE, handleBytes<ur_device_handle_t>(),
                             &Of, nullptr),
              UR_RESULT_SUCCESS);
    EXPECT_EQ(Of, asUr(Device)) << "the stream's device, found without hDevice";
    EXPECT_EQ(urQueueRelease(WithoutDevice), UR_RESULT_SUCCESS);
    // 32 MiB from pageable memory: long enough that a read on another queue, were it not
    // ordered after the write's adopted event, would overtake it.
    std::vector<uint8_t> Data(32u << 20), Back(32u << 20);
    std::iota(Data.begin(), Data.end(), uint8_t{3});
    ur_mem_handle_t Buffer = nullptr;
    ASSERT_EQ(urMemBufferCreate(asUr(Context.get()), UR_MEM_FLAG_READ_WRITE, Data.size(), nullptr,
                                &Buffer),
              UR_RESULT_SUCCESS);
    ur_event_handle_t Written = nullptr;
    ASSERT_EQ(urEnqueueMemBufferWrite(Made, Buffer, false, 0, Data.size(), Data.data(), 0, nullptr,
                                      &Written),
              UR_RESULT_SUCCESS)
        << urLastError(Platform);
    // The write's driver event, adopted (not owned): an event of no queue, which a wait
    // list orders after and which is complete once the write is; it stays the write's.
    ur_native_handle_t NativeEvent = 0;
    ASSERT_EQ(urEventGetNativeHandle(Written, &NativeEvent), UR_RESULT_SUCCESS);
    ur_event_handle_t Adopted = nullptr;
    ASSERT_EQ(urEventCreateWithNativeHandle(NativeEvent, asUr(Context.get()), nullptr, &Adopted),
              UR_RESULT_SUCCESS)
        << urLastError(Platform);
    ur_queue_handle_t OfAdopted = asUr(Queue.get());
    EXPECT_EQ(urEventGetInfo(Adopted, UR_EVENT_INFO_COMMAND_QUEUE, handleBytes<ur_queue_handle_t>(),
                             &OfAdopted, nullptr),
              UR_RESULT_SUCCESS);
    EXPECT_EQ(OfAdopted, nullptr) << "a driver event of " << Backend << " names no queue";
    EXPECT_EQ(urQueueRelease(Made), UR_RESULT_SUCCESS);
    // A read on another queue (another stream or list) is ordered after the write by the
    // adopted event alone.
    ur_queue_handle_t Other = nullptr;
    ASSERT_EQ(urQueueCreate(asUr(Context.get()), asUr(Device), nullptr, &Other), UR_RESULT_SUCCESS);
    EXPECT_EQ(urEnqueueMemBufferRead(Other, Buffer, true, 0, Back.size(), Back.data(), 1, &Adopted,
                                     nullptr),
              UR_RESULT_SUCCESS)
        << urLastError(Platform);
    EXPECT_TRUE(Back == Data) << "the read on another queue overtook the adopted event's write";
    EXPECT_EQ(urQueueRelease(Other), UR_RESULT_SUCCESS);
    // The stream outlives the adopted queue, which did not own it.
    std::fill(Back.begin(), Back.end(), 0);
    EXPECT_EQ(urEnqueueMemBufferRead(Q, Buffer, true, 0, 4096, Back.data(), 0, nullptr, nullptr),
              UR_RESULT_SUCCESS)
        << urLastError(Platform);
    EXPECT_TRUE(std::equal(Back.begin(), Back.begin() + 4096, Data.begin()));
    EXPECT_EQ(statusOf(Adopted), UR_EVENT_STATUS_COMPLETE);
    EXPECT_EQ(urEventRelease(Adopted), UR_RESULT_SUCCESS);
    EXPECT_EQ(urEventWait(1, &Written), UR_RESULT_SUCCESS) << "not owned: still the write's";
    EXPECT_EQ(urEventRelease(Written), UR_RESULT_SUCCESS);

    EXPECT_EQ(urMemRelease(Buffer), UR_RESULT_SUCCESS);
    EXPECT_EQ(urQueueFinish(Q), UR_RESULT_SUCCESS);
    return;
  }
  if (Backend != "opencl") {
    EXPECT_EQ(Result, UR_RESULT_ERROR_UNSUPPORTED_FEATURE);
    EXPECT_NE(urLastError(Platform).find("native handle"), std::string::npos)
        << urLastError(Platform);
    GTEST_SKIP() << "the " << GetParam().Backend << " adapter adopts no driver queue or event";
  }
  ASSERT_EQ(Result, UR_RESULT_SUCCESS) << urLastError(Platform);
#ifdef DGLINK_NATIVE_OPENCL
  ASSERT_EQ(clGetCommandQueueInfo(ClQueue, CL_QUEUE_REFERENCE_COUNT, sizeof(References),
                                  &References, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(References, Before + 1) << "not owned: the new queue takes a reference of its own";
#endif
  ur_device_handle_t Of = nullptr;
  EXPECT_EQ(
      urQueueGetInfo(Made, UR_QUEUE_INFO_DEVICE, handleBytes<ur_device_handle_t>(), &Of, nullptr),
      UR_RESULT_SUCCESS);
  EXPECT_EQ(Of, asUr(Device));
  // Work through the adopted queue, its event adopted too.
  std::vector<uint8_t> Data(256), Back(256);
  std::iota(Data.begin(), Data.end(), uint8_t{1});
  ur_mem_handle_t Buffer = nullptr;
  ASSERT_EQ(
      urMemBufferCreate(asUr(Context.get()), UR_MEM_FLAG_READ_WRITE, Data.size(), nullptr, &Buffer),
      UR_RESULT_SUCCESS);
  ur_event_handle_t Written = nullptr;
  ASSERT_EQ(urEnqueueMemBufferWrite(Made, Buffer, false, 0, Data.size(), Data.data(), 0, nullptr,
                                    &Written),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ur_native_handle_t NativeEvent = 0;
  ASSERT_EQ(urEventGetNativeHandle(Written, &NativeEvent), UR_RESULT_SUCCESS);
  ur_event_handle_t Adopted = nullptr;
  ASSERT_EQ(urEventCreateWithNativeHandle(NativeEvent, asUr(Context.get()), nullptr, &Adopted),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  EXPECT_EQ(
      urEnqueueMemBufferRead(Q, Buffer, true, 0, Back.size(), Back.data(), 1, &Adopted, nullptr),
      UR_RESULT_SUCCESS)
      << urLastError(Platform);
  EXPECT_EQ(statusOf(Adopted), UR_EVENT_STATUS_COMPLETE);
  EXPECT_EQ(Back, Data);
  // The adopted event's queue is a queue over the driver's queue of its command (made by
  // the adapter: the leak checker never saw it created).
  ur_queue_handle_t EventQueue = nullptr;
  ASSERT_EQ(urEventGetInfo(Adopted, UR_EVENT_INFO_COMMAND_QUEUE, handleBytes<ur_queue_handle_t>(),
                           &EventQueue, nullptr),
            UR_RESULT_SUCCESS);
  ASSERT_NE(EventQueue, nullptr);
  if (!leakCheckerOn()) {
    ur_native_handle_t EventQueueNative = 0;
    EXPECT_EQ(urQueueGetNativeHandle(EventQueue, nullptr, &EventQueueNative), UR_RESULT_SUCCESS);
    EXPECT_EQ(EventQueueNative, NativeQueue);
  }
  EXPECT_EQ(urEventRelease(Adopted), UR_RESULT_SUCCESS);
  EXPECT_EQ(urEventRelease(Written), UR_RESULT_SUCCESS);
  EXPECT_EQ(urMemRelease(Buffer), UR_RESULT_SUCCESS);
  EXPECT_EQ(urQueueRelease(Made), UR_RESULT_SUCCESS);
#ifdef DGLINK_NATIVE_OPENCL
  // The driver may hold the queue a little longer for its completed commands (PoCL 5
  // drops its own references from its worker thread): counted once they are gone.
  for (int Tries = 0; Tries < 200; ++Tries) {
    ASSERT_EQ(clGetCommandQueueInfo(ClQueue, CL_QUEUE_REFERENCE_COUNT, sizeof(References),
                                    &References, nullptr),
              CL_SUCCESS);
    if (References <= Before)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(References, Before) << "the adopted queue's reference is dropped, the caller's kept";
#endif
  // Dglink's own queue still works.
  EXPECT_EQ(urQueueFinish(Q), UR_RESULT_SUCCESS);
}

// Releasing an event adopted from the driver releases dglink's hold on it and on the queue
// over its driver queue: it must not wait for the caller's queue, whose work is the
// caller's (here a marker held back by a user event the caller sets only afterwards).
TEST_P(UrFromNative, ReleasingAnAdoptedEventDoesNotWaitForTheCallersQueue) {
  if (GetParam().Backend != "opencl")
    GTEST_SKIP() << "OpenCL's queues only: the " << GetParam().Backend
                 << " adapter adopts no driver event";
#ifdef DGLINK_NATIVE_OPENCL
  cl_context ClContext = nullptr;
  cl_device_id ClDevice = nullptr;
  ASSERT_NO_FATAL_FAILURE(nativeOpenCl(ClContext, ClDevice));
  cl_int Error = CL_SUCCESS;
  cl_command_queue Callers =
      clCreateCommandQueueWithProperties(ClContext, ClDevice, nullptr, &Error);
  ASSERT_EQ(Error, CL_SUCCESS);
  cl_event Gate = clCreateUserEvent(ClContext, &Error);
  ASSERT_EQ(Error, CL_SUCCESS);
  cl_event Held = nullptr;
  ASSERT_EQ(clEnqueueMarkerWithWaitList(Callers, 1, &Gate, &Held), CL_SUCCESS);
  ur_event_handle_t Adopted = nullptr;
  ASSERT_EQ(urEventCreateWithNativeHandle(reinterpret_cast<ur_native_handle_t>(Held),
                                          asUr(Context.get()), nullptr, &Adopted),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  EXPECT_EQ(statusOf(Adopted), UR_EVENT_STATUS_SUBMITTED);
  std::future<ur_result_t> Released =
      std::async(std::launch::async, [Adopted] { return urEventRelease(Adopted); });
  const bool Returned = Released.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  EXPECT_TRUE(Returned) << "urEventRelease waited for the caller's queue";
  // Open the gate either way, so that a release that waits returns too.
  EXPECT_EQ(clSetUserEventStatus(Gate, CL_COMPLETE), CL_SUCCESS);
  EXPECT_EQ(Released.get(), UR_RESULT_SUCCESS);
  EXPECT_EQ(clFinish(Callers), CL_SUCCESS);
  cl_int Status = CL_QUEUED;
  EXPECT_EQ(
      clGetEventInfo(Held, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(Status), &Status, nullptr),
      CL_SUCCESS);
  EXPECT_EQ(Status, CL_COMPLETE) << "the caller's event is still the caller's";
  EXPECT_EQ(clReleaseEvent(Held), CL_SUCCESS);
  EXPECT_EQ(clReleaseEvent(Gate), CL_SUCCESS);
  EXPECT_EQ(clReleaseCommandQueue(Callers), CL_SUCCESS);
#else
  GTEST_SKIP() << "this build cannot call the OpenCL driver to make the queue";
#endif
}

// An event of a driver queue dglink cannot wrap (OpenCL: out of order) is adopted as an
// event of no queue, and the caller's reference is neither taken nor dropped twice.
TEST_P(UrFromNative, EventOfAnOutOfOrderDriverQueue) {
  if (GetParam().Backend != "opencl")
    GTEST_SKIP() << "OpenCL's queues only: the " << GetParam().Backend
                 << " adapter adopts no driver event";
#ifdef DGLINK_NATIVE_OPENCL
  cl_context ClContext = nullptr;
  cl_device_id ClDevice = nullptr;
  ASSERT_NO_FATAL_FAILURE(nativeOpenCl(ClContext, ClDevice));
  const cl_queue_properties Properties[] = {CL_QUEUE_PROPERTIES,
                                            CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  cl_int Error = CL_SUCCESS;
  cl_command_queue OutOfOrder =
      clCreateCommandQueueWithProperties(ClContext, ClDevice, Properties, &Error);
  if (Error == CL_INVALID_QUEUE_PROPERTIES)
    GTEST_SKIP() << "the device makes no out-of-order queue";
  ASSERT_EQ(Error, CL_SUCCESS);
  cl_event Marker = nullptr;
  ASSERT_EQ(clEnqueueMarkerWithWaitList(OutOfOrder, 0, nullptr, &Marker), CL_SUCCESS);
  ASSERT_EQ(clFinish(OutOfOrder), CL_SUCCESS);
  auto References = [&] {
    cl_uint Count = 0;
    EXPECT_EQ(clGetEventInfo(Marker, CL_EVENT_REFERENCE_COUNT, sizeof(Count), &Count, nullptr),
              CL_SUCCESS);
    return Count;
  };
  // The driver may hold the completed event a little longer (PoCL drops its own reference
  // from its worker thread): counted once only the caller's is left.
  for (int Tries = 0; Tries < 200 && References() > 1; ++Tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const cl_uint Before = References();
  ur_event_handle_t Adopted = nullptr;
  ASSERT_EQ(urEventCreateWithNativeHandle(reinterpret_cast<ur_native_handle_t>(Marker),
                                          asUr(Context.get()), nullptr, &Adopted),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  EXPECT_EQ(References(), Before + 1) << "not owned: the adopted event takes a reference";
  EXPECT_EQ(statusOf(Adopted), UR_EVENT_STATUS_COMPLETE);
  ur_queue_handle_t EventQueue = asUr(Queue.get());
  ASSERT_EQ(urEventGetInfo(Adopted, UR_EVENT_INFO_COMMAND_QUEUE, handleBytes<ur_queue_handle_t>(),
                           &EventQueue, nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(EventQueue, nullptr) << "an out-of-order driver queue is no dglink queue";
  // Usable in a wait list of dglink's own queue.
  EXPECT_EQ(urEnqueueEventsWait(asUr(Queue.get()), 1, &Adopted, nullptr), UR_RESULT_SUCCESS)
      << urLastError(Platform);
  EXPECT_EQ(urQueueFinish(asUr(Queue.get())), UR_RESULT_SUCCESS);
  EXPECT_EQ(urEventRelease(Adopted), UR_RESULT_SUCCESS);
  EXPECT_EQ(References(), Before) << "the caller's reference is left as it was";
  EXPECT_EQ(clReleaseEvent(Marker), CL_SUCCESS);
  EXPECT_EQ(clReleaseCommandQueue(OutOfOrder), CL_SUCCESS);
#else
  GTEST_SKIP() << "this build cannot call the OpenCL driver to make the queue";
#endif
}

DGLINK_INSTANTIATE_FOR_DEVICES(UrFromNative);

} // namespace
} // namespace dglink::conformance
