// Memory: buffers (pi_mem over cuMemAlloc) and USM (device: cuMemAlloc, host:
// cuMemAllocHost, shared: cuMemAllocManaged), copies and fills on the stream.
#include "handles.h"

#include <cstring>
#include <set>

namespace dglink::cuda {
namespace {

// Host USM allocations of the adapter, so that piextUSMFree knows which free
// to call (every context of a device shares the primary context).
std::mutex HostAllocationsMutex;
std::set<void *> HostAllocations;

pi_result checkUsmArguments(const char *Function, void **ResultPtr, pi_context Context,
                            const pi_usm_mem_properties *Properties, size_t Size,
                            pi_uint32 Alignment, pi_uint32 MaxAlignment) {
  return dglink::checkUsmArguments(Function, ResultPtr, Context, Properties, Size, Alignment,
                                   MaxAlignment, &PluginFunctions, AdapterLabel);
}

pi_result checkDevice(const char *Function, pi_context Context, pi_device Device) {
  return checkContextDevice(Function, Context, Device, &PluginFunctions, AdapterLabel);
}

pi_result checkBufferAccess(const char *Function, pi_queue Queue, pi_mem Buffer, size_t Offset,
                            size_t Size, const void *Host, const char *HostName,
                            pi_uint32 NumEvents, const pi_event *Events) {
  return dglink::checkBufferAccess(Function, Queue, Buffer, Offset, Size, Host, HostName,
                                   NumEvents, Events, &PluginFunctions, AdapterLabel);
}

} // namespace
} // namespace dglink::cuda

using namespace dglink::cuda;

