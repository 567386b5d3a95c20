// Contexts and queues: the contract's checks, handles and reference counts; the
// backend makes the driver's objects.
#include "entry.h"

#include <dglink/support/log.h>

using namespace dglink::core;

extern "C" {

PI_API_EXPORT pi_result piContextCreate(const pi_context_properties *Properties,
                                        pi_uint32 NumDevices, const pi_device *Devices,
                                        pi_context *RetContext) try {
  DGLINK_ENTRY();
  if (NumDevices == 0 || Devices == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piContextCreate: {} devices, list pointer {}: at least one device is "
                        "needed",
                        NumDevices, Devices == nullptr ? "null" : "not null");
  if (RetContext == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "piContextCreate: argument 'RetContext' is null");
  for (pi_uint32 I = 0; I < NumDevices; ++I) {
    HandleKind Actual = HandleKind::Device;
    const HandleState State = inspectHandle(Devices[I], HandleKind::Device, &Actual);
    if (State != HandleState::Live)
      return dglink::fail(PI_ERROR_INVALID_DEVICE, "piContextCreate: device {} is {}", I,
                          describeHandle(State, HandleKind::Device, Actual));
  }
  std::vector<_pi_device *> Distinct;
  for (pi_uint32 I = 0; I < NumDevices; ++I)
    if (std::find(Distinct.begin(), Distinct.end(), Devices[I]) == Distinct.end())
      Distinct.push_back(Devices[I]);
  if (Distinct.size() > 1 && !backend().multiDeviceContexts())
    return dglink::fail(PI_ERROR_UNSUPPORTED_FEATURE,
                        "piContextCreate: a {} context holds one device; got '{}' and '{}'",
                        adapterLabel(), Distinct[0]->Description.Name,
                        Distinct[1]->Description.Name);
  for (_pi_device *Device : Distinct)
    if (Device->Platform != Distinct[0]->Platform)
      return dglink::fail(PI_ERROR_INVALID_DEVICE,
                          "piContextCreate: devices '{}' and '{}' belong to different platforms",
                          Distinct[0]->Description.Name, Device->Description.Name);
  if (Properties != nullptr && Properties[0] != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piContextCreate: context property {:#x} is not supported",
                        static_cast<unsigned long long>(Properties[0]));
  std::unique_ptr<_pi_context> Context = makeHandle<_pi_context>();
  Context->Platform = Distinct[0]->Platform;
  Context->Devices = std::move(Distinct);
  DGLINK_TRY(backend().createContext(*Context, Context->Impl));
  *RetContext = Context.release();
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piContextGetInfo(pi_context Context, pi_context_info ParamName,
                                         size_t ParamValueSize, void *ParamValue,
                                         size_t *ParamValueSizeRet) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  switch (ParamName) {
  case PI_CONTEXT_INFO_NUM_DEVICES:
    return dglink::returnInfo(static_cast<pi_uint32>(Context->Devices.size()), ParamValueSize,
                              ParamValue, ParamValueSizeRet);
  case PI_CONTEXT_INFO_DEVICES:
    return dglink::returnInfoArray(Context->Devices, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_CONTEXT_INFO_REFERENCE_COUNT:
    return dglink::returnInfo(Context->RefCount.load(), ParamValueSize, ParamValue,
                              ParamValueSizeRet);
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "piContextGetInfo: unknown parameter {:#x}",
                      static_cast<unsigned>(ParamName));
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piContextRetain(pi_context Context) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  retain(Context);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piContextRelease(pi_context Context) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  release(Context);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piQueueCreate(pi_context Context, pi_device Device,
                                      pi_queue_properties Properties, pi_queue *RetQueue) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  DGLINK_CHECK_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  if (RetQueue == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "piQueueCreate: argument 'RetQueue' is null");
  if (!Context->hasDevice(Device))
    return dglink::fail(PI_ERROR_INVALID_DEVICE,
                        "piQueueCreate: device '{}' is not a device of the context",
                        Device->Description.Name);
  if ((Properties & ~PI_QUEUE_FLAG_PROFILING_ENABLE) != 0)
    return dglink::fail(PI_ERROR_INVALID_QUEUE_PROPERTIES,
                        "piQueueCreate: unsupported queue properties {:#x}",
                        static_cast<unsigned long long>(Properties));
  std::unique_ptr<_pi_queue> Queue = makeHandle<_pi_queue>();
  Queue->Context = Context;
  Queue->Device = Device;
  Queue->Properties = Properties;
  DGLINK_TRY(Context->Impl->createQueue(*Queue, Queue->Impl));
  registerQueue(*Queue);
  retain(Context);
  *RetQueue = Queue.release();
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piQueueGetInfo(pi_queue Queue, pi_queue_info ParamName,
                                       size_t ParamValueSize, void *ParamValue,
                                       size_t *ParamValueSizeRet) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  switch (ParamName) {
  case PI_QUEUE_INFO_CONTEXT:
    return dglink::returnInfo(static_cast<pi_context>(Queue->Context), ParamValueSize, ParamValue,
                              ParamValueSizeRet);
  case PI_QUEUE_INFO_DEVICE:
    return dglink::returnInfo(static_cast<pi_device>(Queue->Device), ParamValueSize, ParamValue,
                              ParamValueSizeRet);
  case PI_QUEUE_INFO_REFERENCE_COUNT:
    return dglink::returnInfo(Queue->RefCount.load(), ParamValueSize, ParamValue,
                              ParamValueSizeRet);
  case PI_EXT_QUEUE_INFO_EMPTY: {
    // Known complete (a finish or blocking command since the last submission), else the
    // backend's answer.
    bool Empty = Queue->KnownComplete.load(std::memory_order_acquire) ==
                 Queue->Submitted.load(std::memory_order_acquire);
    if (!Empty)
      DGLINK_TRY(Queue->Impl->empty(Empty));
    return dglink::returnInfo(pi_bool{Empty ? PI_TRUE : PI_FALSE}, ParamValueSize, ParamValue,
                              ParamValueSizeRet);
  }
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "piQueueGetInfo: unknown parameter {:#x}",
                      static_cast<unsigned>(ParamName));
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piQueueFinish(pi_queue Queue) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  const uint64_t Before = Queue->Submitted.load(std::memory_order_acquire);
  DGLINK_TRY(Queue->Impl->finish());
  raiseTo(Queue->KnownComplete, Before);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piQueueRetain(pi_queue Queue) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  retain(Queue);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piQueueRelease(pi_queue Queue) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  release(Queue);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

} // extern "C"
