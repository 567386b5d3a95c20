// UR's command buffers (urCommandBuffer*Exp, urEnqueueCommandBufferExp), served by the
// core on every backend (docs/ur.md, "Command buffers"): commands recorded with their
// arguments captured at append time and replayed in order at each submission. A
// scenario of dglink_conformance_ur only; kernels are set up through UR directly (the
// bridge keeps PI's kernel arguments on its side). Commands take events, and the commands
// of an updatable command buffer are updated between submissions.
#include "fixtures.h"
#include "ur_handles.h"

#include <unified-runtime/ur_api.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <thread>
#include <vector>

namespace dglink::conformance {
namespace {

int32_t pattern(size_t I) { return int32_t(I) * 3 + 1; }

constexpr size_t Count = 64;
constexpr size_t Bytes = Count * sizeof(int32_t);

ur_exp_kernel_arg_properties_t pointerArgument(void *Pointer) {
  ur_exp_kernel_arg_properties_t Arg{};
  Arg.stype = UR_STRUCTURE_TYPE_EXP_KERNEL_ARG_PROPERTIES;
  Arg.type = UR_EXP_KERNEL_ARG_TYPE_POINTER;
  Arg.index = 0;
  Arg.size = sizeof(void *);
  Arg.value.pointer = Pointer;
  return Arg;
}

// An update of a kernel launch that keeps its shape (1 dimension) unless told.
ur_exp_command_buffer_update_kernel_launch_desc_t
launchUpdate(ur_exp_command_buffer_command_handle_t Command) {
  ur_exp_command_buffer_update_kernel_launch_desc_t Update{};
  Update.stype = UR_STRUCTURE_TYPE_EXP_COMMAND_BUFFER_UPDATE_KERNEL_LAUNCH_DESC;
  Update.hCommand = Command;
  Update.newWorkDim = 1;
  return Update;
}

// A new USM pointer for argument Index: the descriptor points at the pointer.
ur_exp_command_buffer_update_pointer_arg_desc_t pointerUpdate(uint32_t Index,
                                                              void *const &Pointer) {
  return {UR_STRUCTURE_TYPE_EXP_COMMAND_BUFFER_UPDATE_POINTER_ARG_DESC, nullptr, Index, nullptr,
          &Pointer};
}

// The validation layer of UR's snapshot does not record the events that command-buffer
// appends and urCommandBufferUpdateSignalEventExp return: the scenario names them for
// validation_run.sh, which then allows its messages about them.
void nameCommandEvent(ur_event_handle_t Event) {
  std::fprintf(stderr, "dglink-ur-scenario: command event %p\n", static_cast<void *>(Event));
}

class UrCommandBuffers : public BuiltProgramTest {
protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(BuiltProgramTest::SetUp());
    if (IsSkipped())
      return;
    if (usmMechanism() == PI_USM_MECHANISM_NONE)
      GTEST_SKIP() << "device has no USM (PI_EXT_DEVICE_INFO_USM_MECHANISM is NONE)";
    Q = asUr(Queue.get());
    Ctx = asUr(Context.get());
    Dev = asUr(Device);
    ur_bool_t Supported = false;
    ASSERT_EQ(urDeviceGetInfo(Dev, UR_DEVICE_INFO_COMMAND_BUFFER_SUPPORT_EXP, sizeof(Supported),
                              &Supported, nullptr),
              UR_RESULT_SUCCESS);
    ASSERT_TRUE(Supported) << "every dglink device serves command buffers";
  }

  void TearDown() override {
    for (void *Pointer : Usm)
      EXPECT_EQ(urUSMFree(Ctx, Pointer), UR_RESULT_SUCCESS);
    BuiltProgramTest::TearDown();
  }

  // A command buffer of the test's context and device (ASSERT under it).
  void create(ur_exp_command_buffer_handle_t &Out, bool InOrder = false, bool Updatable = false) {
    const ur_exp_command_buffer_desc_t Desc{UR_STRUCTURE_TYPE_EXP_COMMAND_BUFFER_DESC, nullptr,
                                            Updatable, InOrder, false};
    ASSERT_EQ(urCommandBufferCreateExp(Ctx, Dev, &Desc, &Out), UR_RESULT_SUCCESS)
        << urLastError(Platform);
  }

  void *deviceMemory() {
    void *Pointer = nullptr;
    EXPECT_EQ(urUSMDeviceAlloc(Ctx, Dev, nullptr, nullptr, Bytes, &Pointer), UR_RESULT_SUCCESS)
        << urLastError(Platform);
    if (Pointer != nullptr)
      Usm.push_back(Pointer);
    return Pointer;
  }

  std::vector<int32_t> readBack(const void *Pointer) {
    std::vector<int32_t> Values(Count, -1);
    EXPECT_EQ(urEnqueueUSMMemcpy(Q, true, Values.data(), Pointer, Bytes, 0, nullptr, nullptr),
              UR_RESULT_SUCCESS);
    return Values;
  }

  void zero(void *Pointer) {
    const int32_t Zero = 0;
    ASSERT_EQ(urEnqueueUSMFill(Q, Pointer, sizeof(Zero), &Zero, Bytes, 0, nullptr, nullptr),
              UR_RESULT_SUCCESS);
    ASSERT_EQ(urQueueFinish(Q), UR_RESULT_SUCCESS);
  }

  // The "pattern" kernels through UR (ASSERT under it): fill_pattern and increment.
  void kernels() {
    ASSERT_NO_FATAL_FAILURE(buildProgram("pattern", Program));
    ASSERT_NO_FATAL_FAILURE(createKernel(Program.get(), "fill_pattern", FillPattern));
    ASSERT_NO_FATAL_FAILURE(createKernel(Program.get(), "increment", Increment));
  }

