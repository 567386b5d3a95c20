// Device-global copy latency on the first CUDA device: dglink through the
// dispatch layer (libdglink_pi.so), the CUDA adapter called directly, the raw
// driver sequence from pageable and from pinned memory, and the CUDA runtime's
// cudaMemcpyToSymbol, all in one process. Every benchmark times each call on
// its own and reports the median as the counter median_us (the time column is
// the mean). Names: <Operation>/<implementation>/<bytes>; benchmarks/ratios.py
// prints the ratio table from the JSON output. Without a CUDA device the
// program prints "no CUDA device" and exits 0.
#include "cuda_driver.h"

#include <dglink/pi.h>
#include <dglink/support/image.h>

#include "dglink_timing.h"
#include "nvptx_bench.h"
#include "pi_bench.h"

#ifdef DGLINK_BENCH_UR
#include "ur_bench.h"
#endif
#include <benchmark/benchmark.h>

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

extern const unsigned char BenchGlobalsPtx[];
extern const size_t BenchGlobalsPtxSize;
#if DGLINK_BENCH_CUDART
extern "C" int dglinkRuntimeInit(void);
extern "C" int dglinkRuntimeToSymbol(const void *Src, size_t Count, size_t Offset);
extern "C" int dglinkRuntimeFromSymbol(void *Dst, size_t Count, size_t Offset);
#endif

namespace {

using dglink::bench::add;
using dglink::bench::benchAdapter;
using dglink::bench::benchBackend;
using dglink::bench::Clock;
using dglink::bench::median;
using dglink::bench::platformBackend;
using dglink::bench::seconds;
using dglink::bench::timeEachCall;
using dglink::cuda::cu;

constexpr const char *GlobalName = "bench_global";
constexpr size_t GlobalSize = size_t{4} << 20;
// Issue 19's sizes, and 16 and 256 KiB between them (where the staged path and the
// threads take over from each other).
constexpr size_t Sizes[] = {4, 64, 4096, 16384, 65536, 262144, size_t{1} << 20, GlobalSize};
constexpr int EnqueuesPerWait = 100;

using WriteFunction = decltype(&piextEnqueueDeviceGlobalVariableWrite);
using ReadFunction = decltype(&piextEnqueueDeviceGlobalVariableRead);

struct Session {
  pi_device Device = nullptr;
  pi_context Context = nullptr;
  pi_queue Queue = nullptr;
  pi_program Program = nullptr;
  WriteFunction DirectWrite = nullptr;
  ReadFunction DirectRead = nullptr;
  std::string DirectHow;
  std::string DeviceName;

