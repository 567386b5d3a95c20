// Buffers, USM and the memory commands: the contract's checks in order, then the
// backend's allocation or copy.
#include "entry.h"

using namespace dglink::core;

namespace {

// A buffer read or write: handles, host pointer, the buffer in the queue's context,
// Offset + Size inside the buffer (no overflow), the wait list.
pi_result checkBufferAccess(const char *Function, pi_queue Queue, pi_mem Buffer, size_t Offset,
                            size_t Size, const void *Host, const char *HostName,
                            pi_uint32 NumEvents, const pi_event *Events) {
  DGLINK_TRY(checkHandle(Queue, PI_ERROR_INVALID_QUEUE, Function, "Queue"));
  DGLINK_TRY(checkHandle(Buffer, PI_ERROR_INVALID_MEM_OBJECT, Function, "Buffer"));
  if (Host == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: argument '{}' is null", Function, HostName);
  if (Buffer->Context != Queue->Context && !Buffer->Context->hasDevice(Queue->Device))
    return dglink::fail(PI_ERROR_INVALID_CONTEXT, "{}: the buffer belongs to another device",
                        Function);
  if (Offset > Buffer->Size || Size > Buffer->Size - Offset)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: offset {} + size {} is past the buffer's {} bytes", Function, Offset,
                        Size, Buffer->Size);
  return checkWaitList(NumEvents, Events);
}

// The arguments every USM allocation checks first: the result pointer, the context,
// no properties, a size, an alignment that is a power of two (up to what the driver
// guarantees for the kind), and a device of the context that has that kind of USM.
pi_result checkUsmAllocation(const char *Function, void **ResultPtr, pi_context Context,
                             pi_device Device, UsmKind Kind,
                             const pi_usm_mem_properties *Properties, size_t Size,
                             pi_uint32 Alignment) {
  if (ResultPtr == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: argument 'ResultPtr' is null", Function);
  DGLINK_TRY(checkHandle(Context, PI_ERROR_INVALID_CONTEXT, Function, "Context"));
  if (Properties != nullptr && Properties[0] != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: USM property {:#x} is not supported", Function,
                        static_cast<unsigned long long>(Properties[0]));
  if (Size == 0)
    return dglink::fail(PI_ERROR_INVALID_BUFFER_SIZE, "{}: argument 'Size' is 0", Function);
  if (Kind != UsmKind::Host) {
    DGLINK_TRY(checkHandle(Device, PI_ERROR_INVALID_DEVICE, Function, "Device"));
    if (!Context->hasDevice(Device))
      return dglink::fail(PI_ERROR_INVALID_DEVICE, "{}: device '{}' is not a device of the context",
                          Function, Device->Description.Name);
  }
  const DeviceDescription &D = (Kind == UsmKind::Host ? Context->Devices[0] : Device)->Description;
  const pi_uint32 MaxAlignment = Kind == UsmKind::Host     ? D.MaxHostUsmAlignment
                                 : Kind == UsmKind::Device ? D.MaxDeviceUsmAlignment
                                                           : D.MaxSharedUsmAlignment;
  if ((Alignment & (Alignment - 1)) != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: alignment {} is not a power of two", Function,
                        Alignment);
  if (MaxAlignment != 0 && Alignment > MaxAlignment)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: alignment {} is not a power of two up to {} (what the driver "
                        "guarantees)",
                        Function, Alignment, MaxAlignment);
  const pi_usm_capabilities Capabilities = Kind == UsmKind::Host     ? D.HostUsm
                                           : Kind == UsmKind::Device ? D.DeviceUsm
                                                                     : D.SharedUsm;
  if (Capabilities == 0)
    return dglink::fail(PI_ERROR_INVALID_OPERATION, "{}: device '{}' has no {} USM", Function,
                        D.Name, usmKindName(Kind));
  return PI_SUCCESS;
}

pi_result allocateUsm(const char *Function, void **ResultPtr, pi_context Context, pi_device Device,
                      UsmKind Kind, const pi_usm_mem_properties *Properties, size_t Size,
                      pi_uint32 Alignment) {
  DGLINK_TRY(
      checkUsmAllocation(Function, ResultPtr, Context, Device, Kind, Properties, Size, Alignment));
  void *Pointer = nullptr;
  DGLINK_TRY(Context->Impl->allocateUsm(Kind, Device, Size, Alignment, Pointer));
  *ResultPtr = Pointer;
  return PI_SUCCESS;
}

} // namespace

extern "C" {

PI_API_EXPORT pi_result piMemBufferCreate(pi_context Context, pi_mem_flags Flags, size_t Size,
                                          void *HostPtr, pi_mem *RetMem) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
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
  std::unique_ptr<_pi_mem> Mem = makeHandle<_pi_mem>();
  Mem->Context = Context;
  Mem->Size = Size;
  DGLINK_TRY(Context->Impl->createBuffer(Size, HostPtr, Mem->Impl));
  retain(Context);
  *RetMem = Mem.release();
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piMemRetain(pi_mem Mem) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Mem, PI_ERROR_INVALID_MEM_OBJECT);
  retain(Mem);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piMemRelease(pi_mem Mem) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Mem, PI_ERROR_INVALID_MEM_OBJECT);
  release(Mem);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piEnqueueMemBufferRead(pi_queue Queue, pi_mem Buffer, pi_bool BlockingRead,
                                               size_t Offset, size_t Size, void *Dst,
                                               pi_uint32 NumEventsInWaitList,
                                               const pi_event *EventWaitList, pi_event *Event) try {
  DGLINK_ENTRY();
  DGLINK_TRY(checkBufferAccess(__func__, Queue, Buffer, Offset, Size, Dst, "Dst",
                               NumEventsInWaitList, EventWaitList));
  const DeviceGlobalLocation Location{Offset, Buffer->Impl.get()};
  return submit(
      *Queue, NumEventsInWaitList, EventWaitList, BlockingRead != PI_FALSE, Event,
      [&](const Enqueue &Request) { return Queue->Impl->read(Dst, Location, Size, Request); });
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piEnqueueMemBufferWrite(pi_queue Queue, pi_mem Buffer,
                                                pi_bool BlockingWrite, size_t Offset, size_t Size,
                                                const void *Src, pi_uint32 NumEventsInWaitList,
                                                const pi_event *EventWaitList,
                                                pi_event *Event) try {
  DGLINK_ENTRY();
  DGLINK_TRY(checkBufferAccess(__func__, Queue, Buffer, Offset, Size, Src, "Src",
                               NumEventsInWaitList, EventWaitList));
  const DeviceGlobalLocation Location{Offset, Buffer->Impl.get()};
  return submit(
      *Queue, NumEventsInWaitList, EventWaitList, BlockingWrite != PI_FALSE, Event,
      [&](const Enqueue &Request) { return Queue->Impl->write(Location, Src, Size, Request); });
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piextUSMDeviceAlloc(void **ResultPtr, pi_context Context, pi_device Device,
                                            const pi_usm_mem_properties *Properties, size_t Size,
                                            pi_uint32 Alignment) try {
  DGLINK_ENTRY();
  return allocateUsm(__func__, ResultPtr, Context, Device, UsmKind::Device, Properties, Size,
                     Alignment);
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piextUSMHostAlloc(void **ResultPtr, pi_context Context,
                                          const pi_usm_mem_properties *Properties, size_t Size,
                                          pi_uint32 Alignment) try {
  DGLINK_ENTRY();
  return allocateUsm(__func__, ResultPtr, Context, nullptr, UsmKind::Host, Properties, Size,
                     Alignment);
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piextUSMSharedAlloc(void **ResultPtr, pi_context Context, pi_device Device,
                                            const pi_usm_mem_properties *Properties, size_t Size,
                                            pi_uint32 Alignment) try {
  DGLINK_ENTRY();
  return allocateUsm(__func__, ResultPtr, Context, Device, UsmKind::Shared, Properties, Size,
                     Alignment);
}
DGLINK_CATCH_ALL

// Freeing null does nothing, as free(NULL) does.
PI_API_EXPORT pi_result piextUSMFree(pi_context Context, void *Ptr) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  if (Ptr == nullptr)
    return PI_SUCCESS;
  return Context->Impl->freeUsm(Ptr);
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piextUSMEnqueueMemcpy(pi_queue Queue, pi_bool Blocking, void *Dst,
                                              const void *Src, size_t Size,
                                              pi_uint32 NumEventsInWaitList,
                                              const pi_event *EventWaitList, pi_event *Event) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_CHECK_NOT_NULL(Dst, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(Src, PI_ERROR_INVALID_VALUE);
  DGLINK_TRY(checkWaitList(NumEventsInWaitList, EventWaitList));
  return submit(
      *Queue, NumEventsInWaitList, EventWaitList, Blocking != PI_FALSE, Event,
      [&](const Enqueue &Request) { return Queue->Impl->usmCopy(Dst, Src, Size, Request); });
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piextUSMEnqueueFill(pi_queue Queue, void *Ptr, const void *Pattern,
                                            size_t PatternSize, size_t Size,
                                            pi_uint32 NumEventsInWaitList,
                                            const pi_event *EventWaitList, pi_event *Event) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_CHECK_NOT_NULL(Ptr, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(Pattern, PI_ERROR_INVALID_VALUE);
  if (PatternSize == 0 || (PatternSize & (PatternSize - 1)) != 0 || PatternSize > 128 ||
      Size % PatternSize != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piextUSMEnqueueFill: pattern of {} bytes (a power of two up to 128 is "
                        "needed) does not tile {} bytes",
                        PatternSize, Size);
  if (reinterpret_cast<uintptr_t>(Ptr) % (PatternSize < 4 ? PatternSize : 4) != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piextUSMEnqueueFill: pointer {} is not aligned to the pattern",
                        fmt::ptr(Ptr));
  DGLINK_TRY(checkWaitList(NumEventsInWaitList, EventWaitList));
  return submit(*Queue, NumEventsInWaitList, EventWaitList, false, Event,
                [&](const Enqueue &Request) {
                  return Queue->Impl->usmFill(Ptr, Pattern, PatternSize, Size, Request);
                });
}
DGLINK_CATCH_ALL

} // extern "C"
