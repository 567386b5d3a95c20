// The stream backend's driver on the CUDA driver API.
#include "cuda_stream.h"

#include "cuda_code.h"

#include <dglink/support/error.h>

#include <array>
#include <atomic>
#include <limits>
#include <mutex>
#include <vector>

namespace dglink::cuda {
namespace {

CUstream stream(stream::Stream S) { return reinterpret_cast<CUstream>(S); }
CUevent event(stream::Event E) { return reinterpret_cast<CUevent>(E); }
CUmodule module(stream::Module M) { return reinterpret_cast<CUmodule>(M); }
CUfunction cuFunction(stream::FunctionHandle F) { return reinterpret_cast<CUfunction>(F); }
CUdeviceptr address(const void *Pointer) { return reinterpret_cast<CUdeviceptr>(Pointer); }

// The primary context of every device, retained on first use and kept for the
// process; read without a lock on the hot path.
constexpr int MaxDevices = 64;
std::mutex ContextsMutex; // serialises the first retain of a device's context
std::array<std::atomic<CUcontext>, MaxDevices> Contexts{};

// CUDA's limit on what a launch passes by value: 32764 bytes of parameters (compute
// capability 7.0+, CUDA 12.1+).
constexpr size_t MaxParameterBytes = 32764;

class CudaStreamDriver final : public stream::Driver {
public:
  bool open(std::string &Reason) override { return loadCudaDriver(&Reason); }
  pi_result deviceCount(int &Count) override {
    DGLINK_CU(cuDeviceGetCount, &Count);
    return PI_SUCCESS;
  }
  pi_result driverVersion(std::string &Version) override {
    int Number = 0;
    DGLINK_CU(cuDriverGetVersion, &Number);
    Version = std::to_string(Number / 1000) + "." + std::to_string(Number % 1000 / 10);
    return PI_SUCCESS;
  }
  pi_result deviceInfo(int Ordinal, stream::DeviceInfo &Info) override {
    if (const CUresult R = readDeviceInfo(Ordinal, Info); R != CUDA_SUCCESS)
      return cudaError(R, "cuDeviceGetAttribute");
    // Images are this driver's (HIP's NVIDIA build reads the same device without them).
    readImageLimits(Ordinal, Info.Images);
    return PI_SUCCESS;
  }
  const char *vendor() const override { return "NVIDIA Corporation"; }
  pi_uint32 vendorId() const override { return 0x10DE; }
  pi_result makeCurrent(int Ordinal) override {
    const CUresult R = makePrimaryCurrent(Ordinal);
    return R == CUDA_SUCCESS ? PI_SUCCESS : cudaError(R, "cuCtxSetCurrent");
  }
  bool nativeDevice(int Ordinal, uintptr_t &Handle) override {
    CUdevice Device = 0;
    if (cu().cuDeviceGet(&Device, Ordinal) != CUDA_SUCCESS)
      return false;
    Handle = static_cast<uintptr_t>(Device);
    return true;
  }
  bool hasNativeContexts() const override { return true; }
  bool nativeContext(int Ordinal, uintptr_t &Handle) override {
    // The primary context, retained once a context of the device exists.
    if (Ordinal < 0 || Ordinal >= MaxDevices)
      return false;
    const CUcontext Context =
        Contexts[static_cast<size_t>(Ordinal)].load(std::memory_order_acquire);
    Handle = reinterpret_cast<uintptr_t>(Context);
    return Context != nullptr;
  }

  bool canAccessPeer(int From, int To) override { return cuda::canAccessPeer(From, To); }
  bool freeMemory(int Ordinal, size_t &Bytes) override { return cuda::freeMemory(Ordinal, Bytes); }
  bool pageableHost(const void *Host) override { return cuda::pageableHost(Host); }
  pi_result enablePeerAccess(int From, int To) override {
    const CUresult R = cuda::enablePeerAccess(From, To);
    return R == CUDA_SUCCESS ? PI_SUCCESS : cudaError(R, "cuCtxEnablePeerAccess");
  }

