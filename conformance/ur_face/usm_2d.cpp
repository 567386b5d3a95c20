// UR's 2D USM copies and fills, recorded timestamps and cooperative launches, served by
// the adapter core on every backend where the device can (docs/ur.md): real bytes
// written, read back and compared for every USM kind the device has, pitches wider than
// the rows, offsets into the allocations, every pattern size; events, wait lists and
// blocking; bad input with the spec's codes. A scenario of dglink_conformance_ur only.
#include "fixtures.h"
#include "ur_handles.h"

#include <unified-runtime/ur_api.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace dglink::conformance {
namespace {

enum class Kind { Host, Device, Shared, Pageable };

const char *kindName(Kind K) {
  switch (K) {
  case Kind::Host:
    return "host USM";
  case Kind::Device:
    return "device USM";
  case Kind::Shared:
    return "shared USM";
  case Kind::Pageable:
    return "the caller's host memory";
  }
  return "?";
}

// The bytes a test writes: never the padding's value.
uint8_t byteAt(size_t Index, uint8_t Seed) {
  return static_cast<uint8_t>((Index * 7 + Seed) % 251 + 1);
}

constexpr uint8_t Padding = 0xEE;

// The validation layer of UR's snapshot does not record the events that
// urEnqueueUSMMemcpy2D, urEnqueueUSMFill2D and urEnqueueTimestampRecordingExp return: the
// scenario names them for validation_run.sh, which then allows its messages about them.
void nameUnrecordedEvent(ur_event_handle_t Event) {
  if (Event != nullptr && leakCheckerOn())
    std::fprintf(stderr, "dglink-ur-scenario: unrecorded event %p\n", static_cast<void *>(Event));
}

class UrUsm2D : public QueueTest {
protected:
  void SetUp() override {
    QueueTest::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    Q = asUr(Queue.get());
    Ctx = asUr(Context.get());
    Dev = asUr(Device);
  }

  void TearDown() override {
    if (Ctx != nullptr) {
      for (void *Pointer : Usm)
        EXPECT_EQ(urUSMFree(Ctx, Pointer), UR_RESULT_SUCCESS);
    }
    QueueTest::TearDown();
  }

  // The USM kinds the device has (ASSERT under it: skips naming why there is none).
  std::vector<Kind> usmKinds() {
    std::vector<Kind> Out;
    const std::pair<Kind, ur_device_info_t> Queries[] = {
        {Kind::Host, UR_DEVICE_INFO_USM_HOST_SUPPORT},
        {Kind::Device, UR_DEVICE_INFO_USM_DEVICE_SUPPORT},
        {Kind::Shared, UR_DEVICE_INFO_USM_SINGLE_SHARED_SUPPORT}};
    for (const auto &[K, Query] : Queries) {
      ur_device_usm_access_capability_flags_t Flags = 0;
      EXPECT_EQ(urDeviceGetInfo(Dev, Query, sizeof(Flags), &Flags, nullptr), UR_RESULT_SUCCESS);
      if (Flags != 0)
        Out.push_back(K);
    }
    return Out;
  }

  bool contextAnswers(ur_context_info_t Query) {
    ur_bool_t Supported = false;
    EXPECT_EQ(urContextGetInfo(Ctx, Query, sizeof(Supported), &Supported, nullptr),
              UR_RESULT_SUCCESS);
    return Supported != 0;
  }

  // Size bytes of kind K, every byte Padding (Pageable: memory of the test's own).
  void *allocate(Kind K, size_t Size) {
    void *Pointer = nullptr;
    ur_result_t Result = UR_RESULT_SUCCESS;
    switch (K) {
    case Kind::Host:
      Result = urUSMHostAlloc(Ctx, nullptr, nullptr, Size, &Pointer);
      break;
    case Kind::Device:
      Result = urUSMDeviceAlloc(Ctx, Dev, nullptr, nullptr, Size, &Pointer);
      break;
    case Kind::Shared:
      Result = urUSMSharedAlloc(Ctx, Dev, nullptr, nullptr, Size, &Pointer);
      break;
    case Kind::Pageable:
      Pageable.emplace_back(Size, Padding);
      return Pageable.back().data();
    }
    EXPECT_EQ(Result, UR_RESULT_SUCCESS) << kindName(K) << ": " << urLastError(Platform);
    if (Pointer == nullptr)
      return nullptr;
    Usm.push_back(Pointer);
    EXPECT_EQ(urEnqueueUSMFill(Q, Pointer, 1, &Padding, Size, 0, nullptr, nullptr),
              UR_RESULT_SUCCESS);
    EXPECT_EQ(urQueueFinish(Q), UR_RESULT_SUCCESS);
    return Pointer;
  }

