// What SPIR-V costs on an OpenCL device whose driver takes no IL (PoCL 3.1), where the
// adapter translates it into SPIR bitcode (common/device_code, docs/opencl.md), beside
// the direct path of the same source compiled to SPIR bitcode, in one run, through the
// dispatch layer:
//   Create/spir            piProgramCreateWithBinary(SPIR bitcode) + release
//   Create/spirv_first     piProgramCreate(SPIR-V) of a module the process has not seen
//                          (its generator word changed per call: same code, new bytes)
//   Create/spirv_again     piProgramCreate(SPIR-V) of the same module again (cached)
//   CreateBuild/...        the same, then piProgramBuild: the cost of a runnable program
//   Translate/first, Translate/again   the translation alone (device_code's front: the
//                          check, the cache, the translator's child process)
//   Translate/in_process   the LLVM side called directly, without the child process
// Each call is timed on its own; the counter median_us is the median.
// benchmarks/spirv_ratios.py prints the ratios the issue asks for from the JSON output.
#include "../common/device_code/llvm/translator.h"
#include "dglink_timing.h"
#include "pi_bench.h"

#include <dglink/device_code/translate.h>
#include <dglink/pi.h>
#include <dglink/support/device_code.h>

#include <benchmark/benchmark.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

extern "C" pi_device_binaries dglinkSpirvBenchBinaries(void);

namespace {

using dglink::bench::timeEachCall;

struct Setup {
  pi_context Context = nullptr;
  pi_device Device = nullptr;
  std::string DeviceName;
  std::vector<uint8_t> Spir, SpirV;
  std::string WhyNot;
};

std::string deviceText(pi_device Device, pi_device_info Name) {
  char Text[1024] = {};
  piDeviceGetInfo(Device, Name, sizeof(Text) - 1, Text, nullptr);
  return Text;
}

// The first OpenCL device that builds SPIR-V only translated, and the bench image in
// both forms.
Setup &setup() {
  static Setup S = [] {
    Setup Out;
    pi_device_binaries Images = dglinkSpirvBenchBinaries();
    for (uint16_t I = 0; I < Images->NumDeviceBinaries; ++I) {
      const _pi_device_binary_struct &Image = Images->DeviceBinaries[I];
      const dglink::DeviceCode Code = dglink::deviceCodeOf(
          Image.DeviceTargetSpec, static_cast<pi_device_binary_format>(Image.Format));
      std::vector<uint8_t> Bytes(Image.BinaryStart, Image.BinaryEnd);
      if (Code == dglink::DeviceCode::Spir)
        Out.Spir = std::move(Bytes);
      else if (Code == dglink::DeviceCode::SpirV)
        Out.SpirV = std::move(Bytes);
    }
    pi_uint32 NumPlatforms = 0;
    piPlatformsGet(0, nullptr, &NumPlatforms);
    std::vector<pi_platform> Platforms(NumPlatforms);
    piPlatformsGet(NumPlatforms, Platforms.data(), nullptr);
    for (pi_platform Platform : Platforms) {
      if (dglink::bench::platformBackend(Platform) != "opencl")
        continue;
      pi_uint32 NumDevices = 0;
      piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 0, nullptr, &NumDevices);
      std::vector<pi_device> Devices(NumDevices);
      piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, NumDevices, Devices.data(), nullptr);
      for (pi_device Device : Devices) {
        const std::string Formats = deviceText(Device, PI_EXT_DEVICE_INFO_IMAGE_FORMATS);
        const std::string Il = deviceText(Device, PI_DEVICE_INFO_IL_VERSION);
        if (Formats.find("spirv64") == std::string::npos ||
            Formats.find("spir64") == std::string::npos || Il.find("SPIR-V") != std::string::npos)
          continue;
        if (piContextCreate(nullptr, 1, &Device, &Out.Context) != PI_SUCCESS)
          continue;
        Out.Device = Device;
        Out.DeviceName = deviceText(Device, PI_DEVICE_INFO_NAME);
        return Out;
      }
    }
    Out.WhyNot = "no OpenCL device that builds SPIR-V only translated (PoCL 3.1 is one)";
    return Out;
  }();
  return S;
}

// A module of the same code with other bytes: the generator word (word 2) numbered.
std::vector<uint8_t> freshModule(const std::vector<uint8_t> &Module) {
  static uint32_t Counter = 0x10000;
  std::vector<uint8_t> Copy = Module;
  const uint32_t Generator = ++Counter;
  std::memcpy(Copy.data() + 8, &Generator, 4);
  return Copy;
}

