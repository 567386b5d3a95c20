// Per-call timing on top of Google Benchmark, shared by the benchmark programs and
// `dglink bench`: every call is timed on its own and the median (µs) becomes the
// counter median_us, because a mean hides the driver's occasional long call.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dglink::bench {

using Clock = std::chrono::steady_clock;

inline double median(std::vector<double> Values) {
  if (Values.empty())
    return 0;
  std::nth_element(Values.begin(), Values.begin() + Values.size() / 2, Values.end());
  return Values[Values.size() / 2];
}

inline double seconds(Clock::time_point Begin, Clock::time_point End) {
  return std::chrono::duration<double>(End - Begin).count();
}

// Times each call (0 = success); Warm calls first so that staging is allocated,
// lookups cached and clocks up.
inline void timeEachCall(benchmark::State &State, size_t Bytes, const std::function<int()> &Call,
                         int Warm = 20) {
  for (int I = 0; I < Warm; ++I)
    if (int Result = Call(); Result != 0) {
      State.SkipWithError(("call failed: " + std::to_string(Result)).c_str());
      return;
    }
  std::vector<double> Samples;
  Samples.reserve(static_cast<size_t>(State.max_iterations));
  for (auto _ : State) {
    const Clock::time_point Begin = Clock::now();
    const int Result = Call();
    const Clock::time_point End = Clock::now();
    if (Result != 0) {
      State.SkipWithError(("call failed: " + std::to_string(Result)).c_str());
      break;
    }
    State.SetIterationTime(seconds(Begin, End));
    Samples.push_back(seconds(Begin, End) * 1e6);
  }
  State.counters["median_us"] = median(Samples);
  State.SetBytesProcessed(static_cast<int64_t>(State.iterations()) * static_cast<int64_t>(Bytes));
}

// PerWait enqueues, then one wait. median_us is the CPU time per enqueue;
// total_median_us includes the wait.
inline void timeEnqueues(benchmark::State &State, size_t Bytes, int PerWait,
                         const std::function<int()> &Enqueue, const std::function<int()> &Wait) {
  std::vector<double> PerEnqueue, Total;
  for (int I = 0; I < 2; ++I) {
    int Result = Enqueue();
    if (Result == 0)
      Result = Wait();
    if (Result != 0) {
      State.SkipWithError(("call failed: " + std::to_string(Result)).c_str());
      return;
    }
  }
  for (auto _ : State) {
    const Clock::time_point Begin = Clock::now();
    int Result = 0;
    for (int I = 0; I < PerWait && Result == 0; ++I)
      Result = Enqueue();
    const Clock::time_point Enqueued = Clock::now();
    if (Result == 0)
      Result = Wait();
    const Clock::time_point End = Clock::now();
    if (Result != 0) {
      State.SkipWithError(("call failed: " + std::to_string(Result)).c_str());
      break;
    }
    State.SetIterationTime(seconds(Begin, Enqueued) / PerWait);
    PerEnqueue.push_back(seconds(Begin, Enqueued) * 1e6 / PerWait);
    Total.push_back(seconds(Begin, End) * 1e6 / PerWait);
  }
  State.counters["median_us"] = median(PerEnqueue);
  State.counters["total_median_us"] = median(Total);
  State.SetBytesProcessed(static_cast<int64_t>(State.iterations()) * static_cast<int64_t>(Bytes) *
                          PerWait);
}

// Registers Body under Name with a fixed iteration count and manual timing.
inline void add(const std::string &Name, int Iterations,
                std::function<void(benchmark::State &)> Body) {
  benchmark::RegisterBenchmark(Name.c_str(), std::move(Body))
      ->UseManualTime()
      ->Iterations(Iterations)
      ->Unit(benchmark::kMicrosecond);
}

} // namespace dglink::bench
