// The HIP adapter: the adapter core with the stream backend on HIP (docs/hip.md). Its
// driver maps the stream backend's calls onto the HipApi table, whose entries call
// libamdhip64 (backend_amd.cpp) or the CUDA driver (backend_nvidia.cpp), and reads
// and links the build's device code (native_code.h).
#include "hip_api.h"
#include "native_code.h"

#include <dglink/stream/backend.h>

#include <cstring>
#include <limits>

namespace dglink::hip {
namespace {

bool isAmd() { return std::strcmp(imageTarget(), PI_DEVICE_BINARY_TARGET_AMDGCN) == 0; }

stream::Stream toStream(HipStream S) { return reinterpret_cast<stream::Stream>(S); }
HipStream hipStream(stream::Stream S) { return reinterpret_cast<HipStream>(S); }
HipEvent hipEvent(stream::Event E) { return reinterpret_cast<HipEvent>(E); }
HipModule hipModule(stream::Module M) { return reinterpret_cast<HipModule>(M); }
HipFunction hipFunction(stream::FunctionHandle F) { return reinterpret_cast<HipFunction>(F); }

// HIP's limit on what a launch passes by value (as CUDA's: 32764 bytes).
constexpr size_t MaxParameterBytes = 32764;

class HipDriver final : public stream::Driver {
public:
  bool open(std::string &Reason) override { return loadHip(&Reason); }
  pi_result deviceCount(int &Count) override {
    const HipError Result = hip().GetDeviceCount(&Count);
    if (Result == HipErrorNoDevice) {
      Count = 0;
      return PI_SUCCESS;
    }
    if (Result != HipSuccess)
      return hipError(Result, "hipGetDeviceCount");
    return PI_SUCCESS;
  }
  pi_result driverVersion(std::string &Version) override {
    int Number = 0;
    DGLINK_HIP(DriverGetVersion, &Number);
    // AMD: major * 10000000 + minor * 100000 + patch; NVIDIA: CUDA's numbering.
    Version = isAmd()
                  ? std::to_string(Number / 10000000) + "." + std::to_string(Number / 100000 % 100)
                  : std::to_string(Number / 1000) + "." + std::to_string(Number % 1000 / 10);
    return PI_SUCCESS;
  }
  pi_result deviceInfo(int Ordinal, stream::DeviceInfo &Info) override {
    DGLINK_HIP(GetDeviceInfo, Ordinal, Info);
    // Virtual memory where the platform's table has every call of it.
    Info.VirtualMemory = Info.VirtualMemory && hasVirtualMemory();
    // Images where it has the image calls and the device states its limits.
    Info.Images = {};
    if (hasImages())
      hip().ImageLimits(Ordinal, Info.Images);
    Info.TimedEvents = hip().EventCreateTimed != nullptr && hip().EventElapsedTime != nullptr;
    // HIP's table has no cooperative launch (the NVIDIA platform reads CUDA's attributes).
    Info.CooperativeLaunch = false;
    Info.Version =
        isAmd() ? Info.Arch
                : std::to_string(Info.ComputeMajor) + "." + std::to_string(Info.ComputeMinor);
    return PI_SUCCESS;
  }
  const char *vendor() const override {
    return isAmd() ? "Advanced Micro Devices, Inc." : "NVIDIA Corporation";
  }
  pi_uint32 vendorId() const override { return isAmd() ? 0x1002 : 0x10DE; }
  pi_result makeCurrent(int Ordinal) override {
    const HipError Result = hip().SetDevice(Ordinal);
    return Result == HipSuccess ? PI_SUCCESS : hipError(Result, "hipSetDevice");
  }
  // hipDevice_t is the ordinal; HIP's contexts are deprecated, so none is given.
  bool nativeDevice(int Ordinal, uintptr_t &Handle) override {
    Handle = static_cast<uintptr_t>(Ordinal);
    return true;
  }

