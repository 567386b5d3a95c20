// Events: a pi_event wraps the cl_event of one command; waits, status, and the
// wait-list translation every enqueue uses.
#include "opencl_adapter.h"

#include <dglink/support/info.h>

namespace dglink::opencl {

pi_result checkQueueWaitList(pi_queue Queue, pi_uint32 NumEvents, const pi_event *WaitList) {
  DGLINK_TRY(dglink::checkWaitList(NumEvents, WaitList, &DispatchTable));
  for (pi_uint32 I = 0; I < NumEvents; ++I)
    if (WaitList[I]->Queue != nullptr && WaitList[I]->Queue->Context != Queue->Context)
      return fail(PI_ERROR_INVALID_EVENT_WAIT_LIST,
                  "event {} of the wait list belongs to another context than the queue", I);
  return PI_SUCCESS;
}

ClEventList::ClEventList(pi_uint32 Count, const pi_event *Events) : NumEvents(Count) {
  if (Count > InlineCapacity) {
    Heap.reset(new cl_event[Count]);
    Data = Heap.get();
  }
  for (pi_uint32 I = 0; I < Count; ++I)
    Data[I] = Events[I]->Event;
}

PendingEvent::PendingEvent(pi_queue Queue, pi_event *EventOut) : Out(EventOut) {
  if (Out == nullptr)
    return;
  Event = new _pi_event;
  Event->Queue = Queue;
}

PendingEvent::~PendingEvent() { delete Event; }

cl_event *PendingEvent::clEvent() { return Event == nullptr ? nullptr : &Event->Event; }

void PendingEvent::commit() {
  if (Event == nullptr)
    return;
  ++Event->Queue->RefCount; // an event keeps its queue (and so its context) alive
  *Out = Event;
  Event = nullptr;
}

void releaseReference(pi_event Event) {
  if (--Event->RefCount != 0)
    return;
  clReleaseEvent(Event->Event);
  releaseReference(Event->Queue);
  delete Event;
}

} // namespace dglink::opencl

using namespace dglink::opencl;

namespace {

pi_result enqueueMarker(const char *Function, pi_queue Queue, pi_uint32 NumEvents,
                        const pi_event *WaitList, pi_event *Event, bool Barrier) {
  DGLINK_TRY(checkQueueWaitList(Queue, NumEvents, WaitList));
  ClEventList ClWaitList(NumEvents, WaitList);
  PendingEvent Pending(Queue, Event);
  // On an in-order queue a marker already orders after everything before it; the barrier
  // form also holds back what comes later, as PI's WithBarrier promises.
  cl_int Error = Barrier ? clEnqueueBarrierWithWaitList(Queue->Queue, ClWaitList.size(),
                                                        ClWaitList.data(), Pending.clEvent())
                         : clEnqueueMarkerWithWaitList(Queue->Queue, ClWaitList.size(),
                                                       ClWaitList.data(), Pending.clEvent());
  if (Error != CL_SUCCESS)
    return clFailure(Error, Function,
                     Barrier ? "clEnqueueBarrierWithWaitList" : "clEnqueueMarkerWithWaitList");
  Pending.commit();
  return PI_SUCCESS;
}

} // namespace

extern "C" {

PI_API_EXPORT pi_result piEventsWait(pi_uint32 NumEvents, const pi_event *EventList) try {
  if (NumEvents == 0 || EventList == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: no events given (NumEvents {}, EventList {})",
                        __func__, NumEvents, EventList == nullptr ? "null" : "not null");
  for (pi_uint32 I = 0; I < NumEvents; ++I)
    if (!dglink::ownedBy(EventList[I], &DispatchTable))
      return dglink::fail(PI_ERROR_INVALID_EVENT, "{}: EventList[{}] is {}", __func__, I,
                          EventList[I] == nullptr ? "null" : "not an event of the OpenCL adapter");
  ClEventList Events(NumEvents, EventList);
  cl_int Error = clWaitForEvents(Events.size(), Events.data());
  if (Error != CL_SUCCESS)
    return clFailure(Error, __func__, "clWaitForEvents");
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piEventGetInfo(pi_event Event, pi_event_info ParamName,
                                       size_t ParamValueSize, void *ParamValue,
                                       size_t *ParamValueSizeRet) try {
  DGLINK_OPENCL_CHECK_HANDLE(Event, PI_ERROR_INVALID_EVENT);
  switch (ParamName) {
  case PI_EVENT_INFO_COMMAND_QUEUE:
    return dglink::returnInfo(Event->Queue, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_EVENT_INFO_CONTEXT:
    return dglink::returnInfo(Event->Queue->Context, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_EVENT_INFO_COMMAND_EXECUTION_STATUS: {
    cl_int Status = 0;
    cl_int Error = clGetEventInfo(Event->Event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(Status),
                                  &Status, nullptr);
    if (Error != CL_SUCCESS)
      return clFailure(Error, __func__, "clGetEventInfo");
    // A negative status is the error code of a failed command; pass it on as OpenCL does.
    return dglink::returnInfo(static_cast<pi_int32>(Status), ParamValueSize, ParamValue,
                              ParamValueSizeRet);
  }
  case PI_EVENT_INFO_REFERENCE_COUNT:
    return dglink::returnInfo(Event->RefCount.load(), ParamValueSize, ParamValue,
                              ParamValueSizeRet);
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: unknown ParamName 0x{:x}", __func__,
                      static_cast<unsigned>(ParamName));
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piEventRetain(pi_event Event) try {
  DGLINK_OPENCL_CHECK_HANDLE(Event, PI_ERROR_INVALID_EVENT);
  ++Event->RefCount;
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piEventRelease(pi_event Event) try {
  DGLINK_OPENCL_CHECK_HANDLE(Event, PI_ERROR_INVALID_EVENT);
  releaseReference(Event);
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piEnqueueEventsWait(pi_queue Queue, pi_uint32 NumEventsInWaitList,
                                            const pi_event *EventWaitList, pi_event *Event) try {
  DGLINK_OPENCL_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return enqueueMarker(__func__, Queue, NumEventsInWaitList, EventWaitList, Event, false);
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piEnqueueEventsWaitWithBarrier(pi_queue Queue,
                                                       pi_uint32 NumEventsInWaitList,
                                                       const pi_event *EventWaitList,
                                                       pi_event *Event) try {
  DGLINK_OPENCL_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  return enqueueMarker(__func__, Queue, NumEventsInWaitList, EventWaitList, Event, true);
}
DGLINK_OPENCL_CATCH_ALL

} // extern "C"
