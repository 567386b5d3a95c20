// Staged, pipelined and ring-buffered host<->device copies of a queue.
#include <dglink/stream/copy_engine.h>

#include <dglink/support/error.h>
#include <dglink/support/log.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace dglink::stream {
namespace {

size_t envSize(const char *Name, size_t Default) {
  const char *Text = std::getenv(Name);
  if (Text == nullptr || *Text == '\0')
    return Default;
  char *End = nullptr;
  const unsigned long long Value = std::strtoull(Text, &End, 10);
  if (End == Text || *End != '\0' || Value == 0) {
    logger().warn("copy engine: ignoring {}='{}' (not a positive integer)", Name, Text);
    return Default;
  }
  return static_cast<size_t>(Value);
}

bool envFlag(const char *Name, bool Default) {
  const char *Text = std::getenv(Name);
  if (Text == nullptr || *Text == '\0')
    return Default;
  if (!std::strcmp(Text, "0") || !std::strcmp(Text, "off") || !std::strcmp(Text, "false"))
    return false;
  if (!std::strcmp(Text, "1") || !std::strcmp(Text, "on") || !std::strcmp(Text, "true"))
    return true;
  logger().warn("copy engine: ignoring {}='{}' (use 0 or 1)", Name, Text);
  return Default;
}

// Copies of at least this many bytes first ask the driver whether the host memory is
// pinned (or device/managed): then the copy needs no staging. Below it, a memcpy into
// the staging buffer costs less than the question.
constexpr size_t PinnedCheckBytes = size_t{16} * 1024;

pi_result recordDone(Driver &D, Event Done, Stream S) {
  if (Done != nullptr)
    return D.record(Done, S);
  return PI_SUCCESS;
}

size_t chunkFor(size_t Count, const CopyTuning &Tuning) {
  // About four chunks, so that copying one on the CPU overlaps the transfer of the one
  // before; never below MinChunkBytes where per-copy costs dominate.
  size_t Chunk = ((Count + 3) / 4 + 4095) & ~size_t(4095);
  Chunk = std::max(Chunk, Tuning.MinChunkBytes);
  return std::min(Chunk, Tuning.ChunkBytes);
}

// A write of 1, 2 or 4 bytes as a fill of one element (false where the size or the
// alignment does not allow it).
bool asFill(const void *Src, size_t Count, const char *Dst, uint32_t &Value) {
  const auto Address = reinterpret_cast<uintptr_t>(Dst);
  if (Count != 1 && Count != 2 && Count != 4)
    return false;
  if (Address % Count != 0)
    return false;
  Value = patternValue(Src, Count);
  return true;
}

} // namespace

uint32_t patternValue(const void *Pattern, size_t Size) {
  if (Size == 1)
    return *static_cast<const unsigned char *>(Pattern);
  if (Size == 2) {
    uint16_t Half = 0;
    std::memcpy(&Half, Pattern, 2);
    return Half;
  }
  uint32_t Word = 0;
  std::memcpy(&Word, Pattern, 4);
  return Word;
}

