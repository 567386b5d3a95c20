// Device-global copy latency on every OpenCL device that runs lowered images (the
// device-global mechanism "lowered"): piextEnqueueDeviceGlobalVariableWrite/Read through
// the dispatch layer (libdglink_pi.so), and a buffer's piEnqueueMemBufferWrite/Read
// (dglink_buffer), against the raw OpenCL copy of the same bytes (clEnqueueWriteBuffer /
// clEnqueueReadBuffer, blocking, from pageable memory, into a buffer of the same size on
// the same device: raw), the raw copy from driver-allocated host memory (pinned on
// NVIDIA's OpenCL: raw_pinned) and a memcpy through that memory (raw_staged), in one run.
// dglink's copies of pageable memory go through its pinned staging where the device
// stages (NVIDIA's OpenCL from 64 KiB; DGLINK_OPENCL_STAGING=0 turns it off, =1 on:
// docs/opencl.md, "Staging"); the DGLINK_OPENCL_* and DGLINK_COPY_* variables set are in
// the JSON context. Where dglink was built with its
// Unified Runtime face, the same copies also go through the real UR loader and the dglink
// OpenCL UR adapter (urEnqueueDeviceGlobalVariableWrite/Read; docs/ur.md). Each call is
// timed on its own and the median becomes the counter median_us. Names:
// <Operation>/<dglink|dglink_buffer|ur|raw|raw_pinned|raw_staged>/<bytes>/<device index>;
// benchmarks/opencl_ratios.py prints the ratio table. Without such a device the program says so and
// exits 0.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#include <dglink/pi.h>

#include "dglink_timing.h"

#ifdef DGLINK_BENCH_UR
#include "ur_bench.h"
#endif

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h> // environ

// The bench image, lowered by the shim at build time and compiled in.
extern "C" pi_device_binaries dglinkOpenClBenchBinaries(void);

