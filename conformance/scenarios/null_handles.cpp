// Null handles and null pointers on every entry point the scenarios use: the
// exact code of DESIGN.md's error contract and a last-error message that names
// the argument.
#include "fixtures.h"

namespace dglink::conformance {
namespace {

class NullHandles : public QueueTest {
protected:
  // A built program with the kernel fill_pattern, or a skip with the reason.
  void makeKernel(ProgramHandle &Program, KernelHandle &Kernel, std::string &Format) {
    std::string WhyNot;
    if (!chooseFormat(Format, WhyNot))
      GTEST_SKIP() << WhyNot;
    ASSERT_NO_FATAL_FAILURE(buildProgram("pattern", Format, Program));
    ASSERT_NO_FATAL_FAILURE(createKernel(Program.get(), "fill_pattern", Kernel));
  }
};
DGLINK_INSTANTIATE_FOR_DEVICES(NullHandles);

TEST_P(NullHandles, PlatformAndDevice) {
  char Name[256];
  pi_uint32 Count = 0;
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_PLATFORM, "Platform",
      piPlatformGetInfo(nullptr, PI_PLATFORM_INFO_NAME, sizeof(Name), Name, nullptr));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_PLATFORM, "Platform",
                         piDevicesGet(nullptr, PI_DEVICE_TYPE_ALL, 0, nullptr, &Count));
  EXPECT_PI_ERROR(PI_ERROR_INVALID_VALUE,
                  piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 0, nullptr, nullptr));
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_DEVICE, "Device",
      piDeviceGetInfo(nullptr, PI_DEVICE_INFO_NAME, sizeof(Name), Name, nullptr));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_DEVICE, "Device", piDeviceRetain(nullptr));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_DEVICE, "Device", piDeviceRelease(nullptr));
}

TEST_P(NullHandles, ContextAndQueue) {
  ContextHandle Other;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "Devices",
                         piContextCreate(nullptr, 1, nullptr, Other.out()));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "RetContext",
                         piContextCreate(nullptr, 1, &Device, nullptr));
  const pi_device NoDevice = nullptr;
  EXPECT_PI_ERROR(PI_ERROR_INVALID_DEVICE, piContextCreate(nullptr, 1, &NoDevice, Other.out()));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_CONTEXT, "Context", piContextRelease(nullptr));

  QueueHandle OtherQueue;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_CONTEXT, "Context",
                         piQueueCreate(nullptr, Device, 0, OtherQueue.out()));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_DEVICE, "Device",
                         piQueueCreate(Context.get(), nullptr, 0, OtherQueue.out()));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "RetQueue",
                         piQueueCreate(Context.get(), Device, 0, nullptr));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_QUEUE, "Queue", piQueueFinish(nullptr));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_QUEUE, "Queue", piQueueRelease(nullptr));
}

TEST_P(NullHandles, Buffers) {
  MemHandle Buffer;
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_CONTEXT, "Context",
      piMemBufferCreate(nullptr, PI_MEM_FLAGS_ACCESS_RW, 64, nullptr, Buffer.out()));
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_VALUE, "RetMem",
      piMemBufferCreate(Context.get(), PI_MEM_FLAGS_ACCESS_RW, 64, nullptr, nullptr));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_MEM_OBJECT, "Mem", piMemRelease(nullptr));

  ASSERT_PI_SUCCESS(
      piMemBufferCreate(Context.get(), PI_MEM_FLAGS_ACCESS_RW, 64, nullptr, Buffer.out()));
  char Host[64] = {};
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_QUEUE, "Queue",
      piEnqueueMemBufferRead(nullptr, Buffer.get(), PI_TRUE, 0, 64, Host, 0, nullptr, nullptr));
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_MEM_OBJECT, "Buffer",
      piEnqueueMemBufferRead(Queue.get(), nullptr, PI_TRUE, 0, 64, Host, 0, nullptr, nullptr));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "Dst",
                         piEnqueueMemBufferRead(Queue.get(), Buffer.get(), PI_TRUE, 0, 64, nullptr,
                                                0, nullptr, nullptr));
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_QUEUE, "Queue",
      piEnqueueMemBufferWrite(nullptr, Buffer.get(), PI_TRUE, 0, 64, Host, 0, nullptr, nullptr));
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_MEM_OBJECT, "Buffer",
      piEnqueueMemBufferWrite(Queue.get(), nullptr, PI_TRUE, 0, 64, Host, 0, nullptr, nullptr));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "Src",
                         piEnqueueMemBufferWrite(Queue.get(), Buffer.get(), PI_TRUE, 0, 64, nullptr,
                                                 0, nullptr, nullptr));
}

