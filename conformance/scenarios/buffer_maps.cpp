// Buffer maps (piEnqueueMemBufferMap / piEnqueueMemUnmap, what a SYCL host accessor
// does): known bytes written, mapped, read through the pointer, changed, unmapped, read
// back and compared; partial maps, several maps of one buffer (from many threads too),
// write-invalidate maps, non-blocking maps with their events and wait lists, maps of
// the caller's memory and of sub-buffers, buffers released while mapped; bad input gets
// the contract's code and a message.
#include "fixtures.h"

#include <cstring>
#include <thread>

namespace dglink::conformance {
namespace {

uint8_t byteAt(size_t I) { return static_cast<uint8_t>(I * 13 + 5); }

std::vector<uint8_t> pattern(size_t Size, size_t Salt = 0) {
  std::vector<uint8_t> Bytes(Size);
  for (size_t I = 0; I < Size; ++I)
    Bytes[I] = byteAt(I + Salt);
  return Bytes;
}

class BufferMaps : public QueueTest {
protected:
  void makeBuffer(size_t Size, MemHandle &Out) {
    ASSERT_PI_SUCCESS(
        piMemBufferCreate(Context.get(), PI_MEM_FLAGS_ACCESS_RW, Size, nullptr, Out.out()));
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
  // A blocking map; the pointer, or null with a failure.
  uint8_t *map(pi_mem Buffer, pi_map_flags Flags, size_t Offset, size_t Size) {
    void *Pointer = nullptr;
    EXPECT_PI_SUCCESS(piEnqueueMemBufferMap(Queue.get(), Buffer, PI_TRUE, Flags, Offset, Size, 0,
                                            nullptr, nullptr, &Pointer));
    EXPECT_NE(Pointer, nullptr);
    return static_cast<uint8_t *>(Pointer);
  }
  void unmap(pi_mem Buffer, void *Pointer) {
    ASSERT_PI_SUCCESS(piEnqueueMemUnmap(Queue.get(), Buffer, Pointer, 0, nullptr, nullptr));
  }
  pi_command_type commandOf(pi_event Event) {
    pi_command_type Command = PI_COMMAND_TYPE_MARKER;
    EXPECT_PI_SUCCESS(
        piEventGetInfo(Event, PI_EVENT_INFO_COMMAND_TYPE, sizeof(Command), &Command, nullptr));
    return Command;
  }
  bool levelZero() { return deviceString(PI_EXT_DEVICE_INFO_BACKEND_NAME) == "level_zero"; }
};
DGLINK_INSTANTIATE_FOR_DEVICES(BufferMaps);

TEST_P(BufferMaps, MappedBytesAreTheBuffersAndChangesAreWrittenBack) {
  MemHandle Buffer;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(4096, Buffer));
  ASSERT_NO_FATAL_FAILURE(write(Buffer.get(), pattern(4096)));
  uint8_t *Bytes = map(Buffer.get(), PI_MAP_READ | PI_MAP_WRITE, 0, 4096);
  ASSERT_NE(Bytes, nullptr);
  for (size_t I = 0; I < 4096; ++I)
    ASSERT_EQ(Bytes[I], byteAt(I)) << "mapped byte " << I;
  for (size_t I = 1000; I < 3000; ++I)
    Bytes[I] = static_cast<uint8_t>(~byteAt(I));
  EventHandle Unmapped;
  ASSERT_PI_SUCCESS(
      piEnqueueMemUnmap(Queue.get(), Buffer.get(), Bytes, 0, nullptr, Unmapped.out()));
  const pi_event Raw = Unmapped.get();
  ASSERT_PI_SUCCESS(piEventsWait(1, &Raw));
  EXPECT_EQ(commandOf(Raw), PI_COMMAND_TYPE_MEM_BUFFER_UNMAP);
  const std::vector<uint8_t> Seen = read(Buffer.get(), 4096);
  for (size_t I = 0; I < 4096; ++I) {
    const uint8_t Expected = I >= 1000 && I < 3000 ? static_cast<uint8_t>(~byteAt(I)) : byteAt(I);
    ASSERT_EQ(Seen[I], Expected) << "byte " << I << " after the unmap";
  }
  // Flags 0 are read and write, as in OpenCL.
  Bytes = map(Buffer.get(), 0, 4000, 96);
  ASSERT_NE(Bytes, nullptr);
  EXPECT_EQ(Bytes[0], byteAt(4000));
  Bytes[0] = 0x5A;
  ASSERT_NO_FATAL_FAILURE(unmap(Buffer.get(), Bytes));
  EXPECT_EQ(read(Buffer.get(), 1, 4000)[0], 0x5A);
}

// Maps of parts of a buffer see their own bytes and write back only those; two live maps
// of one buffer, unmapped in either order, each keep their own changes.
TEST_P(BufferMaps, PartialMapsAndSeveralMapsOfOneBuffer) {
  MemHandle Buffer;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(1024, Buffer));
  ASSERT_NO_FATAL_FAILURE(write(Buffer.get(), pattern(1024)));
  uint8_t *Odd = map(Buffer.get(), PI_MAP_READ, 301, 57);
  uint8_t *Low = map(Buffer.get(), PI_MAP_WRITE, 0, 256);
  uint8_t *High = map(Buffer.get(), PI_MAP_READ | PI_MAP_WRITE, 512, 256);
  ASSERT_TRUE(Odd != nullptr && Low != nullptr && High != nullptr);
  for (size_t I = 0; I < 57; ++I)
    ASSERT_EQ(Odd[I], byteAt(301 + I)) << "byte " << I << " of the map at 301";
  for (size_t I = 0; I < 256; ++I) {
    ASSERT_EQ(Low[I], byteAt(I)) << "a write map gets the buffer's bytes too, byte " << I;
    ASSERT_EQ(High[I], byteAt(512 + I)) << "byte " << I << " of the map at 512";
  }
  std::memset(Low, 0x11, 256);
  std::memset(High, 0x22, 256);
  ASSERT_NO_FATAL_FAILURE(unmap(Buffer.get(), High));
  ASSERT_NO_FATAL_FAILURE(unmap(Buffer.get(), Odd));
  ASSERT_NO_FATAL_FAILURE(unmap(Buffer.get(), Low));
  const std::vector<uint8_t> Seen = read(Buffer.get(), 1024);
  for (size_t I = 0; I < 1024; ++I) {
    const uint8_t Expected = I < 256 ? 0x11 : I >= 512 && I < 768 ? 0x22 : byteAt(I);
    ASSERT_EQ(Seen[I], Expected) << "byte " << I;
  }
}

// WRITE_INVALIDATE_REGION: whatever the host writes replaces the region; bytes around it
// keep theirs.
TEST_P(BufferMaps, WriteInvalidateMapReplacesTheRegion) {
  MemHandle Buffer;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(512, Buffer));
  ASSERT_NO_FATAL_FAILURE(write(Buffer.get(), pattern(512)));
  uint8_t *Bytes = map(Buffer.get(), PI_MAP_WRITE_INVALIDATE_REGION, 128, 256);
  ASSERT_NE(Bytes, nullptr);
  const std::vector<uint8_t> New = pattern(256, 77);
  std::memcpy(Bytes, New.data(), New.size());
  ASSERT_NO_FATAL_FAILURE(unmap(Buffer.get(), Bytes));
  const std::vector<uint8_t> Seen = read(Buffer.get(), 512);
  for (size_t I = 0; I < 512; ++I) {
    const uint8_t Expected = I >= 128 && I < 384 ? New[I - 128] : byteAt(I);
    ASSERT_EQ(Seen[I], Expected) << "byte " << I;
  }
}