  std::vector<uint8_t> readBack(const void *Pointer, size_t Size) {
    std::vector<uint8_t> Bytes(Size, 0);
    EXPECT_EQ(urEnqueueUSMMemcpy(Q, true, Bytes.data(), Pointer, Size, 0, nullptr, nullptr),
              UR_RESULT_SUCCESS);
    return Bytes;
  }

  void write(void *Pointer, const std::vector<uint8_t> &Bytes) {
    EXPECT_EQ(urEnqueueUSMMemcpy(Q, true, Pointer, Bytes.data(), Bytes.size(), 0, nullptr, nullptr),
              UR_RESULT_SUCCESS);
  }

  ur_command_t commandOf(ur_event_handle_t Event) {
    ur_command_t Command = UR_COMMAND_FORCE_UINT32;
    EXPECT_EQ(urEventGetInfo(Event, UR_EVENT_INFO_COMMAND_TYPE, sizeof(Command), &Command, nullptr),
              UR_RESULT_SUCCESS);
    return Command;
  }

  ur_queue_handle_t Q = nullptr;
  ur_context_handle_t Ctx = nullptr;
  ur_device_handle_t Dev = nullptr;
  std::vector<void *> Usm;
  std::vector<std::vector<uint8_t>> Pageable;
};

// The context says 2D copies and fills are served wherever the device has USM.
TEST_P(UrUsm2D, ContextAnswersSupport) {
  const bool HasUsm = usmMechanism() != PI_USM_MECHANISM_NONE;
  EXPECT_EQ(contextAnswers(UR_CONTEXT_INFO_USM_MEMCPY2D_SUPPORT), HasUsm);
  EXPECT_EQ(contextAnswers(UR_CONTEXT_INFO_USM_FILL2D_SUPPORT), HasUsm);
}

// Rows between every pair of the device's USM kinds and the caller's host memory, with
// pitches of their own on both sides (wider than the rows), starting inside the
// allocations: the rectangle arrives, the padding around it stays. Blocking and not, with
// the event waited for; contiguous rows (pitch = width) too.
TEST_P(UrUsm2D, CopiesRowsBetweenEveryKind) {
  if (!contextAnswers(UR_CONTEXT_INFO_USM_MEMCPY2D_SUPPORT))
    GTEST_SKIP() << "the device has no USM (UR_CONTEXT_INFO_USM_MEMCPY2D_SUPPORT is false)";
  std::vector<Kind> Kinds = usmKinds();
  ASSERT_FALSE(Kinds.empty());
  Kinds.push_back(Kind::Pageable);
  struct Shape {
    size_t Width, Height, SrcPitch, DstPitch, SrcOffset, DstOffset;
  };
  const Shape Shapes[] = {
      {33, 7, 40, 56, 3, 5}, {64, 5, 64, 64, 0, 0}, {1, 9, 3, 17, 1, 2}, {300, 1, 512, 301, 7, 0}};
  uint8_t Seed = 1;
  for (const Kind From : Kinds)
    for (const Kind To : Kinds) {
      if (From == Kind::Pageable && To == Kind::Pageable)
        continue;
      for (const Shape &S : Shapes)
        for (const bool Blocking : {true, false}) {
          SCOPED_TRACE(std::string(kindName(From)) + " -> " + kindName(To) + ", width " +
                       std::to_string(S.Width) + ", height " + std::to_string(S.Height) +
                       (Blocking ? ", blocking" : ", an event"));
          const size_t SrcSize = S.SrcOffset + S.SrcPitch * S.Height;
          const size_t DstSize = S.DstOffset + S.DstPitch * S.Height;
          void *Src = allocate(From, SrcSize);
          void *Dst = allocate(To, DstSize);
          ASSERT_TRUE(Src != nullptr && Dst != nullptr);
          std::vector<uint8_t> Source(SrcSize);
          for (size_t I = 0; I < SrcSize; ++I)
            Source[I] = byteAt(I, ++Seed);
          write(Src, Source);
          ur_event_handle_t Done = nullptr;
          ASSERT_EQ(urEnqueueUSMMemcpy2D(Q, Blocking, static_cast<char *>(Dst) + S.DstOffset,
                                         S.DstPitch, static_cast<char *>(Src) + S.SrcOffset,
                                         S.SrcPitch, S.Width, S.Height, 0, nullptr,
                                         Blocking ? nullptr : &Done),
                    UR_RESULT_SUCCESS)
              << urLastError(Platform);
          nameUnrecordedEvent(Done);
          if (!Blocking) {
            ASSERT_NE(Done, nullptr);
            EXPECT_EQ(urEventWait(1, &Done), UR_RESULT_SUCCESS);
            EXPECT_EQ(statusOf(Done), UR_EVENT_STATUS_COMPLETE);
            EXPECT_EQ(commandOf(Done), UR_COMMAND_USM_MEMCPY_2D);
            EXPECT_EQ(urEventRelease(Done), UR_RESULT_SUCCESS);
          }
          std::vector<uint8_t> Expected(DstSize, Padding);
          for (size_t Row = 0; Row < S.Height; ++Row)
            for (size_t X = 0; X < S.Width; ++X)
              Expected[S.DstOffset + Row * S.DstPitch + X] =
                  Source[S.SrcOffset + Row * S.SrcPitch + X];
          EXPECT_EQ(readBack(Dst, DstSize), Expected);
        }
    }
}

// A fill of each pattern size (1 to 128 bytes, and wider), rows wider apart than their
// width, starting inside the allocation; rows that start inside the pattern (the pattern
// tiles the rows' bytes one row after the other, as UR's CTS reads it) and a start that
// is not aligned to the pattern. Every kind of the device's USM.
TEST_P(UrUsm2D, FillsRowsWithEveryPatternSize) {
  if (!contextAnswers(UR_CONTEXT_INFO_USM_FILL2D_SUPPORT))
    GTEST_SKIP() << "the device has no USM (UR_CONTEXT_INFO_USM_FILL2D_SUPPORT is false)";
  struct Shape {
    size_t PatternSize, Width, Height, Pitch, Offset;
  };
  const Shape Shapes[] = {{1, 57, 5, 64, 3},     {2, 40, 4, 48, 2},      {4, 256, 35, 1024, 8},
                          {8, 64, 3, 72, 16},    {16, 48, 6, 50, 0},     {64, 128, 3, 200, 64},
                          {128, 256, 4, 260, 0}, {256, 512, 2, 600, 0},  {8, 12, 4, 20, 0},
                          {4, 16, 3, 24, 1},     {1024, 256, 4, 300, 0}, {16, 32, 4, 32, 4}};
  for (const Kind K : usmKinds())
    for (const Shape &S : Shapes) {
      SCOPED_TRACE(std::string(kindName(K)) + ", pattern " + std::to_string(S.PatternSize) +
                   ", width " + std::to_string(S.Width) + ", height " + std::to_string(S.Height) +
                   ", pitch " + std::to_string(S.Pitch) + ", offset " + std::to_string(S.Offset));
      const size_t Size = S.Offset + S.Pitch * S.Height;
      void *Memory = allocate(K, Size);
      ASSERT_NE(Memory, nullptr);
      std::vector<uint8_t> Pattern(S.PatternSize);
      for (size_t I = 0; I < Pattern.size(); ++I)
        Pattern[I] = byteAt(I, static_cast<uint8_t>(S.PatternSize));
      ur_event_handle_t Done = nullptr;
      ASSERT_EQ(urEnqueueUSMFill2D(Q, static_cast<char *>(Memory) + S.Offset, S.Pitch,
                                   S.PatternSize, Pattern.data(), S.Width, S.Height, 0, nullptr,
                                   &Done),
                UR_RESULT_SUCCESS)
          << urLastError(Platform);
      nameUnrecordedEvent(Done);
      Pattern.assign(Pattern.size(), 0); // the caller's pattern may change once enqueued
      ASSERT_NE(Done, nullptr);
      EXPECT_EQ(urEventWait(1, &Done), UR_RESULT_SUCCESS);
      EXPECT_EQ(commandOf(Done), UR_COMMAND_USM_FILL_2D);
      EXPECT_EQ(urEventRelease(Done), UR_RESULT_SUCCESS);
      std::vector<uint8_t> Expected(Size, Padding);
      for (size_t Row = 0; Row < S.Height; ++Row)
        for (size_t X = 0; X < S.Width; ++X)
          Expected[S.Offset + Row * S.Pitch + X] =
              byteAt((Row * S.Width + X) % S.PatternSize, static_cast<uint8_t>(S.PatternSize));
      EXPECT_EQ(readBack(Memory, Size), Expected);
    }
}

// Wait lists order the 2D commands: a fill, a copy that waits for its event, a blocking
// copy back that waits for the copy's; each event says its command and completes.
TEST_P(UrUsm2D, WaitListsOrderTheCommands) {
  if (!contextAnswers(UR_CONTEXT_INFO_USM_MEMCPY2D_SUPPORT))
    GTEST_SKIP() << "the device has no USM (UR_CONTEXT_INFO_USM_MEMCPY2D_SUPPORT is false)";
  const Kind K = usmKinds().front();
  constexpr size_t Width = 24, Height = 16, Pitch = 32;
  void *A = allocate(K, Pitch * Height);
  void *B = allocate(K, Pitch * Height);
  ASSERT_TRUE(A != nullptr && B != nullptr);
  const uint32_t Value = 0x01020304;
  ur_event_handle_t Filled = nullptr, Copied = nullptr;
  ASSERT_EQ(
      urEnqueueUSMFill2D(Q, A, Pitch, sizeof(Value), &Value, Width, Height, 0, nullptr, &Filled),
      UR_RESULT_SUCCESS)
      << urLastError(Platform);
  nameUnrecordedEvent(Filled);
  ASSERT_EQ(urEnqueueUSMMemcpy2D(Q, false, B, Pitch, A, Pitch, Width, Height, 1, &Filled, &Copied),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  nameUnrecordedEvent(Copied);
  std::vector<uint8_t> Back(Width * Height, 0);
  ASSERT_EQ(urEnqueueUSMMemcpy2D(Q, true, Back.data(), Width, B, Pitch, Width, Height, 1, &Copied,
                                 nullptr),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  EXPECT_EQ(statusOf(Filled), UR_EVENT_STATUS_COMPLETE);
  EXPECT_EQ(statusOf(Copied), UR_EVENT_STATUS_COMPLETE);
  std::vector<uint8_t> Expected(Width * Height);
  for (size_t I = 0; I < Expected.size(); ++I)
    Expected[I] = reinterpret_cast<const uint8_t *>(&Value)[I % sizeof(Value)];
  EXPECT_EQ(Back, Expected);
  EXPECT_EQ(urEventRelease(Filled), UR_RESULT_SUCCESS);
  EXPECT_EQ(urEventRelease(Copied), UR_RESULT_SUCCESS);
}

// Bad input answers UR's codes in UR's order, each with a message (a null queue is the
// loader's to refuse: it reads the handle's table first).
TEST_P(UrUsm2D, RefusesBadInputWithTheSpecsCodes) {
  if (!contextAnswers(UR_CONTEXT_INFO_USM_MEMCPY2D_SUPPORT))
    GTEST_SKIP() << "the device has no USM (UR_CONTEXT_INFO_USM_MEMCPY2D_SUPPORT is false)";
  const Kind K = usmKinds().front();
  constexpr size_t Pitch = 16, Width = 16, Height = 16;
  void *A = allocate(K, Pitch * Height);
  void *B = allocate(K, Pitch * Height);
  ASSERT_TRUE(A != nullptr && B != nullptr);
  const uint32_t Pattern = 7;
  const auto Copy = [&](void *Dst, size_t DstPitch, const void *Src, size_t SrcPitch, size_t W,
                        size_t H, uint32_t NumWaits = 0, const ur_event_handle_t *Waits = nullptr) {
    return urEnqueueUSMMemcpy2D(Q, true, Dst, DstPitch, Src, SrcPitch, W, H, NumWaits, Waits,
                                nullptr);
  };
  const auto Fill = [&](void *Ptr, size_t P, size_t PatternSize, const void *Bytes, size_t W,
                        size_t H, uint32_t NumWaits = 0, const ur_event_handle_t *Waits = nullptr) {
    return urEnqueueUSMFill2D(Q, Ptr, P, PatternSize, Bytes, W, H, NumWaits, Waits, nullptr);
  };
  const auto Expect = [&](ur_result_t Expected, ur_result_t Actual, const char *What) {
    EXPECT_EQ(Actual, Expected) << What;
    // Under UR's validation layer the layer refuses first, with the same code, and the
    // adapter says nothing.
    if (Actual != UR_RESULT_SUCCESS && !leakCheckerOn()) {
      EXPECT_FALSE(urLastError(Platform).empty()) << What;
    }
  };
  Expect(UR_RESULT_ERROR_INVALID_NULL_POINTER, Copy(nullptr, Pitch, A, Pitch, Width, Height),
         "copy: null destination");
  Expect(UR_RESULT_ERROR_INVALID_NULL_POINTER, Copy(B, Pitch, nullptr, Pitch, Width, Height),
         "copy: null source");
  Expect(UR_RESULT_ERROR_INVALID_SIZE, Copy(B, 0, A, Pitch, Width, Height), "copy: dstPitch 0");
  Expect(UR_RESULT_ERROR_INVALID_SIZE, Copy(B, Pitch, A, 0, Width, Height), "copy: srcPitch 0");
  Expect(UR_RESULT_ERROR_INVALID_SIZE, Copy(B, Pitch, A, Pitch, Width, 0), "copy: height 0");
  Expect(UR_RESULT_ERROR_INVALID_SIZE, Copy(B, Pitch - 1, A, Pitch, Width, Height),
         "copy: dstPitch below the width");
  Expect(UR_RESULT_ERROR_INVALID_SIZE, Copy(B, Pitch, A, Pitch - 1, Width, Height),
         "copy: srcPitch below the width");
  Expect(UR_RESULT_ERROR_INVALID_SIZE, Copy(B, Pitch + 1, A, Pitch, Width, Height),
         "copy: dstPitch * height past the destination's allocation");
  Expect(UR_RESULT_ERROR_INVALID_SIZE,
         Copy(static_cast<char *>(B) + 1, Pitch, A, Pitch, Width, Height),
         "copy: rows from inside the destination's allocation past its end");
  Expect(UR_RESULT_ERROR_INVALID_SIZE, Copy(B, Pitch, A, Pitch + 1, Width, Height),
         "copy: srcPitch * height past the source's allocation");
  Expect(UR_RESULT_ERROR_INVALID_EVENT_WAIT_LIST, Copy(B, Pitch, A, Pitch, Width, Height, 1),
         "copy: one event, no list");
  ur_event_handle_t Event = nullptr;
  ASSERT_EQ(urEnqueueEventsWait(Q, 0, nullptr, &Event), UR_RESULT_SUCCESS);
  Expect(UR_RESULT_ERROR_INVALID_EVENT_WAIT_LIST,
         Copy(B, Pitch, A, Pitch, Width, Height, 0, &Event), "copy: a list of no events");
  ur_event_handle_t NullEvent = nullptr;
  Expect(UR_RESULT_ERROR_INVALID_EVENT_WAIT_LIST,
         Copy(B, Pitch, A, Pitch, Width, Height, 1, &NullEvent), "copy: a null event");
  Expect(UR_RESULT_SUCCESS, Copy(B, Pitch, A, Pitch, 0, Height),
         "copy: width 0 (nothing to copy; the spec lists no error)");

  Expect(UR_RESULT_ERROR_INVALID_NULL_POINTER,
         Fill(nullptr, Pitch, sizeof(Pattern), &Pattern, Width, Height), "fill: null memory");
  Expect(UR_RESULT_ERROR_INVALID_NULL_POINTER,
         Fill(A, Pitch, sizeof(Pattern), nullptr, Width, Height), "fill: null pattern");
  Expect(UR_RESULT_ERROR_INVALID_SIZE, Fill(A, 0, sizeof(Pattern), &Pattern, Width, Height),
         "fill: pitch 0");
  Expect(UR_RESULT_ERROR_INVALID_SIZE, Fill(A, Width - 1, sizeof(Pattern), &Pattern, Width, Height),
         "fill: pitch below the width");
  Expect(UR_RESULT_ERROR_INVALID_SIZE, Fill(A, Pitch, sizeof(Pattern), &Pattern, 0, Height),
         "fill: width 0");
  Expect(UR_RESULT_ERROR_INVALID_SIZE, Fill(A, Pitch, sizeof(Pattern), &Pattern, Width, 0),
         "fill: height 0");
  Expect(UR_RESULT_ERROR_INVALID_SIZE, Fill(A, Pitch, 0, &Pattern, Width, Height),
         "fill: pattern size 0");
  Expect(UR_RESULT_ERROR_INVALID_SIZE, Fill(A, Pitch, 3, &Pattern, Width, Height),
         "fill: pattern size not a power of two");
  Expect(UR_RESULT_ERROR_INVALID_SIZE, Fill(A, Pitch, 32, &Pattern, Width, 1),
         "fill: pattern larger than the rows");
  Expect(UR_RESULT_ERROR_INVALID_SIZE,
         Fill(A, Pitch, sizeof(Pattern), &Pattern, Width - 1, Height - 1),
         "fill: width * height not a multiple of the pattern");
  Expect(UR_RESULT_ERROR_INVALID_SIZE,
         Fill(A, Pitch * Height + 1, sizeof(Pattern), &Pattern, Width, 1),
         "fill: pitch * height past the allocation (one row)");
  Expect(UR_RESULT_ERROR_INVALID_SIZE,
         Fill(A, Pitch * Height + 1, sizeof(Pattern), &Pattern, 4, Height),
         "fill: pitch * height past the allocation (one column)");
  Expect(UR_RESULT_ERROR_INVALID_EVENT_WAIT_LIST,
         Fill(A, Pitch, sizeof(Pattern), &Pattern, Width, Height, 1), "fill: one event, no list");
  Expect(UR_RESULT_ERROR_INVALID_EVENT_WAIT_LIST,
         Fill(A, Pitch, sizeof(Pattern), &Pattern, Width, Height, 0, &Event),
         "fill: a list of no events");
  Expect(UR_RESULT_ERROR_INVALID_EVENT_WAIT_LIST,
         Fill(A, Pitch, sizeof(Pattern), &Pattern, Width, Height, 1, &NullEvent),
         "fill: a null event");
  EXPECT_EQ(urEventRelease(Event), UR_RESULT_SUCCESS);
}

// A recorded timestamp on a queue without profiling: QUEUED = SUBMIT, START = END, later
// than the one before; the queue's other events stay without timing. Devices that cannot
// record one say so, and the entry point refuses.
TEST_P(UrUsm2D, RecordsTimestampsWhereTheDeviceCan) {
  ur_bool_t Supported = false;
  ASSERT_EQ(urDeviceGetInfo(Dev, UR_DEVICE_INFO_TIMESTAMP_RECORDING_SUPPORT_EXP, sizeof(Supported),
                            &Supported, nullptr),
            UR_RESULT_SUCCESS);
  ur_event_handle_t First = nullptr;
  const ur_result_t Recorded = urEnqueueTimestampRecordingExp(Q, false, 0, nullptr, &First);
  if (!Supported) {
    EXPECT_EQ(Recorded, UR_RESULT_ERROR_UNSUPPORTED_FEATURE);
    EXPECT_FALSE(urLastError(Platform).empty());
    GTEST_SKIP() << "UR_DEVICE_INFO_TIMESTAMP_RECORDING_SUPPORT_EXP is false: the backend has "
                    "no device timer a queue without profiling can record (CUDA, HIP and Level "
                    "Zero do)";
  }
  ASSERT_EQ(Recorded, UR_RESULT_SUCCESS) << urLastError(Platform);
  nameUnrecordedEvent(First);
  EXPECT_EQ(urEnqueueTimestampRecordingExp(Q, false, 0, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_NULL_POINTER);
  ur_event_handle_t Ordinary = nullptr;
  const uint8_t Zero = 0;
  void *Memory = allocate(usmKinds().front(), 1 << 20);
  ASSERT_NE(Memory, nullptr);
  ASSERT_EQ(urEnqueueUSMFill(Q, Memory, 1, &Zero, 1 << 20, 1, &First, &Ordinary),
            UR_RESULT_SUCCESS);
  ur_event_handle_t Second = nullptr;
  ASSERT_EQ(urEnqueueTimestampRecordingExp(Q, true, 1, &Ordinary, &Second), UR_RESULT_SUCCESS)
      << urLastError(Platform);
  nameUnrecordedEvent(Second);
  EXPECT_EQ(statusOf(Second), UR_EVENT_STATUS_COMPLETE);
  EXPECT_EQ(commandOf(Second), UR_COMMAND_TIMESTAMP_RECORDING_EXP);
  const auto point = [&](ur_event_handle_t Event, ur_profiling_info_t Name) {
    uint64_t Value = 0;
    EXPECT_EQ(urEventGetProfilingInfo(Event, Name, sizeof(Value), &Value, nullptr),
              UR_RESULT_SUCCESS)
        << urLastError(Platform);
    return Value;
  };
  uint64_t Previous = 0;
  for (ur_event_handle_t Event : {First, Second}) {
    const uint64_t Queued = point(Event, UR_PROFILING_INFO_COMMAND_QUEUED);
    const uint64_t Start = point(Event, UR_PROFILING_INFO_COMMAND_START);
    EXPECT_GT(Queued, 0u);
    EXPECT_EQ(point(Event, UR_PROFILING_INFO_COMMAND_SUBMIT), Queued);
    EXPECT_EQ(point(Event, UR_PROFILING_INFO_COMMAND_END), Start);
    EXPECT_GE(Start, Queued);
    EXPECT_GE(Start, Previous);
    Previous = Start;
  }
  uint64_t Untimed = 0;
  EXPECT_EQ(urEventGetProfilingInfo(Ordinary, UR_PROFILING_INFO_COMMAND_START, sizeof(Untimed),
                                    &Untimed, nullptr),
            UR_RESULT_ERROR_PROFILING_INFO_NOT_AVAILABLE);
  for (ur_event_handle_t Event : {First, Ordinary, Second})
    EXPECT_EQ(urEventRelease(Event), UR_RESULT_SUCCESS);
}

// Cooperative launches where the device has them: the capability, the group count (fewer
// groups with more local memory each) and a launch that runs; elsewhere both refuse.
TEST_P(UrUsm2D, LaunchesCooperativelyWhereTheDeviceCan) {
  ur_kernel_launch_properties_flags_t Capabilities = 0;
  ASSERT_EQ(urDeviceGetInfo(Dev, UR_DEVICE_INFO_KERNEL_LAUNCH_CAPABILITIES, sizeof(Capabilities),
                            &Capabilities, nullptr),
            UR_RESULT_SUCCESS);
  const bool Cooperative = (Capabilities & UR_KERNEL_LAUNCH_PROPERTIES_FLAG_COOPERATIVE) != 0;
  if (!executesKernels()) {
    EXPECT_FALSE(Cooperative);
    GTEST_SKIP() << DGLINK_NO_KERNEL_EXECUTION_REASON;
  }
  std::string Format, WhyNot;
  if (!chooseFormat(Format, WhyNot)) {
    EXPECT_FALSE(Cooperative);
    GTEST_SKIP() << WhyNot;
  }
  ProgramHandle Program;
  KernelHandle Fill;
  ASSERT_NO_FATAL_FAILURE(buildProgram("pattern", Format, Program));
  ASSERT_NO_FATAL_FAILURE(createKernel(Program.get(), "fill_pattern", Fill));
  const ur_kernel_handle_t K = asUr(Fill.get());
  const size_t Local = 32;
  uint32_t Groups = 0;
  const ur_result_t Suggested =
      urKernelSuggestMaxCooperativeGroupCount(K, Dev, 1, &Local, 0, &Groups);
  constexpr size_t Count = 256;
  void *Out = allocate(usmKinds().front(), Count * sizeof(int32_t));
  ASSERT_NE(Out, nullptr);
  ur_exp_kernel_arg_properties_t Arg{};
  Arg.stype = UR_STRUCTURE_TYPE_EXP_KERNEL_ARG_PROPERTIES;
  Arg.type = UR_EXP_KERNEL_ARG_TYPE_POINTER;
  Arg.index = 0;
  Arg.size = sizeof(void *);
  Arg.value.pointer = Out;
  const ur_kernel_launch_ext_properties_t Flags{UR_STRUCTURE_TYPE_KERNEL_LAUNCH_EXT_PROPERTIES,
                                                nullptr, UR_KERNEL_LAUNCH_FLAG_COOPERATIVE};
  const size_t Global = Count;
  const ur_result_t Launched = urEnqueueKernelLaunchWithArgsExp(
      Q, K, 1, nullptr, &Global, &Local, 1, &Arg, &Flags, 0, nullptr, nullptr);
  if (!Cooperative) {
    EXPECT_EQ(Suggested, UR_RESULT_ERROR_UNSUPPORTED_FEATURE);
    EXPECT_EQ(Launched, UR_RESULT_ERROR_UNSUPPORTED_FEATURE);
    EXPECT_FALSE(urLastError(Platform).empty());
    GTEST_SKIP() << "KERNEL_LAUNCH_CAPABILITIES has no COOPERATIVE: the driver has no "
                    "cooperative launches (CUDA has)";
  }
  ASSERT_EQ(Suggested, UR_RESULT_SUCCESS) << urLastError(Platform);
  EXPECT_GE(Groups, Count / Local) << "the device holds 8 groups of 32 at once";
  uint64_t LocalMemory = 0;
  ASSERT_EQ(urDeviceGetInfo(Dev, UR_DEVICE_INFO_LOCAL_MEM_SIZE, sizeof(LocalMemory), &LocalMemory,
                            nullptr),
            UR_RESULT_SUCCESS);
  uint32_t Fewer = 0;
  EXPECT_EQ(urKernelSuggestMaxCooperativeGroupCount(K, Dev, 1, &Local, LocalMemory / 2, &Fewer),
            UR_RESULT_SUCCESS);
  EXPECT_LE(Fewer, Groups);
  EXPECT_EQ(urKernelSuggestMaxCooperativeGroupCount(K, Dev, 4, &Local, 0, &Fewer),
            UR_RESULT_ERROR_INVALID_WORK_DIMENSION);
  ASSERT_EQ(Launched, UR_RESULT_SUCCESS) << urLastError(Platform);
  ASSERT_EQ(urQueueFinish(Q), UR_RESULT_SUCCESS);
  std::vector<int32_t> Values(Count);
  ASSERT_EQ(
      urEnqueueUSMMemcpy(Q, true, Values.data(), Out, Count * sizeof(int32_t), 0, nullptr, nullptr),
      UR_RESULT_SUCCESS);
  for (size_t I = 0; I < Count; ++I)
    EXPECT_EQ(Values[I], static_cast<int32_t>(I) * 3 + 1) << "element " << I;
}

DGLINK_INSTANTIATE_FOR_DEVICES(UrUsm2D);

} // namespace
} // namespace dglink::conformance
