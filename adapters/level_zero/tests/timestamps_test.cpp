// Level Zero profiling's arithmetic (timestamps.h) on the timers drivers state: counters
// of 32 and fewer valid bits that wrap between two reads, and rates that are not whole
// nanoseconds (19.2 MHz, 12.5 MHz, 83.3 ns a tick).
#include "timestamps.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace dglink::level_zero {
namespace {

TEST(Timestamps, ValidMask) {
  EXPECT_EQ(validMask(64), ~uint64_t{0});
  EXPECT_EQ(validMask(32), 0xFFFFFFFFULL);
  EXPECT_EQ(validMask(20), 0xFFFFFULL);
}

TEST(Timestamps, AfterWithoutWrap) {
  // Full width: a later value as is; an earlier one (a driver's rounding) is the reference.
  EXPECT_EQ(after(1000, 1500, 64), 1500U);
  EXPECT_EQ(after(1000, 999, 64), 1000U);
  // 32 bits, both in the same lap of the counter, the reference past 2^32.
  const uint64_t Lap = uint64_t{1} << 32;
  EXPECT_EQ(after(3 * Lap + 100, 250, 32), 3 * Lap + 250);
  EXPECT_EQ(after(3 * Lap + 100, 100, 32), 3 * Lap + 100) << "the same time";
}

TEST(Timestamps, AfterAcrossAWrap) {
  // The counter wrapped between the reference (near the top of a lap) and the value.
  const uint64_t Lap = uint64_t{1} << 32;
  EXPECT_EQ(after(5 * Lap - 10, 5, 32), 5 * Lap + 5);
  // 20 bits: a lap of 1,048,576 ticks.
  const uint64_t Small = uint64_t{1} << 20;
  EXPECT_EQ(after(7 * Small + Small - 1, 0, 20), 8 * Small);
  // Bits above the valid ones in the value are not the counter's: ignored.
  EXPECT_EQ(after(2 * Lap + 10, (uint64_t{0xAB} << 32) | 20, 32), 2 * Lap + 20);
  // Every result is at or after the reference, and differs from it by less than a lap.
  for (uint64_t Reference : {uint64_t{0}, Lap - 1, Lap, 9 * Lap + 12345})
    for (uint64_t Value : {uint64_t{0}, uint64_t{1}, Lap / 2, Lap - 1}) {
      const uint64_t Time = after(Reference, Value, 32);
      EXPECT_GE(Time, Reference);
      EXPECT_LT(Time - Reference, Lap);
      EXPECT_EQ(Time & (Lap - 1), Value);
    }
}

TEST(Timestamps, TicksToNanoseconds) {
  EXPECT_EQ(ticksToNanoseconds(123456789, 1000000000), 123456789U);
  // 19.2 MHz: 192 ticks are 10 us exactly; a second of ticks is a second.
  EXPECT_EQ(ticksToNanoseconds(192, 19200000), 10000U);
  EXPECT_EQ(ticksToNanoseconds(19200000, 19200000), 1000000000U);
  // 12.5 MHz: 80 ns a tick.
  EXPECT_EQ(ticksToNanoseconds(3, 12500000), 240U);
  // 12 MHz: 83.33 ns a tick, rounded down, not 83 ns times the ticks.
  EXPECT_EQ(ticksToNanoseconds(12000000 * 5ULL + 3, 12000000), 5000000000ULL + 250);
  // A week of a 19.2 MHz counter, and the largest 64-bit one at 1 GHz: no overflow.
  const uint64_t Week = 7ULL * 24 * 3600;
  EXPECT_EQ(ticksToNanoseconds(Week * 19200000, 19200000), Week * 1000000000ULL);
  EXPECT_EQ(ticksToNanoseconds(~uint64_t{0}, 1000000000), ~uint64_t{0});
}

} // namespace
} // namespace dglink::level_zero