// A non-blocking map after a non-blocking write it waits for: its event completes with
// the write's bytes in the map.
TEST_P(BufferMaps, NonBlockingMapWithItsEventAndWaitList) {
  MemHandle Buffer;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(2048, Buffer));
  const std::vector<uint8_t> Bytes = pattern(2048, 3);
  EventHandle Written, Mapped, Unmapped;
  ASSERT_PI_SUCCESS(piEnqueueMemBufferWrite(Queue.get(), Buffer.get(), PI_FALSE, 0, Bytes.size(),
                                            Bytes.data(), 0, nullptr, Written.out()));
  const pi_event Wait = Written.get();
  void *Pointer = nullptr;
  ASSERT_PI_SUCCESS(piEnqueueMemBufferMap(Queue.get(), Buffer.get(), PI_FALSE, PI_MAP_READ, 1024,
                                          1024, 1, &Wait, Mapped.out(), &Pointer));
  ASSERT_NE(Pointer, nullptr);
  const pi_event MapEvent = Mapped.get();
  EXPECT_EQ(commandOf(MapEvent), PI_COMMAND_TYPE_MEM_BUFFER_MAP);
  ASSERT_PI_SUCCESS(piEventsWait(1, &MapEvent));
  pi_int32 Status = PI_EVENT_SUBMITTED;
  ASSERT_PI_SUCCESS(piEventGetInfo(MapEvent, PI_EVENT_INFO_COMMAND_EXECUTION_STATUS, sizeof(Status),
                                   &Status, nullptr));
  EXPECT_EQ(Status, PI_EVENT_COMPLETE);
  EXPECT_EQ(std::memcmp(Pointer, Bytes.data() + 1024, 1024), 0);
  // The unmap waits for the map's event; the event of a read-only map's unmap completes
  // too, though it writes nothing.
  ASSERT_PI_SUCCESS(
      piEnqueueMemUnmap(Queue.get(), Buffer.get(), Pointer, 1, &MapEvent, Unmapped.out()));
  const pi_event UnmapEvent = Unmapped.get();
  ASSERT_PI_SUCCESS(piEventsWait(1, &UnmapEvent));
  EXPECT_EQ(commandOf(UnmapEvent), PI_COMMAND_TYPE_MEM_BUFFER_UNMAP);
  EXPECT_EQ(read(Buffer.get(), 2048), Bytes);
}

