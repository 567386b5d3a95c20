// The stream backend's programs and kernels: native code checked against the driver's
// formats, build = the driver's module loader on each device of the program, link = the
// driver's linker for each device architecture (the core has resolved the images'
// symbol tables first), device globals as module globals of the device's module,
// kernels with by-value arguments and a function per device.
#include <dglink/stream/backend.h>

#include <dglink/support/error.h>
#include <dglink/support/image.h>
#include <dglink/support/log.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <string>

namespace dglink::stream {
namespace {

std::vector<char> bytesOf(const _pi_program &Program) {
  return std::vector<char>(Program.Binary.begin(), Program.Binary.end());
}

// The kernel names of a module less DPC++'s offset entry points ("<kernel>_with_offset"
// beside "<kernel>"), which are forms of a kernel, not kernels of their own.
std::vector<std::string> withoutOffsetEntries(std::vector<std::string> Names) {
  const std::set<std::string> All(Names.begin(), Names.end());
  const std::string Suffix = OffsetEntrySuffix;
  const auto isOffsetEntry = [&](const std::string &Name) {
    return Name.size() > Suffix.size() &&
           Name.compare(Name.size() - Suffix.size(), Suffix.size(), Suffix) == 0 &&
           All.count(Name.substr(0, Name.size() - Suffix.size())) != 0;
  };
  Names.erase(std::remove_if(Names.begin(), Names.end(), isOffsetEntry), Names.end());
  return Names;
}

// Refuses what the driver cannot run, naming the format and the device.
pi_result refuseForeignCode(const char *Function, const _pi_device &Device, const void *Data,
                            size_t Size) {
  Driver &D = driver();
  const ImageFormat Format = detectFormat(Data, Size);
  if (Format != ImageFormat::Unknown)
    return fail(PI_ERROR_INVALID_OPERATION, "{}: {} cannot consume {} (device '{}' runs {})",
                Function, streamBackend().label(),
                Format == ImageFormat::Elf ? "this ELF file" : formatName(Format),
                Device.Description.Name, D.codeDescription());
  return fail(PI_ERROR_INVALID_BINARY, "{}: the {} bytes are not {}", Function, Size,
              D.codeDescription());
}

// Loads Image on Device (its context current); a failure is a build failure whose
// message carries the loader's log.
pi_result load(const _pi_device &Device, const void *Image, std::string &Log, Module &Loaded) {
  std::string LoaderLog;
  const pi_result Result = driver().loadModule(Loaded, Image, LoaderLog);
  if (!LoaderLog.empty())
    Log += (Log.empty() || Log.back() == '\n' ? "" : "\n") + LoaderLog;
  if (Result == PI_SUCCESS)
    return PI_SUCCESS;
  Loaded = nullptr;
  // The build log says why too (a loader that writes no log is common). A copy: fail()
  // below replaces the last error this would otherwise refer to.
  // NOLINTNEXTLINE(performance-unnecessary-copy-initialization)
  const std::string Message = lastErrorMessage();
  Log += (Log.empty() || Log.back() == '\n' ? "" : "\n") + Message;
  return fail(PI_ERROR_BUILD_PROGRAM_FAILURE, "{} (device '{}')\n{}", Message,
              Device.Description.Name, LoaderLog);
}

// Loads one image per device of Devices into Modules: Images maps each device
// architecture to its image (the same code for every device of one architecture).
// On failure the modules loaded so far are unloaded and Modules stays empty.
pi_result loadOnEach(const StreamContext &Context, const std::vector<_pi_device *> &Devices,
                     const std::map<std::string, std::vector<char>> &Images, std::string &Log,
                     std::vector<DeviceModule> &Modules) {
  Driver &D = driver();
  std::vector<DeviceModule> Loaded;
  Loaded.reserve(Devices.size()); // nothing throws once a module is loaded
  pi_result Result = PI_SUCCESS;
  for (const _pi_device *Device : Devices) {
    DeviceModule Made;
    Made.Ordinal = Context.of(*Device).Ordinal;
    Result = D.makeCurrent(Made.Ordinal);
    if (Result == PI_SUCCESS)
      Result = load(*Device, Images.at(streamDevice(*Device).Info.Arch).data(), Log, Made.Loaded);
    if (Result != PI_SUCCESS)
      break;
    Loaded.push_back(Made);
  }
  if (Result == PI_SUCCESS) {
    Modules = std::move(Loaded);
    return PI_SUCCESS;
  }
  for (const DeviceModule &Made : Loaded)
    if (D.makeCurrent(Made.Ordinal) == PI_SUCCESS)
      D.unloadModule(Made.Loaded);
  return Result;
}

// Kernel names from the first device's module where the code did not name them (cubins
// carry no PTX to read them from).
pi_result nameKernels(_pi_program &Program, const DeviceModule &First) {
  if (Program.KernelNames.empty()) {
    DGLINK_TRY(driver().makeCurrent(First.Ordinal));
    Program.KernelNames = withoutOffsetEntries(driver().kernelNames(First.Loaded));
  }
  return PI_SUCCESS;
}

} // namespace

pi_result StreamContext::createProgram(const char *Function, const core::ProgramSource &Source,
                                       _pi_program &Program) {
  Driver &D = driver();
  if (Source.From == core::ProgramSource::Origin::Image) {
    if (Source.DeclaredFormat == PI_DEVICE_BINARY_TYPE_SPIRV ||
        Source.DeclaredFormat == PI_DEVICE_BINARY_TYPE_LLVMIR_BITCODE)
      return fail(PI_ERROR_INVALID_OPERATION, "{}: {} cannot consume {} (device '{}' runs {})",
                  Function, streamBackend().label(),
                  Source.DeclaredFormat == PI_DEVICE_BINARY_TYPE_SPIRV ? "SPIR-V"
                                                                       : "LLVM bitcode (SPIR)",
                  first().Device.Description.Name, D.codeDescription());
    const char *Target = Source.Target;
    if (Target != nullptr && *Target != '\0' && std::strcmp(Target, D.target()) != 0 &&
        std::strcmp(Target, PI_DEVICE_BINARY_TARGET_UNKNOWN) != 0)
      return fail(PI_ERROR_INVALID_OPERATION,
                  "{}: image target '{}' cannot run on {} device '{}' (it runs {})", Function,
                  clip(Target), streamBackend().label(), first().Device.Description.Name,
                  D.target());
    if (Source.Size == 0)
      return fail(PI_ERROR_INVALID_BINARY, "{}: the image's byte range is empty or invalid",
                  Function);
  }
  CodeKind Kind = CodeKind::Ptx;
  if (!D.detectCode(Source.Data, Source.Size, Kind))
    return refuseForeignCode(Function, first().Device, Source.Data, Source.Size);
  Program.Format = PI_DEVICE_BINARY_TYPE_NATIVE;
  if (Program.Target.empty())
    Program.Target = D.target();
  if (Kind == CodeKind::Ptx && Program.Binary.back() != '\0')
    Program.Binary.push_back('\0'); // the driver reads PTX as a C string
  Program.KernelNames = withoutOffsetEntries(D.codeKernelNames(Kind, bytesOf(Program)));
  Program.Impl = std::make_unique<StreamProgram>(*this, Kind);
  return PI_SUCCESS;
}

StreamProgram::~StreamProgram() {
  if (!OwnsModules)
    return;
  for (const DeviceModule &Made : Modules)
    if (driver().makeCurrent(Made.Ordinal) == PI_SUCCESS)
      driver().unloadModule(Made.Loaded);
}

pi_result StreamContext::adoptProgram(const char *Function, uintptr_t Native, bool Owned,
                                      _pi_program &Program) {
  if (Devices.size() != 1)
    return fail(PI_ERROR_INVALID_CONTEXT,
                "{}: a {} module is loaded for one device, which it does not name: adopt it "
                "into a context of that device alone (this one has {})",
                Function, core::backend().label(), Devices.size());
  if (Native == 0)
    return fail(PI_ERROR_INVALID_VALUE, "{}: the native module is null", Function);
  DGLINK_TRY(driver().makeCurrent(first().Ordinal));
  auto Made = std::make_unique<StreamProgram>(*this, CodeKind::Ptx); // the kind is not read
  Made->OwnsModules = Owned;
  DeviceModule Adopted;
  Adopted.Ordinal = first().Ordinal;
  Adopted.Loaded = reinterpret_cast<Module>(Native);
  Made->Modules.push_back(Adopted);
  Program.Devices = {&first().Device};
  Program.BinaryType = PI_PROGRAM_BINARY_TYPE_EXECUTABLE; // a loaded module
  Program.KernelNames = withoutOffsetEntries(driver().kernelNames(Adopted.Loaded));
  Program.Impl = std::move(Made);
  return PI_SUCCESS;
}

pi_result StreamProgram::adoptKernel(const char *Function, uintptr_t Native, bool /*Owned*/,
                                     _pi_program &Program, std::string &Name,
                                     std::unique_ptr<core::KernelImpl> &Kernel) {
  if (Modules.size() != 1)
    return fail(PI_ERROR_INVALID_PROGRAM,
                "{}: a {} function is of one device's module: adopt it into a program of one "
                "device (this one has {})",
                Function, core::backend().label(), Modules.size());
  Driver &D = driver();
  DGLINK_TRY(D.makeCurrent(Modules[0].Ordinal));
  auto *Handle = reinterpret_cast<FunctionHandle>(Native);
  std::string Found;
  if (Handle == nullptr || !D.functionName(Handle, Found))
    return fail(PI_ERROR_UNSUPPORTED_FEATURE,
                "{}: the {} driver does not name function {:#x} (CUDA: cuFuncGetName, 12.3 and "
                "later), so the adapter cannot make a kernel of it",
                Function, core::backend().label(), Native);
  FunctionHandle Same = nullptr;
  bool InModule = false;
  DGLINK_TRY(D.function(Modules[0].Loaded, Found.c_str(), Same, InModule));
  if (!InModule || Same != Handle)
    return fail(PI_ERROR_INVALID_PROGRAM,
                "{}: function '{}' is not the program's module's (another module's function)",
                Function, clip(Found));
  DGLINK_TRY(createKernel(Program, Found.c_str(), Kernel));
  Name = std::move(Found);
  return PI_SUCCESS;
}

Module StreamProgram::moduleOf(int Ordinal) const {
  for (const DeviceModule &Made : Modules)
    if (Made.Ordinal == Ordinal)
      return Made.Loaded;
  return nullptr;
}

pi_result StreamProgram::build(_pi_program &Program, const std::string &, std::string &Log) {
  // What the driver loads, made once per device architecture of the program.
  std::map<std::string, std::vector<char>> Images;
  const std::vector<char> Bytes = bytesOf(Program);
  for (const _pi_device *Device : Program.Devices) {
    const DeviceInfo &Info = streamDevice(*Device).Info;
    if (Images.count(Info.Arch) != 0)
      continue;
    DGLINK_TRY(driver().makeCurrent(Context.of(*Device).Ordinal));
    DGLINK_TRY(driver().codeForLoad(Kind, Bytes, Info, Images[Info.Arch], Log));
  }
  DGLINK_TRY(loadOnEach(Context, Program.Devices, Images, Log, Modules));
  return nameKernels(Program, Modules[0]);
}

// Native code is a link input as it is.
pi_result StreamProgram::compile(_pi_program &, const std::string &, std::string &) {
  return PI_SUCCESS;
}

pi_result StreamContext::link(core::LinkRequest &Request) {
  Driver &D = driver();
  _pi_program &Output = Request.Output;
  std::vector<std::vector<char>> Bytes(Request.Inputs.size());
  std::vector<LinkSource> Sources;
  for (size_t I = 0; I < Request.Inputs.size(); ++I) {
    _pi_program &Input = *Request.Inputs[I];
    // A build of this input on another thread may be filling in its kernel names.
    std::lock_guard<std::mutex> Lock(Input.Mutex);
    Bytes[I] = bytesOf(Input);
    LinkSource Source;
    Source.Kind = static_cast<StreamProgram &>(*Input.Impl).Kind;
    Source.Bytes = &Bytes[I];
    Source.Exported = Input.Metadata.Exported;
    Sources.push_back(std::move(Source));
    for (const std::string &Name : Input.KernelNames)
      if (std::find(Output.KernelNames.begin(), Output.KernelNames.end(), Name) ==
          Output.KernelNames.end())
        Output.KernelNames.push_back(Name);
  }
  // One link per device architecture of the output; every device loads its own.
  std::map<std::string, std::vector<char>> Linked;
  CodeKind Kind = CodeKind::Cubin;
  std::vector<char> FirstLinked;
  for (const _pi_device *Device : Output.Devices) {
    const DeviceInfo &Info = streamDevice(*Device).Info;
    if (Linked.count(Info.Arch) != 0)
      continue;
    DGLINK_TRY(D.makeCurrent(of(*Device).Ordinal));
    std::string Log;
    std::vector<char> &Made = Linked[Info.Arch];
    const pi_result Result = D.link(Sources, Info, Made, Kind, Log);
    Output.Log += Log;
    if (Result == PI_ERROR_LINKER_NOT_AVAILABLE)
      return Result;
    // The images' symbol tables show a problem: the core fails the link with it, after
    // the linker has said what it found.
    if (Request.ProblemsFound)
      return PI_ERROR_LINK_PROGRAM_FAILURE;
    if (Result != PI_SUCCESS)
      return fail(PI_ERROR_LINK_PROGRAM_FAILURE, "{}", lastErrorMessage());
    if (FirstLinked.empty())
      FirstLinked = Made;
  }
  auto Impl = std::make_unique<StreamProgram>(*this, Kind); // unloads the modules if need be
  if (loadOnEach(*this, Output.Devices, Linked, Output.Log, Impl->Modules) != PI_SUCCESS)
    return fail(PI_ERROR_LINK_PROGRAM_FAILURE, "the linked {} does not load: {}",
                codeKindName(Kind), lastErrorMessage());
  Output.Binary.assign(FirstLinked.begin(), FirstLinked.end());
  DGLINK_TRY(nameKernels(Output, Impl->Modules[0]));
  Output.Impl = std::move(Impl);
  return PI_SUCCESS;
}

pi_result StreamProgram::findGlobal(_pi_program &, _pi_device &Device, const std::string &,
                                    const std::string &Symbol, core::GlobalLookup &Result) {
  const int Ordinal = Context.of(Device).Ordinal;
  const Module Loaded = moduleOf(Ordinal);
  if (Loaded == nullptr) {
    Result.NotFoundReason = "the program has no module on this device";
    return PI_SUCCESS;
  }
  DGLINK_TRY(driver().makeCurrent(Ordinal));
  void *Address = nullptr;
  size_t Bytes = 0;
  bool Found = false;
  DGLINK_TRY(driver().global(Loaded, Symbol.c_str(), Address, Bytes, Found));
  if (!Found)
    return PI_SUCCESS;
  Result.Location.Address = reinterpret_cast<uintptr_t>(Address);
  Result.Bytes = Bytes;
  Result.Found = true;
  return PI_SUCCESS;
}

pi_result StreamProgram::createKernel(_pi_program &Program, const char *Name,
                                      std::unique_ptr<core::KernelImpl> &Kernel) {
  Driver &D = driver();
  std::vector<DeviceFunction> Functions;
  int MaxThreads = 0;
  for (const DeviceModule &Made : Modules) {
    DGLINK_TRY(D.makeCurrent(Made.Ordinal));
    DeviceFunction Function;
    Function.Ordinal = Made.Ordinal;
    bool Found = false;
    DGLINK_TRY(D.function(Made.Loaded, Name, Function.Handle, Found));
    if (!Found)
      return core::unknownKernel(Name, Program);
    const std::string OffsetEntry = std::string(Name) + OffsetEntrySuffix;
    bool HasOffsetEntry = false;
    DGLINK_TRY(D.function(Made.Loaded, OffsetEntry.c_str(), Function.WithOffset, HasOffsetEntry));
    if (!HasOffsetEntry)
      Function.WithOffset = nullptr;
    // The kernel's limit is the smallest of its devices'.
    if (const int Limit = D.maxThreadsPerBlock(Function.Handle);
        Limit > 0 && (MaxThreads == 0 || Limit < MaxThreads))
      MaxThreads = Limit;
    Functions.push_back(Function);
  }
  const DeviceFunction First = Functions[0];
  auto Made = std::make_unique<StreamKernel>(Name, std::move(Functions));
  if (MaxThreads > 0)
    Made->MaxThreadsPerBlock = MaxThreads;
  DGLINK_TRY(D.makeCurrent(First.Ordinal));
  Made->ParameterSizesKnown = D.parameterSizes(First.Handle, Made->ParameterSizes);
  Made->Arguments.resize(Made->ParameterSizes.size());
  Kernel = std::move(Made);
  return PI_SUCCESS;
}

FunctionHandle StreamKernel::functionOf(int Ordinal) const {
  for (const DeviceFunction &Function : Functions)
    if (Function.Ordinal == Ordinal)
      return Function.Handle;
  return nullptr;
}

FunctionHandle StreamKernel::functionFor(int Ordinal, const core::LaunchShape &Shape) const {
  for (const DeviceFunction &Function : Functions)
    if (Function.Ordinal == Ordinal)
      return Shape.hasOffset() ? Function.WithOffset : Function.Handle;
  return nullptr;
}

pi_result StreamKernel::checkGlobalOffset(const char *Function, pi_uint32 Dimensions,
                                          const size_t *Offset) const {
  for (pi_uint32 D = 0; D < Dimensions; ++D)
    if (Offset[D] > std::numeric_limits<uint32_t>::max())
      return fail(PI_ERROR_INVALID_GLOBAL_OFFSET,
                  "{}: global offset {} in dimension {}: kernel '{}' takes 32-bit offsets (its "
                  "'{}{}' entry point's last parameter)",
                  Function, Offset[D], D, clip(Name), clip(Name), OffsetEntrySuffix);
  // UR's CUDA and HIP adapters launch such a kernel with offset 0, silently: its results
  // would be those of offset 0 wherever the code reads the global id.
  for (const DeviceFunction &Entry : Functions)
    if (Entry.WithOffset == nullptr)
      return fail(PI_ERROR_INVALID_VALUE,
                  "{}: kernel '{}' has no '{}{}' entry point (the form DPC++ gives the {} code of "
                  "a kernel that reads the global offset), so the {} adapter launches it with "
                  "global offset 0 only",
                  Function, clip(Name), clip(Name), OffsetEntrySuffix, driver().target(),
                  streamBackend().label());
  return PI_SUCCESS;
}

pi_uint32 StreamKernel::numArguments() const {
  // Without the driver's parameter info: the arguments set so far.
  return static_cast<pi_uint32>(ParameterSizesKnown ? ParameterSizes.size() : Arguments.size());
}

pi_result StreamKernel::setArgument(const char *Function, pi_uint32 Index, size_t Size,
                                    const void *Value) {
  const size_t MaxBytes = driver().maxParameterBytes();
  const char *Label = streamBackend().label();
  if (ParameterSizesKnown && Index >= ParameterSizes.size())
    return fail(PI_ERROR_INVALID_ARG_INDEX, "{}: kernel '{}' has {} arguments, not index {}",
                Function, Name, ParameterSizes.size(), Index);
  // Where the driver cannot describe the parameters, the launch's limits still hold.
  if (Index >= MaxBytes)
    return fail(PI_ERROR_INVALID_ARG_INDEX,
                "{}: argument index {} of kernel '{}' is beyond what a {} launch can pass",
                Function, Index, Name, Label);
  if (Value == nullptr)
    return setLocalArgument(Function, Index, Size);
  if (Size == 0 || Size > MaxBytes)
    return fail(PI_ERROR_INVALID_ARG_SIZE,
                "{}: argument {} of kernel '{}' has size {} (1..{} bytes)", Function, Index, Name,
                Size, MaxBytes);
  if (ParameterSizesKnown && Size != ParameterSizes[Index])
    return fail(PI_ERROR_INVALID_ARG_SIZE, "{}: argument {} of kernel '{}' is {} bytes, not {}",
                Function, Index, Name, ParameterSizes[Index], Size);
  if (Index >= Arguments.size())
    Arguments.resize(Index + 1);
  KernelArgument &Argument = Arguments[Index];
  Argument.Storage.assign((Size + 7) / 8, 0);
  std::memcpy(Argument.Storage.data(), Value, Size);
  Argument.LocalBytes = 0;
  Argument.ImageOrdinal = -1;
  Argument.Set = true;
  return PI_SUCCESS;
}

// Size bytes of local memory: the parameter is the offset of the argument's part of the
// kernel's dynamic shared memory (DPC++'s device code, local_memory.h), which each
// launch lays out. The offset goes as a zero-padded 64-bit value: a 32-bit parameter
// (DPC++'s) reads its low half on these little-endian devices, a 64-bit one all of it.
pi_result StreamKernel::setLocalArgument(const char *Function, pi_uint32 Index, size_t Size) {
  if (Size == 0)
    return fail(PI_ERROR_INVALID_ARG_SIZE,
                "{}: local-memory argument {} of kernel '{}' has size 0 (a null value asks for "
                "local memory of the size given)",
                Function, Index, Name);
  if (ParameterSizesKnown && ParameterSizes[Index] != sizeof(uint32_t) &&
      ParameterSizes[Index] != sizeof(uint64_t))
    return fail(PI_ERROR_INVALID_ARG_VALUE,
                "{}: argument {} of kernel '{}' is a {}-byte parameter, not the 4- or 8-byte "
                "offset a local-memory argument (null value) takes",
                Function, Index, Name, ParameterSizes[Index]);
  if (Index >= Arguments.size())
    Arguments.resize(Index + 1);
  KernelArgument &Argument = Arguments[Index];
  Argument.Storage.assign(1, 0);
  Argument.LocalBytes = Size;
  Argument.ImageOrdinal = -1;
  Argument.Set = true;
  return PI_SUCCESS;
}

// A buffer is its device address; an image the surface object over its array (DPC++'s
// form of an image argument on CUDA), valid on the array's device only (checkImagesOn).
pi_result StreamKernel::setBufferArgument(const char *Function, pi_uint32 Index, _pi_mem *Buffer) {
  if (Buffer != nullptr && Buffer->Image) {
    auto &Image = static_cast<StreamImage &>(*Buffer->Impl);
    uint64_t Surface = 0;
    DGLINK_TRY(Image.surface(Function, Surface));
    DGLINK_TRY(setArgument(Function, Index, sizeof(Surface), &Surface));
    Arguments[Index].ImageOrdinal = Image.Ordinal;
    return PI_SUCCESS;
  }
  void *Pointer = Buffer != nullptr ? static_cast<StreamMem &>(*Buffer->Impl).Pointer : nullptr;
  return setArgument(Function, Index, sizeof(Pointer), &Pointer);
}

pi_result StreamKernel::collect(const core::LaunchShape &Shape, LaunchArguments &Out) {
  const size_t Count = numArguments();
  std::vector<size_t> LocalSizes(Count, 0);
  bool AnyLocal = false;
  for (size_t I = 0; I < Count; ++I) {
    if (I >= Arguments.size() || !Arguments[I].Set)
      return fail(PI_ERROR_INVALID_KERNEL_ARGS,
                  "piEnqueueKernelLaunch: argument {} of kernel '{}' is not set", I, Name);
    LocalSizes[I] = Arguments[I].LocalBytes;
    AnyLocal = AnyLocal || LocalSizes[I] != 0;
  }
  Out.Params.assign(Count, nullptr);
  Out.LocalOffsets.assign(AnyLocal ? Count : 0, 0);
  Out.DynamicSharedBytes = 0;
  if (AnyLocal) {
    LocalLayout Layout;
    if (!layOutLocalArguments(LocalSizes, 0, Layout))
      return fail(PI_ERROR_OUT_OF_RESOURCES,
                  "piEnqueueKernelLaunch: the local-memory arguments of kernel '{}' add up to "
                  "more than a size_t holds",
                  Name);
    for (size_t I = 0; I < Count; ++I)
      Out.LocalOffsets[I] = Layout.Offsets[I];
    Out.DynamicSharedBytes = Layout.Total;
  }
  for (size_t I = 0; I < Count; ++I)
    Out.Params[I] = LocalSizes[I] != 0 ? static_cast<void *>(&Out.LocalOffsets[I])
                                       : static_cast<void *>(Arguments[I].Storage.data());
  if (Shape.hasOffset()) {
    // checkGlobalOffset kept each within 32 bits.
    for (int D = 0; D < 3; ++D)
      Out.GlobalOffset[D] = static_cast<uint32_t>(Shape.Offset[D]);
    Out.Params.push_back(Out.GlobalOffset);
  }
  return PI_SUCCESS;
}

// The driver's occupancy for blocks of GroupSize threads, times the multiprocessors.
pi_result StreamKernel::maxCooperativeGroups(const char *Function, const _pi_device &Device,
                                             size_t GroupSize, size_t DynamicLocalBytes,
                                             pi_uint32 &Out) const {
  const StreamDevice &On = streamDevice(Device);
  const FunctionHandle F = functionOf(On.Ordinal);
  if (F == nullptr)
    return fail(PI_ERROR_INVALID_DEVICE, "{}: kernel '{}' has no function on device '{}'", Function,
                clip(Name), Device.Description.Name);
  Driver &D = driver();
  DGLINK_TRY(D.makeCurrent(On.Ordinal));
  int PerMultiprocessor = 0;
  const pi_result Result =
      D.maxActiveBlocks(F, static_cast<int>(GroupSize), DynamicLocalBytes, PerMultiprocessor);
  if (Result == PI_ERROR_UNSUPPORTED_FEATURE)
    return fail(Result, "{}: {} has no occupancy query", Function, streamBackend().label());
  DGLINK_TRY(Result);
  Out = static_cast<pi_uint32>(std::max(PerMultiprocessor, 0)) *
        static_cast<pi_uint32>(std::max(On.Info.MultiprocessorCount, 0));
  return PI_SUCCESS;
}

} // namespace dglink::stream

