// What the runtime's device-global database costs, per device: a copy by host address
// (Runtime::copyTo/FromDeviceGlobal) against the same copy made directly, timed in pairs — the USM
// copy (piextUSMEnqueueMemcpy) for a shared variable, the adapter's by-name copy
// (piextEnqueueDeviceGlobalVariableRead/Write) for an image-scope one — at 4 B and 64 KiB,
// all blocking, on a warm variable; and a variable's first access (USM allocation and
// zero fill, and the usmptr patch of a cached program) against the warm copy. The
// variables are dg_database_a's 64 KiB pair (conformance/device_code). median_us is the
// median of the calls timed one by one.
#include "bench_devices.h"
#include "dglink_timing.h"

#include <dglink/runtime.h>

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace dglink::runtime;
using dglink::bench::Clock;
using dglink::bench::Device;

constexpr size_t BigBytes = size_t(64) * 1024;
constexpr const char *SharedId = "db_big_shared_uid";
constexpr const char *ScopedId = "db_big_scoped_uid";

// One device's runtime with dg_database_a registered, both variables added and the
// program that holds them built (and patched).
struct Setup {
  Device On;
  std::unique_ptr<Runtime> Rt;
  pi_queue Queue = nullptr;
  Program Built;
  void *SharedUsm = nullptr;
  std::vector<int32_t> HostShared = std::vector<int32_t>(BigBytes / 4);
  std::vector<int32_t> HostScoped = std::vector<int32_t>(BigBytes / 4);
  std::vector<uint8_t> Data = std::vector<uint8_t>(BigBytes, 0x5A);
  std::string Problem;
};

bool registerA(Runtime &Target) {
  const auto *Bytes = dglink::bench::bundle("dg_database_a");
  return Bytes != nullptr && Target.registerBundle(Bytes->Bytes, Bytes->Size, "dg_database_a").ok();
}

ProgramRequest request(const Device &On) {
  ProgramRequest Request;
  Request.Context = On.Context;
  Request.Device = On.Handle;
  Request.Kernel = "db_a_read_big";
  return Request;
}

std::unique_ptr<Setup> prepare(const Device &On) {
  auto S = std::make_unique<Setup>();
  S->On = On;
  S->Rt = std::make_unique<Runtime>(dglink::bench::dispatchTable());
  if (!registerA(*S->Rt)) {
    S->Problem = "the bundle dg_database_a is missing";
    return S;
  }
  Status Added = S->Rt->addDeviceGlobal(S->HostShared.data(), SharedId, BigBytes, false);
  if (Added.ok())
    Added = S->Rt->addDeviceGlobal(S->HostScoped.data(), ScopedId, BigBytes, true);
  if (!Added.ok()) {
    S->Problem = Added.Message;
    return S;
  }
  Expected<Program> Built = S->Rt->getOrBuildProgram(request(On));
  if (!Built) {
    S->Problem = Built.status().Message;
    return S;
  }
  S->Built = *Built;
  if (piQueueCreate(On.Context, On.Handle, 0, &S->Queue) != PI_SUCCESS) {
    S->Problem = "piQueueCreate failed";
    return S;
  }
  Expected<void *> Usm = S->Rt->deviceGlobalAddress(On.Context, On.Handle, S->HostShared.data());
  if (!Usm) {
    S->Problem = Usm.status().Message;
    return S;
  }
  S->SharedUsm = *Usm;
  return S;
}

// The runtime's copy and the direct copy of the same bytes, in pairs (alternating which
// goes first, so that neither always finds the device warmer): runtime_median_us,
// direct_median_us, and added_median_us, the median of the pairs' differences.
void pairedCopy(benchmark::State &State, Setup &S, bool Shared, bool Write, size_t Bytes) {
  const void *Variable = Shared ? S.HostShared.data() : S.HostScoped.data();
  const pi_program Program = S.Built.get();
  auto ThroughRuntime = [&] {
    const Status Done = Write ? S.Rt->copyToDeviceGlobal(S.Queue, Variable, S.Data.data(), Bytes)
                              : S.Rt->copyFromDeviceGlobal(S.Queue, Variable, S.Data.data(), Bytes);
    return Done.Code;
  };
  auto Direct = [&] {
    if (Shared)
      return Write ? piextUSMEnqueueMemcpy(S.Queue, PI_TRUE, S.SharedUsm, S.Data.data(), Bytes, 0,
                                           nullptr, nullptr)
                   : piextUSMEnqueueMemcpy(S.Queue, PI_TRUE, S.Data.data(), S.SharedUsm, Bytes, 0,
                                           nullptr, nullptr);
    return Write ? piextEnqueueDeviceGlobalVariableWrite(S.Queue, Program, ScopedId, PI_TRUE, Bytes,
                                                         0, S.Data.data(), 0, nullptr, nullptr)
                 : piextEnqueueDeviceGlobalVariableRead(S.Queue, Program, ScopedId, PI_TRUE, Bytes,
                                                        0, S.Data.data(), 0, nullptr, nullptr);
  };
  auto Timed = [](const auto &Call, double &Seconds) {
    const auto Begin = Clock::now();
    const pi_result Result = Call();
    Seconds = dglink::bench::seconds(Begin, Clock::now());
    return Result;
  };
  double Ignored = 0;
  for (int I = 0; I < 20; ++I)
    if (Timed(ThroughRuntime, Ignored) != PI_SUCCESS || Timed(Direct, Ignored) != PI_SUCCESS) {
      State.SkipWithError("a warm-up copy failed");
      return;
    }
  std::vector<double> RuntimeUs, DirectUs, AddedUs;
  bool RuntimeFirst = true;
  for (auto _ : State) {
    double R = 0, D = 0;
    pi_result First = PI_SUCCESS, Second = PI_SUCCESS;
    if (RuntimeFirst) {
      First = Timed(ThroughRuntime, R);
      Second = Timed(Direct, D);
    } else {
      First = Timed(Direct, D);
      Second = Timed(ThroughRuntime, R);
    }
    RuntimeFirst = !RuntimeFirst;
    if (First != PI_SUCCESS || Second != PI_SUCCESS) {
      State.SkipWithError("a copy failed");
      return;
    }
    State.SetIterationTime(R);
    RuntimeUs.push_back(R * 1e6);
    DirectUs.push_back(D * 1e6);
    AddedUs.push_back((R - D) * 1e6);
  }
  State.counters["runtime_median_us"] = dglink::bench::median(RuntimeUs);
  State.counters["direct_median_us"] = dglink::bench::median(DirectUs);
  State.counters["added_median_us"] = dglink::bench::median(AddedUs);
  State.SetBytesProcessed(static_cast<int64_t>(State.iterations()) * static_cast<int64_t>(Bytes));
}

