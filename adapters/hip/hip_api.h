// The HIP functions the HIP adapter calls, as a table of function pointers with
// the adapter's own opaque types, so that one adapter source builds for both of
// HIP's platforms (docs/hip.md):
//   - AMD (backend_amd.cpp): each entry calls the same-named function of
//     libamdhip64, opened with dlopen at run time;
//   - NVIDIA (backend_nvidia.cpp): each entry is implemented on the CUDA driver
//     API (libcuda, opened with dlopen by dglink_cuda_driver), the way HIP's own
//     NVIDIA platform maps hip* onto cu* (hipModuleGetGlobal -> cuModuleGetGlobal).
// Results use hipError_t's numbering (HIP 5.2), whichever backend produced them.
#pragma once

#include <dglink/pi.h>
#include <dglink/stream/driver.h>
#include <dglink/support/error.h>

#include <cstddef>
#include <string>
#include <vector>

namespace dglink::hip {

using HipError = int;
// hipError_t values the adapter tells apart (hip_runtime_api.h, HIP 5.2).
enum : HipError {
  HipSuccess = 0,
  HipErrorInvalidValue = 1,
  HipErrorOutOfMemory = 2,
  HipErrorNotInitialized = 3,
  HipErrorInvalidDevicePointer = 17,
  HipErrorNoDevice = 100,
  HipErrorInvalidDevice = 101,
  HipErrorInvalidImage = 200,
  HipErrorInvalidContext = 201,
  HipErrorNoBinaryForGpu = 209,
  HipErrorInvalidKernelFile = 218,
  HipErrorSharedObjectInitFailed = 303,
  HipErrorInvalidHandle = 400,
  HipErrorNotFound = 500,
  HipErrorNotReady = 600,
  HipErrorIllegalAddress = 700,
  HipErrorLaunchOutOfResources = 701,
  HipErrorContextIsDestroyed = 709,
  HipErrorLaunchFailure = 719,
  HipErrorNotSupported = 801,
  HipErrorUnknown = 999,
};

// Opaque handles (hipStream_t, hipEvent_t, hipModule_t, hipFunction_t); device
// addresses are void *, as hipDeviceptr_t is.
using HipStream = struct HipStreamOpaque *;
using HipEvent = struct HipEventOpaque *;
using HipModule = struct HipModuleOpaque *;
using HipFunction = struct HipFunctionOpaque *;

// What the adapter reads of a device (hipDeviceGetName, hipDeviceGetAttribute,
// hipDeviceTotalMem, hipGetDeviceProperties): Arch is gcnArchName without features
// ("gfx90a") on AMD, "sm_90" on NVIDIA.
using HipDeviceInfo = stream::DeviceInfo;

struct HipApi {
  const char *Platform = ""; // "AMD" or "NVIDIA"
  const char *Library = "";  // what was opened: "libamdhip64.so.5", "libcuda.so.1"
  HipError (*GetDeviceCount)(int *Count) = nullptr;
  HipError (*DriverGetVersion)(int *Version) = nullptr;
  HipError (*GetDeviceInfo)(int Ordinal, HipDeviceInfo &Info) = nullptr;
  // Makes the device (its primary context) current on this thread.
  HipError (*SetDevice)(int Ordinal) = nullptr;
  // hipDeviceCanAccessPeer / hipDeviceEnablePeerAccess (From current; already enabled
  // is success). Null where the library lacks them: no peer access then.
  bool (*DeviceCanAccessPeer)(int From, int To) = nullptr;
  HipError (*DeviceEnablePeerAccess)(int From, int To) = nullptr;
  HipError (*StreamCreateNonBlocking)(HipStream *Stream) = nullptr;
  // The device whose primary context Stream belongs to (-1: another context); null where
  // the library cannot say (HIP 5.2 on AMD has no hipStreamGetDevice).
  HipError (*StreamOrdinal)(HipStream Stream, int *Ordinal) = nullptr;
  HipError (*StreamDestroy)(HipStream Stream) = nullptr;
  HipError (*StreamSynchronize)(HipStream Stream) = nullptr;
  HipError (*StreamWaitEvent)(HipStream Stream, HipEvent Event) = nullptr;
  HipError (*EventCreateNoTiming)(HipEvent *Event) = nullptr;
  HipError (*EventDestroy)(HipEvent Event) = nullptr;
  HipError (*EventRecord)(HipEvent Event, HipStream Stream) = nullptr;
  HipError (*EventSynchronize)(HipEvent Event) = nullptr;
  HipError (*EventQuery)(HipEvent Event) = nullptr;
  // Timed events and the time between two (profiling queues); null where the library
  // lacks them (then no profiling queue).
  HipError (*EventCreateTimed)(HipEvent *Event) = nullptr;
  HipError (*EventElapsedTime)(float *Milliseconds, HipEvent From, HipEvent To) = nullptr;
  // hipHostRegister (portable, mapped) and the device's address of the memory, and
  // hipHostUnregister; null where the library lacks them (PI_MEM_FLAGS_HOST_PTR_USE refused).
  HipError (*HostRegister)(void *Host, size_t Size, void **Device) = nullptr;
  HipError (*HostUnregister)(void *Host) = nullptr;
  HipError (*Malloc)(void **Pointer, size_t Size) = nullptr;
  HipError (*Free)(void *Pointer) = nullptr;
  HipError (*HostMalloc)(void **Pointer, size_t Size) = nullptr; // pinned, for every device
  HipError (*HostFree)(void *Pointer) = nullptr;
  HipError (*MallocManaged)(void **Pointer, size_t Size) = nullptr;
  // hipPointerGetAttributes: whether the driver knows Host (pinned, registered or
  // managed memory), so that a copy from or to it needs no staging. Null where the
  // library lacks it (then every large copy is staged, correct for any memory).
  bool (*KnowsHostPointer)(const void *Host) = nullptr;
  // True only on the library's positive answer that Host is pageable memory it never saw;
  // null where the platform cannot say so reliably (then USM copies go to the library).
  bool (*IsPageableHost)(const void *Host) = nullptr;
  // hipMemcpyAsync with hipMemcpyDefault: unified addressing tells the kinds apart.
  HipError (*MemcpyAsync)(void *Dst, const void *Src, size_t Size, HipStream Stream) = nullptr;
  HipError (*MemcpyHtoD)(void *Dst, const void *Src, size_t Size) = nullptr;
  HipError (*MemcpyHtoDAsync)(void *Dst, const void *Src, size_t Size, HipStream Stream) = nullptr;
  HipError (*MemcpyDtoHAsync)(void *Dst, const void *Src, size_t Size, HipStream Stream) = nullptr;
  // Height rows of Width bytes, each Pitch bytes after the one before on its side
  // (hipMemcpy2DAsync with hipMemcpyDefault); null where the library lacks it (a copy per
  // row then).
  HipError (*Memcpy2DAsync)(void *Dst, size_t DstPitch, const void *Src, size_t SrcPitch,
                            size_t Width, size_t Height, HipStream Stream) = nullptr;
  HipError (*MemsetD8Async)(void *Dst, unsigned char Value, size_t Count,
                            HipStream Stream) = nullptr;
  HipError (*MemsetD16Async)(void *Dst, unsigned short Value, size_t Count,
                             HipStream Stream) = nullptr;
  HipError (*MemsetD32Async)(void *Dst, unsigned Value, size_t Count, HipStream Stream) = nullptr;
  // hipModuleLoadData(Ex); Log gets what the loader says (the CUDA JIT's logs on
  // NVIDIA; HIP on AMD has none).
  HipError (*ModuleLoadData)(HipModule *Module, const void *Image, std::string &Log) = nullptr;
  HipError (*ModuleUnload)(HipModule Module) = nullptr;
  HipError (*ModuleGetFunction)(HipFunction *Function, HipModule Module,
                                const char *Name) = nullptr;
  HipError (*ModuleGetGlobal)(void **Address, size_t *Bytes, HipModule Module,
                              const char *Name) = nullptr;
  // hipFuncGetAttribute(HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK).
  HipError (*FuncMaxThreadsPerBlock)(int *Value, HipFunction Function) = nullptr;
  // hipFuncGetAttribute(HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, _LOCAL_SIZE_BYTES): the
  // shared memory the function declares and the private memory of one thread.
  HipError (*FuncMemory)(int *SharedBytes, int *LocalBytes, HipFunction Function) = nullptr;
  // Raises the function's dynamic shared-memory limit to Bytes where it is below
  // (hipFuncSetAttribute(hipFuncAttributeMaxDynamicSharedMemorySize)); null where launches
  // need no such opt-in (AMD: a work-group has the device's LDS whole).
  HipError (*FuncReserveDynamicShared)(HipFunction Function, size_t Bytes) = nullptr;
  // The byte size of each of the function's parameters; null, or false, where the
  // platform cannot say (AMD's hipFuncGetAttribute has no such query; NVIDIA's: the CUDA
  // driver's cuFuncGetParamInfo). Without it extra arguments reach the launch unchecked.
  bool (*FuncParameterSizes)(HipFunction Function, std::vector<size_t> &Sizes) = nullptr;
  // SharedBytes: the block's dynamic shared memory (local-memory arguments).
  HipError (*ModuleLaunchKernel)(HipFunction Function, const unsigned Grid[3],
                                 const unsigned Block[3], unsigned SharedBytes, HipStream Stream,
                                 void **Params) = nullptr;
  // hipMemGetInfo's free bytes of the device (made current first); null where the library
  // lacks it (GLOBAL_MEM_FREE unanswered).
  HipError (*MemGetFree)(int Ordinal, size_t *Free) = nullptr;
  // Virtual memory management (hipMemGetAllocationGranularity, hipMemAddressReserve /
  // Free, hipMemCreate / Release, hipMemMap / Unmap, hipMemSetAccess / GetAccess), as
  // the stream driver's calls of the same names (dglink/stream/driver.h). Null where the
  // platform's entries are not wired: the devices then report no virtual memory. NVIDIA:
  // the CUDA driver's cuMem* calls. AMD: not wired (docs/hip.md, "Virtual memory").
  HipError (*MemGetAllocationGranularity)(int Ordinal, bool Recommended, size_t *Out) = nullptr;
  HipError (*MemAddressReserve)(void **Start, size_t Size, const void *Hint) = nullptr;
  HipError (*MemAddressFree)(const void *Start, size_t Size) = nullptr;
  HipError (*MemCreate)(stream::PhysicalHandle *Out, int Ordinal, size_t Size,
                        bool Shareable) = nullptr;
  HipError (*MemRelease)(stream::PhysicalHandle Handle) = nullptr;
  HipError (*MemMap)(const void *Start, size_t Size, size_t Offset,
                     stream::PhysicalHandle Handle) = nullptr;
  HipError (*MemUnmap)(const void *Start, size_t Size) = nullptr;
  HipError (*MemSetAccess)(const void *Start, size_t Size, const std::vector<int> &Ordinals,
                           stream::VirtualAccess Access) = nullptr;
  HipError (*MemGetAccess)(const void *Start, int Ordinal, stream::VirtualAccess *Out) = nullptr;
  // Images (the stream driver's image calls, dglink/stream/driver.h: hipArray3DCreate with
  // the surface and layered flags, hipArrayDestroy, hipMemcpy2DAsync / 3DAsync / 3DPeerAsync,
  // hipCreateSurfaceObject / hipDestroySurfaceObject) and the device's image limits. Null
  // where the platform's entries are not wired: its devices then report no images.
  // NVIDIA: the CUDA adapter's arrays (dglink::cuda). AMD: not wired (docs/hip.md, "Images").
  void (*ImageLimits)(int Ordinal, stream::DeviceInfo::ImageLimits &Out) = nullptr;
  HipError (*ArrayCreate)(const stream::ArrayShape &Shape, stream::ImageArray *Out) = nullptr;
  HipError (*ArrayDestroy)(stream::ImageArray Array) = nullptr;
  // hipArray3DGetDescriptor: what an array of the caller's is (HipErrorNotSupported where
  // the library lacks it).
  HipError (*ArrayDescribe)(stream::ImageArray Array, stream::ArrayShape *Out) = nullptr;
  // Call: the HIP call made, for the message.
  HipError (*ArrayCopy)(const stream::ArrayCopy &Copy, int StreamOrdinal, HipStream Stream,
                        const char **Call) = nullptr;
  HipError (*SurfaceCreate)(stream::ImageArray Array, uint64_t *Out) = nullptr;
  HipError (*SurfaceDestroy)(uint64_t Surface) = nullptr;
  // The name of a loaded function and the allocation a pointer lies in (the stream
  // driver's functionName and pointerRange); null where the platform's entries are not
  // wired (objects from native handles then refuse what needs them). NVIDIA: the CUDA
  // driver's cuFuncGetName and cuPointerGetAttribute. AMD: not wired.
  bool (*FunctionName)(HipFunction Function, std::string &Name) = nullptr;
  bool (*PointerRange)(const void *Pointer, stream::PointerRange &Out) = nullptr;
  // hipGetErrorName / hipGetErrorString (never null).
  const char *(*ErrorName)(HipError Error) = nullptr;
  const char *(*ErrorString)(HipError Error) = nullptr;
};

// Opens the platform's library once per process (AMD: libamdhip64; NVIDIA:
// libcuda through dglink_cuda_driver). False when it cannot be used; Reason then
// says why (library missing, symbol missing, init failed, no device). Never loud:
// the adapter then reports zero platforms.
bool loadHip(std::string *Reason = nullptr);

// The loaded table; valid after loadHip() returned true (every handle of the
// adapter exists only after that).
const HipApi &hip();

// The pi_result for a failed call, with the last-error message naming the call
// and HIP's error name and text.
pi_result hipError(HipError Result, const char *Call);
pi_result hipError(HipError Result, const char *Call, pi_result Code);

} // namespace dglink::hip

// Calls a table entry and returns its error, as a pi_result with a message, from
// the enclosing function.
#define DGLINK_HIP(Entry, ...)                                                                     \
  do {                                                                                             \
    const ::dglink::hip::HipError DglinkHipResult_ = ::dglink::hip::hip().Entry(__VA_ARGS__);      \
    if (DglinkHipResult_ != ::dglink::hip::HipSuccess)                                             \
      return ::dglink::hip::hipError(DglinkHipResult_, "hip" #Entry);                              \
  } while (0)
