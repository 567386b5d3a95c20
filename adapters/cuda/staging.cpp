// Staged, pipelined and ring-buffered host<->device copies of a queue.
#include "staging.h"

#include <dglink/support/log.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace dglink::cuda {
namespace {

size_t envSize(const char *Name, size_t Default) {
  const char *Text = std::getenv(Name);
  if (Text == nullptr || *Text == '\0')
    return Default;
  char *End = nullptr;
  const unsigned long long Value = std::strtoull(Text, &End, 10);
  if (End == Text || *End != '\0' || Value == 0) {
    logger().warn("cuda: ignoring {}='{}' (not a positive integer)", Name, Text);
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
  logger().warn("cuda: ignoring {}='{}' (use 0 or 1)", Name, Text);
  return Default;
}

// Copies of at least this many bytes first ask the driver whether the host
// memory is pinned (or device/managed): then the copy needs no staging. Below
// it, a memcpy into the staging buffer costs less than the question.
constexpr size_t PinnedCheckBytes = 16 * 1024;

pi_result record(CUevent Done, CUstream Stream) {
  if (Done != nullptr)
    DGLINK_CU(cuEventRecord, Done, Stream);
  return PI_SUCCESS;
}

// Host memory the driver knows (pinned, registered, managed) can be copied
// without staging.
bool driverKnows(const void *Host) {
  unsigned int Type = 0;
  return cu().cuPointerGetAttribute(&Type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                    reinterpret_cast<CUdeviceptr>(Host)) == CUDA_SUCCESS;
}

size_t chunkFor(size_t Count, const StagingTuning &Tuning) {
  // About four chunks, so that copying one on the CPU overlaps the transfer of
  // the one before; never below MinChunkBytes where per-copy costs dominate.
  size_t Chunk = ((Count + 3) / 4 + 4095) & ~size_t(4095);
  Chunk = std::max(Chunk, Tuning.MinChunkBytes);
  return std::min(Chunk, Tuning.ChunkBytes);
}

} // namespace

const StagingTuning &stagingTuning() {
  static const StagingTuning Tuning = [] {
    StagingTuning T;
    T.SmallBytes = envSize("DGLINK_CUDA_STAGING_BYTES", T.SmallBytes);
    T.ChunkBytes = envSize("DGLINK_CUDA_CHUNK_BYTES", T.ChunkBytes);
    T.MinChunkBytes = std::min(envSize("DGLINK_CUDA_MIN_CHUNK_BYTES", T.MinChunkBytes),
                               T.ChunkBytes);
    T.Slots = static_cast<unsigned>(std::clamp<size_t>(
        envSize("DGLINK_CUDA_STAGING_SLOTS", T.Slots), 1, 16));
    T.Pipeline = envFlag("DGLINK_CUDA_PIPELINE", T.Pipeline);
    T.SmallWriteMemset = envFlag("DGLINK_CUDA_SMALL_WRITE_MEMSET", T.SmallWriteMemset);
    T.AsyncRing = envFlag("DGLINK_CUDA_ASYNC_RING", T.AsyncRing);
    T.RingBytes = envSize("DGLINK_CUDA_RING_BYTES", T.RingBytes);
    T.RingSegments = static_cast<unsigned>(std::clamp<size_t>(
        envSize("DGLINK_CUDA_RING_SEGMENTS", T.RingSegments), 2, 64));
    logger().debug("cuda: staging {} B, chunks {}..{} B x {} slots, pipeline {}, memset {}, "
                   "ring {} B / {} segments ({})",
                   T.SmallBytes, T.MinChunkBytes, T.ChunkBytes, T.Slots, T.Pipeline,
                   T.SmallWriteMemset, T.RingBytes, T.RingSegments, T.AsyncRing);
    return T;
  }();
  return Tuning;
}

pi_result HostStaging::reserve(PinnedBuffer &Buffer, size_t Size) {
  if (Buffer.Size >= Size)
    return PI_SUCCESS;
  // Only blocking copies use Buffer, and they finish before releasing the
  // mutex, so nothing in flight reads the old memory.
  if (Buffer.Data != nullptr) {
    cu().cuMemFreeHost(Buffer.Data);
    Buffer = PinnedBuffer();
  }
  const size_t Rounded = (Size + 65535) & ~size_t(65535);
  void *Data = nullptr;
  DGLINK_CU(cuMemAllocHost, &Data, Rounded);
  Buffer.Data = static_cast<char *>(Data);
  Buffer.Size = Rounded;
  return PI_SUCCESS;
}

pi_result HostStaging::reserveSlotEvents(size_t Count) {
  while (SlotEvents.size() < Count) {
    CUevent Event = nullptr;
    DGLINK_CU(cuEventCreate, &Event, CU_EVENT_DISABLE_TIMING);
    SlotEvents.push_back(Event);
  }
  return PI_SUCCESS;
}

void HostStaging::release() {
  for (PinnedBuffer *Buffer : {&BlockingBuffer, &Ring})
    if (Buffer->Data != nullptr) {
      cu().cuMemFreeHost(Buffer->Data);
      *Buffer = PinnedBuffer();
    }
  for (CUevent Event : SlotEvents)
    cu().cuEventDestroy(Event);
  for (CUevent Event : SegmentEvents)
    cu().cuEventDestroy(Event);
  SlotEvents.clear();
  SegmentEvents.clear();
  SegmentPending.clear();
}

pi_result HostStaging::write(CUstream Stream, CUdeviceptr Dst, const void *Src, size_t Count,
                             bool Blocking, CUevent Done) {
  const StagingTuning &Tuning = stagingTuning();
  if (Count == 0) {
    DGLINK_TRY(record(Done, Stream));
    return PI_SUCCESS;
  }
  if (Tuning.SmallWriteMemset && Count <= 4) {
    // The value travels in the memset's pattern: no host memory is read later,
    // and a memset is the cheapest operation that writes device memory.
    bool Written = true;
    if (Count == 1) {
      DGLINK_CU(cuMemsetD8Async, Dst, *static_cast<const unsigned char *>(Src), 1, Stream);
    } else if (Count == 2 && Dst % 2 == 0) {
      unsigned short Value;
      std::memcpy(&Value, Src, 2);
      DGLINK_CU(cuMemsetD16Async, Dst, Value, 1, Stream);
    } else if (Count == 4 && Dst % 4 == 0) {
      unsigned int Value;
      std::memcpy(&Value, Src, 4);
      DGLINK_CU(cuMemsetD32Async, Dst, Value, 1, Stream);
    } else {
      Written = false;
    }
    if (Written) {
      DGLINK_TRY(record(Done, Stream));
      if (Blocking)
        DGLINK_CU(cuStreamSynchronize, Stream);
      return PI_SUCCESS;
    }
  }
  if (!Blocking) {
    if (Tuning.AsyncRing && Count <= Tuning.RingBytes / Tuning.RingSegments)
      return writeThroughRing(Stream, Dst, Src, Count, Done);
    // The driver copies pageable memory into its own staging before returning.
    DGLINK_CU(cuMemcpyHtoDAsync, Dst, Src, Count, Stream);
    return record(Done, Stream);
  }
  if (Count <= Tuning.SmallBytes)
    return writeStaged(Stream, Dst, Src, Count, Done);
  if (Count >= PinnedCheckBytes && driverKnows(Src)) {
    DGLINK_CU(cuMemcpyAsync, Dst, reinterpret_cast<CUdeviceptr>(Src), Count, Stream);
  } else if (!Tuning.Pipeline) {
    DGLINK_CU(cuMemcpyHtoDAsync, Dst, Src, Count, Stream);
  } else {
    return writePipelined(Stream, Dst, Src, Count, Done);
  }
  DGLINK_TRY(record(Done, Stream));
  DGLINK_CU(cuStreamSynchronize, Stream);
  return PI_SUCCESS;
}

pi_result HostStaging::writeStaged(CUstream Stream, CUdeviceptr Dst, const void *Src,
                                   size_t Count, CUevent Done) {
  std::lock_guard<std::mutex> Lock(BlockingMutex);
  DGLINK_TRY(reserve(BlockingBuffer, std::max(Count, stagingTuning().SmallBytes)));
  std::memcpy(BlockingBuffer.Data, Src, Count);
  DGLINK_CU(cuMemcpyHtoDAsync, Dst, BlockingBuffer.Data, Count, Stream);
  DGLINK_TRY(record(Done, Stream));
  DGLINK_CU(cuStreamSynchronize, Stream);
  return PI_SUCCESS;
}

pi_result HostStaging::writePipelined(CUstream Stream, CUdeviceptr Dst, const void *Src,
                                      size_t Count, CUevent Done) {
  const StagingTuning &Tuning = stagingTuning();
  const size_t Chunk = chunkFor(Count, Tuning);
  const size_t Chunks = (Count + Chunk - 1) / Chunk;
  std::lock_guard<std::mutex> Lock(BlockingMutex);
  DGLINK_TRY(reserve(BlockingBuffer, Chunk * Tuning.Slots));
  DGLINK_TRY(reserveSlotEvents(Tuning.Slots));
  const auto *Source = static_cast<const char *>(Src);
  for (size_t I = 0; I < Chunks; ++I) {
    const size_t Slot = I % Tuning.Slots;
    const size_t Offset = I * Chunk;
    const size_t Length = std::min(Chunk, Count - Offset);
    if (I >= Tuning.Slots) // the slot's previous transfer must be done
      DGLINK_CU(cuEventSynchronize, SlotEvents[Slot]);
    char *Staging = BlockingBuffer.Data + Slot * Chunk;
    std::memcpy(Staging, Source + Offset, Length);
    DGLINK_CU(cuMemcpyHtoDAsync, Dst + Offset, Staging, Length, Stream);
    DGLINK_CU(cuEventRecord, SlotEvents[Slot], Stream);
  }
  DGLINK_TRY(record(Done, Stream));
  DGLINK_CU(cuStreamSynchronize, Stream);
  return PI_SUCCESS;
}

pi_result HostStaging::writeThroughRing(CUstream Stream, CUdeviceptr Dst, const void *Src,
                                        size_t Count, CUevent Done) {
  const StagingTuning &Tuning = stagingTuning();
  const size_t SegmentBytes = Tuning.RingBytes / Tuning.RingSegments;
  std::lock_guard<std::mutex> Lock(RingMutex);
  // Set up on first use; a setup that failed half-way (no events) is finished by the
  // next call rather than used.
  if (Ring.Data == nullptr || SegmentPending.size() != Tuning.RingSegments) {
    DGLINK_TRY(reserve(Ring, Tuning.RingBytes));
    while (SegmentEvents.size() < Tuning.RingSegments) {
      CUevent Event = nullptr;
      DGLINK_CU(cuEventCreate, &Event, CU_EVENT_DISABLE_TIMING);
      SegmentEvents.push_back(Event);
    }
    SegmentPending.assign(Tuning.RingSegments, false);
    Segment = 0;
    RingOffset = 0;
  }
  if (RingOffset + Count > (Segment + 1) * SegmentBytes) {
    // Leave the segment: its copies complete before this event does.
    DGLINK_CU(cuEventRecord, SegmentEvents[Segment], Stream);
    SegmentPending[Segment] = true;
    Segment = (Segment + 1) % Tuning.RingSegments;
    if (SegmentPending[Segment]) {
      DGLINK_CU(cuEventSynchronize, SegmentEvents[Segment]);
      SegmentPending[Segment] = false;
    }
    RingOffset = Segment * SegmentBytes;
  }
  char *Staging = Ring.Data + RingOffset;
  std::memcpy(Staging, Src, Count);
  DGLINK_CU(cuMemcpyHtoDAsync, Dst, Staging, Count, Stream);
  RingOffset += (Count + 63) & ~size_t(63);
  return record(Done, Stream);
}

pi_result HostStaging::read(CUstream Stream, void *Dst, CUdeviceptr Src, size_t Count,
                            bool Blocking, CUevent Done) {
  const StagingTuning &Tuning = stagingTuning();
  if (Count == 0)
    return record(Done, Stream);
  if (!Blocking) {
    // Into pageable memory the driver completes the copy before returning;
    // into pinned memory it stays asynchronous.
    DGLINK_CU(cuMemcpyDtoHAsync, Dst, Src, Count, Stream);
    return record(Done, Stream);
  }
  if (Count <= Tuning.SmallBytes)
    return readStaged(Stream, Dst, Src, Count, Done);
  if (Count >= PinnedCheckBytes && driverKnows(Dst)) {
    DGLINK_CU(cuMemcpyAsync, reinterpret_cast<CUdeviceptr>(Dst), Src, Count, Stream);
  } else if (!Tuning.Pipeline) {
    DGLINK_CU(cuMemcpyDtoHAsync, Dst, Src, Count, Stream);
  } else {
    return readPipelined(Stream, Dst, Src, Count, Done);
  }
  DGLINK_TRY(record(Done, Stream));
  DGLINK_CU(cuStreamSynchronize, Stream);
  return PI_SUCCESS;
}

pi_result HostStaging::readStaged(CUstream Stream, void *Dst, CUdeviceptr Src, size_t Count,
                                  CUevent Done) {
  std::lock_guard<std::mutex> Lock(BlockingMutex);
  DGLINK_TRY(reserve(BlockingBuffer, std::max(Count, stagingTuning().SmallBytes)));
  DGLINK_CU(cuMemcpyDtoHAsync, BlockingBuffer.Data, Src, Count, Stream);
  DGLINK_TRY(record(Done, Stream));
  DGLINK_CU(cuStreamSynchronize, Stream);
  std::memcpy(Dst, BlockingBuffer.Data, Count);
  return PI_SUCCESS;
}

pi_result HostStaging::readPipelined(CUstream Stream, void *Dst, CUdeviceptr Src, size_t Count,
                                     CUevent Done) {
  const StagingTuning &Tuning = stagingTuning();
  const size_t Chunk = chunkFor(Count, Tuning);
  const size_t Chunks = (Count + Chunk - 1) / Chunk;
  std::lock_guard<std::mutex> Lock(BlockingMutex);
  DGLINK_TRY(reserve(BlockingBuffer, Chunk * Tuning.Slots));
  DGLINK_TRY(reserveSlotEvents(Tuning.Slots));
  auto *Destination = static_cast<char *>(Dst);
  auto Enqueue = [&](size_t I) -> pi_result {
    const size_t Slot = I % Tuning.Slots;
    const size_t Offset = I * Chunk;
    DGLINK_CU(cuMemcpyDtoHAsync, BlockingBuffer.Data + Slot * Chunk, Src + Offset,
              std::min(Chunk, Count - Offset), Stream);
    DGLINK_CU(cuEventRecord, SlotEvents[Slot], Stream);
    return PI_SUCCESS;
  };
  for (size_t I = 0; I < Chunks && I < Tuning.Slots; ++I)
    DGLINK_TRY(Enqueue(I));
  for (size_t I = 0; I < Chunks; ++I) {
    const size_t Slot = I % Tuning.Slots;
    const size_t Offset = I * Chunk;
    DGLINK_CU(cuEventSynchronize, SlotEvents[Slot]);
    // Copy this chunk out while the next one is in flight, then refill the slot.
    std::memcpy(Destination + Offset, BlockingBuffer.Data + Slot * Chunk,
                std::min(Chunk, Count - Offset));
    if (I + Tuning.Slots < Chunks)
      DGLINK_TRY(Enqueue(I + Tuning.Slots));
  }
  return record(Done, Stream);
}

} // namespace dglink::cuda
