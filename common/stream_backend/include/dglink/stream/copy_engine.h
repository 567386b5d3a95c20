// The copy engine: a queue's host<->device copies through pinned staging memory, on
// any driver of the stream shape. 1/2/4-byte writes travel in a fill's pattern; small
// blocking copies bounce through one pinned buffer; large copies from or to pageable
// memory are split in chunks whose host side is copied by several threads of the
// adapter's HostCopyPool (streaming stores into staging, so that the DMA engine reads
// clean memory) while the driver moves the chunk before; non-blocking writes are
// captured in pinned memory (a ring for small ones, a pool of blocks sized by use for
// large ones) so that the caller may reuse its source when the call returns.
#pragma once

#include <dglink/pi.h>
#include <dglink/stream/driver.h>
#include <dglink/stream/host_copy.h>

#include <mutex>
#include <string>
#include <vector>

namespace dglink::stream {

// Knobs, read once from the environment (docs/stream-backend.md).
struct CopyTuning {
  size_t SmallBytes = size_t{64} * 1024;    // DGLINK_COPY_STAGING_BYTES: one staged copy up to this
  size_t ChunkBytes = size_t{256} * 1024;   // DGLINK_COPY_CHUNK_BYTES: largest one-thread chunk
  size_t MinChunkBytes = size_t{64} * 1024; // DGLINK_COPY_MIN_CHUNK_BYTES: smallest one
  unsigned Slots = 2;                    // DGLINK_COPY_STAGING_SLOTS: one-thread chunks in flight
  bool Pipeline = true;                  // DGLINK_COPY_PIPELINE=0: large pageable copies go
                                         // straight to the driver
  bool SmallWriteFill = true;            // DGLINK_COPY_SMALL_WRITE_FILL=0: 1/2/4-byte writes
                                         // staged like the others instead of filled
  bool AsyncRing = true;                 // DGLINK_COPY_ASYNC_RING=0: non-blocking writes from
                                         // pageable memory handed to the driver directly
  size_t RingBytes = size_t{512} * 1024; // DGLINK_COPY_RING_BYTES
  unsigned RingSegments = 8;             // DGLINK_COPY_RING_SEGMENTS
  // The host threads (HostCopyPool).
  unsigned Threads = 8;                         // DGLINK_COPY_THREADS: per write, the
                                                // caller's included (1: no worker threads);
                                                // default half the usable cores, at most 8
  size_t ParallelBytes = size_t{64} * 1024;     // DGLINK_COPY_PARALLEL_BYTES: copies from this
                                                // size on use the threads (H100: 4 threads
                                                // fill 64 KiB of staging in less time than
                                                // one)
  unsigned ReadThreads = 15;                    // DGLINK_COPY_READ_THREADS: per read, the
                                                // caller's included; default up to 16 cores
                                                // the cores but one (15), above half the
                                                // cores, at most 31 (4xH200 host: 31 threads
                                                // read 4 MiB in 124 us, 15 in 160)
  size_t PieceBytes = size_t{16} * 1024;        // DGLINK_COPY_PIECE_BYTES: least bytes per thread
  unsigned SpinMicroseconds = 100;              // DGLINK_COPY_SPIN_US: idle workers spin this long
  unsigned ShareWindowMicroseconds = 1000;      // DGLINK_COPY_SHARE_WINDOW_US: a copy's share of
                                                // the pool counts every thread that copied
                                                // within about this long (0: only those
                                                // copying at that instant)
  size_t WriteChunkBytes = size_t{1} << 20;     // DGLINK_COPY_WRITE_CHUNK_BYTES: threaded writes
                                                // move in chunks of this (the next one is
                                                // copied while the driver moves this one)
  size_t ReadChunkBytes = size_t{512} * 1024;   // DGLINK_COPY_READ_CHUNK_BYTES: threaded reads
                                                // (H100, lock-free pool: 256 and 512 KiB beat
                                                // 1 MiB at 1 and 4 MiB)
  bool NonTemporal = true;                      // DGLINK_COPY_NONTEMPORAL=0: plain stores into
                                                // the staging memory of writes
  bool ReadNonTemporal = true;                  // DGLINK_COPY_READ_NONTEMPORAL=0: plain stores
                                                // into the caller's memory on threaded reads
  size_t StagingLimitBytes = size_t{16} << 20;  // DGLINK_COPY_POOL_BYTES: pinned staging a
                                                // queue keeps for large copies; larger copies
                                                // cycle through it
  bool AsyncPool = true;                        // DGLINK_COPY_ASYNC_POOL=0: large non-blocking
                                                // writes go to the driver directly
  bool StagedNonBlockingReads = true;           // DGLINK_COPY_STAGED_NONBLOCKING_READS=0:
                                                // non-blocking reads into pageable memory go
                                                // to the driver (which completes them before
                                                // returning, one thread, slower at every
                                                // size on the H100 host)
  size_t UsmBytes = size_t{64} * 1024;          // DGLINK_COPY_USM_BYTES: USM copies between
                                                // pageable memory and the adapter's device
                                                // USM from this size on go through the
                                                // engine (smaller ones to the driver: the
                                                // pointer question would cost more than
                                                // staging saves; 4xH200 host, 64 KiB in
                                                // three alternated runs: 0.72-0.83x raw
                                                // through the engine, 0.98-1.27x by the driver)
  size_t PinnedCheckBytes = size_t{256} * 1024; // DGLINK_COPY_PINNED_CHECK_BYTES: copies from
                                                // this size on first ask the driver whether
                                                // the host memory is pinned (then no
                                                // staging); the question cost up to about
                                                // 2 us for pageable memory on the H100 host