namespace {

using dglink::bench::timeEachCall;

constexpr const char *GlobalName = "bench_global";
constexpr size_t GlobalSize = size_t{4} << 20;
constexpr size_t Sizes[] = {4, 4096, 65536, 262144, size_t{1} << 20, GlobalSize};

std::string piString(pi_result (*Get)(void *, unsigned, size_t, void *, size_t *), void *Handle,
                     unsigned Name) {
  size_t Size = 0;
  if (Get(Handle, Name, 0, nullptr, &Size) != PI_SUCCESS || Size == 0)
    return "";
  std::string Text(Size, '\0');
  Get(Handle, Name, Size, Text.data(), nullptr);
  Text.resize(Text.find('\0'));
  return Text;
}

std::string deviceInfo(pi_device Device, pi_device_info Name) {
  return piString(
      [](void *H, unsigned N, size_t S, void *V, size_t *R) {
        return piDeviceGetInfo(static_cast<pi_device>(H), static_cast<pi_device_info>(N), S, V, R);
      },
      Device, Name);
}

std::string platformInfo(pi_platform Platform, pi_platform_info Name) {
  return piString(
      [](void *H, unsigned N, size_t S, void *V, size_t *R) {
        return piPlatformGetInfo(static_cast<pi_platform>(H), static_cast<pi_platform_info>(N), S,
                                 V, R);
      },
      Platform, Name);
}

std::string clDeviceName(cl_device_id Device) {
  size_t Size = 0;
  clGetDeviceInfo(Device, CL_DEVICE_NAME, 0, nullptr, &Size);
  std::string Text(Size, '\0');
  clGetDeviceInfo(Device, CL_DEVICE_NAME, Size, Text.data(), nullptr);
  Text.resize(Text.find('\0'));
  return Text;
}

std::string clPlatformName(cl_platform_id Platform) {
  size_t Size = 0;
  clGetPlatformInfo(Platform, CL_PLATFORM_NAME, 0, nullptr, &Size);
  std::string Text(Size, '\0');
  clGetPlatformInfo(Platform, CL_PLATFORM_NAME, Size, Text.data(), nullptr);
  Text.resize(Text.find('\0'));
  return Text;
}

bool hasWord(const std::string &Words, const std::string &Word) {
  return (" " + Words + " ").find(" " + Word + " ") != std::string::npos;
}

std::string formatOf(const _pi_device_binary_struct &Image) {
  return Image.Format == PI_DEVICE_BINARY_TYPE_SPIRV ? "spirv64" : Image.DeviceTargetSpec;
}

bool isLowered(const _pi_device_binary_struct &Image) {
  for (auto *Set = Image.PropertySetsBegin; Set != Image.PropertySetsEnd; ++Set)
    if (std::string(Set->Name) == PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_STORAGE)
      return true;
  return false;
}

// One device: the dglink side (through the dispatch layer) and the raw OpenCL side.
struct Target {
  std::string Name, Platform, Format;
  pi_device Device = nullptr;
  pi_context Context = nullptr;
  pi_queue Queue = nullptr;
  pi_program Program = nullptr;
  pi_mem Buffer = nullptr; // dglink_buffer's
  cl_context RawContext = nullptr;
  cl_command_queue RawQueue = nullptr;
  cl_mem RawBuffer = nullptr;
  // Host memory the driver allocated (CL_MEM_ALLOC_HOST_PTR, mapped once): pinned on
  // NVIDIA's OpenCL. Write/raw_pinned copies from it; Write/raw_staged copies the
  // pageable bytes into it first (one memcpy), which is what staging would cost.
  cl_mem PinnedBuffer = nullptr;
  unsigned char *Pinned = nullptr;
#ifdef DGLINK_BENCH_UR
  dglink::bench::UrSession Ur; // the same device through the UR loader
#endif
  std::vector<unsigned char> Host = std::vector<unsigned char>(GlobalSize, 0x5A);
};
std::vector<std::unique_ptr<Target>> Targets;

[[noreturn]] void die(const std::string &What, int Code) {
  char *Message = nullptr;
  piPluginGetLastError(&Message);
  std::fprintf(stderr, "dglink_bench_opencl_device_global: %s failed (%d): %s\n", What.c_str(),
               Code, Message ? Message : "");
  std::exit(1);
}

#define CHECK_PI(Call)                                                                             \
  do {                                                                                             \
    if (pi_result R = (Call); R != PI_SUCCESS)                                                     \
      die(#Call, R);                                                                               \
  } while (0)

// The raw device that is Name on platform Platform.
cl_device_id findRawDevice(const std::string &Platform, const std::string &Name) {
  cl_uint Count = 0;
  if (clGetPlatformIDs(0, nullptr, &Count) != CL_SUCCESS || Count == 0)
    return nullptr;
  std::vector<cl_platform_id> Platforms(Count);
  clGetPlatformIDs(Count, Platforms.data(), nullptr);
  for (cl_platform_id P : Platforms) {
    if (clPlatformName(P) != Platform)
      continue;
    cl_uint Devices = 0;
    if (clGetDeviceIDs(P, CL_DEVICE_TYPE_ALL, 0, nullptr, &Devices) != CL_SUCCESS)
      continue;
    std::vector<cl_device_id> Ids(Devices);
    clGetDeviceIDs(P, CL_DEVICE_TYPE_ALL, Devices, Ids.data(), nullptr);
    for (cl_device_id Id : Ids)
      if (clDeviceName(Id) == Name)
        return Id;
  }
  return nullptr;
}

void openTarget(Target &T, const _pi_device_binary_struct &Image, cl_device_id Raw) {
  CHECK_PI(piContextCreate(nullptr, 1, &T.Device, &T.Context));
  CHECK_PI(piQueueCreate(T.Context, T.Device, 0, &T.Queue));
  CHECK_PI(piextProgramCreateWithImage(T.Context, 1, &T.Device, &Image, &T.Program));
  CHECK_PI(piProgramBuild(T.Program, 1, &T.Device, "", nullptr, nullptr));
  CHECK_PI(piMemBufferCreate(T.Context, PI_MEM_FLAGS_ACCESS_RW, GlobalSize, nullptr, &T.Buffer));
  cl_int Error = CL_SUCCESS;
  T.RawContext = clCreateContext(nullptr, 1, &Raw, nullptr, nullptr, &Error);
  if (Error != CL_SUCCESS)
    die("clCreateContext", Error);
  T.RawQueue = clCreateCommandQueueWithProperties(T.RawContext, Raw, nullptr, &Error);
  if (Error != CL_SUCCESS)
    die("clCreateCommandQueueWithProperties", Error);
  T.RawBuffer = clCreateBuffer(T.RawContext, CL_MEM_READ_WRITE, GlobalSize, nullptr, &Error);
  if (Error != CL_SUCCESS)
    die("clCreateBuffer", Error);
  T.PinnedBuffer = clCreateBuffer(T.RawContext, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                  GlobalSize, nullptr, &Error);
  if (Error != CL_SUCCESS)
    die("clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)", Error);
  T.Pinned = static_cast<unsigned char *>(
      clEnqueueMapBuffer(T.RawQueue, T.PinnedBuffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                         GlobalSize, 0, nullptr, nullptr, &Error));
  if (Error != CL_SUCCESS)
    die("clEnqueueMapBuffer", Error);
  std::memset(T.Pinned, 0x5A, GlobalSize);
}

#ifdef DGLINK_BENCH_UR
void openUr(Target &T, const _pi_device_binary_struct &Image) {
  ur_device_handle_t Device = nullptr;
  if (dglink::bench::initUrLoader("libur_adapter_dglink_opencl.so"))
    Device = dglink::bench::findUrDevice(T.Name);
  if (Device == nullptr) {
    std::printf("%s: not found through the UR loader; no ur rows\n", T.Name.c_str());
    return;
  }
  if (const char *Failed = T.Ur.open(Device, Image))
    die(Failed, 0);
}
#endif

void findTargets() {
  pi_device_binaries Binaries = dglinkOpenClBenchBinaries();
  pi_uint32 PlatformCount = 0;
  if (piPlatformsGet(0, nullptr, &PlatformCount) != PI_SUCCESS || PlatformCount == 0)
    return;
  std::vector<pi_platform> Platforms(PlatformCount);
  CHECK_PI(piPlatformsGet(PlatformCount, Platforms.data(), nullptr));
  for (pi_platform Platform : Platforms) {
    pi_uint32 Count = 0;
    if (piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 0, nullptr, &Count) != PI_SUCCESS)
      continue;
    std::vector<pi_device> Devices(Count);
    CHECK_PI(piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, Count, Devices.data(), nullptr));
    for (pi_device Device : Devices) {
      pi_device_global_mechanism Mechanism = PI_DEVICE_GLOBAL_MECHANISM_NONE;
      CHECK_PI(piDeviceGetInfo(Device, PI_EXT_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM,
                               sizeof(Mechanism), &Mechanism, nullptr));
      if (Mechanism != PI_DEVICE_GLOBAL_MECHANISM_LOWERED)
        continue;
      auto T = std::make_unique<Target>();
      T->Device = Device;
      T->Name = deviceInfo(Device, PI_DEVICE_INFO_NAME);
      T->Platform = platformInfo(Platform, PI_PLATFORM_INFO_NAME);
      const std::string Formats = deviceInfo(Device, PI_EXT_DEVICE_INFO_IMAGE_FORMATS);
      const _pi_device_binary_struct *Image = nullptr;
      for (pi_uint32 I = 0; I < Binaries->NumDeviceBinaries && Image == nullptr; ++I)
        if (isLowered(Binaries->DeviceBinaries[I]) &&
            hasWord(Formats, formatOf(Binaries->DeviceBinaries[I])))
          Image = &Binaries->DeviceBinaries[I];
      cl_device_id Raw = findRawDevice(T->Platform, T->Name);
      if (Image == nullptr || Raw == nullptr) {
        std::printf("skipping %s (%s): %s\n", T->Name.c_str(), T->Platform.c_str(),
                    Image == nullptr ? "builds none of the bench image's formats"
                                     : "not found through the OpenCL ICD loader");
        continue;
      }
      T->Format = formatOf(*Image);
      openTarget(*T, *Image, Raw);
#ifdef DGLINK_BENCH_UR
      openUr(*T, *Image);
#endif
      Targets.push_back(std::move(T));
    }
  }
}

