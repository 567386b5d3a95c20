// libdglink_pi.so's PI entry points: each routes to the adapter that made its handle
// (the function table in the handle's first field, as in the OpenCL ICD loader);
// the few without a handle are answered from the process's adapter registry.
#include "process_registry.h"

#include <dglink/support/error.h>
#include <dglink/support/plugin.h>

namespace {

// The function table of the adapter that made Handle. One load per call: no
// wrapping, allocation or lock, so that the routed call compiles to a tail call.
template <typename Handle> inline const pi_plugin_functions &adapterOf(Handle H) {
  return *reinterpret_cast<const pi_handle_header *>(H)->Dispatch;
}

// The answer to a null handle. Out of line and cold: formatting the message inline
// would give every routed call a stack frame it does not need.
[[gnu::cold, gnu::noinline]] pi_result nullArgument(pi_result Code, const char *Function,
                                                    const char *Argument) {
  return dglink::fail(Code, "{}: argument '{}' is null", Function, Argument);
}

} // namespace

// Answer a null handle here, with the error-contract code; the adapter cannot.
#define DGLINK_REQUIRE_HANDLE(Handle, Code)                                                        \
  do {                                                                                             \
    if (__builtin_expect((Handle) == nullptr, 0))                                                  \
      return nullArgument(Code, __func__, #Handle);                                                \
  } while (0)

extern "C" {

// ---- platforms and devices ----

pi_result piPlatformsGet(pi_uint32 NumEntries, pi_platform *Platforms, pi_uint32 *NumPlatforms) {
  const dglink::dispatch::AdapterRegistry *Registry = dglink::dispatch::processRegistry();
  if (Registry == nullptr)
    return dglink::lastErrorCode();
  return Registry->getPlatforms(NumEntries, Platforms, NumPlatforms);
}

pi_result piPlatformGetInfo(pi_platform Platform, pi_platform_info ParamName, size_t ParamValueSize,
                            void *ParamValue, size_t *ParamValueSizeRet) {
  DGLINK_REQUIRE_HANDLE(Platform, PI_ERROR_INVALID_PLATFORM);
  return adapterOf(Platform).piPlatformGetInfo(Platform, ParamName, ParamValueSize, ParamValue,
                                               ParamValueSizeRet);
}

pi_result piDevicesGet(pi_platform Platform, pi_device_type DeviceType, pi_uint32 NumEntries,
                       pi_device *Devices, pi_uint32 *NumDevices) {
  DGLINK_REQUIRE_HANDLE(Platform, PI_ERROR_INVALID_PLATFORM);
  return adapterOf(Platform).piDevicesGet(Platform, DeviceType, NumEntries, Devices, NumDevices);
}

pi_result piDeviceGetInfo(pi_device Device, pi_device_info ParamName, size_t ParamValueSize,
                          void *ParamValue, size_t *ParamValueSizeRet) {
  DGLINK_REQUIRE_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  return adapterOf(Device).piDeviceGetInfo(Device, ParamName, ParamValueSize, ParamValue,
                                           ParamValueSizeRet);
}

pi_result piDeviceRetain(pi_device Device) {
  DGLINK_REQUIRE_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  return adapterOf(Device).piDeviceRetain(Device);
}

pi_result piDeviceRelease(pi_device Device) {
  DGLINK_REQUIRE_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  return adapterOf(Device).piDeviceRelease(Device);
}

// ---- contexts ----

// A context belongs to the adapter of its devices; mixing adapters is the
// adapter's to refuse, since only it can recognise its own devices.
pi_result piContextCreate(const pi_context_properties *Properties, pi_uint32 NumDevices,
                          const pi_device *Devices, pi_context *RetContext) {
  if (NumDevices == 0 || Devices == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piContextCreate: argument 'Devices' is {} (NumDevices {}); a context "
                        "needs at least one device",
                        Devices == nullptr ? "null" : "not null", NumDevices);
  if (Devices[0] == nullptr)
    return nullArgument(PI_ERROR_INVALID_DEVICE, __func__, "Devices[0]");
  return adapterOf(Devices[0]).piContextCreate(Properties, NumDevices, Devices, RetContext);
}

pi_result piContextGetInfo(pi_context Context, pi_context_info ParamName, size_t ParamValueSize,
                           void *ParamValue, size_t *ParamValueSizeRet) {
  DGLINK_REQUIRE_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  return adapterOf(Context).piContextGetInfo(Context, ParamName, ParamValueSize, ParamValue,
                                             ParamValueSizeRet);
}

pi_result piContextRetain(pi_context Context) {
  DGLINK_REQUIRE_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  return adapterOf(Context).piContextRetain(Context);
}

pi_result piContextRelease(pi_context Context) {
  DGLINK_REQUIRE_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  return adapterOf(Context).piContextRelease(Context);
}

// ---- queues ----

pi_result piQueueCreate(pi_context Context, pi_device Device, pi_queue_properties Properties,
                        pi_queue *RetQueue) {
  DGLINK_REQUIRE_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  return adapterOf(Context).piQueueCreate(Context, Device, Properties, RetQueue);
}

pi_result piQueueGetInfo(pi_queue Queue, pi_queue_info ParamName, size_t ParamValueSize,
                         void *ParamValue, size_t *ParamValueSizeRet) {
  DGLINK_REQUIRE_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return adapterOf(Queue).piQueueGetInfo(Queue, ParamName, ParamValueSize, ParamValue,
                                         ParamValueSizeRet);
}

pi_result piQueueFinish(pi_queue Queue) {
  DGLINK_REQUIRE_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return adapterOf(Queue).piQueueFinish(Queue);
}

pi_result piQueueRetain(pi_queue Queue) {
  DGLINK_REQUIRE_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return adapterOf(Queue).piQueueRetain(Queue);
}

pi_result piQueueRelease(pi_queue Queue) {
  DGLINK_REQUIRE_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return adapterOf(Queue).piQueueRelease(Queue);
}

// ---- memory buffers ----

pi_result piMemBufferCreate(pi_context Context, pi_mem_flags Flags, size_t Size, void *HostPtr,
                            pi_mem *RetMem) {
  DGLINK_REQUIRE_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  return adapterOf(Context).piMemBufferCreate(Context, Flags, Size, HostPtr, RetMem);
}

pi_result piMemRetain(pi_mem Mem) {
  DGLINK_REQUIRE_HANDLE(Mem, PI_ERROR_INVALID_MEM_OBJECT);
  return adapterOf(Mem).piMemRetain(Mem);
}

pi_result piMemRelease(pi_mem Mem) {
  DGLINK_REQUIRE_HANDLE(Mem, PI_ERROR_INVALID_MEM_OBJECT);
  return adapterOf(Mem).piMemRelease(Mem);
}

pi_result piEnqueueMemBufferRead(pi_queue Queue, pi_mem Buffer, pi_bool BlockingRead, size_t Offset,
                                 size_t Size, void *Dst, pi_uint32 NumEventsInWaitList,
                                 const pi_event *EventWaitList, pi_event *Event) {
  DGLINK_REQUIRE_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return adapterOf(Queue).piEnqueueMemBufferRead(Queue, Buffer, BlockingRead, Offset, Size, Dst,
                                                 NumEventsInWaitList, EventWaitList, Event);
}

pi_result piEnqueueMemBufferWrite(pi_queue Queue, pi_mem Buffer, pi_bool BlockingWrite,
                                  size_t Offset, size_t Size, const void *Src,
                                  pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList,
                                  pi_event *Event) {
  DGLINK_REQUIRE_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return adapterOf(Queue).piEnqueueMemBufferWrite(Queue, Buffer, BlockingWrite, Offset, Size, Src,
                                                  NumEventsInWaitList, EventWaitList, Event);
}

// ---- USM ----

pi_result piextUSMDeviceAlloc(void **ResultPtr, pi_context Context, pi_device Device,
                              const pi_usm_mem_properties *Properties, size_t Size,
                              pi_uint32 Alignment) {
  DGLINK_REQUIRE_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  return adapterOf(Context).piextUSMDeviceAlloc(ResultPtr, Context, Device, Properties, Size,
                                                Alignment);
}

pi_result piextUSMHostAlloc(void **ResultPtr, pi_context Context,
                            const pi_usm_mem_properties *Properties, size_t Size,
                            pi_uint32 Alignment) {
  DGLINK_REQUIRE_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  return adapterOf(Context).piextUSMHostAlloc(ResultPtr, Context, Properties, Size, Alignment);
}

pi_result piextUSMSharedAlloc(void **ResultPtr, pi_context Context, pi_device Device,
                              const pi_usm_mem_properties *Properties, size_t Size,
                              pi_uint32 Alignment) {
  DGLINK_REQUIRE_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  return adapterOf(Context).piextUSMSharedAlloc(ResultPtr, Context, Device, Properties, Size,
                                                Alignment);
}

pi_result piextUSMFree(pi_context Context, void *Ptr) {
  DGLINK_REQUIRE_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  return adapterOf(Context).piextUSMFree(Context, Ptr);
}

pi_result piextUSMEnqueueMemcpy(pi_queue Queue, pi_bool Blocking, void *Dst, const void *Src,
                                size_t Size, pi_uint32 NumEventsInWaitList,
                                const pi_event *EventWaitList, pi_event *Event) {
  DGLINK_REQUIRE_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return adapterOf(Queue).piextUSMEnqueueMemcpy(Queue, Blocking, Dst, Src, Size,
                                                NumEventsInWaitList, EventWaitList, Event);
}

pi_result piextUSMEnqueueFill(pi_queue Queue, void *Ptr, const void *Pattern, size_t PatternSize,
                              size_t Size, pi_uint32 NumEventsInWaitList,
                              const pi_event *EventWaitList, pi_event *Event) {
  DGLINK_REQUIRE_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return adapterOf(Queue).piextUSMEnqueueFill(Queue, Ptr, Pattern, PatternSize, Size,
                                              NumEventsInWaitList, EventWaitList, Event);
}

// ---- programs ----

pi_result piProgramCreate(pi_context Context, const void *IL, size_t Length,
                          pi_program *RetProgram) {
  DGLINK_REQUIRE_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  return adapterOf(Context).piProgramCreate(Context, IL, Length, RetProgram);
}

pi_result piProgramCreateWithBinary(pi_context Context, pi_uint32 NumDevices,
                                    const pi_device *DeviceList, const size_t *Lengths,
                                    const unsigned char **Binaries, size_t NumMetadataEntries,
                                    const pi_device_binary_property *Metadata,
                                    pi_int32 *BinaryStatus, pi_program *RetProgram) {
  DGLINK_REQUIRE_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  return adapterOf(Context).piProgramCreateWithBinary(Context, NumDevices, DeviceList, Lengths,
                                                      Binaries, NumMetadataEntries, Metadata,
                                                      BinaryStatus, RetProgram);
}

pi_result piextProgramCreateWithImage(pi_context Context, pi_uint32 NumDevices,
                                      const pi_device *DeviceList,
                                      const _pi_device_binary_struct *Image,
                                      pi_program *RetProgram) {
  DGLINK_REQUIRE_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  return adapterOf(Context).piextProgramCreateWithImage(Context, NumDevices, DeviceList, Image,
                                                        RetProgram);
}

pi_result piProgramCompile(pi_program Program, pi_uint32 NumDevices, const pi_device *DeviceList,
                           const char *Options, pi_uint32 NumInputHeaders,
                           const pi_program *InputHeaders, const char **HeaderIncludeNames,
                           void (*PfnNotify)(pi_program Program, void *UserData), void *UserData) {
  DGLINK_REQUIRE_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  return adapterOf(Program).piProgramCompile(Program, NumDevices, DeviceList, Options,
                                             NumInputHeaders, InputHeaders, HeaderIncludeNames,
                                             PfnNotify, UserData);
}

pi_result piProgramLink(pi_context Context, pi_uint32 NumDevices, const pi_device *DeviceList,
                        const char *Options, pi_uint32 NumInputPrograms,
                        const pi_program *InputPrograms,
                        void (*PfnNotify)(pi_program Program, void *UserData), void *UserData,
                        pi_program *RetProgram) {
  DGLINK_REQUIRE_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  return adapterOf(Context).piProgramLink(Context, NumDevices, DeviceList, Options,
                                          NumInputPrograms, InputPrograms, PfnNotify, UserData,
                                          RetProgram);
}

pi_result piProgramBuild(pi_program Program, pi_uint32 NumDevices, const pi_device *DeviceList,
                         const char *Options, void (*PfnNotify)(pi_program Program, void *UserData),
                         void *UserData) {
  DGLINK_REQUIRE_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  return adapterOf(Program).piProgramBuild(Program, NumDevices, DeviceList, Options, PfnNotify,
                                           UserData);
}

pi_result piProgramGetInfo(pi_program Program, pi_program_info ParamName, size_t ParamValueSize,
                           void *ParamValue, size_t *ParamValueSizeRet) {
  DGLINK_REQUIRE_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  return adapterOf(Program).piProgramGetInfo(Program, ParamName, ParamValueSize, ParamValue,
                                             ParamValueSizeRet);
}

pi_result piProgramGetBuildInfo(pi_program Program, pi_device Device,
                                pi_program_build_info ParamName, size_t ParamValueSize,
                                void *ParamValue, size_t *ParamValueSizeRet) {
  DGLINK_REQUIRE_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  return adapterOf(Program).piProgramGetBuildInfo(Program, Device, ParamName, ParamValueSize,
                                                  ParamValue, ParamValueSizeRet);
}

pi_result piProgramRetain(pi_program Program) {
  DGLINK_REQUIRE_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  return adapterOf(Program).piProgramRetain(Program);
}

pi_result piProgramRelease(pi_program Program) {
  DGLINK_REQUIRE_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  return adapterOf(Program).piProgramRelease(Program);
}

// ---- kernels ----

pi_result piKernelCreate(pi_program Program, const char *KernelName, pi_kernel *RetKernel) {
  DGLINK_REQUIRE_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  return adapterOf(Program).piKernelCreate(Program, KernelName, RetKernel);
}

pi_result piKernelSetArg(pi_kernel Kernel, pi_uint32 ArgIndex, size_t ArgSize,
                         const void *ArgValue) {
  DGLINK_REQUIRE_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  return adapterOf(Kernel).piKernelSetArg(Kernel, ArgIndex, ArgSize, ArgValue);
}

pi_result piextKernelSetArgPointer(pi_kernel Kernel, pi_uint32 ArgIndex, size_t ArgSize,
                                   const void *ArgValue) {
  DGLINK_REQUIRE_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  return adapterOf(Kernel).piextKernelSetArgPointer(Kernel, ArgIndex, ArgSize, ArgValue);
}

pi_result piextKernelSetArgMemObj(pi_kernel Kernel, pi_uint32 ArgIndex, const pi_mem *ArgValue) {
  DGLINK_REQUIRE_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  return adapterOf(Kernel).piextKernelSetArgMemObj(Kernel, ArgIndex, ArgValue);
}

pi_result piKernelGetInfo(pi_kernel Kernel, pi_kernel_info ParamName, size_t ParamValueSize,
                          void *ParamValue, size_t *ParamValueSizeRet) {
  DGLINK_REQUIRE_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  return adapterOf(Kernel).piKernelGetInfo(Kernel, ParamName, ParamValueSize, ParamValue,
                                           ParamValueSizeRet);
}

pi_result piKernelRetain(pi_kernel Kernel) {
  DGLINK_REQUIRE_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  return adapterOf(Kernel).piKernelRetain(Kernel);
}

pi_result piKernelRelease(pi_kernel Kernel) {
  DGLINK_REQUIRE_HANDLE(Kernel, PI_ERROR_INVALID_KERNEL);
  return adapterOf(Kernel).piKernelRelease(Kernel);
}

pi_result piEnqueueKernelLaunch(pi_queue Queue, pi_kernel Kernel, pi_uint32 WorkDim,
                                const size_t *GlobalWorkOffset, const size_t *GlobalWorkSize,
                                const size_t *LocalWorkSize, pi_uint32 NumEventsInWaitList,
                                const pi_event *EventWaitList, pi_event *Event) {
  DGLINK_REQUIRE_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return adapterOf(Queue).piEnqueueKernelLaunch(Queue, Kernel, WorkDim, GlobalWorkOffset,
                                                GlobalWorkSize, LocalWorkSize, NumEventsInWaitList,
                                                EventWaitList, Event);
}

// ---- events ----

// Routed by the first event; the adapter rejects events that are not its own.
pi_result piEventsWait(pi_uint32 NumEvents, const pi_event *EventList) {
  if (NumEvents == 0 || EventList == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piEventsWait: argument 'EventList' is {} (NumEvents {}); there must "
                        "be at least one event to wait for",
                        EventList == nullptr ? "null" : "not null", NumEvents);
  if (EventList[0] == nullptr)
    return nullArgument(PI_ERROR_INVALID_EVENT, __func__, "EventList[0]");
  return adapterOf(EventList[0]).piEventsWait(NumEvents, EventList);
}

pi_result piEventGetInfo(pi_event Event, pi_event_info ParamName, size_t ParamValueSize,
                         void *ParamValue, size_t *ParamValueSizeRet) {
  DGLINK_REQUIRE_HANDLE(Event, PI_ERROR_INVALID_EVENT);
  return adapterOf(Event).piEventGetInfo(Event, ParamName, ParamValueSize, ParamValue,
                                         ParamValueSizeRet);
}

pi_result piEventRetain(pi_event Event) {
  DGLINK_REQUIRE_HANDLE(Event, PI_ERROR_INVALID_EVENT);
  return adapterOf(Event).piEventRetain(Event);
}

pi_result piEventRelease(pi_event Event) {
  DGLINK_REQUIRE_HANDLE(Event, PI_ERROR_INVALID_EVENT);
  return adapterOf(Event).piEventRelease(Event);
}

pi_result piEnqueueEventsWait(pi_queue Queue, pi_uint32 NumEventsInWaitList,
                              const pi_event *EventWaitList, pi_event *Event) {
  DGLINK_REQUIRE_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return adapterOf(Queue).piEnqueueEventsWait(Queue, NumEventsInWaitList, EventWaitList, Event);
}

pi_result piEnqueueEventsWaitWithBarrier(pi_queue Queue, pi_uint32 NumEventsInWaitList,
                                         const pi_event *EventWaitList, pi_event *Event) {
  DGLINK_REQUIRE_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return adapterOf(Queue).piEnqueueEventsWaitWithBarrier(Queue, NumEventsInWaitList, EventWaitList,
                                                         Event);
}

// ---- device globals ----

pi_result piextEnqueueDeviceGlobalVariableRead(pi_queue Queue, pi_program Program, const char *Name,
                                               pi_bool BlockingRead, size_t Count, size_t Offset,
                                               void *Dst, pi_uint32 NumEventsInWaitList,
                                               const pi_event *EventsWaitList, pi_event *Event) {
  DGLINK_REQUIRE_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return adapterOf(Queue).piextEnqueueDeviceGlobalVariableRead(
      Queue, Program, Name, BlockingRead, Count, Offset, Dst, NumEventsInWaitList, EventsWaitList,
      Event);
}

pi_result piextEnqueueDeviceGlobalVariableWrite(pi_queue Queue, pi_program Program,
                                                const char *Name, pi_bool BlockingWrite,
                                                size_t Count, size_t Offset, const void *Src,
                                                pi_uint32 NumEventsInWaitList,
                                                const pi_event *EventsWaitList, pi_event *Event) {
  DGLINK_REQUIRE_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return adapterOf(Queue).piextEnqueueDeviceGlobalVariableWrite(
      Queue, Program, Name, BlockingWrite, Count, Offset, Src, NumEventsInWaitList, EventsWaitList,
      Event);
}

// ---- PI 1.1: sub-buffers, buffer copies, fills and rectangles, profiling, callbacks ----

pi_result piMemBufferPartition(pi_mem Buffer, pi_mem_flags Flags, pi_buffer_create_type Type,
                               void *CreateInfo, pi_mem *RetMem) {
  DGLINK_REQUIRE_HANDLE(Buffer, PI_ERROR_INVALID_MEM_OBJECT);
  return adapterOf(Buffer).piMemBufferPartition(Buffer, Flags, Type, CreateInfo, RetMem);
}

pi_result piEnqueueMemBufferCopy(pi_queue Queue, pi_mem SrcBuffer, pi_mem DstBuffer,
                                 size_t SrcOffset, size_t DstOffset, size_t Size,
                                 pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList,
                                 pi_event *Event) {
  DGLINK_REQUIRE_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return adapterOf(Queue).piEnqueueMemBufferCopy(Queue, SrcBuffer, DstBuffer, SrcOffset, DstOffset,
                                                 Size, NumEventsInWaitList, EventWaitList, Event);
}

pi_result piEnqueueMemBufferFill(pi_queue Queue, pi_mem Buffer, const void *Pattern,
                                 size_t PatternSize, size_t Offset, size_t Size,
                                 pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList,
                                 pi_event *Event) {
  DGLINK_REQUIRE_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return adapterOf(Queue).piEnqueueMemBufferFill(Queue, Buffer, Pattern, PatternSize, Offset, Size,
                                                 NumEventsInWaitList, EventWaitList, Event);
}

pi_result piEnqueueMemBufferReadRect(pi_queue Queue, pi_mem Buffer, pi_bool BlockingRead,
                                     pi_buff_rect_offset BufferOffset,
                                     pi_buff_rect_offset HostOffset, pi_buff_rect_region Region,
                                     size_t BufferRowPitch, size_t BufferSlicePitch,
                                     size_t HostRowPitch, size_t HostSlicePitch, void *Ptr,
                                     pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList,
                                     pi_event *Event) {
  DGLINK_REQUIRE_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return adapterOf(Queue).piEnqueueMemBufferReadRect(
      Queue, Buffer, BlockingRead, BufferOffset, HostOffset, Region, BufferRowPitch,
      BufferSlicePitch, HostRowPitch, HostSlicePitch, Ptr, NumEventsInWaitList, EventWaitList,
      Event);
}

pi_result piEnqueueMemBufferWriteRect(pi_queue Queue, pi_mem Buffer, pi_bool BlockingWrite,
                                      pi_buff_rect_offset BufferOffset,
                                      pi_buff_rect_offset HostOffset, pi_buff_rect_region Region,
                                      size_t BufferRowPitch, size_t BufferSlicePitch,
                                      size_t HostRowPitch, size_t HostSlicePitch, const void *Ptr,
                                      pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList,
                                      pi_event *Event) {
  DGLINK_REQUIRE_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return adapterOf(Queue).piEnqueueMemBufferWriteRect(
      Queue, Buffer, BlockingWrite, BufferOffset, HostOffset, Region, BufferRowPitch,
      BufferSlicePitch, HostRowPitch, HostSlicePitch, Ptr, NumEventsInWaitList, EventWaitList,
      Event);
}

pi_result piEnqueueMemBufferCopyRect(pi_queue Queue, pi_mem SrcBuffer, pi_mem DstBuffer,
                                     pi_buff_rect_offset SrcOrigin, pi_buff_rect_offset DstOrigin,
                                     pi_buff_rect_region Region, size_t SrcRowPitch,
                                     size_t SrcSlicePitch, size_t DstRowPitch, size_t DstSlicePitch,
                                     pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList,
                                     pi_event *Event) {
  DGLINK_REQUIRE_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return adapterOf(Queue).piEnqueueMemBufferCopyRect(
      Queue, SrcBuffer, DstBuffer, SrcOrigin, DstOrigin, Region, SrcRowPitch, SrcSlicePitch,
      DstRowPitch, DstSlicePitch, NumEventsInWaitList, EventWaitList, Event);
}

pi_result piEventGetProfilingInfo(pi_event Event, pi_profiling_info ParamName,
                                  size_t ParamValueSize, void *ParamValue,
                                  size_t *ParamValueSizeRet) {
  DGLINK_REQUIRE_HANDLE(Event, PI_ERROR_INVALID_EVENT);
  return adapterOf(Event).piEventGetProfilingInfo(Event, ParamName, ParamValueSize, ParamValue,
                                                  ParamValueSizeRet);
}

pi_result piEventSetCallback(pi_event Event, pi_int32 CommandExecCallbackType,
                             void (*PfnNotify)(pi_event, pi_int32, void *), void *UserData) {
  DGLINK_REQUIRE_HANDLE(Event, PI_ERROR_INVALID_EVENT);
  return adapterOf(Event).piEventSetCallback(Event, CommandExecCallbackType, PfnNotify, UserData);
}

// ---- PI 1.2: what a USM pointer is ----

pi_result piextUSMGetMemAllocInfo(pi_context Context, const void *Ptr, pi_mem_alloc_info ParamName,
                                  size_t ParamValueSize, void *ParamValue,
                                  size_t *ParamValueSizeRet) {
  DGLINK_REQUIRE_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  return adapterOf(Context).piextUSMGetMemAllocInfo(Context, Ptr, ParamName, ParamValueSize,
                                                    ParamValue, ParamValueSizeRet);
}

// ---- PI 1.2: buffer maps ----

pi_result piEnqueueMemBufferMap(pi_queue Queue, pi_mem Buffer, pi_bool BlockingMap,
                                pi_map_flags MapFlags, size_t Offset, size_t Size,
                                pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList,
                                pi_event *Event, void **RetMap) {
  DGLINK_REQUIRE_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return adapterOf(Queue).piEnqueueMemBufferMap(Queue, Buffer, BlockingMap, MapFlags, Offset, Size,
                                                NumEventsInWaitList, EventWaitList, Event, RetMap);
}

pi_result piEnqueueMemUnmap(pi_queue Queue, pi_mem Buffer, void *MappedPtr,
                            pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList,
                            pi_event *Event) {
  DGLINK_REQUIRE_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return adapterOf(Queue).piEnqueueMemUnmap(Queue, Buffer, MappedPtr, NumEventsInWaitList,
                                            EventWaitList, Event);
}

// ---- the plugin itself ----

// The message storage is shared with every adapter (libdglink_support.so), so this
// returns whatever the adapter behind the failed call recorded.
pi_result piPluginGetLastError(char **Message) { return dglink::getLastError(Message); }

// Adapters that were never loaded need no tear-down, so this does not start discovery.
pi_result piTearDown(void *PluginParameter) {
  const dglink::dispatch::AdapterRegistry *Registry =
      dglink::dispatch::processRegistryIfDiscovered();
  return Registry == nullptr ? PI_SUCCESS : Registry->tearDown(PluginParameter);
}

// The dispatch layer is itself loadable as an adapter: its table is its own exports.
pi_result piPluginInit(pi_plugin *PluginInfo) {
  static const pi_plugin_functions Table = [] {
    pi_plugin_functions Functions{};
#define DGLINK_FILL_ENTRY(Name, Ret, Params) Functions.Name = &::Name;
    PI_ENTRY_POINTS(DGLINK_FILL_ENTRY)
#undef DGLINK_FILL_ENTRY
    return Functions;
  }();
  return dglink::initPlugin(PluginInfo, "dispatch", Table);
}

} // extern "C"