  bool freeMemory(int Ordinal, size_t &Bytes) override {
    return hip().MemGetFree != nullptr && hip().MemGetFree(Ordinal, &Bytes) == HipSuccess;
  }
  bool canAccessPeer(int From, int To) override {
    return hip().DeviceCanAccessPeer != nullptr && hip().DeviceEnablePeerAccess != nullptr &&
           hip().DeviceCanAccessPeer(From, To);
  }
  pi_result enablePeerAccess(int From, int To) override {
    DGLINK_HIP(DeviceEnablePeerAccess, From, To);
    return PI_SUCCESS;
  }

  pi_result streamDevice(stream::Stream S, int &Ordinal, bool &Known) override {
    Known = false;
    if (hip().StreamOrdinal == nullptr)
      return PI_SUCCESS;
    const HipError Result = hip().StreamOrdinal(hipStream(S), &Ordinal);
    if (Result == HipErrorNotSupported)
      return PI_SUCCESS;
    if (Result != HipSuccess)
      return hipError(Result, "hipStreamGetDevice", PI_ERROR_INVALID_VALUE);
    Known = true;
    return PI_SUCCESS;
  }
  pi_result createStream(stream::Stream &Out) override {
    HipStream S = nullptr;
    DGLINK_HIP(StreamCreateNonBlocking, &S);
    Out = toStream(S);
    return PI_SUCCESS;
  }
  void destroyStream(stream::Stream S) override { hip().StreamDestroy(hipStream(S)); }
  pi_result synchronize(stream::Stream S) override {
    DGLINK_HIP(StreamSynchronize, hipStream(S));
    return PI_SUCCESS;
  }
  pi_result waitEvent(stream::Stream S, stream::Event E) override {
    DGLINK_HIP(StreamWaitEvent, hipStream(S), hipEvent(E));
    return PI_SUCCESS;
  }
  pi_result createEvent(stream::Event &Out) override {
    HipEvent E = nullptr;
    DGLINK_HIP(EventCreateNoTiming, &E);
    Out = reinterpret_cast<stream::Event>(E);
    return PI_SUCCESS;
  }
  void destroyEvent(stream::Event E) override { hip().EventDestroy(hipEvent(E)); }
  pi_result createTimedEvent(stream::Event &Out) override {
    if (hip().EventCreateTimed == nullptr || hip().EventElapsedTime == nullptr)
      return PI_ERROR_UNSUPPORTED_FEATURE;
    HipEvent E = nullptr;
    DGLINK_HIP(EventCreateTimed, &E);
    Out = reinterpret_cast<stream::Event>(E);
    return PI_SUCCESS;
  }
  pi_result elapsed(stream::Event From, stream::Event To, float &Milliseconds) override {
    if (hip().EventElapsedTime == nullptr)
      return PI_ERROR_UNSUPPORTED_FEATURE;
    DGLINK_HIP(EventElapsedTime, &Milliseconds, hipEvent(From), hipEvent(To));
    return PI_SUCCESS;
  }
  pi_result registerHost(void *Host, size_t Size, void *&Device) override {
    if (hip().HostRegister == nullptr || hip().HostUnregister == nullptr)
      return PI_ERROR_UNSUPPORTED_FEATURE;
    DGLINK_HIP(HostRegister, Host, Size, &Device);
    return PI_SUCCESS;
  }
  void unregisterHost(void *Host) override { hip().HostUnregister(Host); }
  pi_result record(stream::Event E, stream::Stream S) override {
    DGLINK_HIP(EventRecord, hipEvent(E), hipStream(S));
    return PI_SUCCESS;
  }
  pi_result synchronize(stream::Event E) override {
    DGLINK_HIP(EventSynchronize, hipEvent(E));
    return PI_SUCCESS;
  }
  pi_result query(stream::Event E, bool &Complete) override {
    const HipError Result = hip().EventQuery(hipEvent(E));
    if (Result != HipSuccess && Result != HipErrorNotReady)
      return hipError(Result, "hipEventQuery");
    Complete = Result == HipSuccess;
    return PI_SUCCESS;
  }

