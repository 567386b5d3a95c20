// How dglink's costs grow, on the CPU: the first and the warm device-global access in
// a program of 1 to 100,000 device globals, the heap the lookup cache takes per
// variable, linking chains of 2 to 128 images, and a call's dispatch cost with however
// many adapters the dispatch layer loaded. It runs on the Level Zero TEST DRIVER
// (ZE_ENABLE_ALT_DRIVERS=<build>/adapters/level_zero/tests/libdglink_ze_test_driver.so),
// whose modules are generated here as SPIR-V words; every time is a per-call median
// (counter median_us). DGLINK_BENCH_SCALING_MAX caps the number of globals and images
// (ctest runs a short variant). Without a Level Zero device: "no Level Zero device",
// exit 0. docs/scaling.md.
#include <dglink/dispatch.h>
#include <dglink/pi.h>

#include "dglink_timing.h"
#include "pi_bench.h"
#include "spirv_builder.h"

#include <benchmark/benchmark.h>

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using dglink::bench::Clock;
using dglink::bench::median;
using dglink::bench::platformBackend;
using dglink::bench::seconds;
using dglink::ze_test::SpirvBuilder;

struct Session {
  pi_device Device = nullptr;
  pi_context Context = nullptr;
  pi_queue Queue = nullptr;
  unsigned AdaptersLoaded = 0;
};
Session S;

[[noreturn]] void die(const char *What, pi_result Code) {
  char *Message = nullptr;
  piPluginGetLastError(&Message);
  std::fprintf(stderr, "dglink_bench_scaling: %s failed (%d): %s\n", What, Code,
               Message != nullptr ? Message : "");
  std::exit(1);
}
void check(pi_result Result, const char *What) {
  if (Result != PI_SUCCESS)
    die(What, Result);
}

std::string globalName(size_t I) { return "g" + std::to_string(I); }

// N exported 4-byte globals "g0".."g<N-1>", initialised to 0.
std::vector<uint8_t> globalsModule(size_t N) {
  constexpr uint32_t First = 16;
  SpirvBuilder B(static_cast<uint32_t>(First + N));
  for (size_t I = 0; I < N; ++I)
    B.linkage(static_cast<uint32_t>(First + I), globalName(I), 0);
  B.op(21, {1, 32, 0}).op(43, {1, 2, 0}).op(32, {4, 5, 1}); // int, 0, CrossWorkgroup int*
  for (size_t I = 0; I < N; ++I)
    B.op(59, {4, static_cast<uint32_t>(First + I), 5, 2});
  return B.bytes();
}

// Image K of a chain: imports "c<K-1>" (K > 0) and exports "c<K>".
std::vector<uint8_t> chainModule(size_t K) {
  SpirvBuilder B(40);
  B.linkage(30, "c" + std::to_string(K), 0);
  if (K > 0)
    B.linkage(31, "c" + std::to_string(K - 1), 1);
  B.op(21, {1, 32, 0}).op(43, {1, 2, 0}).op(32, {4, 5, 1});
  B.op(59, {4, 30, 5, 2});
  if (K > 0)
    B.op(59, {4, 31, 5});
  return B.bytes();
}

pi_program createProgram(const std::vector<uint8_t> &Il) {
  pi_program Program = nullptr;
  check(piProgramCreate(S.Context, Il.data(), Il.size(), &Program), "piProgramCreate");
  return Program;
}

pi_program buildProgram(const std::vector<uint8_t> &Il) {
  pi_program Program = createProgram(Il);
  check(piProgramBuild(Program, 1, &S.Device, "", nullptr, nullptr), "piProgramBuild");
  return Program;
}

pi_result write4(pi_program Program, const std::string &Name, int Value) {
  return piextEnqueueDeviceGlobalVariableWrite(S.Queue, Program, Name.c_str(), PI_TRUE, 4, 0,
                                               &Value, 0, nullptr, nullptr);
}

size_t heapBytes() { return mallinfo2().uordblks; }

// The first access of a variable in a fresh program of N: the lookup, the driver's
// query and the copy (the program's build is not timed).
void firstAccess(benchmark::State &State, size_t N) {
  const std::vector<uint8_t> Il = globalsModule(N);
  std::vector<double> Samples;
  for (auto _ : State) {
    pi_program Program = buildProgram(Il);
    const std::string Name = globalName(N / 2);
    const Clock::time_point Begin = Clock::now();
    const pi_result Result = write4(Program, Name, 1);
    const Clock::time_point End = Clock::now();
    piProgramRelease(Program);
    if (Result != PI_SUCCESS) {
      State.SkipWithError("first write failed");
      return;
    }
    State.SetIterationTime(seconds(Begin, End));
    Samples.push_back(seconds(Begin, End) * 1e6);
  }
  State.counters["median_us"] = median(Samples);
  State.counters["globals"] = static_cast<double>(N);
}

