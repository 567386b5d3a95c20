// The copy engine: a queue's host<->device copies through pinned staging memory, on
// any driver of the stream shape. Blocking small copies bounce through one pinned
// buffer (drivers copy faster from pinned memory than from pageable), large pageable
// copies are pipelined in chunks through alternating slots, non-blocking small writes
// are captured in a pinned ring so the caller may reuse its source when the call
// returns, and 1/2/4-byte writes travel in a fill's pattern.
#pragma once

#include <dglink/pi.h>
#include <dglink/stream/driver.h>

#include <mutex>
#include <vector>

namespace dglink::stream {

// Knobs, read once from the environment (docs/stream-backend.md).
struct CopyTuning {
  size_t SmallBytes = size_t{64} * 1024;    // DGLINK_COPY_STAGING_BYTES: one staged copy up to this
  size_t ChunkBytes = size_t{256} * 1024;   // DGLINK_COPY_CHUNK_BYTES: largest pipeline chunk
  size_t MinChunkBytes = size_t{64} * 1024; // DGLINK_COPY_MIN_CHUNK_BYTES: smallest pipeline chunk
  unsigned Slots = 2;                       // DGLINK_COPY_STAGING_SLOTS: chunks in flight
  bool Pipeline = true;                     // DGLINK_COPY_PIPELINE=0: large pageable copies go
                                            // straight to the driver
  bool SmallWriteFill = true;               // DGLINK_COPY_SMALL_WRITE_FILL=0: 1/2/4-byte writes
                                            // staged like the others instead of filled
  bool AsyncRing = true;                    // DGLINK_COPY_ASYNC_RING=0: non-blocking writes from
                                            // pageable memory handed to the driver directly
  size_t RingBytes = size_t{512} * 1024;    // DGLINK_COPY_RING_BYTES
  unsigned RingSegments = 8;                // DGLINK_COPY_RING_SEGMENTS
};
const CopyTuning &copyTuning();

// The value of a 1, 2 or 4-byte pattern as the driver's fill takes it.
uint32_t patternValue(const void *Pattern, size_t Size);

class CopyEngine {
public:
  CopyEngine() = default;
  CopyEngine(const CopyEngine &) = delete;
  CopyEngine &operator=(const CopyEngine &) = delete;

  // Copies Count bytes of host memory at Src to device memory at Dst, ordered on S
  // after everything enqueued before, and records Done (if not null) after the copy.
  // Blocking: returns when the bytes are on the device. Not blocking: the copy
  // completes in stream order; PI lets the caller reuse Src once Done completes, and
  // pageable sources (the usual case) may in fact be reused at once (captured in the
  // ring, a fill or the driver's own staging).
  pi_result write(Driver &D, Stream S, void *Dst, const void *Src, size_t Count, bool Blocking,
                  Event Done);

  // Copies Count bytes of device memory at Src to host memory at Dst. Blocking:
  // returns with Dst filled. Not blocking: Dst is filled when Done completes.
  pi_result read(Driver &D, Stream S, void *Dst, const void *Src, size_t Count, bool Blocking,
                 Event Done);

  // Frees the pinned memory and events; the stream must be idle and the device
  // current.
  void release(Driver &D);

private:
  struct PinnedBuffer {
    char *Data = nullptr;
    size_t Size = 0;
  };
  static pi_result reserve(Driver &D, PinnedBuffer &Buffer, size_t Size);
  pi_result reserveSlotEvents(Driver &D, size_t Count);

  pi_result writeStaged(Driver &D, Stream S, char *Dst, const void *Src, size_t Count, Event Done);
  pi_result writePipelined(Driver &D, Stream S, char *Dst, const void *Src, size_t Count,
                           Event Done);
  pi_result writeThroughRing(Driver &D, Stream S, char *Dst, const void *Src, size_t Count,
                             Event Done);
  pi_result readStaged(Driver &D, Stream S, void *Dst, const char *Src, size_t Count, Event Done);
  pi_result readPipelined(Driver &D, Stream S, void *Dst, const char *Src, size_t Count,
                          Event Done);

  // Blocking copies: one pinned buffer, also the pipeline's slots.
  std::mutex BlockingMutex;
  PinnedBuffer BlockingBuffer;
  std::vector<Event> SlotEvents;

  // Non-blocking writes: a ring of segments; an event recorded when the ring leaves a
  // segment tells when the segment may be overwritten.
  std::mutex RingMutex;
  PinnedBuffer Ring;
  std::vector<Event> SegmentEvents;
  std::vector<bool> SegmentPending;
  unsigned Segment = 0;
  size_t RingOffset = 0;
};

} // namespace dglink::stream
