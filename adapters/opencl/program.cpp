// Programs: SPIR-V (given to the driver, or translated into SPIR bitcode where the
// driver takes no IL), SPIR bitcode and native binaries made into OpenCL programs,
// built, compiled (SPIR: built into a library, as PoCL wants) and linked by the
// driver, with the storage layout of lowered images merged by the link.
#include "backend.h"

#include <dglink/device_code/spirv_module.h>
#include <dglink/device_code/translate.h>
#include <dglink/support/device_code.h>
#include <dglink/support/link.h>

#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string_view>

namespace dglink::opencl {
namespace {

// PoCL compiles SPIR bitcode only through clBuildProgram with "-x spir"; clCompileProgram
// refuses it (CL_INVALID_OPERATION), so separate compilation is a build into a library.
constexpr const char *SpirBuildOption = "-x spir";
constexpr const char *SpirCompileOptions = "-x spir -create-library";

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

ImageFormat imageFormat(pi_device_binary_format Format) {
  switch (Format) {
  case PI_DEVICE_BINARY_TYPE_SPIRV:
    return ImageFormat::SpirV;
  case PI_DEVICE_BINARY_TYPE_LLVMIR_BITCODE:
    return ImageFormat::LlvmBitcode;
  default:
    return ImageFormat::Unknown;
  }
}

// The link-format name of an image format (dglink/support/device_code.h); null where
// this adapter never links the format (native binaries).
const char *linkFormatOf(ImageFormat Format) {
  const DeviceCode Code = deviceCodeOf(Format);
  return Code == DeviceCode::Spir || Code == DeviceCode::SpirV ? deviceCodeName(Code) : nullptr;
}

// Adds Part to Options unless it is empty or there already (a rebuild keeps its options).
void appendOption(std::string &Options, const std::string &Part) {
  if (Part.empty() || Options.find(Part) != std::string::npos)
    return;
  Options += (Options.empty() ? "" : " ") + Part;
}

// An image compiled for OpenCL C 2.0 (program-scope variables, generic pointers) asks
// for -cl-std=CL2.0; devices of OpenCL 3.0 that list OpenCL C 3.0 but not 2.0 refuse that
// option, and take the same features as OpenCL C 3.0.
void adaptClStd(std::string &Options, const std::vector<_pi_device *> &Devices) {
  static const std::string From = "-cl-std=CL2.0";
  const size_t At = Options.find(From);
  if (At == std::string::npos || Devices.empty())
    return;
  for (const _pi_device *Device : Devices)
    if (!clDevice(*Device).OpenClC30Not20)
      return;
  Options.replace(At, From.size(), "-cl-std=CL3.0");
}

std::vector<cl_device_id> clDevicesOf(const std::vector<_pi_device *> &Devices) {
  std::vector<cl_device_id> Ids;
  Ids.reserve(Devices.size());
  for (const _pi_device *Device : Devices)
    Ids.push_back(clDevice(*Device).Device);
  return Ids;
}

// Whether every device can load programs of this format at all (SPIR-V: spirvIntake).
pi_result checkConsumable(const char *Function, ImageFormat Format,
                          const std::vector<_pi_device *> &Devices) {
  for (const _pi_device *Device : Devices)
    if (Format == ImageFormat::LlvmBitcode && !clDevice(*Device).ConsumesSpir)
      return fail(PI_ERROR_INVALID_OPERATION,
                  "{}: device '{}' does not consume SPIR (LLVM bitcode): no cl_khr_spir", Function,
                  Device->Description.Name);
  return PI_SUCCESS;
}

// Whether a program for Devices reaches device globals through storage the adapter
// owns (a device without cl_intel_global_variable_access): SPIR-V that carries mutable
// program-scope variables is then lowered here, as the shim lowers its images.
bool lowersDeviceGlobals(const std::vector<_pi_device *> &Devices) {
  return std::any_of(Devices.begin(), Devices.end(), [](const _pi_device *Device) {
    return Device->Description.DeviceGlobal == PI_DEVICE_GLOBAL_MECHANISM_LOWERED;
  });
}

// A SPIR-V module (which the core has checked) for Devices: given to the driver as it is
// where every device takes SPIR-V (Translated stays null), else translated once into what
// every device takes instead: SPIR bitcode (cl_khr_spir) or PTX (NVIDIA's OpenCL)
// (common/device_code; later programs of the same module reuse the translation). Where the
// devices reach device globals only through the adapter's storage, the module's variables
// are lowered on the way (Lowered says where they went, or why they stayed); SPIR-V
// devices then get the lowered module as SPIR-V. To is the form the driver gets.
pi_result spirvIntake(const char *Function, const core::ProgramSource &Source,
                      const std::vector<_pi_device *> &Devices, device_code::Bytes &Translated,
                      device_code::LoweredTranslation &Lowered, DeviceCode &To) {
  bool AllTakeSpirV = true, AllTakeSpir = true, AllTakePtx = true;
  for (const _pi_device *Device : Devices) {
    AllTakeSpirV = AllTakeSpirV && clDevice(*Device).ConsumesSpirV;
    AllTakeSpir = AllTakeSpir && clDevice(*Device).ConsumesSpir;
    AllTakePtx = AllTakePtx && clDevice(*Device).ConsumesPtx;
  }
  // Only a module with variables of the global address space has anything to lower.
  const bool Lower = lowersDeviceGlobals(Devices) &&
                     device_code::spirvHasGlobalVariables(Source.Data, Source.Size);
  To = DeviceCode::SpirV;
  if (AllTakeSpirV && !Lower)
    return PI_SUCCESS;
  if (AllTakeSpirV) {
    // Where the LLVM side is missing (a host without LLVM), the driver still takes the
    // module; its device globals stay out of reach, and the copies say why.
    std::string Why;
    if (!device_code::translatorAvailable(Why)) {
      Lowered.NotLowered = "the SPIR-V translator cannot be loaded to lower them: " + Why;
      return PI_SUCCESS;
    }
    DGLINK_TRY(device_code::translateSpirvLowered(Function, Source.Data, Source.Size,
                                                  DeviceCode::SpirV, Lowered));
    // Nothing lowered: the driver takes the caller's module as it is.
    if (Lowered.Lowered)
      Translated = Lowered.Code;
    return PI_SUCCESS;
  }
  for (const _pi_device *Device : Devices) {
    const ClDevice &Cl = clDevice(*Device);
    if (!Cl.ConsumesSpirV && !Cl.ConsumesSpir && !Cl.ConsumesPtx)
      return fail(PI_ERROR_INVALID_OPERATION,
                  "{}: device '{}' does not consume SPIR-V (CL_DEVICE_IL_VERSION is '{}') and "
                  "SPIR-V is translated only into SPIR bitcode (cl_khr_spir) and NVIDIA's PTX, "
                  "which it does not consume either (it builds: '{}')",
                  Function, Device->Description.Name, Device->Description.IlVersion,
                  Device->Description.ImageFormats);
  }
  if (!AllTakeSpir && !AllTakePtx)
    return fail(PI_ERROR_INVALID_OPERATION,
                "{}: the devices of the context take SPIR-V in different forms (as SPIR-V, as "
                "SPIR bitcode, as PTX); create the program for one kind of device",
                Function);
  // SPIR bitcode where every device takes it, else NVIDIA's PTX.
  To = AllTakeSpir ? DeviceCode::Spir : DeviceCode::Ptx;
  if (!Lower)
    return device_code::translateSpirv(Function, Source.Data, Source.Size, To, Translated);
  DGLINK_TRY(device_code::translateSpirvLowered(Function, Source.Data, Source.Size, To, Lowered));
  Translated = Lowered.Code;
  return PI_SUCCESS;
}

// Whether every device can run code of the image's target: a native image for another
// vendor's hardware (PTX on a CPU, say) is refused before the driver sees its bytes, so
// that the answer is the same on every driver.
pi_result checkTarget(const char *Function, const char *Target,
                      const std::vector<_pi_device *> &Devices) {
  if (Target == nullptr)
    return PI_SUCCESS;
  const std::string_view Spec = Target;
  const char *Vendor = Spec == PI_DEVICE_BINARY_TARGET_NVPTX64  ? "NVIDIA"
                       : Spec == PI_DEVICE_BINARY_TARGET_AMDGCN ? "Advanced Micro Devices"
                                                                : nullptr;
  if (Vendor == nullptr)
    return PI_SUCCESS;
  for (const _pi_device *Device : Devices)
    if (Device->Platform->Description.Vendor.find(Vendor) == std::string::npos)
      return fail(PI_ERROR_INVALID_OPERATION,
                  "{}: the image is for target {}, which device '{}' of platform '{}' cannot "
                  "consume",
                  Function, Spec, Device->Description.Name, Device->Platform->Description.Name);
  return PI_SUCCESS;
}

// Whether every device links programs of this format (the advertised link formats).
pi_result checkLinkable(const char *Function, ImageFormat Format,
                        const std::vector<_pi_device *> &Devices) {
  const char *LinkFormat = linkFormatOf(Format);
  for (const _pi_device *Device : Devices)
    if (LinkFormat == nullptr || !clDevice(*Device).canLink(LinkFormat))
      return fail(PI_ERROR_INVALID_OPERATION,
                  "{}: {} programs cannot be compiled separately and linked on device '{}' "
                  "(it links: '{}')",
                  Function, formatLabel(Format), Device->Description.Name,
                  Device->Description.LinkFormats);
  return PI_SUCCESS;
}

// The driver's build logs of Program, for every device that has one.
std::string driverLog(cl_program Program, const std::vector<_pi_device *> &Devices) {
  std::string Logs;
  for (const _pi_device *Device : Devices) {
    const cl_device_id Id = clDevice(*Device).Device;
    size_t Size = 0;
    if (Program == nullptr ||
        clGetProgramBuildInfo(Program, Id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &Size) != CL_SUCCESS ||
        Size == 0)
      continue;
    std::string Log(Size, '\0');
    if (clGetProgramBuildInfo(Program, Id, CL_PROGRAM_BUILD_LOG, Size, Log.data(), nullptr) !=
        CL_SUCCESS)
      continue;
    Log.resize(std::strlen(Log.c_str()));
    if (!Log.empty() && !Logs.empty() && Logs.back() != '\n')
      Logs += '\n';
    Logs += Log;
  }
  return Logs;
}

// A driver's failed build or compile: its log into Log, and a message that carries it.
pi_result buildFailure(const char *Function, const char *ClFunction, cl_int Error, pi_result Code,
                       const std::string &DriverLog) {
  std::string Shown = DriverLog;
  if (Shown.size() > 2000)
    Shown = Shown.substr(0, 2000) + "...";
  return fail(Code, "{}: {} failed with {} ({}); build log: {}", Function, ClFunction,
              clErrorName(Error), Error, Shown.empty() ? "(empty)" : Shown);
}

// The kernels an executable holds, as the driver lists them.
std::vector<std::string> kernelNamesOf(cl_program Program) {
  size_t Size = 0;
  if (clGetProgramInfo(Program, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &Size) != CL_SUCCESS ||
      Size == 0)
    return {};
  std::string Names(Size, '\0');
  if (clGetProgramInfo(Program, CL_PROGRAM_KERNEL_NAMES, Size, Names.data(), nullptr) != CL_SUCCESS)
    return {};
  Names.resize(std::strlen(Names.c_str()));
  std::vector<std::string> Split;
  size_t Start = 0;
  while (Start < Names.size()) {
    const size_t End = std::min(Names.find(';', Start), Names.size());
    if (End > Start)
      Split.push_back(Names.substr(Start, End - Start));
    Start = End + 1;
  }
  return Split;
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
    return "not compiled";
  }
}

// The format of the bytes a program is made from, checked against what the caller
// declared; the errors name Function.
pi_result sourceFormat(const char *Function, const core::ProgramSource &Source,
                       ImageFormat &Format) {
  switch (Source.From) {
  case core::ProgramSource::Origin::IL:
    Format = detectFormat(Source.Data, Source.Size);
    if (Format != ImageFormat::SpirV)
      return fail(PI_ERROR_INVALID_BINARY, "{}: the {} bytes at IL are not a SPIR-V module",
                  Function, Source.Size);
    return PI_SUCCESS;
  case core::ProgramSource::Origin::Binary:
    for (pi_uint32 I = 0; I < Source.NumBinaries; ++I) {
      const ImageFormat Detected = detectFormat(Source.Binaries[I], Source.Lengths[I]);
      if (I == 0)
        Format = Detected;
      else if (Detected != Format)
        return fail(PI_ERROR_INVALID_BINARY, "{}: binary {} is {} but binary 0 is {}", Function, I,
                    formatLabel(Detected), formatLabel(Format));
    }
    if (Format == ImageFormat::SpirV && Source.NumBinaries != 1)
      return fail(PI_ERROR_INVALID_VALUE,
                  "{}: a SPIR-V module is one binary for every device; got {}", Function,
                  Source.NumBinaries);
    return PI_SUCCESS;
  case core::ProgramSource::Origin::Image:
    break;
  }
  if (Source.Size == 0)
    return fail(PI_ERROR_INVALID_BINARY, "{}: the image's binary range is empty or invalid",
                Function);
  const ImageFormat Detected = detectFormat(Source.Data, Source.Size);
  Format = Detected;
  switch (Source.DeclaredFormat) {
  case PI_DEVICE_BINARY_TYPE_SPIRV:
  case PI_DEVICE_BINARY_TYPE_LLVMIR_BITCODE:
    Format = imageFormat(Source.DeclaredFormat);
    if (Detected != Format)
      return fail(PI_ERROR_INVALID_BINARY, "{}: the image says {} but its bytes are {}", Function,
                  formatLabel(Format), formatLabel(Detected));
    return PI_SUCCESS;
  case PI_DEVICE_BINARY_TYPE_NATIVE:
    // A driver's own binary: whatever its bytes look like, the driver decides.
    if (Format == ImageFormat::SpirV || Format == ImageFormat::LlvmBitcode)
      Format = ImageFormat::Unknown;
    return PI_SUCCESS;
  case PI_DEVICE_BINARY_TYPE_NONE:
    return PI_SUCCESS; // the bytes tell
  }
  return fail(PI_ERROR_INVALID_BINARY, "{}: unknown image format {}", Function,
              static_cast<unsigned>(Source.DeclaredFormat));
}

// The kernels an image lists, which are the ones that take the lowered storage.
pi_result imageEntries(const char *Function, const _pi_device_binary_struct &Image,
                       std::set<std::string> &Entries) {
  if ((Image.EntriesBegin == nullptr) != (Image.EntriesEnd == nullptr) ||
      Image.EntriesEnd < Image.EntriesBegin)
    return fail(PI_ERROR_INVALID_BINARY, "{}: the image's entry range is invalid", Function);
  for (const _pi_offload_entry_struct *Entry = Image.EntriesBegin; Entry != Image.EntriesEnd;
       ++Entry)
    if (Entry->name != nullptr)
      Entries.insert(Entry->name);
  return PI_SUCCESS;
}

} // namespace