  // Virtual memory: the table's hipMem* entries (null where the platform has none:
  // every device then says so at discovery and the core calls none of these).
  static bool hasVirtualMemory() {
    const HipApi &Api = hip();
    return Api.MemGetAllocationGranularity != nullptr && Api.MemAddressReserve != nullptr &&
           Api.MemAddressFree != nullptr && Api.MemCreate != nullptr && Api.MemRelease != nullptr &&
           Api.MemMap != nullptr && Api.MemUnmap != nullptr && Api.MemSetAccess != nullptr &&
           Api.MemGetAccess != nullptr;
  }
  pi_result memoryGranularity(int Ordinal, bool Recommended, size_t &Out) override {
    if (!hasVirtualMemory())
      return PI_ERROR_UNSUPPORTED_FEATURE;
    DGLINK_HIP(MemGetAllocationGranularity, Ordinal, Recommended, &Out);
    return PI_SUCCESS;
  }
  pi_result reserveAddresses(const void *Hint, size_t Size, void *&Start) override {
    if (!hasVirtualMemory())
      return PI_ERROR_UNSUPPORTED_FEATURE;
    DGLINK_HIP(MemAddressReserve, &Start, Size, Hint);
    return PI_SUCCESS;
  }
  pi_result freeAddresses(const void *Start, size_t Size) override {
    if (!hasVirtualMemory())
      return PI_ERROR_UNSUPPORTED_FEATURE;
    DGLINK_HIP(MemAddressFree, Start, Size);
    return PI_SUCCESS;
  }
  pi_result createPhysical(int Ordinal, size_t Size, bool Shareable,
                           stream::PhysicalHandle &Out) override {
    if (!hasVirtualMemory())
      return PI_ERROR_UNSUPPORTED_FEATURE;
    DGLINK_HIP(MemCreate, &Out, Ordinal, Size, Shareable);
    return PI_SUCCESS;
  }
  void releasePhysical(stream::PhysicalHandle Handle) override {
    if (hip().MemRelease != nullptr)
      (void)hip().MemRelease(Handle);
  }
  pi_result mapAddresses(const void *Start, size_t Size, stream::PhysicalHandle Physical,
                         size_t Offset) override {
    if (!hasVirtualMemory())
      return PI_ERROR_UNSUPPORTED_FEATURE;
    DGLINK_HIP(MemMap, Start, Size, Offset, Physical);
    return PI_SUCCESS;
  }
  pi_result unmapAddresses(const void *Start, size_t Size) override {
    if (!hasVirtualMemory())
      return PI_ERROR_UNSUPPORTED_FEATURE;
    DGLINK_HIP(MemUnmap, Start, Size);
    return PI_SUCCESS;
  }
  pi_result setAccess(const void *Start, size_t Size, const std::vector<int> &Ordinals,
                      stream::VirtualAccess Access) override {
    if (!hasVirtualMemory())
      return PI_ERROR_UNSUPPORTED_FEATURE;
    DGLINK_HIP(MemSetAccess, Start, Size, Ordinals, Access);
    return PI_SUCCESS;
  }
  pi_result access(const void *Start, int Ordinal, stream::VirtualAccess &Out) override {
    if (!hasVirtualMemory())
      return PI_ERROR_UNSUPPORTED_FEATURE;
    DGLINK_HIP(MemGetAccess, Start, Ordinal, &Out);
    return PI_SUCCESS;
  }