extern "C" PI_API_EXPORT pi_result piMemBufferCreate(pi_context Context, pi_mem_flags Flags,
                                                     size_t Size, void *HostPtr,
                                                     pi_mem *RetMem) try {
  DGLINK_CUDA_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  DGLINK_CHECK_NOT_NULL(RetMem, PI_ERROR_INVALID_VALUE);
  if (Size == 0)
    return dglink::fail(PI_ERROR_INVALID_BUFFER_SIZE, "piMemBufferCreate: argument 'Size' is 0");
  if ((Flags & ~(PI_MEM_FLAGS_ACCESS_RW | PI_MEM_FLAGS_HOST_PTR_COPY)) != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "piMemBufferCreate: unsupported flags {:#x}",
                        static_cast<unsigned long long>(Flags));
  const bool Copy = (Flags & PI_MEM_FLAGS_HOST_PTR_COPY) != 0;
  if (Copy != (HostPtr != nullptr))
    return dglink::fail(PI_ERROR_INVALID_HOST_PTR,
                        "piMemBufferCreate: 'HostPtr' must be given exactly when "
                        "PI_MEM_FLAGS_HOST_PTR_COPY is set");
  DGLINK_TRY(makeCurrent(Context->Context));
  CUdeviceptr Pointer = 0;
  DGLINK_CU(cuMemAlloc, &Pointer, Size);
  if (Copy) {
    const CUresult Result = cu().cuMemcpyHtoD(Pointer, HostPtr, Size);
    if (Result != CUDA_SUCCESS) {
      cu().cuMemFree(Pointer);
      return cudaError(Result, "cuMemcpyHtoD");
    }
  }
  auto *Mem = new _pi_mem();
  Mem->Context = Context;
  Mem->Pointer = Pointer;
  Mem->Size = Size;
  retain(Context);
  *RetMem = Mem;
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piMemRetain(pi_mem Mem) try {
  DGLINK_CUDA_CHECK_HANDLE(Mem, PI_ERROR_INVALID_MEM_OBJECT);
  retain(Mem);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piMemRelease(pi_mem Mem) try {
  DGLINK_CUDA_CHECK_HANDLE(Mem, PI_ERROR_INVALID_MEM_OBJECT);
  if (dropReference(Mem)) {
    // cuMemFree waits for work using the memory to finish.
    if (makeCurrent(Mem->Context->Context) == PI_SUCCESS)
      cu().cuMemFree(Mem->Pointer);
    releaseContext(Mem->Context);
    delete Mem;
  }
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piEnqueueMemBufferRead(pi_queue Queue, pi_mem Buffer,
                                                          pi_bool BlockingRead, size_t Offset,
                                                          size_t Size, void *Dst,
                                                          pi_uint32 NumEventsInWaitList,
                                                          const pi_event *EventWaitList,
                                                          pi_event *Event) try {
  DGLINK_TRY(checkBufferAccess(__func__, Queue, Buffer, Offset, Size, Dst, "Dst",
                               NumEventsInWaitList, EventWaitList));
  DGLINK_TRY(makeCurrent(Queue->Context->Context));
  DGLINK_TRY(waitForEvents(*Queue, NumEventsInWaitList, EventWaitList));
  EnqueueEvent Done(*Queue, Event);
  DGLINK_TRY(Done.prepare());
  return Done.finish(Queue->Staging.read(Queue->Stream, Dst, Buffer->Pointer + Offset, Size,
                                         BlockingRead != PI_FALSE, Done.event()));
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piEnqueueMemBufferWrite(pi_queue Queue, pi_mem Buffer,
                                                           pi_bool BlockingWrite, size_t Offset,
                                                           size_t Size, const void *Src,
                                                           pi_uint32 NumEventsInWaitList,
                                                           const pi_event *EventWaitList,
                                                           pi_event *Event) try {
  DGLINK_TRY(checkBufferAccess(__func__, Queue, Buffer, Offset, Size, Src, "Src",
                               NumEventsInWaitList, EventWaitList));
  DGLINK_TRY(makeCurrent(Queue->Context->Context));
  DGLINK_TRY(waitForEvents(*Queue, NumEventsInWaitList, EventWaitList));
  EnqueueEvent Done(*Queue, Event);
  DGLINK_TRY(Done.prepare());
  return Done.finish(Queue->Staging.write(Queue->Stream, Buffer->Pointer + Offset, Src, Size,
                                          BlockingWrite != PI_FALSE, Done.event()));
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piextUSMDeviceAlloc(void **ResultPtr, pi_context Context,
                                                       pi_device Device,
                                                       const pi_usm_mem_properties *Properties,
                                                       size_t Size, pi_uint32 Alignment) try {
  DGLINK_TRY(checkUsmArguments(__func__, ResultPtr, Context, Properties, Size, Alignment, 256));
  DGLINK_TRY(checkDevice(__func__, Context, Device));
  DGLINK_TRY(makeCurrent(Context->Context));
  CUdeviceptr Pointer = 0;
  DGLINK_CU(cuMemAlloc, &Pointer, Size);
  *ResultPtr = reinterpret_cast<void *>(Pointer);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piextUSMHostAlloc(void **ResultPtr, pi_context Context,
                                                     const pi_usm_mem_properties *Properties,
                                                     size_t Size, pi_uint32 Alignment) try {
  DGLINK_TRY(checkUsmArguments(__func__, ResultPtr, Context, Properties, Size, Alignment, 4096));
  DGLINK_TRY(makeCurrent(Context->Context));
  void *Pointer = nullptr;
  DGLINK_CU(cuMemAllocHost, &Pointer, Size);
  {
    std::lock_guard<std::mutex> Lock(HostAllocationsMutex);
    HostAllocations.insert(Pointer);
  }
  *ResultPtr = Pointer;
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piextUSMSharedAlloc(void **ResultPtr, pi_context Context,
                                                       pi_device Device,
                                                       const pi_usm_mem_properties *Properties,
                                                       size_t Size, pi_uint32 Alignment) try {
  DGLINK_TRY(checkUsmArguments(__func__, ResultPtr, Context, Properties, Size, Alignment, 4096));
  DGLINK_TRY(checkDevice(__func__, Context, Device));
  DGLINK_TRY(makeCurrent(Context->Context));
  CUdeviceptr Pointer = 0;
  DGLINK_CU(cuMemAllocManaged, &Pointer, Size, CU_MEM_ATTACH_GLOBAL);
  *ResultPtr = reinterpret_cast<void *>(Pointer);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piextUSMFree(pi_context Context, void *Ptr) try {
  DGLINK_CUDA_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  if (Ptr == nullptr)
    return PI_SUCCESS;
  DGLINK_TRY(makeCurrent(Context->Context));
  bool Host = false;
  {
    std::lock_guard<std::mutex> Lock(HostAllocationsMutex);
    Host = HostAllocations.erase(Ptr) != 0;
  }
  if (Host) {
    DGLINK_CU(cuMemFreeHost, Ptr);
    return PI_SUCCESS;
  }
  const CUresult Result = cu().cuMemFree(reinterpret_cast<CUdeviceptr>(Ptr));
  if (Result == CUDA_ERROR_INVALID_VALUE)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piextUSMFree: {} is not a USM allocation of the CUDA adapter",
                        fmt::ptr(Ptr));
  if (Result != CUDA_SUCCESS)
    return cudaError(Result, "cuMemFree");
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piextUSMEnqueueMemcpy(pi_queue Queue, pi_bool Blocking,
                                                         void *Dst, const void *Src, size_t Size,
                                                         pi_uint32 NumEventsInWaitList,
                                                         const pi_event *EventWaitList,
                                                         pi_event *Event) try {
  DGLINK_CUDA_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_CHECK_NOT_NULL(Dst, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(Src, PI_ERROR_INVALID_VALUE);
  DGLINK_TRY(dglink::checkWaitList(NumEventsInWaitList, EventWaitList, &PluginFunctions));
  DGLINK_TRY(makeCurrent(Queue->Context->Context));
  DGLINK_TRY(waitForEvents(*Queue, NumEventsInWaitList, EventWaitList));
  EnqueueEvent Done(*Queue, Event);
  DGLINK_TRY(Done.prepare());
  // Unified addressing: the driver tells host (pinned or pageable), device and
  // managed memory apart from the pointers.
  auto Copy = [&]() -> pi_result {
    if (Size != 0)
      DGLINK_CU(cuMemcpyAsync, reinterpret_cast<CUdeviceptr>(Dst),
                reinterpret_cast<CUdeviceptr>(Src), Size, Queue->Stream);
    DGLINK_TRY(Done.recordNow());
    if (Blocking)
      DGLINK_CU(cuStreamSynchronize, Queue->Stream);
    return PI_SUCCESS;
  };
  return Done.finish(Copy());
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piextUSMEnqueueFill(pi_queue Queue, void *Ptr,
                                                       const void *Pattern, size_t PatternSize,
                                                       size_t Size,
                                                       pi_uint32 NumEventsInWaitList,
                                                       const pi_event *EventWaitList,
                                                       pi_event *Event) try {
  DGLINK_CUDA_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_CHECK_NOT_NULL(Ptr, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(Pattern, PI_ERROR_INVALID_VALUE);
  if (PatternSize == 0 || (PatternSize & (PatternSize - 1)) != 0 || PatternSize > 128 ||
      Size % PatternSize != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piextUSMEnqueueFill: pattern of {} bytes (a power of two up to 128 is "
                        "needed) does not tile {} bytes",
                        PatternSize, Size);
  const auto Address = reinterpret_cast<CUdeviceptr>(Ptr);
  if (Address % (PatternSize < 4 ? PatternSize : 4) != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piextUSMEnqueueFill: pointer {} is not aligned to the pattern",
                        fmt::ptr(Ptr));
  DGLINK_TRY(dglink::checkWaitList(NumEventsInWaitList, EventWaitList, &PluginFunctions));
  DGLINK_TRY(makeCurrent(Queue->Context->Context));
  DGLINK_TRY(waitForEvents(*Queue, NumEventsInWaitList, EventWaitList));
  EnqueueEvent Done(*Queue, Event);
  DGLINK_TRY(Done.prepare());
  auto Fill = [&]() -> pi_result {
    const size_t Count = Size / PatternSize;
    if (Count != 0) {
      if (PatternSize == 1) {
        DGLINK_CU(cuMemsetD8Async, Address, *static_cast<const unsigned char *>(Pattern), Count,
                  Queue->Stream);
      } else if (PatternSize == 2) {
        unsigned short Value;
        std::memcpy(&Value, Pattern, 2);
        DGLINK_CU(cuMemsetD16Async, Address, Value, Count, Queue->Stream);
      } else if (PatternSize == 4) {
        unsigned int Value;
        std::memcpy(&Value, Pattern, 4);
        DGLINK_CU(cuMemsetD32Async, Address, Value, Count, Queue->Stream);
      } else {
        // Wider patterns: tile them on the host and copy (blocking, so the
        // temporary may go away).
        std::vector<unsigned char> Tiled(Size);
        for (size_t I = 0; I < Size; I += PatternSize)
          std::memcpy(Tiled.data() + I, Pattern, PatternSize);
        DGLINK_CU(cuMemcpyAsync, Address, reinterpret_cast<CUdeviceptr>(Tiled.data()), Size,
                  Queue->Stream);
        DGLINK_TRY(Done.recordNow());
        DGLINK_CU(cuStreamSynchronize, Queue->Stream);
        return PI_SUCCESS;
      }
    }
    return Done.recordNow();
  };
  return Done.finish(Fill());
}
DGLINK_CATCH_ALL