pi_result ClContext::adoptProgram(const char *Function, uintptr_t Native, bool Owned,
                                  _pi_program &Program) {
  auto *NativeProgram = reinterpret_cast<cl_program>(Native);
  cl_context Of = nullptr;
  cl_uint Count = 0;
  cl_int Error = clGetProgramInfo(NativeProgram, CL_PROGRAM_CONTEXT,
                                  sizeof(cl_context), // NOLINT(bugprone-sizeof-expression)
                                  &Of, nullptr);
  if (Error == CL_SUCCESS)
    Error = clGetProgramInfo(NativeProgram, CL_PROGRAM_NUM_DEVICES, sizeof(Count), &Count, nullptr);
  if (Error != CL_SUCCESS)
    return fail(PI_ERROR_INVALID_VALUE,
                "{}: native handle {:#x} is no OpenCL program (clGetProgramInfo: {})", Function,
                Native, clErrorName(Error));
  if (Of != Context)
    return fail(PI_ERROR_INVALID_CONTEXT,
                "{}: the program belongs to another OpenCL context than the context's", Function);
  std::vector<cl_device_id> Ids(Count);
  Error = clGetProgramInfo(NativeProgram, CL_PROGRAM_DEVICES, Count * sizeof(cl_device_id),
                           Ids.data(), nullptr);
  if (Error != CL_SUCCESS)
    return clFailure(Error, Function, "clGetProgramInfo");
  // Built for every device it was made for: an executable; compiled for every one: an
  // object a link takes; otherwise a program to build.
  bool Built = Count != 0, Compiled = Count != 0;
  for (cl_device_id Id : Ids) {
    _pi_device *Device = nullptr;
    for (_pi_device *Each : Owner.Devices)
      if (clDevice(*Each).Device == Id)
        Device = Each;
    if (Device == nullptr)
      return fail(PI_ERROR_INVALID_DEVICE,
                  "{}: the program is made for a device that is not in the context", Function);
    Program.Devices.push_back(Device);
    cl_build_status Status = CL_BUILD_NONE;
    cl_program_binary_type Type = CL_PROGRAM_BINARY_TYPE_NONE;
    Error = clGetProgramBuildInfo(NativeProgram, Id, CL_PROGRAM_BUILD_STATUS, sizeof(Status),
                                  &Status, nullptr);
    if (Error == CL_SUCCESS)
      Error = clGetProgramBuildInfo(NativeProgram, Id, CL_PROGRAM_BINARY_TYPE, sizeof(Type), &Type,
                                    nullptr);
    if (Error != CL_SUCCESS)
      return clFailure(Error, Function, "clGetProgramBuildInfo");
    Built = Built && Status == CL_BUILD_SUCCESS && Type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
    Compiled =
        Compiled && Status == CL_BUILD_SUCCESS && Type == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
  }
  if (!Owned) {
    Error = clRetainProgram(NativeProgram);
    if (Error != CL_SUCCESS)
      return clFailure(Error, Function, "clRetainProgram");
  }
  Program.Impl = std::make_unique<ClProgram>(*this, NativeProgram); // releases it
  if (Built) {
    Program.BinaryType = PI_PROGRAM_BINARY_TYPE_EXECUTABLE;
    Program.KernelNames = kernelNamesOf(NativeProgram);
  } else if (Compiled) {
    Program.BinaryType = PI_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
  }
  return PI_SUCCESS;
}

