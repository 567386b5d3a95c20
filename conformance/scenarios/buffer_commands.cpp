// Buffer commands beyond read and write: copies between buffers, fills with every
// pattern size, rectangles with pitches, sub-buffers that share their parent's bytes,
// buffers over the caller's memory, the queue's emptiness, event profiling and callbacks
// (exactly once, from many threads). Each writes known bytes, runs the command, reads
// back and compares; bad input gets the contract's code and a message.
#include "fixtures.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <numeric>
#include <thread>

namespace dglink::conformance {
namespace {

uint8_t byteAt(size_t I) { return static_cast<uint8_t>(I * 7 + 3); }

class BufferCommands : public QueueTest {
protected:
  void makeBuffer(size_t Size, MemHandle &Out, pi_mem_flags Flags = PI_MEM_FLAGS_ACCESS_RW) {
    ASSERT_PI_SUCCESS(piMemBufferCreate(Context.get(), Flags, Size, nullptr, Out.out()));
  }
  void write(pi_mem Buffer, const std::vector<uint8_t> &Bytes, size_t Offset = 0) {
    ASSERT_PI_SUCCESS(piEnqueueMemBufferWrite(Queue.get(), Buffer, PI_TRUE, Offset, Bytes.size(),
                                              Bytes.data(), 0, nullptr, nullptr));
  }
  std::vector<uint8_t> read(pi_mem Buffer, size_t Size, size_t Offset = 0) {
    std::vector<uint8_t> Bytes(Size, 0xCD);
    EXPECT_PI_SUCCESS(piEnqueueMemBufferRead(Queue.get(), Buffer, PI_TRUE, Offset, Size,
                                             Bytes.data(), 0, nullptr, nullptr));
    return Bytes;
  }
  static std::vector<uint8_t> pattern(size_t Size, size_t Salt = 0) {
    std::vector<uint8_t> Bytes(Size);
    for (size_t I = 0; I < Size; ++I)
      Bytes[I] = byteAt(I + Salt);
    return Bytes;
  }
  pi_command_type commandOf(pi_event Event) {
    pi_command_type Command = PI_COMMAND_TYPE_MARKER;
    EXPECT_PI_SUCCESS(
        piEventGetInfo(Event, PI_EVENT_INFO_COMMAND_TYPE, sizeof(Command), &Command, nullptr));
    return Command;
  }
  size_t subBufferAlignment() {
    // The largest base-address alignment dglink's backends ask for: OpenCL's
    // CL_DEVICE_MEM_BASE_ADDR_ALIGN (PoCL: 128 bytes; NVIDIA: 4096 bits), 128 elsewhere.
    return 4096;
  }
  bool levelZero() { return deviceString(PI_EXT_DEVICE_INFO_BACKEND_NAME) == "level_zero"; }
};
DGLINK_INSTANTIATE_FOR_DEVICES(BufferCommands);

TEST_P(BufferCommands, CopyBetweenBuffers) {
  MemHandle Source, Destination;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(1024, Source));
  ASSERT_NO_FATAL_FAILURE(makeBuffer(1024, Destination));
  ASSERT_NO_FATAL_FAILURE(write(Source.get(), pattern(1024)));
  ASSERT_NO_FATAL_FAILURE(write(Destination.get(), std::vector<uint8_t>(1024, 0xEE)));
  EventHandle Copied;
  ASSERT_PI_SUCCESS(piEnqueueMemBufferCopy(Queue.get(), Source.get(), Destination.get(), 100, 300,
                                           500, 0, nullptr, Copied.out()));
  const pi_event Raw = Copied.get();
  ASSERT_PI_SUCCESS(piEventsWait(1, &Raw));
  EXPECT_EQ(commandOf(Raw), PI_COMMAND_TYPE_MEM_BUFFER_COPY);
  const std::vector<uint8_t> Bytes = read(Destination.get(), 1024);
  for (size_t I = 0; I < 1024; ++I) {
    const uint8_t Expected = I >= 300 && I < 800 ? byteAt(I - 300 + 100) : 0xEE;
    ASSERT_EQ(Bytes[I], Expected) << "byte " << I;
  }
}

// Every power of two up to 512 bytes (above 128, wider than OpenCL's fill takes, the
// adapter tiles the pattern itself); a pattern of another size is refused.
TEST_P(BufferCommands, FillWithEveryPatternSize) {
  constexpr size_t BufferSize = 4096;
  for (size_t PatternSize = 1; PatternSize <= 512; PatternSize *= 2) {
    SCOPED_TRACE("pattern of " + std::to_string(PatternSize) + " bytes");
    MemHandle Buffer;
    ASSERT_NO_FATAL_FAILURE(makeBuffer(BufferSize, Buffer));
    ASSERT_NO_FATAL_FAILURE(write(Buffer.get(), std::vector<uint8_t>(BufferSize, 0xEE)));
    const std::vector<uint8_t> Pattern = pattern(PatternSize, PatternSize);
    const size_t Offset = PatternSize * 2;
    const size_t Size = PatternSize * 5;
    EventHandle Filled;
    ASSERT_PI_SUCCESS(piEnqueueMemBufferFill(Queue.get(), Buffer.get(), Pattern.data(), PatternSize,
                                             Offset, Size, 0, nullptr, Filled.out()));
    EXPECT_EQ(commandOf(Filled.get()), PI_COMMAND_TYPE_MEM_BUFFER_FILL);
    const std::vector<uint8_t> Bytes = read(Buffer.get(), BufferSize);
    for (size_t I = 0; I < BufferSize; ++I) {
      const uint8_t Expected =
          I >= Offset && I < Offset + Size ? Pattern[(I - Offset) % PatternSize] : 0xEE;
      ASSERT_EQ(Bytes[I], Expected) << "byte " << I;
    }
  }
  MemHandle Buffer;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(BufferSize, Buffer));
  const uint8_t Three[3] = {1, 2, 3};
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_VALUE, "a power of two is needed",
      piEnqueueMemBufferFill(Queue.get(), Buffer.get(), Three, 3, 0, 96, 0, nullptr, nullptr));
}

