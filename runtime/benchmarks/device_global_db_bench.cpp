// What the runtime's device-global database costs, per device: a copy by host address
// (Runtime::copyTo/FromDeviceGlobal) against the same copy made directly — the USM copy
// (piextUSMEnqueueMemcpy) for a shared variable, the adapter's by-name copy
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

constexpr size_t BigBytes = 64 * 1024;
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

void runtimeCopy(benchmark::State &State, Setup &S, bool Shared, bool Write, size_t Bytes) {
  const void *Variable = Shared ? S.HostShared.data() : S.HostScoped.data();
  dglink::bench::timeEachCall(State, Bytes, [&] {
    const Status Done = Write ? S.Rt->copyToDeviceGlobal(S.Queue, Variable, S.Data.data(), Bytes)
                              : S.Rt->copyFromDeviceGlobal(S.Queue, Variable, S.Data.data(), Bytes);
    return static_cast<int>(Done.Code);
  });
}

void directCopy(benchmark::State &State, Setup &S, bool Shared, bool Write, size_t Bytes) {
  const pi_program Program = S.Built.get();
  dglink::bench::timeEachCall(State, Bytes, [&] {
    if (Shared)
      return static_cast<int>(Write
                                  ? piextUSMEnqueueMemcpy(S.Queue, PI_TRUE, S.SharedUsm,
                                                          S.Data.data(), Bytes, 0, nullptr, nullptr)
                                  : piextUSMEnqueueMemcpy(S.Queue, PI_TRUE, S.Data.data(),
                                                          S.SharedUsm, Bytes, 0, nullptr, nullptr));
    return static_cast<int>(
        Write ? piextEnqueueDeviceGlobalVariableWrite(S.Queue, Program, ScopedId, PI_TRUE, Bytes, 0,
                                                      S.Data.data(), 0, nullptr, nullptr)
              : piextEnqueueDeviceGlobalVariableRead(S.Queue, Program, ScopedId, PI_TRUE, Bytes, 0,
                                                     S.Data.data(), 0, nullptr, nullptr));
  });
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
          benchmark::RegisterBenchmark(("Runtime/" + Tail).c_str(), [=](benchmark::State &State) {
            runtimeCopy(State, *S, Shared, Write, Bytes);
          })->UseManualTime();
          benchmark::RegisterBenchmark(("Direct/" + Tail).c_str(), [=](benchmark::State &State) {
            directCopy(State, *S, Shared, Write, Bytes);
          })->UseManualTime();
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
