// The host side of copies to several devices at once, without a device: C callers (1, 2,
// 4, ... up to the usable cores) each copy their own pageable buffer into their own
// destination at the same time, through one HostCopyPool sized as the adapter sizes it
// (DGLINK_COPY_POOL_THREADS, default the cores but one), through a pool of the old size
// (what one copy uses: 15 threads on a 16-core-or-larger host), and with one plain thread
// per caller. Reads: plain stores into the caller's memory, at most
// DGLINK_COPY_READ_THREADS threads a copy, in chunks of DGLINK_COPY_READ_CHUNK_BYTES as
// the engine hands them to the pool; writes: streaming stores, DGLINK_COPY_THREADS, chunks
// of DGLINK_COPY_WRITE_CHUNK_BYTES. Names: HostCopy/<read|write>/<pool|pool_old|alone>/
// <bytes>/callers:<C>; counters gbps_median / gbps_min / gbps_max over the iterations
// (aggregate GB/s copied), slowest_caller (the slowest caller's time over the fastest's
// in an iteration, median: 1.0 is a fair share) and helpers (workers per pool copy,
// mean). DGLINK_BENCH_HOST_COPY_ITERATIONS sets the iterations (default 20).
#include <dglink/host_copy/host_copy.h>
#include <dglink/host_copy/tuning.h>

#include "dglink_timing.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

