// Staged, pipelined and ring-buffered host<->device copies of a queue.
#include <dglink/stream/copy_engine.h>

#include <dglink/support/error.h>
#include <dglink/support/log.h>

#include <algorithm>
#include <cstring>
#include <string>

namespace dglink::stream {
namespace {

// From this size on the bounce buffer is filled with streaming stores. Below it they
// cost more than they save: on the H100 host a 16 KiB write took 11.6-13.0 us with them
// and 8.1-8.3 with memcpy (the driver moves pinned copies below 32 KiB otherwise than
// larger ones: a 24 KiB pinned copy takes 8.7-9.0 us, a 32 KiB one 7.7);
// docs/stream-backend.md.
constexpr size_t StreamingBounceBytes = size_t{32} * 1024;

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

void CopyEngine::hostCopy(void *Dst, const void *Src, size_t Count, bool Streaming, bool IsRead) {
  if (threaded(Count, IsRead))
    Pool.copy(Dst, Src, Count, Tuning.PieceBytes, Streaming,
              IsRead ? Tuning.ReadThreads : Tuning.Threads);
  else if (Streaming)
    host_copy::copyNonTemporal(Dst, Src, Count);
  else
    std::memcpy(Dst, Src, Count);
}

void CopyEngine::release(Driver &D) {
  for (PinnedBuffer *Buffer : {&BlockingBuffer, &Ring})
    if (Buffer->Data != nullptr) {
      (void)D.freeHost(Buffer->Data);
      *Buffer = PinnedBuffer();
    }
  for (AsyncBlock &Block : Blocks) {
    (void)D.freeHost(Block.Memory.Data);
    D.destroyEvent(Block.Done);
  }
  Blocks.clear();
  BlockBytes = 0;
  for (Event E : SlotEvents)
    D.destroyEvent(E);
  for (Event E : SegmentEvents)
    D.destroyEvent(E);
  SlotEvents.clear();
  SegmentEvents.clear();
  SegmentPending.clear();
}

bool CopyEngine::threaded(size_t Count, bool IsRead) const {
  return (IsRead ? Tuning.ReadThreads : Tuning.Threads) > 1 && Count >= Tuning.ParallelBytes;
}

bool CopyEngine::pinned(Driver &D, const void *Host, size_t Count, HostMemory Known) const {
  if (Known != HostMemory::Unknown)
    return Known == HostMemory::Pinned;
  return Count >= Tuning.PinnedCheckBytes && D.knowsHostPointer(Host);
}

pi_result CopyEngine::write(Driver &D, Stream S, void *Dst, const void *Src, size_t Count,
                            bool Blocking, Event Done, HostMemory Host) {
  auto *Target = static_cast<char *>(Dst);
  if (Count == 0)
    return recordDone(D, Done, S);
  uint32_t Value = 0;
  if (Tuning.SmallWriteFill && Count <= 4 && asFill(Src, Count, Target, Value)) {
    // The value travels in the fill's pattern: no host memory is read later, and a
    // fill is the cheapest operation that writes device memory.
    DGLINK_TRY(D.fill(Target, Value, static_cast<unsigned>(Count), 1, S));
    return complete(D, S, Done, Blocking);
  }
  if (Host == HostMemory::Pinned) {
    // The adapter's own pinned memory: the driver reads it, asynchronously; PI lets the
    // caller reuse it once Done completes.
    DGLINK_TRY(D.copy(Target, Src, Count, S));
    return complete(D, S, Done, Blocking);
  }
  if (!Blocking) {
    if (Tuning.AsyncRing && Count <= Tuning.RingBytes / Tuning.RingSegments)
      return writeThroughRing(D, S, Target, Src, Count, Done);
    if (Tuning.AsyncPool && Count <= Tuning.StagingLimitBytes && !pinned(D, Src, Count, Host))
      return writeThroughPool(D, S, Target, Src, Count, Done);
    // The driver copies pageable memory into its own staging before returning.
    DGLINK_TRY(D.copyToDevice(Target, Src, Count, S));
    return recordDone(D, Done, S);
  }
  if (Count <= Tuning.SmallBytes && !threaded(Count, false))
    return writeStaged(D, S, Target, Src, Count, Done);
  if (pinned(D, Src, Count, Host)) {
    DGLINK_TRY(D.copy(Target, Src, Count, S));
  } else if (!Tuning.Pipeline) {
    DGLINK_TRY(D.copyToDevice(Target, Src, Count, S));
  } else {
    return writePipelined(D, S, Target, Src, Count, Done);
  }
  return complete(D, S, Done, true);
}

pi_result CopyEngine::writeStaged(Driver &D, Stream S, char *Dst, const void *Src, size_t Count,
                                  Event Done) {
  std::lock_guard<std::mutex> Lock(BlockingMutex);
  DGLINK_TRY(reserve(D, BlockingBuffer, std::max(Count, Tuning.SmallBytes)));
  // Streaming stores from 32 KiB on leave clean lines for the DMA (H100 host, 64 KiB:
  // 11.9 us against 13.8 with memcpy; below 32 KiB they cost more than they save).
  if (Tuning.NonTemporal && Count >= StreamingBounceBytes)
    host_copy::copyNonTemporal(BlockingBuffer.Data, Src, Count);
  else
    std::memcpy(BlockingBuffer.Data, Src, Count);
  DGLINK_TRY(D.copyToDevice(Dst, BlockingBuffer.Data, Count, S));
  return complete(D, S, Done, true);
}

CopyEngine::Plan CopyEngine::plan(size_t Count, bool IsWrite) const {
  Plan P;
  if (threaded(Count, !IsWrite)) {
    // Threads fill (or drain) a chunk while the driver moves the one before; the
    // staging memory grows to the copy, up to the limit, then its slots are reused.
    P.Chunk = std::min(IsWrite ? Tuning.WriteChunkBytes : Tuning.ReadChunkBytes, Count);
    P.Chunks = (Count + P.Chunk - 1) / P.Chunk;
    // At least two slots (one filling, one moving), never more than chunks (std::clamp
    // would be given a lower bound above the upper one for a copy of one chunk).
    P.Slots = std::min(std::max<size_t>(Tuning.StagingLimitBytes / P.Chunk, 2), P.Chunks);
  } else {
    P.Chunk = chunkFor(Count, Tuning);
    P.Chunks = (Count + P.Chunk - 1) / P.Chunk;
    P.Slots = Tuning.Slots;
  }
  P.Slots = std::max<size_t>(std::min(P.Slots, P.Chunks), 1);
  return P;
}

bool CopyEngine::paced(const Plan &P, size_t Count, bool IsRead) const {
  return Tuning.Paced && threaded(Count, IsRead) && P.Chunks <= P.Slots;
}

pi_result CopyEngine::writePaced(Driver &D, Stream S, char *Dst, const void *Src, size_t Count,
                                 const Plan &P, Event Done) {
  // With the lock held: the staging holds the whole copy, chunk I at I * Chunk.
  char *Staging = BlockingBuffer.Data;
  size_t Handed = 0;
  pi_result Failed = PI_SUCCESS;
  const size_t Piece = std::max(Tuning.PieceBytes, P.Chunk / std::max(Tuning.Threads, 1U));
  Pool.copyPaced(Staging, Src, Count, Piece, Tuning.NonTemporal, Tuning.Threads,
                 [&](size_t Copied) -> size_t {
                   // Every whole chunk filled goes to the driver (the last one when all is).
                   while (Handed < Count) {
                     const size_t Length = std::min(P.Chunk, Count - Handed);
                     if (Copied < Handed + Length)
                       break;
                     Failed = D.copyToDevice(Dst + Handed, Staging + Handed, Length, S);
                     if (Failed != PI_SUCCESS)
                       return HostCopyPool::Stop;
                     Handed += Length;
                   }
                   return Count; // the caller's memory is there from the start
                 });
  if (Failed != PI_SUCCESS) {
    (void)D.synchronize(S); // nothing in flight reads the staging once the lock is let go
    return Failed;
  }
  return complete(D, S, Done, true);
}

pi_result CopyEngine::readPaced(Driver &D, Stream S, char *Dst, const char *Src, size_t Count,
                                const Plan &P, Event Done) {
  // With the lock held: every chunk in flight at once, chunk I into I * Chunk.
  char *Staging = BlockingBuffer.Data;
  pi_result Failed = PI_SUCCESS;
  for (size_t I = 0; I < P.Chunks && Failed == PI_SUCCESS; ++I) {
    const size_t Offset = I * P.Chunk;
    Failed = D.copyToHost(Staging + Offset, Src + Offset, std::min(P.Chunk, Count - Offset), S);
    if (Failed == PI_SUCCESS)
      Failed = D.record(SlotEvents[I], S);
  }
  if (Failed != PI_SUCCESS) {
    (void)D.synchronize(S); // the chunks already asked for land before the lock is let go
    return Failed;
  }
  size_t Landed = 0;
  const size_t Piece = std::max(Tuning.PieceBytes, P.Chunk / std::max(Tuning.ReadThreads, 1U));
  Pool.copyPaced(Dst, Staging, Count, Piece, Tuning.ReadNonTemporal, Tuning.ReadThreads,
                 [&](size_t) -> size_t {
                   // The chunks land in order: open each one the driver says is done.
                   while (Landed < P.Chunks) {
                     bool Complete = false;
                     Failed = D.query(SlotEvents[Landed], Complete);
                     if (Failed != PI_SUCCESS)
                       return HostCopyPool::Stop;
                     if (!Complete)
                       break;
                     ++Landed;
                   }
                   return std::min(Landed * P.Chunk, Count);
                 });
  if (Failed != PI_SUCCESS) {
    (void)D.synchronize(S); // nothing in flight writes the staging once the lock is let go
    return Failed;
  }
  return recordDone(D, Done, S);
}

pi_result CopyEngine::writePipelined(Driver &D, Stream S, char *Dst, const void *Src, size_t Count,
                                     Event Done) {
  const Plan P = plan(Count, true);
  std::lock_guard<std::mutex> Lock(BlockingMutex);
  DGLINK_TRY(reserve(D, BlockingBuffer, P.Chunk * P.Slots));
  if (paced(P, Count, false))
    return writePaced(D, S, Dst, Src, Count, P, Done);
  DGLINK_TRY(reserveSlotEvents(D, P.Slots));
  const auto *Source = static_cast<const char *>(Src);
  for (size_t I = 0; I < P.Chunks; ++I) {
    const size_t Slot = I % P.Slots;
    const size_t Offset = I * P.Chunk;
    const size_t Length = std::min(P.Chunk, Count - Offset);
    if (I >= P.Slots) // the slot's previous transfer must be done
      DGLINK_TRY(D.synchronize(SlotEvents[Slot]));
    char *Staging = BlockingBuffer.Data + Slot * P.Chunk;
    hostCopy(Staging, Source + Offset, Length, Tuning.NonTemporal, false);
    DGLINK_TRY(D.copyToDevice(Dst + Offset, Staging, Length, S));
    if (I + P.Slots < P.Chunks)
      DGLINK_TRY(D.record(SlotEvents[Slot], S));
  }
  return complete(D, S, Done, true);
}

pi_result CopyEngine::writeThroughRing(Driver &D, Stream S, char *Dst, const void *Src,
                                       size_t Count, Event Done) {
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

pi_result CopyEngine::writeThroughPool(Driver &D, Stream S, char *Dst, const void *Src,
                                       size_t Count, Event Done) {
  std::lock_guard<std::mutex> Lock(RingMutex);
  auto FindFree = [&](AsyncBlock *&Found) -> pi_result {
    Found = nullptr;
    for (AsyncBlock &Block : Blocks) {
      if (Block.Memory.Size < Count)
        continue;
      if (Block.Pending) {
        bool Complete = false;
        DGLINK_TRY(D.query(Block.Done, Complete));
        Block.Pending = !Complete;
      }
      if (!Block.Pending && (Found == nullptr || Block.Memory.Size < Found->Memory.Size))
        Found = &Block;
    }
    return PI_SUCCESS;
  };
  AsyncBlock *Block = nullptr;
  DGLINK_TRY(FindFree(Block));
  // Blocks in powers of two from 64 KiB, so that copies of similar sizes share them.
  size_t Rounded = size_t{64} * 1024;
  while (Rounded < Count)
    Rounded *= 2;
  if (Block == nullptr && BlockBytes + Rounded > Tuning.StagingLimitBytes && !Blocks.empty()) {
    // The pool is full: wait for this queue's earlier copies, then drop the blocks too
    // small for this copy.
    DGLINK_TRY(D.synchronize(S));
    for (auto It = Blocks.begin(); It != Blocks.end();) {
      It->Pending = false;
      if (It->Memory.Size >= Count) {
        ++It;
        continue;
      }
      (void)D.freeHost(It->Memory.Data);
      D.destroyEvent(It->Done);
      BlockBytes -= It->Memory.Size;
      It = Blocks.erase(It);
    }
    DGLINK_TRY(FindFree(Block));
  }
  if (Block == nullptr) {
    AsyncBlock New;
    DGLINK_TRY(reserve(D, New.Memory, Rounded));
    if (const pi_result Result = D.createEvent(New.Done); Result != PI_SUCCESS) {
      (void)D.freeHost(New.Memory.Data);
      return Result;
    }
    BlockBytes += New.Memory.Size;
    Blocks.push_back(New);
    Block = &Blocks.back();
  }
  hostCopy(Block->Memory.Data, Src, Count, Tuning.NonTemporal, false);
  DGLINK_TRY(D.copyToDevice(Dst, Block->Memory.Data, Count, S));
  DGLINK_TRY(D.record(Block->Done, S));
  Block->Pending = true;
  return recordDone(D, Done, S);
}

pi_result CopyEngine::read(Driver &D, Stream S, void *Dst, const void *Src, size_t Count,
                           bool Blocking, Event Done, HostMemory Host) {
  const auto *Source = static_cast<const char *>(Src);
  if (Count == 0)
    return recordDone(D, Done, S);
  if (!Blocking && Host != HostMemory::Pinned && !Tuning.StagedNonBlockingReads) {
    // The driver: into pageable memory it completes the copy before returning, into
    // pinned memory it stays asynchronous.
    DGLINK_TRY(D.copyToHost(Dst, Source, Count, S));
    return recordDone(D, Done, S);
  }
  if (pinned(D, Dst, Count, Host)) {
    // Pinned memory: the driver writes it directly, asynchronously.
    DGLINK_TRY(D.copy(Dst, Source, Count, S));
    return complete(D, S, Done, Blocking);
  }
  // Into pageable memory a non-blocking read is done like a blocking one: the driver's
  // own would complete before returning too, staged by one thread; through the staging
  // here it costs less at every size (H100 host: 4 B 6.2 us against 6.5, 64 KiB 11.1
  // against 13.4; docs/stream-backend.md). The bytes are in Dst when the call returns;
  // Done completes in stream order after them.
  if (Count <= Tuning.SmallBytes && !threaded(Count, true))
    return readStaged(D, S, Dst, Source, Count, Done);
  if (!Tuning.Pipeline) {
    DGLINK_TRY(D.copyToHost(Dst, Source, Count, S));
  } else {
    return readPipelined(D, S, Dst, Source, Count, Done);
  }
  return complete(D, S, Done, true);
}

pi_result CopyEngine::readStaged(Driver &D, Stream S, void *Dst, const char *Src, size_t Count,
                                 Event Done) {
  std::lock_guard<std::mutex> Lock(BlockingMutex);
  DGLINK_TRY(reserve(D, BlockingBuffer, std::max(Count, Tuning.SmallBytes)));
  DGLINK_TRY(D.copyToHost(BlockingBuffer.Data, Src, Count, S));
  DGLINK_TRY(recordDone(D, Done, S));
  DGLINK_TRY(D.synchronize(S));
  std::memcpy(Dst, BlockingBuffer.Data, Count);
  return PI_SUCCESS;
}

pi_result CopyEngine::readPipelined(Driver &D, Stream S, void *Dst, const char *Src, size_t Count,
                                    Event Done) {
  const Plan P = plan(Count, false);
  const bool Streaming = threaded(Count, true) && Tuning.ReadNonTemporal;
  std::lock_guard<std::mutex> Lock(BlockingMutex);
  DGLINK_TRY(reserve(D, BlockingBuffer, P.Chunk * P.Slots));
  DGLINK_TRY(reserveSlotEvents(D, P.Slots));
  auto *Destination = static_cast<char *>(Dst);
  if (paced(P, Count, true))
    return readPaced(D, S, Destination, Src, Count, P, Done);
  auto Enqueue = [&](size_t I) -> pi_result {
    const size_t Slot = I % P.Slots;
    const size_t Offset = I * P.Chunk;
    DGLINK_TRY(D.copyToHost(BlockingBuffer.Data + Slot * P.Chunk, Src + Offset,
                            std::min(P.Chunk, Count - Offset), S));
    return D.record(SlotEvents[Slot], S);
  };
  for (size_t I = 0; I < P.Chunks && I < P.Slots; ++I)
    DGLINK_TRY(Enqueue(I));
  for (size_t I = 0; I < P.Chunks; ++I) {
    const size_t Slot = I % P.Slots;
    const size_t Offset = I * P.Chunk;
    DGLINK_TRY(D.synchronize(SlotEvents[Slot]));
    // Copy this chunk out while the next ones are in flight, then refill the slot.
    hostCopy(Destination + Offset, BlockingBuffer.Data + Slot * P.Chunk,
             std::min(P.Chunk, Count - Offset), Streaming, true);
    if (I + P.Slots < P.Chunks)
      DGLINK_TRY(Enqueue(I + P.Slots));
  }
  return recordDone(D, Done, S);
}

} // namespace dglink::stream