void registerBenchmarks() {
  for (size_t Index = 0; Index < Targets.size(); ++Index) {
    Target *T = Targets[Index].get();
    const std::string Suffix = "/" + std::to_string(Index);
    for (size_t Bytes : Sizes) {
      const std::string Size = std::to_string(Bytes);
      benchmark::RegisterBenchmark(("Write/dglink/" + Size + Suffix).c_str(),
                                   [T, Bytes](benchmark::State &State) {
                                     timeEachCall(State, Bytes, [T, Bytes] {
                                       return static_cast<int>(
                                           piextEnqueueDeviceGlobalVariableWrite(
                                               T->Queue, T->Program, GlobalName, PI_TRUE, Bytes, 0,
                                               T->Host.data(), 0, nullptr, nullptr));
                                     });
                                   })
          ->UseManualTime();
      benchmark::RegisterBenchmark(
          ("Write/dglink_buffer/" + Size + Suffix).c_str(),
          [T, Bytes](benchmark::State &State) {
            timeEachCall(State, Bytes, [T, Bytes] {
              return static_cast<int>(piEnqueueMemBufferWrite(
                  T->Queue, T->Buffer, PI_TRUE, 0, Bytes, T->Host.data(), 0, nullptr, nullptr));
            });
          })
          ->UseManualTime();
      benchmark::RegisterBenchmark(
          ("Read/dglink_buffer/" + Size + Suffix).c_str(),
          [T, Bytes](benchmark::State &State) {
            timeEachCall(State, Bytes, [T, Bytes] {
              return static_cast<int>(piEnqueueMemBufferRead(T->Queue, T->Buffer, PI_TRUE, 0, Bytes,
                                                             T->Host.data(), 0, nullptr, nullptr));
            });
          })
          ->UseManualTime();
      benchmark::RegisterBenchmark(("Write/raw/" + Size + Suffix).c_str(),
                                   [T, Bytes](benchmark::State &State) {
                                     timeEachCall(State, Bytes, [T, Bytes] {
                                       return static_cast<int>(clEnqueueWriteBuffer(
                                           T->RawQueue, T->RawBuffer, CL_TRUE, 0, Bytes,
                                           T->Host.data(), 0, nullptr, nullptr));
                                     });
                                   })
          ->UseManualTime();
#ifdef DGLINK_BENCH_UR
      if (T->Ur.Program != nullptr && Bytes == Sizes[0]) {
        // The cost of the route alone: a query the core answers from the handle, through
        // the dispatch layer and the PI face, and through the UR loader and the UR face.
        benchmark::RegisterBenchmark(("Query/dglink/0" + Suffix).c_str(), [T](benchmark::State
                                                                                  &State) {
          timeEachCall(State, 0, [T] {
            pi_uint32 Count = 0;
            return static_cast<int>(piProgramGetInfo(T->Program, PI_PROGRAM_INFO_REFERENCE_COUNT,
                                                     sizeof(Count), &Count, nullptr));
          });
        })->UseManualTime();
        benchmark::RegisterBenchmark(("Query/ur/0" + Suffix).c_str(), [T](benchmark::State &State) {
          timeEachCall(State, 0, [T] {
            uint32_t Count = 0;
            return static_cast<int>(urProgramGetInfo(T->Ur.Program, UR_PROGRAM_INFO_REFERENCE_COUNT,
                                                     sizeof(Count), &Count, nullptr));
          });
        })->UseManualTime();
      }
      if (T->Ur.Program != nullptr) {
        benchmark::RegisterBenchmark(("Write/ur/" + Size + Suffix).c_str(),
                                     [T, Bytes](benchmark::State &State) {
                                       timeEachCall(State, Bytes, [T, Bytes] {
                                         return static_cast<int>(urEnqueueDeviceGlobalVariableWrite(
                                             T->Ur.Queue, T->Ur.Program, GlobalName, true, Bytes, 0,
                                             T->Host.data(), 0, nullptr, nullptr));
                                       });
                                     })
            ->UseManualTime();
        benchmark::RegisterBenchmark(("Read/ur/" + Size + Suffix).c_str(),
                                     [T, Bytes](benchmark::State &State) {
                                       timeEachCall(State, Bytes, [T, Bytes] {
                                         return static_cast<int>(urEnqueueDeviceGlobalVariableRead(
                                             T->Ur.Queue, T->Ur.Program, GlobalName, true, Bytes, 0,
                                             T->Host.data(), 0, nullptr, nullptr));
                                       });
                                     })
            ->UseManualTime();
      }
#endif
      benchmark::RegisterBenchmark(("Read/dglink/" + Size + Suffix).c_str(),
                                   [T, Bytes](benchmark::State &State) {
                                     timeEachCall(State, Bytes, [T, Bytes] {
                                       return static_cast<int>(piextEnqueueDeviceGlobalVariableRead(
                                           T->Queue, T->Program, GlobalName, PI_TRUE, Bytes, 0,
                                           T->Host.data(), 0, nullptr, nullptr));
                                     });
                                   })
          ->UseManualTime();
      benchmark::RegisterBenchmark(
          ("Write/raw_pinned/" + Size + Suffix).c_str(),
          [T, Bytes](benchmark::State &State) {
            timeEachCall(State, Bytes, [T, Bytes] {
              return static_cast<int>(clEnqueueWriteBuffer(T->RawQueue, T->RawBuffer, CL_TRUE, 0,
                                                           Bytes, T->Pinned, 0, nullptr, nullptr));
            });
          })
          ->UseManualTime();
      benchmark::RegisterBenchmark(
          ("Write/raw_staged/" + Size + Suffix).c_str(),
          [T, Bytes](benchmark::State &State) {
            timeEachCall(State, Bytes, [T, Bytes] {
              std::memcpy(T->Pinned, T->Host.data(), Bytes);
              return static_cast<int>(clEnqueueWriteBuffer(T->RawQueue, T->RawBuffer, CL_TRUE, 0,
                                                           Bytes, T->Pinned, 0, nullptr, nullptr));
            });
          })
          ->UseManualTime();
      benchmark::RegisterBenchmark(
          ("Read/raw_pinned/" + Size + Suffix).c_str(),
          [T, Bytes](benchmark::State &State) {
            timeEachCall(State, Bytes, [T, Bytes] {
              return static_cast<int>(clEnqueueReadBuffer(T->RawQueue, T->RawBuffer, CL_TRUE, 0,
                                                          Bytes, T->Pinned, 0, nullptr, nullptr));
            });
          })
          ->UseManualTime();
      benchmark::RegisterBenchmark(("Read/raw_staged/" + Size + Suffix).c_str(),
                                   [T, Bytes](benchmark::State &State) {
                                     timeEachCall(State, Bytes, [T, Bytes] {
                                       const cl_int R = clEnqueueReadBuffer(
                                           T->RawQueue, T->RawBuffer, CL_TRUE, 0, Bytes, T->Pinned,
                                           0, nullptr, nullptr);
                                       std::memcpy(T->Host.data(), T->Pinned, Bytes);
                                       return static_cast<int>(R);
                                     });
                                   })
          ->UseManualTime();
      benchmark::RegisterBenchmark(("Read/raw/" + Size + Suffix).c_str(),
                                   [T, Bytes](benchmark::State &State) {
                                     timeEachCall(State, Bytes, [T, Bytes] {
                                       return static_cast<int>(clEnqueueReadBuffer(
                                           T->RawQueue, T->RawBuffer, CL_TRUE, 0, Bytes,
                                           T->Host.data(), 0, nullptr, nullptr));
                                     });
                                   })
          ->UseManualTime();
    }
  }
}

} // namespace