// A 3D rectangle written from a host layout with its own pitches, read back into a
// third layout, and copied between buffers; every byte outside the rectangles keeps
// its value.
TEST_P(BufferCommands, RectanglesWithPitches) {
  constexpr size_t BufferRow = 40, BufferSlice = BufferRow * 12, BufferSize = BufferSlice * 4;
  constexpr size_t HostRow = 24, HostSlice = HostRow * 9, HostSize = HostSlice * 3;
  pi_buff_rect_region_struct Region{13, 5, 2};
  pi_buff_rect_offset_struct BufferOrigin{3, 2, 1};
  pi_buff_rect_offset_struct HostOrigin{5, 1, 0};
  const auto bufferAt = [&](size_t X, size_t Y, size_t Z, const pi_buff_rect_offset_struct &O) {
    return (O.x_bytes + X) + (O.y_scalar + Y) * BufferRow + (O.z_scalar + Z) * BufferSlice;
  };
  const auto hostAt = [&](size_t X, size_t Y, size_t Z) {
    return (HostOrigin.x_bytes + X) + (HostOrigin.y_scalar + Y) * HostRow +
           (HostOrigin.z_scalar + Z) * HostSlice;
  };
  MemHandle Buffer, Other;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(BufferSize, Buffer));
  ASSERT_NO_FATAL_FAILURE(makeBuffer(BufferSize, Other));
  ASSERT_NO_FATAL_FAILURE(write(Buffer.get(), std::vector<uint8_t>(BufferSize, 0xEE)));
  ASSERT_NO_FATAL_FAILURE(write(Other.get(), std::vector<uint8_t>(BufferSize, 0x11)));
  const std::vector<uint8_t> Host = pattern(HostSize);
  ASSERT_PI_SUCCESS(piEnqueueMemBufferWriteRect(
      Queue.get(), Buffer.get(), PI_TRUE, &BufferOrigin, &HostOrigin, &Region, BufferRow,
      BufferSlice, HostRow, HostSlice, Host.data(), 0, nullptr, nullptr));
  std::vector<uint8_t> Expected(BufferSize, 0xEE);
  for (size_t Z = 0; Z < Region.depth_scalar; ++Z)
    for (size_t Y = 0; Y < Region.height_scalar; ++Y)
      for (size_t X = 0; X < Region.width_bytes; ++X)
        Expected[bufferAt(X, Y, Z, BufferOrigin)] = Host[hostAt(X, Y, Z)];
  ASSERT_EQ(read(Buffer.get(), BufferSize), Expected) << "after piEnqueueMemBufferWriteRect";

  // Back into a tight host layout (pitches 0: the region's own).
  std::vector<uint8_t> Tight(Region.width_bytes * Region.height_scalar * Region.depth_scalar, 0);
  pi_buff_rect_offset_struct Zero{0, 0, 0};
  ASSERT_PI_SUCCESS(piEnqueueMemBufferReadRect(Queue.get(), Buffer.get(), PI_TRUE, &BufferOrigin,
                                               &Zero, &Region, BufferRow, BufferSlice, 0, 0,
                                               Tight.data(), 0, nullptr, nullptr));
  for (size_t Z = 0; Z < Region.depth_scalar; ++Z)
    for (size_t Y = 0; Y < Region.height_scalar; ++Y)
      for (size_t X = 0; X < Region.width_bytes; ++X)
        ASSERT_EQ(Tight[X + Y * Region.width_bytes + Z * Region.width_bytes * Region.height_scalar],
                  Host[hostAt(X, Y, Z)])
            << "read back at " << X << ", " << Y << ", " << Z;

  // Buffer to buffer, to another origin.
  pi_buff_rect_offset_struct OtherOrigin{20, 6, 2};
  EventHandle Copied;
  ASSERT_PI_SUCCESS(piEnqueueMemBufferCopyRect(
      Queue.get(), Buffer.get(), Other.get(), &BufferOrigin, &OtherOrigin, &Region, BufferRow,
      BufferSlice, BufferRow, BufferSlice, 0, nullptr, Copied.out()));
  EXPECT_EQ(commandOf(Copied.get()), PI_COMMAND_TYPE_MEM_BUFFER_COPY_RECT);
  std::vector<uint8_t> OtherExpected(BufferSize, 0x11);
  for (size_t Z = 0; Z < Region.depth_scalar; ++Z)
    for (size_t Y = 0; Y < Region.height_scalar; ++Y)
      for (size_t X = 0; X < Region.width_bytes; ++X)
        OtherExpected[bufferAt(X, Y, Z, OtherOrigin)] = Host[hostAt(X, Y, Z)];
  EXPECT_EQ(read(Other.get(), BufferSize), OtherExpected) << "after piEnqueueMemBufferCopyRect";
}

