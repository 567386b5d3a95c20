// What the runtime's benchmarks share: the devices to measure, each with a context of
// its own, the dispatch layer's function table, and the conformance suite's bundles.
#pragma once

#include "embedded_images.h"

#include <dglink/pi.h>

#include <functional>
#include <string>
#include <vector>

namespace dglink::bench {

struct Device {
  pi_device Handle = nullptr;
  pi_context Context = nullptr;
  std::string Name; // "<backend>:<device name>"
};

inline std::string deviceString(pi_device Device, pi_device_info Name) {
  size_t Size = 0;
  if (piDeviceGetInfo(Device, Name, 0, nullptr, &Size) != PI_SUCCESS || Size == 0)
    return "";
  std::string Value(Size, '\0');
  piDeviceGetInfo(Device, Name, Size, Value.data(), nullptr);
  Value.resize(Value.find('\0'));
  return Value;
}

// Every device that runs kernels and that Accept takes, with a context of its own.
inline std::vector<Device> devicesWhere(const std::function<bool(pi_device)> &Accept) {
  std::vector<Device> Found;
  pi_uint32 NumPlatforms = 0;
  if (piPlatformsGet(0, nullptr, &NumPlatforms) != PI_SUCCESS || NumPlatforms == 0)
    return Found;
  std::vector<pi_platform> Platforms(NumPlatforms);
  piPlatformsGet(NumPlatforms, Platforms.data(), nullptr);
  for (pi_platform Platform : Platforms) {
    pi_uint32 NumDevices = 0;
    if (piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 0, nullptr, &NumDevices) != PI_SUCCESS)
      continue;
    std::vector<pi_device> Handles(NumDevices);
    piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, NumDevices, Handles.data(), nullptr);
    for (pi_device Handle : Handles) {
      pi_bool Executes = PI_FALSE;
      piDeviceGetInfo(Handle, PI_EXT_DEVICE_INFO_EXECUTES_KERNELS, sizeof(Executes), &Executes,
                      nullptr);
      if (Executes == PI_FALSE || !Accept(Handle))
        continue;
      Device Entry;
      Entry.Handle = Handle;
      Entry.Name = deviceString(Handle, PI_EXT_DEVICE_INFO_BACKEND_NAME) + ":" +
                   deviceString(Handle, PI_DEVICE_INFO_NAME);
      if (piContextCreate(nullptr, 1, &Handle, &Entry.Context) == PI_SUCCESS)
        Found.push_back(Entry);
    }
  }
  return Found;
}

inline pi_plugin_functions dispatchTable() {
  pi_plugin_functions Table{};
#define DGLINK_BENCH_TABLE_ENTRY(Name, Ret, Params) Table.Name = &::Name;
  PI_ENTRY_POINTS(DGLINK_BENCH_TABLE_ENTRY)
#undef DGLINK_BENCH_TABLE_ENTRY
  return Table;
}

inline const conformance::EmbeddedBundle *bundle(const std::string &Name) {
  for (size_t I = 0; I < conformance::NumEmbeddedBundles; ++I)
    if (Name == conformance::EmbeddedBundles[I].Name)
      return &conformance::EmbeddedBundles[I];
  return nullptr;
}

} // namespace dglink::bench