// A buffer over the caller's memory maps to that memory at the offset (as OpenCL's
// CL_MEM_USE_HOST_PTR does); a sub-buffer maps its parent's bytes.
TEST_P(BufferMaps, HostPointerAndSubBufferMaps) {
  std::vector<uint8_t> Host = pattern(8192);
  MemHandle Buffer;
  const pi_result Made =
      piMemBufferCreate(Context.get(), PI_MEM_FLAGS_ACCESS_RW | PI_MEM_FLAGS_HOST_PTR_USE,
                        Host.size(), Host.data(), Buffer.out());
  if (Made == PI_ERROR_UNSUPPORTED_FEATURE && levelZero())
    GTEST_SKIP() << "no buffers over the caller's memory on this Level Zero driver (no "
                    "zexDriverImportExternalPointer): "
                 << lastErrorMessage();
  ASSERT_PI_SUCCESS(Made);
  uint8_t *Bytes = map(Buffer.get(), PI_MAP_READ | PI_MAP_WRITE, 128, 256);
  EXPECT_EQ(Bytes, Host.data() + 128) << "the map is the caller's memory at the offset";
  ASSERT_NE(Bytes, nullptr);
  for (size_t I = 0; I < 256; ++I)
    ASSERT_EQ(Bytes[I], byteAt(128 + I)) << "byte " << I;
  std::memset(Bytes, 0x7E, 256);
  ASSERT_NO_FATAL_FAILURE(unmap(Buffer.get(), Bytes));
  const std::vector<uint8_t> Seen = read(Buffer.get(), 512);
  for (size_t I = 0; I < 512; ++I)
    ASSERT_EQ(Seen[I], I >= 128 && I < 384 ? 0x7E : byteAt(I)) << "byte " << I;

  // Sub-buffers start at an alignment every backend takes (OpenCL: up to 4096 bits).
  constexpr size_t Align = 4096;
  MemHandle Parent, Sub;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(Align * 3, Parent));
  ASSERT_NO_FATAL_FAILURE(write(Parent.get(), pattern(Align * 3)));
  pi_buffer_region_struct Region{Align, Align};
  ASSERT_PI_SUCCESS(
      piMemBufferPartition(Parent.get(), 0, PI_BUFFER_CREATE_TYPE_REGION, &Region, Sub.out()));
  Bytes = map(Sub.get(), PI_MAP_READ | PI_MAP_WRITE, 16, 32);
  ASSERT_NE(Bytes, nullptr);
  for (size_t I = 0; I < 32; ++I)
    ASSERT_EQ(Bytes[I], byteAt(Align + 16 + I)) << "sub-buffer byte " << I;
  std::memset(Bytes, 0x3C, 32);
  ASSERT_NO_FATAL_FAILURE(unmap(Sub.get(), Bytes));
  const std::vector<uint8_t> Whole = read(Parent.get(), Align * 3);
  for (size_t I = 0; I < Whole.size(); ++I)
    ASSERT_EQ(Whole[I], I >= Align + 16 && I < Align + 48 ? 0x3C : byteAt(I)) << "byte " << I;
}