pi_result ClContext::createProgram(const char *Function, const core::ProgramSource &Source,
                                   _pi_program &Program) {
  ImageFormat Format = ImageFormat::Unknown;
  DGLINK_TRY(sourceFormat(Function, Source, Format));
  // clCreateProgramWithIL makes a program for every device of the context.
  if (Format == ImageFormat::SpirV)
    Program.Devices = Owner.Devices;
  DGLINK_TRY(checkTarget(Function, Source.Target, Program.Devices));
  DGLINK_TRY(checkConsumable(Function, Format, Program.Devices));
  device_code::Bytes Translated;
  device_code::LoweredTranslation Lowered;
  DeviceCode TranslatedTo = DeviceCode::SpirV;
  if (Format == ImageFormat::SpirV)
    DGLINK_TRY(spirvIntake(Function, Source, Program.Devices, Translated, Lowered, TranslatedTo));
  std::set<std::string> Entries;
  if (Source.Image != nullptr)
    DGLINK_TRY(imageEntries(Function, *Source.Image, Entries));

  // What the driver is given: the caller's bytes, or SPIR-V made into SPIR bitcode or PTX,
  // or SPIR-V whose device globals were lowered (still SPIR-V where the devices take it).
  const ImageFormat DriverFormat = Translated == nullptr               ? Format
                                   : TranslatedTo == DeviceCode::SpirV ? ImageFormat::SpirV
                                   : TranslatedTo == DeviceCode::Ptx   ? ImageFormat::Ptx
                                                                       : ImageFormat::LlvmBitcode;
  auto Impl = std::make_unique<ClProgram>(*this, nullptr);
  cl_int Error = CL_SUCCESS;
  if (DriverFormat == ImageFormat::SpirV) {
    const unsigned char *Il = Translated ? Translated->data() : Source.Data;
    const size_t IlSize = Translated ? Translated->size() : Source.Size;
    Impl->Program = clCreateProgramWithIL(Context, Il, IlSize, &Error);
    if (Error != CL_SUCCESS)
      return clFailure(Error, Function, "clCreateProgramWithIL");
  } else {
    // One binary per device: the caller's where it gave one for each, else the image
    // (or its translation).
    const std::vector<cl_device_id> Ids = clDevicesOf(Program.Devices);
    const unsigned char *Data = Translated ? Translated->data() : Source.Data;
    const size_t Size = Translated ? Translated->size() : Source.Size;
    std::vector<const unsigned char *> Binaries(Ids.size(), Data);
    std::vector<size_t> Lengths(Ids.size(), Size);
    if (Source.NumBinaries == Ids.size() && Translated == nullptr) {
      Binaries.assign(Source.Binaries, Source.Binaries + Ids.size());
      Lengths.assign(Source.Lengths, Source.Lengths + Ids.size());
    }
    Impl->Program = clCreateProgramWithBinary(Context, static_cast<cl_uint>(Ids.size()), Ids.data(),
                                              Lengths.data(), Binaries.data(), nullptr, &Error);
    if (Error != CL_SUCCESS)
      return clFailure(Error, Function, "clCreateProgramWithBinary");
  }
  if (Source.Image != nullptr) {
    Impl->ImageCompileOptions = Source.Image->CompileOptions ? Source.Image->CompileOptions : "";
    Impl->ImageLinkOptions = Source.Image->LinkOptions ? Source.Image->LinkOptions : "";
    Impl->LoweredKernels = std::move(Entries);
  } else {
    // A flat binary lists no kernels: where its metadata says it was lowered, all of
    // its kernels take the storage.
    Impl->AllKernelsLowered = true;
  }
  if (Lowered.Lowered) {
    // Every kernel of the module took the storage argument.
    Impl->OwnLowering = std::move(Lowered.Lowered);
    Impl->AllKernelsLowered = true;
  }
  Impl->NotLowered = std::move(Lowered.NotLowered);
  Impl->Format = Format;
  Impl->DriverFormat = DriverFormat;
  Program.Format = piFormat(Format);
  // OpenCL links by format: the target is the format's link-format name.
  if (const char *LinkFormat = linkFormatOf(Format))
    Program.Target = LinkFormat;
  Program.Impl = std::move(Impl);
  return PI_SUCCESS;
}

