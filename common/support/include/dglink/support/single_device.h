// Checks shared by the adapters whose contexts hold one device and whose handles are
// their own structs (CUDA, Level Zero; HIP next): handle ownership, reference counts,
// device lists, buffer ranges and launch shapes, with the same codes and messages on
// each. The templates read only members every such adapter has (Device, Context,
// Size, Name, RefCount).
#pragma once

#include <dglink/support/info.h>
#include <dglink/support/validate.h>

#include <atomic>
#include <cstddef>

namespace dglink {

// Null or foreign handles are refused with Code and a message naming the function
// and argument.
template <typename Handle>
pi_result checkAdapterHandle(Handle H, const pi_plugin_functions *Table, const char *Adapter,
                             pi_result Code, const char *Function, const char *Argument) {
  if (H == nullptr)
    return fail(Code, "{}: argument '{}' is null", Function, Argument);
  if (!ownedBy(H, Table))
    return fail(Code, "{}: argument '{}' is not a handle of the {} adapter", Function, Argument,
                Adapter);
  return PI_SUCCESS;
}

// Retain / release of reference-counted handles; dropReference says whether the
// caller dropped the last reference.
template <typename Handle> void retain(Handle *H) {
  H->RefCount.fetch_add(1, std::memory_order_relaxed);
}
template <typename Handle> bool dropReference(Handle *H) {
  return H->RefCount.fetch_sub(1, std::memory_order_acq_rel) == 1;
}

// A device list must be empty (the context's device) or name only that device.
template <typename Device>
pi_result checkContextDeviceList(const char *Function, Device ContextDevice,
                                 pi_uint32 NumDevices, const Device *Devices,
                                 const pi_plugin_functions *Table, const char *Adapter) {
  if (NumDevices != 0 && Devices == nullptr)
    return fail(PI_ERROR_INVALID_VALUE, "{}: {} devices but the device list is null", Function,
                NumDevices);
  if (NumDevices == 0 && Devices != nullptr)
    return fail(PI_ERROR_INVALID_VALUE, "{}: a device list with 0 devices", Function);
  for (pi_uint32 I = 0; I < NumDevices; ++I) {
    if (!ownedBy(Devices[I], Table))
      return fail(PI_ERROR_INVALID_DEVICE, "{}: device {} is {}", Function, I,
                  Devices[I] == nullptr ? "null"
                                        : fmt::format("not a device of the {} adapter", Adapter));
    if (Devices[I] != ContextDevice)
      return fail(PI_ERROR_INVALID_DEVICE, "{}: device '{}' is not the device of the context",
                  Function, Devices[I]->Name);
  }
  return PI_SUCCESS;
}

// A buffer read or write: handles, host pointer, the buffer on the queue's device,
// Offset + Size inside the buffer (no overflow), the wait list.
template <typename Queue, typename Buffer>
pi_result checkBufferAccess(const char *Function, Queue Q, Buffer B, size_t Offset, size_t Size,
                            const void *Host, const char *HostName, pi_uint32 NumEvents,
                            const pi_event *Events, const pi_plugin_functions *Table,
                            const char *Adapter) {
  DGLINK_TRY(checkAdapterHandle(Q, Table, Adapter, PI_ERROR_INVALID_QUEUE, Function, "Queue"));
  DGLINK_TRY(
      checkAdapterHandle(B, Table, Adapter, PI_ERROR_INVALID_MEM_OBJECT, Function, "Buffer"));
  if (Host == nullptr)
    return fail(PI_ERROR_INVALID_VALUE, "{}: argument '{}' is null", Function, HostName);
  if (B->Context->Device != Q->Device)
    return fail(PI_ERROR_INVALID_CONTEXT, "{}: the buffer belongs to another device", Function);
  if (Offset > B->Size || Size > B->Size - Offset)
    return fail(PI_ERROR_INVALID_VALUE, "{}: offset {} + size {} is past the buffer's {} bytes",
                Function, Offset, Size, B->Size);
  return checkWaitList(NumEvents, Events, Table);
}

// The arguments every USM allocation checks first: the result pointer, the context,
// no properties, a size, and an alignment that is a power of two (up to
// MaxAlignment, what the driver guarantees; 0: no upper bound).
template <typename Context>
pi_result checkUsmArguments(const char *Function, void **ResultPtr, Context Ctx,
                            const pi_usm_mem_properties *Properties, size_t Size,
                            pi_uint32 Alignment, pi_uint32 MaxAlignment,
                            const pi_plugin_functions *Table, const char *Adapter) {
  if (ResultPtr == nullptr)
    return fail(PI_ERROR_INVALID_VALUE, "{}: argument 'ResultPtr' is null", Function);
  DGLINK_TRY(
      checkAdapterHandle(Ctx, Table, Adapter, PI_ERROR_INVALID_CONTEXT, Function, "Context"));
  if (Properties != nullptr && Properties[0] != 0)
    return fail(PI_ERROR_INVALID_VALUE, "{}: USM property {:#x} is not supported", Function,
                static_cast<unsigned long long>(Properties[0]));
  if (Size == 0)
    return fail(PI_ERROR_INVALID_BUFFER_SIZE, "{}: argument 'Size' is 0", Function);
  if (MaxAlignment == 0) {
    if ((Alignment & (Alignment - 1)) != 0)
      return fail(PI_ERROR_INVALID_VALUE, "{}: alignment {} is not a power of two", Function,
                  Alignment);
  } else if ((Alignment & (Alignment - 1)) != 0 || Alignment > MaxAlignment) {
    return fail(PI_ERROR_INVALID_VALUE,
                "{}: alignment {} is not a power of two up to {} (what the driver guarantees)",
                Function, Alignment, MaxAlignment);
  }
  return PI_SUCCESS;
}

// Device must be a device of this adapter and the device of Ctx.
template <typename Context, typename Device>
pi_result checkContextDevice(const char *Function, Context Ctx, Device Dev,
                             const pi_plugin_functions *Table, const char *Adapter) {
  DGLINK_TRY(
      checkAdapterHandle(Dev, Table, Adapter, PI_ERROR_INVALID_DEVICE, Function, "Device"));
  if (Dev != Ctx->Device)
    return fail(PI_ERROR_INVALID_DEVICE, "{}: device '{}' is not the device of the context",
                Function, Dev->Name);
  return PI_SUCCESS;
}

// piEventsWait's list: at least one event, each an event of this adapter.
inline pi_result checkEventsToWait(pi_uint32 NumEvents, const pi_event *EventList,
                                   const pi_plugin_functions *Table, const char *Adapter) {
  if (NumEvents == 0 || EventList == nullptr)
    return fail(PI_ERROR_INVALID_VALUE,
                "piEventsWait: {} events, list pointer {}: at least one event is needed",
                NumEvents, EventList == nullptr ? "null" : "not null");
  for (pi_uint32 I = 0; I < NumEvents; ++I)
    if (!ownedBy(EventList[I], Table))
      return fail(PI_ERROR_INVALID_EVENT, "piEventsWait: event {} is {}", I,
                  EventList[I] == nullptr
                      ? "null"
                      : fmt::format("not an event of the {} adapter", Adapter));
  return PI_SUCCESS;
}

// piEventGetInfo of a checked event: queue, context and reference count from the
// handle; Query(Status) sets PI_EVENT_COMPLETE or PI_EVENT_SUBMITTED (or fails).
template <typename Event, typename StatusQuery>
pi_result answerEventInfo(Event E, pi_event_info ParamName, size_t ParamValueSize,
                          void *ParamValue, size_t *ParamValueSizeRet, StatusQuery Query) {
  switch (ParamName) {
  case PI_EVENT_INFO_COMMAND_QUEUE:
    return returnInfo(static_cast<pi_queue>(E->Queue), ParamValueSize, ParamValue,
                      ParamValueSizeRet);
  case PI_EVENT_INFO_CONTEXT:
    return returnInfo(static_cast<pi_context>(E->Context), ParamValueSize, ParamValue,
                      ParamValueSizeRet);
  case PI_EVENT_INFO_REFERENCE_COUNT:
    return returnInfo(E->RefCount.load(), ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_EVENT_INFO_COMMAND_EXECUTION_STATUS: {
    pi_int32 Status = PI_EVENT_COMPLETE;
    DGLINK_TRY(Query(Status));
    return returnInfo(Status, ParamValueSize, ParamValue, ParamValueSizeRet);
  }
  }
  return fail(PI_ERROR_INVALID_VALUE, "piEventGetInfo: unknown parameter {:#x}",
              static_cast<unsigned>(ParamName));
}

// piPlatformsGet's output arguments: at least one of Platforms and NumPlatforms, and
// room for a platform where Platforms is given.
inline pi_result checkPlatformsGet(pi_uint32 NumEntries, const pi_platform *Platforms,
                                   const pi_uint32 *NumPlatforms) {
  if (Platforms == nullptr && NumPlatforms == nullptr)
    return fail(PI_ERROR_INVALID_VALUE,
                "piPlatformsGet: arguments 'Platforms' and 'NumPlatforms' are both null");
  if (Platforms != nullptr && NumEntries == 0)
    return fail(PI_ERROR_INVALID_VALUE,
                "piPlatformsGet: argument 'NumEntries' is 0 but 'Platforms' is not null");
  return PI_SUCCESS;
}

// piDevicesGet's output arguments: at least one of Devices and NumDevices, and room
// for a device where Devices is given.
inline pi_result checkDevicesGet(pi_uint32 NumEntries, const pi_device *Devices,
                                 const pi_uint32 *NumDevices) {
  if (Devices == nullptr && NumDevices == nullptr)
    return fail(PI_ERROR_INVALID_VALUE,
                "piDevicesGet: arguments 'Devices' and 'NumDevices' are both null");
  if (Devices != nullptr && NumEntries == 0)
    return fail(PI_ERROR_INVALID_VALUE,
                "piDevicesGet: argument 'NumEntries' is 0 but 'Devices' is not null");
  return PI_SUCCESS;
}

// piContextCreate's arguments on an adapter whose contexts hold one device: a
// non-empty list of its devices all naming one device, a result pointer, no
// properties. Kind names the context in the message ("a {Kind} context holds one
// device").
template <typename Device>
pi_result checkContextCreate(const pi_context_properties *Properties, pi_uint32 NumDevices,
                             const Device *Devices, const pi_context *RetContext,
                             const pi_plugin_functions *Table, const char *Adapter,
                             const char *Kind) {
  if (NumDevices == 0 || Devices == nullptr)
    return fail(PI_ERROR_INVALID_VALUE,
                "piContextCreate: {} devices, list pointer {}: at least one device is needed",
                NumDevices, Devices == nullptr ? "null" : "not null");
  if (RetContext == nullptr)
    return fail(PI_ERROR_INVALID_VALUE, "{}: argument '{}' is null", "piContextCreate",
                "RetContext");
  for (pi_uint32 I = 0; I < NumDevices; ++I)
    if (!ownedBy(Devices[I], Table))
      return fail(PI_ERROR_INVALID_DEVICE, "piContextCreate: device {} is {}", I,
                  Devices[I] == nullptr
                      ? "null"
                      : fmt::format("not a device of the {} adapter", Adapter));
  for (pi_uint32 I = 1; I < NumDevices; ++I)
    if (Devices[I] != Devices[0])
      return fail(PI_ERROR_UNSUPPORTED_FEATURE,
                  "piContextCreate: a {} context holds one device; got '{}' and '{}'", Kind,
                  Devices[0]->Name, Devices[I]->Name);
  if (Properties != nullptr && Properties[0] != 0)
    return fail(PI_ERROR_INVALID_VALUE, "piContextCreate: context property {:#x} is not supported",
                static_cast<unsigned long long>(Properties[0]));
  return PI_SUCCESS;
}

// piQueueCreate's arguments: a context and a device of this adapter, the device the
// context's, a result pointer, no property but profiling.
template <typename Context, typename Device>
pi_result checkQueueCreate(Context Ctx, Device Dev, pi_queue_properties Properties,
                           const pi_queue *RetQueue, const pi_plugin_functions *Table,
                           const char *Adapter) {
  DGLINK_TRY(checkAdapterHandle(Ctx, Table, Adapter, PI_ERROR_INVALID_CONTEXT, "piQueueCreate",
                                "Context"));
  DGLINK_TRY(checkAdapterHandle(Dev, Table, Adapter, PI_ERROR_INVALID_DEVICE, "piQueueCreate",
                                "Device"));
  if (RetQueue == nullptr)
    return fail(PI_ERROR_INVALID_VALUE, "piQueueCreate: argument 'RetQueue' is null");
  if (Dev != Ctx->Device)
    return fail(PI_ERROR_INVALID_DEVICE,
                "piQueueCreate: device '{}' is not the device of the context", Dev->Name);
  if ((Properties & ~PI_QUEUE_FLAG_PROFILING_ENABLE) != 0)
    return fail(PI_ERROR_INVALID_QUEUE_PROPERTIES,
                "piQueueCreate: unsupported queue properties {:#x}",
                static_cast<unsigned long long>(Properties));
  return PI_SUCCESS;
}

// The shape of a launch on a backend without global offsets: 1 to 3 dimensions, a
// global size, no non-zero offset.
inline pi_result checkLaunchShape(const char *Function, pi_uint32 WorkDim,
                                  const size_t *GlobalWorkOffset, const size_t *GlobalWorkSize,
                                  const char *Adapter) {
  if (WorkDim < 1 || WorkDim > 3)
    return fail(PI_ERROR_INVALID_WORK_DIMENSION, "{}: work dimension {} is not 1, 2 or 3",
                Function, WorkDim);
  if (GlobalWorkSize == nullptr)
    return fail(PI_ERROR_INVALID_GLOBAL_WORK_SIZE, "{}: argument 'GlobalWorkSize' is null",
                Function);
  if (GlobalWorkOffset != nullptr)
    for (pi_uint32 D = 0; D < WorkDim; ++D)
      if (GlobalWorkOffset[D] != 0)
        return fail(PI_ERROR_INVALID_GLOBAL_OFFSET,
                    "{}: global offset {} in dimension {}: the {} adapter launches with offset 0 "
                    "only",
                    Function, GlobalWorkOffset[D], D, Adapter);
  return PI_SUCCESS;
}

} // namespace dglink
