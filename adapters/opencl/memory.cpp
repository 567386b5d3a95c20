// Memory: OpenCL buffers (always available) and USM, served by cl_intel_unified_shared_memory
// where the device has it and by OpenCL 2.0 buffer SVM otherwise.
#include "opencl_adapter.h"

namespace dglink::opencl {

const char *usmKindName(UsmKind Kind) {
  switch (Kind) {
  case UsmKind::Host:
    return "host";
  case UsmKind::Device:
    return "device";
  case UsmKind::Shared:
    return "shared";
  }
  return "unknown";
}

namespace {

void freeWith(pi_context Context, void *Ptr) {
  if (Context->Usm == PI_USM_MECHANISM_NATIVE)
    Context->Platform->Usm.MemBlockingFree(Context->Context, Ptr);
  else
    clSVMFree(Context->Context, Ptr);
}

pi_result checkUsmArguments(const char *Function, void **ResultPtr,
                            const pi_usm_mem_properties *Properties, size_t Size,
                            pi_uint32 Alignment) {
  if (ResultPtr == nullptr)
    return fail(PI_ERROR_INVALID_VALUE, "{}: argument 'ResultPtr' is null", Function);
  if (Size == 0)
    return fail(PI_ERROR_INVALID_BUFFER_SIZE, "{}: Size is 0", Function);
  if ((Alignment & (Alignment - 1)) != 0)
    return fail(PI_ERROR_INVALID_VALUE, "{}: Alignment {} is not a power of two", Function,
                Alignment);
  if (Properties != nullptr && Properties[0] != 0)
    return fail(PI_ERROR_INVALID_VALUE, "{}: unknown USM property 0x{:x}", Function, Properties[0]);
  return PI_SUCCESS;
}

pi_result noUsmPath(const char *Function, pi_context Context, pi_device Device) {
  // Name a device that lacks a path; a host allocation has no device of its own.
  if (Device == nullptr) {
    Device = Context->Devices.front();
    for (pi_device Member : Context->Devices)
      if (Member->Usm == PI_USM_MECHANISM_NONE) {
        Device = Member;
        break;
      }
  }
  if (Device->Usm != PI_USM_MECHANISM_NONE)
    return fail(PI_ERROR_INVALID_OPERATION,
                "{}: the devices of this context have no USM path in common "
                "(cl_intel_unified_shared_memory on some, SVM on others); use memory buffers",
                Function);
  return fail(PI_ERROR_INVALID_OPERATION,
              "{}: device '{}' has no USM path (neither cl_intel_unified_shared_memory nor "
              "OpenCL 2.0 SVM); use memory buffers",
              Function, Device->Name);
}

pi_result allocate(const char *Function, UsmKind Kind, void **ResultPtr, pi_context Context,
                   pi_device Device, const pi_usm_mem_properties *Properties, size_t Size,
                   pi_uint32 Alignment) {
  DGLINK_TRY(checkUsmArguments(Function, ResultPtr, Properties, Size, Alignment));
  if (Device != nullptr && !Context->hasDevice(Device))
    return fail(PI_ERROR_INVALID_DEVICE, "{}: device '{}' is not in the context", Function,
                Device->Name);
  if (Context->Usm == PI_USM_MECHANISM_NONE)
    return noUsmPath(Function, Context, Device);

  void *Ptr = nullptr;
  cl_int Error = CL_SUCCESS;
  const char *ClFunction = nullptr;
  if (Context->Usm == PI_USM_MECHANISM_NATIVE) {
    const IntelUsmFunctions &Usm = Context->Platform->Usm;
    switch (Kind) {
    case UsmKind::Host:
      ClFunction = "clHostMemAllocINTEL";
      Ptr = Usm.HostMemAlloc(Context->Context, nullptr, Size, Alignment, &Error);
      break;
    case UsmKind::Device:
      ClFunction = "clDeviceMemAllocINTEL";
      Ptr = Usm.DeviceMemAlloc(Context->Context, Device->Device, nullptr, Size, Alignment, &Error);
      break;
    case UsmKind::Shared:
      ClFunction = "clSharedMemAllocINTEL";
      Ptr = Usm.SharedMemAlloc(Context->Context, Device->Device, nullptr, Size, Alignment, &Error);
      break;
    }
  } else {
    // Host and shared memory is touched by the host without map/unmap, which only
    // fine-grained SVM allows; device memory is reached only through copies, so
    // coarse-grained SVM serves it.
    cl_svm_mem_flags Flags = CL_MEM_READ_WRITE;
    if (Kind != UsmKind::Device) {
      if (!Context->FineGrainSvm)
        return fail(PI_ERROR_INVALID_OPERATION,
                    "{}: {} USM needs fine-grained buffer SVM, which a device of this context "
                    "lacks; use device USM or memory buffers",
                    Function, usmKindName(Kind));
      Flags |= CL_MEM_SVM_FINE_GRAIN_BUFFER;
    }
    ClFunction = "clSVMAlloc";
    Ptr = clSVMAlloc(Context->Context, Flags, Size, Alignment);
    if (Ptr == nullptr)
      Error = CL_OUT_OF_RESOURCES;
  }
  if (Ptr == nullptr) {
    if (Error == CL_SUCCESS)
      Error = CL_OUT_OF_RESOURCES;
    return fail(toPiResult(Error), "{}: {} of {} bytes failed with {} ({})", Function, ClFunction,
                Size, clErrorName(Error), Error);
  }
  try {
    std::lock_guard<std::mutex> Lock(Context->UsmMutex);
    Context->UsmAllocations.emplace(Ptr, Kind);
  } catch (...) {
    freeWith(Context, Ptr); // an allocation that cannot be recorded could never be freed
    throw;
  }
  *ResultPtr = Ptr;
  return PI_SUCCESS;
}

pi_result checkBufferRange(const char *Function, pi_mem Buffer, size_t Offset, size_t Size) {
  if (Offset > Buffer->Size || Size > Buffer->Size - Offset)
    return fail(PI_ERROR_INVALID_VALUE,
                "{}: offset {} + size {} is past the end of a buffer of {} bytes", Function, Offset,
                Size, Buffer->Size);
  return PI_SUCCESS;
}

} // namespace

void freeRemainingUsm(pi_context Context) {
  std::lock_guard<std::mutex> Lock(Context->UsmMutex);
  for (const auto &Allocation : Context->UsmAllocations)
    freeWith(Context, Allocation.first);
  Context->UsmAllocations.clear();
}

} // namespace dglink::opencl