namespace {

using dglink::bench::Clock;
using dglink::bench::median;
using dglink::bench::seconds;
using dglink::host_copy::CopyTuning;
using dglink::host_copy::HostCopyPool;

enum class Way { Pool, PoolOld, Alone };

// Copies of the whole buffer per caller per iteration.
constexpr int Copies = 8;

unsigned cores() {
#if defined(__linux__)
  cpu_set_t Set;
  CPU_ZERO(&Set);
  if (sched_getaffinity(0, sizeof(Set), &Set) == 0 && CPU_COUNT(&Set) > 0)
    return static_cast<unsigned>(CPU_COUNT(&Set));
#endif
  return std::max(std::thread::hardware_concurrency(), 1U);
}

int iterations() {
  const char *Text = std::getenv("DGLINK_BENCH_HOST_COPY_ITERATIONS");
  const int Value = Text != nullptr ? std::atoi(Text) : 0;
  return Value > 0 ? Value : 20;
}

struct Caller {
  std::vector<unsigned char> From, To;
  double Elapsed = 0;
  unsigned Helpers = 0; // over the iteration's pool copies
  unsigned PoolCopies = 0;
};

// One copy of a caller's buffer: chunk by chunk through the pool, or alone.
void copyOnce(Caller &C, HostCopyPool *Pool, bool IsRead, const CopyTuning &Tuning) {
  const size_t Size = C.From.size();
  const bool Streaming = !IsRead;
  if (Pool == nullptr) {
    if (Streaming)
      dglink::host_copy::copyNonTemporal(C.To.data(), C.From.data(), Size);
    else
      std::memcpy(C.To.data(), C.From.data(), Size);
    return;
  }
  const size_t Chunk = IsRead ? Tuning.ReadChunkBytes : Tuning.WriteChunkBytes;
  const unsigned Most = IsRead ? Tuning.ReadThreads : Tuning.Threads;
  for (size_t Offset = 0; Offset < Size; Offset += Chunk) {
    const size_t Count = std::min(Chunk, Size - Offset);
    C.Helpers += Pool->copy(C.To.data() + Offset, C.From.data() + Offset, Count, Tuning.PieceBytes,
                            Streaming, Most);
    ++C.PoolCopies;
  }
}

void run(benchmark::State &State, Way How, bool IsRead, size_t Size, unsigned CallerCount) {
  const CopyTuning &Tuning = dglink::host_copy::copyTuning();
  std::unique_ptr<HostCopyPool> Pool;
  if (How == Way::Pool)
    Pool = std::make_unique<HostCopyPool>(Tuning.poolThreads(), Tuning.SpinMicroseconds,
                                          Tuning.ShareWindowMicroseconds);
  else if (How == Way::PoolOld)
    Pool = std::make_unique<HostCopyPool>(std::max(Tuning.Threads, Tuning.ReadThreads),
                                          Tuning.SpinMicroseconds);
  std::vector<Caller> Callers(CallerCount);
  for (unsigned I = 0; I < CallerCount; ++I) {
    Callers[I].From.assign(Size, static_cast<unsigned char>(I + 1));
    Callers[I].To.assign(Size, 0);
  }
  // Warm: pages touched, workers started, clocks up; and correct.
  for (Caller &C : Callers) {
    copyOnce(C, Pool.get(), IsRead, Tuning);
    if (C.To != C.From) {
      State.SkipWithError("the copy differs from its source");
      return;
    }
  }
  std::vector<double> Rates, Shares;
  double Helpers = 0, PoolCopies = 0;
  for (auto _ : State) {
    std::atomic<bool> Go{false};
    std::vector<std::thread> Threads;
    Threads.reserve(CallerCount);
    for (Caller &C : Callers) {
      C.Helpers = 0;
      C.PoolCopies = 0;
      Threads.emplace_back([&] {
        while (!Go.load(std::memory_order_acquire))
          std::this_thread::yield();
        const Clock::time_point Begin = Clock::now();
        for (int I = 0; I < Copies; ++I)
          copyOnce(C, Pool.get(), IsRead, Tuning);
        C.Elapsed = seconds(Begin, Clock::now());
      });
    }
    const Clock::time_point Begin = Clock::now();
    Go.store(true, std::memory_order_release);
    for (std::thread &T : Threads)
      T.join();
    const double Wall = seconds(Begin, Clock::now());
    State.SetIterationTime(Wall);
    Rates.push_back(static_cast<double>(Size) * Copies * CallerCount / Wall / 1e9);
    const auto [Fastest, Slowest] =
        std::minmax_element(Callers.begin(), Callers.end(),
                            [](const Caller &A, const Caller &B) { return A.Elapsed < B.Elapsed; });
    Shares.push_back(Slowest->Elapsed / Fastest->Elapsed);
    for (const Caller &C : Callers) {
      Helpers += C.Helpers;
      PoolCopies += C.PoolCopies;
    }
  }
  State.counters["gbps_median"] = median(Rates);
  State.counters["gbps_min"] = *std::min_element(Rates.begin(), Rates.end());
  State.counters["gbps_max"] = *std::max_element(Rates.begin(), Rates.end());
  State.counters["slowest_caller"] = median(Shares);
  State.counters["helpers"] = PoolCopies > 0 ? Helpers / PoolCopies : 0;
  State.SetBytesProcessed(static_cast<int64_t>(State.iterations()) *
                          static_cast<int64_t>(Size * Copies * CallerCount));
}

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  const CopyTuning &Tuning = dglink::host_copy::copyTuning();
  const unsigned Cores = cores();
  benchmark::AddCustomContext("cores", std::to_string(Cores));
  benchmark::AddCustomContext("pool_threads", std::to_string(Tuning.poolThreads()));
  benchmark::AddCustomContext("pool_old_threads",
                              std::to_string(std::max(Tuning.Threads, Tuning.ReadThreads)));
  benchmark::AddCustomContext("read_threads", std::to_string(Tuning.ReadThreads));
  benchmark::AddCustomContext("write_threads", std::to_string(Tuning.Threads));
  benchmark::AddCustomContext("spin_us", std::to_string(Tuning.SpinMicroseconds));
  benchmark::AddCustomContext("share_window_us", std::to_string(Tuning.ShareWindowMicroseconds));
  benchmark::AddCustomContext("streaming_stores", dglink::host_copy::nonTemporalKind());
  std::vector<unsigned> Counts;
  for (unsigned C = 1; C <= Cores; C *= 2)
    Counts.push_back(C);
  const int Iterations = iterations();
  for (const bool IsRead : {true, false})
    for (const size_t Size : {size_t{1} << 20, size_t{4} << 20})
      for (const unsigned C : Counts)
        for (const auto &[How, Name] :
             {std::pair{Way::Pool, "pool"}, std::pair{Way::PoolOld, "pool_old"},
              std::pair{Way::Alone, "alone"}})
          dglink::bench::add(std::string("HostCopy/") + (IsRead ? "read/" : "write/") + Name + "/" +
                                 std::to_string(Size) + "/callers:" + std::to_string(C),
                             Iterations, [=, How = How](benchmark::State &State) {
                               run(State, How, IsRead, Size, C);
                             });
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
