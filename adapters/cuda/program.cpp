// Programs from PTX, cubin and fatbin images: build = cuModuleLoadDataEx with
// the JIT's logs; compile keeps the image as a relocatable input; link resolves
// the images' symbol tables first, then nvJitLink (or cuLink*) makes a cubin.
#include "handles.h"
#include "nvcl_ptx.h"

#include <dglink/support/info.h>
#include <dglink/support/link.h>
#include <dglink/support/log.h>
#include <dglink/support/program_info.h>

#include <algorithm>
#include <cstring>

namespace dglink::cuda {

void releaseProgram(_pi_program *Program) {
  if (!dropReference(Program))
    return;
  const CUmodule Module = Program->Module.load();
  if (Module != nullptr && makeCurrent(Program->Context->Context) == PI_SUCCESS)
    cu().cuModuleUnload(Module);
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

// Refuses what CUDA cannot run, naming the format and the device.
pi_result refuseForeignFormat(const char *Function, _pi_context *Context, const void *Data,
                              size_t Size) {
  const ImageFormat Format = detectFormat(Data, Size);
  if (Format == ImageFormat::SpirV)
    return fail(PI_ERROR_INVALID_OPERATION,
                "{}: CUDA cannot consume SPIR-V (device '{}' runs PTX, cubin and fatbin)",
                Function, Context->Device->Name);
  if (Format == ImageFormat::LlvmBitcode)
    return fail(PI_ERROR_INVALID_OPERATION,
                "{}: CUDA cannot consume LLVM bitcode (SPIR) (device '{}' runs PTX, cubin and "
                "fatbin)",
                Function, Context->Device->Name);
  return fail(PI_ERROR_INVALID_BINARY,
              "{}: the {} bytes are neither PTX nor a cubin (ELF) nor a fatbin", Function, Size);
}

_pi_program *newProgram(_pi_context *Context, NativeFormat Format, const void *Data,
                        size_t Size, ImageMetadata Metadata) {
  auto *Program = new _pi_program();
  Program->Context = Context;
  Program->Format = Format;
  const auto *Bytes = static_cast<const char *>(Data);
  Program->Binary.assign(Bytes, Bytes + Size);
  if (Format == NativeFormat::Ptx) {
    if (Program->Binary.empty() || Program->Binary.back() != '\0')
      Program->Binary.push_back('\0'); // the driver reads PTX as a C string
    Program->KernelNames = ptxKernelNames(std::string_view(Program->Binary.data()));
  }
  *Program->Metadata = std::move(Metadata);
  retain(Context);
  return Program;
}

pi_result createFromBytes(const char *Function, _pi_context *Context, const void *Data,
                          size_t Size, ImageMetadata Metadata, _pi_program *&Out) {
  NativeFormat Format;
  if (!detectNativeFormat(Data, Size, Format))
    return refuseForeignFormat(Function, Context, Data, Size);
  Out = newProgram(Context, Format, Data, Size, std::move(Metadata));
  return PI_SUCCESS;
}

// The text the driver or linker gets for a PTX program (OpenCL-flavoured PTX
// repaired; Exported: functions other inputs of a link import).
std::string ptxForDriver(const _pi_program &Program, const std::set<std::string> &Exported) {
  return fixOpenClPtx(std::string_view(Program.Binary.data()), Exported);
}

// cuModuleLoadDataEx with the JIT's error and information logs.
pi_result loadModule(const void *Image, std::string &Log, CUmodule &Module) {
  std::vector<char> ErrorLog(16384, '\0');
  std::vector<char> InfoLog(16384, '\0');
  CUjit_option Options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *Values[] = {ErrorLog.data(), reinterpret_cast<void *>(ErrorLog.size() - 1),
                    InfoLog.data(), reinterpret_cast<void *>(InfoLog.size() - 1)};
  const CUresult Result = cu().cuModuleLoadDataEx(&Module, Image, 4, Options, Values);
  Log += ErrorLog.data();
  if (InfoLog[0] != '\0')
    Log += std::string(Log.empty() || Log.back() == '\n' ? "" : "\n") + InfoLog.data();
  if (Result != CUDA_SUCCESS) {
    Module = nullptr;
    cudaError(Result, "cuModuleLoadDataEx", PI_ERROR_BUILD_PROGRAM_FAILURE);
    return fail(PI_ERROR_BUILD_PROGRAM_FAILURE, "{}\n{}", lastErrorMessage(), ErrorLog.data());
  }
  return PI_SUCCESS;
}

// Kernel names of a loaded module where the driver can enumerate them (cubin
// programs carry no PTX to read them from).
void enumerateKernels(_pi_program &Program, CUmodule Module) {
  const CudaDriver &Cu = cu();
  if (!Program.KernelNames.empty() || Cu.cuModuleGetFunctionCount == nullptr ||
      Cu.cuModuleEnumerateFunctions == nullptr || Cu.cuFuncGetName == nullptr)
    return;
  unsigned Count = 0;
  if (Cu.cuModuleGetFunctionCount(&Count, Module) != CUDA_SUCCESS || Count == 0)
    return;
  std::vector<CUfunction> Functions(Count);
  if (Cu.cuModuleEnumerateFunctions(Functions.data(), Count, Module) != CUDA_SUCCESS)
    return;
  for (CUfunction Function : Functions) {
    const char *Name = nullptr;
    if (Cu.cuFuncGetName(&Name, Function) == CUDA_SUCCESS && Name != nullptr)
      Program.KernelNames.emplace_back(Name);
  }
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
} // namespace dglink::cuda

using namespace dglink::cuda;

extern "C" PI_API_EXPORT pi_result piProgramCreate(pi_context Context, const void *IL,
                                                   size_t Length, pi_program *RetProgram) try {
  DGLINK_CUDA_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  DGLINK_CHECK_NOT_NULL(IL, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(RetProgram, PI_ERROR_INVALID_VALUE);
  if (Length == 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "piProgramCreate: argument 'Length' is 0");
  // IL means SPIR-V here, which CUDA cannot run; native images are accepted
  // too, as piProgramCreateWithBinary would.
  _pi_program *Program = nullptr;
  DGLINK_TRY(createFromBytes(__func__, Context, IL, Length, {}, Program));
  *RetProgram = Program;
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piProgramCreateWithBinary(
    pi_context Context, pi_uint32 NumDevices, const pi_device *DeviceList, const size_t *Lengths,
    const unsigned char **Binaries, size_t NumMetadataEntries,
    const pi_device_binary_property *Metadata, pi_int32 *BinaryStatus, pi_program *RetProgram) try {
  DGLINK_CUDA_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
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
  _pi_program *Program = nullptr;
  const pi_result Result =
      createFromBytes(__func__, Context, Binaries[0], Lengths[0], std::move(Properties), Program);
  if (BinaryStatus != nullptr)
    for (pi_uint32 I = 0; I < NumDevices; ++I)
      BinaryStatus[I] = Result;
  DGLINK_TRY(Result);
  *RetProgram = Program;
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piextProgramCreateWithImage(pi_context Context,
                                                               pi_uint32 NumDevices,
                                                               const pi_device *DeviceList,
                                                               const _pi_device_binary_struct *Image,
                                                               pi_program *RetProgram) try {
  DGLINK_CUDA_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  DGLINK_CHECK_NOT_NULL(Image, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(RetProgram, PI_ERROR_INVALID_VALUE);
  DGLINK_TRY(checkDevices(__func__, Context, NumDevices, DeviceList));
  if (Image->Format == PI_DEVICE_BINARY_TYPE_SPIRV)
    return dglink::fail(PI_ERROR_INVALID_OPERATION,
                        "piextProgramCreateWithImage: CUDA cannot consume SPIR-V (device '{}' "
                        "runs PTX, cubin and fatbin)",
                        Context->Device->Name);
  if (Image->Format == PI_DEVICE_BINARY_TYPE_LLVMIR_BITCODE)
    return dglink::fail(PI_ERROR_INVALID_OPERATION,
                        "piextProgramCreateWithImage: CUDA cannot consume LLVM bitcode (SPIR) "
                        "(device '{}')",
                        Context->Device->Name);
  const char *Target = Image->DeviceTargetSpec;
  if (Target != nullptr && *Target != '\0' &&
      std::strcmp(Target, PI_DEVICE_BINARY_TARGET_NVPTX64) != 0 &&
      std::strcmp(Target, PI_DEVICE_BINARY_TARGET_UNKNOWN) != 0)
    return dglink::fail(PI_ERROR_INVALID_OPERATION,
                        "piextProgramCreateWithImage: image target '{}' cannot run on CUDA "
                        "device '{}' (it runs " PI_DEVICE_BINARY_TARGET_NVPTX64 ")",
                        Target, Context->Device->Name);
  if (Image->BinaryStart == nullptr || Image->BinaryEnd <= Image->BinaryStart)
    return dglink::fail(PI_ERROR_INVALID_BINARY,
                        "piextProgramCreateWithImage: the image's byte range is empty or invalid");
  dglink::ImageMetadata Metadata;
  DGLINK_TRY(dglink::readImageMetadata(*Image, Metadata));
  DGLINK_TRY(dglink::refuseLoweredImage(__func__, Metadata));
  _pi_program *Program = nullptr;
  DGLINK_TRY(createFromBytes(__func__, Context, Image->BinaryStart,
                             static_cast<size_t>(Image->BinaryEnd - Image->BinaryStart),
                             std::move(Metadata), Program));
  if (Image->CompileOptions != nullptr)
    Program->Options = Image->CompileOptions;
  *RetProgram = Program;
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piProgramBuild(pi_program Program, pi_uint32 NumDevices,
                                                  const pi_device *DeviceList,
                                                  const char *Options,
                                                  void (*PfnNotify)(pi_program, void *),
                                                  void *UserData) try {
  DGLINK_CUDA_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  DGLINK_TRY(checkDevices(__func__, Program->Context, NumDevices, DeviceList));
  pi_result Result = PI_SUCCESS;
  {
    std::lock_guard<std::mutex> Lock(Program->Mutex);
    if (Program->Module.load() != nullptr) {
      notify(PfnNotify, Program, UserData);
      return PI_SUCCESS; // already executable
    }
    // The output of a failed link has no code, only the log naming its symbols.
    if (Program->Binary.empty())
      return dglink::fail(PI_ERROR_INVALID_OPERATION,
                          "piProgramBuild: program {} is the result of a failed link and has no "
                          "code; see its build log",
                          fmt::ptr(Program));
    DGLINK_TRY(makeCurrent(Program->Context->Context));
    if (Options != nullptr)
      Program->Options = Options;
    Program->Log.clear();
    std::string Text;
    const void *Image = Program->Binary.data();
    if (Program->Format == NativeFormat::Ptx) {
      Text = ptxForDriver(*Program, {});
      Image = Text.c_str();
    }
    CUmodule Module = nullptr;
    Result = loadModule(Image, Program->Log, Module);
    if (Result == PI_SUCCESS) {
      enumerateKernels(*Program, Module);
      Program->BuildStatus = PI_PROGRAM_BUILD_STATUS_SUCCESS;
      Program->BinaryType = PI_PROGRAM_BINARY_TYPE_EXECUTABLE;
      Program->Module.store(Module, std::memory_order_release);
    } else {
      Program->BuildStatus = PI_PROGRAM_BUILD_STATUS_ERROR;
    }
  }
  notify(PfnNotify, Program, UserData);
  return Result;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piProgramCompile(
    pi_program Program, pi_uint32 NumDevices, const pi_device *DeviceList, const char *Options,
    pi_uint32 NumInputHeaders, const pi_program *InputHeaders, const char **HeaderIncludeNames,
    void (*PfnNotify)(pi_program, void *), void *UserData) try {
  DGLINK_CUDA_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  DGLINK_TRY(checkDevices(__func__, Program->Context, NumDevices, DeviceList));
  if (NumInputHeaders != 0)
    return dglink::fail(PI_ERROR_INVALID_OPERATION,
                        "piProgramCompile: CUDA images are compiled already; input headers "
                        "cannot apply");
  {
    std::lock_guard<std::mutex> Lock(Program->Mutex);
    if (Program->Module.load() != nullptr)
      return dglink::fail(PI_ERROR_INVALID_OPERATION,
                          "piProgramCompile: program {} is built already",
                          fmt::ptr(Program));
    // PTX and relocatable cubins are link inputs as they are.
    if (Options != nullptr)
      Program->Options = Options;
    Program->Log.clear();
    Program->BuildStatus = PI_PROGRAM_BUILD_STATUS_SUCCESS;
    Program->BinaryType = PI_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
  }
  notify(PfnNotify, Program, UserData);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piProgramLink(pi_context Context, pi_uint32 NumDevices,
                                                 const pi_device *DeviceList,
                                                 const char *Options,
                                                 pi_uint32 NumInputPrograms,
                                                 const pi_program *InputPrograms,
                                                 void (*PfnNotify)(pi_program, void *),
                                                 void *UserData, pi_program *RetProgram) try {
  DGLINK_CUDA_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  if (NumInputPrograms == 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piProgramLink: argument 'NumInputPrograms' is 0");
  DGLINK_CHECK_NOT_NULL(InputPrograms, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(RetProgram, PI_ERROR_INVALID_VALUE);
  for (pi_uint32 I = 0; I < NumInputPrograms; ++I) {
    if (!dglink::ownedBy(InputPrograms[I], &PluginFunctions))
      return dglink::fail(PI_ERROR_INVALID_PROGRAM, "piProgramLink: InputPrograms[{}] is {}", I,
                          InputPrograms[I] == nullptr ? "null"
                                                      : "not a program of the CUDA adapter");
    if (InputPrograms[I]->Context->Device != Context->Device)
      return dglink::fail(PI_ERROR_INVALID_PROGRAM,
                          "piProgramLink: InputPrograms[{}] belongs to another device", I);
  }
  for (pi_uint32 I = 1; I < NumInputPrograms; ++I)
    if (InputPrograms[I]->Target != InputPrograms[0]->Target)
      return dglink::fail(PI_ERROR_INVALID_OPERATION,
                          "piProgramLink: inputs of targets '{}' and '{}' cannot be linked "
                          "together",
                          InputPrograms[0]->Target, InputPrograms[I]->Target);
  DGLINK_TRY(checkDevices(__func__, Context, NumDevices, DeviceList));
  DGLINK_TRY(makeCurrent(Context->Context));

  // What the images say they import and export, checked before the linker so
  // that the log names every symbol on every backend alike.
  std::vector<const dglink::ImageMetadata *> Metadata;
  std::set<std::string> Exported; // functions some input imports
  for (pi_uint32 I = 0; I < NumInputPrograms; ++I) {
    const _pi_program &Input = *InputPrograms[I];
    Metadata.push_back(Input.Metadata.get());
    Exported.insert(Input.Metadata->Exported.begin(), Input.Metadata->Exported.end());
    if (Input.Format == NativeFormat::Ptx)
      for (const std::string &Name : ptxUndefinedFunctions(std::string_view(Input.Binary.data())))
        Exported.insert(Name);
  }
  const dglink::LinkProblems Problems = dglink::resolveImports(Metadata);

  std::vector<std::string> Texts(NumInputPrograms);
  std::vector<LinkInput> Inputs;
  auto *Output = new _pi_program();
  Output->Context = Context;
  retain(Context);
  // Released (with its context reference) unless handed to the caller below.
  std::unique_ptr<_pi_program, void (*)(_pi_program *)> OutputGuard(Output, releaseProgram);
  Output->Format = NativeFormat::Cubin;
  *Output->Metadata = mergeMetadata(Metadata);
  if (Options != nullptr)
    Output->Options = Options;
  for (pi_uint32 I = 0; I < NumInputPrograms; ++I) {
    _pi_program &Input = *InputPrograms[I];
    // A build of this input on another thread may be filling in its kernel names.
    std::lock_guard<std::mutex> InputLock(Input.Mutex);
    LinkInput Entry;
    Entry.Format = Input.Format;
    Entry.Name = "input" + std::to_string(I);
    if (Input.Format == NativeFormat::Ptx) {
      Texts[I] = ptxForDriver(Input, Exported);
      Entry.Data = Texts[I].c_str();
      Entry.Size = Texts[I].size() + 1;
    } else {
      Entry.Data = Input.Binary.data();
      Entry.Size = Input.Binary.size();
    }
    Inputs.push_back(Entry);
    for (const std::string &Name : Input.KernelNames)
      if (std::find(Output->KernelNames.begin(), Output->KernelNames.end(), Name) ==
          Output->KernelNames.end())
        Output->KernelNames.push_back(Name);
  }

  std::string LinkerLog;
  pi_result Result = PI_SUCCESS;
  if (nvJitLinkAvailable()) {
    Result = linkWithNvJitLink(Inputs, Context->Device->ComputeMajor,
                               Context->Device->ComputeMinor, Output->Binary, LinkerLog);
  } else {
    Result = linkWithDriver(Inputs, Output->Binary, LinkerLog);
  }
  const std::string LinkerMessage = Result == PI_SUCCESS ? "" : dglink::lastErrorMessage();
  CUmodule Module = nullptr;
  if (Problems.ok() && Result == PI_SUCCESS) {
    Result = loadModule(Output->Binary.data(), LinkerLog, Module);
    if (Result != PI_SUCCESS)
      Result = dglink::fail(PI_ERROR_LINK_PROGRAM_FAILURE,
                            "piProgramLink: the linked cubin does not load: {}",
                            dglink::lastErrorMessage());
  }
  Output->Log = Problems.describe() + LinkerLog;
  if (!Problems.ok()) {
    Result = dglink::fail(PI_ERROR_LINK_PROGRAM_FAILURE, "piProgramLink: {}",
                          Problems.describe());
  } else if (Result != PI_SUCCESS && Result != PI_ERROR_LINKER_NOT_AVAILABLE) {
    Result = dglink::fail(PI_ERROR_LINK_PROGRAM_FAILURE, "{}",
                          LinkerMessage.empty() ? dglink::lastErrorMessage() : LinkerMessage);
  }
  if (Result == PI_SUCCESS) {
    enumerateKernels(*Output, Module);
    Output->BuildStatus = PI_PROGRAM_BUILD_STATUS_SUCCESS;
    Output->BinaryType = PI_PROGRAM_BINARY_TYPE_EXECUTABLE;
    Output->Module.store(Module, std::memory_order_release);
  } else {
    Output->BuildStatus = PI_PROGRAM_BUILD_STATUS_ERROR;
    dglink::logger().debug("cuda: link failed: {}", Output->Log);
  }
  // The output exists when the link failed (its build log says why), not when the
  // linker could not run at all.
  if (Result != PI_SUCCESS && Result != PI_ERROR_LINK_PROGRAM_FAILURE)
    return Result;
  *RetProgram = OutputGuard.release();
  notify(PfnNotify, Output, UserData);
  return Result;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piProgramGetInfo(pi_program Program, pi_program_info ParamName,
                                                    size_t ParamValueSize, void *ParamValue,
                                                    size_t *ParamValueSizeRet) try {
  DGLINK_CUDA_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  return dglink::answerProgramInfo(Program, ParamName, ParamValueSize, ParamValue,
                                   ParamValueSizeRet);
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piProgramGetBuildInfo(pi_program Program, pi_device Device,
                                                         pi_program_build_info ParamName,
                                                         size_t ParamValueSize, void *ParamValue,
                                                         size_t *ParamValueSizeRet) try {
  DGLINK_CUDA_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  DGLINK_CUDA_CHECK_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  return dglink::answerProgramBuildInfo(Program, Device, ParamName, ParamValueSize, ParamValue,
                                        ParamValueSizeRet);
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piProgramRetain(pi_program Program) try {
  DGLINK_CUDA_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  retain(Program);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piProgramRelease(pi_program Program) try {
  DGLINK_CUDA_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  releaseProgram(Program);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL
