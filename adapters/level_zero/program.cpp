// Programs from SPIR-V (and the driver's native binaries), built for each device of
// the program (a Level Zero module is code for one device, with its own instance of
// each global): build = zeModuleCreate per device with the driver's build log, plus
// zeModuleDynamicLink of the module alone when it imports; compile checks the module
// on each device; link makes one module per input and device and resolves the imports
// of those that import with zeModuleDynamicLink, per device. The core has checked the
// images' symbol tables first, so that the log names every unresolved or duplicate
// symbol.
#include "backend.h"

#include <dglink/support/link.h>

#include <cstring>

namespace dglink::level_zero {
namespace {

bool isNative(const _pi_program &Program) { return Program.Format == PI_DEVICE_BINARY_TYPE_NATIVE; }

// The text of a build log handle, which is destroyed.
std::string takeLog(ze_module_build_log_handle_t Log) {
  if (Log == nullptr)
    return "";
  std::string Text;
  size_t Size = 0;
  if (ze().zeModuleBuildLogGetString(Log, &Size, nullptr) == ZE_RESULT_SUCCESS && Size > 0) {
    Text.assign(Size, '\0');
    if (ze().zeModuleBuildLogGetString(Log, &Size, Text.data()) != ZE_RESULT_SUCCESS)
      Text.clear();
    Text.resize(strnlen(Text.c_str(), Text.size()));
  }
  ze().zeModuleBuildLogDestroy(Log);
  return Text;
}

// zeModuleCreate of Program's bytes for Device with Options; Log gets the driver's log.
pi_result createModule(const ZeContext &Context, const _pi_device &Device,
                       const _pi_program &Program, const std::string &Options,
                       pi_result FailureCode, ze_module_handle_t &Module, std::string &Log) {
  ze_module_desc_t Desc = {};
  Desc.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
  Desc.format = isNative(Program) ? ZE_MODULE_FORMAT_NATIVE : ZE_MODULE_FORMAT_IL_SPIRV;
  Desc.inputSize = Program.Binary.size();
  Desc.pInputModule = Program.Binary.data();
  Desc.pBuildFlags = Options.c_str();
  ze_module_build_log_handle_t BuildLog = nullptr;
  const ze_result_t Result =
      ze().zeModuleCreate(Context.Context, zeDevice(Device).Device, &Desc, &Module, &BuildLog);
  Log += takeLog(BuildLog);
  if (Result == ZE_RESULT_SUCCESS)
    return PI_SUCCESS;
  Module = nullptr;
  zeError(Result, "zeModuleCreate",
          Result == ZE_RESULT_ERROR_INVALID_NATIVE_BINARY ? PI_ERROR_INVALID_BINARY : FailureCode);
  return fail(lastErrorCode(), "{} for device '{}'\n{}", lastErrorMessage(),
              Device.Description.Name, Log);
}

pi_result addKernels(ze_module_handle_t Module,
                     std::vector<std::pair<std::string, ze_module_handle_t>> &Kernels) {
  uint32_t Count = 0;
  DGLINK_ZE(zeModuleGetKernelNames, Module, &Count, nullptr);
  std::vector<const char *> Names(Count);
  if (Count != 0)
    DGLINK_ZE(zeModuleGetKernelNames, Module, &Count, Names.data());
  for (uint32_t I = 0; I < Count; ++I)
    if (Names[I] != nullptr)
      Kernels.emplace_back(Names[I], Module);
  return PI_SUCCESS;
}

// zeModuleDynamicLink of Modules; the driver's log goes to Log.
pi_result dynamicLink(std::vector<ze_module_handle_t> &Modules, pi_result FailureCode,
                      std::string &Log) {
  ze_module_build_log_handle_t LinkLog = nullptr;
  const ze_result_t Result =
      ze().zeModuleDynamicLink(static_cast<uint32_t>(Modules.size()), Modules.data(), &LinkLog);
  Log += takeLog(LinkLog);
  if (Result != ZE_RESULT_SUCCESS)
    return zeError(Result, "zeModuleDynamicLink", FailureCode);
  return PI_SUCCESS;
}

void destroyModules(std::vector<ze_module_handle_t> &Modules) {
  for (ze_module_handle_t Module : Modules)
    ze().zeModuleDestroy(Module);
  Modules.clear();
}

// Device's modules become the program's code for Device, with the kernels they hold;
// on failure they are destroyed.
pi_result adoptModules(ZeProgram &Impl, _pi_device &Device,
                       std::vector<ze_module_handle_t> &Modules) {
  DeviceCode Code;
  Code.Device = &Device;
  pi_result Result = PI_SUCCESS;
  try {
    for (ze_module_handle_t Module : Modules)
      if (Result == PI_SUCCESS)
        Result = addKernels(Module, Code.Kernels);
    if (Result == PI_SUCCESS) {
      Code.Modules = Modules;
      Impl.Code.push_back(std::move(Code));
      Modules.clear();
      return PI_SUCCESS;
    }
  } catch (...) {
    destroyModules(Modules);
    throw;
  }
  destroyModules(Modules);
  return Result;
}

// The program's kernel names: those of its first device's code (every device has the
// same code).
void nameKernels(const ZeProgram &Impl, _pi_program &Program) {
  Program.KernelNames.clear();
  if (!Impl.Code.empty())
    for (const auto &Kernel : Impl.Code.front().Kernels)
      Program.KernelNames.push_back(Kernel.first);
}

} // namespace

pi_result ZeContext::adoptProgram(const char *Function, uintptr_t Native, bool Owned,
                                  _pi_program &Program) {
  if (Devices.size() != 1)
    return fail(PI_ERROR_INVALID_CONTEXT,
                "{}: a Level Zero module is built for one device, which it does not name: adopt "
                "it into a context of that device alone (this one has {})",
                Function, Devices.size());
  auto *Module = reinterpret_cast<ze_module_handle_t>(Native);
  auto Made = std::make_unique<ZeProgram>(*this);
  Made->OwnsModules = false; // until the module is known to be one
  DeviceCode Code;
  Code.Device = Devices.front();
  Code.Modules.push_back(Module);
  const pi_result Listed = addKernels(Module, Code.Kernels);
  if (Listed != PI_SUCCESS)
    return fail(PI_ERROR_INVALID_VALUE, "{}: native handle {:#x} is no Level Zero module ({})",
                Function, Native, lastErrorMessage());
  Made->Code.push_back(std::move(Code));
  Made->OwnsModules = Owned;
  Program.Devices = Devices;
  Program.BinaryType = PI_PROGRAM_BINARY_TYPE_EXECUTABLE; // a module is built
  nameKernels(*Made, Program);
  Program.Impl = std::move(Made);
  return PI_SUCCESS;
}

ZeProgram::~ZeProgram() {
  if (OwnsModules)
    for (DeviceCode &Each : Code)
      destroyModules(Each.Modules);
}

const DeviceCode *ZeProgram::codeOf(const _pi_device &Device) const {
  for (const DeviceCode &Each : Code)
    if (Each.Device == &Device)
      return &Each;
  return nullptr;
}

// SPIR-V is IL; LLVM bitcode and PTX are refused; anything else is left to the
// driver as a native binary (piProgramCreateWithBinary, and images declared native)
// or refused as not SPIR-V.
pi_result ZeContext::createProgram(const char *Function, const core::ProgramSource &Source,
                                   _pi_program &Program) {
  using Origin = core::ProgramSource::Origin;
  if (Source.From == Origin::Image) {
    if (Source.DeclaredFormat == PI_DEVICE_BINARY_TYPE_LLVMIR_BITCODE)
      return fail(PI_ERROR_INVALID_OPERATION,
                  "{}: Level Zero cannot consume LLVM bitcode (SPIR) (device '{}' builds SPIR-V)",
                  Function, first().Description.Name);
    const char *Target = Source.Target;
    const bool KnownTarget = Target == nullptr || *Target == '\0' ||
                             std::strcmp(Target, PI_DEVICE_BINARY_TARGET_SPIRV64) == 0 ||
                             std::strcmp(Target, PI_DEVICE_BINARY_TARGET_SPIRV64_GEN) == 0 ||
                             std::strcmp(Target, PI_DEVICE_BINARY_TARGET_UNKNOWN) == 0;
    if (!KnownTarget)
      return fail(PI_ERROR_INVALID_OPERATION,
                  "{}: image target '{}' cannot run on Level Zero device '{}' (it "
                  "runs " PI_DEVICE_BINARY_TARGET_SPIRV64
                  " and " PI_DEVICE_BINARY_TARGET_SPIRV64_GEN ")",
                  Function, clip(Target), first().Description.Name);
    if (Source.Size == 0)
      return fail(PI_ERROR_INVALID_BINARY, "{}: the image's byte range is empty or invalid",
                  Function);
  }
  const ImageFormat Format = detectFormat(Source.Data, Source.Size);
  if (Format == ImageFormat::LlvmBitcode || Format == ImageFormat::Ptx)
    return fail(PI_ERROR_INVALID_OPERATION,
                "{}: Level Zero cannot consume {} (device '{}' builds SPIR-V and its driver's "
                "native binaries)",
                Function, Format == ImageFormat::Ptx ? "PTX" : "LLVM bitcode (SPIR)",
                first().Description.Name);
  const bool AllowNative =
      Source.From == Origin::Binary ||
      (Source.From == Origin::Image && Source.DeclaredFormat == PI_DEVICE_BINARY_TYPE_NATIVE);
  if (Format != ImageFormat::SpirV && !AllowNative)
    return fail(PI_ERROR_INVALID_BINARY, "{}: the {} bytes are not SPIR-V", Function, Source.Size);
  Program.Format =
      Format == ImageFormat::SpirV ? PI_DEVICE_BINARY_TYPE_SPIRV : PI_DEVICE_BINARY_TYPE_NATIVE;
  if (Program.Target.empty())
    Program.Target = PI_DEVICE_BINARY_TARGET_SPIRV64;
  Program.Impl = std::make_unique<ZeProgram>(*this);
  return PI_SUCCESS;
}

// A module per device of the program; the program is executable once every device's
// module is built (and, where it imports, linked alone).
pi_result ZeProgram::build(_pi_program &Program, const std::string &Options, std::string &Log) {
  pi_result Result = PI_SUCCESS;
  for (_pi_device *Device : Program.Devices) {
    ze_module_handle_t Module = nullptr;
    Result = createModule(Context, *Device, Program, Options, PI_ERROR_BUILD_PROGRAM_FAILURE,
                          Module, Log);
    std::vector<ze_module_handle_t> Built;
    if (Module != nullptr)
      Built.push_back(Module);
    // A module that imports is linked alone: what it imports must be in it.
    if (Result == PI_SUCCESS && !Program.Metadata.Imported.empty()) {
      Log += resolveImports({&Program.Metadata}).describe();
      Result = dynamicLink(Built, PI_ERROR_BUILD_PROGRAM_FAILURE, Log);
      if (Result != PI_SUCCESS)
        Result = fail(PI_ERROR_BUILD_PROGRAM_FAILURE,
                      "piProgramBuild: program {} imports symbols it does not define (link it "
                      "with piProgramCompile + piProgramLink): {}\n{}",
                      fmt::ptr(&Program), lastErrorMessage(), Log);
    }
    if (Result == PI_SUCCESS)
      Result = adoptModules(*this, *Device, Built);
    else
      destroyModules(Built);
    if (Result != PI_SUCCESS)
      break;
  }
  if (Result != PI_SUCCESS) {
    for (DeviceCode &Each : Code)
      destroyModules(Each.Modules);
    Code.clear();
    return Result;
  }
  nameKernels(*this, Program);
  return PI_SUCCESS;
}

// The driver reads the module now, for each device of the program, so that a bad one
// fails here with its log; the link makes its own modules from the same bytes.
pi_result ZeProgram::compile(_pi_program &Program, const std::string &Options, std::string &Log) {
  for (_pi_device *Device : Program.Devices) {
    ze_module_handle_t Module = nullptr;
    const pi_result Result = createModule(Context, *Device, Program, Options,
                                          PI_ERROR_COMPILE_PROGRAM_FAILURE, Module, Log);
    if (Module != nullptr)
      ze().zeModuleDestroy(Module);
    DGLINK_TRY(Result);
  }
  return PI_SUCCESS;
}

// Per device of the output: a module per input, linked where any imports. Where the
// images' tables showed problems, the first device's link runs for its log only.
pi_result ZeContext::link(core::LinkRequest &Request) {
  _pi_program &Output = Request.Output;
  auto Impl = std::make_unique<ZeProgram>(*this); // frees the devices' modules on failure
  bool AnyImports = false;
  for (_pi_program *Input : Request.Inputs)
    AnyImports =
        AnyImports || !Input->Metadata.Imported.empty() || !Input->Metadata.HasSymbolTables;
  std::vector<std::string> InputOptions;
  InputOptions.reserve(Request.Inputs.size());
  for (_pi_program *Input : Request.Inputs) {
    std::lock_guard<std::mutex> Lock(Input->Mutex);
    InputOptions.push_back(Input->Options);
  }
  pi_result Result = PI_SUCCESS;
  for (_pi_device *Device : Output.Devices) {
    std::vector<ze_module_handle_t> Modules;
    for (size_t I = 0; I < Request.Inputs.size() && Result == PI_SUCCESS; ++I) {
      ze_module_handle_t Module = nullptr;
      Result = createModule(*this, *Device, *Request.Inputs[I], InputOptions[I],
                            PI_ERROR_LINK_PROGRAM_FAILURE, Module, Output.Log);
      if (Module != nullptr)
        Modules.push_back(Module);
    }
    // Only modules that import need the driver's linker; a duplicate export is shown
    // to it as well, so that its log says what it found.
    if (Result == PI_SUCCESS && (AnyImports || Request.ProblemsFound))
      Result = dynamicLink(Modules, PI_ERROR_LINK_PROGRAM_FAILURE, Output.Log);
    if (Result != PI_SUCCESS || Request.ProblemsFound) {
      destroyModules(Modules);
      break;
    }
    Result = adoptModules(*Impl, *Device, Modules);
    if (Result != PI_SUCCESS)
      break;
  }
  if (Result != PI_SUCCESS || Request.ProblemsFound)
    return Result == PI_SUCCESS
               ? PI_ERROR_LINK_PROGRAM_FAILURE
               : fail(PI_ERROR_LINK_PROGRAM_FAILURE, "{}\n{}", lastErrorMessage(), Output.Log);
  nameKernels(*Impl, Output);
  Output.Impl = std::move(Impl);
  return PI_SUCCESS;
}

// The seed's rule, in the modules of Device (each device has its own instance): the
// driver matches the HostAccessINTEL name (the unique id) first, then the export name;
// where the image maps the unique id to a different symbol, that symbol is asked for
// next.
pi_result ZeProgram::findGlobal(_pi_program &Program, _pi_device &Device, const std::string &Name,
                                const std::string &Symbol, core::GlobalLookup &Result) {
  const DeviceCode *Mine = codeOf(Device);
  if (Mine == nullptr) {
    Result.NotFoundReason = "the program has no module for the device";
    return PI_SUCCESS;
  }
  for (const std::string *Candidate : {&Name, &Symbol}) {
    if (Candidate == &Symbol && Symbol == Name)
      break;
    for (ze_module_handle_t Module : Mine->Modules) {
      void *Address = nullptr;
      const ze_result_t Found =
          ze().zeModuleGetGlobalPointer(Module, Candidate->c_str(), &Result.Bytes, &Address);
      if (Found == ZE_RESULT_SUCCESS) {
        Result.Location.Address = reinterpret_cast<uintptr_t>(Address);
        Result.Found = true;
        return PI_SUCCESS;
      }
      if (Found != ZE_RESULT_ERROR_INVALID_GLOBAL_NAME)
        return zeError(Found, "zeModuleGetGlobalPointer");
    }
  }
  Result.NotFoundReason = "zeModuleGetGlobalPointer: ZE_RESULT_ERROR_INVALID_GLOBAL_NAME";
  return PI_SUCCESS;
}

} // namespace dglink::level_zero
