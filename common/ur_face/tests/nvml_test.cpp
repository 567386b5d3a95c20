// The management queries' NVML side: the mapping of NVML's clocks event reasons onto UR's
// throttle flags, bit by bit, and the answer for a device NVML cannot know.
#include "../nvml.h"

#include <dglink/support/error.h>

#include <gtest/gtest.h>

#include <string>

namespace dglink::ur::nvml {
namespace {

TEST(NvmlThrottleFlags, EachReasonMapsToUrsFlag) {
  // NVML's documented reason bits.
  EXPECT_EQ(throttleFlags(0), 0u);
  EXPECT_EQ(throttleFlags(0x1), 0u) << "an idle GPU is not throttled";
  EXPECT_EQ(throttleFlags(0x2), UR_DEVICE_THROTTLE_REASONS_FLAG_SW_RANGE);
  EXPECT_EQ(throttleFlags(0x4), UR_DEVICE_THROTTLE_REASONS_FLAG_POWER_CAP);
  EXPECT_EQ(throttleFlags(0x8), UR_DEVICE_THROTTLE_REASONS_FLAG_OTHER) << "hardware slowdown";
  EXPECT_EQ(throttleFlags(0x10), UR_DEVICE_THROTTLE_REASONS_FLAG_OTHER) << "sync boost";
  EXPECT_EQ(throttleFlags(0x20), UR_DEVICE_THROTTLE_REASONS_FLAG_THERMAL_LIMIT);
  EXPECT_EQ(throttleFlags(0x40), UR_DEVICE_THROTTLE_REASONS_FLAG_THERMAL_LIMIT);
  EXPECT_EQ(throttleFlags(0x80), UR_DEVICE_THROTTLE_REASONS_FLAG_PSU_ALERT);
  EXPECT_EQ(throttleFlags(0x100), UR_DEVICE_THROTTLE_REASONS_FLAG_OTHER) << "display clocks";
}

TEST(NvmlThrottleFlags, SeveralReasonsAtOnceStayWithinUrsFlags) {
  EXPECT_EQ(throttleFlags(0x1 | 0x4 | 0x40), UR_DEVICE_THROTTLE_REASONS_FLAG_POWER_CAP |
                                                 UR_DEVICE_THROTTLE_REASONS_FLAG_THERMAL_LIMIT);
  EXPECT_EQ(throttleFlags(0x20 | 0x40), UR_DEVICE_THROTTLE_REASONS_FLAG_THERMAL_LIMIT);
  const ur_device_throttle_reasons_flags_t All = throttleFlags(~0ULL);
  EXPECT_EQ(All & UR_DEVICE_THROTTLE_REASONS_FLAGS_MASK, 0u);
  EXPECT_EQ(All, UR_DEVICE_THROTTLE_REASONS_FLAG_POWER_CAP |
                     UR_DEVICE_THROTTLE_REASONS_FLAG_THERMAL_LIMIT |
                     UR_DEVICE_THROTTLE_REASONS_FLAG_PSU_ALERT |
                     UR_DEVICE_THROTTLE_REASONS_FLAG_SW_RANGE |
                     UR_DEVICE_THROTTLE_REASONS_FLAG_OTHER);
}

// No PCI address (a CPU device), or one no GPU has (a domain PCI does not number): no
// reading, the value untouched, whether or not this machine has NVML.
TEST(NvmlRead, ADeviceNvmlCannotKnowIsUnsupported) {
  for (const char *Address : {"", "ffff:ff:1f.7"}) {
    for (Reading What : {Reading::ThrottleReasons, Reading::FanSpeedPercent,
                         Reading::MinPowerLimitMilliwatts, Reading::MaxPowerLimitMilliwatts}) {
      int64_t Value = 42;
      EXPECT_EQ(read(Address, What, Value), UR_RESULT_ERROR_UNSUPPORTED_ENUMERATION)
          << "address '" << Address << "'";
      EXPECT_EQ(Value, 42);
      // Why, in the last error: no address, no NVML here, or NVML's own words.
      const std::string &Why = dglink::lastErrorMessage();
      if (*Address == '\0') {
        EXPECT_NE(Why.find("the device states no PCI address"), std::string::npos) << Why;
      } else {
        EXPECT_TRUE(Why.find("libnvidia-ml.so.1") != std::string::npos ||
                    Why.find("nvmlDeviceGetHandleByPciBusId_v2 says") != std::string::npos)
            << Why;
      }
    }
  }
}

} // namespace
} // namespace dglink::ur::nvml