enum class Input { Spir, SpirVFirst, SpirVAgain };

int createProgram(Input What, bool Build) {
  Setup &S = setup();
  pi_program Program = nullptr;
  pi_result Result;
  if (What == Input::Spir) {
    const unsigned char *Binary = S.Spir.data();
    const size_t Length = S.Spir.size();
    Result = piProgramCreateWithBinary(S.Context, 1, &S.Device, &Length, &Binary, 0, nullptr,
                                       nullptr, &Program);
  } else {
    const std::vector<uint8_t> Module = What == Input::SpirVFirst ? freshModule(S.SpirV) : S.SpirV;
    Result = piProgramCreate(S.Context, Module.data(), Module.size(), &Program);
  }
  if (Result == PI_SUCCESS && Build)
    Result = piProgramBuild(Program, 1, &S.Device, nullptr, nullptr, nullptr);
  if (Program != nullptr)
    piProgramRelease(Program);
  return Result;
}

bool ready(benchmark::State &State) {
  Setup &S = setup();
  if (S.Spir.empty() || S.SpirV.empty()) {
    State.SkipWithError("the bench image lacks its spir64 or spirv64 form");
    return false;
  }
  if (S.Context == nullptr) {
    State.SkipWithError(S.WhyNot.c_str());
    return false;
  }
  State.SetLabel(S.DeviceName);
  return true;
}

void create(benchmark::State &State, Input What, bool Build) {
  if (!ready(State))
    return;
  timeEachCall(
      State, 0, [What, Build] { return static_cast<int>(createProgram(What, Build)); },
      Build ? 2 : 10);
}

void translate(benchmark::State &State, bool Again) {
  if (!ready(State))
    return;
  const std::vector<uint8_t> &Module = setup().SpirV;
  timeEachCall(State, Module.size(), [&Module, Again] {
    const std::vector<uint8_t> Bytes = Again ? Module : freshModule(Module);
    dglink::device_code::Bytes Out;
    return static_cast<int>(dglink::device_code::translateSpirv("bench", Bytes.data(), Bytes.size(),
                                                                dglink::DeviceCode::Spir, Out));
  });
}

void translateInProcess(benchmark::State &State) {
  if (!ready(State))
    return;
  void *Side = dlopen(dglink::device_code::TranslatorLibrary, RTLD_NOW | RTLD_LOCAL);
  auto Translate = Side == nullptr ? nullptr
                                   : reinterpret_cast<dglink::device_code::TranslateFunction>(
                                         dlsym(Side, dglink::device_code::TranslateSymbol));
  if (Translate == nullptr) {
    State.SkipWithError("the LLVM side cannot be loaded");
    return;
  }
  const std::vector<uint8_t> &Module = setup().SpirV;
  timeEachCall(State, Module.size(), [&Module, Translate] {
    std::vector<uint8_t> Out;
    std::string Why;
    return Translate(Module.data(), Module.size(), static_cast<int>(dglink::DeviceCode::Spir), &Out,
                     &Why)
               ? 0
               : 1;
  });
}

} // namespace

BENCHMARK_CAPTURE(create, spir, Input::Spir, false)->Name("Create/spir")->UseManualTime();
BENCHMARK_CAPTURE(create, spirv_first, Input::SpirVFirst, false)
    ->Name("Create/spirv_first")
    ->UseManualTime();
BENCHMARK_CAPTURE(create, spirv_again, Input::SpirVAgain, false)
    ->Name("Create/spirv_again")
    ->UseManualTime();
BENCHMARK_CAPTURE(create, spir, Input::Spir, true)->Name("CreateBuild/spir")->UseManualTime();
BENCHMARK_CAPTURE(create, spirv_first, Input::SpirVFirst, true)
    ->Name("CreateBuild/spirv_first")
    ->UseManualTime();
BENCHMARK_CAPTURE(create, spirv_again, Input::SpirVAgain, true)
    ->Name("CreateBuild/spirv_again")
    ->UseManualTime();
BENCHMARK_CAPTURE(translate, first, false)->Name("Translate/first")->UseManualTime();
BENCHMARK_CAPTURE(translate, again, true)->Name("Translate/again")->UseManualTime();
BENCHMARK(translateInProcess)->Name("Translate/in_process")->UseManualTime();

BENCHMARK_MAIN();
