// Programs: creation from IL, binaries and device images, build, compile, link with
// the images' symbol tables resolved first, info and build logs. The backend reads
// and links the code; everything else is here.
#include "entry.h"

#include <dglink/device_code/spirv_module.h>
#include <dglink/device_code/spirv_specialize.h>
#include <dglink/support/image.h>
#include <dglink/support/link.h>
#include <dglink/support/log.h>

#include <cstring>
#include <optional>

using namespace dglink::core;

namespace {

void notify(void (*PfnNotify)(pi_program, void *), pi_program Program, void *UserData) {
  if (PfnNotify != nullptr)
    PfnNotify(Program, UserData);
}

const char *formatName(pi_device_binary_format Format) {
  switch (Format) {
  case PI_DEVICE_BINARY_TYPE_NATIVE:
    return "native";
  case PI_DEVICE_BINARY_TYPE_SPIRV:
    return "SPIR-V";
  case PI_DEVICE_BINARY_TYPE_LLVMIR_BITCODE:
    return "LLVM bitcode";
  case PI_DEVICE_BINARY_TYPE_NONE:
    break;
  }
  return "unknown";
}

// A program of Context for Devices (none: the context's) from Source, which the
// backend accepts or refuses first. The caller adds the metadata, then hands the
// program out with adopt.
pi_result newProgram(const char *Function, pi_context Context, pi_uint32 NumDevices,
                     const pi_device *Devices, const ProgramSource &Source,
                     std::unique_ptr<_pi_program> &Program) {
  Program = makeHandle<_pi_program>();
  Program->Context = Context;
  if (NumDevices == 0)
    Program->Devices = Context->Devices;
  else
    for (pi_uint32 I = 0; I < NumDevices; ++I)
      if (!Program->hasDevice(Devices[I]))
        Program->Devices.push_back(Devices[I]);
  if (Source.Target != nullptr && *Source.Target != '\0')
    Program->Target = Source.Target;
  // A SPIR-V module is checked once here, so that every backend refuses a malformed
  // one alike (PI_ERROR_INVALID_BINARY) before its driver or a translator reads it.
  if (dglink::detectFormat(Source.Data, Source.Size) == dglink::ImageFormat::SpirV)
    DGLINK_TRY(dglink::device_code::checkSpirvModule(Function, Source.Data, Source.Size));
  if (Source.Data != nullptr)
    Program->Binary.assign(Source.Data, Source.Data + Source.Size);
  return Context->Impl->createProgram(Function, Source, *Program);
}

pi_result refuseLowered(const char *Function, const dglink::ImageMetadata &Metadata) {
  if (backend().runsLoweredImages())
    return PI_SUCCESS;
  return dglink::refuseLoweredImage(Function, Metadata);
}

// Makes the backend's program again from the module specialized with the constants set
// since it was made (called with Program.Mutex held, before a build or compile). The
// metadata the backend added (lowered device globals) is made again with it.
pi_result applySpecializationConstants(const char *Function, _pi_program &Program) {
  if (Program.SpecConstantsApplied)
    return PI_SUCCESS;
  std::vector<uint8_t> Specialized;
  DGLINK_TRY(dglink::device_code::specializeSpirv(
      Function, Program.Binary.data(), Program.Binary.size(), Program.SpecConstants, Specialized));
  ProgramSource Source;
  Source.From = ProgramSource::Origin::IL;
  Source.Data = Specialized.data();
  Source.Size = Specialized.size();
  std::unique_ptr<ProgramImpl> Old = std::move(Program.Impl);
  std::optional<dglink::LoweredStorage> OldLowered = std::move(Program.Metadata.Lowered);
  Program.Metadata.Lowered.reset();
  pi_result Result = Program.Context->Impl->createProgram(Function, Source, Program);
  if (Result == PI_SUCCESS)
    Result = Program.Impl->completeMetadata(Function, Program.Metadata);
  if (Result != PI_SUCCESS) {
    Program.Impl = std::move(Old); // the program stays as it was
    Program.Metadata.Lowered = std::move(OldLowered);
    return Result;
  }
  Program.SpecConstantsApplied = true;
  return PI_SUCCESS;
}

// Hands a new program out, once its metadata is complete (the backend adds what its own
// changes to the code made known: the OpenCL adapter's lowered device globals). A SPIR-V
// module's own required work-group sizes (LocalSize) count where no
// "<kernel>@reqd_work_group_size" metadata says otherwise, as a driver reading the module
// would honour them.
pi_result adopt(const char *Function, std::unique_ptr<_pi_program> &Program,
                pi_program *RetProgram) {
  DGLINK_TRY(Program->Impl->completeMetadata(Function, Program->Metadata));
  const std::vector<uint8_t> &Code = Program->Binary;
  if (dglink::detectFormat(Code.data(), Code.size()) == dglink::ImageFormat::SpirV)
    for (const auto &[Kernel, Sizes] :
         dglink::device_code::spirvRequiredGroupSizes(Code.data(), Code.size()))
      Program->Metadata.RequiredGroupSizes.emplace(Kernel, Sizes);
  retain(Program->Context);
  *RetProgram = Program.release();
  return PI_SUCCESS;
}

// Metadata of a linked program: every input's exports, device globals and UR metadata
// (symbol mappings, required group sizes).
dglink::ImageMetadata mergeMetadata(const std::vector<const dglink::ImageMetadata *> &Inputs) {
  dglink::ImageMetadata Merged;
  for (const dglink::ImageMetadata *Input : Inputs) {
    Merged.HasSymbolTables = Merged.HasSymbolTables || Input->HasSymbolTables;
    Merged.Exported.insert(Merged.Exported.end(), Input->Exported.begin(), Input->Exported.end());
    Merged.DeviceGlobals.insert(Input->DeviceGlobals.begin(), Input->DeviceGlobals.end());
    Merged.GlobalIdMapping.insert(Input->GlobalIdMapping.begin(), Input->GlobalIdMapping.end());
    Merged.RequiredGroupSizes.insert(Input->RequiredGroupSizes.begin(),
                                     Input->RequiredGroupSizes.end());
    for (const auto &[SetName, Properties] : Input->RawSets)
      Merged.RawSets[SetName].insert(Properties.begin(), Properties.end());
  }
  return Merged;
}

} // namespace