  pi_result streamDevice(stream::Stream S, int &Ordinal, bool &Known) override {
    if (const CUresult R = streamOrdinal(stream(S), Ordinal, Known); R != CUDA_SUCCESS)
      return cudaError(R, "cuStreamGetCtx", PI_ERROR_INVALID_VALUE);
    return PI_SUCCESS;
  }
  pi_result createStream(stream::Stream &Out) override {
    CUstream S = nullptr;
    DGLINK_CU(cuStreamCreate, &S, CU_STREAM_NON_BLOCKING);
    Out = reinterpret_cast<stream::Stream>(S);
    return PI_SUCCESS;
  }
  void destroyStream(stream::Stream S) override { cu().cuStreamDestroy(stream(S)); }
  pi_result synchronize(stream::Stream S) override {
    DGLINK_CU(cuStreamSynchronize, stream(S));
    return PI_SUCCESS;
  }
  pi_result waitEvent(stream::Stream S, stream::Event E) override {
    DGLINK_CU(cuStreamWaitEvent, stream(S), event(E), 0);
    return PI_SUCCESS;
  }
  pi_result createEvent(stream::Event &Out) override {
    CUevent E = nullptr;
    DGLINK_CU(cuEventCreate, &E, CU_EVENT_DISABLE_TIMING);
    Out = reinterpret_cast<stream::Event>(E);
    return PI_SUCCESS;
  }
  void destroyEvent(stream::Event E) override { cu().cuEventDestroy(event(E)); }
  pi_result createTimedEvent(stream::Event &Out) override {
    if (cu().cuEventElapsedTime == nullptr)
      return PI_ERROR_UNSUPPORTED_FEATURE;
    CUevent E = nullptr;
    DGLINK_CU(cuEventCreate, &E, CU_EVENT_DEFAULT);
    Out = reinterpret_cast<stream::Event>(E);
    return PI_SUCCESS;
  }
  pi_result elapsed(stream::Event From, stream::Event To, float &Milliseconds) override {
    if (cu().cuEventElapsedTime == nullptr)
      return PI_ERROR_UNSUPPORTED_FEATURE;
    DGLINK_CU(cuEventElapsedTime, &Milliseconds, event(From), event(To));
    return PI_SUCCESS;
  }
  pi_result record(stream::Event E, stream::Stream S) override {
    DGLINK_CU(cuEventRecord, event(E), stream(S));
    return PI_SUCCESS;
  }
  pi_result synchronize(stream::Event E) override {
    DGLINK_CU(cuEventSynchronize, event(E));
    return PI_SUCCESS;
  }
  pi_result query(stream::Event E, bool &Complete) override {
    const CUresult R = cu().cuEventQuery(event(E));
    if (R != CUDA_SUCCESS && R != CUDA_ERROR_NOT_READY)
      return cudaError(R, "cuEventQuery");
    Complete = R == CUDA_SUCCESS;
    return PI_SUCCESS;
  }

  pi_result allocateDevice(void *&Pointer, size_t Size) override {
    CUdeviceptr Address = 0;
    DGLINK_CU(cuMemAlloc, &Address, Size);
    Pointer = reinterpret_cast<void *>(Address);
    return PI_SUCCESS;
  }
  pi_result freeDevice(void *Pointer) override {
    const CUresult R = cu().cuMemFree(address(Pointer));
    if (R == CUDA_ERROR_INVALID_VALUE)
      return fail(PI_ERROR_INVALID_VALUE, "cuMemFree: {} is no device allocation",
                  fmt::ptr(Pointer));
    return R == CUDA_SUCCESS ? PI_SUCCESS : cudaError(R, "cuMemFree");
  }
  pi_result allocateHost(void *&Pointer, size_t Size) override {
    DGLINK_CU(cuMemHostAlloc, &Pointer, Size, CU_MEMHOSTALLOC_PORTABLE);
    return PI_SUCCESS;
  }
  pi_result freeHost(void *Pointer) override {
    DGLINK_CU(cuMemFreeHost, Pointer);
    return PI_SUCCESS;
  }
  pi_result allocateShared(void *&Pointer, size_t Size) override {
    CUdeviceptr Address = 0;
    DGLINK_CU(cuMemAllocManaged, &Address, Size, CU_MEM_ATTACH_GLOBAL);
    Pointer = reinterpret_cast<void *>(Address);
    return PI_SUCCESS;
  }
  bool knowsHostPointer(const void *Host) override {
    unsigned int Type = 0;
    return cu().cuPointerGetAttribute(&Type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, address(Host)) ==
           CUDA_SUCCESS;
  }
  pi_result copy(void *Dst, const void *Src, size_t Size, stream::Stream S) override {
    DGLINK_CU(cuMemcpyAsync, address(Dst), address(Src), Size, stream(S));
    return PI_SUCCESS;
  }
  // Unified addressing: the driver tells host and device memory apart by address.
  pi_result copy2D(void *Dst, size_t DstPitch, const void *Src, size_t SrcPitch, size_t Width,
                   size_t Height, stream::Stream S) override {
    if (const CUresult R = copyPitched(Dst, DstPitch, Src, SrcPitch, Width, Height, stream(S));
        R != CUDA_SUCCESS)
      return cudaError(R, "cuMemcpy2DAsync");
    return PI_SUCCESS;
  }
  pi_result registerHost(void *Host, size_t Size, void *&Device) override {
    if (cu().cuMemHostRegister == nullptr || cu().cuMemHostGetDevicePointer == nullptr ||
        cu().cuMemHostUnregister == nullptr)
      return PI_ERROR_UNSUPPORTED_FEATURE;
    DGLINK_CU(cuMemHostRegister, Host, Size,
              CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP);
    CUdeviceptr Address = 0;
    const CUresult R = cu().cuMemHostGetDevicePointer(&Address, Host, 0);
    if (R != CUDA_SUCCESS) {
      cu().cuMemHostUnregister(Host);
      return cudaError(R, "cuMemHostGetDevicePointer");
    }
    Device = reinterpret_cast<void *>(Address);
    return PI_SUCCESS;
  }
  void unregisterHost(void *Host) override { cu().cuMemHostUnregister(Host); }

