// Bad event wait lists on every enqueue entry point the scenarios use: a count
// with no list, a list holding a null entry, a list with a count of zero. Each is
// PI_ERROR_INVALID_EVENT_WAIT_LIST with a message, and nothing is done.
#include "fixtures.h"

#include <algorithm>

namespace dglink::conformance {
namespace {

constexpr size_t Bytes = 256;

class WaitLists : public BuiltProgramTest {
protected:
  void SetUp() override {
    BuiltProgramTest::SetUp();
    if (HasFatalFailure() || IsSkipped())
      return;
    ASSERT_NO_FATAL_FAILURE(buildProgram("pattern", Program));
    ASSERT_NO_FATAL_FAILURE(createKernel(Program.get(), "fill_pattern", Kernel));
    ASSERT_PI_SUCCESS(
        piMemBufferCreate(Context.get(), PI_MEM_FLAGS_ACCESS_RW, Bytes, nullptr, Buffer.out()));
    const pi_mem Mem = Buffer.get();
    ASSERT_PI_SUCCESS(piextKernelSetArgMemObj(Kernel.get(), 0, &Mem));
    // A real, completed event to put into the lists.
    std::vector<char> Zeros(Bytes, 0);
    ASSERT_PI_SUCCESS(piEnqueueMemBufferWrite(Queue.get(), Buffer.get(), PI_TRUE, 0, Bytes,
                                              Zeros.data(), 0, nullptr, Done.out()));
    if (usmMechanism() != PI_USM_MECHANISM_NONE) {
      ASSERT_PI_SUCCESS(
          piextUSMDeviceAlloc(Usm.out(Context.get()), Context.get(), Device, nullptr, Bytes, 0));
    }
  }

  // Every enqueue entry point with the wait list (Count, List) must answer
  // PI_ERROR_INVALID_EVENT_WAIT_LIST and leave the host destination alone.
  void expectRefusedEverywhere(pi_uint32 Count, const pi_event *List) {
    std::vector<char> Host(Bytes, 'x');
    auto Untouched = [&] {
      return std::all_of(Host.begin(), Host.end(), [](char C) { return C == 'x'; });
    };
    EventHandle Event;
    EXPECT_PI_ERROR(PI_ERROR_INVALID_EVENT_WAIT_LIST,
                    piEnqueueMemBufferRead(Queue.get(), Buffer.get(), PI_TRUE, 0, Bytes,
                                           Host.data(), Count, List, Event.out()));
    EXPECT_TRUE(Untouched()) << "piEnqueueMemBufferRead wrote its destination and failed";
    EXPECT_FALSE(Event) << "piEnqueueMemBufferRead returned an event and failed";
    EXPECT_PI_ERROR(PI_ERROR_INVALID_EVENT_WAIT_LIST,
                    piEnqueueMemBufferWrite(Queue.get(), Buffer.get(), PI_TRUE, 0, Bytes,
                                            Host.data(), Count, List, Event.out()));
    const size_t Global = Bytes / sizeof(int32_t);
    EXPECT_PI_ERROR(PI_ERROR_INVALID_EVENT_WAIT_LIST,
                    piEnqueueKernelLaunch(Queue.get(), Kernel.get(), 1, nullptr, &Global, nullptr,
                                          Count, List, Event.out()));
    EXPECT_PI_ERROR(PI_ERROR_INVALID_EVENT_WAIT_LIST,
                    piEnqueueEventsWait(Queue.get(), Count, List, Event.out()));
    EXPECT_PI_ERROR(PI_ERROR_INVALID_EVENT_WAIT_LIST,
                    piEnqueueEventsWaitWithBarrier(Queue.get(), Count, List, Event.out()));
    if (Usm.get() == nullptr)
      return; // no USM on this device: the USM entry points are not in use
    EXPECT_PI_ERROR(PI_ERROR_INVALID_EVENT_WAIT_LIST,
                    piextUSMEnqueueMemcpy(Queue.get(), PI_TRUE, Host.data(), Usm.get(), Bytes,
                                          Count, List, Event.out()));
    EXPECT_TRUE(Untouched()) << "piextUSMEnqueueMemcpy wrote its destination and failed";
    const int32_t Pattern = 3;
    EXPECT_PI_ERROR(PI_ERROR_INVALID_EVENT_WAIT_LIST,
                    piextUSMEnqueueFill(Queue.get(), Usm.get(), &Pattern, sizeof(Pattern), Bytes,
                                        Count, List, Event.out()));
  }

  ProgramHandle Program;
  KernelHandle Kernel;
  MemHandle Buffer;
  EventHandle Done;
  UsmPointer Usm;
};
DGLINK_INSTANTIATE_FOR_DEVICES(WaitLists);

TEST_P(WaitLists, CountWithNullList) { expectRefusedEverywhere(1, nullptr); }

TEST_P(WaitLists, NullEntry) {
  const pi_event List[] = {Done.get(), nullptr};
  expectRefusedEverywhere(2, List);
}

TEST_P(WaitLists, ListWithZeroCount) {
  const pi_event List[] = {Done.get()};
  expectRefusedEverywhere(0, List);
}

TEST_P(WaitLists, EventsWait) {
  EXPECT_PI_ERROR(PI_ERROR_INVALID_VALUE, piEventsWait(0, nullptr));
  const pi_event List[] = {Done.get()};
  EXPECT_PI_ERROR(PI_ERROR_INVALID_VALUE, piEventsWait(0, List));
  const pi_event WithNull[] = {Done.get(), nullptr};
  EXPECT_PI_ERROR(PI_ERROR_INVALID_EVENT, piEventsWait(2, WithNull));
  EXPECT_PI_SUCCESS(piEventsWait(1, List));
}

} // namespace
} // namespace dglink::conformance
