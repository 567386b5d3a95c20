// What virtual functions across device images cost (docs/virtual-functions.md), per device
// that links and runs the benchmark's device code:
// - VirtualVsDirectCall: one launch of a kernel making Calls dependent calls per work-item
//   through an object's vtable (the set image linked in) against one launch of a kernel
//   making as many direct calls to an out-of-line function with the same body, timed in
//   alternating pairs (each launch with its wait). Counters: virtual_us and direct_us (the
//   medians per launch) and diff_ns_per_call (the median over the pairs of virtual - direct,
//   divided by Calls * work-items: launch wall time per call, the device's compute units
//   working in parallel).
// - Cold/<sets>: program acquisition of a kernel calling into 1, 4 or 16 sets (so 1 + sets
//   images collected and linked) in a fresh Runtime each time; WarmHit/<sets>: the same
//   request answered by the in-memory cache. median_us is the median of the calls timed
//   one by one.
// The device code (device_code/vf_calls.clcpp, vf_sets.clcpp) is compiled by the shim at
// build time into bundles in DGLINK_VF_BENCH_BUNDLES. PoCL's kernel cache is off
// (POCL_KERNEL_CACHE=0) unless the caller set it, so that a cold acquisition compiles.
#include "bench_devices.h"
#include "dglink_timing.h"

#include <dglink/pi.h>
#include <dglink/runtime.h>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace dglink::runtime;
using dglink::bench::Clock;
using dglink::bench::Device;
using dglink::bench::dispatchTable;

constexpr size_t WorkItems = 256;
constexpr uint32_t Calls = 4096;
constexpr int SetCounts[] = {1, 4, 16};

// The build tree's bundles, or DGLINK_VF_BENCH_BUNDLES where the program was carried
// elsewhere (scripts/package.sh puts them in tests/vf_bench).
std::string bundlePath(const std::string &Name) {
  const char *Folder = std::getenv("DGLINK_VF_BENCH_BUNDLES");
  return std::string(Folder != nullptr && *Folder != '\0' ? Folder : DGLINK_VF_BENCH_BUNDLES) +
         "/" + Name + ".bundle";
}

std::string setsBundle(int Sets) { return "vf_sets_" + std::to_string(Sets); }

ProgramRequest request(const Device &On, const std::string &Kernel) {
  ProgramRequest Request;
  Request.Context = On.Context;
  Request.Device = On.Handle;
  Request.Kernel = Kernel;
  return Request;
}

// What the device code computes for work-item Item (vf_calls.clcpp, vf_sets.clcpp).
uint32_t expectedCalls(uint32_t Item) {
  uint32_t X = Item;
  for (uint32_t I = 0; I < Calls; ++I)
    X = X * 3U + I;
  return X;
}
uint32_t expectedSets(uint32_t Item, int Sets) {
  uint32_t Sum = 0;
  for (uint32_t K = 0; K < static_cast<uint32_t>(Sets); ++K)
    Sum += Item * (K + 2U) + K;
  return Sum;
}

// A queue and the two buffers (one object, WorkItems results) of one device.
struct Launcher {
  pi_queue Queue = nullptr;
  pi_mem Object = nullptr;
  pi_mem Out = nullptr;
  std::string Problem;

  explicit Launcher(const Device &On) {
    if (piQueueCreate(On.Context, On.Handle, 0, &Queue) != PI_SUCCESS ||
        piMemBufferCreate(On.Context, PI_MEM_FLAGS_ACCESS_RW, 64, nullptr, &Object) != PI_SUCCESS ||
        piMemBufferCreate(On.Context, PI_MEM_FLAGS_ACCESS_RW, WorkItems * sizeof(uint32_t), nullptr,
                          &Out) != PI_SUCCESS)
      Problem = "could not create the queue or the buffers";
  }
  ~Launcher() {
    if (Out != nullptr)
      piMemRelease(Out);
    if (Object != nullptr)
      piMemRelease(Object);
    if (Queue != nullptr)
      piQueueRelease(Queue);
  }
  Launcher(const Launcher &) = delete;
  Launcher &operator=(const Launcher &) = delete;

  // Launches K over Items work-items and waits; 0 or the PI error.
  int launch(const Kernel &K, size_t Items) const {
    const pi_result Result =
        piEnqueueKernelLaunch(Queue, K.get(), 1, nullptr, &Items, nullptr, 0, nullptr, nullptr);
    return Result != PI_SUCCESS ? Result : piQueueFinish(Queue);
  }
  bool results(std::vector<uint32_t> &Values) const {
    Values.assign(WorkItems, 0);
    return piEnqueueMemBufferRead(Queue, Out, PI_TRUE, 0, WorkItems * sizeof(uint32_t),
                                  Values.data(), 0, nullptr, nullptr) == PI_SUCCESS;
  }
};

