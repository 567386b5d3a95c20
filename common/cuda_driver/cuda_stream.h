// The stream backend's driver on the CUDA driver API (libcuda, opened by
// cuda_driver.h), and the pieces of it HIP's NVIDIA build maps its own calls onto.
#pragma once

#include "cuda_driver.h"

#include <dglink/stream/driver.h>

#include <memory>
#include <string>
#include <vector>

namespace dglink::cuda {

// A device's name, ISA, compute capability and limits.
CUresult readDeviceInfo(int Ordinal, stream::DeviceInfo &Info);
// Makes the device's primary context current on this thread, retaining it on first
// use for the process (as the CUDA runtime does). A TLS read on the hot path.
CUresult makePrimaryCurrent(int Ordinal);
// Whether the driver answers that Host is pageable memory it never saw (the memory-type
// query fails with CUDA_ERROR_INVALID_VALUE); false for known memory and other errors.
bool pageableHost(const void *Host);
// The allocation Pointer lies in (cuPointerGetAttribute: its range, memory type, whether
// managed, its device); false for pageable memory and where the driver cannot say.
bool pointerRange(const void *Pointer, stream::PointerRange &Out);
// F's name (cuFuncGetName, CUDA 12.3+); false where the driver cannot say.
bool functionName(CUfunction F, std::string &Name);
// Whether device From can reach device To's memory (cuDeviceCanAccessPeer; false
// where the driver lacks the peer calls), and turning it on between their primary
// contexts (already on is success).
bool canAccessPeer(int From, int To);
CUresult enablePeerAccess(int From, int To);
// Lets launches of F ask for Bytes of dynamic shared memory: raises F's
// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES to Bytes where it is below (never
// lowers it, so that other threads' launches of F keep theirs). Called with F's
// context current.
CUresult reserveDynamicSharedMemory(CUfunction F, size_t Bytes);
// The byte size of each of F's parameters (cuFuncGetParamInfo, CUDA 12.4+); false where
// the driver cannot say (then Sizes is empty). A kernel said to take none is treated as
// unknown: arguments are then passed as set, so a driver that cannot describe a module's
// kernels costs checks, not launches.
bool kernelParameterSizes(CUfunction F, std::vector<size_t> &Sizes);
// A copy of Height rows of Width bytes between pitched memory on stream S, host or device
// told apart by unified addressing: one cuMemcpy2DAsync, or a cuMemcpyAsync per row where
// the driver lacks it.
CUresult copyPitched(void *Dst, size_t DstPitch, const void *Src, size_t SrcPitch, size_t Width,
                     size_t Height, CUstream S);
// The ordinal of the device whose primary context (as retained by makePrimaryCurrent)
// stream S belongs to (cuStreamGetCtx), -1 for another context; Known false where the
// driver lacks cuStreamGetCtx.
CUresult streamOrdinal(CUstream S, int &Ordinal, bool &Known);
// The device's free memory (cuMemGetInfo in its primary context); false where the
// driver cannot say.
bool freeMemory(int Ordinal, size_t &Bytes);
// Virtual memory management (cuMem*; CUDA_ERROR_NOT_SUPPORTED where the driver lacks
// the calls): pinned device memory of the device with this ordinal, its granularity,
// and what devices may do with a mapped range (cuMemSetAccess / cuMemGetAccess).
CUresult memoryGranularity(int Ordinal, bool Recommended, size_t &Out);
CUresult createPhysical(int Ordinal, size_t Size, bool Shareable,
                        CUmemGenericAllocationHandle &Out);
CUresult setAccess(CUdeviceptr Start, size_t Size, const std::vector<int> &Ordinals,
                   stream::VirtualAccess Access);
CUresult access(CUdeviceptr Start, int Ordinal, stream::VirtualAccess &Out);
// cuModuleLoadDataEx with the JIT's error and information logs appended to Log.
CUresult loadModuleWithLog(CUmodule &Module, const void *Image, std::string &Log);

// The primary context of the device with this ordinal, once retained (makePrimaryCurrent);
// null before.
CUcontext primaryContext(int Ordinal);

// Images (cuda_image.cpp). The device's image limits (zero, Supported false, where the
// driver lacks the array and surface calls); an array of Shape that kernels may also
// use as a surface; a copy with arrays on stream S of the device with StreamOrdinal
// (Call: the driver call made, for the message); a surface object over an array.
void readImageLimits(int Ordinal, stream::DeviceInfo::ImageLimits &Out);
CUresult createArray(const stream::ArrayShape &Shape, CUarray &Out);
// What an array is (cuArray3DGetDescriptor); CUDA_ERROR_NOT_SUPPORTED where the driver
// lacks the call, CUDA_ERROR_INVALID_VALUE for a format no image has.
CUresult describeArray(CUarray Array, stream::ArrayShape &Out);
CUresult copyArray(const stream::ArrayCopy &Copy, int StreamOrdinal, CUstream S, const char *&Call);
CUresult createSurface(CUarray Array, CUsurfObject &Out);

// The driver of the CUDA adapter.
std::unique_ptr<stream::Driver> makeCudaStreamDriver();

} // namespace dglink::cuda
