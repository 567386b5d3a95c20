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

} // namespace dglink::opencl
