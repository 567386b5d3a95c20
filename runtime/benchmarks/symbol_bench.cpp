// CP027's update_device (include/dglink/symbol.h) of a 4 B and a 1 MiB symbol, per
// device that runs kernels, against what it is made of, on the same queue:
//   UpdateDevice/symbol/<bytes>        SymbolQueue::update_device (the API's checks, then
//                                      piextEnqueueDeviceGlobalVariableWrite)
//   UpdateDevice/pi_write/<bytes>      piextEnqueueDeviceGlobalVariableWrite called directly
//   UpdateDevice/usm_memcpy/<bytes>    piextUSMEnqueueMemcpy to a device allocation of the
//                                      same size (devices with USM)
//   UpdateDevice/buffer_write/<bytes>  piEnqueueMemBufferWrite to a buffer of the same size
//   ApiChecks/symbol                   a copy of no element: the API's own work (checks, the
//                                      remembered device size) without the PI call
// The last two are the closest driver-level copies through PI (the copy the adapter makes
// of a device global is one of them, to the variable's address or storage buffer). Every
// copy is blocking. Each call is timed on its own; the counter median_us is the median
// (run with --benchmark_repetitions=N for the median over repetitions).
// The symbols are the conformance suite's: MutableGV (4 B, symbols_proposal) and
// dg_bench_data (1 MiB, dg_bench), in programs the runtime builds.
#include "bench_devices.h"
#include "dglink_timing.h"

#include <dglink/pi.h>
#include <dglink/runtime.h>
#include <dglink/symbol.h>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace dglink::runtime;

constexpr size_t LargeBytes = size_t(1) << 20;

symbol<int32_t> Small("MutableGV", 7);
symbol<unsigned char[LargeBytes]> Large("dg_bench_data", static_cast<unsigned char>(0x5A));

using dglink::bench::bundle;
using dglink::bench::deviceString;

// One device: its context, queue, the two programs and the raw copy targets.
struct Device {
  pi_device Handle = nullptr;
  pi_context Context = nullptr;
  pi_queue Queue = nullptr;
  std::string Name;
  std::unique_ptr<Runtime> Rt;
  Program SmallProgram, LargeProgram;
  std::unique_ptr<SymbolQueue> SmallBound, LargeBound;
  void *Usm = nullptr; // LargeBytes of device USM, or null
  pi_mem Buffer = nullptr;
  std::string Problem; // why nothing runs on it
};

void release(Device &D) {
  D.SmallBound.reset();
  D.LargeBound.reset();
  D.SmallProgram = Program();
  D.LargeProgram = Program();
  if (D.Rt != nullptr && D.Context != nullptr)
    D.Rt->forgetContext(D.Context);
  D.Rt.reset();
  if (D.Usm != nullptr)
    piextUSMFree(D.Context, D.Usm);
  if (D.Buffer != nullptr)
    piMemRelease(D.Buffer);
  if (D.Queue != nullptr)
    piQueueRelease(D.Queue);
  if (D.Context != nullptr)
    piContextRelease(D.Context);
}

std::string lastError() {
  char *Message = nullptr; // piPluginGetLastError returns the failed call's code
  piPluginGetLastError(&Message);
  return Message == nullptr ? "" : Message;
}

Expected<Program> build(Device &D, const char *Bundle, const char *Kernel) {
  const auto *Bytes = bundle(Bundle);
  if (Bytes == nullptr)
    return Status{PI_ERROR_INVALID_VALUE, std::string("no embedded bundle ") + Bundle};
  Expected<ModuleId> Module = D.Rt->registerBundle(Bytes->Bytes, Bytes->Size, Bundle);
  if (!Module.ok())
    return Module.status();
  ProgramRequest Request;
  Request.Context = D.Context;
  Request.Device = D.Handle;
  Request.Kernel = Kernel;
  Request.Module = *Module;
  return D.Rt->getOrBuildProgram(Request);
}

void prepare(Device &D) {
  if (piContextCreate(nullptr, 1, &D.Handle, &D.Context) != PI_SUCCESS ||
      piQueueCreate(D.Context, D.Handle, 0, &D.Queue) != PI_SUCCESS) {
    D.Problem = "no context or queue: " + lastError();
    return;
  }
  D.Rt = std::make_unique<Runtime>();
  Expected<Program> SmallBuilt = build(D, "symbols_proposal", "kernel3");
  Expected<Program> LargeBuilt = build(D, "dg_bench", "dg_bench_touch");
  if (!SmallBuilt.ok() || !LargeBuilt.ok()) {
    D.Problem = !SmallBuilt.ok() ? SmallBuilt.status().Message : LargeBuilt.status().Message;
    return;
  }
  D.SmallProgram = *SmallBuilt;
  D.LargeProgram = *LargeBuilt;
  D.SmallBound = std::make_unique<SymbolQueue>(D.Queue, D.SmallProgram);
  D.LargeBound = std::make_unique<SymbolQueue>(D.Queue, D.LargeProgram);
  pi_usm_mechanism Usm = PI_USM_MECHANISM_NONE;
  piDeviceGetInfo(D.Handle, PI_EXT_DEVICE_INFO_USM_MECHANISM, sizeof(Usm), &Usm, nullptr);
  if (Usm != PI_USM_MECHANISM_NONE &&
      piextUSMDeviceAlloc(&D.Usm, D.Context, D.Handle, nullptr, LargeBytes, 0) != PI_SUCCESS)
    D.Usm = nullptr;
  if (piMemBufferCreate(D.Context, PI_MEM_FLAGS_ACCESS_RW, LargeBytes, nullptr, &D.Buffer) !=
      PI_SUCCESS)
    D.Buffer = nullptr;
}

