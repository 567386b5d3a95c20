// Events: a core event's OpenCL part is the cl_event of one command.
#include "backend.h"

namespace dglink::opencl {

ClEvent::~ClEvent() {
  if (Event != nullptr) // null where the command was refused
    clReleaseEvent(Event);
}

pi_result ClEvent::wait() {
  const cl_int Error = clWaitForEvents(1, &Event);
  if (Error != CL_SUCCESS)
    return clFailure(Error, "piEventsWait", "clWaitForEvents");
  return PI_SUCCESS;
}

pi_result ClEvent::status(pi_int32 &Status) {
  cl_int Value = CL_COMPLETE;
  const cl_int Error =
      clGetEventInfo(Event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(Value), &Value, nullptr);
  if (Error != CL_SUCCESS)
    return clFailure(Error, "piEventGetInfo", "clGetEventInfo");
  // OpenCL's states share PI's numbers; a negative status is the error code of a
  // failed command, passed on as OpenCL does.
  Status = Value;
  return PI_SUCCESS;
}

// PI's profiling points are OpenCL's (CL_PROFILING_COMMAND_QUEUED ...); a driver without
// COMPLETE (OpenCL 1.2) is answered with END, which is when the command completed.
pi_result ClEvent::profilingInfo(pi_profiling_info Point, pi_uint64 &Nanoseconds) {
  cl_ulong Value = 0;
  cl_int Error = clGetEventProfilingInfo(Event, static_cast<cl_profiling_info>(Point),
                                         sizeof(Value), &Value, nullptr);
  if (Error != CL_SUCCESS && Point == PI_PROFILING_INFO_COMMAND_COMPLETE)
    Error =
        clGetEventProfilingInfo(Event, CL_PROFILING_COMMAND_END, sizeof(Value), &Value, nullptr);
  if (Error != CL_SUCCESS)
    return clFailure(Error, "piEventGetProfilingInfo", "clGetEventProfilingInfo");
  Nanoseconds = Value;
  return PI_SUCCESS;
}

namespace {

struct Notification {
  void (*Reached)(void *);
  void *Data;
};

void CL_CALLBACK notified(cl_event, cl_int, void *UserData) {
  const std::unique_ptr<Notification> Called(static_cast<Notification *>(UserData));
  Called->Reached(Called->Data);
}

} // namespace

// PI's event states are OpenCL's (CL_COMPLETE, CL_RUNNING, CL_SUBMITTED).
bool ClEvent::notify(pi_int32 State, void (*Reached)(void *), void *Data) {
  auto Called = std::make_unique<Notification>(Notification{Reached, Data});
  if (clSetEventCallback(Event, State, notified, Called.get()) != CL_SUCCESS)
    return false;
  (void)Called.release(); // freed by the one call
  return true;
}

} // namespace dglink::opencl