  pi_result createArray(const stream::ArrayShape &Shape, stream::ImageArray &Out) override {
    CUarray Array = nullptr;
    if (const CUresult R = cuda::createArray(Shape, Array); R != CUDA_SUCCESS)
      // The sizes passed the device's limits; what the driver still refuses is a size.
      return cudaError(R, "cuArray3DCreate",
                       R == CUDA_ERROR_INVALID_VALUE   ? PI_ERROR_INVALID_IMAGE_SIZE
                       : R == CUDA_ERROR_OUT_OF_MEMORY ? PI_ERROR_MEM_OBJECT_ALLOCATION_FAILURE
                                                       : PI_ERROR_UNKNOWN);
    Out = reinterpret_cast<stream::ImageArray>(Array);
    return PI_SUCCESS;
  }
  void destroyArray(stream::ImageArray Array) override {
    cu().cuArrayDestroy(reinterpret_cast<CUarray>(Array));
  }
  pi_result describeArray(stream::ImageArray Array, stream::ArrayShape &Out) override {
    const CUresult R = cuda::describeArray(reinterpret_cast<CUarray>(Array), Out);
    if (R == CUDA_ERROR_NOT_SUPPORTED)
      return PI_ERROR_UNSUPPORTED_FEATURE;
    if (R != CUDA_SUCCESS)
      return cudaError(R, "cuArray3DGetDescriptor", PI_ERROR_INVALID_VALUE);
    return PI_SUCCESS;
  }
  pi_result copyArray(const stream::ArrayCopy &Copy, int StreamOrdinal, stream::Stream S) override {
    const char *Call = "cuMemcpy3DAsync";
    if (const CUresult R = cuda::copyArray(Copy, StreamOrdinal, stream(S), Call); R != CUDA_SUCCESS)
      return cudaError(R, Call);
    return PI_SUCCESS;
  }
  pi_result createSurface(stream::ImageArray Array, uint64_t &Out) override {
    CUsurfObject Surface = 0;
    if (const CUresult R = cuda::createSurface(reinterpret_cast<CUarray>(Array), Surface);
        R != CUDA_SUCCESS)
      return cudaError(R, "cuSurfObjectCreate");
    Out = static_cast<uint64_t>(Surface);
    return PI_SUCCESS;
  }
  void destroySurface(uint64_t Surface) override {
    cu().cuSurfObjectDestroy(static_cast<CUsurfObject>(Surface));
  }
  pi_result memoryGranularity(int Ordinal, bool Recommended, size_t &Out) override {
    if (const CUresult R = cuda::memoryGranularity(Ordinal, Recommended, Out); R != CUDA_SUCCESS)
      return cudaError(R, "cuMemGetAllocationGranularity");
    return PI_SUCCESS;
  }
  pi_result reserveAddresses(const void *Hint, size_t Size, void *&Start) override {
    if (cu().cuMemAddressReserve == nullptr)
      return PI_ERROR_UNSUPPORTED_FEATURE;
    CUdeviceptr Reserved = 0;
    DGLINK_CU(cuMemAddressReserve, &Reserved, Size, 0, address(Hint), 0);
    Start = reinterpret_cast<void *>(Reserved);
    return PI_SUCCESS;
  }
  pi_result freeAddresses(const void *Start, size_t Size) override {
    if (cu().cuMemAddressFree == nullptr)
      return PI_ERROR_UNSUPPORTED_FEATURE;
    DGLINK_CU(cuMemAddressFree, address(Start), Size);
    return PI_SUCCESS;
  }
  pi_result createPhysical(int Ordinal, size_t Size, bool Shareable,
                           stream::PhysicalHandle &Out) override {
    CUmemGenericAllocationHandle Handle = 0;
    if (const CUresult R = cuda::createPhysical(Ordinal, Size, Shareable, Handle);
        R != CUDA_SUCCESS)
      return cudaError(R, "cuMemCreate");
    Out = static_cast<stream::PhysicalHandle>(Handle);
    return PI_SUCCESS;
  }
  void releasePhysical(stream::PhysicalHandle Handle) override {
    if (cu().cuMemRelease != nullptr)
      cu().cuMemRelease(static_cast<CUmemGenericAllocationHandle>(Handle));
  }
  pi_result mapAddresses(const void *Start, size_t Size, stream::PhysicalHandle Physical,
                         size_t Offset) override {
    if (cu().cuMemMap == nullptr)
      return PI_ERROR_UNSUPPORTED_FEATURE;
    DGLINK_CU(cuMemMap, address(Start), Size, Offset,
              static_cast<CUmemGenericAllocationHandle>(Physical), 0);
    return PI_SUCCESS;
  }
  pi_result unmapAddresses(const void *Start, size_t Size) override {
    if (cu().cuMemUnmap == nullptr)
      return PI_ERROR_UNSUPPORTED_FEATURE;
    DGLINK_CU(cuMemUnmap, address(Start), Size);
    return PI_SUCCESS;
  }
  pi_result setAccess(const void *Start, size_t Size, const std::vector<int> &Ordinals,
                      stream::VirtualAccess Access) override {
    if (const CUresult R = cuda::setAccess(address(Start), Size, Ordinals, Access);
        R != CUDA_SUCCESS)
      return cudaError(R, "cuMemSetAccess");
    return PI_SUCCESS;
  }
  pi_result access(const void *Start, int Ordinal, stream::VirtualAccess &Out) override {
    if (const CUresult R = cuda::access(address(Start), Ordinal, Out); R != CUDA_SUCCESS)
      return cudaError(R, "cuMemGetAccess");
    return PI_SUCCESS;
  }