  CUdevice RawDevice = 0;
  CUcontext RawContext = nullptr;
  CUmodule RawModule = nullptr;
  CUdeviceptr RawGlobal = 0;
  CUstream RawStream = nullptr;
  void *Pinned = nullptr;
  std::vector<unsigned char> Pageable = std::vector<unsigned char>(GlobalSize, 0x5A);
  void *Usm = nullptr; // device USM of the dglink context (Write/dglink_usm/...)
  pi_mem Buffer = nullptr; // a buffer of the dglink context (Write/dglink_buffer/...)
#ifdef DGLINK_BENCH_UR
  dglink::bench::UrSession Ur; // the same device through the UR loader (docs/ur.md)
  void *UrUsm = nullptr;       // DPC++'s device_global instance: device USM (Write/ur_usm/...)
  ur_mem_handle_t UrBuffer = nullptr; // a SYCL buffer's memory (Write/ur_buffer/...)
#endif
};
Session S;

using dglink::bench::check;
using dglink::bench::checkCu;
using dglink::bench::die;

// A device image of the benchmark's code with its device-global metadata.
struct Image : dglink::bench::GlobalImage {
  Image(const unsigned char *Bytes, size_t Size)
      : GlobalImage(Bytes, Size, GlobalName, GlobalSize) {}
};

std::string adapterLibrary() { return "libdglink_adapter_" + benchAdapter() + ".so"; }

pi_program buildProgram(const unsigned char *Bytes, size_t Size) {
  Image TheImage(Bytes, Size);
  pi_program Program = nullptr;
  check(piextProgramCreateWithImage(S.Context, 1, &S.Device, &TheImage.Binary, &Program),
        "piextProgramCreateWithImage");
  check(piProgramBuild(Program, 1, &S.Device, nullptr, nullptr, nullptr), "piProgramBuild");
  return Program;
}

// The adapter's own entry point: the library the dispatch layer loaded, found
// by its soname; the table in the queue's first field where that fails.
void findDirectEntryPoints() {
  const auto *Table = reinterpret_cast<const pi_handle_header *>(S.Queue)->Dispatch;
  S.DirectWrite = Table->piextEnqueueDeviceGlobalVariableWrite;
  S.DirectRead = Table->piextEnqueueDeviceGlobalVariableRead;
  S.DirectHow = "the queue's function table";
  const std::string Soname = adapterLibrary();
  void *Library = dlopen(Soname.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (Library == nullptr)
    return;
  void *Write = dlsym(Library, "piextEnqueueDeviceGlobalVariableWrite");
  void *Read = dlsym(Library, "piextEnqueueDeviceGlobalVariableRead");
  WriteFunction WriteFromLibrary = nullptr;
  ReadFunction ReadFromLibrary = nullptr;
  std::memcpy(&WriteFromLibrary, &Write, sizeof(Write));
  std::memcpy(&ReadFromLibrary, &Read, sizeof(Read));
  if (WriteFromLibrary == S.DirectWrite && ReadFromLibrary == S.DirectRead)
    S.DirectHow = "dlsym in " + Soname + " (the instance the dispatch layer loaded)";
}

bool setUp() {
  pi_uint32 Count = 0;
  check(piPlatformsGet(0, nullptr, &Count), "piPlatformsGet");
  std::vector<pi_platform> Platforms(Count);
  if (Count != 0)
    check(piPlatformsGet(Count, Platforms.data(), nullptr), "piPlatformsGet");
  pi_platform Cuda = nullptr;
  for (pi_platform Platform : Platforms)
    if (platformBackend(Platform) == benchAdapter())
      Cuda = Platform;
  if (Cuda == nullptr)
    return false;
  pi_uint32 Devices = 0;
  if (piDevicesGet(Cuda, PI_DEVICE_TYPE_ALL, 1, &S.Device, &Devices) != PI_SUCCESS || Devices == 0)
    return false;
  char Name[256] = {};
  piDeviceGetInfo(S.Device, PI_DEVICE_INFO_NAME, sizeof(Name), Name, nullptr);
  S.DeviceName = Name;
  check(piContextCreate(nullptr, 1, &S.Device, &S.Context), "piContextCreate");
  check(piQueueCreate(S.Context, S.Device, 0, &S.Queue), "piQueueCreate");
  S.Program = buildProgram(BenchGlobalsPtx, BenchGlobalsPtxSize);
  check(piextUSMDeviceAlloc(&S.Usm, S.Context, S.Device, nullptr, GlobalSize, 0),
        "piextUSMDeviceAlloc");
  check(piMemBufferCreate(S.Context, PI_MEM_FLAGS_ACCESS_RW, GlobalSize, nullptr, &S.Buffer),
        "piMemBufferCreate");
  findDirectEntryPoints();

  // The raw driver on the same primary context, its own module and stream;
  // the symbol is looked up once, here.
  if (!dglink::cuda::loadCudaDriver())
    return false;
  checkCu(cu().cuDeviceGet(&S.RawDevice, 0), "cuDeviceGet");
  checkCu(cu().cuDevicePrimaryCtxRetain(&S.RawContext, S.RawDevice), "cuDevicePrimaryCtxRetain");
  checkCu(cu().cuCtxSetCurrent(S.RawContext), "cuCtxSetCurrent");
  checkCu(cu().cuModuleLoadDataEx(&S.RawModule, BenchGlobalsPtx, 0, nullptr, nullptr),
          "cuModuleLoadDataEx");
  size_t Bytes = 0;
  checkCu(cu().cuModuleGetGlobal(&S.RawGlobal, &Bytes, S.RawModule, GlobalName),
          "cuModuleGetGlobal");
  checkCu(cu().cuStreamCreate(&S.RawStream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  checkCu(cu().cuMemAllocHost(&S.Pinned, GlobalSize), "cuMemAllocHost");
  std::memset(S.Pinned, 0x5A, GlobalSize);
#if DGLINK_BENCH_CUDART
  checkCu(static_cast<CUresult>(dglinkRuntimeInit()), "cudaFree(0)");
  checkCu(cu().cuCtxSetCurrent(S.RawContext), "cuCtxSetCurrent");
#endif

  // Before measuring: dglink's copies must be right (every path, 1 MiB).
  std::vector<unsigned char> Pattern(GlobalSize), Back(GlobalSize);
  for (size_t I = 0; I < GlobalSize; ++I)
    Pattern[I] = static_cast<unsigned char>(I * 131 + 17);
  for (size_t Size : Sizes) {
    check(piextEnqueueDeviceGlobalVariableWrite(S.Queue, S.Program, GlobalName, PI_TRUE, Size, 0,
                                                Pattern.data(), 0, nullptr, nullptr),
          "check write");
    check(piextEnqueueDeviceGlobalVariableRead(S.Queue, S.Program, GlobalName, PI_TRUE, Size, 0,
                                               Back.data(), 0, nullptr, nullptr),
          "check read");
    if (std::memcmp(Pattern.data(), Back.data(), Size) != 0) {
      std::fprintf(stderr, "dglink_bench_device_global: %zu-byte round trip differs\n", Size);
      std::exit(1);
    }
    std::fill(Back.begin(), Back.end(), 0);
    check(piextUSMEnqueueMemcpy(S.Queue, PI_TRUE, S.Usm, Pattern.data(), Size, 0, nullptr, nullptr),
          "check USM write");
    check(piextUSMEnqueueMemcpy(S.Queue, PI_TRUE, Back.data(), S.Usm, Size, 0, nullptr, nullptr),
          "check USM read");
    if (std::memcmp(Pattern.data(), Back.data(), Size) != 0) {
      std::fprintf(stderr, "dglink_bench_device_global: %zu-byte USM round trip differs\n", Size);
      std::exit(1);
    }
    std::fill(Back.begin(), Back.end(), 0);
    check(piEnqueueMemBufferWrite(S.Queue, S.Buffer, PI_TRUE, 0, Size, Pattern.data(), 0, nullptr,
                                  nullptr),
          "check buffer write");
    check(piEnqueueMemBufferRead(S.Queue, S.Buffer, PI_TRUE, 0, Size, Back.data(), 0, nullptr,
                                 nullptr),
          "check buffer read");
    if (std::memcmp(Pattern.data(), Back.data(), Size) != 0) {
      std::fprintf(stderr, "dglink_bench_device_global: %zu-byte buffer round trip differs\n",
                   Size);
      std::exit(1);
    }
  }
#ifdef DGLINK_BENCH_UR
  // The same program through the Unified Runtime loader and dglink's CUDA UR adapter,
  // checked the same way before it is measured.
  ur_device_handle_t UrDevice = nullptr;
  if (dglink::bench::initUrLoader("libur_adapter_dglink_cuda.so"))
    UrDevice = dglink::bench::findUrDevice(S.DeviceName);
  if (UrDevice == nullptr) {
    std::printf("%s: not found through the UR loader; no ur rows\n", S.DeviceName.c_str());
  } else {
    Image TheImage(BenchGlobalsPtx, BenchGlobalsPtxSize);
    if (const char *Failed = S.Ur.open(UrDevice, TheImage.Binary))
      die(Failed, 0);
    if (urUSMDeviceAlloc(S.Ur.Context, UrDevice, nullptr, nullptr, GlobalSize, &S.UrUsm) !=
        UR_RESULT_SUCCESS)
      die("urUSMDeviceAlloc", 0);
    if (urMemBufferCreate(S.Ur.Context, UR_MEM_FLAG_READ_WRITE, GlobalSize, nullptr,
                          &S.UrBuffer) != UR_RESULT_SUCCESS)
      die("urMemBufferCreate", 0);
    for (size_t Size : Sizes) {
      std::fill(Back.begin(), Back.end(), 0);
      if (urEnqueueDeviceGlobalVariableWrite(S.Ur.Queue, S.Ur.Program, GlobalName, true, Size, 0,
                                             Pattern.data(), 0, nullptr,
                                             nullptr) != UR_RESULT_SUCCESS ||
          urEnqueueDeviceGlobalVariableRead(S.Ur.Queue, S.Ur.Program, GlobalName, true, Size, 0,
                                            Back.data(), 0, nullptr,
                                            nullptr) != UR_RESULT_SUCCESS ||
          std::memcmp(Pattern.data(), Back.data(), Size) != 0) {
        std::fprintf(stderr, "dglink_bench_device_global: %zu-byte round trip through UR fails\n",
                     Size);
        std::exit(1);
      }
      std::fill(Back.begin(), Back.end(), 0);
      if (urEnqueueUSMMemcpy(S.Ur.Queue, true, S.UrUsm, Pattern.data(), Size, 0, nullptr,
                             nullptr) != UR_RESULT_SUCCESS ||
          urEnqueueUSMMemcpy(S.Ur.Queue, true, Back.data(), S.UrUsm, Size, 0, nullptr, nullptr) !=
              UR_RESULT_SUCCESS ||
          std::memcmp(Pattern.data(), Back.data(), Size) != 0) {
        std::fprintf(
            stderr, "dglink_bench_device_global: %zu-byte USM round trip through UR fails\n", Size);
        std::exit(1);
      }
      std::fill(Back.begin(), Back.end(), 0);
      if (urEnqueueMemBufferWrite(S.Ur.Queue, S.UrBuffer, true, 0, Size, Pattern.data(), 0,
                                  nullptr, nullptr) != UR_RESULT_SUCCESS ||
          urEnqueueMemBufferRead(S.Ur.Queue, S.UrBuffer, true, 0, Size, Back.data(), 0, nullptr,
                                 nullptr) != UR_RESULT_SUCCESS ||
          std::memcmp(Pattern.data(), Back.data(), Size) != 0) {
        std::fprintf(stderr,
                     "dglink_bench_device_global: %zu-byte buffer round trip through UR fails\n",
                     Size);
        std::exit(1);
      }
    }
  }
#endif
  return true;
}

void tearDown() {
#ifdef DGLINK_BENCH_UR
  if (S.UrUsm != nullptr)
    urUSMFree(S.Ur.Context, S.UrUsm);
  if (S.UrBuffer != nullptr)
    urMemRelease(S.UrBuffer);
  S.Ur.close();
#endif
  piMemRelease(S.Buffer);
  piextUSMFree(S.Context, S.Usm);
  piProgramRelease(S.Program);
  piQueueRelease(S.Queue);
  piContextRelease(S.Context);
  cu().cuStreamDestroy(S.RawStream);
  cu().cuMemFreeHost(S.Pinned);
  cu().cuModuleUnload(S.RawModule);
  cu().cuDevicePrimaryCtxRelease(S.RawDevice);
}

int rawSync() { return cu().cuStreamSynchronize(S.RawStream); }
int queueFinish() { return piQueueFinish(S.Queue); }

void registerBlocking(size_t Size) {
  const std::string Bytes = std::to_string(Size);
  const int Iterations = Size >= GlobalSize ? 200 : Size >= (size_t{1} << 20) ? 500 : 2000;
  unsigned char *Pageable = S.Pageable.data();
  add("Write/dglink/" + Bytes, Iterations, [=](benchmark::State &State) {
    timeEachCall(State, Size, [=] {
      return piextEnqueueDeviceGlobalVariableWrite(S.Queue, S.Program, GlobalName, PI_TRUE, Size, 0,
                                                   Pageable, 0, nullptr, nullptr);
    });
  });
  add("Write/dglink_direct/" + Bytes, Iterations, [=](benchmark::State &State) {
    timeEachCall(State, Size, [=] {
      return S.DirectWrite(S.Queue, S.Program, GlobalName, PI_TRUE, Size, 0, Pageable, 0, nullptr,
                           nullptr);
    });
  });
  // q.memcpy into device USM, and DPC++'s copy of a device_global without
  // device_image_scope (its USM instance): the same bytes, the same raw comparison.
  add("Write/dglink_usm/" + Bytes, Iterations, [=](benchmark::State &State) {
    timeEachCall(State, Size, [=] {
      return piextUSMEnqueueMemcpy(S.Queue, PI_TRUE, S.Usm, Pageable, Size, 0, nullptr, nullptr);
    });
  });
  // A SYCL buffer's copy (and the accessor's write-back): piEnqueueMemBufferWrite.
  add("Write/dglink_buffer/" + Bytes, Iterations, [=](benchmark::State &State) {
    timeEachCall(State, Size, [=] {
      return piEnqueueMemBufferWrite(S.Queue, S.Buffer, PI_TRUE, 0, Size, Pageable, 0, nullptr,
                                     nullptr);
    });
  });
#ifdef DGLINK_BENCH_UR
  if (S.UrUsm != nullptr)
    add("Write/ur_usm/" + Bytes, Iterations, [=](benchmark::State &State) {
      timeEachCall(State, Size, [=] {
        return static_cast<int>(
            urEnqueueUSMMemcpy(S.Ur.Queue, true, S.UrUsm, Pageable, Size, 0, nullptr, nullptr));
      });
    });
  if (S.UrBuffer != nullptr)
    add("Write/ur_buffer/" + Bytes, Iterations, [=](benchmark::State &State) {
      timeEachCall(State, Size, [=] {
        return static_cast<int>(urEnqueueMemBufferWrite(S.Ur.Queue, S.UrBuffer, true, 0, Size,
                                                        Pageable, 0, nullptr, nullptr));
      });
    });
#endif
  add("Write/raw_pageable/" + Bytes, Iterations, [=](benchmark::State &State) {
    timeEachCall(State, Size, [=] {
      const CUresult Result = cu().cuMemcpyHtoDAsync(S.RawGlobal, Pageable, Size, S.RawStream);
      return Result != CUDA_SUCCESS ? static_cast<int>(Result) : rawSync();
    });
  });
  // The synchronous driver call: the fastest blocking raw write of small sizes.
  add("Write/raw_sync/" + Bytes, Iterations, [=](benchmark::State &State) {
    timeEachCall(State, Size,
                 [=] { return static_cast<int>(cu().cuMemcpyHtoD(S.RawGlobal, Pageable, Size)); });
  });
  add("Write/raw_pinned/" + Bytes, Iterations, [=](benchmark::State &State) {
    timeEachCall(State, Size, [=] {
      const CUresult Result = cu().cuMemcpyHtoDAsync(S.RawGlobal, S.Pinned, Size, S.RawStream);
      return Result != CUDA_SUCCESS ? static_cast<int>(Result) : rawSync();
    });
  });
#if DGLINK_BENCH_CUDART
  add("Write/cudaMemcpyToSymbol/" + Bytes, Iterations, [=](benchmark::State &State) {
    timeEachCall(State, Size, [=] { return dglinkRuntimeToSymbol(Pageable, Size, 0); });
  });
#endif

#ifdef DGLINK_BENCH_UR
  if (S.Ur.Program != nullptr)
    add("Write/ur/" + Bytes, Iterations, [=](benchmark::State &State) {
      timeEachCall(State, Size, [=] {
        return static_cast<int>(urEnqueueDeviceGlobalVariableWrite(
            S.Ur.Queue, S.Ur.Program, GlobalName, true, Size, 0, Pageable, 0, nullptr, nullptr));
      });
    });
#endif

  add("Read/dglink/" + Bytes, Iterations, [=](benchmark::State &State) {
    timeEachCall(State, Size, [=] {
      return piextEnqueueDeviceGlobalVariableRead(S.Queue, S.Program, GlobalName, PI_TRUE, Size, 0,
                                                  Pageable, 0, nullptr, nullptr);
    });
  });
  add("Read/dglink_direct/" + Bytes, Iterations, [=](benchmark::State &State) {
    timeEachCall(State, Size, [=] {
      return S.DirectRead(S.Queue, S.Program, GlobalName, PI_TRUE, Size, 0, Pageable, 0, nullptr,
                          nullptr);
    });
  });
#ifdef DGLINK_BENCH_UR
  if (S.Ur.Program != nullptr)
    add("Read/ur/" + Bytes, Iterations, [=](benchmark::State &State) {
      timeEachCall(State, Size, [=] {
        return static_cast<int>(urEnqueueDeviceGlobalVariableRead(
            S.Ur.Queue, S.Ur.Program, GlobalName, true, Size, 0, Pageable, 0, nullptr, nullptr));
      });
    });
#endif
  add("Read/dglink_usm/" + Bytes, Iterations, [=](benchmark::State &State) {
    timeEachCall(State, Size, [=] {
      return piextUSMEnqueueMemcpy(S.Queue, PI_TRUE, Pageable, S.Usm, Size, 0, nullptr, nullptr);
    });
  });
  add("Read/dglink_buffer/" + Bytes, Iterations, [=](benchmark::State &State) {
    timeEachCall(State, Size, [=] {
      return piEnqueueMemBufferRead(S.Queue, S.Buffer, PI_TRUE, 0, Size, Pageable, 0, nullptr,
                                    nullptr);
    });
  });
#ifdef DGLINK_BENCH_UR
  if (S.UrUsm != nullptr)
    add("Read/ur_usm/" + Bytes, Iterations, [=](benchmark::State &State) {
      timeEachCall(State, Size, [=] {
        return static_cast<int>(
            urEnqueueUSMMemcpy(S.Ur.Queue, true, Pageable, S.UrUsm, Size, 0, nullptr, nullptr));
      });
    });
  if (S.UrBuffer != nullptr)
    add("Read/ur_buffer/" + Bytes, Iterations, [=](benchmark::State &State) {
      timeEachCall(State, Size, [=] {
        return static_cast<int>(urEnqueueMemBufferRead(S.Ur.Queue, S.UrBuffer, true, 0, Size,
                                                       Pageable, 0, nullptr, nullptr));
      });
    });
#endif
  add("Read/raw_pageable/" + Bytes, Iterations, [=](benchmark::State &State) {
    timeEachCall(State, Size, [=] {
      const CUresult Result = cu().cuMemcpyDtoHAsync(Pageable, S.RawGlobal, Size, S.RawStream);
      return Result != CUDA_SUCCESS ? static_cast<int>(Result) : rawSync();
    });
  });
  add("Read/raw_pinned/" + Bytes, Iterations, [=](benchmark::State &State) {
    timeEachCall(State, Size, [=] {
      const CUresult Result = cu().cuMemcpyDtoHAsync(S.Pinned, S.RawGlobal, Size, S.RawStream);
      return Result != CUDA_SUCCESS ? static_cast<int>(Result) : rawSync();
    });
  });
#if DGLINK_BENCH_CUDART
  add("Read/cudaMemcpyFromSymbol/" + Bytes, Iterations, [=](benchmark::State &State) {
    timeEachCall(State, Size, [=] { return dglinkRuntimeFromSymbol(Pageable, Size, 0); });
  });
#endif
}

void registerNonBlocking(size_t Size) {
  const std::string Bytes = std::to_string(Size);
  const int Iterations = Size >= (size_t{1} << 20) ? 10 : Size >= 65536 ? 50 : 200;
  unsigned char *Pageable = S.Pageable.data();
  add("WriteNonBlocking/dglink/" + Bytes, Iterations, [=](benchmark::State &State) {
    dglink::bench::timeEnqueues(
        State, Size, EnqueuesPerWait,
        [=] {
          return piextEnqueueDeviceGlobalVariableWrite(S.Queue, S.Program, GlobalName, PI_FALSE,
                                                       Size, 0, Pageable, 0, nullptr, nullptr);
        },
        queueFinish);
  });
  add("WriteNonBlocking/dglink_direct/" + Bytes, Iterations, [=](benchmark::State &State) {
    dglink::bench::timeEnqueues(
        State, Size, EnqueuesPerWait,
        [=] {
          return S.DirectWrite(S.Queue, S.Program, GlobalName, PI_FALSE, Size, 0, Pageable, 0,
                               nullptr, nullptr);
        },
        queueFinish);
  });
  add("WriteNonBlocking/raw_pageable/" + Bytes, Iterations, [=](benchmark::State &State) {
    dglink::bench::timeEnqueues(
        State, Size, EnqueuesPerWait,
        [=] {
          return static_cast<int>(cu().cuMemcpyHtoDAsync(S.RawGlobal, Pageable, Size, S.RawStream));
        },
        rawSync);
  });
  add("ReadNonBlocking/dglink/" + Bytes, Iterations, [=](benchmark::State &State) {
    dglink::bench::timeEnqueues(
        State, Size, EnqueuesPerWait,
        [=] {
          return piextEnqueueDeviceGlobalVariableRead(S.Queue, S.Program, GlobalName, PI_FALSE,
                                                      Size, 0, Pageable, 0, nullptr, nullptr);
        },
        queueFinish);
  });
  add("ReadNonBlocking/raw_pageable/" + Bytes, Iterations, [=](benchmark::State &State) {
    dglink::bench::timeEnqueues(
        State, Size, EnqueuesPerWait,
        [=] {
          return static_cast<int>(cu().cuMemcpyDtoHAsync(Pageable, S.RawGlobal, Size, S.RawStream));
        },
        rawSync);
  });
}

// The first access of a fresh program pays the symbol lookup; later ones do
// not (Write/dglink/4 is the warm case). The PTX image, as for the warm case: the
// -rdc fatbin is relocatable, and its globals are not found once loaded.
void registerFirstAccess() {
  add("FirstAccess/dglink/4", 50, [](benchmark::State &State) {
    std::vector<double> Samples;
    const int Value = 1;
    for (auto _ : State) {
      pi_program Program = buildProgram(BenchGlobalsPtx, BenchGlobalsPtxSize);
      const Clock::time_point Begin = Clock::now();
      const pi_result Result = piextEnqueueDeviceGlobalVariableWrite(
          S.Queue, Program, GlobalName, PI_TRUE, 4, 0, &Value, 0, nullptr, nullptr);
      const Clock::time_point End = Clock::now();
      piProgramRelease(Program);
      if (Result != PI_SUCCESS) {
        State.SkipWithError(("first write failed: " + std::to_string(Result)).c_str());
        break;
      }
      State.SetIterationTime(seconds(Begin, End));
      Samples.push_back(seconds(Begin, End) * 1e6);
    }
    State.counters["median_us"] = median(Samples);
  });
  add("FirstAccess/raw/4", 50, [](benchmark::State &State) {
    std::vector<double> Samples;
    const int Value = 1;
    for (auto _ : State) {
      CUmodule Module = nullptr;
      checkCu(cu().cuModuleLoadDataEx(&Module, BenchGlobalsPtx, 0, nullptr, nullptr),
              "cuModuleLoadDataEx");
      const Clock::time_point Begin = Clock::now();
      CUdeviceptr Address = 0;
      size_t Bytes = 0;
      CUresult Result = cu().cuModuleGetGlobal(&Address, &Bytes, Module, GlobalName);
      if (Result == CUDA_SUCCESS)
        Result = cu().cuMemcpyHtoDAsync(Address, &Value, 4, S.RawStream);
      if (Result == CUDA_SUCCESS)
        Result = cu().cuStreamSynchronize(S.RawStream);
      const Clock::time_point End = Clock::now();
      cu().cuModuleUnload(Module);
      if (Result != CUDA_SUCCESS) {
        State.SkipWithError(("first write failed: CUresult " + std::to_string(Result)).c_str());
        break;
      }
      State.SetIterationTime(seconds(Begin, End));
      Samples.push_back(seconds(Begin, End) * 1e6);
    }
    State.counters["median_us"] = median(Samples);
  });
  add("Lookup/raw_cuModuleGetGlobal/0", 2000, [](benchmark::State &State) {
    timeEachCall(State, 0, [] {
      CUdeviceptr Address = 0;
      size_t Bytes = 0;
      return static_cast<int>(cu().cuModuleGetGlobal(&Address, &Bytes, S.RawModule, GlobalName));
    });
  });
}

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  if (!setUp()) {
    std::puts("no CUDA device");
    return 0;
  }
  int DriverVersion = 0;
  cu().cuDriverGetVersion(&DriverVersion);
  benchmark::AddCustomContext("device", S.DeviceName);
  benchmark::AddCustomContext("cuda_driver_version", std::to_string(DriverVersion));
  benchmark::AddCustomContext("direct_call", S.DirectHow);
  benchmark::AddCustomContext("backend", benchBackend());
  // Every copy-engine knob set for this run (docs/stream-backend.md).
  for (char **Entry = environ; *Entry != nullptr; ++Entry)
    if (std::strncmp(*Entry, "DGLINK_COPY_", 12) == 0) {
      const char *Equals = std::strchr(*Entry, '=');
      if (Equals != nullptr)
        benchmark::AddCustomContext(std::string(*Entry, static_cast<size_t>(Equals - *Entry)),
                                    Equals + 1);
    }
  for (size_t Size : Sizes)
    registerBlocking(Size);
  for (size_t Size : Sizes)
    registerNonBlocking(Size);
  registerFirstAccess();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  tearDown();
  return 0;
}