namespace dglink::core {

pi_result setSpecializationConstants(const char *Function, _pi_program &Program,
                                     const std::map<uint32_t, std::vector<uint8_t>> &Values) {
  std::lock_guard<std::mutex> Lock(Program.Mutex);
  if (!Program.FromIl)
    return dglink::fail(PI_ERROR_UNSUPPORTED_FEATURE,
                        "{}: program {} was not made from SPIR-V (urProgramCreateWithIL): its "
                        "code has no specialization constants to set",
                        Function, fmt::ptr(&Program));
  const std::map<uint32_t, size_t> Known =
      dglink::device_code::spirvSpecConstants(Program.Binary.data(), Program.Binary.size());
  for (const auto &[Id, Value] : Values) {
    const auto Found = Known.find(Id);
    if (Found == Known.end())
      return dglink::fail(PI_ERROR_INVALID_SPEC_ID,
                          "{}: the SPIR-V module of program {} has no specialization constant "
                          "with SpecId {}",
                          Function, fmt::ptr(&Program), Id);
    if (Found->second != Value.size())
      return dglink::fail(PI_ERROR_INVALID_VALUE,
                          "{}: specialization constant {} of program {} has {} bytes, the value "
                          "given {}",
                          Function, Id, fmt::ptr(&Program), Found->second, Value.size());
  }
  for (const auto &[Id, Value] : Values)
    Program.SpecConstants[Id] = Value;
  Program.SpecConstantsApplied = false;
  return PI_SUCCESS;
}

} // namespace dglink::core