  pi_result copyToDevice(void *Dst, const void *Src, size_t Size, stream::Stream S) override {
    DGLINK_CU(cuMemcpyHtoDAsync, address(Dst), Src, Size, stream(S));
    return PI_SUCCESS;
  }
  pi_result copyToHost(void *Dst, const void *Src, size_t Size, stream::Stream S) override {
    DGLINK_CU(cuMemcpyDtoHAsync, Dst, address(Src), Size, stream(S));
    return PI_SUCCESS;
  }
  pi_result copyToDeviceNow(void *Dst, const void *Src, size_t Size) override {
    DGLINK_CU(cuMemcpyHtoD, address(Dst), Src, Size);
    return PI_SUCCESS;
  }
  pi_result fill(void *Dst, uint32_t Value, unsigned ElementSize, size_t Count,
                 stream::Stream S) override {
    if (ElementSize == 1)
      DGLINK_CU(cuMemsetD8Async, address(Dst), static_cast<unsigned char>(Value), Count, stream(S));
    else if (ElementSize == 2)
      DGLINK_CU(cuMemsetD16Async, address(Dst), static_cast<unsigned short>(Value), Count,
                stream(S));
    else
      DGLINK_CU(cuMemsetD32Async, address(Dst), Value, Count, stream(S));
    return PI_SUCCESS;
  }

  // cuMemsetD2D*Async: Count elements a row, rows Pitch bytes apart.
  pi_result fill2D(void *Dst, size_t Pitch, uint32_t Value, unsigned ElementSize, size_t Count,
                   size_t Height, stream::Stream S) override {
    if (cu().cuMemsetD2D8Async == nullptr || cu().cuMemsetD2D16Async == nullptr ||
        cu().cuMemsetD2D32Async == nullptr)
      return Driver::fill2D(Dst, Pitch, Value, ElementSize, Count, Height, S);
    if (ElementSize == 1)
      DGLINK_CU(cuMemsetD2D8Async, address(Dst), Pitch, static_cast<unsigned char>(Value), Count,
                Height, stream(S));
    else if (ElementSize == 2)
      DGLINK_CU(cuMemsetD2D16Async, address(Dst), Pitch, static_cast<unsigned short>(Value), Count,
                Height, stream(S));
    else
      DGLINK_CU(cuMemsetD2D32Async, address(Dst), Pitch, Value, Count, Height, stream(S));
    return PI_SUCCESS;
  }

  pi_result loadModule(stream::Module &Out, const void *Image, std::string &Log) override {
    CUmodule M = nullptr;
    const CUresult R = loadModuleWithLog(M, Image, Log);
    if (R != CUDA_SUCCESS)
      return cudaError(R, "cuModuleLoadDataEx", PI_ERROR_BUILD_PROGRAM_FAILURE);
    Out = reinterpret_cast<stream::Module>(M);
    return PI_SUCCESS;
  }
  void unloadModule(stream::Module M) override { cu().cuModuleUnload(module(M)); }
  pi_result function(stream::Module M, const char *Name, stream::FunctionHandle &Out,
                     bool &Found) override {
    CUfunction F = nullptr;
    const CUresult R = cu().cuModuleGetFunction(&F, module(M), Name);
    if (R != CUDA_SUCCESS && R != CUDA_ERROR_NOT_FOUND)
      return cudaError(R, "cuModuleGetFunction");
    Found = R == CUDA_SUCCESS;
    if (Found)
      Out = reinterpret_cast<stream::FunctionHandle>(F);
    return PI_SUCCESS;
  }
  pi_result global(stream::Module M, const char *Name, void *&Address, size_t &Bytes,
                   bool &Found) override {
    CUdeviceptr Pointer = 0;
    size_t Size = 0;
    const CUresult R = cu().cuModuleGetGlobal(&Pointer, &Size, module(M), Name);
    if (R != CUDA_SUCCESS && R != CUDA_ERROR_NOT_FOUND)
      return cudaError(R, "cuModuleGetGlobal");
    Found = R == CUDA_SUCCESS;
    if (Found) {
      Address = reinterpret_cast<void *>(Pointer);
      Bytes = Size;
    }
    return PI_SUCCESS;
  }
  bool functionName(stream::FunctionHandle F, std::string &Name) override {
    return cuda::functionName(cuFunction(F), Name);
  }
  bool pointerRange(const void *Pointer, stream::PointerRange &Out) override {
    return cuda::pointerRange(Pointer, Out);
  }
  std::vector<std::string> kernelNames(stream::Module M) override {
    const CudaDriver &Cu = cu();
    std::vector<std::string> Names;
    unsigned Count = 0;
    if (Cu.cuModuleGetFunctionCount == nullptr || Cu.cuModuleEnumerateFunctions == nullptr ||
        Cu.cuFuncGetName == nullptr ||
        Cu.cuModuleGetFunctionCount(&Count, module(M)) != CUDA_SUCCESS || Count == 0)
      return Names;
    std::vector<CUfunction> Functions(Count);
    if (Cu.cuModuleEnumerateFunctions(Functions.data(), Count, module(M)) != CUDA_SUCCESS)
      return Names;
    for (CUfunction F : Functions) {
      const char *Name = nullptr;
      if (Cu.cuFuncGetName(&Name, F) == CUDA_SUCCESS && Name != nullptr)
        Names.emplace_back(Name);
    }
    return Names;
  }
  int maxThreadsPerBlock(stream::FunctionHandle F) override {
    int Value = 0;
    if (cu().cuFuncGetAttribute(&Value, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, cuFunction(F)) !=
        CUDA_SUCCESS)
      return 0;
    return Value;
  }
  bool functionMemory(stream::FunctionHandle F, size_t &SharedBytes, size_t &LocalBytes) override {
    int Shared = 0, Local = 0;
    if (cu().cuFuncGetAttribute(&Shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, cuFunction(F)) !=
            CUDA_SUCCESS ||
        cu().cuFuncGetAttribute(&Local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, cuFunction(F)) !=
            CUDA_SUCCESS)
      return false;
    SharedBytes = static_cast<size_t>(Shared);
    LocalBytes = static_cast<size_t>(Local);
    return true;
  }
  bool parameterSizes(stream::FunctionHandle F, std::vector<size_t> &Sizes) override {
    return kernelParameterSizes(cuFunction(F), Sizes);
  }
  size_t maxParameterBytes() const override { return MaxParameterBytes; }
  pi_result reserveDynamicShared(stream::FunctionHandle F, size_t Bytes) override {
    if (const CUresult R = reserveDynamicSharedMemory(cuFunction(F), Bytes); R != CUDA_SUCCESS)
      return cudaError(R, "cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    return PI_SUCCESS;
  }
  pi_result launch(stream::FunctionHandle F, const unsigned Grid[3], const unsigned Block[3],
                   size_t SharedBytes, stream::Stream S, void **Params) override {
    if (SharedBytes > std::numeric_limits<unsigned>::max())
      return fail(PI_ERROR_OUT_OF_RESOURCES,
                  "cuLaunchKernel: {} bytes of dynamic shared memory do not fit its argument",
                  SharedBytes);
    DGLINK_CU(cuLaunchKernel, cuFunction(F), Grid[0], Grid[1], Grid[2], Block[0], Block[1],
              Block[2], static_cast<unsigned>(SharedBytes), stream(S), Params, nullptr);
    return PI_SUCCESS;
  }

  pi_result launchCooperative(stream::FunctionHandle F, const unsigned Grid[3],
                              const unsigned Block[3], size_t SharedBytes, stream::Stream S,
                              void **Params) override {
    if (cu().cuLaunchCooperativeKernel == nullptr)
      return PI_ERROR_UNSUPPORTED_FEATURE;
    if (SharedBytes > std::numeric_limits<unsigned>::max())
      return fail(PI_ERROR_OUT_OF_RESOURCES,
                  "cuLaunchCooperativeKernel: {} bytes of dynamic shared memory do not fit its "
                  "argument",
                  SharedBytes);
    DGLINK_CU(cuLaunchCooperativeKernel, cuFunction(F), Grid[0], Grid[1], Grid[2], Block[0],
              Block[1], Block[2], static_cast<unsigned>(SharedBytes), stream(S), Params);
    return PI_SUCCESS;
  }
  pi_result maxActiveBlocks(stream::FunctionHandle F, int BlockSize, size_t SharedBytes,
                            int &PerMultiprocessor) override {
    if (cu().cuOccupancyMaxActiveBlocksPerMultiprocessor == nullptr)
      return PI_ERROR_UNSUPPORTED_FEATURE;
    DGLINK_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor, &PerMultiprocessor, cuFunction(F),
              BlockSize, SharedBytes);
    return PI_SUCCESS;
  }

