// Events: handles, wait lists, status; markers and barriers on queues.
#include "entry.h"

using namespace dglink::core;

namespace {

pi_result enqueueMarker(const char *Function, bool Barrier, pi_queue Queue, pi_uint32 NumEvents,
                        const pi_event *Events, pi_event *Event) {
  DGLINK_TRY(checkHandle(Queue, PI_ERROR_INVALID_QUEUE, Function, "Queue"));
  DGLINK_TRY(checkWaitList(NumEvents, Events));
  return submit(*Queue, NumEvents, Events, false, Event,
                [&](const Enqueue &Request) { return Queue->Impl->marker(Barrier, Request); });
}

} // namespace

extern "C" {

PI_API_EXPORT pi_result piEventsWait(pi_uint32 NumEvents, const pi_event *EventList) try {
  DGLINK_ENTRY();
  if (NumEvents == 0 || EventList == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piEventsWait: {} events, list pointer {}: at least one event is needed",
                        NumEvents, EventList == nullptr ? "null" : "not null");
  for (pi_uint32 I = 0; I < NumEvents; ++I) {
    HandleKind Actual = HandleKind::Event;
    const HandleState State = inspectHandle(EventList[I], HandleKind::Event, &Actual);
    if (State != HandleState::Live)
      return dglink::fail(PI_ERROR_INVALID_EVENT, "piEventsWait: event {} is {}", I,
                          describeHandle(State, HandleKind::Event, Actual));
  }
  for (pi_uint32 I = 0; I < NumEvents; ++I)
    DGLINK_TRY(EventList[I]->Impl->wait());
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piEventGetInfo(pi_event Event, pi_event_info ParamName,
                                       size_t ParamValueSize, void *ParamValue,
                                       size_t *ParamValueSizeRet) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Event, PI_ERROR_INVALID_EVENT);
  switch (ParamName) {
  case PI_EVENT_INFO_COMMAND_QUEUE:
    return dglink::returnInfo(static_cast<pi_queue>(Event->Queue), ParamValueSize, ParamValue,
                              ParamValueSizeRet);
  case PI_EVENT_INFO_CONTEXT:
    return dglink::returnInfo(static_cast<pi_context>(Event->Context), ParamValueSize, ParamValue,
                              ParamValueSizeRet);
  case PI_EVENT_INFO_REFERENCE_COUNT:
    return dglink::returnInfo(Event->RefCount.load(), ParamValueSize, ParamValue,
                              ParamValueSizeRet);
  case PI_EVENT_INFO_COMMAND_EXECUTION_STATUS: {
    pi_int32 Status = PI_EVENT_COMPLETE;
    DGLINK_TRY(Event->Impl->status(Status));
    return dglink::returnInfo(Status, ParamValueSize, ParamValue, ParamValueSizeRet);
  }
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "piEventGetInfo: unknown parameter {:#x}",
                      static_cast<unsigned>(ParamName));
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piEventRetain(pi_event Event) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Event, PI_ERROR_INVALID_EVENT);
  retain(Event);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piEventRelease(pi_event Event) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Event, PI_ERROR_INVALID_EVENT);
  release(Event);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piEnqueueEventsWait(pi_queue Queue, pi_uint32 NumEventsInWaitList,
                                            const pi_event *EventWaitList, pi_event *Event) try {
  DGLINK_ENTRY();
  return enqueueMarker(__func__, false, Queue, NumEventsInWaitList, EventWaitList, Event);
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piEnqueueEventsWaitWithBarrier(pi_queue Queue,
                                                       pi_uint32 NumEventsInWaitList,
                                                       const pi_event *EventWaitList,
                                                       pi_event *Event) try {
  DGLINK_ENTRY();
  return enqueueMarker(__func__, true, Queue, NumEventsInWaitList, EventWaitList, Event);
}
DGLINK_CATCH_ALL

} // extern "C"