TEST_P(NullHandles, Usm) {
  if (usmMechanism() == PI_USM_MECHANISM_NONE)
    GTEST_SKIP() << "device has no USM (PI_EXT_DEVICE_INFO_USM_MECHANISM is NONE)";
  void *Pointer = nullptr;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "ResultPtr",
                         piextUSMDeviceAlloc(nullptr, Context.get(), Device, nullptr, 64, 0));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_CONTEXT, "Context",
                         piextUSMDeviceAlloc(&Pointer, nullptr, Device, nullptr, 64, 0));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "ResultPtr",
                         piextUSMSharedAlloc(nullptr, Context.get(), Device, nullptr, 64, 0));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_CONTEXT, "Context",
                         piextUSMSharedAlloc(&Pointer, nullptr, Device, nullptr, 64, 0));

  UsmPointer Allocation;
  ASSERT_PI_SUCCESS(
      piextUSMDeviceAlloc(Allocation.out(Context.get()), Context.get(), Device, nullptr, 64, 0));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_CONTEXT, "Context",
                         piextUSMFree(nullptr, Allocation.get()));
  char Host[64] = {};
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_QUEUE, "Queue",
      piextUSMEnqueueMemcpy(nullptr, PI_TRUE, Host, Allocation.get(), 64, 0, nullptr, nullptr));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "Dst",
                         piextUSMEnqueueMemcpy(Queue.get(), PI_TRUE, nullptr, Allocation.get(), 64,
                                               0, nullptr, nullptr));
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_VALUE, "Src",
      piextUSMEnqueueMemcpy(Queue.get(), PI_TRUE, Host, nullptr, 64, 0, nullptr, nullptr));
  const int32_t Pattern = 7;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_QUEUE, "Queue",
                         piextUSMEnqueueFill(nullptr, Allocation.get(), &Pattern, sizeof(Pattern),
                                             64, 0, nullptr, nullptr));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "Ptr",
                         piextUSMEnqueueFill(Queue.get(), nullptr, &Pattern, sizeof(Pattern), 64, 0,
                                             nullptr, nullptr));
}

TEST_P(NullHandles, Programs) {
  ProgramHandle Program;
  KernelHandle Kernel;
  std::string Format;
  ASSERT_NO_FATAL_FAILURE(makeKernel(Program, Kernel, Format));
  if (IsSkipped())
    return;
  DeviceImage Binary(*findImage("pattern", Format), *findLinkFormat(Format));
  ProgramHandle Other;
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_CONTEXT, "Context",
      piextProgramCreateWithImage(nullptr, 1, &Device, Binary.get(), Other.out()));
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_VALUE, "Image",
      piextProgramCreateWithImage(Context.get(), 1, &Device, nullptr, Other.out()));
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_VALUE, "RetProgram",
      piextProgramCreateWithImage(Context.get(), 1, &Device, Binary.get(), nullptr));
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_PROGRAM, "Program",
      piProgramCompile(nullptr, 1, &Device, "", 0, nullptr, nullptr, nullptr, nullptr));
  const pi_program Inputs[] = {Program.get()};
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_CONTEXT, "Context",
      piProgramLink(nullptr, 1, &Device, "", 1, Inputs, nullptr, nullptr, Other.out()));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_PROGRAM, "Program",
                         piProgramBuild(nullptr, 1, &Device, "", nullptr, nullptr));
  size_t Size = 0;
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_PROGRAM, "Program",
      piProgramGetBuildInfo(nullptr, Device, PI_PROGRAM_BUILD_INFO_LOG, 0, nullptr, &Size));
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_DEVICE, "Device",
      piProgramGetBuildInfo(Program.get(), nullptr, PI_PROGRAM_BUILD_INFO_LOG, 0, nullptr, &Size));
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_PROGRAM, "Program",
      piProgramGetInfo(nullptr, PI_PROGRAM_INFO_KERNEL_NAMES, 0, nullptr, &Size));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_PROGRAM, "Program", piProgramRelease(nullptr));
}

