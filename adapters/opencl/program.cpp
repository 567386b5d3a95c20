// Programs: creation from SPIR-V, SPIR bitcode and native binaries with their image metadata,
// separate compilation and linking (with dglink's symbol check before the driver's), build,
// and the program and build queries.
#include "opencl_adapter.h"

#include <dglink/support/info.h>
#include <dglink/support/link.h>

#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string_view>

namespace dglink::opencl {
namespace {

// PoCL compiles SPIR bitcode only through clBuildProgram with "-x spir"; clCompileProgram
// refuses it (CL_INVALID_OPERATION), so separate compilation is a build into a library.
constexpr const char *SpirBuildOption = "-x spir";
constexpr const char *SpirCompileOptions = "-x spir -create-library";

using NotifyFunction = void (*)(pi_program, void *);

pi_device_binary_format piFormat(ImageFormat Format) {
  switch (Format) {
  case ImageFormat::SpirV:
    return PI_DEVICE_BINARY_TYPE_SPIRV;
  case ImageFormat::LlvmBitcode:
    return PI_DEVICE_BINARY_TYPE_LLVMIR_BITCODE;
  default:
    return PI_DEVICE_BINARY_TYPE_NATIVE;
  }
}

// The link-format name of an image format (see linkFormatsOf in device.cpp); null where
// this adapter never links the format.
const char *linkFormatOf(ImageFormat Format) {
  switch (Format) {
  case ImageFormat::SpirV:
    return "spirv64";
  case ImageFormat::LlvmBitcode:
    return "spir64";
  default:
    return nullptr;
  }
}

std::string joinOptions(std::initializer_list<std::string> Parts) {
  std::string Joined;
  for (const std::string &Part : Parts) {
    if (Part.empty())
      continue;
    if (!Joined.empty())
      Joined += ' ';
    Joined += Part;
  }
  return Joined;
}

std::string optionString(const char *Options) { return Options == nullptr ? "" : Options; }

std::vector<cl_device_id> clDevicesOf(const std::vector<pi_device> &Devices) {
  std::vector<cl_device_id> Ids;
  for (pi_device Device : Devices)
    Ids.push_back(Device->Device);
  return Ids;
}

// Devices an operation applies to: the given list (each a member of Members), or all of
// Members when the list is empty.
pi_result selectDevices(const char *Function, pi_uint32 NumDevices, const pi_device *DeviceList,
                        const std::vector<pi_device> &Members, const char *MembersName,
                        std::vector<pi_device> &Out) {
  if ((NumDevices == 0) != (DeviceList == nullptr))
    return fail(PI_ERROR_INVALID_VALUE, "{}: NumDevices is {} but DeviceList is {}", Function,
                NumDevices, DeviceList == nullptr ? "null" : "not null");
  if (NumDevices == 0) {
    Out = Members;
    return PI_SUCCESS;
  }
  Out.clear();
  for (pi_uint32 I = 0; I < NumDevices; ++I) {
    if (!ownedBy(DeviceList[I], &DispatchTable))
      return fail(PI_ERROR_INVALID_DEVICE, "{}: DeviceList[{}] is {}", Function, I,
                  DeviceList[I] == nullptr ? "null" : "not a device of the OpenCL adapter");
    if (std::find(Members.begin(), Members.end(), DeviceList[I]) == Members.end())
      return fail(PI_ERROR_INVALID_DEVICE, "{}: device '{}' is not in the {}", Function,
                  DeviceList[I]->Name, MembersName);
    Out.push_back(DeviceList[I]);
  }
  return PI_SUCCESS;
}

// Whether every device can load programs of this format at all.
pi_result checkConsumable(const char *Function, ImageFormat Format,
                          const std::vector<pi_device> &Devices) {
  for (pi_device Device : Devices) {
    if (Format == ImageFormat::SpirV && !Device->ConsumesSpirV)
      return fail(PI_ERROR_INVALID_OPERATION,
                  "{}: device '{}' does not consume SPIR-V (CL_DEVICE_IL_VERSION is '{}')",
                  Function, Device->Name, Device->IlVersion);
    if (Format == ImageFormat::LlvmBitcode && !Device->ConsumesSpir)
      return fail(PI_ERROR_INVALID_OPERATION,
                  "{}: device '{}' does not consume SPIR (LLVM bitcode): no cl_khr_spir", Function,
                  Device->Name);
  }
  return PI_SUCCESS;
}

// Whether every device can run code of the image's target: a native image for another
// vendor's hardware (PTX on a CPU, say) is refused before the driver sees its bytes, so
// that the answer is the same on every driver.
pi_result checkTarget(const char *Function, const char *Target,
                      const std::vector<pi_device> &Devices) {
  if (Target == nullptr)
    return PI_SUCCESS;
  const std::string_view Spec = Target;
  const char *Vendor = Spec == PI_DEVICE_BINARY_TARGET_NVPTX64 ? "NVIDIA"
                       : Spec == PI_DEVICE_BINARY_TARGET_AMDGCN ? "Advanced Micro Devices"
                                                                : nullptr;
  if (Vendor == nullptr)
    return PI_SUCCESS;
  for (pi_device Device : Devices)
    if (Device->Platform->Vendor.find(Vendor) == std::string::npos)
      return fail(PI_ERROR_INVALID_OPERATION,
                  "{}: the image is for target {}, which device '{}' of platform '{}' cannot "
                  "consume",
                  Function, Spec, Device->Name, Device->Platform->Name);
  return PI_SUCCESS;
}

// Whether every device links programs of this format (the advertised link formats).
pi_result checkLinkable(const char *Function, ImageFormat Format,
                        const std::vector<pi_device> &Devices) {
  const char *LinkFormat = linkFormatOf(Format);
  for (pi_device Device : Devices)
    if (LinkFormat == nullptr || !Device->canLink(LinkFormat))
      return fail(PI_ERROR_INVALID_OPERATION,
                  "{}: {} programs cannot be compiled separately and linked on device '{}' "
                  "(it links: '{}')",
                  Function, formatLabel(Format), Device->Name,
                  fmt::format("{}", fmt::join(Device->LinkFormats, " ")));
  return PI_SUCCESS;
}

std::string driverLog(cl_program Program, cl_device_id Device) {
  size_t Size = 0;
  if (Program == nullptr ||
      clGetProgramBuildInfo(Program, Device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &Size) !=
          CL_SUCCESS ||
      Size == 0)
    return {};
  std::string Log(Size, '\0');
  if (clGetProgramBuildInfo(Program, Device, CL_PROGRAM_BUILD_LOG, Size, Log.data(), nullptr) !=
      CL_SUCCESS)
    return {};
  Log.resize(std::strlen(Log.c_str()));
  return Log;
}

// Whether the driver built Program for Device: NVIDIA reports a program made from a PTX
// binary as an executable before clBuildProgram ran, so the build status counts too.
bool buildSucceeded(pi_program Program, pi_device Device) {
  cl_build_status Status = CL_BUILD_NONE;
  return Program->Program != nullptr &&
         clGetProgramBuildInfo(Program->Program, Device->Device, CL_PROGRAM_BUILD_STATUS,
                               sizeof(Status), &Status, nullptr) == CL_SUCCESS &&
         Status == CL_BUILD_SUCCESS;
}

cl_program_binary_type binaryType(pi_program Program, pi_device Device) {
  cl_program_binary_type Type = CL_PROGRAM_BINARY_TYPE_NONE;
  if (Program->LinkFailed || Program->Program == nullptr ||
      clGetProgramBuildInfo(Program->Program, Device->Device, CL_PROGRAM_BINARY_TYPE, sizeof(Type),
                            &Type, nullptr) != CL_SUCCESS)
    return CL_PROGRAM_BINARY_TYPE_NONE;
  return Type;
}

const char *binaryTypeName(cl_program_binary_type Type) {
  switch (Type) {
  case CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT:
    return "a compiled object";
  case CL_PROGRAM_BINARY_TYPE_LIBRARY:
    return "a library";
  case CL_PROGRAM_BINARY_TYPE_EXECUTABLE:
    return "an executable";
  default:
    return "not built";
  }
}

// A driver message for a failed build names the first device's log, which OpenCL keeps.
pi_result buildFailure(const char *Function, const char *ClFunction, cl_int Error, pi_result Code,
                       pi_program Program, const std::vector<pi_device> &Devices) {
  std::string Log = Devices.empty() ? "" : driverLog(Program->Program, Devices[0]->Device);
  if (Log.size() > 2000)
    Log = Log.substr(0, 2000) + "...";
  return fail(Code, "{}: {} failed with {} ({}); build log: {}", Function, ClFunction,
              clErrorName(Error), Error, Log.empty() ? "(empty)" : Log);
}

std::unique_ptr<_pi_program> newProgram(pi_context Context, std::vector<pi_device> Devices,
                                        ImageFormat Format, ImageMetadata Metadata) {
  auto Program = std::make_unique<_pi_program>();
  Program->Context = Context;
  Program->Devices = std::move(Devices);
  Program->Format = Format;
  Program->Metadata = std::move(Metadata);
  return Program;
}

pi_program publish(std::unique_ptr<_pi_program> Program) {
  ++Program->Context->RefCount;
  return Program.release();
}

// The one place programs are made from bytes: SPIR-V through clCreateProgramWithIL (for
// every device of the context, as OpenCL does), anything else through
// clCreateProgramWithBinary for Devices.
pi_result createProgram(const char *Function, pi_context Context, std::vector<pi_device> Devices,
                        ImageFormat Format, const unsigned char **Binaries, const size_t *Lengths,
                        ImageMetadata Metadata, const char *CompileOptions, const char *LinkOptions,
                        pi_int32 *BinaryStatus, pi_program *RetProgram,
                        std::optional<std::set<std::string>> Entries = std::nullopt) {
  if (Format == ImageFormat::SpirV)
    Devices = Context->Devices;
  DGLINK_TRY(checkConsumable(Function, Format, Devices));
  auto Program = newProgram(Context, Devices, Format, std::move(Metadata));
  if (Program->Metadata.Lowered) {
    // An image lists its kernels (none for a library of functions); a flat binary with
    // lowered metadata (piProgramCreateWithBinary) lists none, so all its kernels are.
    Program->AllKernelsLowered = !Entries.has_value();
    if (Entries)
      Program->LoweredKernels = std::move(*Entries);
  }
  Program->ImageCompileOptions = optionString(CompileOptions);
  Program->ImageLinkOptions = optionString(LinkOptions);

  cl_int Error = CL_SUCCESS;
  if (Format == ImageFormat::SpirV) {
    Program->Program = clCreateProgramWithIL(Context->Context, Binaries[0], Lengths[0], &Error);
    if (Error != CL_SUCCESS)
      return clFailure(Error, Function, "clCreateProgramWithIL");
  } else {
    const std::vector<cl_device_id> Ids = clDevicesOf(Devices);
    std::vector<cl_int> Status(Ids.size(), CL_SUCCESS);
    Program->Program =
        clCreateProgramWithBinary(Context->Context, static_cast<cl_uint>(Ids.size()), Ids.data(),
                                  Lengths, Binaries, Status.data(), &Error);
    if (BinaryStatus != nullptr)
      std::copy(Status.begin(), Status.end(), BinaryStatus);
    if (Error != CL_SUCCESS)
      return clFailure(Error, Function, "clCreateProgramWithBinary");
  }
  *RetProgram = publish(std::move(Program));
  return PI_SUCCESS;
}

// What a linked program knows about its symbols and device globals: the union of its
// inputs', with the imports the link resolved dropped.
ImageMetadata mergeMetadata(const std::vector<pi_program> &Inputs) {
  ImageMetadata Merged;
  for (pi_program Input : Inputs) {
    const ImageMetadata &Metadata = Input->Metadata;
    Merged.Exported.insert(Merged.Exported.end(), Metadata.Exported.begin(),
                           Metadata.Exported.end());
    Merged.DeviceGlobals.insert(Metadata.DeviceGlobals.begin(), Metadata.DeviceGlobals.end());
    for (const auto &[SetName, Properties] : Metadata.RawSets)
      Merged.RawSets[SetName].insert(Properties.begin(), Properties.end());
    Merged.HasSymbolTables = Merged.HasSymbolTables || Metadata.HasSymbolTables;
  }
  for (pi_program Input : Inputs)
    for (const std::string &Symbol : Input->Metadata.Imported)
      if (std::find(Merged.Exported.begin(), Merged.Exported.end(), Symbol) ==
              Merged.Exported.end() &&
          std::find(Merged.Imported.begin(), Merged.Imported.end(), Symbol) ==
              Merged.Imported.end())
        Merged.Imported.push_back(Symbol);
  return Merged;
}

void notify(NotifyFunction PfnNotify, pi_program Program, void *UserData) {
  // dglink drives the driver synchronously, so the callback runs once the work is done.
  if (PfnNotify != nullptr)
    PfnNotify(Program, UserData);
}

pi_result checkNotLinkFailure(const char *Function, pi_program Program) {
  if (Program->LinkFailed)
    return fail(PI_ERROR_INVALID_OPERATION,
                "{}: {} is the result of a failed link and has no code; see its build log",
                Function, programLabel(Program));
  return PI_SUCCESS;
}

} // namespace

const char *formatLabel(ImageFormat Format) {
  return Format == ImageFormat::Unknown ? "native driver binary" : formatName(Format);
}

std::string programLabel(pi_program Program) {
  return fmt::format("program {}", static_cast<const void *>(Program));
}

bool programBuiltFor(pi_program Program, pi_device Device) {
  if (Program->ExecutableFor.load(std::memory_order_acquire) == Device)
    return true;
  if (Program->LinkFailed || Program->Program == nullptr || !Program->hasDevice(Device))
    return false;
  const uint64_t Generation = Program->BuildGeneration.load(std::memory_order_acquire);
  if (binaryType(Program, Device) != CL_PROGRAM_BINARY_TYPE_EXECUTABLE ||
      !buildSucceeded(Program, Device))
    return false;
  // Cached only if no build started meanwhile (a build bumps the generation first).
  std::lock_guard<std::mutex> Lock(Program->Mutex);
  if (Program->BuildGeneration.load(std::memory_order_acquire) == Generation)
    Program->ExecutableFor.store(Device, std::memory_order_release);
  return true;
}

void forgetBuild(pi_program Program) {
  std::lock_guard<std::mutex> Lock(Program->Mutex);
  Program->BuildGeneration.fetch_add(1, std::memory_order_acq_rel);
  Program->ExecutableFor.store(nullptr, std::memory_order_release);
}

pi_result checkExecutable(const char *Function, pi_program Program) {
  if (Program->LinkFailed || Program->Program == nullptr)
    return fail(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
                "{}: {} is the result of a failed link and has no kernels; see its build log",
                Function, programLabel(Program));
  cl_program_binary_type Type = CL_PROGRAM_BINARY_TYPE_NONE;
  for (pi_device Device : Program->Devices) {
    Type = binaryType(Program, Device);
    if (Type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE && buildSucceeded(Program, Device))
      return PI_SUCCESS;
    if (Type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE)
      Type = CL_PROGRAM_BINARY_TYPE_NONE; // a binary the driver has not built yet
  }
  // Checked here because drivers answer a kernel lookup in a library or object with
  // CL_INVALID_KERNEL_NAME (PoCL 3.1), which misleads.
  return fail(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
              "{}: {} is {}, not an executable; build it with piProgramBuild, or compile and "
              "link it with piProgramCompile and piProgramLink",
              Function, programLabel(Program), binaryTypeName(Type));
}

pi_result loweredStorage(const char *Function, pi_program Program, pi_device Device, cl_mem &Out) {
  std::lock_guard<std::mutex> Lock(Program->Mutex);
  for (const auto &[Owner, Mem] : Program->Storage)
    if (Owner == Device) {
      Out = Mem;
      return PI_SUCCESS;
    }
  // One buffer per device: a program's variables on two devices are two instances. The
  // initial contents go in with the buffer, so no queue is needed.
  // Checked before anything is allocated: a corrupt or hostile size must not make the
  // host allocate and zero gigabytes.
  const uint64_t Needed = Program->Metadata.Lowered->Size;
  const auto MaxAlloc = deviceScalar<cl_ulong>(Device->Device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, 0);
  if (MaxAlloc != 0 && Needed > MaxAlloc)
    return fail(PI_ERROR_INVALID_BINARY,
                "{}: the device-global storage of {} needs {} bytes, more than device '{}' "
                "allocates at once ({} bytes)",
                Function, programLabel(Program), Needed, Device->Name, MaxAlloc);
  std::vector<uint8_t> Contents = Program->Metadata.Lowered->initialContents();
  if (Contents.empty())
    Contents.resize(16); // kernels still take the argument; OpenCL has no empty buffers
  cl_int Error = CL_SUCCESS;
  cl_mem Mem = clCreateBuffer(Program->Context->Context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                              Contents.size(), Contents.data(), &Error);
  if (Error != CL_SUCCESS)
    return fail(toPiResult(Error),
                "{}: clCreateBuffer failed with {} ({}) for the {} bytes of device-global storage "
                "of {} on device '{}'",
                Function, clErrorName(Error), Error, Contents.size(), programLabel(Program),
                Device->Name);
  try {
    Program->Storage.emplace_back(Device, Mem);
  } catch (...) {
    clReleaseMemObject(Mem);
    throw;
  }
  Out = Mem;
  return PI_SUCCESS;
}

void releaseReference(pi_program Program) {
  if (--Program->RefCount != 0)
    return;
  for (const auto &[Device, Mem] : Program->Storage)
    clReleaseMemObject(Mem);
  if (Program->Program != nullptr)
    clReleaseProgram(Program->Program);
  releaseReference(Program->Context);
  delete Program;
}

} // namespace dglink::opencl

