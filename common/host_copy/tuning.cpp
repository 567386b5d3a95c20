// The copy knobs: parsed from the environment once, with a warning for each value ignored.
#include <dglink/host_copy/host_copy.h>
#include <dglink/host_copy/tuning.h>

#include <dglink/support/log.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace dglink::host_copy {
namespace {

// Half the cores, at most 8: on a 16-core host 8 threads copy 1 MiB into pinned memory
// in 13-15 us where one takes 31-48 (docs/stream-backend.md).
unsigned defaultThreads() { return std::clamp(usableCores() / 2, 1U, 8U); }

// Up to 16 cores, the cores but one (15 on the H100 host: 15 threads read 1 MiB in 42 us
// and 4 MiB in 131 where 8 took 51 and 157); above, half the cores, at most 31 (the 4xH200
// host, 64 cores: 31 threads read 4 MiB in 124 us where 15 took 160, and four reads to
// four GPUs at once moved 61-70 GB/s against 55-61; docs/stream-backend.md).
unsigned defaultReadThreads() {
  const unsigned Cores = usableCores();
  if (Cores <= 16)
    return std::clamp(Cores > 1 ? Cores - 1 : 1U, 1U, 15U);
  return std::clamp(Cores / 2, 15U, 31U);
}

} // namespace

size_t knobSize(const char *Name, size_t Default, size_t Min, size_t Max) {
  const char *Text = std::getenv(Name);
  if (Text == nullptr || *Text == '\0')
    return Default;
  size_t Value = 0;
  std::string Problem;
  if (!parseKnob(Text, Min, Max, Value, Problem)) {
    logger().warn("ignoring {}='{}' ({}); using {}", Name, Text, Problem, Default);
    return Default;
  }
  return Value;
}

bool knobFlag(const char *Name, bool Default) {
  const char *Text = std::getenv(Name);
  if (Text == nullptr || *Text == '\0')
    return Default;
  if (!std::strcmp(Text, "0") || !std::strcmp(Text, "off") || !std::strcmp(Text, "false"))
    return false;
  if (!std::strcmp(Text, "1") || !std::strcmp(Text, "on") || !std::strcmp(Text, "true"))
    return true;
  logger().warn("ignoring {}='{}' (use 0 or 1); using {}", Name, Text, Default ? 1 : 0);
  return Default;
}

// The affinity mask, so that a process pinned to a few cores does not start threads for
// all of them.
unsigned usableCores() {
#if defined(__linux__)
  cpu_set_t Set;
  CPU_ZERO(&Set);
  if (sched_getaffinity(0, sizeof(Set), &Set) == 0) {
    const int Count = CPU_COUNT(&Set);
    if (Count > 0)
      return static_cast<unsigned>(Count);
  }
#endif
  return std::max(std::thread::hardware_concurrency(), 1U);
}

bool parseKnob(const char *Text, size_t Min, size_t Max, size_t &Value, std::string &Problem) {
  if (Text == nullptr || *Text == '\0') {
    Problem = "empty";
    return false;
  }
  for (const char *C = Text; *C != '\0'; ++C)
    if (*C < '0' || *C > '9') {
      Problem = fmt::format("not a non-negative integer; use {}..{}", Min, Max);
      return false;
    }
  errno = 0;
  char *End = nullptr;
  const unsigned long long Parsed = std::strtoull(Text, &End, 10);
  if (errno == ERANGE || Parsed > Max || Parsed < Min) {
    Problem = fmt::format("out of range; use {}..{}", Min, Max);
    return false;
  }
  Value = static_cast<size_t>(Parsed);
  return true;
}