  const char *target() const override { return PI_DEVICE_BINARY_TARGET_NVPTX64; }
  const char *codeDescription() const override { return cuda::codeDescription(); }
  bool detectCode(const void *Data, size_t Size, stream::CodeKind &Kind) override {
    return cuda::detectCode(Data, Size, Kind);
  }
  std::vector<std::string> codeKernelNames(stream::CodeKind Kind,
                                           const std::vector<char> &Bytes) override {
    return cuda::codeKernelNames(Kind, Bytes);
  }
  pi_result codeForLoad(stream::CodeKind Kind, const std::vector<char> &Bytes,
                        const stream::DeviceInfo &, std::vector<char> &Out,
                        std::string &) override {
    return cuda::codeForLoad(Kind, Bytes, Out);
  }
  bool linkerAvailable(std::string *Why) override { return cuda::linkerAvailable(Why); }
  pi_result link(const std::vector<stream::LinkSource> &Sources, const stream::DeviceInfo &Device,
                 std::vector<char> &Out, stream::CodeKind &OutKind, std::string &Log) override {
    return linkCode(Sources, Device.ComputeMajor, Device.ComputeMinor, Out, OutKind, Log);
  }
};

} // namespace

CUresult readDeviceInfo(int Ordinal, stream::DeviceInfo &Info) {
  CUdevice Device = 0;
  if (const CUresult R = cu().cuDeviceGet(&Device, Ordinal); R != CUDA_SUCCESS)
    return R;
  char Name[256] = {};
  if (const CUresult R = cu().cuDeviceGetName(Name, static_cast<int>(sizeof(Name) - 1), Device);
      R != CUDA_SUCCESS)
    return R;
  Info.Name = Name;
  auto Attribute = [&](CUdevice_attribute Which, int &Out) {
    int Value = 0;
    if (cu().cuDeviceGetAttribute(&Value, Which, Device) == CUDA_SUCCESS)
      Out = Value;
  };
  Attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, Info.ComputeMajor);
  Attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, Info.ComputeMinor);
  Attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, Info.MultiprocessorCount);
  Attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, Info.MaxThreadsPerBlock);
  Attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, Info.MaxBlockDim[0]);
  Attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, Info.MaxBlockDim[1]);
  Attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, Info.MaxBlockDim[2]);
  Attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, Info.MaxGridDim[0]);
  Attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, Info.MaxGridDim[1]);
  Attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, Info.MaxGridDim[2]);
  if (const CUresult R = cu().cuDeviceTotalMem(&Info.TotalMemory, Device); R != CUDA_SUCCESS)
    return R;
  Attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, Info.ClockRateKHz);
  Attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE, Info.WarpSize);
  Attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, Info.SharedMemoryPerBlock);
  Attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, Info.SharedMemoryPerBlockOptIn);
  Attribute(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, Info.ConstantMemory);
  Attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, Info.L2CacheBytes);
  int Flag = 0;
  Attribute(CU_DEVICE_ATTRIBUTE_ECC_ENABLED, Flag);
  Info.Ecc = Flag != 0;
  Flag = 0;
  Attribute(CU_DEVICE_ATTRIBUTE_INTEGRATED, Flag);
  Info.Integrated = Flag != 0;
  Flag = 0;
  Attribute(CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, Flag);
  Info.VirtualMemory = Flag != 0 && cu().hasVirtualMemory();
  Info.TimedEvents = cu().cuEventElapsedTime != nullptr;
  Flag = 0;
  Attribute(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, Flag);
  Info.CooperativeLaunch = Flag != 0 && cu().cuLaunchCooperativeKernel != nullptr &&
                           cu().cuOccupancyMaxActiveBlocksPerMultiprocessor != nullptr;
  Attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, Info.MemoryClockKHz);
  Attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, Info.MemoryBusWidthBits);
  Attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, Info.RegistersPerBlock);
  CUuuid Uuid{};
  if (cu().cuDeviceGetUuid != nullptr && cu().cuDeviceGetUuid(&Uuid, Device) == CUDA_SUCCESS)
    Info.Uuid.assign(Uuid.bytes, Uuid.bytes + sizeof(Uuid.bytes));
  // "domain:bus:device.function" in hexadecimal: 12 characters and the NUL.
  char Pci[16] = {};
  if (cu().cuDeviceGetPCIBusId != nullptr &&
      cu().cuDeviceGetPCIBusId(Pci, static_cast<int>(sizeof(Pci) - 1), Device) == CUDA_SUCCESS)
    Info.PciAddress = Pci;
  // The CUDA programming guide: global memory is cached in 128-byte lines; 64-bit integer
  // atomics on global and shared memory exist on every architecture CUDA 13 builds for.
  Info.CacheLineBytes = 128;
  Info.Int64Atomics = true;
  // cuEventElapsedTime's documentation: "a resolution of around 0.5 microseconds".
  Info.TimerResolutionNs = 500;
  Info.Arch = "sm_" + std::to_string(Info.ComputeMajor) + std::to_string(Info.ComputeMinor);
  Info.Version = std::to_string(Info.ComputeMajor) + "." + std::to_string(Info.ComputeMinor);
  return CUDA_SUCCESS;
}