bool _pi_program::hasDevice(pi_device Device) const {
  return std::find(Devices.begin(), Devices.end(), Device) != Devices.end();
}

using namespace dglink::opencl;
using dglink::ImageFormat;
using dglink::ImageMetadata;

extern "C" {

PI_API_EXPORT pi_result piProgramCreate(pi_context Context, const void *IL, size_t Length,
                                        pi_program *RetProgram) try {
  DGLINK_OPENCL_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  DGLINK_CHECK_NOT_NULL(IL, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(RetProgram, PI_ERROR_INVALID_VALUE);
  if (Length == 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: Length is 0", __func__);
  if (dglink::detectFormat(IL, Length) != ImageFormat::SpirV)
    return dglink::fail(PI_ERROR_INVALID_BINARY, "{}: the {} bytes at IL are not a SPIR-V module",
                        __func__, Length);
  const auto *Bytes = static_cast<const unsigned char *>(IL);
  return createProgram(__func__, Context, Context->Devices, ImageFormat::SpirV, &Bytes, &Length,
                       ImageMetadata{}, nullptr, nullptr, nullptr, RetProgram);
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piProgramCreateWithBinary(
    pi_context Context, pi_uint32 NumDevices, const pi_device *DeviceList, const size_t *Lengths,
    const unsigned char **Binaries, size_t NumMetadataEntries,
    const pi_device_binary_property *Metadata, pi_int32 *BinaryStatus, pi_program *RetProgram) try {
  DGLINK_OPENCL_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  if (NumDevices == 0 || DeviceList == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: no devices given (NumDevices {}, DeviceList {})", __func__, NumDevices,
                        DeviceList == nullptr ? "null" : "not null");
  DGLINK_CHECK_NOT_NULL(Lengths, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(Binaries, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(RetProgram, PI_ERROR_INVALID_VALUE);
  std::vector<pi_device> Devices;
  DGLINK_TRY(selectDevices(__func__, NumDevices, DeviceList, Context->Devices, "context", Devices));
  ImageFormat Format = ImageFormat::Unknown;
  for (pi_uint32 I = 0; I < NumDevices; ++I) {
    if (Binaries[I] == nullptr || Lengths[I] == 0)
      return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: binary {} is {}", __func__, I,
                          Binaries[I] == nullptr ? "null" : "empty");
    const ImageFormat Detected = dglink::detectFormat(Binaries[I], Lengths[I]);
    if (I == 0)
      Format = Detected;
    else if (Detected != Format)
      return dglink::fail(PI_ERROR_INVALID_BINARY, "{}: binary {} is {} but binary 0 is {}",
                          __func__, I, formatLabel(Detected), formatLabel(Format));
  }
  if (Format == ImageFormat::SpirV && NumDevices != 1)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: a SPIR-V module is one binary for every device; got {}", __func__,
                        NumDevices);
  ImageMetadata Properties;
  DGLINK_TRY(dglink::readFlatMetadata(NumMetadataEntries, Metadata, Properties));
  return createProgram(__func__, Context, std::move(Devices), Format, Binaries, Lengths,
                       std::move(Properties), nullptr, nullptr, BinaryStatus, RetProgram);
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piextProgramCreateWithImage(pi_context Context, pi_uint32 NumDevices,
                                                    const pi_device *DeviceList,
                                                    const _pi_device_binary_struct *Image,
                                                    pi_program *RetProgram) try {
  DGLINK_OPENCL_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  DGLINK_CHECK_NOT_NULL(Image, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(RetProgram, PI_ERROR_INVALID_VALUE);
  std::vector<pi_device> Devices;
  DGLINK_TRY(selectDevices(__func__, NumDevices, DeviceList, Context->Devices, "context", Devices));
  if (Image->BinaryStart == nullptr || Image->BinaryEnd == nullptr ||
      Image->BinaryEnd <= Image->BinaryStart)
    return dglink::fail(PI_ERROR_INVALID_BINARY, "{}: the image's binary range is empty or invalid",
                        __func__);
  const size_t Length = static_cast<size_t>(Image->BinaryEnd - Image->BinaryStart);
  const ImageFormat Detected = dglink::detectFormat(Image->BinaryStart, Length);
  ImageFormat Format = Detected;
  switch (Image->Format) {
  case PI_DEVICE_BINARY_TYPE_SPIRV:
  case PI_DEVICE_BINARY_TYPE_LLVMIR_BITCODE: {
    const ImageFormat Declared = Image->Format == PI_DEVICE_BINARY_TYPE_SPIRV
                                     ? ImageFormat::SpirV
                                     : ImageFormat::LlvmBitcode;
    if (Detected != Declared)
      return dglink::fail(PI_ERROR_INVALID_BINARY, "{}: the image says {} but its bytes are {}",
                          __func__, formatLabel(Declared), formatLabel(Detected));
    Format = Declared;
    break;
  }
  case PI_DEVICE_BINARY_TYPE_NATIVE:
    // A driver's own binary: whatever its bytes look like, the driver decides.
    if (Format == ImageFormat::SpirV || Format == ImageFormat::LlvmBitcode)
      Format = ImageFormat::Unknown;
    break;
  case PI_DEVICE_BINARY_TYPE_NONE:
    break; // the bytes tell
  default:
    return dglink::fail(PI_ERROR_INVALID_BINARY, "{}: unknown image format {}", __func__,
                        static_cast<unsigned>(Image->Format));
  }
  DGLINK_TRY(checkTarget(__func__, Image->DeviceTargetSpec, Devices));
  ImageMetadata Properties;
  DGLINK_TRY(dglink::readImageMetadata(*Image, Properties));
  std::set<std::string> Entries;
  if ((Image->EntriesBegin == nullptr) != (Image->EntriesEnd == nullptr) ||
      Image->EntriesEnd < Image->EntriesBegin)
    return dglink::fail(PI_ERROR_INVALID_BINARY, "{}: the image's entry range is invalid",
                        __func__);
  for (const _pi_offload_entry_struct *Entry = Image->EntriesBegin; Entry != Image->EntriesEnd;
       ++Entry)
    if (Entry->name != nullptr)
      Entries.insert(Entry->name);
  // clCreateProgramWithBinary takes one binary per device; every device gets the image.
  std::vector<const unsigned char *> Binaries(Devices.size(), Image->BinaryStart);
  std::vector<size_t> Lengths(Devices.size(), Length);
  return createProgram(__func__, Context, std::move(Devices), Format, Binaries.data(),
                       Lengths.data(), std::move(Properties), Image->CompileOptions,
                       Image->LinkOptions, nullptr, RetProgram, std::move(Entries));
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piProgramCompile(pi_program Program, pi_uint32 NumDevices,
                                         const pi_device *DeviceList, const char *Options,
                                         pi_uint32 NumInputHeaders, const pi_program *InputHeaders,
                                         const char **HeaderIncludeNames,
                                         void (*PfnNotify)(pi_program Program, void *UserData),
                                         void *UserData) try {
  DGLINK_OPENCL_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  DGLINK_TRY(checkNotLinkFailure(__func__, Program));
  std::vector<pi_device> Devices;
  DGLINK_TRY(selectDevices(__func__, NumDevices, DeviceList, Program->Devices, "program", Devices));
  if ((NumInputHeaders == 0) != (InputHeaders == nullptr))
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: NumInputHeaders is {} but InputHeaders is {}",
                        __func__, NumInputHeaders, InputHeaders == nullptr ? "null" : "not null");
  if (NumInputHeaders != 0)
    return dglink::fail(PI_ERROR_INVALID_OPERATION,
                        "{}: input headers apply to OpenCL C source, and this adapter makes "
                        "programs only from SPIR-V, SPIR and native binaries",
                        __func__);
  DGLINK_TRY(checkLinkable(__func__, Program->Format, Devices));
  forgetBuild(Program);

  const std::vector<cl_device_id> Ids = clDevicesOf(Devices);
  const auto NumIds = static_cast<cl_uint>(Ids.size());
  cl_int Error;
  const char *ClFunction;
  std::string Used;
  if (Program->Format == ImageFormat::LlvmBitcode) {
    Used = joinOptions({SpirCompileOptions, optionString(Options), Program->ImageCompileOptions});
    ClFunction = "clBuildProgram";
    Error = clBuildProgram(Program->Program, NumIds, Ids.data(), Used.c_str(), nullptr, nullptr);
  } else {
    Used = joinOptions({optionString(Options), Program->ImageCompileOptions});
    ClFunction = "clCompileProgram";
    Error = clCompileProgram(Program->Program, NumIds, Ids.data(), Used.c_str(), 0, nullptr,
                             nullptr, nullptr, nullptr);
  }
  {
    std::lock_guard<std::mutex> Lock(Program->Mutex);
    Program->Options = Used;
  }
  notify(PfnNotify, Program, UserData);
  if (Error == CL_BUILD_PROGRAM_FAILURE || Error == CL_COMPILE_PROGRAM_FAILURE)
    return buildFailure(__func__, ClFunction, Error, PI_ERROR_COMPILE_PROGRAM_FAILURE, Program,
                        Devices);
  if (Error != CL_SUCCESS)
    return clFailure(Error, __func__, ClFunction);
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piProgramLink(pi_context Context, pi_uint32 NumDevices,
                                      const pi_device *DeviceList, const char *Options,
                                      pi_uint32 NumInputPrograms, const pi_program *InputPrograms,
                                      void (*PfnNotify)(pi_program Program, void *UserData),
                                      void *UserData, pi_program *RetProgram) try {
  DGLINK_OPENCL_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  std::vector<pi_device> Devices;
  DGLINK_TRY(selectDevices(__func__, NumDevices, DeviceList, Context->Devices, "context", Devices));
  if (NumInputPrograms == 0 || InputPrograms == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: no input programs (NumInputPrograms {}, InputPrograms {})", __func__,
                        NumInputPrograms, InputPrograms == nullptr ? "null" : "not null");
  DGLINK_CHECK_NOT_NULL(RetProgram, PI_ERROR_INVALID_VALUE);
  *RetProgram = nullptr;
  std::vector<pi_program> Inputs(InputPrograms, InputPrograms + NumInputPrograms);
  for (pi_uint32 I = 0; I < NumInputPrograms; ++I) {
    if (!dglink::ownedBy(Inputs[I], &DispatchTable))
      return dglink::fail(PI_ERROR_INVALID_PROGRAM, "{}: InputPrograms[{}] is {}", __func__, I,
                          Inputs[I] == nullptr ? "null" : "not a program of the OpenCL adapter");
    if (Inputs[I]->Context != Context)
      return dglink::fail(PI_ERROR_INVALID_PROGRAM,
                          "{}: InputPrograms[{}] belongs to another context", __func__, I);
    if (Inputs[I]->LinkFailed)
      return dglink::fail(PI_ERROR_INVALID_PROGRAM,
                          "{}: InputPrograms[{}] is the result of a failed link", __func__, I);
  }
  const ImageFormat Format = Inputs[0]->Format;
  for (pi_uint32 I = 1; I < NumInputPrograms; ++I)
    if (piFormat(Inputs[I]->Format) != piFormat(Format))
      return dglink::fail(PI_ERROR_INVALID_OPERATION,
                          "{}: cannot link {} (input 0) with {} (input {}): formats differ",
                          __func__, formatLabel(Format), formatLabel(Inputs[I]->Format), I);
  DGLINK_TRY(checkLinkable(__func__, Format, Devices));
  for (pi_uint32 I = 0; I < NumInputPrograms; ++I)
    for (pi_device Device : Devices) {
      const cl_program_binary_type Type = binaryType(Inputs[I], Device);
      if (Type != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT && Type != CL_PROGRAM_BINARY_TYPE_LIBRARY)
        return dglink::fail(PI_ERROR_INVALID_OPERATION,
                            "{}: InputPrograms[{}] is {} for device '{}'; compile it with "
                            "piProgramCompile first",
                            __func__, I, binaryTypeName(Type), Device->Name);
    }

  // The result always carries the inputs' metadata, also when it only reports a failure.
  auto Linked = newProgram(Context, Devices, Format, mergeMetadata(Inputs));
  {
    std::vector<const ImageMetadata *> Tables;
    for (pi_program Input : Inputs)
      Tables.push_back(&Input->Metadata);
    std::optional<dglink::LoweredStorage> Storage;
    if (const pi_result Result = dglink::mergeLoweredStorage(Tables, Storage);
        Result != PI_SUCCESS) {
      const std::string Message = dglink::lastErrorMessage();
      if (Result != PI_ERROR_LINK_PROGRAM_FAILURE)
        return dglink::fail(Result, "{}: {}", __func__, Message);
      Linked->LinkFailed = true;
      Linked->AdapterLog = "error: " + Message + "\n";
      pi_program Failed = publish(std::move(Linked));
      *RetProgram = Failed;
      notify(PfnNotify, Failed, UserData);
      return dglink::fail(PI_ERROR_LINK_PROGRAM_FAILURE, "{}: link failed: {}", __func__, Message);
    }
    // Which kernels take the storage: those the lowered inputs list. An input that
    // could not list them (a flat binary) makes it all kernels, which is right only when
    // every input was lowered.
    bool AnyAll = false, AnyNotLowered = false;
    for (pi_program Input : Inputs) {
      AnyAll = AnyAll || (Input->Metadata.Lowered && Input->AllKernelsLowered);
      AnyNotLowered = AnyNotLowered || !Input->Metadata.Lowered;
    }
    if (Storage && AnyAll && AnyNotLowered)
      return dglink::fail(PI_ERROR_INVALID_OPERATION,
                          "{}: a lowered input without a kernel list (made with "
                          "piProgramCreateWithBinary) cannot link with inputs that were not "
                          "lowered: which kernels take the device-global storage is unknown",
                          __func__);
    Linked->Metadata.Lowered = std::move(Storage);
    Linked->AllKernelsLowered = Linked->Metadata.Lowered && AnyAll;
    for (pi_program Input : Inputs)
      if (Input->Metadata.Lowered)
        Linked->LoweredKernels.insert(Input->LoweredKernels.begin(), Input->LoweredKernels.end());
  }
  std::string LinkOptions = optionString(Options);
  for (pi_program Input : Inputs)
    if (!Input->ImageLinkOptions.empty() &&
        LinkOptions.find(Input->ImageLinkOptions) == std::string::npos)
      LinkOptions = joinOptions({LinkOptions, Input->ImageLinkOptions});
  Linked->Options = LinkOptions;

  // dglink checks the symbol tables first, so the log names the symbols on every driver
  // (PoCL 3.1 fails an unresolved link with no log at all).
  std::vector<const ImageMetadata *> Tables;
  for (pi_program Input : Inputs)
    Tables.push_back(&Input->Metadata);
  const dglink::LinkProblems Problems = dglink::resolveImports(Tables);
  if (!Problems.ok()) {
    Linked->LinkFailed = true;
    Linked->AdapterLog = Problems.describe();
    pi_program Result = publish(std::move(Linked));
    *RetProgram = Result;
    notify(PfnNotify, Result, UserData);
    return dglink::fail(PI_ERROR_LINK_PROGRAM_FAILURE, "{}: link failed:\n{}", __func__,
                        Problems.describe());
  }

  std::vector<cl_program> ClInputs;
  for (pi_program Input : Inputs)
    ClInputs.push_back(Input->Program);
  const std::vector<cl_device_id> Ids = clDevicesOf(Devices);
  cl_int Error = CL_SUCCESS;
  cl_program ClLinked = clLinkProgram(
      Context->Context, static_cast<cl_uint>(Ids.size()), Ids.data(), LinkOptions.c_str(),
      static_cast<cl_uint>(ClInputs.size()), ClInputs.data(), nullptr, nullptr, &Error);
  if (Error != CL_SUCCESS && Error != CL_LINK_PROGRAM_FAILURE) {
    // Argument errors (options, resources) are the caller's to fix; no program results.
    if (ClLinked != nullptr)
      clReleaseProgram(ClLinked);
    return clFailure(Error, __func__, "clLinkProgram");
  }
  Linked->Program = ClLinked;
  if (Error == CL_LINK_PROGRAM_FAILURE || ClLinked == nullptr) {
    Linked->LinkFailed = true;
    std::string DriverLog;
    for (pi_device Device : Devices)
      DriverLog += driverLog(ClLinked, Device->Device);
    Linked->AdapterLog =
        fmt::format("error: clLinkProgram failed with {} ({}){}\n", clErrorName(Error), Error,
                    DriverLog.empty() ? "; the driver gave no build log" : "");
    pi_program Result = publish(std::move(Linked));
    *RetProgram = Result;
    notify(PfnNotify, Result, UserData);
    return dglink::fail(PI_ERROR_LINK_PROGRAM_FAILURE,
                        "{}: clLinkProgram failed with {} ({}); build log: {}", __func__,
                        clErrorName(Error), Error, DriverLog.empty() ? "(empty)" : DriverLog);
  }
  pi_program Result = publish(std::move(Linked));
  *RetProgram = Result;
  notify(PfnNotify, Result, UserData);
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piProgramBuild(pi_program Program, pi_uint32 NumDevices,
                                       const pi_device *DeviceList, const char *Options,
                                       void (*PfnNotify)(pi_program Program, void *UserData),
                                       void *UserData) try {
  DGLINK_OPENCL_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  DGLINK_TRY(checkNotLinkFailure(__func__, Program));
  std::vector<pi_device> Devices;
  DGLINK_TRY(selectDevices(__func__, NumDevices, DeviceList, Program->Devices, "program", Devices));
  const std::string Used =
      joinOptions({Program->Format == ImageFormat::LlvmBitcode ? SpirBuildOption : "",
                   optionString(Options), Program->ImageCompileOptions, Program->ImageLinkOptions});
  const std::vector<cl_device_id> Ids = clDevicesOf(Devices);
  forgetBuild(Program);
  cl_int Error = clBuildProgram(Program->Program, static_cast<cl_uint>(Ids.size()), Ids.data(),
                                Used.c_str(), nullptr, nullptr);
  {
    std::lock_guard<std::mutex> Lock(Program->Mutex);
    Program->Options = Used;
  }
  notify(PfnNotify, Program, UserData);
  if (Error == CL_BUILD_PROGRAM_FAILURE)
    return buildFailure(__func__, "clBuildProgram", Error, PI_ERROR_BUILD_PROGRAM_FAILURE, Program,
                        Devices);
  if (Error != CL_SUCCESS)
    return clFailure(Error, __func__, "clBuildProgram");
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piProgramGetInfo(pi_program Program, pi_program_info ParamName,
                                         size_t ParamValueSize, void *ParamValue,
                                         size_t *ParamValueSizeRet) try {
  DGLINK_OPENCL_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  using dglink::returnInfo;
  switch (ParamName) {
  case PI_PROGRAM_INFO_REFERENCE_COUNT:
    return returnInfo(Program->RefCount.load(), ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_PROGRAM_INFO_CONTEXT:
    return returnInfo(Program->Context, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_PROGRAM_INFO_NUM_DEVICES:
    return returnInfo(static_cast<pi_uint32>(Program->Devices.size()), ParamValueSize, ParamValue,
                      ParamValueSizeRet);
  case PI_PROGRAM_INFO_DEVICES:
    return dglink::returnInfoArray(Program->Devices, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_EXT_PROGRAM_INFO_FORMAT:
    return returnInfo(piFormat(Program->Format), ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_PROGRAM_INFO_BINARY_SIZES:
  case PI_PROGRAM_INFO_BINARIES:
    if (Program->Program == nullptr) {
      // A failed link has no binaries: sizes are 0 and nothing is written.
      if (ParamName == PI_PROGRAM_INFO_BINARY_SIZES)
        return dglink::returnInfoArray(std::vector<size_t>(Program->Devices.size(), 0),
                                       ParamValueSize, ParamValue, ParamValueSizeRet);
      const size_t Needed = Program->Devices.size() * sizeof(unsigned char *);
      if (ParamValue != nullptr && ParamValueSize < Needed)
        return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: {} bytes needed, {} given", __func__,
                            Needed, ParamValueSize);
      if (ParamValueSizeRet != nullptr)
        *ParamValueSizeRet = Needed;
      return PI_SUCCESS;
    }
    break;
  case PI_PROGRAM_INFO_NUM_KERNELS:
  case PI_PROGRAM_INFO_KERNEL_NAMES:
    if (Program->Program == nullptr || Program->LinkFailed)
      return dglink::fail(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
                          "{}: {} failed to link and has no kernels", __func__,
                          programLabel(Program));
    break;
  default:
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: unknown ParamName 0x{:x}", __func__,
                        static_cast<unsigned>(ParamName));
  }
  // The remaining queries have OpenCL's values and layouts (size_t counts and sizes, a
  // ';'-separated string of kernel names, caller-provided binary buffers).
  const auto ClParam = static_cast<cl_program_info>(ParamName);
  cl_int Error =
      clGetProgramInfo(Program->Program, ClParam, ParamValueSize, ParamValue, ParamValueSizeRet);
  if (Error != CL_SUCCESS)
    return clFailure(Error, __func__, "clGetProgramInfo");
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piProgramGetBuildInfo(pi_program Program, pi_device Device,
                                              pi_program_build_info ParamName,
                                              size_t ParamValueSize, void *ParamValue,
                                              size_t *ParamValueSizeRet) try {
  DGLINK_OPENCL_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  DGLINK_OPENCL_CHECK_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  if (!Program->hasDevice(Device))
    return dglink::fail(PI_ERROR_INVALID_DEVICE, "{}: device '{}' is not a device of {}", __func__,
                        Device->Name, programLabel(Program));
  using dglink::returnInfo;
  switch (ParamName) {
  case PI_PROGRAM_BUILD_INFO_STATUS: {
    if (Program->LinkFailed)
      return returnInfo(PI_PROGRAM_BUILD_STATUS_ERROR, ParamValueSize, ParamValue,
                        ParamValueSizeRet);
    cl_build_status Status = CL_BUILD_NONE;
    cl_int Error = clGetProgramBuildInfo(Program->Program, Device->Device, CL_PROGRAM_BUILD_STATUS,
                                         sizeof(Status), &Status, nullptr);
    if (Error != CL_SUCCESS)
      return clFailure(Error, __func__, "clGetProgramBuildInfo");
    // cl_build_status and pi_program_build_status share their values.
    return returnInfo(static_cast<pi_program_build_status>(Status), ParamValueSize, ParamValue,
                      ParamValueSizeRet);
  }
  case PI_PROGRAM_BUILD_INFO_OPTIONS: {
    std::lock_guard<std::mutex> Lock(Program->Mutex);
    return dglink::returnInfoString(Program->Options, ParamValueSize, ParamValue,
                                    ParamValueSizeRet);
  }
  case PI_PROGRAM_BUILD_INFO_LOG: {
    std::string Log = driverLog(Program->Program, Device->Device);
    {
      std::lock_guard<std::mutex> Lock(Program->Mutex);
      if (!Program->AdapterLog.empty()) {
        if (!Log.empty() && Log.back() != '\n')
          Log += '\n';
        Log += Program->AdapterLog;
      }
    }
    return dglink::returnInfoString(Log, ParamValueSize, ParamValue, ParamValueSizeRet);
  }
  case PI_PROGRAM_BUILD_INFO_BINARY_TYPE:
    return returnInfo(static_cast<pi_program_binary_type>(binaryType(Program, Device)),
                      ParamValueSize, ParamValue, ParamValueSizeRet);
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: unknown ParamName 0x{:x}", __func__,
                      static_cast<unsigned>(ParamName));
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piProgramRetain(pi_program Program) try {
  DGLINK_OPENCL_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  ++Program->RefCount;
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piProgramRelease(pi_program Program) try {
  DGLINK_OPENCL_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  releaseReference(Program);
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

} // extern "C"