  static bool hasImages() {
    const HipApi &Api = hip();
    return Api.ImageLimits != nullptr && Api.ArrayCreate != nullptr &&
           Api.ArrayDestroy != nullptr && Api.ArrayCopy != nullptr &&
           Api.SurfaceCreate != nullptr && Api.SurfaceDestroy != nullptr;
  }
  pi_result createArray(const stream::ArrayShape &Shape, stream::ImageArray &Out) override {
    if (!hasImages())
      return PI_ERROR_UNSUPPORTED_FEATURE;
    const HipError Result = hip().ArrayCreate(Shape, &Out);
    if (Result == HipSuccess)
      return PI_SUCCESS;
    // The sizes passed the device's limits; what the platform still refuses is a size.
    return hipError(Result, "hipArray3DCreate",
                    Result == HipErrorInvalidValue  ? PI_ERROR_INVALID_IMAGE_SIZE
                    : Result == HipErrorOutOfMemory ? PI_ERROR_MEM_OBJECT_ALLOCATION_FAILURE
                                                    : PI_ERROR_UNKNOWN);
  }
  void destroyArray(stream::ImageArray Array) override {
    if (hip().ArrayDestroy != nullptr)
      (void)hip().ArrayDestroy(Array);
  }
  pi_result describeArray(stream::ImageArray Array, stream::ArrayShape &Out) override {
    if (!hasImages() || hip().ArrayDescribe == nullptr)
      return PI_ERROR_UNSUPPORTED_FEATURE;
    const HipError Result = hip().ArrayDescribe(Array, &Out);
    if (Result == HipErrorNotSupported)
      return PI_ERROR_UNSUPPORTED_FEATURE;
    if (Result != HipSuccess)
      return hipError(Result, "hipArray3DGetDescriptor", PI_ERROR_INVALID_VALUE);
    return PI_SUCCESS;
  }
  pi_result copyArray(const stream::ArrayCopy &Copy, int StreamOrdinal, stream::Stream S) override {
    if (!hasImages())
      return PI_ERROR_UNSUPPORTED_FEATURE;
    const char *Call = "hipMemcpy3DAsync";
    if (const HipError Result = hip().ArrayCopy(Copy, StreamOrdinal, hipStream(S), &Call);
        Result != HipSuccess)
      return hipError(Result, Call);
    return PI_SUCCESS;
  }
  pi_result createSurface(stream::ImageArray Array, uint64_t &Out) override {
    if (!hasImages())
      return PI_ERROR_UNSUPPORTED_FEATURE;
    if (const HipError Result = hip().SurfaceCreate(Array, &Out); Result != HipSuccess)
      return hipError(Result, "hipCreateSurfaceObject");
    return PI_SUCCESS;
  }
  void destroySurface(uint64_t Surface) override {
    if (hip().SurfaceDestroy != nullptr)
      (void)hip().SurfaceDestroy(Surface);
  }

