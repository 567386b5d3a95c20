// The device's global timer (UR's urDeviceGetGlobalTimestamps): a timed event recorded
// on the device's default stream, placed on the host's steady clock from a base event as
// a profiling queue places its commands' times (queue.cpp, startClock).
#include <dglink/stream/backend.h>

namespace dglink::stream {

pi_result StreamDevice::globalTimestamp(pi_uint64 &Nanoseconds) {
  Driver &D = driver();
  DGLINK_TRY(D.makeCurrent(Ordinal));
  const std::lock_guard<std::mutex> Lock(ClockMutex);
  if (ClockBase == nullptr) {
    Event Base = nullptr;
    DGLINK_TRY(D.createTimedEvent(Base)); // UNSUPPORTED_FEATURE without timed events
    pi_result Result = D.record(Base, nullptr);
    if (Result == PI_SUCCESS)
      Result = D.synchronize(Base);
    if (Result != PI_SUCCESS) {
      D.destroyEvent(Base);
      return Result;
    }
    ClockBase = Base;
    ClockBaseNanoseconds = hostNanoseconds();
  }
  Event Now = nullptr;
  DGLINK_TRY(D.createTimedEvent(Now));
  float Milliseconds = 0;
  pi_result Result = D.record(Now, nullptr);
  if (Result == PI_SUCCESS)
    Result = D.synchronize(Now);
  if (Result == PI_SUCCESS)
    Result = D.elapsed(ClockBase, Now, Milliseconds);
  if (Result != PI_SUCCESS) {
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
