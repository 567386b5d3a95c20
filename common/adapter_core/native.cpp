// Objects from the driver's own handles (UR's ur*CreateWithNativeHandle): platforms and
// devices are the discovered ones, queues and events are adopted by the backend.
#include "entry.h"

using namespace dglink::core;

namespace dglink::core {

pi_result ContextImpl::adoptQueue(const char *Function, uintptr_t /*Native*/, bool /*Owned*/,
                                  _pi_queue & /*Queue*/, std::unique_ptr<QueueImpl> & /*Impl*/) {
  return dglink::fail(PI_ERROR_UNSUPPORTED_FEATURE,
                      "{}: the {} adapter makes no queue from a native handle (docs/ur.md)",
                      Function, adapterLabel());
}

pi_result ContextImpl::adoptEvent(const char *Function, uintptr_t /*Native*/, bool /*Owned*/,
                                  std::unique_ptr<EventImpl> & /*Impl*/,
                                  uintptr_t & /*NativeQueue*/) {
  return dglink::fail(PI_ERROR_UNSUPPORTED_FEATURE,
                      "{}: the {} adapter makes no event from a native handle (docs/ur.md)",
                      Function, adapterLabel());
}

pi_result platformFromNative(const char *Function, uintptr_t Native, pi_platform *Out) {
  for (const auto &Platform : platforms()) {
    uintptr_t Handle = 0;
    if (Platform->Impl != nullptr && Platform->Impl->nativeHandle(Handle) && Handle == Native) {
      *Out = Platform.get();
      return PI_SUCCESS;
    }
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE,
                      "{}: native handle {:#x} is none of the {} adapter's platforms", Function,
                      Native, adapterLabel());
}

pi_result deviceFromNative(const char *Function, uintptr_t Native, pi_platform Platform,
                           pi_device *Out) {
  if (Platform != nullptr)
    DGLINK_TRY(checkHandle(Platform, PI_ERROR_INVALID_PLATFORM, Function, "Platform"));
  for (const auto &Each : platforms()) {
    if (Platform != nullptr && Each.get() != Platform)
      continue;
    for (_pi_device *Device : Each->Devices) {
      uintptr_t Handle = 0;
      if (Device->Impl != nullptr && Device->Impl->nativeHandle(Handle) && Handle == Native) {
        *Out = Device;
        return PI_SUCCESS;
      }
    }
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE,
                      "{}: native handle {:#x} is none of the {} adapter's devices{}", Function,
                      Native, adapterLabel(), Platform != nullptr ? " of that platform" : "");
}

pi_result queueFromNative(const char *Function, uintptr_t Native, pi_context Context,
                          pi_device Device, bool Owned, pi_queue *Out) {
  DGLINK_TRY(checkHandle(Context, PI_ERROR_INVALID_CONTEXT, Function, "Context"));
  if (Device != nullptr) {
    DGLINK_TRY(checkHandle(Device, PI_ERROR_INVALID_DEVICE, Function, "Device"));
    if (!Context->hasDevice(Device))
      return dglink::fail(PI_ERROR_INVALID_DEVICE, "{}: device '{}' is not in the context",
                          Function, Device->Description.Name);
  }
  std::unique_ptr<_pi_queue> Queue = makeHandle<_pi_queue>();
  Queue->Context = Context;
  Queue->Device = Device;
  DGLINK_TRY(Context->Impl->adoptQueue(Function, Native, Owned, *Queue, Queue->Impl));
  registerQueue(*Queue);
  retain(Context);
  *Out = Queue.release();
  return PI_SUCCESS;
}

pi_result eventFromNative(const char *Function, uintptr_t Native, pi_context Context, bool Owned,
                          pi_event *Out) {
  DGLINK_TRY(checkHandle(Context, PI_ERROR_INVALID_CONTEXT, Function, "Context"));
  std::unique_ptr<_pi_event> Event = makeHandle<_pi_event>();
  Event->Context = Context;
  Event->Command = PI_COMMAND_TYPE_MARKER; // of a command dglink did not enqueue
  uintptr_t NativeQueue = 0;
  if (Native != 0)
    DGLINK_TRY(Context->Impl->adoptEvent(Function, Native, Owned, Event->Impl, NativeQueue));
  // The event keeps the queue of its command, a dglink queue over the driver's, where
  // that queue can be one (an out-of-order queue cannot); else it is an event of no
  // queue, as a user event is. Nothing fails once the event is adopted: a failure would
  // release the caller's event, whose ownership a failed call does not take.
  pi_queue Queue = nullptr;
  if (NativeQueue != 0 &&
      queueFromNative(Function, NativeQueue, Context, nullptr, false, &Queue) == PI_SUCCESS) {
    Event->Queue = Queue; // the reference queueFromNative handed out is the event's
  } else {
    retain(Context);
  }
  *Out = Event.release();
  return PI_SUCCESS;
}

} // namespace dglink::core