  // The pool's threads: never fewer than the most either kind of copy uses.
  unsigned PoolThreads = 0; // DGLINK_COPY_POOL_THREADS: the pool's threads, the callers'
                            // places included; 0 (the default): as many as one copy may
                            // use, the larger of Threads and ReadThreads (a pool of the
                            // cores but one lost with four GPUs at once on the 4xH200 host:
                            // each copy takes its share once, at its start, and four that
                            // take 15 each left the driver's threads and the memory no room;
                            // docs/stream-backend.md)
  unsigned poolThreads() const {
    const unsigned PerCopy = Threads > ReadThreads ? Threads : ReadThreads;
    return PoolThreads > PerCopy ? PoolThreads : PerCopy;
  }
};
// The knobs as the environment sets them now (warnings name every value ignored).
CopyTuning copyTuningFromEnvironment();
// The knobs read once, for the process.
const CopyTuning &copyTuning();

// Parses a knob's text as an integer in [Min, Max]; false (Problem says why) where it
// is not one.
bool parseKnob(const char *Text, size_t Min, size_t Max, size_t &Value, std::string &Problem);

// The value of a 1, 2 or 4-byte pattern as the driver's fill takes it.
uint32_t patternValue(const void *Pattern, size_t Size);

// What the caller knows of a copy's host memory: the adapter's own pinned allocations,
// memory it has asked the driver about and found pageable, or nothing (the engine asks
// the driver itself from PinnedCheckBytes on).
enum class HostMemory { Unknown, Pinned, Pageable };

class CopyEngine {
public:
  // Pool: the host threads of large copies, shared by every queue of the adapter.
  explicit CopyEngine(HostCopyPool &ThePool, const CopyTuning &TheTuning = copyTuning())
      : Pool(ThePool), Tuning(TheTuning) {}
  CopyEngine(const CopyEngine &) = delete;
  CopyEngine &operator=(const CopyEngine &) = delete;