namespace dglink::stream {

// The function's memory from the driver (CUDA: cuFuncGetAttribute), zero where it cannot
// say (HIP's table has no such query yet); a warp or wavefront is the sub-group and the
// multiple a block should have.
pi_result StreamKernel::properties(const _pi_device &Device,
                                   core::KernelDeviceProperties &Out) const {
  const StreamDevice &On = streamDevice(Device);
  const FunctionHandle F = functionOf(On.Ordinal);
  if (F == nullptr)
    return fail(PI_ERROR_INVALID_DEVICE, "kernel '{}' has no function on device '{}'", clip(Name),
                Device.Description.Name);
  Driver &D = driver();
  DGLINK_TRY(D.makeCurrent(On.Ordinal));
  size_t Shared = 0, Local = 0;
  if (D.functionMemory(F, Shared, Local)) {
    Out.LocalMemSize = Shared;
    Out.PrivateMemSize = Local;
  }
  if (On.Info.WarpSize > 0) {
    const auto Warp = static_cast<pi_uint32>(On.Info.WarpSize);
    Out.PreferredGroupSizeMultiple = Warp;
    Out.MaxSubGroupSize = Warp;
    const auto Threads = static_cast<pi_uint32>(MaxThreadsPerBlock);
    Out.MaxNumSubGroups = (Threads + Warp - 1) / Warp;
  }
  return PI_SUCCESS;
}

} // namespace dglink::stream