ClProgram::~ClProgram() {
  for (const auto &Each : Storage)
    if (Each.second->Svm != nullptr)
      Context.removeStorageAllocation(Each.second->Svm);
  Storage.clear();
  NamedGlobals.clear();
  if (Program != nullptr)
    clReleaseProgram(Program);
}

pi_result ClProgram::completeMetadata(const char *Function, ImageMetadata &Metadata) {
  if (!OwnLowering)
    return PI_SUCCESS;
  // An image lowered by the shim has no program-scope variables left to lower.
  if (Metadata.Lowered)
    return fail(PI_ERROR_INVALID_BINARY,
                "{}: the image says its device globals were lowered (DGLINK/ property sets) but "
                "its module still defines mutable program-scope variables",
                Function);
  Metadata.Lowered = std::move(OwnLowering);
  OwnLowering.reset();
  return PI_SUCCESS;
}

bool ClProgram::takesStorage(const _pi_program &Owner, const std::string &Name) const {
  return Owner.Metadata.Lowered && (AllKernelsLowered || LoweredKernels.count(Name) != 0);
}

pi_result ClProgram::build(_pi_program &Owner, const std::string &Options, std::string &Log) {
  std::string Used = DriverFormat == ImageFormat::LlvmBitcode ? SpirBuildOption : "";
  appendOption(Used, Options);
  appendOption(Used, ImageCompileOptions);
  appendOption(Used, ImageLinkOptions);
  adaptClStd(Used, Owner.Devices);
  const std::vector<cl_device_id> Ids = clDevicesOf(Owner.Devices);
  const cl_int Error = clBuildProgram(Program, static_cast<cl_uint>(Ids.size()), Ids.data(),
                                      Used.c_str(), nullptr, nullptr);
  Owner.Options = Used;
  Log = driverLog(Program, Owner.Devices);
  if (Error == CL_BUILD_PROGRAM_FAILURE)
    return buildFailure("piProgramBuild", "clBuildProgram", Error, PI_ERROR_BUILD_PROGRAM_FAILURE,
                        Log);
  if (Error != CL_SUCCESS)
    return clFailure(Error, "piProgramBuild", "clBuildProgram");
  Owner.KernelNames = kernelNamesOf(Program);
  return PI_SUCCESS;
}