const CopyTuning &copyTuning() {
  static const CopyTuning Tuning = [] {
    CopyTuning T;
    T.SmallBytes = envSize("DGLINK_COPY_STAGING_BYTES", T.SmallBytes);
    T.ChunkBytes = envSize("DGLINK_COPY_CHUNK_BYTES", T.ChunkBytes);
    T.MinChunkBytes =
        std::min(envSize("DGLINK_COPY_MIN_CHUNK_BYTES", T.MinChunkBytes), T.ChunkBytes);
    T.Slots = static_cast<unsigned>(
        std::clamp<size_t>(envSize("DGLINK_COPY_STAGING_SLOTS", T.Slots), 1, 16));
    T.Pipeline = envFlag("DGLINK_COPY_PIPELINE", T.Pipeline);
    T.SmallWriteFill = envFlag("DGLINK_COPY_SMALL_WRITE_FILL", T.SmallWriteFill);
    T.AsyncRing = envFlag("DGLINK_COPY_ASYNC_RING", T.AsyncRing);
    T.RingBytes = envSize("DGLINK_COPY_RING_BYTES", T.RingBytes);
    T.RingSegments = static_cast<unsigned>(
        std::clamp<size_t>(envSize("DGLINK_COPY_RING_SEGMENTS", T.RingSegments), 2, 64));
    logger().debug("copy engine: staging {} B, chunks {}..{} B x {} slots, pipeline {}, fill {}, "
                   "ring {} B / {} segments ({})",
                   T.SmallBytes, T.MinChunkBytes, T.ChunkBytes, T.Slots, T.Pipeline,
                   T.SmallWriteFill, T.RingBytes, T.RingSegments, T.AsyncRing);
    return T;
  }();
  return Tuning;
}

pi_result CopyEngine::reserve(Driver &D, PinnedBuffer &Buffer, size_t Size) {
  if (Buffer.Size >= Size)
    return PI_SUCCESS;
  // Only blocking copies use the blocking buffer, and they finish before releasing the
  // mutex, so nothing in flight reads the old memory (the ring is sized once).
  if (Buffer.Data != nullptr) {
    (void)D.freeHost(Buffer.Data);
    Buffer = PinnedBuffer();
  }
  const size_t Rounded = (Size + 65535) & ~size_t(65535);
  void *Data = nullptr;
  DGLINK_TRY(D.allocateHost(Data, Rounded));
  Buffer.Data = static_cast<char *>(Data);
  Buffer.Size = Rounded;
  return PI_SUCCESS;
}

pi_result CopyEngine::reserveSlotEvents(Driver &D, size_t Count) {
  while (SlotEvents.size() < Count) {
    Event E = nullptr;
    DGLINK_TRY(D.createEvent(E));
    SlotEvents.push_back(E);
  }
  return PI_SUCCESS;
}

void CopyEngine::release(Driver &D) {
  for (PinnedBuffer *Buffer : {&BlockingBuffer, &Ring})
    if (Buffer->Data != nullptr) {
      (void)D.freeHost(Buffer->Data);
      *Buffer = PinnedBuffer();
    }
  for (Event E : SlotEvents)
    D.destroyEvent(E);
  for (Event E : SegmentEvents)
    D.destroyEvent(E);
  SlotEvents.clear();
  SegmentEvents.clear();
  SegmentPending.clear();
}

pi_result CopyEngine::write(Driver &D, Stream S, void *Dst, const void *Src, size_t Count,
                            bool Blocking, Event Done) {
  const CopyTuning &Tuning = copyTuning();
  auto *Target = static_cast<char *>(Dst);
  if (Count == 0)
    return recordDone(D, Done, S);
  uint32_t Value = 0;
  if (Tuning.SmallWriteFill && Count <= 4 && asFill(Src, Count, Target, Value)) {
    // The value travels in the fill's pattern: no host memory is read later, and a
    // fill is the cheapest operation that writes device memory.
    DGLINK_TRY(D.fill(Target, Value, static_cast<unsigned>(Count), 1, S));
    DGLINK_TRY(recordDone(D, Done, S));
    return Blocking ? D.synchronize(S) : PI_SUCCESS;
  }
  if (!Blocking) {
    if (Tuning.AsyncRing && Count <= Tuning.RingBytes / Tuning.RingSegments)
      return writeThroughRing(D, S, Target, Src, Count, Done);
    // The driver copies pageable memory into its own staging before returning.
    DGLINK_TRY(D.copyToDevice(Target, Src, Count, S));
    return recordDone(D, Done, S);
  }
  if (Count <= Tuning.SmallBytes)
    return writeStaged(D, S, Target, Src, Count, Done);
  if (Count >= PinnedCheckBytes && D.knowsHostPointer(Src)) {
    DGLINK_TRY(D.copy(Target, Src, Count, S));
  } else if (!Tuning.Pipeline) {
    DGLINK_TRY(D.copyToDevice(Target, Src, Count, S));
  } else {
    return writePipelined(D, S, Target, Src, Count, Done);
  }
  DGLINK_TRY(recordDone(D, Done, S));
  return D.synchronize(S);
}