// Every device that runs kernels and has device-global access.
std::vector<Device> devices() {
  std::vector<Device> Found;
  pi_uint32 NumPlatforms = 0;
  if (piPlatformsGet(0, nullptr, &NumPlatforms) != PI_SUCCESS || NumPlatforms == 0)
    return Found;
  std::vector<pi_platform> Platforms(NumPlatforms);
  if (piPlatformsGet(NumPlatforms, Platforms.data(), nullptr) != PI_SUCCESS)
    return Found;
  for (pi_platform Platform : Platforms) {
    pi_uint32 NumDevices = 0;
    if (piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 0, nullptr, &NumDevices) != PI_SUCCESS)
      continue;
    std::vector<pi_device> Handles(NumDevices);
    if (piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, NumDevices, Handles.data(), nullptr) !=
        PI_SUCCESS)
      continue;
    for (pi_device Handle : Handles) {
      pi_bool Executes = PI_FALSE;
      pi_device_global_mechanism Mechanism = PI_DEVICE_GLOBAL_MECHANISM_NONE;
      piDeviceGetInfo(Handle, PI_EXT_DEVICE_INFO_EXECUTES_KERNELS, sizeof(Executes), &Executes,
                      nullptr);
      piDeviceGetInfo(Handle, PI_EXT_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM, sizeof(Mechanism),
                      &Mechanism, nullptr);
      if (Executes == PI_FALSE || Mechanism == PI_DEVICE_GLOBAL_MECHANISM_NONE)
        continue;
      Device Entry;
      Entry.Handle = Handle;
      Entry.Name = deviceString(Handle, PI_EXT_DEVICE_INFO_BACKEND_NAME) + ":" +
                   deviceString(Handle, PI_DEVICE_INFO_NAME);
      Found.push_back(std::move(Entry));
    }
  }
  return Found;
}

int code(const Status &Done) { return Done.ok() ? 0 : static_cast<int>(Done.Code); }

void registerDevice(Device &D) {
  using dglink::bench::add;
  using dglink::bench::timeEachCall;
  // What the API adds to a write: a copy of no element runs every check (the range, the
  // remembered size of the device instance) and calls nothing.
  add("ApiChecks/symbol/" + D.Name, 20000, [&D](benchmark::State &State) {
    timeEachCall(State, 0,
                 [&D] { return code(D.LargeBound->copy_to_symbol(Large, Large.host(), 0, 0)); });
  });
  for (const size_t Bytes : {sizeof(int32_t), LargeBytes}) {
    const bool IsSmall = Bytes == sizeof(int32_t);
    const int Iterations = IsSmall ? 2000 : 200;
    const std::string Suffix = "/" + std::to_string(Bytes) + "/" + D.Name;
    const void *Host =
        IsSmall ? static_cast<const void *>(Small.host()) : static_cast<const void *>(Large.host());
    add("UpdateDevice/symbol" + Suffix, Iterations, [&D, IsSmall](benchmark::State &State) {
      if (IsSmall)
        timeEachCall(State, sizeof(int32_t),
                     [&D] { return code(D.SmallBound->update_device(Small)); });
      else
        timeEachCall(State, LargeBytes, [&D] { return code(D.LargeBound->update_device(Large)); });
    });
    add("UpdateDevice/pi_write" + Suffix, Iterations,
        [&D, IsSmall, Bytes, Host](benchmark::State &State) {
          const pi_program Target = IsSmall ? D.SmallProgram.get() : D.LargeProgram.get();
          const char *Name = IsSmall ? "MutableGV" : "dg_bench_data";
          timeEachCall(State, Bytes, [&D, Target, Name, Bytes, Host] {
            return static_cast<int>(piextEnqueueDeviceGlobalVariableWrite(
                D.Queue, Target, Name, PI_TRUE, Bytes, 0, Host, 0, nullptr, nullptr));
          });
        });
    if (D.Usm != nullptr)
      add("UpdateDevice/usm_memcpy" + Suffix, Iterations,
          [&D, Bytes, Host](benchmark::State &State) {
            timeEachCall(State, Bytes, [&D, Bytes, Host] {
              return static_cast<int>(
                  piextUSMEnqueueMemcpy(D.Queue, PI_TRUE, D.Usm, Host, Bytes, 0, nullptr, nullptr));
            });
          });
    if (D.Buffer != nullptr)
      add("UpdateDevice/buffer_write" + Suffix, Iterations,
          [&D, Bytes, Host](benchmark::State &State) {
            timeEachCall(State, Bytes, [&D, Bytes, Host] {
              return static_cast<int>(piEnqueueMemBufferWrite(D.Queue, D.Buffer, PI_TRUE, 0, Bytes,
                                                              Host, 0, nullptr, nullptr));
            });
          });
  }
}

} // namespace

int main(int Argc, char **Argv) {
  setenv("POCL_KERNEL_CACHE", "0", 0); // PoCL's cache can hand one program another's state
  benchmark::Initialize(&Argc, Argv);
  static std::vector<Device> Found = devices();
  size_t Registered = 0;
  for (Device &D : Found) {
    prepare(D);
    if (!D.Problem.empty()) {
      std::fprintf(stderr, "dglink_bench_symbols: %s skipped: %s\n", D.Name.c_str(),
                   D.Problem.c_str());
      continue;
    }
    registerDevice(D);
    ++Registered;
  }
  if (Registered == 0)
    std::fprintf(stderr, "dglink_bench_symbols: no device that runs kernels with device globals\n");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (Device &D : Found)
    release(D);
  return 0;
}