// Which variables the warm accesses go to.
enum class WarmPattern {
  // Every variable of the program, in a random order (a shuffled permutation of all N,
  // repeated while iterations remain): at large N, each access finds its cache entry
  // and the driver's storage outside the CPU's caches, as a program touching its many
  // variables at random does.
  Every,
  // 1024 variables picked at random (with repetition) and cycled: a working set that
  // stays in the CPU's caches whatever N is, so only what the lookup computes can grow.
  Hot1024,
};

// Warm accesses in a program of N whose every variable was looked up once (the cache
// holds N entries); and the heap the N lookups took.
void warmAccess(benchmark::State &State, size_t N, WarmPattern Pattern) {
  pi_program Program = buildProgram(globalsModule(N));
  std::vector<std::string> Names(N);
  for (size_t I = 0; I < N; ++I)
    Names[I] = globalName(I);
  const size_t Before = heapBytes();
  for (size_t I = 0; I < N; ++I)
    check(write4(Program, Names[I], static_cast<int>(I)), "first write");
  const size_t Grown = heapBytes() - Before;
  std::mt19937 Random(7);
  std::vector<const std::string *> Order;
  if (Pattern == WarmPattern::Every) {
    for (const std::string &Name : Names)
      Order.push_back(&Name);
    std::shuffle(Order.begin(), Order.end(), Random);
  } else {
    Order.resize(1024);
    for (const std::string *&Name : Order)
      Name = &Names[Random() % N];
  }
  std::vector<double> Samples;
  size_t Next = 0;
  for (auto _ : State) {
    const std::string &Name = *Order[Next++ % Order.size()];
    // A caller has the name it passes at hand (a runtime has just read it from its own
    // table): its bytes are in the CPU's cache before the clock starts.
    benchmark::DoNotOptimize(std::strlen(Name.c_str()));
    const Clock::time_point Begin = Clock::now();
    const pi_result Result = write4(Program, Name, 2);
    const Clock::time_point End = Clock::now();
    if (Result != PI_SUCCESS) {
      State.SkipWithError("warm write failed");
      break;
    }
    State.SetIterationTime(seconds(Begin, End));
    Samples.push_back(seconds(Begin, End) * 1e6);
  }
  piProgramRelease(Program);
  State.counters["median_us"] = median(Samples);
  State.counters["globals"] = static_cast<double>(N);
  State.counters["variables_cycled"] = static_cast<double>(Order.size());
  State.counters["cache_bytes"] = static_cast<double>(Grown);
  State.counters["cache_bytes_per_global"] = static_cast<double>(Grown) / static_cast<double>(N);
}

// piProgramLink of K compiled images, each importing the one before.
void linkChain(benchmark::State &State, size_t K) {
  std::vector<std::vector<uint8_t>> Ils(K);
  for (size_t I = 0; I < K; ++I)
    Ils[I] = chainModule(I);
  std::vector<double> Samples;
  for (auto _ : State) {
    std::vector<pi_program> Inputs(K);
    for (size_t I = 0; I < K; ++I) {
      Inputs[I] = createProgram(Ils[I]);
      check(piProgramCompile(Inputs[I], 1, &S.Device, "", 0, nullptr, nullptr, nullptr, nullptr),
            "piProgramCompile");
    }
    pi_program Linked = nullptr;
    const Clock::time_point Begin = Clock::now();
    const pi_result Result = piProgramLink(S.Context, 1, &S.Device, "", static_cast<pi_uint32>(K),
                                           Inputs.data(), nullptr, nullptr, &Linked);
    const Clock::time_point End = Clock::now();
    if (Result == PI_SUCCESS)
      check(write4(Linked, "c" + std::to_string(K - 1), 3), "write to the linked chain");
    for (pi_program Input : Inputs)
      piProgramRelease(Input);
    if (Linked != nullptr)
      piProgramRelease(Linked);
    if (Result != PI_SUCCESS) {
      State.SkipWithError("piProgramLink failed");
      return;
    }
    State.SetIterationTime(seconds(Begin, End));
    Samples.push_back(seconds(Begin, End) * 1e6);
  }
  State.counters["median_us"] = median(Samples);
  State.counters["images"] = static_cast<double>(K);
}