// Threads map, change and unmap their own parts of one buffer at once.
TEST_P(BufferMaps, MapsFromManyThreads) {
  constexpr size_t Threads = 8, Part = 256;
  MemHandle Buffer;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(Threads * Part, Buffer));
  ASSERT_NO_FATAL_FAILURE(write(Buffer.get(), std::vector<uint8_t>(Threads * Part, 0)));
  std::vector<std::thread> Workers;
  Workers.reserve(Threads);
  std::vector<pi_result> Results(Threads * 2, PI_SUCCESS);
  for (size_t T = 0; T < Threads; ++T)
    Workers.emplace_back([&, T] {
      for (int Round = 0; Round < 20; ++Round) {
        void *Pointer = nullptr;
        Results[T * 2] =
            piEnqueueMemBufferMap(Queue.get(), Buffer.get(), PI_TRUE, PI_MAP_READ | PI_MAP_WRITE,
                                  T * Part, Part, 0, nullptr, nullptr, &Pointer);
        if (Results[T * 2] != PI_SUCCESS)
          return;
        for (size_t I = 0; I < Part; ++I)
          static_cast<uint8_t *>(Pointer)[I] += static_cast<uint8_t>(T + 1);
        Results[T * 2 + 1] =
            piEnqueueMemUnmap(Queue.get(), Buffer.get(), Pointer, 0, nullptr, nullptr);
        if (Results[T * 2 + 1] != PI_SUCCESS)
          return;
      }
    });
  for (std::thread &Worker : Workers)
    Worker.join();
  for (size_t I = 0; I < Results.size(); ++I)
    EXPECT_EQ(Results[I], PI_SUCCESS) << (I % 2 == 0 ? "map" : "unmap") << " of thread " << I / 2;
  const std::vector<uint8_t> Seen = read(Buffer.get(), Threads * Part);
  for (size_t I = 0; I < Seen.size(); ++I)
    ASSERT_EQ(Seen[I], static_cast<uint8_t>((I / Part + 1) * 20)) << "byte " << I;
}