TEST_P(NullHandles, Kernels) {
  ProgramHandle Program;
  KernelHandle Kernel;
  std::string Format;
  ASSERT_NO_FATAL_FAILURE(makeKernel(Program, Kernel, Format));
  if (IsSkipped())
    return;
  KernelHandle Other;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_PROGRAM, "Program",
                         piKernelCreate(nullptr, "fill_pattern", Other.out()));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "KernelName",
                         piKernelCreate(Program.get(), nullptr, Other.out()));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "RetKernel",
                         piKernelCreate(Program.get(), "fill_pattern", nullptr));
  const int32_t Value = 1;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_KERNEL, "Kernel",
                         piKernelSetArg(nullptr, 0, sizeof(Value), &Value));
  void *Pointer = nullptr;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_KERNEL, "Kernel",
                         piextKernelSetArgPointer(nullptr, 0, sizeof(Pointer), &Pointer));
  MemHandle Buffer;
  ASSERT_PI_SUCCESS(
      piMemBufferCreate(Context.get(), PI_MEM_FLAGS_ACCESS_RW, 64, nullptr, Buffer.out()));
  const pi_mem Mem = Buffer.get();
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_KERNEL, "Kernel",
                         piextKernelSetArgMemObj(nullptr, 0, &Mem));
  size_t Size = 0;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_KERNEL, "Kernel",
                         piKernelGetInfo(nullptr, PI_KERNEL_INFO_FUNCTION_NAME, 0, nullptr, &Size));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_KERNEL, "Kernel", piKernelRelease(nullptr));

  ASSERT_PI_SUCCESS(piextKernelSetArgMemObj(Kernel.get(), 0, &Mem));
  const size_t Global = 16;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_QUEUE, "Queue",
                         piEnqueueKernelLaunch(nullptr, Kernel.get(), 1, nullptr, &Global, nullptr,
                                               0, nullptr, nullptr));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_KERNEL, "Kernel",
                         piEnqueueKernelLaunch(Queue.get(), nullptr, 1, nullptr, &Global, nullptr,
                                               0, nullptr, nullptr));
}

TEST_P(NullHandles, Events) {
  EXPECT_PI_ERROR(PI_ERROR_INVALID_VALUE, piEventsWait(0, nullptr));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "EventList", piEventsWait(1, nullptr));
  const pi_event NoEvent = nullptr;
  EXPECT_PI_ERROR(PI_ERROR_INVALID_EVENT, piEventsWait(1, &NoEvent));
  pi_int32 Status = 0;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_EVENT, "Event",
                         piEventGetInfo(nullptr, PI_EVENT_INFO_COMMAND_EXECUTION_STATUS,
                                        sizeof(Status), &Status, nullptr));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_EVENT, "Event", piEventRetain(nullptr));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_EVENT, "Event", piEventRelease(nullptr));
  EventHandle Marker;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_QUEUE, "Queue",
                         piEnqueueEventsWait(nullptr, 0, nullptr, Marker.out()));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_QUEUE, "Queue",
                         piEnqueueEventsWaitWithBarrier(nullptr, 0, nullptr, Marker.out()));
}

} // namespace
} // namespace dglink::conformance
