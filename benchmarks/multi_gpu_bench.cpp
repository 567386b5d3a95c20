// Aggregate copy throughput to several GPUs at once: one host thread per GPU, each
// copying from (or to) its own pageable buffer, blocking, through one dglink context of
// all the GPUs (device globals of one program built for every GPU, and device USM), beside
// the raw driver's pageable and pinned copies of the same bytes on the same GPUs in the
// same run; 1, 2, 4, ... GPUs (every power of two up to the platform's count, and the
// count itself). Also: the host's own memory bandwidth (threads copying pageable memory,
// the ceiling every staged copy shares), and a copy of device USM from the first GPU to
// the second through dglink (peer to peer where the driver enabled it) against the same
// bytes through pinned host memory. Names: <Op>/<path>/<bytes>/gpus:<N>; counters
// gbps_median / gbps_min / gbps_max over the iterations (aggregate GB/s) and
// slowest_thread (the slowest GPU's time over the fastest's in an iteration, median: 1.0
// is a fair share). Without a CUDA device the program prints "no CUDA device" and exits 0.
#include "cuda_driver.h"

#include <dglink/pi.h>
#include <dglink/support/image.h>

#include "dglink_timing.h"
#include "nvptx_bench.h"
#include "pi_bench.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

extern const unsigned char BenchGlobalsPtx[];
extern const size_t BenchGlobalsPtxSize;

namespace {

using dglink::bench::benchAdapter;
using dglink::bench::Clock;
using dglink::bench::median;
using dglink::bench::platformBackend;
using dglink::bench::seconds;
using dglink::cuda::cu;

constexpr const char *GlobalName = "bench_global";
constexpr size_t GlobalSize = size_t{4} << 20;
constexpr size_t Sizes[] = {size_t{1} << 20, GlobalSize};
constexpr int Iterations = 20;

using dglink::bench::check;
using dglink::bench::checkCu;
using dglink::bench::die;

// The benchmark's image with its device-global metadata.
struct Image : dglink::bench::GlobalImage {
  Image() : GlobalImage(BenchGlobalsPtx, BenchGlobalsPtxSize, GlobalName, GlobalSize) {}
};

// What one GPU's thread copies with: its queue, its USM, its raw stream and global, and
// pageable and pinned buffers of its own (touched first by the setup thread).
struct Gpu {
  pi_device Device = nullptr;
  pi_queue Queue = nullptr;
  void *Usm = nullptr;
  CUcontext RawContext = nullptr;
  CUmodule RawModule = nullptr;
  CUdeviceptr RawGlobal = 0;
  CUstream RawStream = nullptr;
  void *Pinned = nullptr;
  std::vector<unsigned char> Pageable = std::vector<unsigned char>(GlobalSize, 0x5A);
};

// One dglink context of the first Count GPUs, with the program built for all of them.
struct Group {
  pi_context Context = nullptr;
  pi_program Program = nullptr;
  std::vector<Gpu> Gpus;
};

std::vector<pi_device> Devices;
std::vector<std::unique_ptr<Group>> Groups;
std::string DeviceName;

bool findDevices() {
  pi_uint32 Count = 0;
  check(piPlatformsGet(0, nullptr, &Count), "piPlatformsGet");
  std::vector<pi_platform> Platforms(Count);
  if (Count != 0)
    check(piPlatformsGet(Count, Platforms.data(), nullptr), "piPlatformsGet");
  for (pi_platform Platform : Platforms) {
    if (platformBackend(Platform) != benchAdapter())
      continue;
    pi_uint32 Found = 0;
    if (piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 0, nullptr, &Found) != PI_SUCCESS || Found == 0)
      return false;
    Devices.resize(Found);
    check(piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, Found, Devices.data(), nullptr),
          "piDevicesGet");
    char Name[256] = {};
    piDeviceGetInfo(Devices[0], PI_DEVICE_INFO_NAME, sizeof(Name), Name, nullptr);
    DeviceName = Name;
    return true;
  }
  return false;
}

