// The CUDA driver API opened with dlopen at run time: a table of function
// pointers resolved from libcuda.so.1, and the conversion of CUresult into a
// pi_result with a message. cuda.h is included for types and enums only.
#pragma once

#include <dglink/pi.h>
#include <dglink/support/error.h>

#include <cuda.h>

#include <string>

// Every driver function the adapter calls. Where cuda.h maps a name to a
// versioned symbol (cuMemAlloc -> cuMemAlloc_v2), the macro applies to the table
// member and to the dlsym name alike, so the versioned symbol is the one loaded.
#define DGLINK_CUDA_REQUIRED_FUNCTIONS(X)                                                          \
  X(cuInit)                                                                                        \
  X(cuDriverGetVersion)                                                                            \
  X(cuGetErrorName)                                                                                \
  X(cuGetErrorString)                                                                              \
  X(cuDeviceGetCount)                                                                              \
  X(cuDeviceGet)                                                                                   \
  X(cuDeviceGetName)                                                                               \
  X(cuDeviceGetAttribute)                                                                          \
  X(cuDeviceTotalMem)                                                                              \
  X(cuDevicePrimaryCtxRetain)                                                                      \
  X(cuDevicePrimaryCtxRelease)                                                                     \
  X(cuCtxGetCurrent)                                                                               \
  X(cuCtxSetCurrent)                                                                               \
  X(cuStreamCreate)                                                                                \
  X(cuStreamDestroy)                                                                               \
  X(cuStreamSynchronize)                                                                           \
  X(cuStreamWaitEvent)                                                                             \
  X(cuEventCreate)                                                                                 \
  X(cuEventDestroy)                                                                                \
  X(cuEventRecord)                                                                                 \
  X(cuEventSynchronize)                                                                            \
  X(cuEventQuery)                                                                                  \
  X(cuMemAlloc)                                                                                    \
  X(cuMemFree)                                                                                     \
  X(cuMemAllocHost)                                                                                \
  X(cuMemHostAlloc)                                                                                \
  X(cuMemFreeHost)                                                                                 \
  X(cuMemAllocManaged)                                                                             \
  X(cuMemcpyAsync)                                                                                 \
  X(cuMemcpyHtoD)                                                                                  \
  X(cuMemcpyHtoDAsync)                                                                             \
  X(cuMemcpyDtoHAsync)                                                                             \
  X(cuMemsetD8Async)                                                                               \
  X(cuMemsetD16Async)                                                                              \
  X(cuMemsetD32Async)                                                                              \
  X(cuPointerGetAttribute)                                                                         \
  X(cuModuleLoadDataEx)                                                                            \
  X(cuModuleUnload)                                                                                \
  X(cuModuleGetFunction)                                                                           \
  X(cuModuleGetGlobal)                                                                             \
  X(cuFuncGetAttribute)                                                                            \
  X(cuLaunchKernel)

// Functions the adapter can do without (older drivers, or features it only
// uses when present).
#define DGLINK_CUDA_OPTIONAL_FUNCTIONS(X)                                                          \
  X(cuLinkCreate)                                                                                  \
  X(cuLinkAddData)                                                                                 \
  X(cuLinkComplete)                                                                                \
  X(cuLinkDestroy)                                                                                 \
  X(cuFuncGetParamInfo)                                                                            \
  X(cuModuleGetFunctionCount)                                                                      \
  X(cuModuleEnumerateFunctions)                                                                    \
  X(cuFuncGetName)                                                                                 \
  X(cuFuncSetAttribute)                                                                            \
  X(cuStreamGetCtx)                                                                                \
  X(cuDeviceCanAccessPeer)                                                                         \
  X(cuCtxEnablePeerAccess)                                                                         \
  X(cuEventElapsedTime)                                                                            \
  X(cuMemHostRegister)                                                                             \
  X(cuMemHostUnregister)                                                                           \
  X(cuMemHostGetDevicePointer)                                                                     \
  X(cuMemcpy2DAsync)                                                                               \
  X(cuMemsetD2D8Async)                                                                             \
  X(cuMemsetD2D16Async)                                                                            \
  X(cuMemsetD2D32Async)                                                                            \
  X(cuLaunchCooperativeKernel)                                                                     \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                                                   \
  X(cuMemGetAllocationGranularity)                                                                 \
  X(cuMemAddressReserve)                                                                           \
  X(cuMemAddressFree)                                                                              \
  X(cuMemCreate)                                                                                   \
  X(cuMemRelease)                                                                                  \
  X(cuMemMap)                                                                                      \
  X(cuMemUnmap)                                                                                    \
  X(cuMemSetAccess)                                                                                \
  X(cuMemGetAccess)                                                                                \
  X(cuDeviceGetUuid)                                                                               \
  X(cuDeviceGetPCIBusId)                                                                           \
  X(cuMemGetInfo)                                                                                  \
  X(cuArray3DCreate)                                                                               \
  X(cuArrayDestroy)                                                                                \
  X(cuArray3DGetDescriptor)                                                                        \
  X(cuMemcpy3DAsync)                                                                               \
  X(cuMemcpy3DPeerAsync)                                                                           \
  X(cuSurfObjectCreate)                                                                            \
  X(cuSurfObjectDestroy)