  pi_result allocateDevice(void *&Pointer, size_t Size) override {
    DGLINK_HIP(Malloc, &Pointer, Size);
    return PI_SUCCESS;
  }
  pi_result freeDevice(void *Pointer) override {
    const HipError Result = hip().Free(Pointer);
    if (Result == HipErrorInvalidValue || Result == HipErrorInvalidDevicePointer)
      return hipError(Result, "hipFree", PI_ERROR_INVALID_VALUE);
    return Result == HipSuccess ? PI_SUCCESS : hipError(Result, "hipFree");
  }
  pi_result allocateHost(void *&Pointer, size_t Size) override {
    DGLINK_HIP(HostMalloc, &Pointer, Size);
    return PI_SUCCESS;
  }
  pi_result freeHost(void *Pointer) override {
    DGLINK_HIP(HostFree, Pointer);
    return PI_SUCCESS;
  }
  pi_result allocateShared(void *&Pointer, size_t Size) override {
    DGLINK_HIP(MallocManaged, &Pointer, Size);
    return PI_SUCCESS;
  }
  // Where the platform's library has no pointer query, every large copy is staged,
  // which is correct for pinned memory too.
  bool knowsHostPointer(const void *Host) override {
    return hip().KnowsHostPointer != nullptr && hip().KnowsHostPointer(Host);
  }
  bool pageableHost(const void *Host) override {
    return hip().IsPageableHost != nullptr && hip().IsPageableHost(Host);
  }
  pi_result copy(void *Dst, const void *Src, size_t Size, stream::Stream S) override {
    DGLINK_HIP(MemcpyAsync, Dst, Src, Size, hipStream(S));
    return PI_SUCCESS;
  }
  pi_result copyToDevice(void *Dst, const void *Src, size_t Size, stream::Stream S) override {
    DGLINK_HIP(MemcpyHtoDAsync, Dst, Src, Size, hipStream(S));
    return PI_SUCCESS;
  }
  pi_result copyToHost(void *Dst, const void *Src, size_t Size, stream::Stream S) override {
    DGLINK_HIP(MemcpyDtoHAsync, Dst, Src, Size, hipStream(S));
    return PI_SUCCESS;
  }
  pi_result copyToDeviceNow(void *Dst, const void *Src, size_t Size) override {
    DGLINK_HIP(MemcpyHtoD, Dst, Src, Size);
    return PI_SUCCESS;
  }
  pi_result copy2D(void *Dst, size_t DstPitch, const void *Src, size_t SrcPitch, size_t Width,
                   size_t Height, stream::Stream S) override {
    if (hip().Memcpy2DAsync == nullptr)
      return Driver::copy2D(Dst, DstPitch, Src, SrcPitch, Width, Height, S);
    DGLINK_HIP(Memcpy2DAsync, Dst, DstPitch, Src, SrcPitch, Width, Height, hipStream(S));
    return PI_SUCCESS;
  }
  pi_result fill(void *Dst, uint32_t Value, unsigned ElementSize, size_t Count,
                 stream::Stream S) override {
    if (ElementSize == 1)
      DGLINK_HIP(MemsetD8Async, Dst, static_cast<unsigned char>(Value), Count, hipStream(S));
    else if (ElementSize == 2)
      DGLINK_HIP(MemsetD16Async, Dst, static_cast<unsigned short>(Value), Count, hipStream(S));
    else
      DGLINK_HIP(MemsetD32Async, Dst, Value, Count, hipStream(S));
    return PI_SUCCESS;
  }

  pi_result loadModule(stream::Module &Out, const void *Image, std::string &Log) override {
    HipModule M = nullptr;
    const HipError Result = hip().ModuleLoadData(&M, Image, Log);
    if (Result != HipSuccess)
      return hipError(Result, "hipModuleLoadData", PI_ERROR_BUILD_PROGRAM_FAILURE);
    Out = reinterpret_cast<stream::Module>(M);
    return PI_SUCCESS;
  }
  void unloadModule(stream::Module M) override { hip().ModuleUnload(hipModule(M)); }
  pi_result function(stream::Module M, const char *Name, stream::FunctionHandle &Out,
                     bool &Found) override {
    HipFunction F = nullptr;
    const HipError Result = hip().ModuleGetFunction(&F, hipModule(M), Name);
    if (Result != HipSuccess && Result != HipErrorNotFound)
      return hipError(Result, "hipModuleGetFunction");
    Found = Result == HipSuccess;
    if (Found)
      Out = reinterpret_cast<stream::FunctionHandle>(F);
    return PI_SUCCESS;
  }
  pi_result global(stream::Module M, const char *Name, void *&Address, size_t &Bytes,
                   bool &Found) override {
    void *Pointer = nullptr;
    size_t Size = 0;
    const HipError Result = hip().ModuleGetGlobal(&Pointer, &Size, hipModule(M), Name);
    if (Result != HipSuccess && Result != HipErrorNotFound)
      return hipError(Result, "hipModuleGetGlobal");
    Found = Result == HipSuccess;
    if (Found) {
      Address = Pointer;
      Bytes = Size;
    }
    return PI_SUCCESS;
  }
  std::vector<std::string> kernelNames(stream::Module) override { return {}; }
  bool functionName(stream::FunctionHandle F, std::string &Name) override {
    return hip().FunctionName != nullptr && hip().FunctionName(hipFunction(F), Name);
  }
  bool pointerRange(const void *Pointer, stream::PointerRange &Out) override {
    return hip().PointerRange != nullptr && hip().PointerRange(Pointer, Out);
  }
  int maxThreadsPerBlock(stream::FunctionHandle F) override {
    int Value = 0;
    return hip().FuncMaxThreadsPerBlock(&Value, hipFunction(F)) == HipSuccess ? Value : 0;
  }
  bool parameterSizes(stream::FunctionHandle F, std::vector<size_t> &Sizes) override {
    return hip().FuncParameterSizes != nullptr && hip().FuncParameterSizes(hipFunction(F), Sizes);
  }
  size_t maxParameterBytes() const override { return MaxParameterBytes; }
  bool functionMemory(stream::FunctionHandle F, size_t &SharedBytes, size_t &LocalBytes) override {
    int Shared = 0, Local = 0;
    if (hip().FuncMemory == nullptr ||
        hip().FuncMemory(&Shared, &Local, hipFunction(F)) != HipSuccess)
      return false;
    SharedBytes = static_cast<size_t>(Shared);
    LocalBytes = static_cast<size_t>(Local);
    return true;
  }
  pi_result reserveDynamicShared(stream::FunctionHandle F, size_t Bytes) override {
    if (hip().FuncReserveDynamicShared != nullptr)
      DGLINK_HIP(FuncReserveDynamicShared, hipFunction(F), Bytes);
    return PI_SUCCESS;
  }
  pi_result launch(stream::FunctionHandle F, const unsigned Grid[3], const unsigned Block[3],
                   size_t SharedBytes, stream::Stream S, void **Params) override {
    if (SharedBytes > std::numeric_limits<unsigned>::max())
      return fail(PI_ERROR_OUT_OF_RESOURCES,
                  "hipModuleLaunchKernel: {} bytes of dynamic shared memory do not fit its "
                  "argument",
                  SharedBytes);
    DGLINK_HIP(ModuleLaunchKernel, hipFunction(F), Grid, Block, static_cast<unsigned>(SharedBytes),
               hipStream(S), Params);
    return PI_SUCCESS;
  }