pi_result ClProgram::compile(_pi_program &Owner, const std::string &Options, std::string &Log) {
  DGLINK_TRY(checkLinkable("piProgramCompile", Format, Owner.Devices));
  const std::vector<cl_device_id> Ids = clDevicesOf(Owner.Devices);
  const auto NumIds = static_cast<cl_uint>(Ids.size());
  std::string Used = DriverFormat == ImageFormat::LlvmBitcode ? SpirCompileOptions : "";
  appendOption(Used, Options);
  appendOption(Used, ImageCompileOptions);
  adaptClStd(Used, Owner.Devices);
  cl_int Error;
  const char *ClFunction;
  if (DriverFormat == ImageFormat::LlvmBitcode) {
    ClFunction = "clBuildProgram";
    Error = clBuildProgram(Program, NumIds, Ids.data(), Used.c_str(), nullptr, nullptr);
  } else {
    ClFunction = "clCompileProgram";
    Error = clCompileProgram(Program, NumIds, Ids.data(), Used.c_str(), 0, nullptr, nullptr,
                             nullptr, nullptr);
  }
  Owner.Options = Used;
  Log = driverLog(Program, Owner.Devices);
  if (Error == CL_BUILD_PROGRAM_FAILURE || Error == CL_COMPILE_PROGRAM_FAILURE)
    return buildFailure("piProgramCompile", ClFunction, Error, PI_ERROR_COMPILE_PROGRAM_FAILURE,
                        Log);
  if (Error != CL_SUCCESS)
    return clFailure(Error, "piProgramCompile", ClFunction);
  return PI_SUCCESS;
}

