// Level Zero's device timestamps as profiling times: counters of fewer valid bits than 64
// placed after a full-width reference (a counter wraps), and ticks turned into
// nanoseconds. Apart from the events that use them, so that a unit test meets every timer
// a driver may state (timestamps_test.cpp).
#pragma once

#include <cstdint>

namespace dglink::level_zero {

// The mask of a counter's Bits valid low bits.
inline uint64_t validMask(uint32_t Bits) {
  return Bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << Bits) - 1;
}

// A timestamp of Bits valid bits, read after the full-width time Reference: the first
// time at or after Reference whose low Bits bits are Value's.
inline uint64_t after(uint64_t Reference, uint64_t Value, uint32_t Bits) {
  if (Bits >= 64)
    return Value < Reference ? Reference : Value;
  const uint64_t Mask = validMask(Bits);
  uint64_t Time = (Reference & ~Mask) | (Value & Mask);
  if (Time < Reference)
    Time += Mask + 1;
  return Time;
}

// Ticks of a timer of PerSecond ticks a second (not 0) in nanoseconds: whole seconds and
// the rest apart, so that nothing overflows for timers up to 18 GHz.
inline uint64_t ticksToNanoseconds(uint64_t Ticks, uint64_t PerSecond) {
  return Ticks / PerSecond * 1000000000U + Ticks % PerSecond * 1000000000U / PerSecond;
}

} // namespace dglink::level_zero
