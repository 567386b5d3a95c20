// The HIP table on HIP's NVIDIA platform, implemented on the CUDA driver API.
//
// HIP's NVIDIA platform is a header layer (hip/nvidia_detail/*.h) that maps each
// hip* call onto the CUDA runtime or driver; HIP 5.2's copy of it does not compile
// against CUDA 13 (removed cudaDeviceProp fields and texture APIs, changed
// signatures: see docs/hip.md). The adapter needs only the calls of HipApi, so
// this file is that mapping for those calls, written against the CUDA driver API
// that dglink_cuda_driver opens with dlopen (libcuda.so.1): hipModuleGetGlobal ->
// cuModuleGetGlobal, hipModuleLaunchKernel -> cuLaunchKernel, hipSetDevice -> the
// device's primary context made current, and so on. HIP's error numbering is
// CUDA's for every code the adapter tells apart, so CUresult values pass through.
#include "hip_api.h"

#include "cuda_stream.h"

#include <dglink/support/log.h>

#include <cstring>

namespace dglink::hip {
namespace {

using dglink::cuda::cu;

HipError err(CUresult Result) { return static_cast<HipError>(Result); }
CUstream stream(HipStream Stream) { return reinterpret_cast<CUstream>(Stream); }
CUevent event(HipEvent Event) { return reinterpret_cast<CUevent>(Event); }
CUmodule module(HipModule Module) { return reinterpret_cast<CUmodule>(Module); }
CUfunction function(HipFunction Function) { return reinterpret_cast<CUfunction>(Function); }
CUdeviceptr address(const void *Pointer) { return reinterpret_cast<CUdeviceptr>(Pointer); }

HipError getDeviceCount(int *Count) {
  const CUresult R = cu().cuDeviceGetCount(Count);
  if (R == CUDA_SUCCESS && *Count == 0)
    return HipErrorNoDevice; // hipGetDeviceCount's answer for "none"
  return err(R);
}
HipError driverGetVersion(int *Version) { return err(cu().cuDriverGetVersion(Version)); }

HipError getDeviceInfo(int Ordinal, HipDeviceInfo &Info) {
  return err(dglink::cuda::readDeviceInfo(Ordinal, Info));
}

HipError setDevice(int Ordinal) { return err(dglink::cuda::makePrimaryCurrent(Ordinal)); }

HipError streamCreateNonBlocking(HipStream *Out) {
  CUstream Stream = nullptr;
  const CUresult R = cu().cuStreamCreate(&Stream, CU_STREAM_NON_BLOCKING);
  *Out = reinterpret_cast<HipStream>(Stream);
  return err(R);
}
HipError streamDestroy(HipStream S) { return err(cu().cuStreamDestroy(stream(S))); }
HipError streamSynchronize(HipStream S) { return err(cu().cuStreamSynchronize(stream(S))); }
HipError streamWaitEvent(HipStream S, HipEvent E) {
  return err(cu().cuStreamWaitEvent(stream(S), event(E), 0));
}
HipError eventCreateNoTiming(HipEvent *Out) {
  CUevent Event = nullptr;
  const CUresult R = cu().cuEventCreate(&Event, CU_EVENT_DISABLE_TIMING);
  *Out = reinterpret_cast<HipEvent>(Event);
  return err(R);
}
HipError eventDestroy(HipEvent E) { return err(cu().cuEventDestroy(event(E))); }
HipError eventCreateTimed(HipEvent *Out) {
  if (cu().cuEventElapsedTime == nullptr)
    return err(CUDA_ERROR_NOT_SUPPORTED);
  CUevent Event = nullptr;
  const CUresult R = cu().cuEventCreate(&Event, CU_EVENT_DEFAULT);
  *Out = reinterpret_cast<HipEvent>(Event);
  return err(R);
}
HipError eventElapsedTime(float *Milliseconds, HipEvent From, HipEvent To) {
  if (cu().cuEventElapsedTime == nullptr)
    return err(CUDA_ERROR_NOT_SUPPORTED);
  return err(cu().cuEventElapsedTime(Milliseconds, event(From), event(To)));
}
HipError hostRegister(void *Host, size_t Size, void **Device) {
  if (cu().cuMemHostRegister == nullptr || cu().cuMemHostGetDevicePointer == nullptr ||
      cu().cuMemHostUnregister == nullptr)
    return err(CUDA_ERROR_NOT_SUPPORTED);
  const CUresult R = cu().cuMemHostRegister(
      Host, Size, CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP);
  if (R != CUDA_SUCCESS)
    return err(R);
  CUdeviceptr Address = 0;
  const CUresult Mapped = cu().cuMemHostGetDevicePointer(&Address, Host, 0);
  if (Mapped != CUDA_SUCCESS)
    cu().cuMemHostUnregister(Host);
  *Device = reinterpret_cast<void *>(Address);
  return err(Mapped);
}
HipError hostUnregister(void *Host) {
  return cu().cuMemHostUnregister != nullptr ? err(cu().cuMemHostUnregister(Host))
                                             : err(CUDA_ERROR_NOT_SUPPORTED);
}
HipError eventRecord(HipEvent E, HipStream S) {
  return err(cu().cuEventRecord(event(E), stream(S)));
}
HipError eventSynchronize(HipEvent E) { return err(cu().cuEventSynchronize(event(E))); }
HipError eventQuery(HipEvent E) { return err(cu().cuEventQuery(event(E))); }
HipError mallocDevice(void **P, size_t Size) {
  CUdeviceptr Pointer = 0;
  const CUresult R = cu().cuMemAlloc(&Pointer, Size);
  *P = reinterpret_cast<void *>(Pointer);
  return err(R);
}
HipError freeDevice(void *P) { return err(cu().cuMemFree(address(P))); }
HipError hostMalloc(void **P, size_t Size) {
  return err(cu().cuMemHostAlloc(P, Size, CU_MEMHOSTALLOC_PORTABLE));
}
bool deviceCanAccessPeer(int From, int To) { return dglink::cuda::canAccessPeer(From, To); }
HipError deviceEnablePeerAccess(int From, int To) {
  return err(dglink::cuda::enablePeerAccess(From, To));
}
HipError hostFree(void *P) { return err(cu().cuMemFreeHost(P)); }
HipError mallocManaged(void **P, size_t Size) {
  CUdeviceptr Pointer = 0;
  const CUresult R = cu().cuMemAllocManaged(&Pointer, Size, CU_MEM_ATTACH_GLOBAL);
  *P = reinterpret_cast<void *>(Pointer);
  return err(R);
}
// hipPointerGetAttributes on this platform: the CUDA driver's memory-type query, which
// fails for pageable memory.
bool knowsHostPointer(const void *Host) {
  unsigned int Type = 0;
  return cu().cuPointerGetAttribute(&Type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, address(Host)) ==
         CUDA_SUCCESS;
}
HipError memcpyAsync(void *Dst, const void *Src, size_t Size, HipStream S) {
  return err(cu().cuMemcpyAsync(address(Dst), address(Src), Size, stream(S)));
}
HipError memcpyHtoD(void *Dst, const void *Src, size_t Size) {
  return err(cu().cuMemcpyHtoD(address(Dst), Src, Size));
}
HipError memcpyHtoDAsync(void *Dst, const void *Src, size_t Size, HipStream S) {
  return err(cu().cuMemcpyHtoDAsync(address(Dst), Src, Size, stream(S)));
}
HipError memcpyDtoHAsync(void *Dst, const void *Src, size_t Size, HipStream S) {
  return err(cu().cuMemcpyDtoHAsync(Dst, address(Src), Size, stream(S)));
}
HipError memsetD8Async(void *Dst, unsigned char Value, size_t Count, HipStream S) {
  return err(cu().cuMemsetD8Async(address(Dst), Value, Count, stream(S)));
}
HipError memsetD16Async(void *Dst, unsigned short Value, size_t Count, HipStream S) {
  return err(cu().cuMemsetD16Async(address(Dst), Value, Count, stream(S)));
}
HipError memsetD32Async(void *Dst, unsigned Value, size_t Count, HipStream S) {
  return err(cu().cuMemsetD32Async(address(Dst), Value, Count, stream(S)));
}
// cuMemcpy2DAsync with unified addresses, a copy per row where the driver lacks it
// (dglink::cuda::copyPitched, as the CUDA adapter's).
HipError memcpy2DAsync(void *Dst, size_t DstPitch, const void *Src, size_t SrcPitch, size_t Width,
                       size_t Height, HipStream S) {
  return err(dglink::cuda::copyPitched(Dst, DstPitch, Src, SrcPitch, Width, Height, stream(S)));
}

// hipModuleLoadDataEx with the JIT's error and information logs.
HipError moduleLoadData(HipModule *Out, const void *Image, std::string &Log) {
  CUmodule Module = nullptr;
  const CUresult R = dglink::cuda::loadModuleWithLog(Module, Image, Log);
  *Out = R == CUDA_SUCCESS ? reinterpret_cast<HipModule>(Module) : nullptr;
  return err(R);
}
HipError moduleUnload(HipModule M) { return err(cu().cuModuleUnload(module(M))); }
HipError moduleGetFunction(HipFunction *Out, HipModule M, const char *Name) {
  CUfunction Function = nullptr;
  const CUresult R = cu().cuModuleGetFunction(&Function, module(M), Name);
  *Out = reinterpret_cast<HipFunction>(Function);
  return err(R);
}
HipError moduleGetGlobal(void **Address, size_t *Bytes, HipModule M, const char *Name) {
  CUdeviceptr Pointer = 0;
  const CUresult R = cu().cuModuleGetGlobal(&Pointer, Bytes, module(M), Name);
  *Address = reinterpret_cast<void *>(Pointer);
  return err(R);
}
HipError funcMaxThreadsPerBlock(int *Value, HipFunction F) {
  return err(cu().cuFuncGetAttribute(Value, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function(F)));
}
HipError funcMemory(int *Shared, int *Local, HipFunction F) {
  if (const CUresult R =
          cu().cuFuncGetAttribute(Shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function(F));
      R != CUDA_SUCCESS)
    return err(R);
  return err(cu().cuFuncGetAttribute(Local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, function(F)));
}
HipError funcReserveDynamicShared(HipFunction F, size_t Bytes) {
  return err(dglink::cuda::reserveDynamicSharedMemory(function(F), Bytes));
}
bool funcParameterSizes(HipFunction F, std::vector<size_t> &Sizes) {
  return dglink::cuda::kernelParameterSizes(function(F), Sizes);
}
HipError streamOrdinal(HipStream S, int *Ordinal) {
  bool Known = false;
  const CUresult R = dglink::cuda::streamOrdinal(stream(S), *Ordinal, Known);
  if (R == CUDA_SUCCESS && !Known)
    return HipErrorNotSupported;
  return err(R);
}
HipError moduleLaunchKernel(HipFunction F, const unsigned Grid[3], const unsigned Block[3],
                            unsigned SharedBytes, HipStream S, void **Params) {
  return err(cu().cuLaunchKernel(function(F), Grid[0], Grid[1], Grid[2], Block[0], Block[1],
                                 Block[2], SharedBytes, stream(S), Params, nullptr));
}
HipError memGetFree(int Ordinal, size_t *Free) {
  return dglink::cuda::freeMemory(Ordinal, *Free) ? HipSuccess : err(CUDA_ERROR_NOT_SUPPORTED);
}
// Virtual memory: HIP's hipMem* virtual memory calls are CUDA's cuMem* ones on this
// platform (the same arguments; the handle an integer).
HipError memGetAllocationGranularity(int Ordinal, bool Recommended, size_t *Out) {
  return err(dglink::cuda::memoryGranularity(Ordinal, Recommended, *Out));
}
HipError memAddressReserve(void **Start, size_t Size, const void *Hint) {
  CUdeviceptr Reserved = 0;
  const CUresult R = cu().cuMemAddressReserve(&Reserved, Size, 0, address(Hint), 0);
  *Start = reinterpret_cast<void *>(Reserved);
  return err(R);
}
HipError memAddressFree(const void *Start, size_t Size) {
  return err(cu().cuMemAddressFree(address(Start), Size));
}
HipError memCreate(stream::PhysicalHandle *Out, int Ordinal, size_t Size, bool Shareable) {
  CUmemGenericAllocationHandle Handle = 0;
  const CUresult R = dglink::cuda::createPhysical(Ordinal, Size, Shareable, Handle);
  *Out = static_cast<stream::PhysicalHandle>(Handle);
  return err(R);
}
HipError memRelease(stream::PhysicalHandle Handle) {
  return err(cu().cuMemRelease(static_cast<CUmemGenericAllocationHandle>(Handle)));
}
HipError memMap(const void *Start, size_t Size, size_t Offset, stream::PhysicalHandle Handle) {
  return err(cu().cuMemMap(address(Start), Size, Offset,
                           static_cast<CUmemGenericAllocationHandle>(Handle), 0));
}
HipError memUnmap(const void *Start, size_t Size) {
  return err(cu().cuMemUnmap(address(Start), Size));
}
HipError memSetAccess(const void *Start, size_t Size, const std::vector<int> &Ordinals,
                      stream::VirtualAccess Access) {
  return err(dglink::cuda::setAccess(address(Start), Size, Ordinals, Access));
}
HipError memGetAccess(const void *Start, int Ordinal, stream::VirtualAccess *Out) {
  return err(dglink::cuda::access(address(Start), Ordinal, *Out));
}

// Images: the CUDA adapter's arrays (cuda_image.cpp). The table is made before libcuda
// is opened, so the device's limits say whether the calls are there (readImageLimits:
// none without them), and the core never reaches the others then.
HipError arrayCreate(const stream::ArrayShape &Shape, stream::ImageArray *Out) {
  CUarray Array = nullptr;
  const CUresult R = dglink::cuda::createArray(Shape, Array);
  *Out = reinterpret_cast<stream::ImageArray>(Array);
  return err(R);
}
HipError arrayDestroy(stream::ImageArray Array) {
  return err(cu().cuArrayDestroy(reinterpret_cast<CUarray>(Array)));
}
HipError arrayDescribe(stream::ImageArray Array, stream::ArrayShape *Out) {
  return err(dglink::cuda::describeArray(reinterpret_cast<CUarray>(Array), *Out));
}
HipError arrayCopy(const stream::ArrayCopy &Copy, int StreamOrdinal, HipStream S,
                   const char **Call) {
  const char *CudaCall = "cuMemcpy3DAsync";
  const CUresult R = dglink::cuda::copyArray(Copy, StreamOrdinal, stream(S), CudaCall);
  // HIP's names of the same copies.
  *Call = std::strcmp(CudaCall, "cuMemcpy2DAsync") == 0       ? "hipMemcpy2DAsync"
          : std::strcmp(CudaCall, "cuMemcpy3DPeerAsync") == 0 ? "hipMemcpy3DPeerAsync"
                                                              : "hipMemcpy3DAsync";
  return err(R);
}
HipError surfaceCreate(stream::ImageArray Array, uint64_t *Out) {
  CUsurfObject Surface = 0;
  const CUresult R = dglink::cuda::createSurface(reinterpret_cast<CUarray>(Array), Surface);
  *Out = static_cast<uint64_t>(Surface);
  return err(R);
}
HipError surfaceDestroy(uint64_t Surface) {
  return err(cu().cuSurfObjectDestroy(static_cast<CUsurfObject>(Surface)));
}

// HIP's names for the codes it shares with CUDA; others get CUDA's name.
const char *errorName(HipError E) {
  switch (E) {
  case HipSuccess:
    return "hipSuccess";
  case HipErrorInvalidValue:
    return "hipErrorInvalidValue";
  case HipErrorOutOfMemory:
    return "hipErrorOutOfMemory";
  case HipErrorNotInitialized:
    return "hipErrorNotInitialized";
  case HipErrorNoDevice:
    return "hipErrorNoDevice";
  case HipErrorInvalidDevice:
    return "hipErrorInvalidDevice";
  case HipErrorInvalidImage:
    return "hipErrorInvalidImage";
  case HipErrorInvalidContext:
    return "hipErrorInvalidContext";
  case HipErrorNoBinaryForGpu:
    return "hipErrorNoBinaryForGpu";
  case HipErrorInvalidKernelFile:
    return "hipErrorInvalidKernelFile";
  case HipErrorInvalidHandle:
    return "hipErrorInvalidHandle";
  case HipErrorNotFound:
    return "hipErrorNotFound";
  case HipErrorNotReady:
    return "hipErrorNotReady";
  case HipErrorIllegalAddress:
    return "hipErrorIllegalAddress";
  case HipErrorLaunchOutOfResources:
    return "hipErrorLaunchOutOfResources";
  case HipErrorLaunchFailure:
    return "hipErrorLaunchFailure";
  case HipErrorNotSupported:
    return "hipErrorNotSupported";
  default:
    break;
  }
  const char *Name = nullptr;
  if (cu().cuGetErrorName != nullptr)
    cu().cuGetErrorName(static_cast<CUresult>(E), &Name);
  return Name != nullptr ? Name : "hipErrorUnknown";
}
const char *errorString(HipError E) {
  const char *Text = nullptr;
  if (cu().cuGetErrorString != nullptr)
    cu().cuGetErrorString(static_cast<CUresult>(E), &Text);
  return Text != nullptr ? Text : "no description";
}

HipApi makeTable() {
  HipApi Table;
  Table.Platform = "NVIDIA";
  Table.Library = "libcuda.so.1";
  Table.GetDeviceCount = getDeviceCount;
  Table.DriverGetVersion = driverGetVersion;
  Table.GetDeviceInfo = getDeviceInfo;
  Table.SetDevice = setDevice;
  Table.DeviceCanAccessPeer = deviceCanAccessPeer;
  Table.DeviceEnablePeerAccess = deviceEnablePeerAccess;
  Table.StreamCreateNonBlocking = streamCreateNonBlocking;
  Table.StreamDestroy = streamDestroy;
  Table.StreamSynchronize = streamSynchronize;
  Table.StreamWaitEvent = streamWaitEvent;
  Table.EventCreateNoTiming = eventCreateNoTiming;
  Table.EventDestroy = eventDestroy;
  // The table is made before libcuda is opened: the optional functions are checked in
  // each call.
  Table.EventCreateTimed = eventCreateTimed;
  Table.EventElapsedTime = eventElapsedTime;
  Table.HostRegister = hostRegister;
  Table.HostUnregister = hostUnregister;
  Table.EventRecord = eventRecord;
  Table.EventSynchronize = eventSynchronize;
  Table.EventQuery = eventQuery;
  Table.Malloc = mallocDevice;
  Table.Free = freeDevice;
  Table.HostMalloc = hostMalloc;
  Table.HostFree = hostFree;
  Table.MallocManaged = mallocManaged;
  Table.KnowsHostPointer = knowsHostPointer;
  Table.IsPageableHost = dglink::cuda::pageableHost;
  Table.MemcpyAsync = memcpyAsync;
  Table.MemcpyHtoD = memcpyHtoD;
  Table.MemcpyHtoDAsync = memcpyHtoDAsync;
  Table.MemcpyDtoHAsync = memcpyDtoHAsync;
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
  Table.FuncReserveDynamicShared = funcReserveDynamicShared;
  Table.FuncParameterSizes = funcParameterSizes;
  Table.StreamOrdinal = streamOrdinal;
  Table.ModuleLaunchKernel = moduleLaunchKernel;
  if (cu().cuMemGetInfo != nullptr)
    Table.MemGetFree = memGetFree;
  if (cu().hasVirtualMemory()) {
    Table.MemGetAllocationGranularity = memGetAllocationGranularity;
    Table.MemAddressReserve = memAddressReserve;
    Table.MemAddressFree = memAddressFree;
    Table.MemCreate = memCreate;
    Table.MemRelease = memRelease;
    Table.MemMap = memMap;
    Table.MemUnmap = memUnmap;
    Table.MemSetAccess = memSetAccess;
    Table.MemGetAccess = memGetAccess;
  }
  Table.ImageLimits = dglink::cuda::readImageLimits;
  Table.ArrayCreate = arrayCreate;
  Table.ArrayDestroy = arrayDestroy;
  Table.ArrayDescribe = arrayDescribe;
  Table.ArrayCopy = arrayCopy;
  Table.SurfaceCreate = surfaceCreate;
  Table.SurfaceDestroy = surfaceDestroy;
  Table.FunctionName = [](HipFunction F, std::string &Name) {
    return dglink::cuda::functionName(reinterpret_cast<CUfunction>(F), Name);
  };
  Table.PointerRange = dglink::cuda::pointerRange;
  Table.ErrorName = errorName;
  Table.ErrorString = errorString;
  return Table;
}

} // namespace

bool loadHip(std::string *Reason) {
  // dglink_cuda_driver opens libcuda.so.1 and runs cuInit once per process (and
  // logs why when it cannot).
  std::string Why;
  const bool Loaded = dglink::cuda::loadCudaDriver(&Why);
  static const bool Logged = [Loaded, &Why] {
    if (Loaded)
      logger().debug("hip: NVIDIA platform over the CUDA driver (libcuda.so.1)");
    else
      logger().info("hip: no usable CUDA driver for HIP's NVIDIA platform: {}; the adapter "
                    "reports zero platforms",
                    Why);
    return true;
  }();
  (void)Logged;
  if (Reason != nullptr)
    *Reason = Why;
  // The table after the driver: its optional entries (virtual memory, free memory) are
  // set where libcuda has the calls, which only a loaded driver says.
  if (Loaded)
    (void)hip();
  return Loaded;
}

// Made on first use, which loadHip() makes after the driver is loaded (a table made when
// the library was loaded saw no libcuda yet: virtual memory and free memory were never
// served on HIP's NVIDIA platform).
const HipApi &hip() {
  static const HipApi Table = makeTable();
  return Table;
}

} // namespace dglink::hip
