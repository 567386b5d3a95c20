// The copy engine: a queue's host<->device copies through pinned staging memory, on
// any driver of the stream shape. 1/2/4-byte writes travel in a fill's pattern; small
// blocking copies bounce through one pinned buffer; large copies from or to pageable
// memory are split in chunks whose host side is copied by several threads of the
// adapter's HostCopyPool (streaming stores into staging, so that the DMA engine reads
// clean memory) while the driver moves the chunk before; non-blocking writes are
// captured in pinned memory (a ring for small ones, a pool of blocks sized by use for
// large ones) so that the caller may reuse its source when the call returns.
#pragma once

#include <dglink/host_copy/host_copy.h>
#include <dglink/host_copy/tuning.h>
#include <dglink/pi.h>
#include <dglink/stream/driver.h>

#include <mutex>
#include <string>
#include <vector>

namespace dglink::stream {

// The host side and the knobs are shared with the OpenCL adapter's staging
// (common/host_copy).
using host_copy::copyTuning;
using host_copy::CopyTuning;
using host_copy::HostCopyPool;
using host_copy::PinnedRanges;

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
  // Threaded copies that fit the staging, as one paced pool copy (Tuning.Paced): the
  // threads flow from chunk to chunk while the caller hands the driver each filled
  // chunk (writes) or opens each landed one (reads).
  bool paced(const Plan &P, size_t Count, bool IsRead) const;
  pi_result writePaced(Driver &D, Stream S, char *Dst, const void *Src, size_t Count, const Plan &P,
                       Event Done);
  pi_result readPaced(Driver &D, Stream S, char *Dst, const char *Src, size_t Count, const Plan &P,
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
