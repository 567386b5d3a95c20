// Events: non-blocking copies that complete, kernels ordered after an earlier
// command's event, barriers, and event info.
#include "fixtures.h"

namespace dglink::conformance {
namespace {

constexpr size_t Count = 512;

class Events : public BuiltProgramTest {
protected:
  pi_int32 status(pi_event Event) {
    pi_int32 Status = -1;
    EXPECT_PI_SUCCESS(piEventGetInfo(Event, PI_EVENT_INFO_COMMAND_EXECUTION_STATUS, sizeof(Status),
                                     &Status, nullptr));
    return Status;
  }
  void makeBuffer(MemHandle &Out) {
    ASSERT_PI_SUCCESS(piMemBufferCreate(Context.get(), PI_MEM_FLAGS_ACCESS_RW,
                                        Count * sizeof(int32_t), nullptr, Out.out()));
  }
};
DGLINK_INSTANTIATE_FOR_DEVICES(Events);

TEST_P(Events, NonBlockingBufferRead) {
  MemHandle Buffer;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(Buffer));
  std::vector<int32_t> Source(Count);
  for (size_t I = 0; I < Count; ++I)
    Source[I] = int32_t(I) * 5;
  ASSERT_PI_SUCCESS(piEnqueueMemBufferWrite(Queue.get(), Buffer.get(), PI_TRUE, 0,
                                            Count * sizeof(int32_t), Source.data(), 0, nullptr,
                                            nullptr));
  std::vector<int32_t> Values(Count, -1);
  EventHandle Read;
  ASSERT_PI_SUCCESS(piEnqueueMemBufferRead(Queue.get(), Buffer.get(), PI_FALSE, 0,
                                           Count * sizeof(int32_t), Values.data(), 0, nullptr,
                                           Read.out()));
  ASSERT_TRUE(Read) << "no event returned";
  const pi_event Raw = Read.get();
  ASSERT_PI_SUCCESS(piEventsWait(1, &Raw));
  EXPECT_EQ(status(Raw), PI_EVENT_COMPLETE);
  EXPECT_EVERY_ELEMENT(Values, [](size_t I) { return int32_t(I) * 5; });
}

TEST_P(Events, NonBlockingUsmMemcpy) {
  if (usmMechanism() == PI_USM_MECHANISM_NONE)
    GTEST_SKIP() << "device has no USM (PI_EXT_DEVICE_INFO_USM_MECHANISM is NONE)";
  UsmPointer Pointer;
  ASSERT_PI_SUCCESS(piextUSMDeviceAlloc(Pointer.out(Context.get()), Context.get(), Device, nullptr,
                                        Count * sizeof(int32_t), 0));
  std::vector<int32_t> Source(Count);
  for (size_t I = 0; I < Count; ++I)
    Source[I] = int32_t(I) * 9 - 4;
  EventHandle ToDevice;
  ASSERT_PI_SUCCESS(piextUSMEnqueueMemcpy(Queue.get(), PI_FALSE, Pointer.get(), Source.data(),
                                          Count * sizeof(int32_t), 0, nullptr, ToDevice.out()));
  ASSERT_TRUE(ToDevice) << "no event returned";
  std::vector<int32_t> Values(Count, -1);
  EventHandle ToHost;
  const pi_event After[] = {ToDevice.get()};
  ASSERT_PI_SUCCESS(piextUSMEnqueueMemcpy(Queue.get(), PI_FALSE, Values.data(), Pointer.get(),
                                          Count * sizeof(int32_t), 1, After, ToHost.out()));
  ASSERT_TRUE(ToHost) << "no event returned";
  const pi_event Both[] = {ToDevice.get(), ToHost.get()};
  ASSERT_PI_SUCCESS(piEventsWait(2, Both));
  EXPECT_EQ(status(ToDevice.get()), PI_EVENT_COMPLETE);
  EXPECT_EQ(status(ToHost.get()), PI_EVENT_COMPLETE);
  EXPECT_EVERY_ELEMENT(Values, [](size_t I) { return int32_t(I) * 9 - 4; });
}

TEST_P(Events, KernelWaitsOnPreviousEvent) {
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ProgramHandle Program;
  ASSERT_NO_FATAL_FAILURE(buildProgram("pattern", Program));
  KernelHandle Increment;
  ASSERT_NO_FATAL_FAILURE(createKernel(Program.get(), "increment", Increment));
  MemHandle Buffer;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(Buffer));
  std::vector<int32_t> Source(Count);
  for (size_t I = 0; I < Count; ++I)
    Source[I] = int32_t(I) * 10;
  EventHandle Written, Incremented, Read;
  ASSERT_PI_SUCCESS(piEnqueueMemBufferWrite(Queue.get(), Buffer.get(), PI_FALSE, 0,
                                            Count * sizeof(int32_t), Source.data(), 0, nullptr,
                                            Written.out()));
  const pi_mem Mem = Buffer.get();
  ASSERT_PI_SUCCESS(piextKernelSetArgMemObj(Increment.get(), 0, &Mem));
  const size_t Global = Count;
  const pi_event AfterWrite[] = {Written.get()};
  ASSERT_PI_SUCCESS(piEnqueueKernelLaunch(Queue.get(), Increment.get(), 1, nullptr, &Global,
                                          nullptr, 1, AfterWrite, Incremented.out()));
  std::vector<int32_t> Values(Count, -1);
  const pi_event AfterKernel[] = {Incremented.get()};
  ASSERT_PI_SUCCESS(piEnqueueMemBufferRead(Queue.get(), Buffer.get(), PI_FALSE, 0,
                                           Count * sizeof(int32_t), Values.data(), 1, AfterKernel,
                                           Read.out()));
  const pi_event Last = Read.get();
  ASSERT_PI_SUCCESS(piEventsWait(1, &Last));
  EXPECT_EQ(status(Written.get()), PI_EVENT_COMPLETE);
  EXPECT_EQ(status(Incremented.get()), PI_EVENT_COMPLETE);
  EXPECT_EVERY_ELEMENT(Values, [](size_t I) { return int32_t(I) * 10 + 1; });
}

