// Events: host-visible Level Zero events from the context's pools, signaled
// by the append they belong to; wait lists become the append's wait events.
#include "handles.h"

#include <dglink/support/info.h>

#include <cstdint>

namespace dglink::level_zero {
namespace {
constexpr uint32_t PoolSize = 64;
} // namespace

pi_result acquireEvent(_pi_context &Context, ze_event_handle_t &Event) {
  std::lock_guard<std::mutex> Lock(Context.EventMutex);
  if (Context.FreeEvents.empty()) {
    ze_event_pool_desc_t PoolDesc = {};
    PoolDesc.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC;
    PoolDesc.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
    PoolDesc.count = PoolSize;
    ze_event_pool_handle_t Pool = nullptr;
    ze_device_handle_t Device = Context.Device->Device;
    DGLINK_ZE(zeEventPoolCreate, Context.Context, &PoolDesc, 1, &Device, &Pool);
    Context.EventPools.push_back(Pool);
    for (uint32_t Index = 0; Index < PoolSize; ++Index) {
      ze_event_desc_t Desc = {};
      Desc.stype = ZE_STRUCTURE_TYPE_EVENT_DESC;
      Desc.index = Index;
      Desc.signal = ZE_EVENT_SCOPE_FLAG_HOST;
      Desc.wait = ZE_EVENT_SCOPE_FLAG_HOST;
      ze_event_handle_t Created = nullptr;
      DGLINK_ZE(zeEventCreate, Pool, &Desc, &Created);
      Context.AllEvents.push_back(Created);
      Context.FreeEvents.push_back(Created);
    }
  }
  Event = Context.FreeEvents.back();
  Context.FreeEvents.pop_back();
  return PI_SUCCESS;
}

void recycleEvent(_pi_context &Context, ze_event_handle_t Event) {
  ze().zeEventHostReset(Event);
  std::lock_guard<std::mutex> Lock(Context.EventMutex);
  Context.FreeEvents.push_back(Event);
}

std::vector<ze_event_handle_t> waitEvents(pi_uint32 NumEvents, const pi_event *Events) {
  std::vector<ze_event_handle_t> Handles(NumEvents);
  for (pi_uint32 I = 0; I < NumEvents; ++I)
    Handles[I] = Events[I]->Event;
  return Handles;
}

EnqueueEvent::~EnqueueEvent() {
  if (Event != nullptr)
    recycleEvent(*Queue.Context, Event);
}

pi_result EnqueueEvent::prepare(bool Blocking) {
  // A non-blocking enqueue nobody waits for needs no event: recycling one
  // while its command may still run would reset it under the device.
  if (Out == nullptr && !Blocking)
    return PI_SUCCESS;
  return acquireEvent(*Queue.Context, Event);
}

pi_result EnqueueEvent::finish(pi_result Result, bool Blocking) {
  if (Result != PI_SUCCESS)
    return Result; // the destructor recycles an unused event
  if (Blocking && Event != nullptr) {
    const ze_result_t Waited = ze().zeEventHostSynchronize(Event, UINT64_MAX);
    if (Waited != ZE_RESULT_SUCCESS)
      return zeError(Waited, "zeEventHostSynchronize");
  }
  if (Out == nullptr)
    return PI_SUCCESS;
  auto *Handle = new _pi_event();
  Handle->Queue = &Queue;
  Handle->Context = Queue.Context;
  Handle->Event = Event;
  retain(&Queue);
  Event = nullptr;
  *Out = Handle;
  return PI_SUCCESS;
}

} // namespace dglink::level_zero

using namespace dglink::level_zero;

extern "C" PI_API_EXPORT pi_result piEventsWait(pi_uint32 NumEvents, const pi_event *EventList) {
  DGLINK_TRY(dglink::checkEventsToWait(NumEvents, EventList, &PluginFunctions, AdapterLabel));
  for (pi_uint32 I = 0; I < NumEvents; ++I)
    DGLINK_ZE(zeEventHostSynchronize, EventList[I]->Event, UINT64_MAX);
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result piEventGetInfo(pi_event Event, pi_event_info ParamName,
                                                  size_t ParamValueSize, void *ParamValue,
                                                  size_t *ParamValueSizeRet) {
  DGLINK_ZE_CHECK_HANDLE(Event, PI_ERROR_INVALID_EVENT);
  return dglink::answerEventInfo(Event, ParamName, ParamValueSize, ParamValue,
                                 ParamValueSizeRet, [&](pi_int32 &Status) -> pi_result {
    const ze_result_t Result = ze().zeEventQueryStatus(Event->Event);
    if (Result == ZE_RESULT_NOT_READY)
      Status = PI_EVENT_SUBMITTED;
    else if (Result != ZE_RESULT_SUCCESS)
      return zeError(Result, "zeEventQueryStatus");
    return PI_SUCCESS;
  });
}

extern "C" PI_API_EXPORT pi_result piEventRetain(pi_event Event) {
  DGLINK_ZE_CHECK_HANDLE(Event, PI_ERROR_INVALID_EVENT);
  retain(Event);
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result piEventRelease(pi_event Event) {
  DGLINK_ZE_CHECK_HANDLE(Event, PI_ERROR_INVALID_EVENT);
  if (dropReference(Event)) {
    // The command may still be running: wait before the event is reused.
    ze().zeEventHostSynchronize(Event->Event, UINT64_MAX);
    recycleEvent(*Event->Context, Event->Event);
    releaseQueue(Event->Queue);
    delete Event;
  }
  return PI_SUCCESS;
}

namespace {
pi_result enqueueMarker(const char *Function, pi_queue Queue, pi_uint32 NumEvents,
                        const pi_event *Events, pi_event *Event) {
  DGLINK_TRY(checkHandle(Queue, PI_ERROR_INVALID_QUEUE, Function, "Queue"));
  DGLINK_TRY(dglink::checkWaitList(NumEvents, Events, &PluginFunctions));
  // The list is in order: a barrier after the wait list completes after
  // everything enqueued before, which a marker and a barrier both promise.
  return enqueue(*Queue, "zeCommandListAppendBarrier", false, NumEvents, Events, Event,
                 [&](ze_event_handle_t Signal, uint32_t NumWaits, ze_event_handle_t *Waits) {
                   return ze().zeCommandListAppendBarrier(Queue->List, Signal, NumWaits, Waits);
                 });
}
} // namespace

extern "C" PI_API_EXPORT pi_result piEnqueueEventsWait(pi_queue Queue,
                                                       pi_uint32 NumEventsInWaitList,
                                                       const pi_event *EventWaitList,
                                                       pi_event *Event) {
  return enqueueMarker(__func__, Queue, NumEventsInWaitList, EventWaitList, Event);
}

extern "C" PI_API_EXPORT pi_result piEnqueueEventsWaitWithBarrier(pi_queue Queue,
                                                                  pi_uint32 NumEventsInWaitList,
                                                                  const pi_event *EventWaitList,
                                                                  pi_event *Event) {
  return enqueueMarker(__func__, Queue, NumEventsInWaitList, EventWaitList, Event);
}