  ur_queue_handle_t Q = nullptr;
  ur_context_handle_t Ctx = nullptr;
  ur_device_handle_t Dev = nullptr;
  std::vector<void *> Usm;
  ProgramHandle Program;
  KernelHandle FillPattern, Increment;
};

// UR's device queries answer what is served: command buffers, updates of a kernel
// launch's arguments, sizes and kernel and of a command's events (a global offset where
// the backend launches with one), events of commands; an updatable command buffer says so.
TEST_P(UrCommandBuffers, DeviceQueriesAnswerUpdatesAndEvents) {
  ur_device_command_buffer_update_capability_flags_t Update = 0;
  EXPECT_EQ(urDeviceGetInfo(Dev, UR_DEVICE_INFO_COMMAND_BUFFER_UPDATE_CAPABILITIES_EXP,
                            sizeof(Update), &Update, nullptr),
            UR_RESULT_SUCCESS);
  const ur_device_command_buffer_update_capability_flags_t Always =
      UR_DEVICE_COMMAND_BUFFER_UPDATE_CAPABILITY_FLAG_KERNEL_ARGUMENTS |
      UR_DEVICE_COMMAND_BUFFER_UPDATE_CAPABILITY_FLAG_LOCAL_WORK_SIZE |
      UR_DEVICE_COMMAND_BUFFER_UPDATE_CAPABILITY_FLAG_GLOBAL_WORK_SIZE |
      UR_DEVICE_COMMAND_BUFFER_UPDATE_CAPABILITY_FLAG_KERNEL_HANDLE |
      UR_DEVICE_COMMAND_BUFFER_UPDATE_CAPABILITY_FLAG_EVENTS;
  EXPECT_EQ(Update &
                ~ur_device_command_buffer_update_capability_flags_t{
                    UR_DEVICE_COMMAND_BUFFER_UPDATE_CAPABILITY_FLAG_GLOBAL_WORK_OFFSET},
            Always);
  ur_bool_t Events = false;
  EXPECT_EQ(urDeviceGetInfo(Dev, UR_DEVICE_INFO_COMMAND_BUFFER_EVENT_SUPPORT_EXP, sizeof(Events),
                            &Events, nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_TRUE(Events);
  ur_exp_command_buffer_handle_t CommandBuffer = nullptr;
  ASSERT_NO_FATAL_FAILURE(create(CommandBuffer, false, true));
  ur_exp_command_buffer_desc_t Desc{};
  EXPECT_EQ(urCommandBufferGetInfoExp(CommandBuffer, UR_EXP_COMMAND_BUFFER_INFO_DESCRIPTOR,
                                      sizeof(Desc), &Desc, nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_TRUE(Desc.isUpdatable);
  EXPECT_EQ(urCommandBufferReleaseExp(CommandBuffer), UR_RESULT_SUCCESS);
}

// Fills, copies and buffer commands recorded once, replayed twice: each replay writes
// the data again. Sync points name the commands each depends on.
TEST_P(UrCommandBuffers, CopiesReplayTwiceInSyncPointOrder) {
  void *A = deviceMemory();
  void *B = deviceMemory();
  ASSERT_TRUE(A != nullptr && B != nullptr);
  ur_mem_handle_t Buffer = nullptr, Other = nullptr;
  ASSERT_EQ(urMemBufferCreate(Ctx, UR_MEM_FLAG_READ_WRITE, Bytes, nullptr, &Buffer),
            UR_RESULT_SUCCESS);
  ASSERT_EQ(urMemBufferCreate(Ctx, UR_MEM_FLAG_READ_WRITE, Bytes, nullptr, &Other),
            UR_RESULT_SUCCESS);
  std::vector<int32_t> Host(Count), FromBuffer(Count, -1), FromRect(Count, -1);
  std::iota(Host.begin(), Host.end(), 100);

  ur_exp_command_buffer_handle_t CommandBuffer = nullptr;
  ASSERT_NO_FATAL_FAILURE(create(CommandBuffer));
  const int32_t Seven = 7;
  ur_exp_command_buffer_sync_point_t Filled = ~0u, Copied = ~0u, Written = ~0u, Moved = ~0u;
  ASSERT_EQ(urCommandBufferAppendUSMFillExp(CommandBuffer, A, &Seven, sizeof(Seven), Bytes, 0,
                                            nullptr, 0, nullptr, &Filled, nullptr, nullptr),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_EQ(urCommandBufferAppendUSMMemcpyExp(CommandBuffer, B, A, Bytes, 1, &Filled, 0, nullptr,
                                              &Copied, nullptr, nullptr),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_EQ(urCommandBufferAppendMemBufferWriteExp(CommandBuffer, Buffer, 0, Bytes, Host.data(), 0,
                                                   nullptr, 0, nullptr, &Written, nullptr, nullptr),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_EQ(urCommandBufferAppendMemBufferCopyExp(CommandBuffer, Buffer, Other, 0, 0, Bytes, 1,
                                                  &Written, 0, nullptr, &Moved, nullptr, nullptr),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_EQ(urCommandBufferAppendMemBufferReadExp(CommandBuffer, Other, 0, Bytes, FromBuffer.data(),
                                                  1, &Moved, 0, nullptr, nullptr, nullptr, nullptr),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  // The first 4 ints of each of 16 rows of the buffer, as a 16-byte x 16-row rectangle.
  const ur_rect_region_t Region{16, 16, 1};
  ASSERT_EQ(urCommandBufferAppendMemBufferReadRectExp(
                CommandBuffer, Other, {0, 0, 0}, {0, 0, 0}, Region, 16, 0, 16, 0, FromRect.data(),
                1, &Moved, 0, nullptr, nullptr, nullptr, nullptr),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  EXPECT_EQ(Filled, 0u);
  EXPECT_EQ(Copied, 1u);
  EXPECT_EQ(Written, 2u);
  EXPECT_EQ(Moved, 3u);
  ASSERT_EQ(urCommandBufferFinalizeExp(CommandBuffer), UR_RESULT_SUCCESS);

  for (int Replay = 0; Replay < 2; ++Replay) {
    SCOPED_TRACE("replay " + std::to_string(Replay));
    ASSERT_NO_FATAL_FAILURE(zero(B));
    std::fill(FromBuffer.begin(), FromBuffer.end(), -1);
    std::fill(FromRect.begin(), FromRect.end(), -1);
    ASSERT_EQ(urEnqueueCommandBufferExp(Q, CommandBuffer, 0, nullptr, nullptr), UR_RESULT_SUCCESS)
        << urLastError(Platform);
    ASSERT_EQ(urQueueFinish(Q), UR_RESULT_SUCCESS);
    EXPECT_EQ(readBack(B), std::vector<int32_t>(Count, 7));
    EXPECT_EQ(FromBuffer, Host);
    EXPECT_EQ(FromRect, Host);
  }
  EXPECT_EQ(urCommandBufferReleaseExp(CommandBuffer), UR_RESULT_SUCCESS);
  EXPECT_EQ(urMemRelease(Buffer), UR_RESULT_SUCCESS);
  EXPECT_EQ(urMemRelease(Other), UR_RESULT_SUCCESS);
}

// A submission waits for its wait list and gives an event of its own command type;
// the command buffer's queries answer its reference count and descriptor.
TEST_P(UrCommandBuffers, EnqueueWithWaitListAndEvent) {
  void *A = deviceMemory();
  void *B = deviceMemory();
  ASSERT_TRUE(A != nullptr && B != nullptr);
  ur_exp_command_buffer_handle_t CommandBuffer = nullptr;
  ASSERT_NO_FATAL_FAILURE(create(CommandBuffer, true));
  ASSERT_EQ(urCommandBufferAppendUSMMemcpyExp(CommandBuffer, B, A, Bytes, 0, nullptr, 0, nullptr,
                                              nullptr, nullptr, nullptr),
            UR_RESULT_SUCCESS);
  ASSERT_EQ(urCommandBufferFinalizeExp(CommandBuffer), UR_RESULT_SUCCESS);

  // The wait list: a fill of A on a second queue of the context.
  ur_queue_handle_t Second = nullptr;
  ASSERT_EQ(urQueueCreate(Ctx, Dev, nullptr, &Second), UR_RESULT_SUCCESS);
  const int32_t Five = 5;
  ur_event_handle_t Fill = nullptr, Done = nullptr;
  ASSERT_EQ(urEnqueueUSMFill(Second, A, sizeof(Five), &Five, Bytes, 0, nullptr, &Fill),
            UR_RESULT_SUCCESS);
  ASSERT_EQ(urEnqueueCommandBufferExp(Q, CommandBuffer, 1, &Fill, &Done), UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_EQ(urEventWait(1, &Done), UR_RESULT_SUCCESS);
  ur_command_t Command = UR_COMMAND_FORCE_UINT32;
  EXPECT_EQ(urEventGetInfo(Done, UR_EVENT_INFO_COMMAND_TYPE, sizeof(Command), &Command, nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(Command, UR_COMMAND_ENQUEUE_COMMAND_BUFFER_EXP);
  ur_event_status_t Status = UR_EVENT_STATUS_ERROR;
  EXPECT_EQ(urEventGetInfo(Done, UR_EVENT_INFO_COMMAND_EXECUTION_STATUS, sizeof(Status), &Status,
                           nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(Status, UR_EVENT_STATUS_COMPLETE);
  EXPECT_EQ(readBack(B), std::vector<int32_t>(Count, 5));

  uint32_t References = 0;
  EXPECT_EQ(urCommandBufferRetainExp(CommandBuffer), UR_RESULT_SUCCESS);
  EXPECT_EQ(urCommandBufferGetInfoExp(CommandBuffer, UR_EXP_COMMAND_BUFFER_INFO_REFERENCE_COUNT,
                                      sizeof(References), &References, nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(References, 2u);
  EXPECT_EQ(urCommandBufferReleaseExp(CommandBuffer), UR_RESULT_SUCCESS);
  ur_exp_command_buffer_desc_t Desc{};
  size_t Size = 0;
  EXPECT_EQ(urCommandBufferGetInfoExp(CommandBuffer, UR_EXP_COMMAND_BUFFER_INFO_DESCRIPTOR, 0,
                                      nullptr, &Size),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(Size, sizeof(Desc));
  EXPECT_EQ(urCommandBufferGetInfoExp(CommandBuffer, UR_EXP_COMMAND_BUFFER_INFO_DESCRIPTOR,
                                      sizeof(Desc), &Desc, nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(Desc.stype, UR_STRUCTURE_TYPE_EXP_COMMAND_BUFFER_DESC);
  EXPECT_TRUE(Desc.isInOrder);
  EXPECT_FALSE(Desc.isUpdatable);
  EXPECT_EQ(urCommandBufferGetInfoExp(CommandBuffer, UR_EXP_COMMAND_BUFFER_INFO_DESCRIPTOR, 4,
                                      &Desc, nullptr),
            UR_RESULT_ERROR_INVALID_SIZE);

  EXPECT_EQ(urEventRelease(Done), UR_RESULT_SUCCESS);
  EXPECT_EQ(urEventRelease(Fill), UR_RESULT_SUCCESS);
  EXPECT_EQ(urCommandBufferReleaseExp(CommandBuffer), UR_RESULT_SUCCESS);
  EXPECT_EQ(urQueueRelease(Second), UR_RESULT_SUCCESS);
}

// A recorded kernel runs with the arguments it had when it was appended: a launch
// with other arguments after the append changes nothing in the command buffer. Both
// ways of giving arguments: set before the append (kept by the kernel since its last
// launch), and given with the append.
TEST_P(UrCommandBuffers, KernelArgumentsAreCapturedAtAppend) {
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ASSERT_NO_FATAL_FAILURE(kernels());
  const ur_kernel_handle_t Fill = asUr(FillPattern.get());
  const ur_kernel_handle_t Inc = asUr(Increment.get());
  void *A = deviceMemory();
  void *B = deviceMemory();
  void *C = deviceMemory();
  ASSERT_TRUE(A != nullptr && B != nullptr && C != nullptr);
  const size_t Global = Count;

  // fill_pattern's argument is A since this launch.
  ur_exp_kernel_arg_properties_t Arg = pointerArgument(A);
  ASSERT_EQ(urEnqueueKernelLaunchWithArgsExp(Q, Fill, 1, nullptr, &Global, nullptr, 1, &Arg,
                                             nullptr, 0, nullptr, nullptr),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ur_exp_command_buffer_handle_t CommandBuffer = nullptr;
  ASSERT_NO_FATAL_FAILURE(create(CommandBuffer));
  ur_exp_command_buffer_sync_point_t Filled = 0;
  ASSERT_EQ(urCommandBufferAppendKernelLaunchExp(CommandBuffer, Fill, 1, nullptr, &Global, nullptr,
                                                 0, nullptr, 0, nullptr, 0, nullptr, &Filled,
                                                 nullptr, nullptr),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  // increment of C, its argument given with the append; then A copied to B.
  Arg = pointerArgument(C);
  ASSERT_EQ(urCommandBufferAppendKernelLaunchWithArgsExp(CommandBuffer, Inc, 1, nullptr, &Global,
                                                         nullptr, 1, &Arg, 0, nullptr, 0, nullptr,
                                                         0, nullptr, nullptr, nullptr, nullptr),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_EQ(urCommandBufferAppendUSMMemcpyExp(CommandBuffer, B, A, Bytes, 1, &Filled, 0, nullptr,
                                              nullptr, nullptr, nullptr),
            UR_RESULT_SUCCESS);
  ASSERT_EQ(urCommandBufferFinalizeExp(CommandBuffer), UR_RESULT_SUCCESS);

  // Both kernels' arguments change after the append (to B, and to A).
  Arg = pointerArgument(B);
  ASSERT_EQ(urEnqueueKernelLaunchWithArgsExp(Q, Fill, 1, nullptr, &Global, nullptr, 1, &Arg,
                                             nullptr, 0, nullptr, nullptr),
            UR_RESULT_SUCCESS);
  Arg = pointerArgument(A);
  ASSERT_EQ(urEnqueueKernelLaunchWithArgsExp(Q, Inc, 1, nullptr, &Global, nullptr, 1, &Arg, nullptr,
                                             0, nullptr, nullptr),
            UR_RESULT_SUCCESS);
  for (void *Pointer : {A, B, C})
    ASSERT_NO_FATAL_FAILURE(zero(Pointer));

  for (int Replay = 1; Replay <= 2; ++Replay) {
    SCOPED_TRACE("replay " + std::to_string(Replay));
    ASSERT_EQ(urEnqueueCommandBufferExp(Q, CommandBuffer, 0, nullptr, nullptr), UR_RESULT_SUCCESS)
        << urLastError(Platform);
    ASSERT_EQ(urQueueFinish(Q), UR_RESULT_SUCCESS);
    std::vector<int32_t> Expected(Count);
    for (size_t I = 0; I < Count; ++I)
      Expected[I] = pattern(I);
    EXPECT_EQ(readBack(A), Expected);                            // the captured argument, not B
    EXPECT_EQ(readBack(B), Expected);                            // the copy after it
    EXPECT_EQ(readBack(C), std::vector<int32_t>(Count, Replay)); // not A
  }
  EXPECT_EQ(urCommandBufferReleaseExp(CommandBuffer), UR_RESULT_SUCCESS);
}

// The command buffer may be released while a submission runs, and holds the kernels and
// buffers its commands use: their handles may go first.
TEST_P(UrCommandBuffers, ReleasedWhileEnqueuedKeepsWhatItUses) {
  ur_mem_handle_t Buffer = nullptr;
  ASSERT_EQ(urMemBufferCreate(Ctx, UR_MEM_FLAG_READ_WRITE, Bytes, nullptr, &Buffer),
            UR_RESULT_SUCCESS);
  std::vector<int32_t> Values(Count, -1);
  ur_exp_command_buffer_handle_t CommandBuffer = nullptr;
  ASSERT_NO_FATAL_FAILURE(create(CommandBuffer));
  const int32_t Nine = 9;
  ur_exp_command_buffer_sync_point_t Filled = 0;
  ASSERT_EQ(urCommandBufferAppendMemBufferFillExp(CommandBuffer, Buffer, &Nine, sizeof(Nine), 0,
                                                  Bytes, 0, nullptr, 0, nullptr, &Filled, nullptr,
                                                  nullptr),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_EQ(urCommandBufferAppendMemBufferReadExp(CommandBuffer, Buffer, 0, Bytes, Values.data(), 1,
                                                  &Filled, 0, nullptr, nullptr, nullptr, nullptr),
            UR_RESULT_SUCCESS);
  ASSERT_EQ(urCommandBufferFinalizeExp(CommandBuffer), UR_RESULT_SUCCESS);
  EXPECT_EQ(urMemRelease(Buffer), UR_RESULT_SUCCESS); // the command buffer holds it
  ur_event_handle_t Done = nullptr;
  ASSERT_EQ(urEnqueueCommandBufferExp(Q, CommandBuffer, 0, nullptr, &Done), UR_RESULT_SUCCESS)
      << urLastError(Platform);
  EXPECT_EQ(urCommandBufferReleaseExp(CommandBuffer), UR_RESULT_SUCCESS);
  ASSERT_EQ(urEventWait(1, &Done), UR_RESULT_SUCCESS);
  EXPECT_EQ(Values, std::vector<int32_t>(Count, 9));
  EXPECT_EQ(urEventRelease(Done), UR_RESULT_SUCCESS);
  // Its handle is refused from now on (the leak checker would report the use itself).
  if (!leakCheckerOn()) {
    EXPECT_EQ(urCommandBufferFinalizeExp(CommandBuffer),
              UR_RESULT_ERROR_INVALID_COMMAND_BUFFER_EXP);
  }
}

// Bad input gets the code UR's spec names, and changes nothing. (A null handle the
// loader routes by, the first of each call, is the loader's to read: with several
// adapters loaded it does, so UR's CTS checks those with one adapter.)
TEST_P(UrCommandBuffers, BadInputIsRefusedWithUrCodes) {
  void *A = deviceMemory();
  void *B = deviceMemory();
  ASSERT_TRUE(A != nullptr && B != nullptr);
  const ur_exp_command_buffer_desc_t Desc{UR_STRUCTURE_TYPE_EXP_COMMAND_BUFFER_DESC, nullptr, false,
                                          false, false};
  ur_exp_command_buffer_handle_t CommandBuffer = nullptr;
  EXPECT_EQ(urCommandBufferCreateExp(Ctx, nullptr, &Desc, &CommandBuffer),
            UR_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(urCommandBufferCreateExp(Ctx, Dev, nullptr, &CommandBuffer),
            UR_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(urCommandBufferCreateExp(Ctx, Dev, &Desc, nullptr),
            UR_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(CommandBuffer, nullptr);
  ASSERT_NO_FATAL_FAILURE(create(CommandBuffer));

  // Null handles (not the routed one) and pointers.
  EXPECT_EQ(urCommandBufferAppendUSMMemcpyExp(CommandBuffer, nullptr, A, Bytes, 0, nullptr, 0,
                                              nullptr, nullptr, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(urCommandBufferAppendMemBufferCopyExp(CommandBuffer, nullptr, nullptr, 0, 0, 4, 0,
                                                  nullptr, 0, nullptr, nullptr, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(urEnqueueCommandBufferExp(Q, nullptr, 0, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_NULL_HANDLE);
  // Sizes.
  EXPECT_EQ(urCommandBufferAppendUSMMemcpyExp(CommandBuffer, B, A, 0, 0, nullptr, 0, nullptr,
                                              nullptr, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(urCommandBufferAppendUSMMemcpyExp(CommandBuffer, B, A, Bytes * 2, 0, nullptr, 0,
                                              nullptr, nullptr, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_SIZE);
  const int32_t Pattern = 1;
  EXPECT_EQ(urCommandBufferAppendUSMFillExp(CommandBuffer, A, &Pattern, sizeof(Pattern), 6, 0,
                                            nullptr, 0, nullptr, nullptr, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_SIZE);
  // Sync points: a list that disagrees with its count, one that names no command.
  ur_exp_command_buffer_sync_point_t First = ~0u;
  ASSERT_EQ(urCommandBufferAppendUSMMemcpyExp(CommandBuffer, B, A, Bytes, 0, nullptr, 0, nullptr,
                                              &First, nullptr, nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(First, 0u);
  EXPECT_EQ(urCommandBufferAppendUSMMemcpyExp(CommandBuffer, B, A, Bytes, 1, nullptr, 0, nullptr,
                                              nullptr, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_COMMAND_BUFFER_SYNC_POINT_WAIT_LIST_EXP);
  const ur_exp_command_buffer_sync_point_t Later = 1;
  EXPECT_EQ(urCommandBufferAppendUSMMemcpyExp(CommandBuffer, B, A, Bytes, 1, &Later, 0, nullptr,
                                              nullptr, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_COMMAND_BUFFER_SYNC_POINT_EXP);
  // A wait list that disagrees with its count; a command handle of a command buffer that
  // is not updatable.
  ur_event_handle_t Event = nullptr;
  EXPECT_EQ(urCommandBufferAppendUSMMemcpyExp(CommandBuffer, B, A, Bytes, 0, nullptr, 1, nullptr,
                                              nullptr, &Event, nullptr),
            UR_RESULT_ERROR_INVALID_EVENT_WAIT_LIST);
  EXPECT_EQ(Event, nullptr);
  ur_exp_command_buffer_command_handle_t Command = nullptr;
  EXPECT_EQ(urCommandBufferAppendUSMMemcpyExp(CommandBuffer, B, A, Bytes, 0, nullptr, 0, nullptr,
                                              nullptr, nullptr, &Command),
            UR_RESULT_ERROR_INVALID_OPERATION);
  EXPECT_EQ(Command, nullptr);
  // A buffer of another context.
  ContextHandle OtherContext;
  ASSERT_PI_SUCCESS(piContextCreate(nullptr, 1, &Device, OtherContext.out()));
  ur_mem_handle_t Foreign = nullptr, Own = nullptr;
  ASSERT_EQ(
      urMemBufferCreate(asUr(OtherContext.get()), UR_MEM_FLAG_READ_WRITE, Bytes, nullptr, &Foreign),
      UR_RESULT_SUCCESS);
  ASSERT_EQ(urMemBufferCreate(Ctx, UR_MEM_FLAG_READ_WRITE, Bytes, nullptr, &Own),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(urCommandBufferAppendMemBufferCopyExp(CommandBuffer, Foreign, Own, 0, 0, Bytes, 0,
                                                  nullptr, 0, nullptr, nullptr, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_MEM_OBJECT);
  EXPECT_EQ(urCommandBufferAppendMemBufferCopyExp(CommandBuffer, Own, Own, 0, 8, 16, 0, nullptr, 0,
                                                  nullptr, nullptr, nullptr, nullptr),
            UR_RESULT_ERROR_OVERLAPPING_REGIONS);
  EXPECT_EQ(urCommandBufferAppendMemBufferReadExp(CommandBuffer, Own, 8, Bytes, A, 0, nullptr, 0,
                                                  nullptr, nullptr, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_SIZE);

  // Submitted before it is finalized; finalized twice; appended to after.
  EXPECT_EQ(urEnqueueCommandBufferExp(Q, CommandBuffer, 0, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_OPERATION);
  ASSERT_EQ(urCommandBufferFinalizeExp(CommandBuffer), UR_RESULT_SUCCESS);
  EXPECT_EQ(urCommandBufferFinalizeExp(CommandBuffer), UR_RESULT_ERROR_INVALID_OPERATION);
  EXPECT_EQ(urCommandBufferAppendUSMMemcpyExp(CommandBuffer, B, A, Bytes, 0, nullptr, 0, nullptr,
                                              nullptr, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_OPERATION);
  // A queue of another context; a bad wait list.
  ur_queue_handle_t OtherQueue = nullptr;
  ASSERT_EQ(urQueueCreate(asUr(OtherContext.get()), Dev, nullptr, &OtherQueue), UR_RESULT_SUCCESS);
  EXPECT_EQ(urEnqueueCommandBufferExp(OtherQueue, CommandBuffer, 0, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_QUEUE);
  EXPECT_EQ(urEnqueueCommandBufferExp(Q, CommandBuffer, 1, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_EVENT_WAIT_LIST);
  // The command buffer is no other handle, and no other handle is a command buffer (the
  // leak checker reports such a use itself).
  if (!leakCheckerOn()) {
    EXPECT_EQ(urCommandBufferRetainExp(reinterpret_cast<ur_exp_command_buffer_handle_t>(Q)),
              UR_RESULT_ERROR_INVALID_COMMAND_BUFFER_EXP);
    EXPECT_EQ(urEnqueueCommandBufferExp(reinterpret_cast<ur_queue_handle_t>(CommandBuffer),
                                        CommandBuffer, 0, nullptr, nullptr),
              UR_RESULT_ERROR_INVALID_QUEUE);
  }
  // None of that changed it: one submission copies the one command.
  ASSERT_NO_FATAL_FAILURE(zero(B));
  const int32_t Three = 3;
  ASSERT_EQ(urEnqueueUSMFill(Q, A, sizeof(Three), &Three, Bytes, 0, nullptr, nullptr),
            UR_RESULT_SUCCESS);
  ASSERT_EQ(urEnqueueCommandBufferExp(Q, CommandBuffer, 0, nullptr, nullptr), UR_RESULT_SUCCESS);
  EXPECT_EQ(readBack(B), std::vector<int32_t>(Count, 3));

  EXPECT_EQ(urQueueRelease(OtherQueue), UR_RESULT_SUCCESS);
  EXPECT_EQ(urMemRelease(Foreign), UR_RESULT_SUCCESS);
  EXPECT_EQ(urMemRelease(Own), UR_RESULT_SUCCESS);
  EXPECT_EQ(urCommandBufferReleaseExp(CommandBuffer), UR_RESULT_SUCCESS);
}

// Several threads append to one command buffer at once (each append gets its own sync
// point), then submit one command buffer at once: submissions of one command buffer do
// not overlap, so increments of the same memory add up.
TEST_P(UrCommandBuffers, ConcurrentAppendsAndSubmissions) {
  constexpr size_t Threads = 4;
  constexpr size_t PerThread = 8;
  void *A = deviceMemory();
  void *B = deviceMemory();
  ASSERT_TRUE(A != nullptr && B != nullptr);
  ur_exp_command_buffer_handle_t Copies = nullptr;
  ASSERT_NO_FATAL_FAILURE(create(Copies));
  std::vector<std::vector<ur_exp_command_buffer_sync_point_t>> Points(Threads);
  {
    std::vector<std::thread> Workers;
    Workers.reserve(Threads);
    for (size_t T = 0; T < Threads; ++T)
      Workers.emplace_back([&, T] {
        for (size_t I = 0; I < PerThread; ++I) {
          ur_exp_command_buffer_sync_point_t Point = ~0u;
          EXPECT_EQ(urCommandBufferAppendUSMMemcpyExp(Copies, B, A, Bytes, 0, nullptr, 0, nullptr,
                                                      &Point, nullptr, nullptr),
                    UR_RESULT_SUCCESS);
          Points[T].push_back(Point);
        }
      });
    for (std::thread &Worker : Workers)
      Worker.join();
  }
  std::vector<ur_exp_command_buffer_sync_point_t> All;
  for (const auto &Each : Points)
    All.insert(All.end(), Each.begin(), Each.end());
  std::sort(All.begin(), All.end());
  std::vector<ur_exp_command_buffer_sync_point_t> Expected(Threads * PerThread);
  std::iota(Expected.begin(), Expected.end(), 0u);
  EXPECT_EQ(All, Expected);
  EXPECT_EQ(urCommandBufferReleaseExp(Copies), UR_RESULT_SUCCESS);

  if (!executesKernels())
    GTEST_SKIP() << "the concurrent submissions run a kernel: " DGLINK_NO_KERNEL_EXECUTION_REASON;
  ASSERT_NO_FATAL_FAILURE(kernels());
  ASSERT_NO_FATAL_FAILURE(zero(A));
  ur_exp_command_buffer_handle_t Increments = nullptr;
  ASSERT_NO_FATAL_FAILURE(create(Increments));
  const size_t Global = Count;
  const ur_exp_kernel_arg_properties_t Arg = pointerArgument(A);
  ASSERT_EQ(urCommandBufferAppendKernelLaunchWithArgsExp(
                Increments, asUr(Increment.get()), 1, nullptr, &Global, nullptr, 1, &Arg, 0,
                nullptr, 0, nullptr, 0, nullptr, nullptr, nullptr, nullptr),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_EQ(urCommandBufferFinalizeExp(Increments), UR_RESULT_SUCCESS);
  std::vector<ur_queue_handle_t> Queues(Threads);
  for (ur_queue_handle_t &Each : Queues)
    ASSERT_EQ(urQueueCreate(Ctx, Dev, nullptr, &Each), UR_RESULT_SUCCESS);
  {
    std::vector<std::thread> Workers;
    Workers.reserve(Threads);
    for (size_t T = 0; T < Threads; ++T)
      Workers.emplace_back([&, T] {
        for (size_t I = 0; I < PerThread; ++I)
          EXPECT_EQ(urEnqueueCommandBufferExp(Queues[T], Increments, 0, nullptr, nullptr),
                    UR_RESULT_SUCCESS);
      });
    for (std::thread &Worker : Workers)
      Worker.join();
  }
  for (ur_queue_handle_t Each : Queues) {
    EXPECT_EQ(urQueueFinish(Each), UR_RESULT_SUCCESS);
    EXPECT_EQ(urQueueRelease(Each), UR_RESULT_SUCCESS);
  }
  EXPECT_EQ(readBack(A), std::vector<int32_t>(Count, static_cast<int32_t>(Threads * PerThread)));
  EXPECT_EQ(urCommandBufferReleaseExp(Increments), UR_RESULT_SUCCESS);
}

// Events of commands: a command waits for an event of another queue, and its own event
// orders a command of another queue after it; before the first submission that event is
// complete. In an updatable command buffer the wait list and the event are replaced
// between submissions, and the next submission follows them.
TEST_P(UrCommandBuffers, CommandEventsOrderOtherQueues) {
  void *A = deviceMemory();
  void *B = deviceMemory();
  ASSERT_TRUE(A != nullptr && B != nullptr);
  ASSERT_NO_FATAL_FAILURE(zero(B));
  ur_queue_handle_t Second = nullptr;
  ASSERT_EQ(urQueueCreate(Ctx, Dev, nullptr, &Second), UR_RESULT_SUCCESS);
  ur_exp_command_buffer_handle_t CommandBuffer = nullptr;
  ASSERT_NO_FATAL_FAILURE(create(CommandBuffer, false, true));

  // A fill of A on the second queue is the copy's wait event.
  const int32_t Five = 5;
  ur_event_handle_t Filled = nullptr, Copied = nullptr;
  ASSERT_EQ(urEnqueueUSMFill(Second, A, sizeof(Five), &Five, Bytes, 0, nullptr, &Filled),
            UR_RESULT_SUCCESS);
  ur_exp_command_buffer_command_handle_t Copy = nullptr;
  ASSERT_EQ(urCommandBufferAppendUSMMemcpyExp(CommandBuffer, B, A, Bytes, 0, nullptr, 1, &Filled,
                                              nullptr, &Copied, &Copy),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_NE(Copied, nullptr);
  ASSERT_NE(Copy, nullptr);
  nameCommandEvent(Copied);
  ur_command_t Type = UR_COMMAND_FORCE_UINT32;
  EXPECT_EQ(urEventGetInfo(Copied, UR_EVENT_INFO_COMMAND_TYPE, sizeof(Type), &Type, nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(Type, UR_COMMAND_USM_MEMCPY);
  EXPECT_EQ(urEventWait(1, &Copied), UR_RESULT_SUCCESS); // no execution yet: complete
  ASSERT_EQ(urCommandBufferFinalizeExp(CommandBuffer), UR_RESULT_SUCCESS);
  ASSERT_EQ(urEnqueueCommandBufferExp(Q, CommandBuffer, 0, nullptr, nullptr), UR_RESULT_SUCCESS)
      << urLastError(Platform);
  // A read of B on the second queue after the copy's event.
  std::vector<int32_t> Values(Count, -1);
  ASSERT_EQ(urEnqueueUSMMemcpy(Second, false, Values.data(), B, Bytes, 1, &Copied, nullptr),
            UR_RESULT_SUCCESS);
  ASSERT_EQ(urQueueFinish(Second), UR_RESULT_SUCCESS);
  EXPECT_EQ(Values, std::vector<int32_t>(Count, 5));
  ASSERT_EQ(urQueueFinish(Q), UR_RESULT_SUCCESS);

  // New wait event (a fill of 8) and a new signal event for the next submission.
  const int32_t Eight = 8;
  ur_event_handle_t Refilled = nullptr, Recopied = nullptr;
  ASSERT_EQ(urEnqueueUSMFill(Second, A, sizeof(Eight), &Eight, Bytes, 0, nullptr, &Refilled),
            UR_RESULT_SUCCESS);
  ASSERT_EQ(urCommandBufferUpdateWaitEventsExp(Copy, 1, &Refilled), UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_EQ(urCommandBufferUpdateSignalEventExp(Copy, &Recopied), UR_RESULT_SUCCESS)
      << urLastError(Platform);
  nameCommandEvent(Recopied);
  ASSERT_NE(Recopied, Copied);
  ASSERT_EQ(urEnqueueCommandBufferExp(Q, CommandBuffer, 0, nullptr, nullptr), UR_RESULT_SUCCESS);
  std::fill(Values.begin(), Values.end(), -1);
  ASSERT_EQ(urEnqueueUSMMemcpy(Second, false, Values.data(), B, Bytes, 1, &Recopied, nullptr),
            UR_RESULT_SUCCESS);
  ASSERT_EQ(urQueueFinish(Second), UR_RESULT_SUCCESS);
  EXPECT_EQ(Values, std::vector<int32_t>(Count, 8));
  ur_event_status_t Status = UR_EVENT_STATUS_ERROR;
  EXPECT_EQ(urEventGetInfo(Recopied, UR_EVENT_INFO_COMMAND_EXECUTION_STATUS, sizeof(Status),
                           &Status, nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(Status, UR_EVENT_STATUS_COMPLETE);

  // The events outlive the command buffer; its command handle does not.
  ASSERT_EQ(urQueueFinish(Q), UR_RESULT_SUCCESS);
  EXPECT_EQ(urCommandBufferReleaseExp(CommandBuffer), UR_RESULT_SUCCESS);
  EXPECT_EQ(urEventWait(1, &Recopied), UR_RESULT_SUCCESS);
  if (!leakCheckerOn()) {
    EXPECT_EQ(urCommandBufferUpdateWaitEventsExp(Copy, 1, &Refilled),
              UR_RESULT_ERROR_INVALID_COMMAND_BUFFER_COMMAND_HANDLE_EXP);
  }
  for (ur_event_handle_t Event : {Filled, Copied, Refilled, Recopied})
    EXPECT_EQ(urEventRelease(Event), UR_RESULT_SUCCESS);
  EXPECT_EQ(urQueueRelease(Second), UR_RESULT_SUCCESS);
}

// A kernel launch of an updatable command buffer, updated between submissions: a new
// pointer argument, a smaller global size, another kernel of its alternatives, and back
// to the first kernel, which keeps the arguments it had. Each submission writes what its
// update says and nothing else.
TEST_P(UrCommandBuffers, KernelLaunchUpdatesApplyToLaterSubmissions) {
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ASSERT_NO_FATAL_FAILURE(kernels());
  const ur_kernel_handle_t Fill = asUr(FillPattern.get());
  const ur_kernel_handle_t Inc = asUr(Increment.get());
  void *A = deviceMemory();
  void *B = deviceMemory();
  void *C = deviceMemory();
  ASSERT_TRUE(A != nullptr && B != nullptr && C != nullptr);
  for (void *Pointer : {A, B, C})
    ASSERT_NO_FATAL_FAILURE(zero(Pointer));
  const size_t Global = Count;
  ur_exp_command_buffer_handle_t CommandBuffer = nullptr;
  ASSERT_NO_FATAL_FAILURE(create(CommandBuffer, false, true));
  const ur_exp_kernel_arg_properties_t Arg = pointerArgument(A);
  ur_kernel_handle_t Alternatives[] = {Fill};
  ur_exp_command_buffer_command_handle_t Launch = nullptr;
  ASSERT_EQ(urCommandBufferAppendKernelLaunchWithArgsExp(
                CommandBuffer, Inc, 1, nullptr, &Global, nullptr, 1, &Arg, 1, Alternatives, 0,
                nullptr, 0, nullptr, nullptr, nullptr, &Launch),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_NE(Launch, nullptr);
  ASSERT_EQ(urCommandBufferFinalizeExp(CommandBuffer), UR_RESULT_SUCCESS);
  const auto submit = [&] {
    ASSERT_EQ(urEnqueueCommandBufferExp(Q, CommandBuffer, 0, nullptr, nullptr), UR_RESULT_SUCCESS)
        << urLastError(Platform);
  };
  std::vector<int32_t> Pattern(Count), Ones(Count, 1), Zeros(Count, 0);
  for (size_t I = 0; I < Count; ++I)
    Pattern[I] = pattern(I);

  ASSERT_NO_FATAL_FAILURE(submit()); // increment A
  // increment B from now on (the update waits for the submission before it).
  auto Update = launchUpdate(Launch);
  const auto ToB = pointerUpdate(0, B);
  Update.numNewPointerArgs = 1;
  Update.pNewPointerArgList = &ToB;
  ASSERT_EQ(urCommandBufferUpdateKernelLaunchExp(CommandBuffer, 1, &Update), UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_NO_FATAL_FAILURE(submit());
  ASSERT_EQ(urQueueFinish(Q), UR_RESULT_SUCCESS);
  EXPECT_EQ(readBack(A), Ones);
  EXPECT_EQ(readBack(B), Ones);

  // fill_pattern of the first half of C: another kernel, a new argument and global size.
  Update = launchUpdate(Launch);
  Update.hNewKernel = Fill;
  const auto ToC = pointerUpdate(0, C);
  Update.numNewPointerArgs = 1;
  Update.pNewPointerArgList = &ToC;
  size_t Half = Count / 2;
  Update.pNewGlobalWorkSize = &Half;
  ASSERT_EQ(urCommandBufferUpdateKernelLaunchExp(CommandBuffer, 1, &Update), UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_NO_FATAL_FAILURE(submit());
  ASSERT_EQ(urQueueFinish(Q), UR_RESULT_SUCCESS);
  std::vector<int32_t> HalfPattern = Pattern;
  std::fill(HalfPattern.begin() + Count / 2, HalfPattern.end(), 0);
  EXPECT_EQ(readBack(C), HalfPattern);
  EXPECT_EQ(readBack(B), Ones);

  // Back to increment, no arguments given: it keeps B; the whole range again.
  Update = launchUpdate(Launch);
  Update.hNewKernel = Inc;
  size_t Whole = Count;
  Update.pNewGlobalWorkSize = &Whole;
  ASSERT_EQ(urCommandBufferUpdateKernelLaunchExp(CommandBuffer, 1, &Update), UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_NO_FATAL_FAILURE(submit());
  ASSERT_EQ(urQueueFinish(Q), UR_RESULT_SUCCESS);
  EXPECT_EQ(readBack(B), std::vector<int32_t>(Count, 2));
  EXPECT_EQ(readBack(A), Ones);
  EXPECT_EQ(readBack(C), HalfPattern);
  EXPECT_EQ(urCommandBufferReleaseExp(CommandBuffer), UR_RESULT_SUCCESS);
}

// Bad updates get the codes UR's spec names and change nothing: the launch still
// increments its first argument afterwards.
TEST_P(UrCommandBuffers, BadUpdatesAreRefusedWithUrCodes) {
  ASSERT_NO_FATAL_FAILURE(kernels());
  const ur_kernel_handle_t Fill = asUr(FillPattern.get());
  const ur_kernel_handle_t Inc = asUr(Increment.get());
  void *A = deviceMemory();
  void *B = deviceMemory();
  ASSERT_TRUE(A != nullptr && B != nullptr);
  const size_t Global = Count;
  const ur_exp_kernel_arg_properties_t Arg = pointerArgument(A);
  ur_exp_command_buffer_handle_t Updatable = nullptr, Plain = nullptr;
  ASSERT_NO_FATAL_FAILURE(create(Updatable, false, true));
  ASSERT_NO_FATAL_FAILURE(create(Plain));
  ur_exp_command_buffer_command_handle_t Launch = nullptr, Copy = nullptr;
  ASSERT_EQ(urCommandBufferAppendKernelLaunchWithArgsExp(Updatable, Inc, 1, nullptr, &Global,
                                                         nullptr, 1, &Arg, 0, nullptr, 0, nullptr,
                                                         0, nullptr, nullptr, nullptr, &Launch),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_EQ(urCommandBufferAppendUSMMemcpyExp(Updatable, B, A, Bytes, 0, nullptr, 0, nullptr,
                                              nullptr, nullptr, &Copy),
            UR_RESULT_SUCCESS);

  // Before the finalize.
  auto Update = launchUpdate(Launch);
  EXPECT_EQ(urCommandBufferUpdateKernelLaunchExp(Updatable, 1, &Update),
            UR_RESULT_ERROR_INVALID_OPERATION);
  EXPECT_EQ(urCommandBufferUpdateWaitEventsExp(Copy, 0, nullptr),
            UR_RESULT_ERROR_INVALID_OPERATION);
  ASSERT_EQ(urCommandBufferFinalizeExp(Updatable), UR_RESULT_SUCCESS);
  ASSERT_EQ(urCommandBufferFinalizeExp(Plain), UR_RESULT_SUCCESS);
  // A command buffer that is not updatable; no update; no command; a null pointer.
  EXPECT_EQ(urCommandBufferUpdateKernelLaunchExp(Plain, 1, &Update),
            UR_RESULT_ERROR_INVALID_OPERATION);
  EXPECT_EQ(urCommandBufferUpdateKernelLaunchExp(Updatable, 0, &Update),
            UR_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(urCommandBufferUpdateKernelLaunchExp(Updatable, 1, nullptr),
            UR_RESULT_ERROR_INVALID_NULL_POINTER);
  Update.hCommand = nullptr;
  EXPECT_EQ(urCommandBufferUpdateKernelLaunchExp(Updatable, 1, &Update),
            UR_RESULT_ERROR_INVALID_NULL_HANDLE);
  // A command of another command buffer; a command that is no kernel launch.
  ur_exp_command_buffer_handle_t Other = nullptr;
  ASSERT_NO_FATAL_FAILURE(create(Other, false, true));
  ASSERT_EQ(urCommandBufferFinalizeExp(Other), UR_RESULT_SUCCESS);
  Update = launchUpdate(Launch);
  EXPECT_EQ(urCommandBufferUpdateKernelLaunchExp(Other, 1, &Update),
            UR_RESULT_ERROR_INVALID_COMMAND_BUFFER_COMMAND_HANDLE_EXP);
  Update = launchUpdate(Copy);
  EXPECT_EQ(urCommandBufferUpdateKernelLaunchExp(Updatable, 1, &Update),
            UR_RESULT_ERROR_INVALID_COMMAND_BUFFER_COMMAND_HANDLE_EXP);
  // Work dimensions: 4; 2 without a global size and offset.
  Update = launchUpdate(Launch);
  Update.newWorkDim = 4;
  EXPECT_EQ(urCommandBufferUpdateKernelLaunchExp(Updatable, 1, &Update),
            UR_RESULT_ERROR_INVALID_WORK_DIMENSION);
  size_t Sizes[2] = {Count, 1};
  Update.newWorkDim = 2;
  Update.pNewGlobalWorkSize = Sizes;
  EXPECT_EQ(urCommandBufferUpdateKernelLaunchExp(Updatable, 1, &Update),
            UR_RESULT_ERROR_INVALID_VALUE);
  // A kernel that is not among the command's; an argument the kernel has not; a local
  // size that does not divide the global size.
  Update = launchUpdate(Launch);
  Update.hNewKernel = Fill;
  EXPECT_EQ(urCommandBufferUpdateKernelLaunchExp(Updatable, 1, &Update),
            UR_RESULT_ERROR_INVALID_VALUE);
  Update = launchUpdate(Launch);
  const auto Fifth = pointerUpdate(5, B);
  Update.numNewPointerArgs = 1;
  Update.pNewPointerArgList = &Fifth;
  EXPECT_EQ(urCommandBufferUpdateKernelLaunchExp(Updatable, 1, &Update),
            UR_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX);
  Update = launchUpdate(Launch);
  size_t Local = 5;
  Update.pNewLocalWorkSize = &Local;
  EXPECT_EQ(urCommandBufferUpdateKernelLaunchExp(Updatable, 1, &Update),
            UR_RESULT_ERROR_INVALID_WORK_GROUP_SIZE);
  // Events: the command has no event to replace; a wait list of another length.
  ur_event_handle_t Event = nullptr;
  EXPECT_EQ(urCommandBufferUpdateSignalEventExp(Copy, &Event), UR_RESULT_ERROR_INVALID_OPERATION);
  EXPECT_EQ(Event, nullptr);
  EXPECT_EQ(urCommandBufferUpdateSignalEventExp(Copy, nullptr),
            UR_RESULT_ERROR_INVALID_NULL_POINTER);
  ur_event_handle_t Marker = nullptr;
  ASSERT_EQ(urEnqueueEventsWait(Q, 0, nullptr, &Marker), UR_RESULT_SUCCESS);
  EXPECT_EQ(urCommandBufferUpdateWaitEventsExp(Copy, 1, &Marker),
            UR_RESULT_ERROR_INVALID_EVENT_WAIT_LIST);
  EXPECT_EQ(urCommandBufferUpdateWaitEventsExp(Copy, 1, nullptr),
            UR_RESULT_ERROR_INVALID_EVENT_WAIT_LIST);
  EXPECT_EQ(urCommandBufferUpdateWaitEventsExp(Copy, 0, nullptr), UR_RESULT_SUCCESS);

  if (executesKernels()) {
    ASSERT_NO_FATAL_FAILURE(zero(A));
    ASSERT_EQ(urEnqueueCommandBufferExp(Q, Updatable, 0, nullptr, nullptr), UR_RESULT_SUCCESS)
        << urLastError(Platform);
    EXPECT_EQ(readBack(B), std::vector<int32_t>(Count, 1));
  }
  EXPECT_EQ(urEventRelease(Marker), UR_RESULT_SUCCESS);
  for (ur_exp_command_buffer_handle_t Each : {Updatable, Plain, Other})
    EXPECT_EQ(urCommandBufferReleaseExp(Each), UR_RESULT_SUCCESS);
}

// One thread submits an updatable command buffer while another moves its launch between
// two arguments: each submission runs wholly before or after an update, so the increments
// of both add up to the submissions.
TEST_P(UrCommandBuffers, UpdatesWhileOtherThreadsSubmit) {
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ASSERT_NO_FATAL_FAILURE(kernels());
  void *A = deviceMemory();
  void *B = deviceMemory();
  ASSERT_TRUE(A != nullptr && B != nullptr);
  for (void *Pointer : {A, B})
    ASSERT_NO_FATAL_FAILURE(zero(Pointer));
  const size_t Global = Count;
  const ur_exp_kernel_arg_properties_t Arg = pointerArgument(A);
  ur_exp_command_buffer_handle_t CommandBuffer = nullptr;
  ASSERT_NO_FATAL_FAILURE(create(CommandBuffer, false, true));
  ur_exp_command_buffer_command_handle_t Launch = nullptr;
  ASSERT_EQ(urCommandBufferAppendKernelLaunchWithArgsExp(
                CommandBuffer, asUr(Increment.get()), 1, nullptr, &Global, nullptr, 1, &Arg, 0,
                nullptr, 0, nullptr, 0, nullptr, nullptr, nullptr, &Launch),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_EQ(urCommandBufferFinalizeExp(CommandBuffer), UR_RESULT_SUCCESS);
  constexpr int Submissions = 24;
  std::thread Submitter([&] {
    for (int I = 0; I < Submissions; ++I)
      EXPECT_EQ(urEnqueueCommandBufferExp(Q, CommandBuffer, 0, nullptr, nullptr),
                UR_RESULT_SUCCESS);
  });
  std::thread Updater([&] {
    for (int I = 0; I < Submissions; ++I) {
      auto Update = launchUpdate(Launch);
      const auto To = pointerUpdate(0, I % 2 == 0 ? B : A);
      Update.numNewPointerArgs = 1;
      Update.pNewPointerArgList = &To;
      EXPECT_EQ(urCommandBufferUpdateKernelLaunchExp(CommandBuffer, 1, &Update), UR_RESULT_SUCCESS);
    }
  });
  Submitter.join();
  Updater.join();
  ASSERT_EQ(urQueueFinish(Q), UR_RESULT_SUCCESS);
  const std::vector<int32_t> InA = readBack(A), InB = readBack(B);
  for (size_t I = 0; I < Count; ++I) {
    EXPECT_EQ(InA[I] + InB[I], Submissions) << "element " << I;
    EXPECT_EQ(InA[I], InA[0]) << "element " << I; // each submission wholly one way
  }
  EXPECT_EQ(urCommandBufferReleaseExp(CommandBuffer), UR_RESULT_SUCCESS);
}

DGLINK_INSTANTIATE_FOR_DEVICES(UrCommandBuffers);

} // namespace
} // namespace dglink::conformance