pi_result ClProgram::binaries(const _pi_program &Owner, std::vector<std::vector<uint8_t>> &Out) {
  // What the driver holds now (its compiled or linked code once built): the binary a
  // later piProgramCreateWithBinary takes.
  std::vector<size_t> Sizes(Owner.Devices.size(), 0);
  cl_int Error = clGetProgramInfo(Program, CL_PROGRAM_BINARY_SIZES, Sizes.size() * sizeof(size_t),
                                  Sizes.data(), nullptr);
  if (Error != CL_SUCCESS)
    return clFailure(Error, "piProgramGetInfo", "clGetProgramInfo");
  std::vector<std::vector<uint8_t>> Binaries(Sizes.size());
  std::vector<unsigned char *> Pointers(Sizes.size());
  for (size_t I = 0; I < Sizes.size(); ++I) {
    Binaries[I].resize(Sizes[I]);
    Pointers[I] = Binaries[I].data();
  }
  Error = clGetProgramInfo(Program, CL_PROGRAM_BINARIES, Pointers.size() * sizeof(unsigned char *),
                           Pointers.data(), nullptr);
  if (Error != CL_SUCCESS)
    return clFailure(Error, "piProgramGetInfo", "clGetProgramInfo");
  Out = std::move(Binaries);
  return PI_SUCCESS;
}