TEST_P(Events, BarrierAfterKernel) {
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ProgramHandle Program;
  ASSERT_NO_FATAL_FAILURE(buildProgram("pattern", Program));
  KernelHandle Fill;
  ASSERT_NO_FATAL_FAILURE(createKernel(Program.get(), "fill_pattern", Fill));
  MemHandle Buffer;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(Buffer));
  const pi_mem Mem = Buffer.get();
  ASSERT_PI_SUCCESS(piextKernelSetArgMemObj(Fill.get(), 0, &Mem));
  const size_t Global = Count;
  EventHandle Launched, Barrier;
  ASSERT_PI_SUCCESS(piEnqueueKernelLaunch(Queue.get(), Fill.get(), 1, nullptr, &Global, nullptr, 0,
                                          nullptr, Launched.out()));
  const pi_event AfterLaunch[] = {Launched.get()};
  ASSERT_PI_SUCCESS(piEnqueueEventsWaitWithBarrier(Queue.get(), 1, AfterLaunch, Barrier.out()));
  const pi_event Raw = Barrier.get();
  ASSERT_PI_SUCCESS(piEventsWait(1, &Raw));
  EXPECT_EQ(status(Launched.get()), PI_EVENT_COMPLETE) << "the barrier completed first";
  std::vector<int32_t> Values(Count, -1);
  ASSERT_PI_SUCCESS(piEnqueueMemBufferRead(Queue.get(), Mem, PI_TRUE, 0, Count * sizeof(int32_t),
                                           Values.data(), 0, nullptr, nullptr));
  EXPECT_EVERY_ELEMENT(Values, [](size_t I) { return int32_t(I) * 3 + 1; });
}

TEST_P(Events, Info) {
  EventHandle Marker;
  ASSERT_PI_SUCCESS(piEnqueueEventsWait(Queue.get(), 0, nullptr, Marker.out()));
  ASSERT_PI_SUCCESS(piQueueFinish(Queue.get()));
  size_t Size = 0;
  ASSERT_PI_SUCCESS(
      piEventGetInfo(Marker.get(), PI_EVENT_INFO_COMMAND_EXECUTION_STATUS, 0, nullptr, &Size));
  EXPECT_EQ(Size, sizeof(pi_int32));
  EXPECT_EQ(status(Marker.get()), PI_EVENT_COMPLETE) << "after piQueueFinish";
  pi_context Owner = nullptr;
  ASSERT_PI_SUCCESS(
      piEventGetInfo(Marker.get(), PI_EVENT_INFO_CONTEXT, sizeof(Owner), &Owner, nullptr));
  EXPECT_EQ(Owner, Context.get());
  pi_queue OwnerQueue = nullptr;
  ASSERT_PI_SUCCESS(piEventGetInfo(Marker.get(), PI_EVENT_INFO_COMMAND_QUEUE, sizeof(OwnerQueue),
                                   &OwnerQueue, nullptr));
  EXPECT_EQ(OwnerQueue, Queue.get());
  EXPECT_PI_SUCCESS(piEventRetain(Marker.get()));
  EXPECT_PI_SUCCESS(piEventRelease(Marker.get()));
}

} // namespace
} // namespace dglink::conformance