// A buffer released with live maps, or right after a non-blocking map or an unmap, frees
// their memory (the sanitizer run proves nothing leaks or is touched after its free).
TEST_P(BufferMaps, ReleasingAMappedBufferEndsItsMaps) {
  for (int Case = 0; Case < 3; ++Case) {
    SCOPED_TRACE("case " + std::to_string(Case));
    MemHandle Buffer;
    ASSERT_NO_FATAL_FAILURE(makeBuffer(1 << 16, Buffer));
    ASSERT_NO_FATAL_FAILURE(write(Buffer.get(), pattern(1 << 16)));
    void *First = nullptr, *Second = nullptr;
    ASSERT_PI_SUCCESS(piEnqueueMemBufferMap(Queue.get(), Buffer.get(), PI_FALSE, PI_MAP_READ, 0,
                                            1 << 15, 0, nullptr, nullptr, &First));
    ASSERT_PI_SUCCESS(piEnqueueMemBufferMap(Queue.get(), Buffer.get(),
                                            Case == 0 ? PI_TRUE : PI_FALSE, PI_MAP_WRITE, 1 << 15,
                                            1 << 15, 0, nullptr, nullptr, &Second));
    if (Case == 1) {
      ASSERT_PI_SUCCESS(piEnqueueMemUnmap(Queue.get(), Buffer.get(), Second, 0, nullptr, nullptr));
    }
    if (Case == 2) {
      ASSERT_PI_SUCCESS(piEnqueueMemUnmap(Queue.get(), Buffer.get(), First, 0, nullptr, nullptr));
      ASSERT_PI_SUCCESS(piEnqueueMemUnmap(Queue.get(), Buffer.get(), Second, 0, nullptr, nullptr));
    }
    Buffer = MemHandle();
  }
  ASSERT_PI_SUCCESS(piQueueFinish(Queue.get()));
}

TEST_P(BufferMaps, BadMapsAndUnmapsAreRefused) {
  MemHandle Buffer, Other;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(256, Buffer));
  ASSERT_NO_FATAL_FAILURE(makeBuffer(256, Other));
  ASSERT_NO_FATAL_FAILURE(write(Buffer.get(), pattern(256)));
  void *Pointer = nullptr;
  const pi_map_flags RW = PI_MAP_READ | PI_MAP_WRITE;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "RetMap",
                         piEnqueueMemBufferMap(Queue.get(), Buffer.get(), PI_TRUE, RW, 0, 16, 0,
                                               nullptr, nullptr, nullptr));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "past the buffer",
                         piEnqueueMemBufferMap(Queue.get(), Buffer.get(), PI_TRUE, RW, 200, 57, 0,
                                               nullptr, nullptr, &Pointer));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "past the buffer",
                         piEnqueueMemBufferMap(Queue.get(), Buffer.get(), PI_TRUE, RW, 16, SIZE_MAX,
                                               0, nullptr, nullptr, &Pointer));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "Size",
                         piEnqueueMemBufferMap(Queue.get(), Buffer.get(), PI_TRUE, RW, 0, 0, 0,
                                               nullptr, nullptr, &Pointer));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "map flags",
                         piEnqueueMemBufferMap(Queue.get(), Buffer.get(), PI_TRUE, 1u << 5, 0, 16,
                                               0, nullptr, nullptr, &Pointer));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "exclude each other",
                         piEnqueueMemBufferMap(Queue.get(), Buffer.get(), PI_TRUE,
                                               PI_MAP_READ | PI_MAP_WRITE_INVALIDATE_REGION, 0, 16,
                                               0, nullptr, nullptr, &Pointer));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_MEM_OBJECT, "Buffer",
                         piEnqueueMemBufferMap(Queue.get(), nullptr, PI_TRUE, RW, 0, 16, 0, nullptr,
                                               nullptr, &Pointer));
  EXPECT_PI_ERROR(PI_ERROR_INVALID_EVENT_WAIT_LIST,
                  piEnqueueMemBufferMap(Queue.get(), Buffer.get(), PI_TRUE, RW, 0, 16, 1, nullptr,
                                        nullptr, &Pointer));
  EXPECT_EQ(Pointer, nullptr) << "a refused map hands out no pointer";

  uint8_t *Mapped = map(Buffer.get(), RW, 64, 64);
  ASSERT_NE(Mapped, nullptr);
  uint8_t Stack[16] = {};
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "not a live map",
                         piEnqueueMemUnmap(Queue.get(), Buffer.get(), Stack, 0, nullptr, nullptr));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "not a live map",
                         piEnqueueMemUnmap(Queue.get(), Other.get(), Mapped, 0, nullptr, nullptr))
      << "a map of another buffer";
  EXPECT_PI_ERROR_NAMING(
      PI_ERROR_INVALID_VALUE, "MappedPtr",
      piEnqueueMemUnmap(Queue.get(), Buffer.get(), nullptr, 0, nullptr, nullptr));
  EXPECT_PI_ERROR(PI_ERROR_INVALID_EVENT_WAIT_LIST,
                  piEnqueueMemUnmap(Queue.get(), Buffer.get(), Mapped, 1, nullptr, nullptr));
  // The refusals left the map live: it unmaps once, then is gone.
  Mapped[0] = 0xAB;
  ASSERT_NO_FATAL_FAILURE(unmap(Buffer.get(), Mapped));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "not a live map",
                         piEnqueueMemUnmap(Queue.get(), Buffer.get(), Mapped, 0, nullptr, nullptr))
      << "a second unmap of one map";
  std::vector<uint8_t> Expected = pattern(256);
  Expected[64] = 0xAB;
  EXPECT_EQ(read(Buffer.get(), 256), Expected);
}