TEST_P(BufferCommands, BadRangesPatternsAndPitchesAreRefused) {
  MemHandle Buffer, Other;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(256, Buffer));
  ASSERT_NO_FATAL_FAILURE(makeBuffer(256, Other));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "past the buffer",
                         piEnqueueMemBufferCopy(Queue.get(), Buffer.get(), Other.get(), 200, 0, 57,
                                                0, nullptr, nullptr));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "past the buffer",
                         piEnqueueMemBufferCopy(Queue.get(), Buffer.get(), Other.get(), 0, SIZE_MAX,
                                                2, 0, nullptr, nullptr));
  EXPECT_PI_ERROR(PI_ERROR_MEM_COPY_OVERLAP,
                  piEnqueueMemBufferCopy(Queue.get(), Buffer.get(), Buffer.get(), 0, 16, 32, 0,
                                         nullptr, nullptr));
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_MEM_OBJECT, "SrcBuffer",
      piEnqueueMemBufferCopy(Queue.get(), nullptr, Other.get(), 0, 0, 4, 0, nullptr, nullptr));
  const uint32_t Word = 0x01020304;
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_VALUE, "pattern",
      piEnqueueMemBufferFill(Queue.get(), Buffer.get(), &Word, 3, 0, 12, 0, nullptr, nullptr));
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_VALUE, "pattern",
      piEnqueueMemBufferFill(Queue.get(), Buffer.get(), &Word, 4, 2, 8, 0, nullptr, nullptr));
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_VALUE, "past the buffer",
      piEnqueueMemBufferFill(Queue.get(), Buffer.get(), &Word, 4, 252, 8, 0, nullptr, nullptr));
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_VALUE, "Pattern",
      piEnqueueMemBufferFill(Queue.get(), Buffer.get(), nullptr, 4, 0, 8, 0, nullptr, nullptr));
  std::vector<uint8_t> Host(256);
  pi_buff_rect_offset_struct Zero{0, 0, 0};
  pi_buff_rect_region_struct Region{16, 4, 1};
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "row pitch",
                         piEnqueueMemBufferReadRect(Queue.get(), Buffer.get(), PI_TRUE, &Zero,
                                                    &Zero, &Region, 8, 0, 0, 0, Host.data(), 0,
                                                    nullptr, nullptr));
  pi_buff_rect_region_struct TooTall{16, 17, 1};
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "past the buffer",
                         piEnqueueMemBufferWriteRect(Queue.get(), Buffer.get(), PI_TRUE, &Zero,
                                                     &Zero, &TooTall, 16, 0, 0, 0, Host.data(), 0,
                                                     nullptr, nullptr));
  pi_buff_rect_region_struct Empty{16, 0, 1};
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "empty",
                         piEnqueueMemBufferCopyRect(Queue.get(), Buffer.get(), Other.get(), &Zero,
                                                    &Zero, &Empty, 0, 0, 0, 0, 0, nullptr,
                                                    nullptr));
  // Nothing was written by the refused commands.
  ASSERT_NO_FATAL_FAILURE(write(Buffer.get(), pattern(256)));
  EXPECT_EQ(read(Buffer.get(), 256), pattern(256));
}