bool setArgs(const Kernel &K, const std::vector<pi_mem> &Buffers, const uint32_t *Scalar) {
  pi_uint32 Index = 0;
  for (const pi_mem &Buffer : Buffers)
    if (piextKernelSetArgMemObj(K.get(), Index++, &Buffer) != PI_SUCCESS)
      return false;
  return Scalar == nullptr || piKernelSetArg(K.get(), Index, sizeof(*Scalar), Scalar) == PI_SUCCESS;
}

// ---- A virtual call against a direct call ----

void virtualVsDirect(benchmark::State &State, const Device &On) {
  Runtime Rt(dispatchTable());
  if (Expected<ModuleId> Id = Rt.registerBundleFile(bundlePath("vf_calls")); !Id.ok()) {
    State.SkipWithError(Id.status().Message.c_str());
    return;
  }
  Launcher L(On);
  if (!L.Problem.empty()) {
    State.SkipWithError(L.Problem.c_str());
    return;
  }
  Expected<Kernel> Construct = Rt.createKernel(request(On, "vfb_construct"));
  Expected<Kernel> Virtual = Rt.createKernel(request(On, "vfb_virtual"));
  Expected<Kernel> Direct = Rt.createKernel(request(On, "vfb_direct"));
  for (const Expected<Kernel> *K : {&Construct, &Virtual, &Direct})
    if (!K->ok()) {
      State.SkipWithError(K->status().Message.c_str());
      return;
    }
  if (!setArgs(*Construct, {L.Object}, nullptr) || !setArgs(*Virtual, {L.Object, L.Out}, &Calls) ||
      !setArgs(*Direct, {L.Out}, &Calls) || L.launch(*Construct, 1) != 0) {
    State.SkipWithError("setting the arguments or constructing the object failed");
    return;
  }
  // Both kernels compute the same values, and the right ones (this also warms them up).
  std::vector<uint32_t> Values;
  for (const Kernel *K : {&*Virtual, &*Direct}) {
    if (L.launch(*K, WorkItems) != 0 || !L.results(Values)) {
      State.SkipWithError("a launch failed");
      return;
    }
    for (uint32_t Item = 0; Item < WorkItems; ++Item)
      if (Values[Item] != expectedCalls(Item)) {
        State.SkipWithError(("wrong result from the " +
                             std::string(K == &*Virtual ? "virtual" : "direct") + " kernel")
                                .c_str());
        return;
      }
  }
  std::vector<double> VirtualSeconds;
  std::vector<double> DirectSeconds;
  std::vector<double> Differences; // per pair: drifts of a loaded machine cancel
  for (auto _ : State) {
    const auto Begin = Clock::now();
    const int VirtualResult = L.launch(*Virtual, WorkItems);
    const auto Middle = Clock::now();
    const int DirectResult = L.launch(*Direct, WorkItems);
    const auto End = Clock::now();
    if (VirtualResult != 0 || DirectResult != 0) {
      State.SkipWithError("a launch failed");
      return;
    }
    VirtualSeconds.push_back(dglink::bench::seconds(Begin, Middle));
    DirectSeconds.push_back(dglink::bench::seconds(Middle, End));
    Differences.push_back(VirtualSeconds.back() - DirectSeconds.back());
    State.SetIterationTime(dglink::bench::seconds(Begin, End));
  }
  const double VirtualMedian = dglink::bench::median(VirtualSeconds);
  const double DirectMedian = dglink::bench::median(DirectSeconds);
  State.counters["virtual_us"] = VirtualMedian * 1e6;
  State.counters["direct_us"] = DirectMedian * 1e6;
  State.counters["diff_ns_per_call"] =
      dglink::bench::median(Differences) * 1e9 / (double(Calls) * double(WorkItems));
}

// ---- Program acquisition with 1, 4 and 16 sets ----