pi_result CopyEngine::writeStaged(Driver &D, Stream S, char *Dst, const void *Src, size_t Count,
                                  Event Done) {
  std::lock_guard<std::mutex> Lock(BlockingMutex);
  DGLINK_TRY(reserve(D, BlockingBuffer, std::max(Count, copyTuning().SmallBytes)));
  std::memcpy(BlockingBuffer.Data, Src, Count);
  DGLINK_TRY(D.copyToDevice(Dst, BlockingBuffer.Data, Count, S));
  DGLINK_TRY(recordDone(D, Done, S));
  return D.synchronize(S);
}

pi_result CopyEngine::writePipelined(Driver &D, Stream S, char *Dst, const void *Src, size_t Count,
                                     Event Done) {
  const CopyTuning &Tuning = copyTuning();
  const size_t Chunk = chunkFor(Count, Tuning);
  const size_t Chunks = (Count + Chunk - 1) / Chunk;
  std::lock_guard<std::mutex> Lock(BlockingMutex);
  DGLINK_TRY(reserve(D, BlockingBuffer, Chunk * Tuning.Slots));
  DGLINK_TRY(reserveSlotEvents(D, Tuning.Slots));
  const auto *Source = static_cast<const char *>(Src);
  for (size_t I = 0; I < Chunks; ++I) {
    const size_t Slot = I % Tuning.Slots;
    const size_t Offset = I * Chunk;
    const size_t Length = std::min(Chunk, Count - Offset);
    if (I >= Tuning.Slots) // the slot's previous transfer must be done
      DGLINK_TRY(D.synchronize(SlotEvents[Slot]));
    char *Staging = BlockingBuffer.Data + Slot * Chunk;
    std::memcpy(Staging, Source + Offset, Length);
    DGLINK_TRY(D.copyToDevice(Dst + Offset, Staging, Length, S));
    DGLINK_TRY(D.record(SlotEvents[Slot], S));
  }
  DGLINK_TRY(recordDone(D, Done, S));
  return D.synchronize(S);
}

pi_result CopyEngine::writeThroughRing(Driver &D, Stream S, char *Dst, const void *Src,
                                       size_t Count, Event Done) {
  const CopyTuning &Tuning = copyTuning();
  const size_t SegmentBytes = Tuning.RingBytes / Tuning.RingSegments;
  std::lock_guard<std::mutex> Lock(RingMutex);
  // Set up on first use; a setup that failed half-way (no events) is finished by the
  // next call rather than used.
  if (Ring.Data == nullptr || SegmentPending.size() != Tuning.RingSegments) {
    DGLINK_TRY(reserve(D, Ring, Tuning.RingBytes));
    while (SegmentEvents.size() < Tuning.RingSegments) {
      Event E = nullptr;
      DGLINK_TRY(D.createEvent(E));
      SegmentEvents.push_back(E);
    }
    SegmentPending.assign(Tuning.RingSegments, false);
    Segment = 0;
    RingOffset = 0;
  }
  if (RingOffset + Count > (Segment + 1) * SegmentBytes) {
    // Leave the segment: its copies complete before this event does.
    DGLINK_TRY(D.record(SegmentEvents[Segment], S));
    SegmentPending[Segment] = true;
    Segment = (Segment + 1) % Tuning.RingSegments;
    if (SegmentPending[Segment]) {
      DGLINK_TRY(D.synchronize(SegmentEvents[Segment]));
      SegmentPending[Segment] = false;
    }
    RingOffset = Segment * SegmentBytes;
  }
  char *Staging = Ring.Data + RingOffset;
  std::memcpy(Staging, Src, Count);
  DGLINK_TRY(D.copyToDevice(Dst, Staging, Count, S));
  RingOffset += (Count + 63) & ~size_t(63);
  return recordDone(D, Done, S);
}