TEST_P(BufferCommands, SubBuffersShareTheirParentsBytes) {
  const size_t Align = subBufferAlignment();
  MemHandle Parent;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(Align * 4, Parent));
  ASSERT_NO_FATAL_FAILURE(write(Parent.get(), std::vector<uint8_t>(Align * 4, 0xEE)));
  pi_buffer_region_struct Region{Align, Align * 2};
  MemHandle Sub;
  ASSERT_PI_SUCCESS(
      piMemBufferPartition(Parent.get(), 0, PI_BUFFER_CREATE_TYPE_REGION, &Region, Sub.out()));
  // Written through the view, seen in the parent at the view's origin.
  ASSERT_NO_FATAL_FAILURE(write(Sub.get(), pattern(64), 8));
  std::vector<uint8_t> Whole = read(Parent.get(), Align * 4);
  for (size_t I = 0; I < Whole.size(); ++I) {
    const bool Inside = I >= Align + 8 && I < Align + 8 + 64;
    ASSERT_EQ(Whole[I], Inside ? byteAt(I - Align - 8) : 0xEE) << "parent byte " << I;
  }
  // Written into the parent, seen through the view; a copy and a fill on the view stay
  // inside it.
  ASSERT_NO_FATAL_FAILURE(write(Parent.get(), pattern(32, 5), Align + 100));
  EXPECT_EQ(read(Sub.get(), 32, 100), pattern(32, 5));
  const uint16_t Half = 0xA55A;
  ASSERT_PI_SUCCESS(piEnqueueMemBufferFill(Queue.get(), Sub.get(), &Half, 2, Align * 2 - 16, 16, 0,
                                           nullptr, nullptr));
  Whole = read(Parent.get(), Align * 4);
  for (size_t I = Align * 3 - 16; I < Align * 3; I += 2)
    ASSERT_EQ(Whole[I] | (Whole[I + 1] << 8), 0xA55A) << "parent byte " << I;
  EXPECT_EQ(Whole[Align * 3], 0xEE) << "the fill stayed inside the sub-buffer";
  // The view keeps its parent's memory alive.
  pi_mem Kept = Sub.get();
  ASSERT_PI_SUCCESS(piMemRetain(Kept));
  Sub = MemHandle();
  Parent = MemHandle();
  EXPECT_EQ(read(Kept, 32, 100), pattern(32, 5));
  EXPECT_PI_SUCCESS(piMemRelease(Kept));
}