CUcontext primaryContext(int Ordinal) {
  if (Ordinal < 0 || Ordinal >= MaxDevices)
    return nullptr;
  return Contexts[static_cast<size_t>(Ordinal)].load(std::memory_order_acquire);
}

CUresult makePrimaryCurrent(int Ordinal) {
  if (Ordinal < 0 || Ordinal >= MaxDevices)
    return CUDA_ERROR_INVALID_DEVICE;
  std::atomic<CUcontext> &Slot = Contexts[static_cast<size_t>(Ordinal)];
  CUcontext Context = Slot.load(std::memory_order_acquire);
  if (Context == nullptr) {
    std::lock_guard<std::mutex> Lock(ContextsMutex);
    Context = Slot.load(std::memory_order_acquire);
    if (Context == nullptr) {
      CUdevice Device = 0;
      if (const CUresult R = cu().cuDeviceGet(&Device, Ordinal); R != CUDA_SUCCESS)
        return R;
      if (const CUresult R = cu().cuDevicePrimaryCtxRetain(&Context, Device); R != CUDA_SUCCESS)
        return R;
      Slot.store(Context, std::memory_order_release);
    }
  }
  CUcontext Current = nullptr;
  if (cu().cuCtxGetCurrent(&Current) == CUDA_SUCCESS && Current == Context)
    return CUDA_SUCCESS;
  return cu().cuCtxSetCurrent(Context);
}

bool kernelParameterSizes(CUfunction F, std::vector<size_t> &Sizes) {
  Sizes.clear();
  if (cu().cuFuncGetParamInfo == nullptr)
    return false;
  for (size_t Index = 0;; ++Index) {
    size_t Offset = 0, Size = 0;
    const CUresult R = cu().cuFuncGetParamInfo(F, Index, &Offset, &Size);
    if (R == CUDA_ERROR_INVALID_VALUE) // past the last parameter
      return !Sizes.empty();
    if (R != CUDA_SUCCESS) {
      Sizes.clear();
      return false;
    }
    Sizes.push_back(Size);
  }
}