using namespace dglink::opencl;

extern "C" {

PI_API_EXPORT pi_result piMemBufferCreate(pi_context Context, pi_mem_flags Flags, size_t Size,
                                          void *HostPtr, pi_mem *RetMem) try {
  DGLINK_OPENCL_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  DGLINK_CHECK_NOT_NULL(RetMem, PI_ERROR_INVALID_VALUE);
  if ((Flags & ~(PI_MEM_FLAGS_ACCESS_RW | PI_MEM_FLAGS_HOST_PTR_COPY)) != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: unknown bits in Flags 0x{:x}", __func__,
                        Flags);
  if (Size == 0)
    return dglink::fail(PI_ERROR_INVALID_BUFFER_SIZE, "{}: Size is 0", __func__);
  const bool Copy = (Flags & PI_MEM_FLAGS_HOST_PTR_COPY) != 0;
  if (Copy != (HostPtr != nullptr))
    return dglink::fail(PI_ERROR_INVALID_HOST_PTR, "{}: HostPtr is {} but HOST_PTR_COPY is {}",
                        __func__, HostPtr == nullptr ? "null" : "not null",
                        Copy ? "set" : "not set");
  // The PI flag values are OpenCL's (CL_MEM_READ_WRITE, CL_MEM_COPY_HOST_PTR).
  const cl_mem_flags ClFlags = CL_MEM_READ_WRITE | (Copy ? CL_MEM_COPY_HOST_PTR : 0);
  auto Mem = std::make_unique<_pi_mem>();
  cl_int Error = CL_SUCCESS;
  Mem->Mem = clCreateBuffer(Context->Context, ClFlags, Size, HostPtr, &Error);
  if (Error != CL_SUCCESS)
    return clFailure(Error, __func__, "clCreateBuffer");
  Mem->Context = Context;
  Mem->Size = Size;
  ++Context->RefCount;
  *RetMem = Mem.release();
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piMemRetain(pi_mem Mem) try {
  DGLINK_OPENCL_CHECK_HANDLE(Mem, PI_ERROR_INVALID_MEM_OBJECT);
  ++Mem->RefCount;
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piMemRelease(pi_mem Mem) try {
  DGLINK_OPENCL_CHECK_HANDLE(Mem, PI_ERROR_INVALID_MEM_OBJECT);
  if (--Mem->RefCount == 0) {
    clReleaseMemObject(Mem->Mem);
    releaseReference(Mem->Context);
    delete Mem;
  }
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piEnqueueMemBufferRead(pi_queue Queue, pi_mem Buffer, pi_bool BlockingRead,
                                               size_t Offset, size_t Size, void *Dst,
                                               pi_uint32 NumEventsInWaitList,
                                               const pi_event *EventWaitList, pi_event *Event) try {
  DGLINK_OPENCL_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_OPENCL_CHECK_HANDLE(Buffer, PI_ERROR_INVALID_MEM_OBJECT);
  DGLINK_CHECK_NOT_NULL(Dst, PI_ERROR_INVALID_VALUE);
  DGLINK_TRY(checkBufferRange(__func__, Buffer, Offset, Size));
  DGLINK_TRY(checkQueueWaitList(Queue, NumEventsInWaitList, EventWaitList));
  ClEventList WaitList(NumEventsInWaitList, EventWaitList);
  PendingEvent Pending(Queue, Event);
  cl_int Error =
      clEnqueueReadBuffer(Queue->Queue, Buffer->Mem, BlockingRead ? CL_TRUE : CL_FALSE, Offset,
                          Size, Dst, WaitList.size(), WaitList.data(), Pending.clEvent());
  if (Error != CL_SUCCESS)
    return clFailure(Error, __func__, "clEnqueueReadBuffer");
  Pending.commit();
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piEnqueueMemBufferWrite(pi_queue Queue, pi_mem Buffer,
                                                pi_bool BlockingWrite, size_t Offset, size_t Size,
                                                const void *Src, pi_uint32 NumEventsInWaitList,
                                                const pi_event *EventWaitList,
                                                pi_event *Event) try {
  DGLINK_OPENCL_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_OPENCL_CHECK_HANDLE(Buffer, PI_ERROR_INVALID_MEM_OBJECT);
  DGLINK_CHECK_NOT_NULL(Src, PI_ERROR_INVALID_VALUE);
  DGLINK_TRY(checkBufferRange(__func__, Buffer, Offset, Size));
  DGLINK_TRY(checkQueueWaitList(Queue, NumEventsInWaitList, EventWaitList));
  ClEventList WaitList(NumEventsInWaitList, EventWaitList);
  PendingEvent Pending(Queue, Event);
  cl_int Error =
      clEnqueueWriteBuffer(Queue->Queue, Buffer->Mem, BlockingWrite ? CL_TRUE : CL_FALSE, Offset,
                           Size, Src, WaitList.size(), WaitList.data(), Pending.clEvent());
  if (Error != CL_SUCCESS)
    return clFailure(Error, __func__, "clEnqueueWriteBuffer");
  Pending.commit();
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piextUSMDeviceAlloc(void **ResultPtr, pi_context Context, pi_device Device,
                                            const pi_usm_mem_properties *Properties, size_t Size,
                                            pi_uint32 Alignment) try {
  DGLINK_OPENCL_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  DGLINK_OPENCL_CHECK_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  return allocate(__func__, UsmKind::Device, ResultPtr, Context, Device, Properties, Size,
                  Alignment);
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piextUSMHostAlloc(void **ResultPtr, pi_context Context,
                                          const pi_usm_mem_properties *Properties, size_t Size,
                                          pi_uint32 Alignment) try {
  DGLINK_OPENCL_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  return allocate(__func__, UsmKind::Host, ResultPtr, Context, nullptr, Properties, Size,
                  Alignment);
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piextUSMSharedAlloc(void **ResultPtr, pi_context Context, pi_device Device,
                                            const pi_usm_mem_properties *Properties, size_t Size,
                                            pi_uint32 Alignment) try {
  DGLINK_OPENCL_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  DGLINK_OPENCL_CHECK_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  return allocate(__func__, UsmKind::Shared, ResultPtr, Context, Device, Properties, Size,
                  Alignment);
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piextUSMFree(pi_context Context, void *Ptr) try {
  DGLINK_OPENCL_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  DGLINK_CHECK_NOT_NULL(Ptr, PI_ERROR_INVALID_VALUE);
  std::lock_guard<std::mutex> Lock(Context->UsmMutex);
  auto Allocation = Context->UsmAllocations.find(Ptr);
  if (Allocation == Context->UsmAllocations.end())
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: {} is not the start of a USM allocation of this context", __func__,
                        Ptr);
  // clMemBlockingFreeINTEL waits for commands that use the memory; clSVMFree does not,
  // which matches USM's rule that nothing may still use a pointer being freed.
  freeWith(Context, Ptr);
  Context->UsmAllocations.erase(Allocation);
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piextUSMEnqueueMemcpy(pi_queue Queue, pi_bool Blocking, void *Dst,
                                              const void *Src, size_t Size,
                                              pi_uint32 NumEventsInWaitList,
                                              const pi_event *EventWaitList, pi_event *Event) try {
  DGLINK_OPENCL_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_CHECK_NOT_NULL(Dst, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(Src, PI_ERROR_INVALID_VALUE);
  DGLINK_TRY(checkQueueWaitList(Queue, NumEventsInWaitList, EventWaitList));
  pi_context Context = Queue->Context;
  if (Context->Usm == PI_USM_MECHANISM_NONE)
    return noUsmPath(__func__, Context, Queue->Device);
  ClEventList WaitList(NumEventsInWaitList, EventWaitList);
  PendingEvent Pending(Queue, Event);
  const cl_bool ClBlocking = Blocking ? CL_TRUE : CL_FALSE;
  cl_int Error;
  const char *ClFunction;
  if (Context->Usm == PI_USM_MECHANISM_NATIVE) {
    ClFunction = "clEnqueueMemcpyINTEL";
    Error =
        Context->Platform->Usm.EnqueueMemcpy(Queue->Queue, ClBlocking, Dst, Src, Size,
                                             WaitList.size(), WaitList.data(), Pending.clEvent());
  } else {
    ClFunction = "clEnqueueSVMMemcpy";
    Error = clEnqueueSVMMemcpy(Queue->Queue, ClBlocking, Dst, Src, Size, WaitList.size(),
                               WaitList.data(), Pending.clEvent());
  }
  if (Error != CL_SUCCESS)
    return clFailure(Error, __func__, ClFunction);
  Pending.commit();
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piextUSMEnqueueFill(pi_queue Queue, void *Ptr, const void *Pattern,
                                            size_t PatternSize, size_t Size,
                                            pi_uint32 NumEventsInWaitList,
                                            const pi_event *EventWaitList, pi_event *Event) try {
  DGLINK_OPENCL_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_CHECK_NOT_NULL(Ptr, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(Pattern, PI_ERROR_INVALID_VALUE);
  if (PatternSize == 0 || (PatternSize & (PatternSize - 1)) != 0 || PatternSize > 128 ||
      Size % PatternSize != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: PatternSize {} must be a power of two up to 128 that divides Size {}",
                        __func__, PatternSize, Size);
  DGLINK_TRY(checkQueueWaitList(Queue, NumEventsInWaitList, EventWaitList));
  pi_context Context = Queue->Context;
  if (Context->Usm == PI_USM_MECHANISM_NONE)
    return noUsmPath(__func__, Context, Queue->Device);
  ClEventList WaitList(NumEventsInWaitList, EventWaitList);
  PendingEvent Pending(Queue, Event);
  cl_int Error;
  const char *ClFunction;
  if (Context->Usm == PI_USM_MECHANISM_NATIVE) {
    ClFunction = "clEnqueueMemFillINTEL";
    Error =
        Context->Platform->Usm.EnqueueMemFill(Queue->Queue, Ptr, Pattern, PatternSize, Size,
                                              WaitList.size(), WaitList.data(), Pending.clEvent());
  } else {
    ClFunction = "clEnqueueSVMMemFill";
    Error = clEnqueueSVMMemFill(Queue->Queue, Ptr, Pattern, PatternSize, Size, WaitList.size(),
                                WaitList.data(), Pending.clEvent());
  }
  if (Error != CL_SUCCESS)
    return clFailure(Error, __func__, ClFunction);
  Pending.commit();
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

} // extern "C"