// A call routed by the dispatch layer (piQueueFinish of an idle queue, and a 4-byte
// warm write) with the adapters this process loaded.
void dispatchCost(benchmark::State &State, bool Write) {
  pi_program Program = buildProgram(globalsModule(1));
  check(write4(Program, "g0", 0), "warm-up write");
  std::vector<double> Samples;
  for (auto _ : State) {
    const Clock::time_point Begin = Clock::now();
    const pi_result Result = Write ? write4(Program, "g0", 1) : piQueueFinish(S.Queue);
    const Clock::time_point End = Clock::now();
    if (Result != PI_SUCCESS) {
      State.SkipWithError("call failed");
      break;
    }
    State.SetIterationTime(seconds(Begin, End));
    Samples.push_back(seconds(Begin, End) * 1e6);
  }
  piProgramRelease(Program);
  State.counters["median_us"] = median(Samples);
  State.counters["adapters"] = S.AdaptersLoaded;
}

bool setUp() {
  pi_uint32 Count = 0;
  check(piPlatformsGet(0, nullptr, &Count), "piPlatformsGet");
  std::vector<pi_platform> Platforms(Count);
  if (Count != 0)
    check(piPlatformsGet(Count, Platforms.data(), nullptr), "piPlatformsGet");
  for (pi_uint32 I = 0; I < dglinkDispatchAdapterCount(); ++I) {
    dglink_adapter_info Info{};
    if (dglinkDispatchAdapterInfo(I, &Info) == PI_SUCCESS &&
        (Info.SkipReason == nullptr || *Info.SkipReason == '\0'))
      ++S.AdaptersLoaded;
  }
  pi_platform LevelZero = nullptr;
  for (pi_platform Platform : Platforms)
    if (platformBackend(Platform) == "level_zero")
      LevelZero = Platform;
  pi_uint32 Devices = 0;
  if (LevelZero == nullptr ||
      piDevicesGet(LevelZero, PI_DEVICE_TYPE_ALL, 1, &S.Device, &Devices) != PI_SUCCESS ||
      Devices == 0)
    return false;
  check(piContextCreate(nullptr, 1, &S.Device, &S.Context), "piContextCreate");
  check(piQueueCreate(S.Context, S.Device, 0, &S.Queue), "piQueueCreate");
  return true;
}

size_t scalingMax() {
  const char *Text = std::getenv("DGLINK_BENCH_SCALING_MAX");
  if (Text == nullptr || *Text == '\0')
    return 100000;
  const long long Value = std::atoll(Text);
  return Value > 0 ? static_cast<size_t>(Value) : 100000;
}

template <typename Run> void add(const std::string &Name, size_t Iterations, Run &&Function) {
  benchmark::RegisterBenchmark(Name.c_str(), std::forward<Run>(Function))
      ->Iterations(static_cast<benchmark::IterationCount>(Iterations))
      ->UseManualTime();
}

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  if (!setUp()) {
    std::puts("no Level Zero device (set ZE_ENABLE_ALT_DRIVERS to the test driver)");
    return 0;
  }
  const size_t Max = scalingMax();
  benchmark::AddCustomContext("adapters_loaded", std::to_string(S.AdaptersLoaded));
  for (size_t N : {size_t{1}, size_t{100}, size_t{10000}, size_t{100000}}) {
    if (N > Max)
      continue;
    const std::string Globals = std::to_string(N);
    const size_t Builds = N >= 100000 ? 3 : N >= 10000 ? 10 : 50; // each builds a program
    add("FirstAccess/dglink/" + Globals, Builds,
        [N](benchmark::State &State) { firstAccess(State, N); });
    // Every variable at least once (100,000 accesses at N = 100,000).
    add("WarmAccess/dglink/" + Globals, std::max<size_t>(20000, N),
        [N](benchmark::State &State) { warmAccess(State, N, WarmPattern::Every); });
    add("WarmAccessHot/dglink/" + Globals, 20000,
        [N](benchmark::State &State) { warmAccess(State, N, WarmPattern::Hot1024); });
  }
  for (size_t K : {size_t{2}, size_t{16}, size_t{128}})
    if (K <= Max)
      add("Link/chain/" + std::to_string(K), K >= 128 ? 5 : 20,
          [K](benchmark::State &State) { linkChain(State, K); });
  const std::string Adapters = std::to_string(S.AdaptersLoaded);
  benchmark::RegisterBenchmark(("Dispatch/queue_finish/" + Adapters).c_str(),
                               [](benchmark::State &State) { dispatchCost(State, false); })
      ->Iterations(20000)
      ->UseManualTime();
  benchmark::RegisterBenchmark(("Dispatch/warm_write_4/" + Adapters).c_str(),
                               [](benchmark::State &State) { dispatchCost(State, true); })
      ->Iterations(20000)
      ->UseManualTime();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  piQueueRelease(S.Queue);
  piContextRelease(S.Context);
  return 0;
}