// Every check before measuring: a round trip of every size on every GPU of the group,
// through the device global and the USM, each GPU with its own bytes.
void checkGroup(Group &G) {
  std::vector<unsigned char> Back(GlobalSize);
  for (size_t I = 0; I < G.Gpus.size(); ++I) {
    Gpu &One = G.Gpus[I];
    for (size_t J = 0; J < GlobalSize; ++J)
      One.Pageable[J] = static_cast<unsigned char>(J * 131 + 17 + I * 29);
    for (size_t Size : Sizes) {
      std::fill(Back.begin(), Back.end(), 0);
      check(piextEnqueueDeviceGlobalVariableWrite(One.Queue, G.Program, GlobalName, PI_TRUE, Size,
                                                  0, One.Pageable.data(), 0, nullptr, nullptr),
            "check write");
      check(piextUSMEnqueueMemcpy(One.Queue, PI_TRUE, One.Usm, One.Pageable.data(), Size, 0,
                                  nullptr, nullptr),
            "check USM write");
    }
  }
  // Read back after every GPU wrote: one GPU's write reaching another shows here.
  for (size_t I = 0; I < G.Gpus.size(); ++I) {
    Gpu &One = G.Gpus[I];
    check(piextEnqueueDeviceGlobalVariableRead(One.Queue, G.Program, GlobalName, PI_TRUE,
                                               GlobalSize, 0, Back.data(), 0, nullptr, nullptr),
          "check read");
    if (std::memcmp(Back.data(), One.Pageable.data(), GlobalSize) != 0) {
      std::fprintf(stderr, "dglink_bench_multi_gpu: GPU %zu of %zu: the device global differs\n", I,
                   G.Gpus.size());
      std::exit(1);
    }
    std::fill(Back.begin(), Back.end(), 0);
    check(piextUSMEnqueueMemcpy(One.Queue, PI_TRUE, Back.data(), One.Usm, GlobalSize, 0, nullptr,
                                nullptr),
          "check USM read");
    if (std::memcmp(Back.data(), One.Pageable.data(), GlobalSize) != 0) {
      std::fprintf(stderr, "dglink_bench_multi_gpu: GPU %zu of %zu: the USM differs\n", I,
                   G.Gpus.size());
      std::exit(1);
    }
  }
}

