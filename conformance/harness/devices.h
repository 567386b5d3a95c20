// The devices the conformance suite runs on: every device the dispatch layer
// finds, narrowed by the adapter/device selection, each with a readable name that
// becomes the gtest parameter name (opencl_0_pthread_cpu).
#pragma once

#include <dglink/pi.h>

#include <ostream>
#include <string>
#include <vector>

namespace dglink::conformance {

struct DeviceParam {
  pi_platform Platform = nullptr;
  pi_device Device = nullptr;
  std::string Backend; // PI_EXT_PLATFORM_INFO_BACKEND: "opencl", "cuda", ...
  std::string Name;    // PI_DEVICE_INFO_NAME
  std::string Id;      // <backend>_<index within the backend>_<name>, [A-Za-z0-9_] only
};

// gtest prints a parameter with this; the default would dump its bytes.
void PrintTo(const DeviceParam &Param, std::ostream *Out);

// Which devices to run on. Empty fields select everything. Initialised from
// DGLINK_CONFORMANCE_ADAPTER (a backend name) and DGLINK_CONFORMANCE_DEVICE (a
// substring of the device id); `dglink conform` overrides it from its flags.
struct DeviceSelection {
  std::string Adapter;
  std::string Device;
  bool matches(const DeviceParam &Param) const;
  std::string describe() const; // "adapter=opencl device=cpu", or "all devices"
};
DeviceSelection &deviceSelection();

// Every device the dispatch layer reports, enumerated once. The first call loads
// the adapters; it turns PoCL's kernel cache off first unless the user set it,
// because the cache can let one program see another's state.
const std::vector<DeviceParam> &allDevices();
// What went wrong while enumerating (a failing piPlatformsGet / piDevicesGet /
// info query), empty if nothing did.
const std::string &enumerationError();
// allDevices() narrowed by deviceSelection(): the gtest parameter generator.
std::vector<DeviceParam> selectedDevices();

// Whether pi* reaches the adapters through the Unified Runtime loader (the suite's
// second face, dglink_conformance_ur) instead of the PI dispatch layer.
bool throughUnifiedRuntime();

// [A-Za-z0-9_] only: runs of anything else become one '_'.
std::string sanitizeName(const std::string &Text);

// Info queries that return a string (size query first, then the value).
pi_result platformInfoString(pi_platform Platform, pi_platform_info Name, std::string &Out);
pi_result deviceInfoString(pi_device Device, pi_device_info Name, std::string &Out);

// Splits a space-separated list.
std::vector<std::string> splitWords(const std::string &Text);

} // namespace dglink::conformance
