// Host<->device copies of a queue through pinned staging memory: blocking small
// copies bounce through one pinned buffer (the driver is faster from pinned
// memory than from pageable), large pageable copies are pipelined in chunks
// through alternating slots, non-blocking small writes are copied into a pinned
// ring so the caller may reuse its source as soon as the call returns.
#pragma once

#include "cuda_driver.h"

#include <dglink/pi.h>

#include <mutex>
#include <vector>

namespace dglink::cuda {

// Knobs, read once from the environment (see docs/cuda.md).
struct StagingTuning {
  size_t SmallBytes = 64 * 1024;       // DGLINK_CUDA_STAGING_BYTES: one staged copy up to this
  size_t ChunkBytes = 256 * 1024;      // DGLINK_CUDA_CHUNK_BYTES: largest pipeline chunk
  size_t MinChunkBytes = 64 * 1024;    // DGLINK_CUDA_MIN_CHUNK_BYTES: smallest pipeline chunk
  unsigned Slots = 2;                  // DGLINK_CUDA_STAGING_SLOTS: chunks in flight
  bool Pipeline = true;                // DGLINK_CUDA_PIPELINE=0: large pageable copies go
                                       // straight to the driver
  bool SmallWriteMemset = true;        // DGLINK_CUDA_SMALL_WRITE_MEMSET=0: 1/2/4-byte writes
                                       // staged like the others instead of cuMemsetD*Async
  bool AsyncRing = true;               // DGLINK_CUDA_ASYNC_RING=0: non-blocking writes from
                                       // pageable memory handed to the driver directly
  size_t RingBytes = 512 * 1024;       // DGLINK_CUDA_RING_BYTES
  unsigned RingSegments = 8;           // DGLINK_CUDA_RING_SEGMENTS
};
const StagingTuning &stagingTuning();

class HostStaging {
public:
  HostStaging() = default;
  HostStaging(const HostStaging &) = delete;
  HostStaging &operator=(const HostStaging &) = delete;

  // Copies Count bytes of host memory at Src to device address Dst, ordered on
  // Stream after everything enqueued before. Records Done (if not null) after
  // the copy. Blocking: returns when the bytes are on the device. Not blocking:
  // the device copy completes in stream order; as PI promises no more, Src must
  // stay untouched until Done completes, but pageable sources (the usual case)
  // may in fact be reused at once: they are captured in the pinned ring, a
  // memset or the driver's own staging. Pinned sources over the ring's segment
  // size are read by the device later.
  pi_result write(CUstream Stream, CUdeviceptr Dst, const void *Src, size_t Count,
                  bool Blocking, CUevent Done);

  // Copies Count bytes at device address Src to host memory at Dst. Blocking:
  // returns with Dst filled. Not blocking: Dst is filled when Done completes
  // (a pageable Dst makes the driver complete the copy before returning).
  pi_result read(CUstream Stream, void *Dst, CUdeviceptr Src, size_t Count, bool Blocking,
                 CUevent Done);

  // Frees the pinned memory and events; the stream must be idle and the
  // queue's context current.
  void release();

private:
  struct PinnedBuffer {
    char *Data = nullptr;
    size_t Size = 0;
  };
  pi_result reserve(PinnedBuffer &Buffer, size_t Size);
  pi_result reserveSlotEvents(size_t Count);

  pi_result writeStaged(CUstream Stream, CUdeviceptr Dst, const void *Src, size_t Count,
                        CUevent Done);
  pi_result writePipelined(CUstream Stream, CUdeviceptr Dst, const void *Src, size_t Count,
                           CUevent Done);
  pi_result writeThroughRing(CUstream Stream, CUdeviceptr Dst, const void *Src, size_t Count,
                             CUevent Done);
  pi_result readStaged(CUstream Stream, void *Dst, CUdeviceptr Src, size_t Count,
                       CUevent Done);
  pi_result readPipelined(CUstream Stream, void *Dst, CUdeviceptr Src, size_t Count,
                          CUevent Done);

  // Blocking copies: one pinned buffer, also the pipeline's slots.
  std::mutex BlockingMutex;
  PinnedBuffer BlockingBuffer;
  std::vector<CUevent> SlotEvents;

  // Non-blocking writes: a ring of segments; an event recorded when the ring
  // leaves a segment tells when the segment may be overwritten.
  std::mutex RingMutex;
  PinnedBuffer Ring;
  std::vector<CUevent> SegmentEvents;
  std::vector<bool> SegmentPending;
  unsigned Segment = 0;
  size_t RingOffset = 0;
};

} // namespace dglink::cuda