// As OpenCL: a region mapped for writing overlaps no other map of the buffer (its unmap
// would write over the other map's bytes); maps for reading may overlap each other. A
// refused map changes nothing, and once the writable map is unmapped its region maps again.
TEST_P(BufferMaps, OverlappingMapsForWritingAreRefused) {
  MemHandle Buffer;
  ASSERT_NO_FATAL_FAILURE(makeBuffer(1024, Buffer));
  ASSERT_NO_FATAL_FAILURE(write(Buffer.get(), pattern(1024)));
  void *Pointer = nullptr;
  uint8_t *Written = map(Buffer.get(), PI_MAP_WRITE, 256, 256);
  ASSERT_NE(Written, nullptr);
  for (const pi_map_flags Flags :
       {pi_map_flags{PI_MAP_READ}, pi_map_flags{PI_MAP_WRITE},
        pi_map_flags{PI_MAP_READ | PI_MAP_WRITE}, pi_map_flags{PI_MAP_WRITE_INVALIDATE_REGION}}) {
    SCOPED_TRACE("flags " + std::to_string(Flags));
    EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_OPERATION,
                           "overlap bytes [256, 512) mapped for writing",
                           piEnqueueMemBufferMap(Queue.get(), Buffer.get(), PI_TRUE, Flags, 500,
                                                 100, 0, nullptr, nullptr, &Pointer));
  }
  EXPECT_EQ(Pointer, nullptr) << "a refused map hands out no pointer";
  // Next to the writable map (its last byte is 511): allowed.
  uint8_t *Beside = map(Buffer.get(), PI_MAP_READ | PI_MAP_WRITE, 512, 64);
  ASSERT_NE(Beside, nullptr);
  // Maps for reading overlap each other; a writable one may not overlap them.
  uint8_t *ReadA = map(Buffer.get(), PI_MAP_READ, 0, 128);
  uint8_t *ReadB = map(Buffer.get(), PI_MAP_READ, 64, 128);
  ASSERT_TRUE(ReadA != nullptr && ReadB != nullptr);
  EXPECT_EQ(ReadB[0], byteAt(64));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_OPERATION, "mapped for reading",
                         piEnqueueMemBufferMap(Queue.get(), Buffer.get(), PI_TRUE, PI_MAP_WRITE,
                                               100, 8, 0, nullptr, nullptr, &Pointer));
  std::memset(Written, 0x5E, 256);
  ASSERT_NO_FATAL_FAILURE(unmap(Buffer.get(), Written));
  // The region is free again.
  uint8_t *Again = map(Buffer.get(), PI_MAP_READ | PI_MAP_WRITE, 300, 100);
  ASSERT_NE(Again, nullptr);
  EXPECT_EQ(Again[0], 0x5E) << "the unmapped bytes were written back";
  for (uint8_t *Each : {Again, Beside, ReadA, ReadB})
    ASSERT_NO_FATAL_FAILURE(unmap(Buffer.get(), Each));
  const std::vector<uint8_t> Seen = read(Buffer.get(), 1024);
  for (size_t I = 0; I < Seen.size(); ++I)
    ASSERT_EQ(Seen[I], I >= 256 && I < 512 ? 0x5E : byteAt(I)) << "byte " << I;
}

} // namespace
} // namespace dglink::conformance
