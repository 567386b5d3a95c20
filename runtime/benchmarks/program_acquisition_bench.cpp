// How long getting a program takes through the runtime, per device: cold (collect,
// compile, link), a warm hit in the in-memory cache (no driver call), and a hit in the
// persistent cache (create from the stored binary and build, no compile or link), each
// in a fresh Runtime of this process and as the first acquisition of a fresh process
// (the benchmark runs itself: FreshProcess*). The program is the conformance suite's
// link pair (link_caller importing link_callee from another module). Each call is timed
// on its own; the counter median_us is the median. The drivers' own caches of compiled
// code are off (POCL_KERNEL_CACHE=0, CUDA_CACHE_DISABLE=1) unless the caller set them.
#include "bench_devices.h"
#include "dglink_timing.h"

#include <dglink/pi.h>
#include <dglink/runtime.h>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace {

using namespace dglink::runtime;
using dglink::bench::Clock;

using dglink::bench::bundle;
using dglink::bench::Device;
using dglink::bench::dispatchTable;

// Every device that links and runs kernels.
std::vector<Device> devices() {
  return dglink::bench::devicesWhere([](pi_device Handle) {
    return !dglink::bench::deviceString(Handle, PI_EXT_DEVICE_INFO_LINK_FORMATS).empty();
  });
}

bool registerLinkPair(Runtime &Target) {
  for (const char *Name : {"link_caller", "link_callee"}) {
    const auto *Bytes = bundle(Name);
    if (Bytes == nullptr || !Target.registerBundle(Bytes->Bytes, Bytes->Size, Name).ok())
      return false;
  }
  return true;
}

ProgramRequest request(const Device &On) {
  ProgramRequest Request;
  Request.Context = On.Context;
  Request.Device = On.Handle;
  Request.Kernel = "link_caller";
  return Request;
}

PersistentCacheSettings cacheIn(const std::string &Directory) {
  PersistentCacheSettings Settings;
  Settings.Enabled = !Directory.empty();
  Settings.Directory = Directory;
  return Settings;
}

void report(benchmark::State &State, std::vector<double> &Samples) {
  State.counters["median_us"] = dglink::bench::median(Samples) * 1e6;
}

// A fresh Runtime per call, the getOrBuildProgram call timed: collect + compile + link
// (CacheDirectory empty), or a persistent-cache hit (CacheDirectory filled first).
void acquireFresh(benchmark::State &State, const Device &On, const std::string &CacheDirectory) {
  if (!CacheDirectory.empty()) {
    Runtime Filler(dispatchTable(), cacheIn(CacheDirectory));
    if (!registerLinkPair(Filler) || !Filler.getOrBuildProgram(request(On)).ok() ||
        Filler.cacheStats().PersistentStores + Filler.cacheStats().PersistentHits == 0) {
      State.SkipWithError("the backend gives no program binary back: no persistent cache");
      return;
    }
  }
  std::vector<double> Samples;
  for (auto _ : State) {
    State.PauseTiming();
    auto Fresh = std::make_unique<Runtime>(dispatchTable(), cacheIn(CacheDirectory));
    if (!registerLinkPair(*Fresh)) {
      State.SkipWithError("the link pair's bundles are missing");
      return;
    }
    State.ResumeTiming();
    const auto Begin = Clock::now();
    Expected<Program> Built = Fresh->getOrBuildProgram(request(On));
    const auto End = Clock::now();
    if (!Built.ok()) {
      State.SkipWithError(Built.status().Message.c_str());
      return;
    }
    if (!CacheDirectory.empty() && Fresh->cacheStats().PersistentHits != 1) {
      State.SkipWithError("the program did not come from the persistent cache");
      return;
    }
    Samples.push_back(dglink::bench::seconds(Begin, End));
    State.PauseTiming();
    Built = Program();
    Fresh.reset();
    State.ResumeTiming();
  }
  report(State, Samples);
}