namespace dglink::cuda {

struct CudaDriver {
#define DGLINK_CUDA_DECLARE_MEMBER(Name) decltype(&::Name) Name = nullptr;
  DGLINK_CUDA_REQUIRED_FUNCTIONS(DGLINK_CUDA_DECLARE_MEMBER)
  DGLINK_CUDA_OPTIONAL_FUNCTIONS(DGLINK_CUDA_DECLARE_MEMBER)
#undef DGLINK_CUDA_DECLARE_MEMBER

  // True when the driver has the virtual memory management calls (CUDA 10.2+).
  bool hasVirtualMemory() const {
    return cuMemGetAllocationGranularity != nullptr && cuMemAddressReserve != nullptr &&
           cuMemAddressFree != nullptr && cuMemCreate != nullptr && cuMemRelease != nullptr &&
           cuMemMap != nullptr && cuMemUnmap != nullptr && cuMemSetAccess != nullptr &&
           cuMemGetAccess != nullptr;
  }

  // True when the driver has what images need (arrays, their copies, surface objects).
  bool hasImages() const {
    return cuArray3DCreate != nullptr && cuArrayDestroy != nullptr && cuMemcpy2DAsync != nullptr &&
           cuMemcpy3DAsync != nullptr && cuMemcpy3DPeerAsync != nullptr &&
           cuSurfObjectCreate != nullptr && cuSurfObjectDestroy != nullptr;
  }

  // True when the driver can link PTX/cubin itself (cuLink*).
  bool hasLinker() const {
    return cuLinkCreate != nullptr && cuLinkAddData != nullptr && cuLinkComplete != nullptr &&
           cuLinkDestroy != nullptr;
  }
};

// Opens libcuda.so.1 and runs cuInit(0), once per process. False when there is
// no usable driver; Reason then says why (library missing, symbol missing,
// cuInit's error). Never fails loudly: no driver means zero platforms.
bool loadCudaDriver(std::string *Reason = nullptr);

// The loaded table. Only valid after loadCudaDriver() returned true; every
// handle of the adapter exists only after that.
extern CudaDriver Driver;
inline const CudaDriver &cu() { return Driver; }

// The pi_result for a failed driver call, with the last-error message naming the
// call and the driver's error name and text.
pi_result cudaError(CUresult Result, const char *Call);
// The same with an explicit result code (build failures, kernel names, ...).
pi_result cudaError(CUresult Result, const char *Call, pi_result Code);

// Makes Context current on this thread unless it already is (a TLS read on the
// hot path; cuCtxSetCurrent only on a change).
inline pi_result makeCurrent(CUcontext Context) {
  CUcontext Current = nullptr;
  if (Driver.cuCtxGetCurrent(&Current) == CUDA_SUCCESS && Current == Context)
    return PI_SUCCESS;
  const CUresult Result = Driver.cuCtxSetCurrent(Context);
  return Result == CUDA_SUCCESS ? PI_SUCCESS : cudaError(Result, "cuCtxSetCurrent");
}

} // namespace dglink::cuda

// Calls a driver function through the table and returns its error, as a
// pi_result with a message, from the enclosing function.
#define DGLINK_CU(Function, ...)                                                                   \
  do {                                                                                             \
    const CUresult DglinkCuResult_ = ::dglink::cuda::cu().Function(__VA_ARGS__);                   \
    if (DglinkCuResult_ != CUDA_SUCCESS)                                                           \
      return ::dglink::cuda::cudaError(DglinkCuResult_, #Function);                                \
  } while (0)
