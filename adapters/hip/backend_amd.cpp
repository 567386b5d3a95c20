// The HIP table on HIP's AMD platform: libamdhip64 opened with dlopen at run
// time. hip_runtime_api.h (Debian's libamdhip64-dev) is included for the types
// and signatures only; nothing links against libamdhip64, so the adapter loads
// (and reports zero platforms) where HIP or an AMD GPU is absent.
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>

#include "hip_api.h"

#include <dglink/support/log.h>

#include <dlfcn.h>

#include <cstring>
#include <vector>

namespace dglink::hip {
namespace {

// Every libamdhip64 function the table uses.
#define DGLINK_HIP_AMD_FUNCTIONS(X)                                                                \
  X(hipInit)                                                                                       \
  X(hipGetDeviceCount)                                                                             \
  X(hipDriverGetVersion)                                                                           \
  X(hipDeviceGetName)                                                                              \
  X(hipDeviceGetAttribute)                                                                         \
  X(hipDeviceTotalMem)                                                                             \
  X(hipGetDeviceProperties)                                                                        \
  X(hipSetDevice)                                                                                  \
  X(hipGetDevice)                                                                                  \
  X(hipStreamCreateWithFlags)                                                                      \
  X(hipStreamDestroy)                                                                              \
  X(hipStreamSynchronize)                                                                          \
  X(hipStreamWaitEvent)                                                                            \
  X(hipEventCreateWithFlags)                                                                       \
  X(hipEventDestroy)                                                                               \
  X(hipEventRecord)                                                                                \
  X(hipEventSynchronize)                                                                           \
  X(hipEventQuery)                                                                                 \
  X(hipFree)                                                                                       \
  X(hipHostFree)                                                                                   \
  X(hipMemcpyAsync)                                                                                \
  X(hipMemcpyHtoD)                                                                                 \
  X(hipMemcpyHtoDAsync)                                                                            \
  X(hipMemcpyDtoHAsync)                                                                            \
  X(hipMemsetD8Async)                                                                              \
  X(hipMemsetD16Async)                                                                             \
  X(hipMemsetD32Async)                                                                             \
  X(hipModuleLoadData)                                                                             \
  X(hipModuleUnload)                                                                               \
  X(hipModuleGetFunction)                                                                          \
  X(hipModuleGetGlobal)                                                                            \
  X(hipFuncGetAttribute)                                                                           \
  X(hipModuleLaunchKernel)                                                                         \
  X(hipGetErrorName)                                                                               \
  X(hipGetErrorString)

// Functions the C++ header also overloads with templates: their C signatures.
using HipMallocFunction = hipError_t (*)(void **, size_t);
using HipFlaggedMallocFunction = hipError_t (*)(void **, size_t, unsigned int);
#define DGLINK_HIP_AMD_OVERLOADED(X)                                                               \
  X(hipMalloc, HipMallocFunction)                                                                  \
  X(hipHostMalloc, HipFlaggedMallocFunction)                                                       \
  X(hipMallocManaged, HipFlaggedMallocFunction)

struct AmdFunctions {
#define DGLINK_HIP_AMD_MEMBER(Name) decltype(&::Name) Name = nullptr;
  DGLINK_HIP_AMD_FUNCTIONS(DGLINK_HIP_AMD_MEMBER)
#undef DGLINK_HIP_AMD_MEMBER
#define DGLINK_HIP_AMD_TYPED_MEMBER(Name, Type) Type Name = nullptr;
  DGLINK_HIP_AMD_OVERLOADED(DGLINK_HIP_AMD_TYPED_MEMBER)
#undef DGLINK_HIP_AMD_TYPED_MEMBER
};

AmdFunctions Amd;
// Optional: hipPointerGetAttributes (the table's KnowsHostPointer stays null without it).
decltype(&::hipPointerGetAttributes) AmdPointerGetAttributes = nullptr;
// Optional: peer access (the table's entries stay null without them).
decltype(&::hipDeviceCanAccessPeer) AmdDeviceCanAccessPeer = nullptr;
decltype(&::hipDeviceEnablePeerAccess) AmdDeviceEnablePeerAccess = nullptr;
// Optional: timing and host registration (the table's entries stay null without them).
decltype(&::hipEventElapsedTime) AmdEventElapsedTime = nullptr;
decltype(&::hipHostRegister) AmdHostRegister = nullptr;
decltype(&::hipHostUnregister) AmdHostUnregister = nullptr;
decltype(&::hipHostGetDevicePointer) AmdHostGetDevicePointer = nullptr;
// Optional: identity and free memory (the answers stay absent without them).
decltype(&::hipDeviceGetPCIBusId) AmdDeviceGetPCIBusId = nullptr;
decltype(&::hipDeviceGetUuid) AmdDeviceGetUuid = nullptr;
decltype(&::hipMemGetInfo) AmdMemGetInfo = nullptr;
// Optional: 2D copies (a copy per row without it).
decltype(&::hipMemcpy2DAsync) AmdMemcpy2DAsync = nullptr;

template <typename Function> bool resolve(void *Library, const char *Symbol, Function &Out) {
  void *Address = dlsym(Library, Symbol);
  if (Address == nullptr)
    return false;
  static_assert(sizeof(Function) == sizeof(void *), "function pointers are data-pointer sized");
  std::memcpy(&Out, &Address, sizeof(Out));
  return true;
}

HipError err(hipError_t Result) { return static_cast<HipError>(Result); }
hipStream_t stream(HipStream Stream) { return reinterpret_cast<hipStream_t>(Stream); }
hipEvent_t event(HipEvent Event) { return reinterpret_cast<hipEvent_t>(Event); }
hipModule_t module(HipModule Module) { return reinterpret_cast<hipModule_t>(Module); }
hipFunction_t function(HipFunction Function) { return reinterpret_cast<hipFunction_t>(Function); }

HipError getDeviceCount(int *Count) { return err(Amd.hipGetDeviceCount(Count)); }
HipError driverGetVersion(int *Version) { return err(Amd.hipDriverGetVersion(Version)); }

HipError getDeviceInfo(int Ordinal, HipDeviceInfo &Info) {
  char Name[256] = {};
  if (hipError_t R = Amd.hipDeviceGetName(Name, static_cast<int>(sizeof(Name) - 1), Ordinal);
      R != hipSuccess)
    return err(R);
  Info.Name = Name;
  auto Attribute = [&](hipDeviceAttribute_t Which, int &Out) {
    int Value = 0;
    if (Amd.hipDeviceGetAttribute(&Value, Which, Ordinal) == hipSuccess)
      Out = Value;
  };
  Attribute(hipDeviceAttributeComputeCapabilityMajor, Info.ComputeMajor);
  Attribute(hipDeviceAttributeComputeCapabilityMinor, Info.ComputeMinor);
  Attribute(hipDeviceAttributeMultiprocessorCount, Info.MultiprocessorCount);
  Attribute(hipDeviceAttributeMaxThreadsPerBlock, Info.MaxThreadsPerBlock);
  Attribute(hipDeviceAttributeMaxBlockDimX, Info.MaxBlockDim[0]);
  Attribute(hipDeviceAttributeMaxBlockDimY, Info.MaxBlockDim[1]);
  Attribute(hipDeviceAttributeMaxBlockDimZ, Info.MaxBlockDim[2]);
  Attribute(hipDeviceAttributeMaxGridDimX, Info.MaxGridDim[0]);
  Attribute(hipDeviceAttributeMaxGridDimY, Info.MaxGridDim[1]);
  Attribute(hipDeviceAttributeMaxGridDimZ, Info.MaxGridDim[2]);
  if (hipError_t R = Amd.hipDeviceTotalMem(&Info.TotalMemory, Ordinal); R != hipSuccess)
    return err(R);
  Attribute(hipDeviceAttributeClockRate, Info.ClockRateKHz);
  Attribute(hipDeviceAttributeWarpSize, Info.WarpSize);
  Attribute(hipDeviceAttributeMaxSharedMemoryPerBlock, Info.SharedMemoryPerBlock);
  Attribute(hipDeviceAttributeTotalConstantMemory, Info.ConstantMemory);
  Attribute(hipDeviceAttributeL2CacheSize, Info.L2CacheBytes);
  int Flag = 0;
  Attribute(hipDeviceAttributeEccEnabled, Flag);
  Info.Ecc = Flag != 0;
  Flag = 0;
  Attribute(hipDeviceAttributeIntegrated, Flag);
  Info.Integrated = Flag != 0;
  Attribute(hipDeviceAttributeMemoryClockRate, Info.MemoryClockKHz);
  Attribute(hipDeviceAttributeMemoryBusWidth, Info.MemoryBusWidthBits);
  Attribute(hipDeviceAttributeMaxRegistersPerBlock, Info.RegistersPerBlock);
  hipUUID Uuid{};
  if (AmdDeviceGetUuid != nullptr && AmdDeviceGetUuid(&Uuid, Ordinal) == hipSuccess)
    Info.Uuid.assign(Uuid.bytes, Uuid.bytes + sizeof(Uuid.bytes));
  char Pci[16] = {};
  if (AmdDeviceGetPCIBusId != nullptr &&
      AmdDeviceGetPCIBusId(Pci, static_cast<int>(sizeof(Pci) - 1), Ordinal) == hipSuccess)
    Info.PciAddress = Pci;
  // hipEventElapsedTime's documentation: a resolution of about one microsecond.
  Info.TimerResolutionNs = 1000;
  // gcnArchName ("gfx90a:sramecc+:xnack-"): the ISA a link targets. The buffer
  // has room to spare in case the library's struct is larger than the header's.
  std::vector<unsigned char> Storage(sizeof(hipDeviceProp_t) + 4096, 0);
  auto *Properties = reinterpret_cast<hipDeviceProp_t *>(Storage.data());
  if (Amd.hipGetDeviceProperties(Properties, Ordinal) == hipSuccess) {
    Properties->gcnArchName[sizeof(Properties->gcnArchName) - 1] = '\0';
    Info.Arch = Properties->gcnArchName;
    Info.Int64Atomics =
        Properties->arch.hasGlobalInt64Atomics != 0 && Properties->arch.hasSharedInt64Atomics != 0;
  }
  return HipSuccess;
}

HipError setDevice(int Ordinal) {
  int Current = -1;
  if (Amd.hipGetDevice(&Current) == hipSuccess && Current == Ordinal)
    return HipSuccess;
  return err(Amd.hipSetDevice(Ordinal));
}

HipError streamCreateNonBlocking(HipStream *Out) {
  hipStream_t Stream = nullptr;
  const hipError_t R = Amd.hipStreamCreateWithFlags(&Stream, hipStreamNonBlocking);
  *Out = reinterpret_cast<HipStream>(Stream);
  return err(R);
}
HipError streamDestroy(HipStream S) { return err(Amd.hipStreamDestroy(stream(S))); }
HipError streamSynchronize(HipStream S) { return err(Amd.hipStreamSynchronize(stream(S))); }
HipError streamWaitEvent(HipStream S, HipEvent E) {
  return err(Amd.hipStreamWaitEvent(stream(S), event(E), 0));
}
HipError eventCreateNoTiming(HipEvent *Out) {
  hipEvent_t Event = nullptr;
  const hipError_t R = Amd.hipEventCreateWithFlags(&Event, hipEventDisableTiming);
  *Out = reinterpret_cast<HipEvent>(Event);
  return err(R);
}
HipError eventDestroy(HipEvent E) { return err(Amd.hipEventDestroy(event(E))); }
HipError eventCreateTimed(HipEvent *Out) {
  hipEvent_t Event = nullptr;
  const hipError_t R = Amd.hipEventCreateWithFlags(&Event, hipEventDefault);
  *Out = reinterpret_cast<HipEvent>(Event);
  return err(R);
}
HipError eventElapsedTime(float *Milliseconds, HipEvent From, HipEvent To) {
  return err(AmdEventElapsedTime(Milliseconds, event(From), event(To)));
}
HipError hostRegister(void *Host, size_t Size, void **Device) {
  const hipError_t R = AmdHostRegister(Host, Size, hipHostRegisterPortable | hipHostRegisterMapped);
  if (R != hipSuccess)
    return err(R);
  const hipError_t Mapped = AmdHostGetDevicePointer(Device, Host, 0);
  if (Mapped != hipSuccess)
    (void)AmdHostUnregister(Host); // the registration is undone; the first error is reported
  return err(Mapped);
}
HipError hostUnregister(void *Host) { return err(AmdHostUnregister(Host)); }
HipError eventRecord(HipEvent E, HipStream S) {
  return err(Amd.hipEventRecord(event(E), stream(S)));
}
HipError eventSynchronize(HipEvent E) { return err(Amd.hipEventSynchronize(event(E))); }
HipError eventQuery(HipEvent E) { return err(Amd.hipEventQuery(event(E))); }
HipError mallocDevice(void **P, size_t Size) { return err(Amd.hipMalloc(P, Size)); }
HipError freeDevice(void *P) { return err(Amd.hipFree(P)); }
HipError hostMalloc(void **P, size_t Size) {
  // Default flags: fine-grained, coherent memory, which ROCm maps into every GPU already
  // (hipHostMallocPortable alone would make it coarse-grained).
  return err(Amd.hipHostMalloc(P, Size, hipHostMallocDefault));
}
HipError hostFree(void *P) { return err(Amd.hipHostFree(P)); }
bool deviceCanAccessPeer(int From, int To) {
  int Can = 0;
  return AmdDeviceCanAccessPeer(&Can, From, To) == hipSuccess && Can != 0;
}
HipError deviceEnablePeerAccess(int From, int To) {
  if (const hipError_t R = Amd.hipSetDevice(From); R != hipSuccess)
    return err(R);
  const hipError_t R = AmdDeviceEnablePeerAccess(To, 0);
  return err(R == hipErrorPeerAccessAlreadyEnabled ? hipSuccess : R);
}
HipError mallocManaged(void **P, size_t Size) {
  return err(Amd.hipMallocManaged(P, Size, hipMemAttachGlobal));
}
// ROCm 5 fails for pageable memory; ROCm 6 succeeds with no device pointer (type
// "unregistered"). Both keep devicePointer where 5.2's header has it; the struct is
// padded in case a later one is larger.
bool knowsHostPointer(const void *Host) {
  union {
    hipPointerAttribute_t Attributes;
    unsigned char Room[256];
  } Answer{};
  return AmdPointerGetAttributes(&Answer.Attributes, Host) == hipSuccess &&
         Answer.Attributes.devicePointer != nullptr;
}
HipError memGetFree(int Ordinal, size_t *Free) {
  if (const hipError_t R = Amd.hipSetDevice(Ordinal); R != hipSuccess)
    return err(R);
  size_t Total = 0;
  return err(AmdMemGetInfo(Free, &Total));
}
HipError memcpyAsync(void *Dst, const void *Src, size_t Size, HipStream S) {
  return err(Amd.hipMemcpyAsync(Dst, Src, Size, hipMemcpyDefault, stream(S)));
}
HipError memcpyHtoD(void *Dst, const void *Src, size_t Size) {
  return err(Amd.hipMemcpyHtoD(Dst, const_cast<void *>(Src), Size));
}
HipError memcpyHtoDAsync(void *Dst, const void *Src, size_t Size, HipStream S) {
  return err(Amd.hipMemcpyHtoDAsync(Dst, const_cast<void *>(Src), Size, stream(S)));
}
HipError memcpyDtoHAsync(void *Dst, const void *Src, size_t Size, HipStream S) {
  return err(Amd.hipMemcpyDtoHAsync(Dst, const_cast<void *>(Src), Size, stream(S)));
}
HipError memsetD8Async(void *Dst, unsigned char Value, size_t Count, HipStream S) {
  return err(Amd.hipMemsetD8Async(Dst, Value, Count, stream(S)));
}
HipError memsetD16Async(void *Dst, unsigned short Value, size_t Count, HipStream S) {
  return err(Amd.hipMemsetD16Async(Dst, Value, Count, stream(S)));
}
HipError memsetD32Async(void *Dst, unsigned Value, size_t Count, HipStream S) {
  return err(Amd.hipMemsetD32Async(Dst, static_cast<int>(Value), Count, stream(S)));
}
HipError memcpy2DAsync(void *Dst, size_t DstPitch, const void *Src, size_t SrcPitch, size_t Width,
                       size_t Height, HipStream S) {
  return err(
      AmdMemcpy2DAsync(Dst, DstPitch, Src, SrcPitch, Width, Height, hipMemcpyDefault, stream(S)));
}
HipError moduleLoadData(HipModule *Out, const void *Image, std::string &) {
  hipModule_t Module = nullptr;
  const hipError_t R = Amd.hipModuleLoadData(&Module, Image);
  *Out = reinterpret_cast<HipModule>(Module);
  return err(R);
}
HipError moduleUnload(HipModule M) { return err(Amd.hipModuleUnload(module(M))); }
HipError moduleGetFunction(HipFunction *Out, HipModule M, const char *Name) {
  hipFunction_t Function = nullptr;
  const hipError_t R = Amd.hipModuleGetFunction(&Function, module(M), Name);
  *Out = reinterpret_cast<HipFunction>(Function);
  return err(R);
}
HipError moduleGetGlobal(void **Address, size_t *Bytes, HipModule M, const char *Name) {
  hipDeviceptr_t Pointer = nullptr;
  const hipError_t R = Amd.hipModuleGetGlobal(&Pointer, Bytes, module(M), Name);
  *Address = Pointer;
  return err(R);
}
HipError funcMaxThreadsPerBlock(int *Value, HipFunction F) {
  return err(Amd.hipFuncGetAttribute(Value, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function(F)));
}
HipError funcMemory(int *Shared, int *Local, HipFunction F) {
  if (const hipError_t R =
          Amd.hipFuncGetAttribute(Shared, HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function(F));
      R != hipSuccess)
    return err(R);
  return err(Amd.hipFuncGetAttribute(Local, HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, function(F)));
}
HipError moduleLaunchKernel(HipFunction F, const unsigned Grid[3], const unsigned Block[3],
                            unsigned SharedBytes, HipStream S, void **Params) {
  return err(Amd.hipModuleLaunchKernel(function(F), Grid[0], Grid[1], Grid[2], Block[0], Block[1],
                                       Block[2], SharedBytes, stream(S), Params, nullptr));
}
const char *errorName(HipError E) {
  const char *Name =
      Amd.hipGetErrorName != nullptr ? Amd.hipGetErrorName(static_cast<hipError_t>(E)) : nullptr;
  return Name != nullptr ? Name : "hipErrorUnknown";
}
const char *errorString(HipError E) {
  const char *Text = Amd.hipGetErrorString != nullptr
                         ? Amd.hipGetErrorString(static_cast<hipError_t>(E))
                         : nullptr;
  return Text != nullptr ? Text : "no description";
}

HipApi Table;

struct LoadState {
  bool Loaded = false;
  std::string Reason;
};

LoadState load() {
  LoadState State;
  // libamdhip64.so.5 is the ABI these headers describe; the unversioned name is
  // for installations without the versioned link.
  const char *Names[] = {"libamdhip64.so.5", "libamdhip64.so"};
  void *Library = nullptr;
  const char *Opened = nullptr;
  std::string Errors;
  for (const char *Name : Names) {
    Library = dlopen(Name, RTLD_NOW | RTLD_LOCAL);
    if (Library != nullptr) {
      Opened = Name;
      break;
    }
    const char *Error = dlerror();
    Errors += std::string(Errors.empty() ? "" : "; ") + (Error ? Error : Name);
  }
  if (Library == nullptr) {
    State.Reason = "cannot open libamdhip64: " + Errors;
    return State;
  }
  AmdFunctions Functions;
#define DGLINK_HIP_AMD_RESOLVE(Name)                                                               \
  if (!resolve(Library, #Name, Functions.Name)) {                                                  \
    State.Reason = std::string(Opened) + " lacks " #Name;                                          \
    dlclose(Library);                                                                              \
    return State;                                                                                  \
  }
  DGLINK_HIP_AMD_FUNCTIONS(DGLINK_HIP_AMD_RESOLVE)
#define DGLINK_HIP_AMD_RESOLVE_TYPED(Name, Type) DGLINK_HIP_AMD_RESOLVE(Name)
  DGLINK_HIP_AMD_OVERLOADED(DGLINK_HIP_AMD_RESOLVE_TYPED)
#undef DGLINK_HIP_AMD_RESOLVE_TYPED
#undef DGLINK_HIP_AMD_RESOLVE
  Amd = Functions; // written once, before any handle exists
  if (!resolve(Library, "hipPointerGetAttributes", AmdPointerGetAttributes))
    AmdPointerGetAttributes = nullptr;
  if (!resolve(Library, "hipEventElapsedTime", AmdEventElapsedTime))
    AmdEventElapsedTime = nullptr;
  if (!resolve(Library, "hipMemcpy2DAsync", AmdMemcpy2DAsync))
    AmdMemcpy2DAsync = nullptr;
  if (!resolve(Library, "hipHostRegister", AmdHostRegister) ||
      !resolve(Library, "hipHostUnregister", AmdHostUnregister) ||
      !resolve(Library, "hipHostGetDevicePointer", AmdHostGetDevicePointer))
    AmdHostRegister = nullptr;
  if (!resolve(Library, "hipDeviceGetPCIBusId", AmdDeviceGetPCIBusId))
    AmdDeviceGetPCIBusId = nullptr;
  if (!resolve(Library, "hipDeviceGetUuid", AmdDeviceGetUuid))
    AmdDeviceGetUuid = nullptr;
  if (!resolve(Library, "hipMemGetInfo", AmdMemGetInfo))
    AmdMemGetInfo = nullptr;
  if (!resolve(Library, "hipDeviceCanAccessPeer", AmdDeviceCanAccessPeer) ||
      !resolve(Library, "hipDeviceEnablePeerAccess", AmdDeviceEnablePeerAccess))
    AmdDeviceCanAccessPeer = nullptr;
  const hipError_t Init = Amd.hipInit(0);
  if (Init != hipSuccess) {
    State.Reason = std::string("hipInit failed: ") + errorName(Init) + " (" +
                   std::to_string(static_cast<int>(Init)) + ")";
    return State; // the library stays open: HIP's runtime may have started threads
  }
  Table.Platform = "AMD";
  Table.Library = Opened;
  Table.GetDeviceCount = getDeviceCount;
  Table.DriverGetVersion = driverGetVersion;
  Table.GetDeviceInfo = getDeviceInfo;
  Table.SetDevice = setDevice;
  Table.StreamCreateNonBlocking = streamCreateNonBlocking;
  Table.StreamDestroy = streamDestroy;
  Table.StreamSynchronize = streamSynchronize;
  Table.StreamWaitEvent = streamWaitEvent;
  Table.EventCreateNoTiming = eventCreateNoTiming;
  Table.EventDestroy = eventDestroy;
  Table.EventRecord = eventRecord;
  Table.EventSynchronize = eventSynchronize;
  Table.EventQuery = eventQuery;
  Table.Malloc = mallocDevice;
  Table.Free = freeDevice;
  Table.HostMalloc = hostMalloc;
  Table.HostFree = hostFree;
  Table.MallocManaged = mallocManaged;
  if (AmdPointerGetAttributes != nullptr)
    Table.KnowsHostPointer = knowsHostPointer;
  if (AmdMemGetInfo != nullptr)
    Table.MemGetFree = memGetFree;
  if (AmdEventElapsedTime != nullptr) {
    Table.EventCreateTimed = eventCreateTimed;
    Table.EventElapsedTime = eventElapsedTime;
  }
  if (AmdHostRegister != nullptr) {
    Table.HostRegister = hostRegister;
    Table.HostUnregister = hostUnregister;
  }
  if (AmdDeviceCanAccessPeer != nullptr && AmdDeviceEnablePeerAccess != nullptr) {
    Table.DeviceCanAccessPeer = deviceCanAccessPeer;
    Table.DeviceEnablePeerAccess = deviceEnablePeerAccess;
  }
  Table.MemcpyAsync = memcpyAsync;
  Table.MemcpyHtoD = memcpyHtoD;
  Table.MemcpyHtoDAsync = memcpyHtoDAsync;
  Table.MemcpyDtoHAsync = memcpyDtoHAsync;
  if (AmdMemcpy2DAsync != nullptr)
    Table.Memcpy2DAsync = memcpy2DAsync;
  Table.MemsetD8Async = memsetD8Async;
  Table.MemsetD16Async = memsetD16Async;
  Table.MemsetD32Async = memsetD32Async;
  Table.ModuleLoadData = moduleLoadData;
  Table.ModuleUnload = moduleUnload;
  Table.ModuleGetFunction = moduleGetFunction;
  Table.ModuleGetGlobal = moduleGetGlobal;
  Table.FuncMaxThreadsPerBlock = funcMaxThreadsPerBlock;
  Table.FuncMemory = funcMemory;
  Table.ModuleLaunchKernel = moduleLaunchKernel;
  Table.ErrorName = errorName;
  Table.ErrorString = errorString;
  State.Loaded = true;
  return State;
}

} // namespace

bool loadHip(std::string *Reason) {
  static const LoadState State = [] {
    LoadState Result = load();
    if (Result.Loaded)
      logger().debug("hip: {} loaded (AMD platform)", Table.Library);
    else
      logger().info("hip: no usable HIP runtime or AMD GPU: {}; the adapter reports zero "
                    "platforms",
                    Result.Reason);
    return Result;
  }();
  if (Reason != nullptr)
    *Reason = State.Reason;
  return State.Loaded;
}

const HipApi &hip() { return Table; }

} // namespace dglink::hip