// One Runtime with the program built; each call a hit. Module 0 looks the kernel's module
// up in the registry first; a named module goes straight to the cache.
void warmHit(benchmark::State &State, const Device &On, bool NamedModule) {
  Runtime Warm(dispatchTable());
  if (!registerLinkPair(Warm)) {
    State.SkipWithError("the link pair's bundles are missing");
    return;
  }
  ProgramRequest Request = request(On);
  Expected<Program> First = Warm.getOrBuildProgram(Request);
  if (!First.ok()) {
    State.SkipWithError(First.status().Message.c_str());
    return;
  }
  if (NamedModule)
    Request.Module = First->modules().front();
  std::vector<double> Samples;
  Samples.reserve(1 << 20);
  for (auto _ : State) {
    const auto Begin = Clock::now();
    Expected<Program> Hit = Warm.getOrBuildProgram(Request);
    const auto End = Clock::now();
    benchmark::DoNotOptimize(Hit);
    if (Samples.size() < Samples.capacity())
      Samples.push_back(dglink::bench::seconds(Begin, End));
  }
  if (Warm.cacheStats().Builds != 1)
    State.SkipWithError("a warm request built again");
  report(State, Samples);
}

// ---- A fresh process per acquisition ----

constexpr const char *ChildFlag = "--dglink-acquire-child=";

// The child: the device's context made and the link pair registered first, then the one
// getOrBuildProgram call timed; prints "seconds <s> persistent_hits <n>" and exits 0, or
// prints the error and exits 1. Argument: "<device index>:<cache directory or empty>".
int acquireInChild(const char *Argument) {
  char *End = nullptr;
  const unsigned long Index = std::strtoul(Argument, &End, 10);
  if (End == Argument || *End != ':') {
    std::printf("error bad child argument '%s'\n", Argument);
    return 1;
  }
  const std::string CacheDirectory = End + 1;
  const std::vector<Device> Found = devices();
  if (Index >= Found.size()) {
    std::printf("error device %lu of %zu\n", Index, Found.size());
    return 1;
  }
  Runtime Fresh(dispatchTable(), cacheIn(CacheDirectory));
  if (!registerLinkPair(Fresh)) {
    std::printf("error the link pair's bundles are missing\n");
    return 1;
  }
  const auto Begin = Clock::now();
  Expected<Program> Built = Fresh.getOrBuildProgram(request(Found[Index]));
  const auto Finish = Clock::now();
  if (!Built.ok()) {
    std::printf("error %s\n", Built.status().Message.c_str());
    return 1;
  }
  std::printf("seconds %.9f persistent_hits %llu\n", dglink::bench::seconds(Begin, Finish),
              static_cast<unsigned long long>(Fresh.cacheStats().PersistentHits));
  std::fflush(stdout);
  return 0;
}

// Runs this program as a child for device Index; its output, or the reason it failed.
bool runChild(size_t Index, const std::string &CacheDirectory, std::string &Output) {
  std::string Self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::string Flag = ChildFlag + std::to_string(Index) + ":" + CacheDirectory;
  int Pipe[2];
  if (pipe(Pipe) != 0) {
    Output = "pipe failed";
    return false;
  }
  posix_spawn_file_actions_t Actions;
  posix_spawn_file_actions_init(&Actions);
  posix_spawn_file_actions_adddup2(&Actions, Pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&Actions, Pipe[0]);
  char *Arguments[] = {Self.data(), Flag.data(), nullptr};
  pid_t Child = 0;
  const int Spawned = posix_spawn(&Child, Self.c_str(), &Actions, nullptr, Arguments, environ);
  posix_spawn_file_actions_destroy(&Actions);
  close(Pipe[1]);
  Output.clear();
  char Buffer[4096];
  ssize_t Read = 0;
  while ((Read = read(Pipe[0], Buffer, sizeof(Buffer))) > 0)
    Output.append(Buffer, static_cast<size_t>(Read));
  close(Pipe[0]);
  if (Spawned != 0) {
    Output = std::string("posix_spawn failed: ") + std::strerror(Spawned);
    return false;
  }
  int Status = 0;
  if (waitpid(Child, &Status, 0) != Child || !WIFEXITED(Status) || WEXITSTATUS(Status) != 0) {
    Output = "the child failed: " + Output;
    return false;
  }
  return true;
}