  // Copies Count bytes of host memory at Src to device memory at Dst, ordered on S
  // after everything enqueued before, and records Done (if not null) after the copy.
  // Blocking: returns when the bytes are on the device. Not blocking: the copy
  // completes in stream order; PI lets the caller reuse Src once Done completes, and
  // pageable sources (the usual case) may in fact be reused at once (captured in the
  // ring, a fill or the driver's own staging).
  // Host: Pinned (the adapter's own USM host allocations): the driver copies it directly
  // at every size, without staging and, not blocking, without waiting; Pageable: staged
  // without asking the driver.
  pi_result write(Driver &D, Stream S, void *Dst, const void *Src, size_t Count, bool Blocking,
                  Event Done, HostMemory Host = HostMemory::Unknown);

  // Copies Count bytes of device memory at Src to host memory at Dst. Blocking:
  // returns with Dst filled. Not blocking: Dst is filled when Done completes; into
  // pageable memory (StagedNonBlockingReads) it is already filled when the call
  // returns, as the driver's own non-blocking read into pageable memory is, but
  // through staging.
  pi_result read(Driver &D, Stream S, void *Dst, const void *Src, size_t Count, bool Blocking,
                 Event Done, HostMemory Host = HostMemory::Unknown);

  // Frees the pinned memory and events; the stream must be idle and the device
  // current.
  void release(Driver &D);

private:
  struct PinnedBuffer {
    char *Data = nullptr;
    size_t Size = 0;
  };
  // A block of the pool of non-blocking writes: free again once Done completes.
  struct AsyncBlock {
    PinnedBuffer Memory;
    Event Done = nullptr;
    bool Pending = false;
  };
  // How a large blocking copy moves: Chunks chunks of Chunk bytes through Slots slots.
  struct Plan {
    size_t Chunk = 0;
    size_t Chunks = 0;
    size_t Slots = 0;
  };
  bool threaded(size_t Count, bool IsRead) const;
  // Whether Count bytes of host memory at Host are pinned: the caller's word, else the
  // driver's from PinnedCheckBytes on (smaller copies are staged either way).
  bool pinned(Driver &D, const void *Host, size_t Count, HostMemory Known) const;
  Plan plan(size_t Count, bool IsWrite) const;
  static pi_result reserve(Driver &D, PinnedBuffer &Buffer, size_t Size);
  pi_result reserveSlotEvents(Driver &D, size_t Count);
  // Host side of one chunk: the pool's threads where it is large enough.
  void hostCopy(void *Dst, const void *Src, size_t Count, bool Streaming, bool IsRead);

  pi_result writeStaged(Driver &D, Stream S, char *Dst, const void *Src, size_t Count, Event Done);
  pi_result writePipelined(Driver &D, Stream S, char *Dst, const void *Src, size_t Count,
                           Event Done);
  pi_result writeThroughRing(Driver &D, Stream S, char *Dst, const void *Src, size_t Count,
                             Event Done);
  pi_result writeThroughPool(Driver &D, Stream S, char *Dst, const void *Src, size_t Count,
                             Event Done);
  pi_result readStaged(Driver &D, Stream S, void *Dst, const char *Src, size_t Count, Event Done);
  pi_result readPipelined(Driver &D, Stream S, void *Dst, const char *Src, size_t Count,
                          Event Done);

  HostCopyPool &Pool;
  const CopyTuning Tuning;

  // Blocking copies: one pinned buffer, also the pipeline's slots; it grows to the
  // largest copy seen, up to StagingLimitBytes.
  std::mutex BlockingMutex;
  PinnedBuffer BlockingBuffer;
  std::vector<Event> SlotEvents;

  // Non-blocking writes: a ring of segments; an event recorded when the ring leaves a
  // segment tells when the segment may be overwritten. Large ones: blocks.
  std::mutex RingMutex;
  PinnedBuffer Ring;
  std::vector<Event> SegmentEvents;
  std::vector<bool> SegmentPending;
  unsigned Segment = 0;
  size_t RingOffset = 0;
  std::vector<AsyncBlock> Blocks;
  size_t BlockBytes = 0; // the blocks' total
};

} // namespace dglink::stream
