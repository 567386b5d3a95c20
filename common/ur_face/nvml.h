// UR's management queries of an NVIDIA GPU (clock throttle reasons, fan speed, power
// limits) from NVIDIA's management library, NVML (libnvidia-ml.so.1, opened with dlopen
// on the first such query, never required). A GPU is found by its PCI address, so every
// backend that states one (CUDA, HIP on NVIDIA) answers them for its NVIDIA GPUs, and
// nothing else changes where the library is missing.
#pragma once

#include <unified-runtime/ur_api.h>

#include <cstdint>
#include <string>

namespace dglink::ur::nvml {

enum class Reading {
  ThrottleReasons,         // ur_device_throttle_reasons_flags_t
  FanSpeedPercent,         // of the fan's maximum
  MinPowerLimitMilliwatts, // the lowest power limit that can be set
  MaxPowerLimitMilliwatts, // the highest power limit that can be set
};

// One reading of the GPU at PciAddress ("domain:bus:device.function", hexadecimal) into
// Value: UR_RESULT_SUCCESS; UR_RESULT_ERROR_UNSUPPORTED_ENUMERATION where the device has
// no PCI address, NVML cannot be loaded or initialized, knows no GPU at that address, or
// does not measure that reading on it (a passively cooled GPU has no fan);
// UR_RESULT_ERROR_DEVICE_LOST where NVML says the GPU fell off the bus;
// UR_RESULT_ERROR_UNKNOWN for its other failures. Each failure sets the last-error message
// (NVML's own words and code where NVML answered). Thread-safe.
ur_result_t read(const std::string &PciAddress, Reading What, int64_t &Value);

// NVML's clocks event (throttle) reasons as UR's flags: software power cap -> POWER_CAP,
// hardware or software thermal slowdown -> THERMAL_LIMIT, the power brake (an external
// power supply's signal) -> PSU_ALERT, application clocks set below the maximum ->
// SW_RANGE, any other reason that lowers the clocks (hardware slowdown, sync boost,
// display clocks) -> OTHER. An idle GPU is not throttled: that bit maps to nothing.
ur_device_throttle_reasons_flags_t throttleFlags(unsigned long long NvmlReasons);

} // namespace dglink::ur::nvml
