// Memory: buffers (pi_mem over device USM) and USM (zeMemAlloc{Device,Host,
// Shared}), copies and fills appended to the queue's immediate command list.
#include "handles.h"

#include <cstdint>

namespace dglink::level_zero {
namespace {

pi_result checkUsmArguments(const char *Function, void **ResultPtr, pi_context Context,
                            const pi_usm_mem_properties *Properties, size_t Size,
                            pi_uint32 Alignment) {
  return dglink::checkUsmArguments(Function, ResultPtr, Context, Properties, Size, Alignment, 0,
                                   &PluginFunctions, AdapterLabel);
}

pi_result checkDevice(const char *Function, pi_context Context, pi_device Device) {
  return checkContextDevice(Function, Context, Device, &PluginFunctions, AdapterLabel);
}

pi_result refuseUnsupported(const char *Function, pi_usm_capabilities Capabilities,
                            const char *Kind, const _pi_device &Device) {
  if (Capabilities == 0)
    return fail(PI_ERROR_INVALID_OPERATION, "{}: device '{}' has no {} USM", Function, Device.Name,
                Kind);
  return PI_SUCCESS;
}

pi_result checkBufferAccess(const char *Function, pi_queue Queue, pi_mem Buffer, size_t Offset,
                            size_t Size, const void *Host, const char *HostName,
                            pi_uint32 NumEvents, const pi_event *Events) {
  return dglink::checkBufferAccess(Function, Queue, Buffer, Offset, Size, Host, HostName,
                                   NumEvents, Events, &PluginFunctions, AdapterLabel);
}

pi_result copy(pi_queue Queue, bool Blocking, void *Dst, const void *Src, size_t Size,
               pi_uint32 NumEvents, const pi_event *Events, pi_event *Event) {
  return enqueue(*Queue, "zeCommandListAppendMemoryCopy", Blocking, NumEvents, Events, Event,
                 [&](ze_event_handle_t Signal, uint32_t NumWaits, ze_event_handle_t *Waits) {
                   return ze().zeCommandListAppendMemoryCopy(Queue->List, Dst, Src, Size, Signal,
                                                             NumWaits, Waits);
                 });
}

} // namespace
} // namespace dglink::level_zero

using namespace dglink::level_zero;