CUresult copyPitched(void *Dst, size_t DstPitch, const void *Src, size_t SrcPitch, size_t Width,
                     size_t Height, CUstream S) {
  if (cu().cuMemcpy2DAsync == nullptr) {
    for (size_t Row = 0; Row < Height; ++Row)
      if (const CUresult R = cu().cuMemcpyAsync(
              address(static_cast<char *>(Dst) + Row * DstPitch),
              address(static_cast<const char *>(Src) + Row * SrcPitch), Width, S);
          R != CUDA_SUCCESS)
        return R;
    return CUDA_SUCCESS;
  }
  CUDA_MEMCPY2D Copy{};
  Copy.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
  Copy.srcDevice = address(Src);
  Copy.srcPitch = SrcPitch;
  Copy.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
  Copy.dstDevice = address(Dst);
  Copy.dstPitch = DstPitch;
  Copy.WidthInBytes = Width;
  Copy.Height = Height;
  return cu().cuMemcpy2DAsync(&Copy, S);
}

CUresult reserveDynamicSharedMemory(CUfunction F, size_t Bytes) {
  // Raised under one lock, so that two threads raising the same function to different
  // sizes end with the larger one.
  static std::mutex RaiseMutex;
  const auto Current = [F](int &Value) {
    return cu().cuFuncGetAttribute(&Value, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, F);
  };
  if (Bytes > static_cast<size_t>(std::numeric_limits<int>::max()))
    return CUDA_ERROR_INVALID_VALUE;
  int Allowed = 0;
  if (const CUresult R = Current(Allowed); R != CUDA_SUCCESS)
    return R;
  if (Bytes <= static_cast<size_t>(Allowed))
    return CUDA_SUCCESS;
  if (cu().cuFuncSetAttribute == nullptr)
    return CUDA_ERROR_NOT_SUPPORTED;
  std::lock_guard<std::mutex> Lock(RaiseMutex);
  if (const CUresult R = Current(Allowed); R != CUDA_SUCCESS)
    return R;
  if (Bytes <= static_cast<size_t>(Allowed))
    return CUDA_SUCCESS;
  return cu().cuFuncSetAttribute(F, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                 static_cast<int>(Bytes));
}

CUresult streamOrdinal(CUstream S, int &Ordinal, bool &Known) {
  Known = false;
  if (cu().cuStreamGetCtx == nullptr)
    return CUDA_SUCCESS;
  CUcontext Of = nullptr;
  if (const CUresult R = cu().cuStreamGetCtx(S, &Of); R != CUDA_SUCCESS)
    return R;
  Known = true;
  Ordinal = -1;
  for (int I = 0; I < MaxDevices; ++I)
    if (Of != nullptr && Contexts[static_cast<size_t>(I)].load(std::memory_order_acquire) == Of)
      Ordinal = I;
  return CUDA_SUCCESS;
}

bool canAccessPeer(int From, int To) {
  CUdevice FromDevice = 0;
  CUdevice ToDevice = 0;
  int Can = 0;
  return cu().cuDeviceCanAccessPeer != nullptr && cu().cuCtxEnablePeerAccess != nullptr &&
         cu().cuDeviceGet(&FromDevice, From) == CUDA_SUCCESS &&
         cu().cuDeviceGet(&ToDevice, To) == CUDA_SUCCESS &&
         cu().cuDeviceCanAccessPeer(&Can, FromDevice, ToDevice) == CUDA_SUCCESS && Can != 0;
}

bool pointerRange(const void *Pointer, stream::PointerRange &Out) {
  const CudaDriver &Cu = cu();
  const auto Address = reinterpret_cast<CUdeviceptr>(Pointer);
  CUdeviceptr Base = 0;
  size_t Size = 0;
  unsigned int Type = 0;
  unsigned int Managed = 0;
  int Ordinal = -1;
  if (Cu.cuPointerGetAttribute(&Base, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, Address) !=
          CUDA_SUCCESS ||
      Cu.cuPointerGetAttribute(&Size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, Address) != CUDA_SUCCESS ||
      Cu.cuPointerGetAttribute(&Type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, Address) != CUDA_SUCCESS)
    return false;
  if (Cu.cuPointerGetAttribute(&Managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, Address) != CUDA_SUCCESS)
    Managed = 0;
  if (Cu.cuPointerGetAttribute(&Ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, Address) !=
      CUDA_SUCCESS)
    Ordinal = -1;
  Out.Base = reinterpret_cast<void *>(Base);
  Out.Size = Size;
  Out.Memory = Managed != 0                 ? stream::PointerRange::Kind::Managed
               : Type == CU_MEMORYTYPE_HOST ? stream::PointerRange::Kind::Host
                                            : stream::PointerRange::Kind::Device;
  Out.Ordinal = Out.Memory == stream::PointerRange::Kind::Device ? Ordinal : -1;
  return Size != 0;
}

bool functionName(CUfunction F, std::string &Name) {
  const char *Text = nullptr;
  if (cu().cuFuncGetName == nullptr || cu().cuFuncGetName(&Text, F) != CUDA_SUCCESS ||
      Text == nullptr)
    return false;
  Name = Text;
  return true;
}

bool pageableHost(const void *Host) {
  unsigned int Type = 0;
  return cu().cuPointerGetAttribute(&Type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                    reinterpret_cast<CUdeviceptr>(Host)) ==
         CUDA_ERROR_INVALID_VALUE;
}

CUresult enablePeerAccess(int From, int To) {
  if (cu().cuCtxEnablePeerAccess == nullptr)
    return CUDA_ERROR_NOT_SUPPORTED;
  if (const CUresult R = makePrimaryCurrent(To); R != CUDA_SUCCESS)
    return R;
  const CUcontext Peer = Contexts[static_cast<size_t>(To)].load(std::memory_order_acquire);
  if (const CUresult R = makePrimaryCurrent(From); R != CUDA_SUCCESS)
    return R;
  const CUresult R = cu().cuCtxEnablePeerAccess(Peer, 0);
  return R == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED ? CUDA_SUCCESS : R;
}

