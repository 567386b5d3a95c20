// Events: host-visible Level Zero events from the context's pools, signaled by the
// append they belong to.
#include "backend.h"

#include <cstdint>

namespace dglink::level_zero {

// The command may still be running: wait before the event is reused.
ZeEvent::~ZeEvent() {
  if (Submitted)
    ze().zeEventHostSynchronize(Event, UINT64_MAX);
  Context.recycleEvent(Event);
}

pi_result ZeEvent::wait() {
  DGLINK_ZE(zeEventHostSynchronize, Event, UINT64_MAX);
  return PI_SUCCESS;
}

// The context's event pools carry no kernel timestamps.
pi_result ZeEvent::profilingInfo(pi_profiling_info, pi_uint64 &) {
  return fail(PI_ERROR_UNSUPPORTED_FEATURE,
              "piEventGetProfilingInfo: the Level Zero adapter's events carry no timestamps "
              "(no ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP pools yet)");
}

pi_result ZeEvent::status(pi_int32 &Status) {
  const ze_result_t Result = ze().zeEventQueryStatus(Event);
  if (Result == ZE_RESULT_NOT_READY) {
    Status = PI_EVENT_SUBMITTED;
    return PI_SUCCESS;
  }
  if (Result != ZE_RESULT_SUCCESS)
    return zeError(Result, "zeEventQueryStatus");
  Status = PI_EVENT_COMPLETE;
  return PI_SUCCESS;
}

} // namespace dglink::level_zero