void openGroup(size_t Count) {
  auto G = std::make_unique<Group>();
  check(piContextCreate(nullptr, static_cast<pi_uint32>(Count), Devices.data(), &G->Context),
        "piContextCreate");
  Image TheImage;
  check(piextProgramCreateWithImage(G->Context, static_cast<pi_uint32>(Count), Devices.data(),
                                    &TheImage.Binary, &G->Program),
        "piextProgramCreateWithImage");
  check(piProgramBuild(G->Program, static_cast<pi_uint32>(Count), Devices.data(), nullptr, nullptr,
                       nullptr),
        "piProgramBuild");
  G->Gpus.resize(Count);
  for (size_t I = 0; I < Count; ++I) {
    Gpu &One = G->Gpus[I];
    One.Device = Devices[I];
    check(piQueueCreate(G->Context, One.Device, 0, &One.Queue), "piQueueCreate");
    check(piextUSMDeviceAlloc(&One.Usm, G->Context, One.Device, nullptr, GlobalSize, 0),
          "piextUSMDeviceAlloc");
    CUdevice Raw = 0;
    checkCu(cu().cuDeviceGet(&Raw, static_cast<int>(I)), "cuDeviceGet");
    checkCu(cu().cuDevicePrimaryCtxRetain(&One.RawContext, Raw), "cuDevicePrimaryCtxRetain");
    checkCu(cu().cuCtxSetCurrent(One.RawContext), "cuCtxSetCurrent");
    checkCu(cu().cuModuleLoadDataEx(&One.RawModule, BenchGlobalsPtx, 0, nullptr, nullptr),
            "cuModuleLoadDataEx");
    size_t Bytes = 0;
    checkCu(cu().cuModuleGetGlobal(&One.RawGlobal, &Bytes, One.RawModule, GlobalName),
            "cuModuleGetGlobal");
    checkCu(cu().cuStreamCreate(&One.RawStream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    // Portable: the peer rows copy it from another GPU's context, where memory pinned
    // for one context only would count as pageable.
    checkCu(cu().cuMemHostAlloc(&One.Pinned, GlobalSize, CU_MEMHOSTALLOC_PORTABLE),
            "cuMemHostAlloc");
    std::memset(One.Pinned, 0x5A, GlobalSize);
  }
  checkGroup(*G);
  Groups.push_back(std::move(G));
}

void closeGroups() {
  for (auto &G : Groups) {
    for (size_t I = 0; I < G->Gpus.size(); ++I) {
      Gpu &One = G->Gpus[I];
      piextUSMFree(G->Context, One.Usm);
      piQueueRelease(One.Queue);
      cu().cuCtxSetCurrent(One.RawContext);
      cu().cuStreamDestroy(One.RawStream);
      cu().cuMemFreeHost(One.Pinned);
      cu().cuModuleUnload(One.RawModule);
      CUdevice Raw = 0;
      if (cu().cuDeviceGet(&Raw, static_cast<int>(I)) == CUDA_SUCCESS)
        cu().cuDevicePrimaryCtxRelease(Raw);
    }
    piProgramRelease(G->Program);
    piContextRelease(G->Context);
  }
  Groups.clear();
}

// One copy of Size bytes by the thread of GPU One (0 = success).
using CopyFunction = std::function<int(Group &G, Gpu &One, size_t Size)>;

// Runs Copies copies on every GPU of G at once, one thread per GPU, Iterations times;
// each iteration's aggregate throughput and the slowest thread's share become counters.
void runTogether(benchmark::State &State, Group &G, size_t Size, int Copies,
                 const CopyFunction &Copy) {
  const size_t Count = G.Gpus.size();
  // Warm: staging allocated, lookups cached, clocks up.
  for (Gpu &One : G.Gpus)
    for (int I = 0; I < 3; ++I)
      if (const int Result = Copy(G, One, Size); Result != 0) {
        State.SkipWithError(("warm-up copy failed: " + std::to_string(Result)).c_str());
        return;
      }
  std::vector<double> Rates, Shares;
  for (auto _ : State) {
    std::atomic<bool> Go{false};
    std::atomic<int> Failed{0};
    std::vector<double> Elapsed(Count, 0);
    std::vector<std::thread> Threads;
    Threads.reserve(Count);
    for (size_t I = 0; I < Count; ++I)
      Threads.emplace_back([&, I] {
        while (!Go.load(std::memory_order_acquire))
          std::this_thread::yield();
        const Clock::time_point Begin = Clock::now();
        for (int C = 0; C < Copies; ++C)
          if (const int Result = Copy(G, G.Gpus[I], Size); Result != 0) {
            Failed.store(Result);
            break;
          }
        Elapsed[I] = seconds(Begin, Clock::now());
      });
    const Clock::time_point Begin = Clock::now();
    Go.store(true, std::memory_order_release);
    for (std::thread &T : Threads)
      T.join();
    const double Wall = seconds(Begin, Clock::now());
    if (Failed.load() != 0) {
      State.SkipWithError(("copy failed: " + std::to_string(Failed.load())).c_str());
      return;
    }
    State.SetIterationTime(Wall);
    Rates.push_back(static_cast<double>(Size) * Copies * static_cast<double>(Count) / Wall / 1e9);
    const auto [Fastest, Slowest] = std::minmax_element(Elapsed.begin(), Elapsed.end());
    Shares.push_back(*Slowest / *Fastest);
  }
  State.counters["gbps_median"] = median(Rates);
  State.counters["gbps_min"] = *std::min_element(Rates.begin(), Rates.end());
  State.counters["gbps_max"] = *std::max_element(Rates.begin(), Rates.end());
  State.counters["slowest_thread"] = median(Shares);
  State.SetBytesProcessed(static_cast<int64_t>(State.iterations()) *
                          static_cast<int64_t>(Size * Copies * Count));
}

int rawWrite(Gpu &One, const void *Src, size_t Size) {
  cu().cuCtxSetCurrent(One.RawContext);
  const CUresult Result = cu().cuMemcpyHtoDAsync(One.RawGlobal, Src, Size, One.RawStream);
  return Result != CUDA_SUCCESS ? static_cast<int>(Result)
                                : static_cast<int>(cu().cuStreamSynchronize(One.RawStream));
}
int rawRead(Gpu &One, void *Dst, size_t Size) {
  cu().cuCtxSetCurrent(One.RawContext);
  const CUresult Result = cu().cuMemcpyDtoHAsync(Dst, One.RawGlobal, Size, One.RawStream);
  return Result != CUDA_SUCCESS ? static_cast<int>(Result)
                                : static_cast<int>(cu().cuStreamSynchronize(One.RawStream));
}

void registerCopies(Group &G) {
  const std::string Gpus = "/gpus:" + std::to_string(G.Gpus.size());
  for (size_t Size : Sizes) {
    const std::string Bytes = std::to_string(Size);
    const int Copies = Size >= GlobalSize ? 16 : 64;
    auto Add = [&](const std::string &Name, CopyFunction Copy) {
      Group *Target = &G;
      dglink::bench::add(Name + "/" + Bytes + Gpus, Iterations, [=](benchmark::State &State) {
        runTogether(State, *Target, Size, Copies, Copy);
      });
    };
    Add("Write/dglink_global", [](Group &Of, Gpu &One, size_t N) {
      return static_cast<int>(
          piextEnqueueDeviceGlobalVariableWrite(One.Queue, Of.Program, GlobalName, PI_TRUE, N, 0,
                                                One.Pageable.data(), 0, nullptr, nullptr));
    });
    Add("Write/dglink_usm", [](Group &, Gpu &One, size_t N) {
      return static_cast<int>(piextUSMEnqueueMemcpy(One.Queue, PI_TRUE, One.Usm,
                                                    One.Pageable.data(), N, 0, nullptr, nullptr));
    });
    Add("Write/raw_pageable",
        [](Group &, Gpu &One, size_t N) { return rawWrite(One, One.Pageable.data(), N); });
    Add("Write/raw_pinned",
        [](Group &, Gpu &One, size_t N) { return rawWrite(One, One.Pinned, N); });
    Add("Read/dglink_global", [](Group &Of, Gpu &One, size_t N) {
      return static_cast<int>(
          piextEnqueueDeviceGlobalVariableRead(One.Queue, Of.Program, GlobalName, PI_TRUE, N, 0,
                                               One.Pageable.data(), 0, nullptr, nullptr));
    });
    Add("Read/dglink_usm", [](Group &, Gpu &One, size_t N) {
      return static_cast<int>(piextUSMEnqueueMemcpy(One.Queue, PI_TRUE, One.Pageable.data(),
                                                    One.Usm, N, 0, nullptr, nullptr));
    });
    Add("Read/raw_pageable",
        [](Group &, Gpu &One, size_t N) { return rawRead(One, One.Pageable.data(), N); });
    Add("Read/raw_pinned", [](Group &, Gpu &One, size_t N) { return rawRead(One, One.Pinned, N); });
  }
}

// The host's memory bandwidth: Threads threads each copying 4 MiB of pageable memory to
// another 4 MiB, the work every staged copy does once per byte.
void registerHostBandwidth() {
  const unsigned Cores = std::max(1u, std::thread::hardware_concurrency());
  std::vector<unsigned> Counts = {1, 2, 4, 8, 16, 32, 64};
  Counts.erase(std::remove_if(Counts.begin(), Counts.end(), [&](unsigned C) { return C > Cores; }),
               Counts.end());
  for (unsigned Threads : Counts)
    dglink::bench::add(
        "HostCopy/memcpy/" + std::to_string(GlobalSize) + "/threads:" + std::to_string(Threads),
        Iterations, [=](benchmark::State &State) {
          std::vector<std::vector<unsigned char>> From(Threads), To(Threads);
          for (unsigned T = 0; T < Threads; ++T) {
            From[T].assign(GlobalSize, static_cast<unsigned char>(T));
            To[T].assign(GlobalSize, 0);
          }
          constexpr int Copies = 16;
          std::vector<double> Rates;
          for (auto _ : State) {
            std::atomic<bool> Go{false};
            std::vector<std::thread> Workers;
            for (unsigned T = 0; T < Threads; ++T)
              Workers.emplace_back([&, T] {
                while (!Go.load(std::memory_order_acquire))
                  std::this_thread::yield();
                for (int C = 0; C < Copies; ++C)
                  std::memcpy(To[T].data(), From[T].data(), GlobalSize);
              });
            const Clock::time_point Begin = Clock::now();
            Go.store(true, std::memory_order_release);
            for (std::thread &W : Workers)
              W.join();
            const double Wall = seconds(Begin, Clock::now());
            State.SetIterationTime(Wall);
            // Bytes copied (each read once and written once).
            Rates.push_back(static_cast<double>(GlobalSize) * Copies * Threads / Wall / 1e9);
          }
          State.counters["gbps_median"] = median(Rates);
          State.counters["gbps_min"] = *std::min_element(Rates.begin(), Rates.end());
          State.counters["gbps_max"] = *std::max_element(Rates.begin(), Rates.end());
        });
}

// Device USM of GPU 0 to GPU 1 of one context: dglink's USM copy (peer to peer where the
// context enabled it) against the same bytes through pinned host memory (two DMAs).
void registerPeer(Group &G) {
  if (G.Gpus.size() < 2)
    return;
  for (size_t Size : Sizes) {
    const std::string Bytes = std::to_string(Size);
    Group *Target = &G;
    dglink::bench::add("Peer/dglink_usm/" + Bytes, Iterations * 5, [=](benchmark::State &State) {
      Gpu &From = Target->Gpus[0];
      Gpu &To = Target->Gpus[1];
      dglink::bench::timeEachCall(State, Size, [&] {
        return static_cast<int>(
            piextUSMEnqueueMemcpy(To.Queue, PI_TRUE, To.Usm, From.Usm, Size, 0, nullptr, nullptr));
      });
    });
    dglink::bench::add("Peer/through_pinned_host/" + Bytes, Iterations * 5,
                       [=](benchmark::State &State) {
                         Gpu &From = Target->Gpus[0];
                         Gpu &To = Target->Gpus[1];
                         dglink::bench::timeEachCall(State, Size, [&] {
                           if (const int R = rawRead(From, From.Pinned, Size); R != 0)
                             return R;
                           return rawWrite(To, From.Pinned, Size);
                         });
                       });
  }
  // Correct first: what dglink copied between the GPUs is what the first one held.
  std::vector<unsigned char> Back(GlobalSize, 0);
  Gpu &From = G.Gpus[0];
  Gpu &To = G.Gpus[1];
  check(piextUSMEnqueueMemcpy(From.Queue, PI_TRUE, From.Usm, From.Pageable.data(), GlobalSize, 0,
                              nullptr, nullptr),
        "peer check: fill");
  check(piextUSMEnqueueMemcpy(To.Queue, PI_TRUE, To.Usm, From.Usm, GlobalSize, 0, nullptr, nullptr),
        "peer check: copy");
  check(piextUSMEnqueueMemcpy(To.Queue, PI_TRUE, Back.data(), To.Usm, GlobalSize, 0, nullptr,
                              nullptr),
        "peer check: read");
  if (std::memcmp(Back.data(), From.Pageable.data(), GlobalSize) != 0) {
    std::fprintf(stderr, "dglink_bench_multi_gpu: the copy from GPU 0 to GPU 1 differs\n");
    std::exit(1);
  }
}

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  if (!findDevices() || !dglink::cuda::loadCudaDriver()) {
    std::puts("no CUDA device");
    return 0;
  }
  std::vector<size_t> Counts;
  for (size_t Count = 1; Count <= Devices.size(); Count *= 2)
    Counts.push_back(Count);
  if (Counts.back() != Devices.size())
    Counts.push_back(Devices.size());
  for (size_t Count : Counts)
    openGroup(Count);
  benchmark::AddCustomContext("device", DeviceName);
  benchmark::AddCustomContext("gpus", std::to_string(Devices.size()));
  benchmark::AddCustomContext("backend", benchAdapter());
  registerHostBandwidth();
  for (auto &G : Groups)
    registerCopies(*G);
  registerPeer(*Groups.back());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  closeGroups();
  return 0;
}