pi_result ClContext::link(core::LinkRequest &Request) {
  _pi_program &Output = Request.Output;
  const ImageFormat Format = clProgram(*Request.Inputs[0]).Format;
  DGLINK_TRY(checkLinkable("piProgramLink", Format, Output.Devices));
  for (size_t I = 0; I < Request.Inputs.size(); ++I) {
    const ClProgram &Input = clProgram(*Request.Inputs[I]);
    for (const _pi_device *Device : Output.Devices) {
      cl_program_binary_type Type = CL_PROGRAM_BINARY_TYPE_NONE;
      if (clGetProgramBuildInfo(Input.Program, clDevice(*Device).Device, CL_PROGRAM_BINARY_TYPE,
                                sizeof(Type), &Type, nullptr) != CL_SUCCESS)
        Type = CL_PROGRAM_BINARY_TYPE_NONE;
      if (Type != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT && Type != CL_PROGRAM_BINARY_TYPE_LIBRARY)
        return fail(PI_ERROR_INVALID_OPERATION,
                    "piProgramLink: InputPrograms[{}] is {} for device '{}'; compile it with "
                    "piProgramCompile first",
                    I, binaryTypeName(Type), Device->Description.Name);
    }
  }

  // The storage of lowered inputs: one layout for the linked program.
  std::vector<const ImageMetadata *> Tables;
  for (const _pi_program *Input : Request.Inputs)
    Tables.push_back(&Input->Metadata);
  std::optional<LoweredStorage> Storage;
  if (const pi_result Result = mergeLoweredStorage(Tables, Storage); Result != PI_SUCCESS) {
    // NOLINTNEXTLINE(performance-unnecessary-copy-initialization): fail() replaces it
    const std::string Message = lastErrorMessage();
    if (Result == PI_ERROR_LINK_PROGRAM_FAILURE)
      Output.Log += "error: " + Message + "\n";
    return fail(Result, "piProgramLink: {}", Message);
  }
  // Which kernels take the storage: those the lowered inputs list. An input that could
  // not list them (a flat binary) makes it all kernels, which is right only when every
  // input was lowered.
  bool AnyAll = false, AnyNotLowered = false;
  for (const _pi_program *Input : Request.Inputs) {
    AnyAll = AnyAll || (Input->Metadata.Lowered && clProgram(*Input).AllKernelsLowered);
    AnyNotLowered = AnyNotLowered || !Input->Metadata.Lowered;
  }
  if (Storage && AnyAll && AnyNotLowered)
    return fail(PI_ERROR_INVALID_OPERATION,
                "piProgramLink: a lowered input without a kernel list (made with "
                "piProgramCreateWithBinary) cannot link with inputs that were not lowered: "
                "which kernels take the device-global storage is unknown");
  // The images' symbol problems fail the link (the core says which); PoCL 3.1 fails
  // an unresolved link with no log at all, so the driver is not asked.
  if (Request.ProblemsFound)
    return PI_ERROR_LINK_PROGRAM_FAILURE;

  std::string Options = Request.Options;
  std::vector<cl_program> Inputs;
  for (const _pi_program *Input : Request.Inputs) {
    appendOption(Options, clProgram(*Input).ImageLinkOptions);
    Inputs.push_back(clProgram(*Input).Program);
  }
  auto Impl = std::make_unique<ClProgram>(*this, nullptr);
  const std::vector<cl_device_id> Ids = clDevicesOf(Output.Devices);
  cl_int Error = CL_SUCCESS;
  Impl->Program =
      clLinkProgram(Context, static_cast<cl_uint>(Ids.size()), Ids.data(), Options.c_str(),
                    static_cast<cl_uint>(Inputs.size()), Inputs.data(), nullptr, nullptr, &Error);
  Output.Options = Options;
  if (Error != CL_SUCCESS && Error != CL_LINK_PROGRAM_FAILURE)
    return clFailure(Error, "piProgramLink", "clLinkProgram"); // the caller's to fix
  if (Error == CL_LINK_PROGRAM_FAILURE || Impl->Program == nullptr) {
    const std::string DriverLog = driverLog(Impl->Program, Output.Devices);
    Output.Log += DriverLog + (DriverLog.empty() || DriverLog.back() == '\n' ? "" : "\n") +
                  fmt::format("error: clLinkProgram failed with {} ({}){}\n", clErrorName(Error),
                              Error, DriverLog.empty() ? "; the driver gave no build log" : "");
    return fail(PI_ERROR_LINK_PROGRAM_FAILURE, "clLinkProgram failed with {} ({}); build log: {}",
                clErrorName(Error), Error, DriverLog.empty() ? "(empty)" : DriverLog);
  }
  Output.Log += driverLog(Impl->Program, Output.Devices);
  Impl->Format = Format;
  Impl->DriverFormat = Format;
  Output.Metadata.Lowered = std::move(Storage);
  Impl->AllKernelsLowered = Output.Metadata.Lowered && AnyAll;
  for (const _pi_program *Input : Request.Inputs)
    if (Input->Metadata.Lowered)
      Impl->LoweredKernels.insert(clProgram(*Input).LoweredKernels.begin(),
                                  clProgram(*Input).LoweredKernels.end());
  Output.KernelNames = kernelNamesOf(Impl->Program);
  Output.Impl = std::move(Impl);
  return PI_SUCCESS;
}

} // namespace dglink::opencl
