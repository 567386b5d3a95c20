// Events: a CUevent recorded on the queue's stream after an enqueue; wait lists
// become cuStreamWaitEvent, waiting is cuEventSynchronize.
#include "handles.h"

#include <dglink/support/info.h>

namespace dglink::cuda {

pi_result acquireEvent(_pi_context &Context, CUevent &Event) {
  {
    std::lock_guard<std::mutex> Lock(Context.EventPoolMutex);
    if (!Context.EventPool.empty()) {
      Event = Context.EventPool.back();
      Context.EventPool.pop_back();
      return PI_SUCCESS;
    }
  }
  DGLINK_CU(cuEventCreate, &Event, CU_EVENT_DISABLE_TIMING);
  return PI_SUCCESS;
}

void recycleEvent(_pi_context &Context, CUevent Event) {
  std::lock_guard<std::mutex> Lock(Context.EventPoolMutex);
  Context.EventPool.push_back(Event);
}

pi_result waitForEvents(_pi_queue &Queue, pi_uint32 NumEvents, const pi_event *Events) {
  for (pi_uint32 I = 0; I < NumEvents; ++I)
    if (Events[I]->Queue != &Queue) // the in-order stream already orders its own
      DGLINK_CU(cuStreamWaitEvent, Queue.Stream, Events[I]->Event, 0);
  return PI_SUCCESS;
}

EnqueueEvent::~EnqueueEvent() {
  if (Event != nullptr)
    recycleEvent(*Queue.Context, Event);
}

pi_result EnqueueEvent::prepare() {
  if (Out == nullptr)
    return PI_SUCCESS;
  return acquireEvent(*Queue.Context, Event);
}

pi_result EnqueueEvent::recordNow() {
  if (Event != nullptr)
    DGLINK_CU(cuEventRecord, Event, Queue.Stream);
  return PI_SUCCESS;
}

pi_result EnqueueEvent::finish(pi_result Result) {
  if (Result != PI_SUCCESS || Out == nullptr)
    return Result; // the destructor recycles an unused CUevent
  auto *Handle = new _pi_event();
  Handle->Queue = &Queue;
  Handle->Context = Queue.Context;
  Handle->Event = Event;
  retain(&Queue);
  Event = nullptr;
  *Out = Handle;
  return PI_SUCCESS;
}

} // namespace dglink::cuda

using namespace dglink::cuda;

extern "C" PI_API_EXPORT pi_result piEventsWait(pi_uint32 NumEvents, const pi_event *EventList) try {
  DGLINK_TRY(dglink::checkEventsToWait(NumEvents, EventList, &PluginFunctions, AdapterLabel));
  for (pi_uint32 I = 0; I < NumEvents; ++I) {
    DGLINK_TRY(makeCurrent(EventList[I]->Context->Context));
    DGLINK_CU(cuEventSynchronize, EventList[I]->Event);
  }
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piEventGetInfo(pi_event Event, pi_event_info ParamName,
                                                  size_t ParamValueSize, void *ParamValue,
                                                  size_t *ParamValueSizeRet) try {
  DGLINK_CUDA_CHECK_HANDLE(Event, PI_ERROR_INVALID_EVENT);
  return dglink::answerEventInfo(Event, ParamName, ParamValueSize, ParamValue,
                                 ParamValueSizeRet, [&](pi_int32 &Status) -> pi_result {
    DGLINK_TRY(makeCurrent(Event->Context->Context));
    const CUresult Result = cu().cuEventQuery(Event->Event);
    if (Result == CUDA_ERROR_NOT_READY)
      Status = PI_EVENT_SUBMITTED;
    else if (Result != CUDA_SUCCESS)
      return cudaError(Result, "cuEventQuery");
    return PI_SUCCESS;
  });
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piEventRetain(pi_event Event) try {
  DGLINK_CUDA_CHECK_HANDLE(Event, PI_ERROR_INVALID_EVENT);
  retain(Event);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piEventRelease(pi_event Event) try {
  DGLINK_CUDA_CHECK_HANDLE(Event, PI_ERROR_INVALID_EVENT);
  if (dropReference(Event)) {
    // A recorded CUevent may be recycled at once: re-recording it later only
    // moves its completion point, and nobody holds this handle any more.
    recycleEvent(*Event->Context, Event->Event);
    releaseQueue(Event->Queue);
    delete Event;
  }
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

namespace {
pi_result enqueueMarker(const char *Function, pi_queue Queue, pi_uint32 NumEvents,
                        const pi_event *Events, pi_event *Event) {
  DGLINK_TRY(checkHandle(Queue, PI_ERROR_INVALID_QUEUE, Function, "Queue"));
  DGLINK_TRY(dglink::checkWaitList(NumEvents, Events, &PluginFunctions));
  DGLINK_TRY(makeCurrent(Queue->Context->Context));
  DGLINK_TRY(waitForEvents(*Queue, NumEvents, Events));
  // The queue is in order: an event recorded now completes after everything
  // enqueued before, which is what both a marker and a barrier promise.
  EnqueueEvent Done(*Queue, Event);
  DGLINK_TRY(Done.prepare());
  return Done.finish(Done.recordNow());
}
} // namespace

extern "C" PI_API_EXPORT pi_result piEnqueueEventsWait(pi_queue Queue,
                                                       pi_uint32 NumEventsInWaitList,
                                                       const pi_event *EventWaitList,
                                                       pi_event *Event) try {
  return enqueueMarker(__func__, Queue, NumEventsInWaitList, EventWaitList, Event);
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piEnqueueEventsWaitWithBarrier(pi_queue Queue,
                                                                  pi_uint32 NumEventsInWaitList,
                                                                  const pi_event *EventWaitList,
                                                                  pi_event *Event) try {
  return enqueueMarker(__func__, Queue, NumEventsInWaitList, EventWaitList, Event);
}
DGLINK_CATCH_ALL
