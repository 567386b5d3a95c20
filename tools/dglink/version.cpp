// `dglink --version`: the version (the project's, DGLINK_VERSION), the source revision
// it was built from, the dispatch library in use, and each adapter with its version and driver.
#include "version.h"

#include "devices.h"

#include <dglink/dispatch.h>
#include <dglink/pi.h>
#include <dglink/support/error.h>

#include "dglink_revision.h"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <vector>

namespace dglink::tools {
namespace {

// A library's version from the file its name resolves to (lib<name>.so.1 ->
// lib<name>.so.1.2.3): the version of the build that made it.
std::string libraryVersion(const std::string &Path) {
  std::error_code Error;
  const std::string File = std::filesystem::canonical(Path, Error).filename().string();
  const size_t At = File.rfind(".so.");
  if (Error || At == std::string::npos)
    return "unversioned";
  return File.substr(At + 4);
}

std::string failure(const char *What, pi_result Result) {
  char *Message = nullptr;
  piPluginGetLastError(&Message);
  return std::string(What) + " failed: " + resultName(Result) +
         (Message != nullptr && *Message != '\0' ? std::string(" (") + Message + ")" : "");
}

// "<platform name>, <platform version>; device driver <v1>, <v2>" for one platform.
std::string describeDriver(pi_platform Platform) {
  std::string Name, Version;
  if (pi_result R = conformance::platformInfoString(Platform, PI_PLATFORM_INFO_NAME, Name);
      R != PI_SUCCESS)
    return failure("piPlatformGetInfo(NAME)", R);
  if (pi_result R = conformance::platformInfoString(Platform, PI_PLATFORM_INFO_VERSION, Version);
      R != PI_SUCCESS)
    return failure("piPlatformGetInfo(VERSION)", R);
  std::string Text = Name + ", " + Version;
  pi_uint32 Count = 0;
  if (piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 0, nullptr, &Count) != PI_SUCCESS || Count == 0)
    return Text + "; no devices";
  std::vector<pi_device> Devices(Count);
  if (pi_result R = piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, Count, Devices.data(), nullptr);
      R != PI_SUCCESS)
    return Text + "; " + failure("piDevicesGet", R);
  std::vector<std::string> Drivers;
  for (pi_device Device : Devices) {
    std::string Driver;
    if (pi_result R = conformance::deviceInfoString(Device, PI_DEVICE_INFO_DRIVER_VERSION, Driver);
        R != PI_SUCCESS)
      Driver = failure("piDeviceGetInfo(DRIVER_VERSION)", R);
    if (std::find(Drivers.begin(), Drivers.end(), Driver) == Drivers.end())
      Drivers.push_back(Driver);
  }
  Text += "; device driver";
  for (size_t I = 0; I < Drivers.size(); ++I)
    Text += (I == 0 ? " " : ", ") + Drivers[I];
  return Text;
}

} // namespace

std::string versionText() {
  std::ostringstream Out;
  Out << "dglink " << DGLINK_VERSION << " (source revision " << DGLINK_SOURCE_REVISION << "), PI "
      << PI_VERSION_STRING << "\n";

  Dl_info Dispatch{};
  if (dladdr(reinterpret_cast<void *>(&piPlatformsGet), &Dispatch) != 0 &&
      Dispatch.dli_fname != nullptr)
    Out << "dispatch layer: libdglink_pi " << libraryVersion(Dispatch.dli_fname) << ", "
        << std::filesystem::path(Dispatch.dli_fname).lexically_normal().string() << "\n";

  // piPlatformsGet serves the loaded adapters' platforms in discovery order, each
  // adapter's NumPlatforms of them.
  std::vector<pi_platform> Platforms;
  pi_uint32 PlatformCount = 0;
  if (piPlatformsGet(0, nullptr, &PlatformCount) == PI_SUCCESS && PlatformCount != 0) {
    Platforms.resize(PlatformCount);
    if (piPlatformsGet(PlatformCount, Platforms.data(), nullptr) != PI_SUCCESS)
      Platforms.clear();
  }

  const pi_uint32 Count = dglinkDispatchAdapterCount();
  Out << "adapters:" << (Count == 0 ? " none found" : "") << "\n";
  std::vector<dglink_adapter_info> Adapters;
  size_t NameWidth = 0;
  for (pi_uint32 I = 0; I < Count; ++I) {
    dglink_adapter_info Info{};
    if (dglinkDispatchAdapterInfo(I, &Info) != PI_SUCCESS)
      continue;
    Adapters.push_back(Info);
    NameWidth = std::max(NameWidth, std::string(Info.Name).size());
  }
  size_t NextPlatform = 0;
  for (const dglink_adapter_info &Info : Adapters) {
    const std::string Name = Info.Name;
    const std::string Head = "  " + Name + std::string(NameWidth - Name.size() + 2, ' ') +
                             libraryVersion(Info.Path) + "  PI " +
                             (*Info.PluginVersion != '\0' ? Info.PluginVersion : "?") + "  ";
    Out << Head;
    if (Info.Loaded == PI_FALSE) {
      Out << "skipped: " << Info.SkipReason << "\n";
      continue;
    }
    if (Info.NumPlatforms == 0)
      Out << "driver: none found (0 platforms)\n";
    for (pi_uint32 P = 0; P < Info.NumPlatforms; ++P, ++NextPlatform)
      Out << (P == 0 ? "" : std::string(Head.size(), ' ')) << "driver: "
          << (NextPlatform < Platforms.size() ? describeDriver(Platforms[NextPlatform])
                                              : std::string("(platform not listed)"))
          << "\n";
  }
  std::string Text = Out.str();
  Text.pop_back(); // the caller ends the last line
  return Text;
}

} // namespace dglink::tools