TEST_P(BufferCommands, BadSubBuffersAreRefused) {
  const size_t Align = subBufferAlignment();
  MemHandle Parent, ReadOnly, Sub;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(Align * 2, Parent));
  pi_buffer_region_struct Past{Align, Align + 1};
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_BUFFER_SIZE, "past the buffer",
      piMemBufferPartition(Parent.get(), 0, PI_BUFFER_CREATE_TYPE_REGION, &Past, Sub.out()));
  pi_buffer_region_struct Empty{0, 0};
  EXPECT_PI_ERROR(
      PI_ERROR_INVALID_BUFFER_SIZE,
      piMemBufferPartition(Parent.get(), 0, PI_BUFFER_CREATE_TYPE_REGION, &Empty, Sub.out()));
  pi_buffer_region_struct Odd{1, 16};
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_MISALIGNED_SUB_BUFFER_OFFSET, "alignment",
      piMemBufferPartition(Parent.get(), 0, PI_BUFFER_CREATE_TYPE_REGION, &Odd, Sub.out()));
  ASSERT_NO_FATAL_FAILURE(makeBuffer(Align * 2, ReadOnly, PI_MEM_FLAGS_ACCESS_READ_ONLY));
  pi_buffer_region_struct First{0, Align};
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "read only",
                         piMemBufferPartition(ReadOnly.get(), PI_MEM_FLAGS_ACCESS_RW,
                                              PI_BUFFER_CREATE_TYPE_REGION, &First, Sub.out()));
  EXPECT_FALSE(Sub) << "no sub-buffer was made";
  ASSERT_PI_SUCCESS(
      piMemBufferPartition(Parent.get(), 0, PI_BUFFER_CREATE_TYPE_REGION, &First, Sub.out()));
  MemHandle Nested;
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_MEM_OBJECT, "sub-buffer",
      piMemBufferPartition(Sub.get(), 0, PI_BUFFER_CREATE_TYPE_REGION, &First, Nested.out()));
}

TEST_P(BufferCommands, HostPointerBufferIsTheCallersMemory) {
  std::vector<uint8_t> Host = pattern(4096);
  MemHandle Buffer;
  const pi_result Made =
      piMemBufferCreate(Context.get(), PI_MEM_FLAGS_ACCESS_RW | PI_MEM_FLAGS_HOST_PTR_USE,
                        Host.size(), Host.data(), Buffer.out());
  if (Made == PI_ERROR_UNSUPPORTED_FEATURE && levelZero())
    GTEST_SKIP() << "this Level Zero driver has no zexDriverImportExternalPointer (the core "
                    "API has no call that makes the caller's memory a device's): "
                 << lastErrorMessage();
  ASSERT_PI_SUCCESS(Made);
  // What the host writes after creation is what the device reads.
  for (size_t I = 0; I < Host.size(); ++I)
    Host[I] = static_cast<uint8_t>(I & 0x0F);
  std::vector<uint8_t> Seen = read(Buffer.get(), Host.size());
  for (size_t I = 0; I < Seen.size(); ++I)
    ASSERT_EQ(Seen[I], I & 0x0F) << "byte " << I;
  // What a command wrote is what a read of the buffer returns.
  MemHandle Source;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(256, Source));
  ASSERT_NO_FATAL_FAILURE(write(Source.get(), pattern(256, 9)));
  ASSERT_PI_SUCCESS(piEnqueueMemBufferCopy(Queue.get(), Source.get(), Buffer.get(), 0, 512, 256, 0,
                                           nullptr, nullptr));
  Seen = read(Buffer.get(), 256, 512);
  EXPECT_EQ(Seen, pattern(256, 9));
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_HOST_PTR, "HostPtr",
      piMemBufferCreate(Context.get(), PI_MEM_FLAGS_HOST_PTR_USE, 64, nullptr, Source.out()));
}