pi_result CopyEngine::read(Driver &D, Stream S, void *Dst, const void *Src, size_t Count,
                           bool Blocking, Event Done) {
  const CopyTuning &Tuning = copyTuning();
  const auto *Source = static_cast<const char *>(Src);
  if (Count == 0)
    return recordDone(D, Done, S);
  if (!Blocking) {
    // Into pageable memory the driver completes the copy before returning; into
    // pinned memory it stays asynchronous.
    DGLINK_TRY(D.copyToHost(Dst, Source, Count, S));
    return recordDone(D, Done, S);
  }
  if (Count <= Tuning.SmallBytes)
    return readStaged(D, S, Dst, Source, Count, Done);
  if (Count >= PinnedCheckBytes && D.knowsHostPointer(Dst)) {
    DGLINK_TRY(D.copy(Dst, Source, Count, S));
  } else if (!Tuning.Pipeline) {
    DGLINK_TRY(D.copyToHost(Dst, Source, Count, S));
  } else {
    return readPipelined(D, S, Dst, Source, Count, Done);
  }
  DGLINK_TRY(recordDone(D, Done, S));
  return D.synchronize(S);
}

pi_result CopyEngine::readStaged(Driver &D, Stream S, void *Dst, const char *Src, size_t Count,
                                 Event Done) {
  std::lock_guard<std::mutex> Lock(BlockingMutex);
  DGLINK_TRY(reserve(D, BlockingBuffer, std::max(Count, copyTuning().SmallBytes)));
  DGLINK_TRY(D.copyToHost(BlockingBuffer.Data, Src, Count, S));
  DGLINK_TRY(recordDone(D, Done, S));
  DGLINK_TRY(D.synchronize(S));
  std::memcpy(Dst, BlockingBuffer.Data, Count);
  return PI_SUCCESS;
}

pi_result CopyEngine::readPipelined(Driver &D, Stream S, void *Dst, const char *Src, size_t Count,
                                    Event Done) {
  const CopyTuning &Tuning = copyTuning();
  const size_t Chunk = chunkFor(Count, Tuning);
  const size_t Chunks = (Count + Chunk - 1) / Chunk;
  std::lock_guard<std::mutex> Lock(BlockingMutex);
  DGLINK_TRY(reserve(D, BlockingBuffer, Chunk * Tuning.Slots));
  DGLINK_TRY(reserveSlotEvents(D, Tuning.Slots));
  auto *Destination = static_cast<char *>(Dst);
  auto Enqueue = [&](size_t I) -> pi_result {
    const size_t Slot = I % Tuning.Slots;
    const size_t Offset = I * Chunk;
    DGLINK_TRY(D.copyToHost(BlockingBuffer.Data + Slot * Chunk, Src + Offset,
                            std::min(Chunk, Count - Offset), S));
    return D.record(SlotEvents[Slot], S);
  };
  for (size_t I = 0; I < Chunks && I < Tuning.Slots; ++I)
    DGLINK_TRY(Enqueue(I));
  for (size_t I = 0; I < Chunks; ++I) {
    const size_t Slot = I % Tuning.Slots;
    const size_t Offset = I * Chunk;
    DGLINK_TRY(D.synchronize(SlotEvents[Slot]));
    // Copy this chunk out while the next one is in flight, then refill the slot.
    std::memcpy(Destination + Offset, BlockingBuffer.Data + Slot * Chunk,
                std::min(Chunk, Count - Offset));
    if (I + Tuning.Slots < Chunks)
      DGLINK_TRY(Enqueue(I + Tuning.Slots));
  }
  return recordDone(D, Done, S);
}

} // namespace dglink::stream
