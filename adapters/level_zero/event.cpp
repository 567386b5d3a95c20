// Events: host-visible Level Zero events from the context's pools, signaled by the
// append they belong to.
#include "backend.h"
#include "timestamps.h"

#include <cstdint>

namespace dglink::level_zero {

// The command may still be running: wait before the event is reused.
ZeEvent::~ZeEvent() {
  if (FromCaller) {
    if (CallerOwned)
      ze().zeEventDestroy(Event);
    return;
  }
  if (Submitted)
    ze().zeEventHostSynchronize(Event, UINT64_MAX);
  if (Stamp != nullptr)
    ze().zeMemFree(Context.Context, Stamp);
  Context.recycleEvent(Event, Device != nullptr);
}

pi_result ZeEvent::wait() {
  DGLINK_ZE(zeEventHostSynchronize, Event, UINT64_MAX);
  return PI_SUCCESS;
}

// QUEUED and SUBMIT: the device's time when the command was appended; START, END and
// COMPLETE: the event's kernel timestamps (global), each placed after the one before, as
// the device's counters have fewer bits than 64; nanoseconds from the ticks a second.
pi_result ZeEvent::profilingInfo(pi_profiling_info Point, pi_uint64 &Nanoseconds) {
  // A profiling queue's command, or a recorded timestamp (whose START = END = the stamp).
  const ZeDevice *On = Stamp != nullptr ? StampDevice : Device;
  if (On == nullptr)
    return fail(PI_ERROR_PROFILING_INFO_NOT_AVAILABLE,
                "piEventGetProfilingInfo: the event's command was not enqueued on a profiling "
                "queue of the Level Zero adapter");
  uint64_t Ticks = SubmitTicks & validMask(On->TimestampBits);
  if (Point != PI_PROFILING_INFO_COMMAND_QUEUED && Point != PI_PROFILING_INFO_COMMAND_SUBMIT) {
    if (Stamp != nullptr) {
      Ticks = after(Ticks, *Stamp, On->TimestampBits);
    } else {
      ze_kernel_timestamp_result_t Stamps = {};
      DGLINK_ZE(zeEventQueryKernelTimestamp, Event, &Stamps);
      Ticks = after(Ticks, Stamps.global.kernelStart, On->KernelTimestampBits);
      if (Point != PI_PROFILING_INFO_COMMAND_START)
        Ticks = after(Ticks, Stamps.global.kernelEnd, On->KernelTimestampBits);
    }
  }
  Nanoseconds = ticksToNanoseconds(Ticks, On->TicksPerSecond);
  return PI_SUCCESS;
}

pi_result ZeDevice::globalTimestamp(pi_uint64 &Nanoseconds) {
  uint64_t HostTicks = 0, DeviceTicks = 0;
  DGLINK_ZE(zeDeviceGetGlobalTimestamps, Device, &HostTicks, &DeviceTicks);
  Nanoseconds = ticksToNanoseconds(DeviceTicks & validMask(TimestampBits), TicksPerSecond);
  return PI_SUCCESS;
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