// Each iteration one fresh process whose first acquisition is timed: cold (no cache)
// or a persistent-cache hit (CacheDirectory filled first).
void acquireInFreshProcess(benchmark::State &State, size_t Index, const Device &On,
                           const std::string &CacheDirectory) {
  if (!CacheDirectory.empty()) {
    std::error_code Ignored;
    std::filesystem::remove_all(CacheDirectory, Ignored);
    Runtime Filler(dispatchTable(), cacheIn(CacheDirectory));
    if (!registerLinkPair(Filler) || !Filler.getOrBuildProgram(request(On)).ok() ||
        Filler.cacheStats().PersistentStores == 0) {
      State.SkipWithError("the backend gives no program binary back: no persistent cache");
      return;
    }
  }
  std::vector<double> Samples;
  for (auto _ : State) {
    std::string Output;
    if (!runChild(Index, CacheDirectory, Output)) {
      State.SkipWithError(Output.c_str());
      return;
    }
    double Seconds = 0;
    unsigned long long Hits = 0;
    if (std::sscanf(Output.c_str(), "seconds %lf persistent_hits %llu", &Seconds, &Hits) != 2 ||
        Hits != (CacheDirectory.empty() ? 0u : 1u)) {
      State.SkipWithError(("unexpected child output: " + Output).c_str());
      return;
    }
    State.SetIterationTime(Seconds);
    Samples.push_back(Seconds);
  }
  report(State, Samples);
}

} // namespace

int main(int Argc, char **Argv) {
  setenv("POCL_KERNEL_CACHE", "0", 0);  // PoCL's own cache would hide the cold build
  setenv("CUDA_CACHE_DISABLE", "1", 0); // so would the CUDA driver's JIT cache
  if (Argc == 2 && std::strncmp(Argv[1], ChildFlag, std::strlen(ChildFlag)) == 0)
    return acquireInChild(Argv[1] + std::strlen(ChildFlag));
  benchmark::Initialize(&Argc, Argv);
  const char *Temporary = std::getenv("TMPDIR");
  std::string Template = std::string(Temporary != nullptr && *Temporary ? Temporary : "/tmp") +
                         "/dglink_runtime_bench_XXXXXX";
  const char *Made = mkdtemp(Template.data());
  const std::string CacheDirectory = Made == nullptr ? "" : Made;
  static std::vector<Device> Found = devices();
  for (size_t Index = 0; Index < Found.size(); ++Index) {
    const Device &On = Found[Index];
    benchmark::RegisterBenchmark(("Cold/" + On.Name).c_str(),
                                 [&On](benchmark::State &State) { acquireFresh(State, On, ""); })
        ->Iterations(5)
        ->UseRealTime();
    if (!CacheDirectory.empty())
      benchmark::RegisterBenchmark(("PersistentHit/" + On.Name).c_str(),
                                   [&On, CacheDirectory](benchmark::State &State) {
                                     acquireFresh(State, On, CacheDirectory);
                                   })
          ->Iterations(5)
          ->UseRealTime();
    benchmark::RegisterBenchmark(
        ("FreshProcessCold/" + On.Name).c_str(),
        [Index, &On](benchmark::State &State) { acquireInFreshProcess(State, Index, On, ""); })
        ->Iterations(5)
        ->UseManualTime();
    if (!CacheDirectory.empty())
      benchmark::RegisterBenchmark(("FreshProcessPersistentHit/" + On.Name).c_str(),
                                   [Index, &On, CacheDirectory](benchmark::State &State) {
                                     acquireInFreshProcess(State, Index, On,
                                                           CacheDirectory + "/fresh");
                                   })
          ->Iterations(5)
          ->UseManualTime();
    benchmark::RegisterBenchmark(("WarmHit/" + On.Name).c_str(),
                                 [&On](benchmark::State &State) { warmHit(State, On, false); });
    benchmark::RegisterBenchmark(("WarmHitNamedModule/" + On.Name).c_str(),
                                 [&On](benchmark::State &State) { warmHit(State, On, true); });
  }
  if (Found.empty())
    std::fprintf(stderr, "dglink_bench_runtime: no device that links and runs kernels\n");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::error_code Ignored;
  if (!CacheDirectory.empty())
    std::filesystem::remove_all(CacheDirectory, Ignored);
  return 0;
}