// A buffer over host USM of the context is that memory on every backend (a driver that
// registers or imports the caller's memory refuses memory it pinned itself).
TEST_P(BufferCommands, HostPointerBufferOverHostUsmIsThatMemory) {
  pi_usm_capabilities HostUsm = 0;
  ASSERT_PI_SUCCESS(
      piDeviceGetInfo(Device, PI_DEVICE_INFO_USM_HOST_SUPPORT, sizeof(HostUsm), &HostUsm, nullptr));
  if (HostUsm == 0)
    GTEST_SKIP() << "device has no host USM (PI_DEVICE_INFO_USM_HOST_SUPPORT is 0)";
  constexpr size_t Bytes = 4096;
  UsmPointer Memory;
  ASSERT_PI_SUCCESS(piextUSMHostAlloc(Memory.out(Context.get()), Context.get(), nullptr, Bytes, 0));
  auto *Host = static_cast<uint8_t *>(Memory.get());
  std::memset(Host, 0x21, Bytes);
  {
    MemHandle Buffer;
    ASSERT_PI_SUCCESS(piMemBufferCreate(Context.get(),
                                        PI_MEM_FLAGS_ACCESS_RW | PI_MEM_FLAGS_HOST_PTR_USE, 1024,
                                        Host + 1024, Buffer.out()));
    for (size_t I = 0; I < 1024; ++I)
      Host[1024 + I] = static_cast<uint8_t>(I * 7);
    const std::vector<uint8_t> Read = read(Buffer.get(), 1024);
    for (size_t I = 0; I < Read.size(); ++I)
      ASSERT_EQ(Read[I], static_cast<uint8_t>(I * 7)) << "byte " << I;
    ASSERT_NO_FATAL_FAILURE(write(Buffer.get(), pattern(512, 3), 256));
    void *Mapped = nullptr;
    ASSERT_PI_SUCCESS(piEnqueueMemBufferMap(Queue.get(), Buffer.get(), PI_TRUE, PI_MAP_READ, 256,
                                            512, 0, nullptr, nullptr, &Mapped));
    ASSERT_EQ(Mapped, Host + 1024 + 256) << "the map is the caller's memory at the offset";
    const auto *Seen = static_cast<const uint8_t *>(Mapped);
    EXPECT_EQ(std::vector<uint8_t>(Seen, Seen + 512), pattern(512, 3));
    ASSERT_PI_SUCCESS(piEnqueueMemUnmap(Queue.get(), Buffer.get(), Mapped, 0, nullptr, nullptr));
  }
  for (size_t I = 0; I < 1024; ++I)
    ASSERT_EQ(Host[I], 0x21) << "byte " << I << " before the buffer changed";
}

TEST_P(BufferCommands, QueueIsEmptyOnceItsWorkCompleted) {
  MemHandle Buffer;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(64, Buffer));
  ASSERT_NO_FATAL_FAILURE(write(Buffer.get(), pattern(64)));
  ASSERT_PI_SUCCESS(piQueueFinish(Queue.get()));
  pi_bool Empty = PI_FALSE;
  ASSERT_PI_SUCCESS(
      piQueueGetInfo(Queue.get(), PI_EXT_QUEUE_INFO_EMPTY, sizeof(Empty), &Empty, nullptr));
  EXPECT_EQ(Empty, PI_TRUE);
}