// A fresh Runtime per call, the getOrBuildProgram call of vfs_call timed: collect the
// kernel image and one image per set, compile, link.
void acquireCold(benchmark::State &State, const Device &On, int Sets) {
  std::vector<double> Samples;
  for (auto _ : State) {
    State.PauseTiming();
    auto Fresh = std::make_unique<Runtime>(dispatchTable());
    if (Expected<ModuleId> Id = Fresh->registerBundleFile(bundlePath(setsBundle(Sets))); !Id.ok()) {
      State.SkipWithError(Id.status().Message.c_str());
      return;
    }
    State.ResumeTiming();
    const auto Begin = Clock::now();
    Expected<Program> Built = Fresh->getOrBuildProgram(request(On, "vfs_call"));
    const auto End = Clock::now();
    if (!Built.ok()) {
      State.SkipWithError(Built.status().Message.c_str());
      return;
    }
    if (Built->images().size() != size_t(Sets) + 1) {
      State.SkipWithError("the program does not hold the kernel image and one image per set");
      return;
    }
    Samples.push_back(dglink::bench::seconds(Begin, End));
    State.PauseTiming();
    Built = Program();
    Fresh.reset();
    State.ResumeTiming();
  }
  State.counters["median_us"] = dglink::bench::median(Samples) * 1e6;
}

// One Runtime with the program built (and checked by constructing an object and calling
// into every set); each call a hit.
void acquireWarm(benchmark::State &State, const Device &On, int Sets) {
  Runtime Warm(dispatchTable());
  if (Expected<ModuleId> Id = Warm.registerBundleFile(bundlePath(setsBundle(Sets))); !Id.ok()) {
    State.SkipWithError(Id.status().Message.c_str());
    return;
  }
  Launcher L(On);
  Expected<Kernel> Construct = Warm.createKernel(request(On, "vfs_construct"));
  Expected<Kernel> Call = Warm.createKernel(request(On, "vfs_call"));
  if (!L.Problem.empty() || !Construct.ok() || !Call.ok()) {
    State.SkipWithError(!L.Problem.empty() ? L.Problem.c_str()
                        : !Construct.ok()  ? Construct.status().Message.c_str()
                                           : Call.status().Message.c_str());
    return;
  }
  std::vector<uint32_t> Values;
  if (!setArgs(*Construct, {L.Object}, nullptr) || !setArgs(*Call, {L.Object, L.Out}, nullptr) ||
      L.launch(*Construct, 1) != 0 || L.launch(*Call, WorkItems) != 0 || !L.results(Values)) {
    State.SkipWithError("constructing the object or calling into the sets failed");
    return;
  }
  for (uint32_t Item = 0; Item < WorkItems; ++Item)
    if (Values[Item] != expectedSets(Item, Sets)) {
      State.SkipWithError("wrong result from the calls into the sets");
      return;
    }
  const ProgramRequest Request = request(On, "vfs_call");
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
  State.counters["median_us"] = dglink::bench::median(Samples) * 1e6;
}

} // namespace

int main(int Argc, char **Argv) {
  setenv("POCL_KERNEL_CACHE", "0", 0); // PoCL's own cache would hide the cold build
  setenv("CUDA_CACHE_DISABLE", "1", 0);
  benchmark::Initialize(&Argc, Argv);
  // The devices that can link the benchmark's images (a plan needs no build); the others
  // are named with the reason.
  static std::vector<Device> Found;
  for (const Device &Candidate : dglink::bench::devicesWhere([](pi_device Handle) {
         return !dglink::bench::deviceString(Handle, PI_EXT_DEVICE_INFO_LINK_FORMATS).empty();
       })) {
    Runtime Probe(dispatchTable());
    Status Why = Probe.registerBundleFile(bundlePath("vf_calls")).status();
    if (Why.ok())
      Why = Probe.planLink(Candidate.Handle, "vfb_virtual").status();
    if (Why.ok())
      Found.push_back(Candidate);
    else
      std::fprintf(stderr, "dglink_bench_virtual_functions: %s not measured: %s\n",
                   Candidate.Name.c_str(), Why.Message.c_str());
  }
  for (const Device &On : Found) {
    benchmark::RegisterBenchmark(("VirtualVsDirectCall/" + On.Name).c_str(),
                                 [&On](benchmark::State &State) { virtualVsDirect(State, On); })
        ->UseManualTime();
    for (int Sets : SetCounts) {
      benchmark::RegisterBenchmark(
          ("Cold/" + std::to_string(Sets) + "sets/" + On.Name).c_str(),
          [&On, Sets](benchmark::State &State) { acquireCold(State, On, Sets); })
          ->Iterations(5)
          ->UseRealTime();
      benchmark::RegisterBenchmark(
          ("WarmHit/" + std::to_string(Sets) + "sets/" + On.Name).c_str(),
          [&On, Sets](benchmark::State &State) { acquireWarm(State, On, Sets); });
    }
  }
  if (Found.empty())
    std::fprintf(stderr, "dglink_bench_virtual_functions: no device that links and runs the "
                         "benchmark's device code\n");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
