// The knobs of host<->device copies through pinned staging, read once from the
// environment: how many host threads copy, in which chunks, how much pinned memory a
// queue keeps. The stream backend's copy engine and the OpenCL adapter's staging read
// the same ones.
#pragma once

#include <cstddef>
#include <limits>
#include <string>

namespace dglink::host_copy {

// Knobs, read once from the environment (docs/stream-backend.md); the OpenCL adapter's
// staging takes its threads, chunks and limit from the same ones (docs/opencl.md).
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
  size_t ReadChunkBytes = size_t{256} * 1024;   // DGLINK_COPY_READ_CHUNK_BYTES: threaded reads
                                                // (H200, paced: 256 KiB read 4 MiB in
                                                // 121-146 us where 512 KiB took 148-170
                                                // and 128 KiB 161-214; 1 MiB 40-47 against
                                                // 50-60)
  bool Paced = true;                            // DGLINK_COPY_PACED=0: threaded copies that fit
                                                // the staging stop the threads after each
                                                // chunk (the driver's chunk waited for, or
                                                // handed on, between two pool copies)
                                                // instead of one paced copy whose threads
                                                // flow from chunk to chunk
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

// The environment variable Name as a size in [Min, Max], or Default where it is unset or
// empty, and with a warning that names the knob, its text and the range where it is not
// one.
size_t knobSize(const char *Name, size_t Default, size_t Min = 1,
                size_t Max = std::numeric_limits<size_t>::max());
// Name as 0/off/false or 1/on/true, or Default (with a warning where it is neither).
bool knobFlag(const char *Name, bool Default);
// The cores this process may run on (its affinity mask), else the machine's.
unsigned usableCores();

} // namespace dglink::host_copy