TEST_P(BufferCommands, ProfilingTimesAreOrdered) {
  QueueHandle Profiling;
  ASSERT_PI_SUCCESS(
      piQueueCreate(Context.get(), Device, PI_QUEUE_FLAG_PROFILING_ENABLE, Profiling.out()));
  MemHandle Buffer, Other;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(1 << 16, Buffer));
  ASSERT_NO_FATAL_FAILURE(makeBuffer(1 << 16, Other));
  const std::vector<uint8_t> Bytes = pattern(1 << 16);
  EventHandle Events[4];
  ASSERT_PI_SUCCESS(piEnqueueMemBufferWrite(Profiling.get(), Buffer.get(), PI_FALSE, 0,
                                            Bytes.size(), Bytes.data(), 0, nullptr,
                                            Events[0].out()));
  ASSERT_PI_SUCCESS(piEnqueueMemBufferCopy(Profiling.get(), Buffer.get(), Other.get(), 0, 0,
                                           Bytes.size(), 0, nullptr, Events[1].out()));
  const uint32_t Word = 7;
  ASSERT_PI_SUCCESS(piEnqueueMemBufferFill(Profiling.get(), Other.get(), &Word, 4, 0, 4096, 0,
                                           nullptr, Events[2].out()));
  ASSERT_PI_SUCCESS(piEnqueueEventsWaitWithBarrier(Profiling.get(), 0, nullptr, Events[3].out()));
  pi_uint64 PreviousEnd = 0;
  const char *const Commands[4] = {"write", "copy", "fill", "barrier"};
  for (size_t Index = 0; Index < 4; ++Index) {
    EventHandle &Event = Events[Index];
    SCOPED_TRACE(std::string("the ") + Commands[Index] + "'s event");
    pi_uint64 Times[5] = {};
    for (int Point = 0; Point < 5; ++Point) {
      size_t Size = 0;
      ASSERT_PI_SUCCESS(piEventGetProfilingInfo(
          Event.get(), static_cast<pi_profiling_info>(PI_PROFILING_INFO_COMMAND_QUEUED + Point),
          sizeof(pi_uint64), &Times[Point], &Size));
      EXPECT_EQ(Size, sizeof(pi_uint64));
    }
    EXPECT_NE(Times[0], 0u);
    for (int Point = 1; Point < 5; ++Point)
      EXPECT_LE(Times[Point - 1], Times[Point]) << "profiling point " << Point;
    // In order: a command starts after the one before it ended.
    EXPECT_LE(PreviousEnd, Times[3] + 1) << "commands of an in-order queue";
    PreviousEnd = Times[3];
  }
  // The device's clock runs as the host's: two commands enqueued a host-timed pause apart
  // are at least the pause apart, and at most the host's time around both (a timer
  // converted with the wrong rate fails one bound).
  EventHandle Before, After;
  const auto HostStart = std::chrono::steady_clock::now();
  ASSERT_PI_SUCCESS(piEnqueueMemBufferWrite(Profiling.get(), Buffer.get(), PI_TRUE, 0, 64,
                                            Bytes.data(), 0, nullptr, Before.out()));
  constexpr auto Pause = std::chrono::milliseconds(30);
  std::this_thread::sleep_for(Pause);
  ASSERT_PI_SUCCESS(piEnqueueMemBufferWrite(Profiling.get(), Buffer.get(), PI_TRUE, 0, 64,
                                            Bytes.data(), 0, nullptr, After.out()));
  const auto HostNanoseconds =
      static_cast<pi_uint64>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now() - HostStart)
                                 .count());
  pi_uint64 First = 0, Second = 0;
  ASSERT_PI_SUCCESS(piEventGetProfilingInfo(Before.get(), PI_PROFILING_INFO_COMMAND_END,
                                            sizeof(First), &First, nullptr));
  ASSERT_PI_SUCCESS(piEventGetProfilingInfo(After.get(), PI_PROFILING_INFO_COMMAND_START,
                                            sizeof(Second), &Second, nullptr));
  ASSERT_LE(First, Second) << "the later command's start";
  const pi_uint64 Apart = Second - First;
  const auto PauseNanoseconds = static_cast<pi_uint64>(std::chrono::nanoseconds(Pause).count());
  EXPECT_GE(Apart, PauseNanoseconds * 9 / 10)
      << "the device's times of two commands a " << PauseNanoseconds << " ns pause apart";
  EXPECT_LE(Apart, HostNanoseconds + 1000000)
      << "the device's times are further apart than the host saw";
  // A queue without profiling answers no times.
  EventHandle Plain;
  ASSERT_PI_SUCCESS(piEnqueueMemBufferWrite(Queue.get(), Buffer.get(), PI_TRUE, 0, 64, Bytes.data(),
                                            0, nullptr, Plain.out()));
  pi_uint64 Time = 0;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_PROFILING_INFO_NOT_AVAILABLE, "PROFILING_ENABLE",
                         piEventGetProfilingInfo(Plain.get(), PI_PROFILING_INFO_COMMAND_START,
                                                 sizeof(Time), &Time, nullptr));
}

