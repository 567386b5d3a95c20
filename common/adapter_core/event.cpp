// Events: handles, wait lists, status; markers and barriers on queues.
#include "entry.h"

#include <system_error>
#include <thread>

using namespace dglink::core;

namespace {

// One piEventSetCallback: the event (retained until the callback ran), what to call.
struct PendingCallback {
  _pi_event *Event;
  pi_int32 State;
  void (*Notify)(pi_event, pi_int32, void *);
  void *UserData;
};

// Runs a callback once and drops the event's reference the registration took.
void runCallback(void *Data) {
  std::unique_ptr<PendingCallback> Pending(static_cast<PendingCallback *>(Data));
  Pending->Notify(Pending->Event, Pending->State, Pending->UserData);
  release(Pending->Event);
}

// The command's state; an event of no command (the native handle 0) is complete.
pi_result statusOf(_pi_event &Event, pi_int32 &Status) {
  if (Event.Impl == nullptr) {
    Status = PI_EVENT_COMPLETE;
    return PI_SUCCESS;
  }
  return Event.Impl->status(Status);
}

pi_result enqueueMarker(const char *Function, bool Barrier, pi_queue Queue, pi_uint32 NumEvents,
                        const pi_event *Events, pi_event *Event) {
  DGLINK_TRY(checkHandle(Queue, PI_ERROR_INVALID_QUEUE, Function, "Queue"));
  DGLINK_TRY(checkWaitList(NumEvents, Events));
  return submit(*Queue, Barrier ? PI_COMMAND_TYPE_BARRIER : PI_COMMAND_TYPE_MARKER, NumEvents,
                Events, false, Event,
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
    if (EventList[I]->Impl != nullptr)
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
  case PI_EVENT_INFO_COMMAND_TYPE:
    return dglink::returnInfo(Event->Command, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_EVENT_INFO_COMMAND_EXECUTION_STATUS: {
    pi_int32 Status = PI_EVENT_COMPLETE;
    DGLINK_TRY(statusOf(*Event, Status));
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

// Profiling: events of profiling queues and recorded timestamps only; the answer waits for
// the command.
PI_API_EXPORT pi_result piEventGetProfilingInfo(pi_event Event, pi_profiling_info ParamName,
                                                size_t ParamValueSize, void *ParamValue,
                                                size_t *ParamValueSizeRet) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Event, PI_ERROR_INVALID_EVENT);
  if (ParamName < PI_PROFILING_INFO_COMMAND_QUEUED ||
      ParamName > PI_PROFILING_INFO_COMMAND_COMPLETE)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "piEventGetProfilingInfo: unknown parameter {:#x}",
                        static_cast<unsigned>(ParamName));
  if (Event->Queue == nullptr || Event->Impl == nullptr)
    return dglink::fail(PI_ERROR_PROFILING_INFO_NOT_AVAILABLE,
                        "piEventGetProfilingInfo: the event was made from a native handle, not "
                        "by a command of a profiling queue");
  // A recorded timestamp answers on any queue (UR's urEnqueueTimestampRecordingExp).
  if ((Event->Queue->Properties & PI_QUEUE_FLAG_PROFILING_ENABLE) == 0 &&
      Event->Command != PI_COMMAND_TYPE_TIMESTAMP_RECORDING)
    return dglink::fail(PI_ERROR_PROFILING_INFO_NOT_AVAILABLE,
                        "piEventGetProfilingInfo: the event's queue was not made with "
                        "PI_QUEUE_FLAG_PROFILING_ENABLE");
  if (ParamValue != nullptr && ParamValueSize < sizeof(pi_uint64))
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piEventGetProfilingInfo: {} bytes of room for an 8-byte value",
                        ParamValueSize);
  pi_uint64 Nanoseconds = 0;
  if (ParamValue != nullptr) {
    DGLINK_TRY(Event->Impl->wait());
    DGLINK_TRY(Event->Impl->profilingInfo(ParamName, Nanoseconds));
  }
  return dglink::returnInfo(Nanoseconds, ParamValueSize, ParamValue, ParamValueSizeRet);
}
DGLINK_CATCH_ALL

// Each callback runs exactly once, from the driver's thread where the driver has
// callbacks, else from a thread that waits for the event; at once where the state is
// already reached (submitted: every command is, once enqueued).
PI_API_EXPORT pi_result piEventSetCallback(pi_event Event, pi_int32 CommandExecCallbackType,
                                           void (*PfnNotify)(pi_event Event,
                                                             pi_int32 EventCommandStatus,
                                                             void *UserData),
                                           void *UserData) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Event, PI_ERROR_INVALID_EVENT);
  DGLINK_CHECK_NOT_NULL(PfnNotify, PI_ERROR_INVALID_VALUE);
  if (CommandExecCallbackType != PI_EVENT_COMPLETE && CommandExecCallbackType != PI_EVENT_RUNNING &&
      CommandExecCallbackType != PI_EVENT_SUBMITTED)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piEventSetCallback: state {} is none of PI_EVENT_SUBMITTED, _RUNNING, "
                        "_COMPLETE",
                        CommandExecCallbackType);
  auto Pending = std::make_unique<PendingCallback>(
      PendingCallback{Event, CommandExecCallbackType, PfnNotify, UserData});
  pi_int32 Status = PI_EVENT_SUBMITTED;
  DGLINK_TRY(statusOf(*Event, Status));
  retain(Event);
  if (Status <= CommandExecCallbackType) { // reached: COMPLETE 0 < RUNNING 1 < SUBMITTED 2
    runCallback(Pending.release());
    return PI_SUCCESS;
  }
  if (Event->Impl->notify(CommandExecCallbackType, runCallback, Pending.get())) {
    (void)Pending.release(); // the driver calls runCallback, which frees it
    return PI_SUCCESS;
  }
  try {
    std::thread([Waiting = Pending.get()] {
      // A failed wait still ends the command's life: the callback runs either way.
      (void)Waiting->Event->Impl->wait();
      runCallback(Waiting);
    }).detach();
  } catch (const std::system_error &Error) {
    release(Event);
    return dglink::fail(PI_ERROR_OUT_OF_RESOURCES,
                        "piEventSetCallback: no thread to wait for the event: {}", Error.what());
  }
  (void)Pending.release(); // the thread frees it
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

} // extern "C"