// A fresh Runtime per call. PatchCachedProgram false: the first 4 B copy to a variable
// added just before (USM allocation of 64 KiB, zero fill, copy). True: adding the variable
// while a program that holds it is cached (allocation, zero fill, usmptr write).
void firstAccess(benchmark::State &State, const Device &On, bool PatchCachedProgram) {
  std::vector<int32_t> Host(BigBytes / 4);
  const int32_t Value = 7;
  pi_queue Queue = nullptr;
  if (piQueueCreate(On.Context, On.Handle, 0, &Queue) != PI_SUCCESS) {
    State.SkipWithError("piQueueCreate failed");
    return;
  }
  std::vector<double> Samples;
  for (auto _ : State) {
    State.PauseTiming();
    auto Fresh = std::make_unique<Runtime>(dglink::bench::dispatchTable());
    std::string Problem;
    if (!registerA(*Fresh))
      Problem = "the bundle dg_database_a is missing";
    else if (PatchCachedProgram && !Fresh->getOrBuildProgram(request(On)).ok())
      Problem = "the program does not build";
    else if (!PatchCachedProgram &&
             !Fresh->addDeviceGlobal(Host.data(), SharedId, BigBytes, false).ok())
      Problem = "addDeviceGlobal failed";
    if (!Problem.empty()) {
      State.SkipWithError(Problem.c_str());
      break;
    }
    State.ResumeTiming();
    const auto Begin = Clock::now();
    const Status Done = PatchCachedProgram
                            ? Fresh->addDeviceGlobal(Host.data(), SharedId, BigBytes, false)
                            : Fresh->copyToDeviceGlobal(Queue, Host.data(), &Value, sizeof(Value));
    const auto End = Clock::now();
    State.PauseTiming();
    if (!Done.ok() || (PatchCachedProgram && Fresh->deviceGlobalStats().Patches != 1)) {
      State.SkipWithError(Done.ok() ? "no patch" : Done.Message.c_str());
      break;
    }
    Samples.push_back(dglink::bench::seconds(Begin, End) * 1e6);
    Fresh.reset();
    State.ResumeTiming();
  }
  State.counters["median_us"] = dglink::bench::median(Samples);
  piQueueRelease(Queue);
}

} // namespace

int main(int Argc, char **Argv) {
  setenv("POCL_KERNEL_CACHE", "0", 0);
  benchmark::Initialize(&Argc, Argv);
  static std::vector<Device> Found = dglink::bench::devicesWhere([](pi_device) { return true; });
  static std::vector<std::unique_ptr<Setup>> Setups;
  for (const Device &On : Found) {
    Setups.push_back(prepare(On));
    Setup *S = Setups.back().get();
    if (!S->Problem.empty()) {
      std::fprintf(stderr, "dglink_bench_runtime_device_globals: %s skipped: %s\n", On.Name.c_str(),
                   S->Problem.c_str());
      continue;
    }
    for (const bool Shared : {true, false})
      for (const bool Write : {true, false})
        for (const size_t Bytes : {size_t(4), BigBytes}) {
          const std::string Tail = std::string(Shared ? "Shared" : "ImageScope") + "/" +
                                   (Write ? "Write" : "Read") + "/" + std::to_string(Bytes) + "/" +
                                   On.Name;
          benchmark::RegisterBenchmark(
              ("RuntimeVsDirect/" + Tail).c_str(),
              [=](benchmark::State &State) { pairedCopy(State, *S, Shared, Write, Bytes); })
              ->Iterations(2000)
              ->UseManualTime();
        }
    benchmark::RegisterBenchmark(("FirstCopyShared/" + On.Name).c_str(),
                                 [&On](benchmark::State &State) { firstAccess(State, On, false); })
        ->Iterations(20)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("AddPatchesCachedProgram/" + On.Name).c_str(),
                                 [&On](benchmark::State &State) { firstAccess(State, On, true); })
        ->Iterations(10)
        ->UseRealTime();
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (auto &S : Setups) {
    S->Built = Program();
    if (S->Queue != nullptr)
      piQueueRelease(S->Queue);
    S->Rt.reset();
  }
  return 0;
}