extern "C" PI_API_EXPORT pi_result piMemBufferCreate(pi_context Context, pi_mem_flags Flags,
                                                     size_t Size, void *HostPtr, pi_mem *RetMem) {
  DGLINK_ZE_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
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
  ze_device_mem_alloc_desc_t Desc = {};
  Desc.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC;
  void *Pointer = nullptr;
  DGLINK_ZE(zeMemAllocDevice, Context->Context, &Desc, Size, 0, Context->Device->Device, &Pointer);
  if (Copy) {
    ze_event_handle_t Done = nullptr;
    pi_result Result = acquireEvent(*Context, Done);
    if (Result == PI_SUCCESS) {
      std::lock_guard<std::mutex> Lock(Context->InitMutex);
      ze_result_t Copied = ze().zeCommandListAppendMemoryCopy(Context->InitList, Pointer, HostPtr,
                                                              Size, Done, 0, nullptr);
      if (Copied == ZE_RESULT_SUCCESS)
        Copied = ze().zeEventHostSynchronize(Done, UINT64_MAX);
      if (Copied != ZE_RESULT_SUCCESS)
        Result = zeError(Copied, "zeCommandListAppendMemoryCopy (buffer initial contents)");
      recycleEvent(*Context, Done);
    }
    if (Result != PI_SUCCESS) {
      ze().zeMemFree(Context->Context, Pointer);
      return Result;
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

extern "C" PI_API_EXPORT pi_result piMemRetain(pi_mem Mem) {
  DGLINK_ZE_CHECK_HANDLE(Mem, PI_ERROR_INVALID_MEM_OBJECT);
  retain(Mem);
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result piMemRelease(pi_mem Mem) {
  DGLINK_ZE_CHECK_HANDLE(Mem, PI_ERROR_INVALID_MEM_OBJECT);
  if (dropReference(Mem)) {
    ze().zeMemFree(Mem->Context->Context, Mem->Pointer);
    releaseContext(Mem->Context);
    delete Mem;
  }
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result piEnqueueMemBufferRead(
    pi_queue Queue, pi_mem Buffer, pi_bool BlockingRead, size_t Offset, size_t Size, void *Dst,
    pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList, pi_event *Event) {
  DGLINK_TRY(checkBufferAccess(__func__, Queue, Buffer, Offset, Size, Dst, "Dst",
                               NumEventsInWaitList, EventWaitList));
  return copy(Queue, BlockingRead != PI_FALSE, Dst,
              static_cast<const char *>(Buffer->Pointer) + Offset, Size, NumEventsInWaitList,
              EventWaitList, Event);
}

extern "C" PI_API_EXPORT pi_result piEnqueueMemBufferWrite(pi_queue Queue, pi_mem Buffer,
                                                           pi_bool BlockingWrite, size_t Offset,
                                                           size_t Size, const void *Src,
                                                           pi_uint32 NumEventsInWaitList,
                                                           const pi_event *EventWaitList,
                                                           pi_event *Event) {
  DGLINK_TRY(checkBufferAccess(__func__, Queue, Buffer, Offset, Size, Src, "Src",
                               NumEventsInWaitList, EventWaitList));
  return copy(Queue, BlockingWrite != PI_FALSE, static_cast<char *>(Buffer->Pointer) + Offset, Src,
              Size, NumEventsInWaitList, EventWaitList, Event);
}

extern "C" PI_API_EXPORT pi_result piextUSMDeviceAlloc(void **ResultPtr, pi_context Context,
                                                       pi_device Device,
                                                       const pi_usm_mem_properties *Properties,
                                                       size_t Size, pi_uint32 Alignment) {
  DGLINK_TRY(checkUsmArguments(__func__, ResultPtr, Context, Properties, Size, Alignment));
  DGLINK_TRY(checkDevice(__func__, Context, Device));
  DGLINK_TRY(refuseUnsupported(__func__, Device->DeviceUsm, "device", *Device));
  ze_device_mem_alloc_desc_t Desc = {};
  Desc.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC;
  DGLINK_ZE(zeMemAllocDevice, Context->Context, &Desc, Size, Alignment, Device->Device, ResultPtr);
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result piextUSMHostAlloc(void **ResultPtr, pi_context Context,
                                                     const pi_usm_mem_properties *Properties,
                                                     size_t Size, pi_uint32 Alignment) {
  DGLINK_TRY(checkUsmArguments(__func__, ResultPtr, Context, Properties, Size, Alignment));
  DGLINK_TRY(refuseUnsupported(__func__, Context->Device->HostUsm, "host", *Context->Device));
  ze_host_mem_alloc_desc_t Desc = {};
  Desc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
  DGLINK_ZE(zeMemAllocHost, Context->Context, &Desc, Size, Alignment, ResultPtr);
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result piextUSMSharedAlloc(void **ResultPtr, pi_context Context,
                                                       pi_device Device,
                                                       const pi_usm_mem_properties *Properties,
                                                       size_t Size, pi_uint32 Alignment) {
  DGLINK_TRY(checkUsmArguments(__func__, ResultPtr, Context, Properties, Size, Alignment));
  DGLINK_TRY(checkDevice(__func__, Context, Device));
  DGLINK_TRY(refuseUnsupported(__func__, Device->SharedUsm, "shared", *Device));
  ze_device_mem_alloc_desc_t DeviceDesc = {};
  DeviceDesc.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC;
  ze_host_mem_alloc_desc_t HostDesc = {};
  HostDesc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
  DGLINK_ZE(zeMemAllocShared, Context->Context, &DeviceDesc, &HostDesc, Size, Alignment,
            Device->Device, ResultPtr);
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result piextUSMFree(pi_context Context, void *Ptr) {
  DGLINK_ZE_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  if (Ptr == nullptr)
    return PI_SUCCESS;
  const ze_result_t Result = ze().zeMemFree(Context->Context, Ptr);
  if (Result == ZE_RESULT_ERROR_INVALID_ARGUMENT)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piextUSMFree: {} is not a USM allocation of the Level Zero adapter",
                        fmt::ptr(Ptr));
  if (Result != ZE_RESULT_SUCCESS)
    return zeError(Result, "zeMemFree");
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result piextUSMEnqueueMemcpy(pi_queue Queue, pi_bool Blocking,
                                                         void *Dst, const void *Src, size_t Size,
                                                         pi_uint32 NumEventsInWaitList,
                                                         const pi_event *EventWaitList,
                                                         pi_event *Event) {
  DGLINK_ZE_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_CHECK_NOT_NULL(Dst, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(Src, PI_ERROR_INVALID_VALUE);
  DGLINK_TRY(dglink::checkWaitList(NumEventsInWaitList, EventWaitList, &PluginFunctions));
  return copy(Queue, Blocking != PI_FALSE, Dst, Src, Size, NumEventsInWaitList, EventWaitList,
              Event);
}

extern "C" PI_API_EXPORT pi_result piextUSMEnqueueFill(pi_queue Queue, void *Ptr,
                                                       const void *Pattern, size_t PatternSize,
                                                       size_t Size, pi_uint32 NumEventsInWaitList,
                                                       const pi_event *EventWaitList,
                                                       pi_event *Event) {
  DGLINK_ZE_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_CHECK_NOT_NULL(Ptr, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(Pattern, PI_ERROR_INVALID_VALUE);
  if (PatternSize == 0 || (PatternSize & (PatternSize - 1)) != 0 || PatternSize > 128 ||
      Size % PatternSize != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piextUSMEnqueueFill: pattern of {} bytes (a power of two up to 128 is "
                        "needed) does not tile {} bytes",
                        PatternSize, Size);
  DGLINK_TRY(dglink::checkWaitList(NumEventsInWaitList, EventWaitList, &PluginFunctions));
  // The pattern is read when the command runs: the fill blocks, so that the
  // caller's pattern may go away when this returns.
  return enqueue(*Queue, "zeCommandListAppendMemoryFill", true, NumEventsInWaitList, EventWaitList,
                 Event, [&](ze_event_handle_t Signal, uint32_t NumWaits, ze_event_handle_t *Waits) {
                   return ze().zeCommandListAppendMemoryFill(Queue->List, Ptr, Pattern, PatternSize,
                                                             Size, Signal, NumWaits, Waits);
                 });
}
