// The device's global timer (UR's urDeviceGetGlobalTimestamps): a timed event recorded
// on the device's default stream, placed on the host's steady clock from a base event as
// a profiling queue places its commands' times (queue.cpp, startClock).
#include <dglink/stream/backend.h>

namespace dglink::stream {

pi_result timedEventNow(Driver &D, Stream S, Event &Out) {
  Event Made = nullptr;
  DGLINK_TRY(D.createTimedEvent(Made)); // UNSUPPORTED_FEATURE without timed events
  pi_result Result = D.record(Made, S);
  if (Result == PI_SUCCESS)
    Result = D.synchronize(Made);
  if (Result != PI_SUCCESS) {
    D.destroyEvent(Made);
    return Result;
  }
  Out = Made;
  return PI_SUCCESS;
}

pi_result StreamDevice::globalTimestamp(pi_uint64 &Nanoseconds) {
  Driver &D = driver();
  DGLINK_TRY(D.makeCurrent(Ordinal));
  const std::lock_guard<std::mutex> Lock(ClockMutex);
  if (ClockBase == nullptr) {
    DGLINK_TRY(timedEventNow(D, nullptr, ClockBase)); // set only on success
    ClockBaseNanoseconds = hostNanoseconds();
  }
  Event Now = nullptr;
  DGLINK_TRY(timedEventNow(D, nullptr, Now));
  float Milliseconds = 0;
  if (const pi_result Result = D.elapsed(ClockBase, Now, Milliseconds); Result != PI_SUCCESS) {
    D.destroyEvent(Now);
    return Result;
  }
  Nanoseconds = ClockBaseNanoseconds + static_cast<pi_uint64>(Milliseconds * 1e6);
  // The driver's milliseconds are a float: past a second from the base, Now becomes the
  // base (at the time just computed), so that the clock keeps sub-microsecond steps.
  if (Milliseconds > 1000.0F) {
    D.destroyEvent(ClockBase);
    ClockBase = Now;
    ClockBaseNanoseconds = Nanoseconds;
  } else {
    D.destroyEvent(Now);
  }
  return PI_SUCCESS;
}

} // namespace dglink::stream