extern "C" {

PI_API_EXPORT pi_result piProgramCreate(pi_context Context, const void *IL, size_t Length,
                                        pi_program *RetProgram) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  DGLINK_CHECK_NOT_NULL(IL, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(RetProgram, PI_ERROR_INVALID_VALUE);
  if (Length == 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "piProgramCreate: argument 'Length' is 0");
  ProgramSource Source;
  Source.From = ProgramSource::Origin::IL;
  Source.Data = static_cast<const unsigned char *>(IL);
  Source.Size = Length;
  std::unique_ptr<_pi_program> Program;
  DGLINK_TRY(newProgram(__func__, Context, 0, nullptr, Source, Program));
  Program->FromIl = dglink::detectFormat(Source.Data, Source.Size) == dglink::ImageFormat::SpirV;
  return adopt(__func__, Program, RetProgram);
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piProgramCreateWithBinary(
    pi_context Context, pi_uint32 NumDevices, const pi_device *DeviceList, const size_t *Lengths,
    const unsigned char **Binaries, size_t NumMetadataEntries,
    const pi_device_binary_property *Metadata, pi_int32 *BinaryStatus, pi_program *RetProgram) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  DGLINK_CHECK_NOT_NULL(RetProgram, PI_ERROR_INVALID_VALUE);
  if (NumDevices == 0 || DeviceList == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piProgramCreateWithBinary: {} devices, list pointer {}", NumDevices,
                        DeviceList == nullptr ? "null" : "not null");
  DGLINK_TRY(checkDeviceList(__func__, *Context, NumDevices, DeviceList));
  DGLINK_CHECK_NOT_NULL(Lengths, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(Binaries, PI_ERROR_INVALID_VALUE);
  for (pi_uint32 I = 0; I < NumDevices; ++I)
    if (Binaries[I] == nullptr || Lengths[I] == 0)
      return dglink::fail(PI_ERROR_INVALID_VALUE, "piProgramCreateWithBinary: binary {} is {}", I,
                          Binaries[I] == nullptr ? "null" : "empty");
  dglink::ImageMetadata Properties;
  DGLINK_TRY(dglink::readFlatMetadata(NumMetadataEntries, Metadata, Properties));
  DGLINK_TRY(refuseLowered(__func__, Properties));
  ProgramSource Source;
  Source.From = ProgramSource::Origin::Binary;
  Source.Data = Binaries[0];
  Source.Size = Lengths[0];
  Source.Binaries = Binaries;
  Source.Lengths = Lengths;
  Source.NumBinaries = NumDevices;
  std::unique_ptr<_pi_program> Program;
  const pi_result Result = newProgram(__func__, Context, NumDevices, DeviceList, Source, Program);
  if (BinaryStatus != nullptr)
    for (pi_uint32 I = 0; I < NumDevices; ++I)
      BinaryStatus[I] = Result;
  DGLINK_TRY(Result);
  Program->Metadata = std::move(Properties);
  return adopt(__func__, Program, RetProgram);
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piextProgramCreateWithImage(pi_context Context, pi_uint32 NumDevices,
                                                    const pi_device *DeviceList,
                                                    const _pi_device_binary_struct *Image,
                                                    pi_program *RetProgram) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  DGLINK_CHECK_NOT_NULL(Image, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(RetProgram, PI_ERROR_INVALID_VALUE);
  DGLINK_TRY(checkDeviceList(__func__, *Context, NumDevices, DeviceList));
  ProgramSource Source;
  Source.From = ProgramSource::Origin::Image;
  Source.DeclaredFormat = static_cast<pi_device_binary_format>(Image->Format);
  Source.Target = Image->DeviceTargetSpec;
  Source.Image = Image;
  Source.Data = Image->BinaryStart;
  Source.Size = Image->BinaryStart != nullptr && Image->BinaryEnd > Image->BinaryStart
                    ? static_cast<size_t>(Image->BinaryEnd - Image->BinaryStart)
                    : 0;
  // The backend refuses what it cannot run (and an empty byte range) before the
  // image's properties are read.
  std::unique_ptr<_pi_program> Program;
  DGLINK_TRY(newProgram(__func__, Context, NumDevices, DeviceList, Source, Program));
  DGLINK_TRY(dglink::readImageMetadata(*Image, Program->Metadata));
  DGLINK_TRY(refuseLowered(__func__, Program->Metadata));
  if (Image->CompileOptions != nullptr)
    Program->Options = Image->CompileOptions;
  return adopt(__func__, Program, RetProgram);
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piProgramBuild(pi_program Program, pi_uint32 NumDevices,
                                       const pi_device *DeviceList, const char *Options,
                                       void (*PfnNotify)(pi_program, void *), void *UserData) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  DGLINK_TRY(checkDeviceList(__func__, *Program->Context, NumDevices, DeviceList));
  pi_result Result = PI_SUCCESS;
  {
    std::lock_guard<std::mutex> Lock(Program->Mutex);
    if (Program->Executable.load()) {
      notify(PfnNotify, Program, UserData);
      return PI_SUCCESS; // already executable
    }
    // The output of a failed link has no code, only the log naming its symbols.
    if (Program->LinkFailed)
      return dglink::fail(PI_ERROR_INVALID_OPERATION,
                          "piProgramBuild: program {} is the result of a failed link and has no "
                          "code; see its build log",
                          fmt::ptr(Program));
    if (Options != nullptr)
      Program->Options = Options;
    DGLINK_TRY(applySpecializationConstants(__func__, *Program));
    std::string Log;
    Result = Program->Impl->build(*Program, Program->Options, Log);
    Program->Log = std::move(Log);
    if (Result == PI_SUCCESS) {
      Program->BuildStatus = PI_PROGRAM_BUILD_STATUS_SUCCESS;
      Program->BinaryType = PI_PROGRAM_BINARY_TYPE_EXECUTABLE;
      Program->Executable.store(true, std::memory_order_release);
    } else {
      Program->BuildStatus = PI_PROGRAM_BUILD_STATUS_ERROR;
    }
  }
  notify(PfnNotify, Program, UserData);
  return Result;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piProgramCompile(pi_program Program, pi_uint32 NumDevices,
                                         const pi_device *DeviceList, const char *Options,
                                         pi_uint32 NumInputHeaders, const pi_program *InputHeaders,
                                         const char **HeaderIncludeNames,
                                         void (*PfnNotify)(pi_program, void *),
                                         void *UserData) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  DGLINK_TRY(checkDeviceList(__func__, *Program->Context, NumDevices, DeviceList));
  if (NumInputHeaders != 0)
    return dglink::fail(PI_ERROR_INVALID_OPERATION,
                        "piProgramCompile: {} images are compiled already; input headers cannot "
                        "apply",
                        adapterLabel());
  pi_result Result = PI_SUCCESS;
  {
    std::lock_guard<std::mutex> Lock(Program->Mutex);
    if (Program->Executable.load())
      return dglink::fail(PI_ERROR_INVALID_OPERATION,
                          "piProgramCompile: program {} is built already", fmt::ptr(Program));
    if (Program->LinkFailed)
      return dglink::fail(PI_ERROR_INVALID_OPERATION,
                          "piProgramCompile: program {} is the result of a failed link and has "
                          "no code; see its build log",
                          fmt::ptr(Program));
    if (Options != nullptr && *Options != '\0')
      Program->Options = Options;
    DGLINK_TRY(applySpecializationConstants(__func__, *Program));
    std::string Log;
    Result = Program->Impl->compile(*Program, Program->Options, Log);
    Program->Log = std::move(Log);
    Program->BuildStatus =
        Result == PI_SUCCESS ? PI_PROGRAM_BUILD_STATUS_SUCCESS : PI_PROGRAM_BUILD_STATUS_ERROR;
    Program->BinaryType =
        Result == PI_SUCCESS ? PI_PROGRAM_BINARY_TYPE_COMPILED_OBJECT : PI_PROGRAM_BINARY_TYPE_NONE;
  }
  notify(PfnNotify, Program, UserData);
  return Result;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piProgramLink(pi_context Context, pi_uint32 NumDevices,
                                      const pi_device *DeviceList, const char *Options,
                                      pi_uint32 NumInputPrograms, const pi_program *InputPrograms,
                                      void (*PfnNotify)(pi_program, void *), void *UserData,
                                      pi_program *RetProgram) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  if (NumInputPrograms == 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "piProgramLink: argument 'NumInputPrograms' is 0");
  DGLINK_CHECK_NOT_NULL(InputPrograms, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(RetProgram, PI_ERROR_INVALID_VALUE);
  for (pi_uint32 I = 0; I < NumInputPrograms; ++I) {
    HandleKind Actual = HandleKind::Program;
    const HandleState State = inspectHandle(InputPrograms[I], HandleKind::Program, &Actual);
    if (State != HandleState::Live)
      return dglink::fail(PI_ERROR_INVALID_PROGRAM, "piProgramLink: InputPrograms[{}] is {}", I,
                          describeHandle(State, HandleKind::Program, Actual));
    for (_pi_device *Device : InputPrograms[I]->Devices)
      if (!Context->hasDevice(Device))
        return dglink::fail(PI_ERROR_INVALID_PROGRAM,
                            "piProgramLink: InputPrograms[{}] belongs to another device", I);
    // The output of a failed link has a log and no code (set once, when it was made).
    if (InputPrograms[I]->LinkFailed)
      return dglink::fail(PI_ERROR_INVALID_PROGRAM,
                          "piProgramLink: InputPrograms[{}] is the result of a failed link and "
                          "has no code; see its build log",
                          I);
  }
  for (pi_uint32 I = 1; I < NumInputPrograms; ++I)
    if (InputPrograms[I]->Target != InputPrograms[0]->Target ||
        InputPrograms[I]->Format != InputPrograms[0]->Format)
      return dglink::fail(PI_ERROR_INVALID_OPERATION,
                          "piProgramLink: input 0 ('{}', {}) and input {} ('{}', {}): formats "
                          "differ and cannot be linked together",
                          InputPrograms[0]->Target, formatName(InputPrograms[0]->Format), I,
                          InputPrograms[I]->Target, formatName(InputPrograms[I]->Format));
  DGLINK_TRY(checkDeviceList(__func__, *Context, NumDevices, DeviceList));

  // What the images say they import and export, checked before the driver's linker
  // so that the log names every symbol on every backend alike.
  std::vector<const dglink::ImageMetadata *> Metadata;
  for (pi_uint32 I = 0; I < NumInputPrograms; ++I)
    Metadata.push_back(&InputPrograms[I]->Metadata);
  const dglink::LinkProblems Problems = dglink::resolveImports(Metadata);

  std::unique_ptr<_pi_program> Output = makeHandle<_pi_program>();
  Output->Context = Context;
  // The devices asked for (each built once: a runtime links per device of a context of
  // several), or none: the context's.
  if (NumDevices == 0) {
    Output->Devices = Context->Devices;
  } else {
    for (pi_uint32 I = 0; I < NumDevices; ++I)
      if (!Output->hasDevice(DeviceList[I]))
        Output->Devices.push_back(DeviceList[I]);
  }
  Output->Format = InputPrograms[0]->Format;
  Output->Target = InputPrograms[0]->Target;
  Output->Metadata = mergeMetadata(Metadata);
  if (Options != nullptr)
    Output->Options = Options;
  Output->Log = Problems.describe();

  LinkRequest Request{std::vector<_pi_program *>(InputPrograms, InputPrograms + NumInputPrograms),
                      Output->Options, !Problems.ok(), *Output};
  pi_result Result = Context->Impl->link(Request);
  // The output exists when the link ran and failed (its build log says why), not
  // when nothing could be linked (backend.h, LinkRequest).
  if (Result != PI_SUCCESS && Result != PI_ERROR_LINK_PROGRAM_FAILURE)
    return Result;
  if (!Problems.ok())
    Result = dglink::fail(PI_ERROR_LINK_PROGRAM_FAILURE, "piProgramLink: {}", Problems.describe());
  else if (Result != PI_SUCCESS)
    Result = dglink::fail(PI_ERROR_LINK_PROGRAM_FAILURE, "piProgramLink: {}",
                          dglink::lastErrorMessage());
  if (Result == PI_SUCCESS) {
    Output->BuildStatus = PI_PROGRAM_BUILD_STATUS_SUCCESS;
    Output->BinaryType = PI_PROGRAM_BINARY_TYPE_EXECUTABLE;
    Output->Executable.store(true, std::memory_order_release);
  } else {
    Output->Impl.reset();
    Output->KernelNames.clear();
    Output->LinkFailed = true;
    Output->BuildStatus = PI_PROGRAM_BUILD_STATUS_ERROR;
    dglink::logger().debug("{}: link failed: {}", backend().name(), Output->Log);
  }
  retain(Context);
  *RetProgram = Output.release();
  notify(PfnNotify, *RetProgram, UserData);
  return Result;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piProgramGetInfo(pi_program Program, pi_program_info ParamName,
                                         size_t ParamValueSize, void *ParamValue,
                                         size_t *ParamValueSizeRet) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
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
    return Value(static_cast<pi_uint32>(Program->Devices.size()));
  case PI_PROGRAM_INFO_DEVICES:
    return dglink::returnInfoArray(Program->Devices, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_PROGRAM_INFO_BINARY_SIZES: {
    // One binary per device (the failed link's output has none).
    std::vector<std::vector<uint8_t>> Binaries;
    if (Program->Impl != nullptr)
      DGLINK_TRY(Program->Impl->binaries(*Program, Binaries));
    std::vector<size_t> Sizes(Program->Devices.size(), 0);
    for (size_t I = 0; I < Sizes.size() && I < Binaries.size(); ++I)
      Sizes[I] = Binaries[I].size();
    return dglink::returnInfoArray(Sizes, ParamValueSize, ParamValue, ParamValueSizeRet);
  }
  case PI_PROGRAM_INFO_BINARIES: {
    // ParamValue is an array of one pointer per device to memory of BINARY_SIZES bytes.
    const size_t Needed = Program->Devices.size() * sizeof(unsigned char *);
    if (ParamValue != nullptr && ParamValueSize < Needed)
      return dglink::fail(PI_ERROR_INVALID_VALUE,
                          "piProgramGetInfo: room for {} binary pointers is needed",
                          Program->Devices.size());
    std::vector<std::vector<uint8_t>> Binaries;
    if (ParamValue != nullptr && Program->Impl != nullptr)
      DGLINK_TRY(Program->Impl->binaries(*Program, Binaries));
    for (size_t I = 0; ParamValue != nullptr && I < Binaries.size(); ++I) {
      unsigned char *Target = nullptr;
      std::memcpy(&Target, static_cast<char *>(ParamValue) + I * sizeof(Target), sizeof(Target));
      if (Target != nullptr && !Binaries[I].empty())
        std::memcpy(Target, Binaries[I].data(), Binaries[I].size());
    }
    if (ParamValueSizeRet != nullptr)
      *ParamValueSizeRet = Needed;
    return PI_SUCCESS;
  }
  case PI_PROGRAM_INFO_NUM_KERNELS:
    return Value(Program->KernelNames.size());
  case PI_PROGRAM_INFO_KERNEL_NAMES: {
    std::string Names;
    for (const std::string &Name : Program->KernelNames)
      Names += (Names.empty() ? "" : ";") + Name;
    return dglink::returnInfoString(Names, ParamValueSize, ParamValue, ParamValueSizeRet);
  }
  case PI_EXT_PROGRAM_INFO_FORMAT:
    return Value(Program->Format);
  case PI_EXT_PROGRAM_INFO_DEVICE_GLOBALS: {
    std::string Lines;
    for (const auto &[Id, Info] : Program->Metadata.DeviceGlobals)
      Lines +=
          Id + ' ' + std::to_string(Info.Size) + ' ' + (Info.DeviceImageScope ? '1' : '0') + '\n';
    return dglink::returnInfoString(Lines, ParamValueSize, ParamValue, ParamValueSizeRet);
  }
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "piProgramGetInfo: unknown parameter {:#x}",
                      static_cast<unsigned>(ParamName));
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piProgramGetBuildInfo(pi_program Program, pi_device Device,
                                              pi_program_build_info ParamName,
                                              size_t ParamValueSize, void *ParamValue,
                                              size_t *ParamValueSizeRet) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  DGLINK_CHECK_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  if (!Program->hasDevice(Device))
    return dglink::fail(PI_ERROR_INVALID_DEVICE,
                        "piProgramGetBuildInfo: device '{}' is not the program's device",
                        Device->Description.Name);
  std::lock_guard<std::mutex> Lock(Program->Mutex);
  switch (ParamName) {
  case PI_PROGRAM_BUILD_INFO_STATUS:
    return dglink::returnInfo(Program->BuildStatus, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_PROGRAM_BUILD_INFO_OPTIONS:
    return dglink::returnInfoString(Program->Options, ParamValueSize, ParamValue,
                                    ParamValueSizeRet);
  case PI_PROGRAM_BUILD_INFO_LOG:
    return dglink::returnInfoString(Program->Log, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_PROGRAM_BUILD_INFO_BINARY_TYPE:
    return dglink::returnInfo(Program->BinaryType, ParamValueSize, ParamValue, ParamValueSizeRet);
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "piProgramGetBuildInfo: unknown parameter {:#x}",
                      static_cast<unsigned>(ParamName));
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piProgramRetain(pi_program Program) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  retain(Program);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piProgramRelease(pi_program Program) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  release(Program);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

} // extern "C"
