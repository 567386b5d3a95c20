// Programs from the platform's device code (AMD: code objects; NVIDIA: PTX,
// cubin, fatbin): build = hipModuleLoadData with the loader's log; compile keeps
// the image as a link input; link resolves the images' symbol tables first, then
// the platform's linker (native_code.h) makes one loadable image.
#include "handles.h"

#include <dglink/support/info.h>
#include <dglink/support/link.h>
#include <dglink/support/log.h>
#include <dglink/support/program_info.h>

#include <algorithm>
#include <cstring>

namespace dglink::hip {

void releaseProgram(_pi_program *Program) {
  if (!dropReference(Program))
    return;
  const HipModule Module = Program->Module.load();
  if (Module != nullptr && makeCurrent(*Program->Context->Device) == PI_SUCCESS)
    hip().ModuleUnload(Module);
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

// Refuses what this platform cannot run, naming the format and the device.
pi_result refuseForeignFormat(const char *Function, _pi_context *Context, const void *Data,
                              size_t Size) {
  const ImageFormat Format = detectFormat(Data, Size);
  if (Format != ImageFormat::Unknown)
    return fail(PI_ERROR_INVALID_OPERATION,
                "{}: HIP's {} platform cannot consume {} (device '{}' runs {})", Function,
                hip().Platform, Format == ImageFormat::Elf ? "this ELF file" : formatName(Format),
                Context->Device->Name, codeDescription());
  return fail(PI_ERROR_INVALID_BINARY, "{}: the {} bytes are not {}", Function, Size,
              codeDescription());
}

pi_result createFromBytes(const char *Function, _pi_context *Context, const void *Data,
                          size_t Size, ImageMetadata Metadata, _pi_program *&Out) {
  CodeKind Kind;
  if (!detectCode(Data, Size, Kind))
    return refuseForeignFormat(Function, Context, Data, Size);
  auto *Program = new _pi_program();
  Program->Context = Context;
  Program->Kind = Kind;
  const auto *Bytes = static_cast<const char *>(Data);
  Program->Binary.assign(Bytes, Bytes + Size);
  if (Kind == CodeKind::Ptx && Program->Binary.back() != '\0')
    Program->Binary.push_back('\0'); // the driver reads PTX as a C string
  Program->KernelNames = kernelNames(Kind, Program->Binary);
  *Program->Metadata = std::move(Metadata);
  retain(Context);
  Out = Program;
  return PI_SUCCESS;
}

// hipModuleLoadData of a loadable image; a failure is a build failure whose
// message carries the loader's log.
pi_result loadModule(const _pi_device &Device, const std::vector<char> &Image, std::string &Log,
                     HipModule &Module) {
  std::string LoaderLog;
  const HipError Result = hip().ModuleLoadData(&Module, Image.data(), LoaderLog);
  if (!LoaderLog.empty())
    Log += (Log.empty() || Log.back() == '\n' ? "" : "\n") + LoaderLog;
  if (Result != HipSuccess) {
    Module = nullptr;
    hipError(Result, "hipModuleLoadData", PI_ERROR_BUILD_PROGRAM_FAILURE);
    const std::string Message = lastErrorMessage();
    Log += (Log.empty() || Log.back() == '\n' ? "" : "\n") + Message;
    return fail(PI_ERROR_BUILD_PROGRAM_FAILURE, "{} (device '{}')\n{}", Message, Device.Name,
                LoaderLog);
  }
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
} // namespace dglink::hip

using namespace dglink::hip;

extern "C" PI_API_EXPORT pi_result piProgramCreate(pi_context Context, const void *IL,
                                                   size_t Length, pi_program *RetProgram) try {
  DGLINK_HIP_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  DGLINK_CHECK_NOT_NULL(IL, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(RetProgram, PI_ERROR_INVALID_VALUE);
  if (Length == 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "piProgramCreate: argument 'Length' is 0");
  // IL means SPIR-V here, which HIP cannot run; native code is accepted too, as
  // piProgramCreateWithBinary would.
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
  DGLINK_HIP_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
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
  DGLINK_HIP_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  DGLINK_CHECK_NOT_NULL(Image, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(RetProgram, PI_ERROR_INVALID_VALUE);
  DGLINK_TRY(checkDevices(__func__, Context, NumDevices, DeviceList));
  if (Image->Format == PI_DEVICE_BINARY_TYPE_SPIRV)
    return dglink::fail(PI_ERROR_INVALID_OPERATION,
                        "piextProgramCreateWithImage: HIP cannot consume SPIR-V (device '{}' "
                        "runs {})",
                        Context->Device->Name, codeDescription());
  if (Image->Format == PI_DEVICE_BINARY_TYPE_LLVMIR_BITCODE)
    return dglink::fail(PI_ERROR_INVALID_OPERATION,
                        "piextProgramCreateWithImage: HIP cannot consume LLVM bitcode (SPIR) "
                        "(device '{}' runs {})",
                        Context->Device->Name, codeDescription());
  const char *Target = Image->DeviceTargetSpec;
  if (Target != nullptr && *Target != '\0' && std::strcmp(Target, imageTarget()) != 0 &&
      std::strcmp(Target, PI_DEVICE_BINARY_TARGET_UNKNOWN) != 0)
    return dglink::fail(PI_ERROR_INVALID_OPERATION,
                        "piextProgramCreateWithImage: image target '{}' cannot run on HIP "
                        "device '{}' (it runs {})",
                        Target, Context->Device->Name, imageTarget());
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
  DGLINK_HIP_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
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
    const _pi_device &Device = *Program->Context->Device;
    DGLINK_TRY(makeCurrent(Device));
    if (Options != nullptr)
      Program->Options = Options;
    Program->Log.clear();
    std::vector<char> Image;
    Result = codeForLoad(Program->Kind, Program->Binary, Device.Info.Arch, Image, Program->Log);
    HipModule Module = nullptr;
    if (Result == PI_SUCCESS)
      Result = loadModule(Device, Image, Program->Log, Module);
    if (Result == PI_SUCCESS) {
      if (Program->KernelNames.empty())
        Program->KernelNames = kernelNames(Program->Kind, Image);
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
  DGLINK_HIP_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  DGLINK_TRY(checkDevices(__func__, Program->Context, NumDevices, DeviceList));
  if (NumInputHeaders != 0)
    return dglink::fail(PI_ERROR_INVALID_OPERATION,
                        "piProgramCompile: HIP images are compiled already; input headers "
                        "cannot apply");
  {
    std::lock_guard<std::mutex> Lock(Program->Mutex);
    if (Program->Module.load() != nullptr)
      return dglink::fail(PI_ERROR_INVALID_OPERATION,
                          "piProgramCompile: program {} is built already", fmt::ptr(Program));
    // PTX, relocatable cubins and relocatable code objects are link inputs as
    // they are.
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
  DGLINK_HIP_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  if (NumInputPrograms == 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piProgramLink: argument 'NumInputPrograms' is 0");
  DGLINK_CHECK_NOT_NULL(InputPrograms, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(RetProgram, PI_ERROR_INVALID_VALUE);
  for (pi_uint32 I = 0; I < NumInputPrograms; ++I) {
    if (!dglink::ownedBy(InputPrograms[I], &PluginFunctions))
      return dglink::fail(PI_ERROR_INVALID_PROGRAM, "piProgramLink: InputPrograms[{}] is {}", I,
                          InputPrograms[I] == nullptr ? "null"
                                                      : "not a program of the HIP adapter");
    if (InputPrograms[I]->Context->Device != Context->Device)
      return dglink::fail(PI_ERROR_INVALID_PROGRAM,
                          "piProgramLink: InputPrograms[{}] belongs to another device", I);
  }
  DGLINK_TRY(checkDevices(__func__, Context, NumDevices, DeviceList));
  const _pi_device &Device = *Context->Device;
  if (!Device.CanLink) {
    std::string Why;
    if (linkerAvailable(&Why))
      Why = "the device reports no architecture name to link for";
    return dglink::fail(PI_ERROR_INVALID_OPERATION,
                        "piProgramLink: HIP's {} platform cannot link {} at run time on device "
                        "'{}': {}",
                        hip().Platform, imageTarget(), Device.Name, Why);
  }
  DGLINK_TRY(makeCurrent(Device));

  // What the images say they import and export, checked before the linker so
  // that the log names every symbol on every backend alike.
  std::vector<const dglink::ImageMetadata *> Metadata;
  for (pi_uint32 I = 0; I < NumInputPrograms; ++I)
    Metadata.push_back(InputPrograms[I]->Metadata.get());
  const dglink::LinkProblems Problems = dglink::resolveImports(Metadata);

  auto *Output = new _pi_program();
  Output->Context = Context;
  retain(Context);
  // Released (with its context reference) unless handed to the caller below.
  std::unique_ptr<_pi_program, void (*)(_pi_program *)> OutputGuard(Output, releaseProgram);
  *Output->Metadata = mergeMetadata(Metadata);
  if (Options != nullptr)
    Output->Options = Options;

  // Inputs are held (their mutexes) while the linker reads their bytes: a build
  // on another thread may be filling in kernel names.
  std::vector<std::unique_lock<std::mutex>> Locks;
  std::vector<LinkSource> Sources;
  for (pi_uint32 I = 0; I < NumInputPrograms; ++I) {
    _pi_program &Input = *InputPrograms[I];
    if (std::find_if(Locks.begin(), Locks.end(), [&](const std::unique_lock<std::mutex> &L) {
          return L.mutex() == &Input.Mutex;
        }) == Locks.end())
      Locks.emplace_back(Input.Mutex);
    LinkSource Source;
    Source.Kind = Input.Kind;
    Source.Bytes = &Input.Binary;
    Source.Exported = Input.Metadata->Exported;
    Sources.push_back(std::move(Source));
    for (const std::string &Name : Input.KernelNames)
      if (std::find(Output->KernelNames.begin(), Output->KernelNames.end(), Name) ==
          Output->KernelNames.end())
        Output->KernelNames.push_back(Name);
  }

  std::string LinkerLog;
  CodeKind OutKind = CodeKind::Cubin;
  pi_result Result = linkCode(Sources, Device.Info.Arch, Device.Info.ComputeMajor,
                              Device.Info.ComputeMinor, Output->Binary, OutKind, LinkerLog);
  Locks.clear();
  Output->Kind = OutKind;
  const std::string LinkerMessage = Result == PI_SUCCESS ? "" : dglink::lastErrorMessage();
  HipModule Module = nullptr;
  if (Problems.ok() && Result == PI_SUCCESS) {
    Result = loadModule(Device, Output->Binary, LinkerLog, Module);
    if (Result != PI_SUCCESS)
      Result = dglink::fail(PI_ERROR_LINK_PROGRAM_FAILURE,
                            "piProgramLink: the linked image does not load: {}",
                            dglink::lastErrorMessage());
  }
  Output->Log = Problems.describe() + LinkerLog;
  if (!Problems.ok()) {
    Result = dglink::fail(PI_ERROR_LINK_PROGRAM_FAILURE, "piProgramLink: {}",
                          Problems.describe());
  } else if (Result != PI_SUCCESS && Result != PI_ERROR_INVALID_OPERATION &&
             Result != PI_ERROR_LINKER_NOT_AVAILABLE) {
    Result = dglink::fail(PI_ERROR_LINK_PROGRAM_FAILURE, "{}",
                          LinkerMessage.empty() ? dglink::lastErrorMessage() : LinkerMessage);
  }
  if (Result == PI_SUCCESS) {
    if (Output->KernelNames.empty())
      Output->KernelNames = kernelNames(Output->Kind, Output->Binary);
    Output->BuildStatus = PI_PROGRAM_BUILD_STATUS_SUCCESS;
    Output->BinaryType = PI_PROGRAM_BINARY_TYPE_EXECUTABLE;
    Output->Module.store(Module, std::memory_order_release);
  } else {
    Output->Binary.clear(); // no code: a later piProgramBuild says so
    Output->BuildStatus = PI_PROGRAM_BUILD_STATUS_ERROR;
    dglink::logger().debug("hip: link failed: {}", Output->Log);
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
  DGLINK_HIP_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  return dglink::answerProgramInfo(Program, ParamName, ParamValueSize, ParamValue,
                                   ParamValueSizeRet);
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piProgramGetBuildInfo(pi_program Program, pi_device Device,
                                                         pi_program_build_info ParamName,
                                                         size_t ParamValueSize, void *ParamValue,
                                                         size_t *ParamValueSizeRet) try {
  DGLINK_HIP_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  DGLINK_HIP_CHECK_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  return dglink::answerProgramBuildInfo(Program, Device, ParamName, ParamValueSize, ParamValue,
                                        ParamValueSizeRet);
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piProgramRetain(pi_program Program) try {
  DGLINK_HIP_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  retain(Program);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piProgramRelease(pi_program Program) try {
  DGLINK_HIP_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  releaseProgram(Program);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