CopyTuning copyTuningFromEnvironment() {
  constexpr size_t KiB = 1024;
  constexpr size_t GiB = size_t{1} << 30;
  CopyTuning T;
  T.Threads = defaultThreads();
  T.ReadThreads = defaultReadThreads();
  T.SmallBytes = knobSize("DGLINK_COPY_STAGING_BYTES", T.SmallBytes, 1, GiB);
  T.ChunkBytes = knobSize("DGLINK_COPY_CHUNK_BYTES", T.ChunkBytes, 4 * KiB, GiB);
  T.MinChunkBytes = std::min(knobSize("DGLINK_COPY_MIN_CHUNK_BYTES", T.MinChunkBytes, 4 * KiB, GiB),
                             T.ChunkBytes);
  T.Slots = static_cast<unsigned>(knobSize("DGLINK_COPY_STAGING_SLOTS", T.Slots, 1, 16));
  T.Pipeline = knobFlag("DGLINK_COPY_PIPELINE", T.Pipeline);
  T.SmallWriteFill = knobFlag("DGLINK_COPY_SMALL_WRITE_FILL", T.SmallWriteFill);
  T.AsyncRing = knobFlag("DGLINK_COPY_ASYNC_RING", T.AsyncRing);
  T.RingBytes = knobSize("DGLINK_COPY_RING_BYTES", T.RingBytes, 4 * KiB, GiB);
  T.RingSegments =
      static_cast<unsigned>(knobSize("DGLINK_COPY_RING_SEGMENTS", T.RingSegments, 2, 64));
  T.Threads = static_cast<unsigned>(knobSize("DGLINK_COPY_THREADS", T.Threads, 1, 64));
  T.ReadThreads = static_cast<unsigned>(knobSize("DGLINK_COPY_READ_THREADS", T.ReadThreads, 1, 64));
  T.PoolThreads =
      static_cast<unsigned>(knobSize("DGLINK_COPY_POOL_THREADS", T.PoolThreads, 0, 256));
  T.ParallelBytes = knobSize("DGLINK_COPY_PARALLEL_BYTES", T.ParallelBytes, 4 * KiB, GiB);
  T.PieceBytes = knobSize("DGLINK_COPY_PIECE_BYTES", T.PieceBytes, 1 * KiB, GiB);
  T.SpinMicroseconds =
      static_cast<unsigned>(knobSize("DGLINK_COPY_SPIN_US", T.SpinMicroseconds, 0, 100000));
  T.ShareWindowMicroseconds = static_cast<unsigned>(
      knobSize("DGLINK_COPY_SHARE_WINDOW_US", T.ShareWindowMicroseconds, 0, 1000000));
  T.WriteChunkBytes = knobSize("DGLINK_COPY_WRITE_CHUNK_BYTES", T.WriteChunkBytes, 4 * KiB, GiB);
  T.ReadChunkBytes = knobSize("DGLINK_COPY_READ_CHUNK_BYTES", T.ReadChunkBytes, 4 * KiB, GiB);
  T.Paced = knobFlag("DGLINK_COPY_PACED", T.Paced);
  T.NonTemporal = knobFlag("DGLINK_COPY_NONTEMPORAL", T.NonTemporal);
  T.ReadNonTemporal = knobFlag("DGLINK_COPY_READ_NONTEMPORAL", T.ReadNonTemporal);
  T.StagingLimitBytes = knobSize("DGLINK_COPY_POOL_BYTES", T.StagingLimitBytes, 64 * KiB, 16 * GiB);
  T.AsyncPool = knobFlag("DGLINK_COPY_ASYNC_POOL", T.AsyncPool);
  T.StagedNonBlockingReads =
      knobFlag("DGLINK_COPY_STAGED_NONBLOCKING_READS", T.StagedNonBlockingReads);
  T.PinnedCheckBytes = knobSize("DGLINK_COPY_PINNED_CHECK_BYTES", T.PinnedCheckBytes, 0,
                                std::numeric_limits<size_t>::max());
  T.UsmBytes = knobSize("DGLINK_COPY_USM_BYTES", T.UsmBytes, 0, std::numeric_limits<size_t>::max());
  logger().debug(
      "copy engine: staging {} B, chunks {}..{} B x {} slots, pipeline {}, fill {}, "
      "ring {} B / {} segments ({}); {} / {} threads (writes / reads, pool {}) from {} B "
      "(pieces >= {} B, spin {} us, share window {} us, "
      "chunks {} / {} B, streaming stores {} / {}: {}), pool {} B ({}), pinned check from {} B, "
      "staged non-blocking reads {}, USM copies from {} B",
      T.SmallBytes, T.MinChunkBytes, T.ChunkBytes, T.Slots, T.Pipeline, T.SmallWriteFill,
      T.RingBytes, T.RingSegments, T.AsyncRing, T.Threads, T.ReadThreads, T.poolThreads(),
      T.ParallelBytes, T.PieceBytes, T.SpinMicroseconds, T.ShareWindowMicroseconds,
      T.WriteChunkBytes, T.ReadChunkBytes, T.NonTemporal, T.ReadNonTemporal, nonTemporalKind(),
      T.StagingLimitBytes, T.AsyncPool, T.PinnedCheckBytes, T.StagedNonBlockingReads, T.UsmBytes);
  return T;
}

const CopyTuning &copyTuning() {
  static const CopyTuning Tuning = copyTuningFromEnvironment();
  return Tuning;
}

} // namespace dglink::host_copy