int main(int Argc, char **Argv) {
  benchmark::Initialize(&Argc, Argv);
  findTargets();
  if (Targets.empty()) {
    std::printf("no OpenCL device with the lowered device-global mechanism\n");
    return 0;
  }
  for (size_t I = 0; I < Targets.size(); ++I) {
    benchmark::AddCustomContext("device_" + std::to_string(I), Targets[I]->Name + " (" +
                                                                   Targets[I]->Platform + ", " +
                                                                   Targets[I]->Format + " image)");
    std::printf("device %zu: %s (%s), lowered %s image\n", I, Targets[I]->Name.c_str(),
                Targets[I]->Platform.c_str(), Targets[I]->Format.c_str());
  }
  // The staging knobs set for this run (docs/opencl.md, docs/stream-backend.md).
  for (char **Entry = environ; *Entry != nullptr; ++Entry)
    if (std::strncmp(*Entry, "DGLINK_COPY_", 12) == 0 ||
        std::strncmp(*Entry, "DGLINK_OPENCL_", 14) == 0) {
      const char *Equals = std::strchr(*Entry, '=');
      if (Equals != nullptr)
        benchmark::AddCustomContext(std::string(*Entry, static_cast<size_t>(Equals - *Entry)),
                                    Equals + 1);
    }
  registerBenchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (auto &T : Targets) {
    clReleaseMemObject(T->RawBuffer);
    if (T->Pinned != nullptr)
      clEnqueueUnmapMemObject(T->RawQueue, T->PinnedBuffer, T->Pinned, 0, nullptr, nullptr);
    clFinish(T->RawQueue);
    clReleaseMemObject(T->PinnedBuffer);
    clReleaseCommandQueue(T->RawQueue);
    clReleaseContext(T->RawContext);
#ifdef DGLINK_BENCH_UR
    T->Ur.close();
#endif
    piMemRelease(T->Buffer);
    piProgramRelease(T->Program);
    piQueueRelease(T->Queue);
    piContextRelease(T->Context);
  }
  return 0;
}