bool freeMemory(int Ordinal, size_t &Bytes) {
  size_t Free = 0;
  size_t Total = 0;
  if (cu().cuMemGetInfo == nullptr || makePrimaryCurrent(Ordinal) != CUDA_SUCCESS ||
      cu().cuMemGetInfo(&Free, &Total) != CUDA_SUCCESS)
    return false;
  Bytes = Free;
  return true;
}

namespace {

// Pinned memory on the device with this ordinal: what cuMemCreate and the granularity
// query describe.
CUresult devicePlacement(int Ordinal, CUmemAllocationProp &Prop) {
  CUdevice Device = 0;
  if (const CUresult R = cu().cuDeviceGet(&Device, Ordinal); R != CUDA_SUCCESS)
    return R;
  Prop = CUmemAllocationProp{};
  Prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  Prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  Prop.location.id = Device;
  return CUDA_SUCCESS;
}

} // namespace

CUresult memoryGranularity(int Ordinal, bool Recommended, size_t &Out) {
  if (!cu().hasVirtualMemory())
    return CUDA_ERROR_NOT_SUPPORTED;
  CUmemAllocationProp Prop{};
  if (const CUresult R = devicePlacement(Ordinal, Prop); R != CUDA_SUCCESS)
    return R;
  return cu().cuMemGetAllocationGranularity(&Out, &Prop,
                                            Recommended ? CU_MEM_ALLOC_GRANULARITY_RECOMMENDED
                                                        : CU_MEM_ALLOC_GRANULARITY_MINIMUM);
}

CUresult createPhysical(int Ordinal, size_t Size, bool Shareable,
                        CUmemGenericAllocationHandle &Out) {
  if (!cu().hasVirtualMemory())
    return CUDA_ERROR_NOT_SUPPORTED;
  CUmemAllocationProp Prop{};
  if (const CUresult R = devicePlacement(Ordinal, Prop); R != CUDA_SUCCESS)
    return R;
  // Exportable to another process as a file descriptor (cuMemExportToShareableHandle).
  if (Shareable)
    Prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return cu().cuMemCreate(&Out, Size, &Prop, 0);
}

CUresult setAccess(CUdeviceptr Start, size_t Size, const std::vector<int> &Ordinals,
                   stream::VirtualAccess Access) {
  if (!cu().hasVirtualMemory())
    return CUDA_ERROR_NOT_SUPPORTED;
  CUmemAccess_flags Flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
  if (Access == stream::VirtualAccess::ReadWrite)
    Flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  else if (Access == stream::VirtualAccess::ReadOnly)
    Flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
  std::vector<CUmemAccessDesc> Descriptions(Ordinals.size());
  for (size_t I = 0; I < Ordinals.size(); ++I) {
    CUdevice Device = 0;
    if (const CUresult R = cu().cuDeviceGet(&Device, Ordinals[I]); R != CUDA_SUCCESS)
      return R;
    Descriptions[I].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    Descriptions[I].location.id = Device;
    Descriptions[I].flags = Flags;
  }
  return cu().cuMemSetAccess(Start, Size, Descriptions.data(), Descriptions.size());
}

CUresult access(CUdeviceptr Start, int Ordinal, stream::VirtualAccess &Out) {
  if (!cu().hasVirtualMemory())
    return CUDA_ERROR_NOT_SUPPORTED;
  CUmemLocation Location{};
  Location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  if (const CUresult R = cu().cuDeviceGet(&Location.id, Ordinal); R != CUDA_SUCCESS)
    return R;
  unsigned long long Flags = 0; // cuMemGetAccess's type
  if (const CUresult R = cu().cuMemGetAccess(&Flags, &Location, Start); R != CUDA_SUCCESS)
    return R;
  Out = Flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE ? stream::VirtualAccess::ReadWrite
        : Flags == CU_MEM_ACCESS_FLAGS_PROT_READ    ? stream::VirtualAccess::ReadOnly
                                                    : stream::VirtualAccess::None;
  return CUDA_SUCCESS;
}

CUresult loadModuleWithLog(CUmodule &Module, const void *Image, std::string &Log) {
  std::vector<char> ErrorLog(16384, '\0');
  std::vector<char> InfoLog(16384, '\0');
  CUjit_option Options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *Values[] = {ErrorLog.data(), reinterpret_cast<void *>(ErrorLog.size() - 1), InfoLog.data(),
                    reinterpret_cast<void *>(InfoLog.size() - 1)};
  CUmodule Loaded = nullptr;
  const CUresult R = cu().cuModuleLoadDataEx(&Loaded, Image, 4, Options, Values);
  Log += ErrorLog.data();
  if (InfoLog[0] != '\0')
    Log += std::string(Log.empty() || Log.back() == '\n' ? "" : "\n") + InfoLog.data();
  if (R == CUDA_SUCCESS)
    Module = Loaded;
  return R;
}

std::unique_ptr<stream::Driver> makeCudaStreamDriver() {
  return std::make_unique<CudaStreamDriver>();
}

} // namespace dglink::cuda