  const char *target() const override { return imageTarget(); }
  const char *codeDescription() const override { return hip::codeDescription(); }
  bool detectCode(const void *Data, size_t Size, stream::CodeKind &Kind) override {
    return hip::detectCode(Data, Size, Kind);
  }
  std::vector<std::string> codeKernelNames(stream::CodeKind Kind,
                                           const std::vector<char> &Bytes) override {
    return hip::kernelNames(Kind, Bytes);
  }
  pi_result codeForLoad(stream::CodeKind Kind, const std::vector<char> &Bytes,
                        const stream::DeviceInfo &Device, std::vector<char> &Out,
                        std::string &Log) override {
    return hip::codeForLoad(Kind, Bytes, Device.Arch, Out, Log);
  }
  bool linkerAvailable(std::string *Why) override { return hip::linkerAvailable(Why); }
  pi_result link(const std::vector<stream::LinkSource> &Sources, const stream::DeviceInfo &Device,
                 std::vector<char> &Out, stream::CodeKind &OutKind, std::string &Log) override {
    return linkCode(Sources, Device.Arch, Device.ComputeMajor, Device.ComputeMinor, Out, OutKind,
                    Log);
  }
};

} // namespace
} // namespace dglink::hip

namespace dglink::core {

std::unique_ptr<Backend> makeBackend() {
  const bool Amd = hip::isAmd();
  stream::Personality Hip;
  Hip.Name = DGLINK_ADAPTER_NAME;
  Hip.Label = "HIP";
  Hip.PlatformName = Amd ? "AMD HIP" : "HIP (NVIDIA platform)";
  Hip.PlatformVersion =
      Amd ? [](const std::string &Driver) { return "HIP " + Driver + " (AMD)"; }
          : [](const std::string &Driver) { return "HIP on CUDA " + Driver + " (NVIDIA)"; };
  return std::make_unique<stream::StreamBackend>(Hip, std::make_unique<hip::HipDriver>());
}

} // namespace dglink::core
