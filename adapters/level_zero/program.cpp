// Programs from SPIR-V (and the driver's native binaries): build =
// zeModuleCreate with the driver's build log, plus zeModuleDynamicLink of the
// module alone when it imports; compile checks the module and keeps the
// image; link makes one module per input and resolves the imports of those
// that import with zeModuleDynamicLink, after the images' symbol tables were
// checked so that the log names every unresolved or duplicate symbol.
#include "handles.h"

#include <dglink/support/info.h>
#include <dglink/support/link.h>
#include <dglink/support/log.h>
#include <dglink/support/program_info.h>

#include <algorithm>
#include <cstring>

namespace dglink::level_zero {

void releaseProgram(_pi_program *Program) {
  if (!dropReference(Program))
    return;
  for (ze_module_handle_t Module : Program->Modules)
    ze().zeModuleDestroy(Module);
  releaseContext(Program->Context);
  delete Program;
}

namespace {

// A device list must be empty (the context's device) or name that device.
pi_result checkDevices(const char *Function, _pi_context *Context, pi_uint32 NumDevices,
                       const pi_device *Devices) {
  return checkContextDeviceList<pi_device>(Function, Context->Device, NumDevices, Devices,
                                           &PluginFunctions, AdapterLabel);
}

// SPIR-V is IL; LLVM bitcode and PTX are refused; anything else is left to
// the driver as a native binary (AllowNative) or refused as not SPIR-V.
pi_result classify(const char *Function, _pi_context *Context, const void *Data, size_t Size,
                   bool AllowNative, bool &Native) {
  const ImageFormat Format = detectFormat(Data, Size);
  Native = false;
  if (Format == ImageFormat::SpirV)
    return PI_SUCCESS;
  if (Format == ImageFormat::LlvmBitcode || Format == ImageFormat::Ptx)
    return fail(PI_ERROR_INVALID_OPERATION,
                "{}: Level Zero cannot consume {} (device '{}' builds SPIR-V and its driver's "
                "native binaries)",
                Function, Format == ImageFormat::Ptx ? "PTX" : "LLVM bitcode (SPIR)",
                Context->Device->Name);
  if (!AllowNative)
    return fail(PI_ERROR_INVALID_BINARY, "{}: the {} bytes are not SPIR-V", Function, Size);
  Native = true;
  return PI_SUCCESS;
}

_pi_program *newProgram(_pi_context *Context, bool Native, const void *Data, size_t Size,
                        ImageMetadata Metadata) {
  auto *Program = new _pi_program();
  Program->Context = Context;
  Program->Native = Native;
  const auto *Bytes = static_cast<const uint8_t *>(Data);
  Program->Binary.assign(Bytes, Bytes + Size);
  *Program->Metadata = std::move(Metadata);
  retain(Context);
  return Program;
}

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

// zeModuleCreate of Program's bytes with Options; Log gets the driver's log.
pi_result createModule(const _pi_program &Program, const std::string &Options,
                       pi_result FailureCode, ze_module_handle_t &Module, std::string &Log) {
  ze_module_desc_t Desc = {};
  Desc.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
  Desc.format = Program.Native ? ZE_MODULE_FORMAT_NATIVE : ZE_MODULE_FORMAT_IL_SPIRV;
  Desc.inputSize = Program.Binary.size();
  Desc.pInputModule = Program.Binary.data();
  Desc.pBuildFlags = Options.c_str();
  ze_module_build_log_handle_t BuildLog = nullptr;
  const ze_result_t Result = ze().zeModuleCreate(
      Program.Context->Context, Program.Context->Device->Device, &Desc, &Module, &BuildLog);
  Log += takeLog(BuildLog);
  if (Result == ZE_RESULT_SUCCESS)
    return PI_SUCCESS;
  Module = nullptr;
  zeError(Result, "zeModuleCreate",
          Result == ZE_RESULT_ERROR_INVALID_NATIVE_BINARY ? PI_ERROR_INVALID_BINARY : FailureCode);
  return fail(lastErrorCode(), "{} for device '{}'\n{}", lastErrorMessage(),
              Program.Context->Device->Name, Log);
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

void notify(void (*PfnNotify)(pi_program, void *), pi_program Program, void *UserData) {
  if (PfnNotify != nullptr)
    PfnNotify(Program, UserData);
}

// Metadata of a linked program: every input's exports and device globals.
ImageMetadata mergeMetadata(const std::vector<const ImageMetadata *> &Inputs) {
  ImageMetadata Merged;
  for (const ImageMetadata *Input : Inputs) {
    Merged.HasSymbolTables = Merged.HasSymbolTables || Input->HasSymbolTables;
    Merged.Exported.insert(Merged.Exported.end(), Input->Exported.begin(), Input->Exported.end());
    Merged.DeviceGlobals.insert(Input->DeviceGlobals.begin(), Input->DeviceGlobals.end());
    for (const auto &[SetName, Properties] : Input->RawSets)
      Merged.RawSets[SetName].insert(Properties.begin(), Properties.end());
  }
  return Merged;
}

} // namespace
} // namespace dglink::level_zero

using namespace dglink::level_zero;

extern "C" PI_API_EXPORT pi_result piProgramCreate(pi_context Context, const void *IL,
                                                   size_t Length, pi_program *RetProgram) {
  DGLINK_ZE_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  DGLINK_CHECK_NOT_NULL(IL, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(RetProgram, PI_ERROR_INVALID_VALUE);
  if (Length == 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "piProgramCreate: argument 'Length' is 0");
  bool Native = false;
  DGLINK_TRY(classify(__func__, Context, IL, Length, false, Native));
  *RetProgram = newProgram(Context, false, IL, Length, {});
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result piProgramCreateWithBinary(
    pi_context Context, pi_uint32 NumDevices, const pi_device *DeviceList, const size_t *Lengths,
    const unsigned char **Binaries, size_t NumMetadataEntries,
    const pi_device_binary_property *Metadata, pi_int32 *BinaryStatus, pi_program *RetProgram) {
  DGLINK_ZE_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  DGLINK_CHECK_NOT_NULL(RetProgram, PI_ERROR_INVALID_VALUE);
  if (NumDevices == 0 || DeviceList == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piProgramCreateWithBinary: {} devices, list pointer {}", NumDevices,
                        DeviceList == nullptr ? "null" : "not null");
  DGLINK_TRY(checkDevices(__func__, Context, NumDevices, DeviceList));
  DGLINK_CHECK_NOT_NULL(Lengths, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(Binaries, PI_ERROR_INVALID_VALUE);
  if (Binaries[0] == nullptr || Lengths[0] == 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piProgramCreateWithBinary: binary 0 is null or empty");
  dglink::ImageMetadata Properties;
  DGLINK_TRY(dglink::readFlatMetadata(NumMetadataEntries, Metadata, Properties));
  DGLINK_TRY(dglink::refuseLoweredImage(__func__, Properties));
  bool Native = false;
  const pi_result Result = classify(__func__, Context, Binaries[0], Lengths[0], true, Native);
  if (BinaryStatus != nullptr)
    for (pi_uint32 I = 0; I < NumDevices; ++I)
      BinaryStatus[I] = Result;
  DGLINK_TRY(Result);
  *RetProgram = newProgram(Context, Native, Binaries[0], Lengths[0], std::move(Properties));
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result
piextProgramCreateWithImage(pi_context Context, pi_uint32 NumDevices, const pi_device *DeviceList,
                            const _pi_device_binary_struct *Image, pi_program *RetProgram) {
  DGLINK_ZE_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  DGLINK_CHECK_NOT_NULL(Image, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(RetProgram, PI_ERROR_INVALID_VALUE);
  DGLINK_TRY(checkDevices(__func__, Context, NumDevices, DeviceList));
  if (Image->Format == PI_DEVICE_BINARY_TYPE_LLVMIR_BITCODE)
    return dglink::fail(PI_ERROR_INVALID_OPERATION,
                        "piextProgramCreateWithImage: Level Zero cannot consume LLVM bitcode "
                        "(SPIR) (device '{}' builds SPIR-V)",
                        Context->Device->Name);
  const char *Target = Image->DeviceTargetSpec;
  const bool KnownTarget = Target == nullptr || *Target == '\0' ||
                           std::strcmp(Target, PI_DEVICE_BINARY_TARGET_SPIRV64) == 0 ||
                           std::strcmp(Target, PI_DEVICE_BINARY_TARGET_SPIRV64_GEN) == 0 ||
                           std::strcmp(Target, PI_DEVICE_BINARY_TARGET_UNKNOWN) == 0;
  if (!KnownTarget)
    return dglink::fail(PI_ERROR_INVALID_OPERATION,
                        "piextProgramCreateWithImage: image target '{}' cannot run on Level Zero "
                        "device '{}' (it runs " PI_DEVICE_BINARY_TARGET_SPIRV64
                        " and " PI_DEVICE_BINARY_TARGET_SPIRV64_GEN ")",
                        Target, Context->Device->Name);
  if (Image->BinaryStart == nullptr || Image->BinaryEnd <= Image->BinaryStart)
    return dglink::fail(PI_ERROR_INVALID_BINARY,
                        "piextProgramCreateWithImage: the image's byte range is empty or invalid");
  const size_t Size = static_cast<size_t>(Image->BinaryEnd - Image->BinaryStart);
  bool Native = false;
  DGLINK_TRY(classify(__func__, Context, Image->BinaryStart, Size,
                      Image->Format == PI_DEVICE_BINARY_TYPE_NATIVE, Native));
  dglink::ImageMetadata Metadata;
  DGLINK_TRY(dglink::readImageMetadata(*Image, Metadata));
  DGLINK_TRY(dglink::refuseLoweredImage(__func__, Metadata));
  _pi_program *Program = newProgram(Context, Native, Image->BinaryStart, Size, std::move(Metadata));
  if (Target != nullptr && *Target != '\0')
    Program->Target = Target;
  if (Image->CompileOptions != nullptr)
    Program->Options = Image->CompileOptions;
  *RetProgram = Program;
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result piProgramBuild(pi_program Program, pi_uint32 NumDevices,
                                                  const pi_device *DeviceList, const char *Options,
                                                  void (*PfnNotify)(pi_program, void *),
                                                  void *UserData) {
  DGLINK_ZE_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  DGLINK_TRY(checkDevices(__func__, Program->Context, NumDevices, DeviceList));
  pi_result Result = PI_SUCCESS;
  {
    std::lock_guard<std::mutex> Lock(Program->Mutex);
    if (Program->Executable.load()) {
      notify(PfnNotify, Program, UserData);
      return PI_SUCCESS; // already executable
    }
    if (Options != nullptr)
      Program->Options = Options;
    Program->Log.clear();
    ze_module_handle_t Module = nullptr;
    Result = createModule(*Program, Program->Options, PI_ERROR_BUILD_PROGRAM_FAILURE, Module,
                          Program->Log);
    std::vector<ze_module_handle_t> Modules;
    if (Module != nullptr)
      Modules.push_back(Module);
    // A module that imports is linked alone: what it imports must be in it.
    if (Result == PI_SUCCESS && !Program->Metadata->Imported.empty()) {
      const dglink::LinkProblems Problems = dglink::resolveImports({Program->Metadata.get()});
      Program->Log += Problems.describe();
      Result = dynamicLink(Modules, PI_ERROR_BUILD_PROGRAM_FAILURE, Program->Log);
      if (Result != PI_SUCCESS)
        Result = dglink::fail(PI_ERROR_BUILD_PROGRAM_FAILURE,
                              "piProgramBuild: program {} imports symbols it does not define "
                              "(link it with piProgramCompile + piProgramLink): {}\n{}",
                              fmt::ptr(Program), dglink::lastErrorMessage(), Program->Log);
    }
    std::vector<std::pair<std::string, ze_module_handle_t>> Kernels;
    if (Result == PI_SUCCESS)
      Result = addKernels(Module, Kernels);
    if (Result == PI_SUCCESS) {
      Program->Modules = std::move(Modules);
      Program->Kernels = std::move(Kernels);
      Program->BuildStatus = PI_PROGRAM_BUILD_STATUS_SUCCESS;
      Program->BinaryType = PI_PROGRAM_BINARY_TYPE_EXECUTABLE;
      Program->Executable.store(true, std::memory_order_release);
    } else {
      for (ze_module_handle_t Failed : Modules)
        ze().zeModuleDestroy(Failed);
      Program->BuildStatus = PI_PROGRAM_BUILD_STATUS_ERROR;
    }
  }
  notify(PfnNotify, Program, UserData);
  return Result;
}

extern "C" PI_API_EXPORT pi_result piProgramCompile(
    pi_program Program, pi_uint32 NumDevices, const pi_device *DeviceList, const char *Options,
    pi_uint32 NumInputHeaders, const pi_program *InputHeaders, const char **HeaderIncludeNames,
    void (*PfnNotify)(pi_program, void *), void *UserData) {
  DGLINK_ZE_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  DGLINK_TRY(checkDevices(__func__, Program->Context, NumDevices, DeviceList));
  if (NumInputHeaders != 0)
    return dglink::fail(PI_ERROR_INVALID_OPERATION,
                        "piProgramCompile: SPIR-V is compiled already; input headers cannot "
                        "apply");
  pi_result Result = PI_SUCCESS;
  {
    std::lock_guard<std::mutex> Lock(Program->Mutex);
    if (Program->Executable.load())
      return dglink::fail(PI_ERROR_INVALID_OPERATION,
                          "piProgramCompile: program {} is built already", fmt::ptr(Program));
    if (Options != nullptr && *Options != '\0')
      Program->Options = Options;
    Program->Log.clear();
    // The driver reads the module now, so that a bad one fails here with its
    // log; the link makes its own modules from the same bytes.
    ze_module_handle_t Module = nullptr;
    Result = createModule(*Program, Program->Options, PI_ERROR_COMPILE_PROGRAM_FAILURE, Module,
                          Program->Log);
    if (Module != nullptr)
      ze().zeModuleDestroy(Module);
    Program->BuildStatus =
        Result == PI_SUCCESS ? PI_PROGRAM_BUILD_STATUS_SUCCESS : PI_PROGRAM_BUILD_STATUS_ERROR;
    Program->BinaryType =
        Result == PI_SUCCESS ? PI_PROGRAM_BINARY_TYPE_COMPILED_OBJECT : PI_PROGRAM_BINARY_TYPE_NONE;
  }
  notify(PfnNotify, Program, UserData);
  return Result;
}

extern "C" PI_API_EXPORT pi_result piProgramLink(pi_context Context, pi_uint32 NumDevices,
                                                 const pi_device *DeviceList, const char *Options,
                                                 pi_uint32 NumInputPrograms,
                                                 const pi_program *InputPrograms,
                                                 void (*PfnNotify)(pi_program, void *),
                                                 void *UserData, pi_program *RetProgram) {
  DGLINK_ZE_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  if (NumInputPrograms == 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "piProgramLink: argument 'NumInputPrograms' is 0");
  DGLINK_CHECK_NOT_NULL(InputPrograms, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(RetProgram, PI_ERROR_INVALID_VALUE);
  for (pi_uint32 I = 0; I < NumInputPrograms; ++I) {
    if (!dglink::ownedBy(InputPrograms[I], &PluginFunctions))
      return dglink::fail(PI_ERROR_INVALID_PROGRAM, "piProgramLink: InputPrograms[{}] is {}", I,
                          InputPrograms[I] == nullptr ? "null"
                                                      : "not a program of the Level Zero adapter");
    if (InputPrograms[I]->Context->Device != Context->Device)
      return dglink::fail(PI_ERROR_INVALID_PROGRAM,
                          "piProgramLink: InputPrograms[{}] belongs to another device", I);
  }
  for (pi_uint32 I = 1; I < NumInputPrograms; ++I)
    if (InputPrograms[I]->Target != InputPrograms[0]->Target ||
        InputPrograms[I]->Native != InputPrograms[0]->Native)
      return dglink::fail(PI_ERROR_INVALID_OPERATION,
                          "piProgramLink: inputs of formats '{}' ({}) and '{}' ({}) cannot be "
                          "linked together",
                          InputPrograms[0]->Target, InputPrograms[0]->Native ? "native" : "SPIR-V",
                          InputPrograms[I]->Target, InputPrograms[I]->Native ? "native" : "SPIR-V");
  DGLINK_TRY(checkDevices(__func__, Context, NumDevices, DeviceList));

  // What the images say they import and export, checked before the driver so
  // that the log names every symbol on every backend alike.
  std::vector<const dglink::ImageMetadata *> Metadata;
  bool AnyImports = false;
  for (pi_uint32 I = 0; I < NumInputPrograms; ++I) {
    Metadata.push_back(InputPrograms[I]->Metadata.get());
    AnyImports = AnyImports || !InputPrograms[I]->Metadata->Imported.empty() ||
                 !InputPrograms[I]->Metadata->HasSymbolTables;
  }
  const dglink::LinkProblems Problems = dglink::resolveImports(Metadata);

  auto *Output = new _pi_program();
  Output->Context = Context;
  retain(Context);
  Output->Native = InputPrograms[0]->Native;
  Output->Target = InputPrograms[0]->Target;
  *Output->Metadata = mergeMetadata(Metadata);
  if (Options != nullptr)
    Output->Options = Options;
  Output->Log = Problems.describe();

  std::vector<ze_module_handle_t> Modules;
  pi_result Result = PI_SUCCESS;
  for (pi_uint32 I = 0; I < NumInputPrograms && Result == PI_SUCCESS; ++I) {
    _pi_program &Input = *InputPrograms[I];
    std::string InputOptions;
    {
      std::lock_guard<std::mutex> Lock(Input.Mutex);
      InputOptions = Input.Options;
    }
    ze_module_handle_t Module = nullptr;
    Result = createModule(Input, InputOptions, PI_ERROR_LINK_PROGRAM_FAILURE, Module, Output->Log);
    if (Module != nullptr)
      Modules.push_back(Module);
  }
  // Only modules that import need the driver's linker; a duplicate export is
  // shown to it as well, so that its log says what it found.
  if (Result == PI_SUCCESS && (AnyImports || !Problems.ok()))
    Result = dynamicLink(Modules, PI_ERROR_LINK_PROGRAM_FAILURE, Output->Log);
  if (!Problems.ok())
    Result = dglink::fail(PI_ERROR_LINK_PROGRAM_FAILURE, "piProgramLink: {}", Problems.describe());
  else if (Result != PI_SUCCESS)
    Result = dglink::fail(PI_ERROR_LINK_PROGRAM_FAILURE, "piProgramLink: {}\n{}",
                          dglink::lastErrorMessage(), Output->Log);
  for (ze_module_handle_t Module : Modules)
    if (Result == PI_SUCCESS)
      Result = addKernels(Module, Output->Kernels);
  if (Result == PI_SUCCESS) {
    Output->Modules = std::move(Modules);
    Output->BuildStatus = PI_PROGRAM_BUILD_STATUS_SUCCESS;
    Output->BinaryType = PI_PROGRAM_BINARY_TYPE_EXECUTABLE;
    Output->Executable.store(true, std::memory_order_release);
  } else {
    for (ze_module_handle_t Module : Modules)
      ze().zeModuleDestroy(Module);
    Output->Kernels.clear();
    Output->BuildStatus = PI_PROGRAM_BUILD_STATUS_ERROR;
    dglink::logger().debug("level_zero: link failed: {}", Output->Log);
  }
  // The output exists even when the link failed: its build log says why.
  *RetProgram = Output;
  notify(PfnNotify, Output, UserData);
  return Result;
}

extern "C" PI_API_EXPORT pi_result piProgramGetInfo(pi_program Program, pi_program_info ParamName,
                                                    size_t ParamValueSize, void *ParamValue,
                                                    size_t *ParamValueSizeRet) {
  DGLINK_ZE_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  auto Value = [&](auto V) {
    return dglink::returnInfo(V, ParamValueSize, ParamValue, ParamValueSizeRet);
  };
  std::lock_guard<std::mutex> Lock(Program->Mutex);
  switch (ParamName) {
  case PI_PROGRAM_INFO_REFERENCE_COUNT:
    return Value(Program->RefCount.load());
  case PI_PROGRAM_INFO_CONTEXT:
    return Value(static_cast<pi_context>(Program->Context));
  case PI_PROGRAM_INFO_NUM_DEVICES:
    return Value(pi_uint32{1});
  case PI_PROGRAM_INFO_DEVICES:
    return Value(static_cast<pi_device>(Program->Context->Device));
  case PI_PROGRAM_INFO_BINARY_SIZES:
    return Value(Program->Binary.size());
  case PI_PROGRAM_INFO_BINARIES: {
    // ParamValue is an array of one pointer to memory of BINARY_SIZES bytes.
    unsigned char *Target = nullptr;
    if (ParamValue != nullptr && ParamValueSize < sizeof(Target))
      return dglink::fail(PI_ERROR_INVALID_VALUE,
                          "piProgramGetInfo: room for one binary pointer is needed");
    if (ParamValue != nullptr)
      std::memcpy(&Target, ParamValue, sizeof(Target));
    if (Target != nullptr && !Program->Binary.empty())
      std::memcpy(Target, Program->Binary.data(), Program->Binary.size());
    if (ParamValueSizeRet != nullptr)
      *ParamValueSizeRet = sizeof(Target);
    return PI_SUCCESS;
  }
  case PI_PROGRAM_INFO_NUM_KERNELS:
    return Value(Program->Kernels.size());
  case PI_PROGRAM_INFO_KERNEL_NAMES: {
    std::string Names;
    for (const auto &Kernel : Program->Kernels)
      Names += (Names.empty() ? "" : ";") + Kernel.first;
    return dglink::returnInfoString(Names, ParamValueSize, ParamValue, ParamValueSizeRet);
  }
  case PI_EXT_PROGRAM_INFO_FORMAT:
    return Value(Program->Native ? PI_DEVICE_BINARY_TYPE_NATIVE : PI_DEVICE_BINARY_TYPE_SPIRV);
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "piProgramGetInfo: unknown parameter {:#x}",
                      static_cast<unsigned>(ParamName));
}

extern "C" PI_API_EXPORT pi_result piProgramGetBuildInfo(pi_program Program, pi_device Device,
                                                         pi_program_build_info ParamName,
                                                         size_t ParamValueSize, void *ParamValue,
                                                         size_t *ParamValueSizeRet) {
  DGLINK_ZE_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  DGLINK_ZE_CHECK_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  return dglink::answerProgramBuildInfo(Program, Device, ParamName, ParamValueSize, ParamValue,
                                        ParamValueSizeRet);
}

extern "C" PI_API_EXPORT pi_result piProgramRetain(pi_program Program) {
  DGLINK_ZE_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  retain(Program);
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result piProgramRelease(pi_program Program) {
  DGLINK_ZE_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  releaseProgram(Program);
  return PI_SUCCESS;
}