// Callbacks registered from many threads on events that are running and on events
// already complete: each runs exactly once, with the state it was registered for and
// its own event, also after the caller released the event.
TEST_P(BufferCommands, CallbacksRunExactlyOnceFromManyThreads) {
  constexpr size_t Threads = 8, PerThread = 6;
  struct Record {
    std::atomic<int> Calls{0};
    std::atomic<pi_event> Event{nullptr};
    pi_int32 State = PI_EVENT_COMPLETE;
    std::atomic<bool> StateRight{true};
  };
  std::vector<Record> Records(Threads * PerThread * 3);
  MemHandle Buffer;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(Threads * 1024, Buffer));
  const std::vector<uint8_t> Bytes = pattern(1024);
  std::atomic<int> Failures{0};
  const auto notify = [](pi_event Event, pi_int32 Status, void *Data) {
    auto &R = *static_cast<Record *>(Data);
    if (R.Event.load() != Event || Status != R.State)
      R.StateRight = false;
    R.Calls.fetch_add(1);
  };
  std::vector<std::thread> Workers;
  Workers.reserve(Threads);
  for (size_t T = 0; T < Threads; ++T)
    Workers.emplace_back([&, T] {
      for (size_t I = 0; I < PerThread; ++I) {
        pi_event Event = nullptr;
        if (piEnqueueMemBufferWrite(Queue.get(), Buffer.get(), PI_FALSE, T * 1024, 1024,
                                    Bytes.data(), 0, nullptr, &Event) != PI_SUCCESS) {
          Failures.fetch_add(1);
          continue;
        }
        if (I % 2 == 1) // half of them complete before the callbacks are set
          piEventsWait(1, &Event);
        const pi_int32 States[] = {PI_EVENT_COMPLETE, PI_EVENT_RUNNING, PI_EVENT_SUBMITTED};
        for (size_t S = 0; S < 3; ++S) {
          Record &R = Records[(T * PerThread + I) * 3 + S];
          R.Event = Event;
          R.State = States[S];
          if (piEventSetCallback(Event, States[S], +notify, &R) != PI_SUCCESS)
            Failures.fetch_add(1);
        }
        piEventRelease(Event); // the callbacks keep what they need
      }
    });
  for (std::thread &Worker : Workers)
    Worker.join();
  ASSERT_EQ(Failures.load(), 0) << lastErrorMessage();
  ASSERT_PI_SUCCESS(piQueueFinish(Queue.get()));
  const auto Deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  const auto allCalled = [&] {
    for (const Record &R : Records)
      if (R.Calls.load() == 0)
        return false;
    return true;
  };
  while (!allCalled() && std::chrono::steady_clock::now() < Deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20)); // a second call would show now
  for (size_t I = 0; I < Records.size(); ++I) {
    EXPECT_EQ(Records[I].Calls.load(), 1) << "callback " << I;
    EXPECT_TRUE(Records[I].StateRight.load()) << "callback " << I << " got another event or state";
  }
  pi_event Null = nullptr;
  EXPECT_PI_ERROR(PI_ERROR_INVALID_EVENT,
                  piEventSetCallback(Null, PI_EVENT_COMPLETE, +notify, nullptr));
}

} // namespace
} // namespace dglink::conformance
