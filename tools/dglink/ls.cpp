// `dglink ls`, as text or JSON.
#include "ls.h"

#include "devices.h"

#include <dglink/dispatch.h>
#include <dglink/pi.h>
#include <dglink/support/error.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

namespace dglink::tools {
namespace {

using conformance::splitWords;

struct DeviceListing {
  std::string Id; // as `dglink conform --device` and the matrix name it
  std::string Name, Vendor, Version, DriverVersion, Backend, Type, Usm, DeviceGlobals;
  std::vector<std::string> LinkFormats, ImageFormats, Extensions;
  std::vector<std::string> Errors; // queries that failed
};

struct PlatformListing {
  std::string Name, Vendor, Version, Backend;
  std::vector<DeviceListing> Devices;
  std::vector<std::string> Errors;
};

struct AdapterListing {
  std::string Name, Path, Version, SkipReason;
  bool Loaded = false;
  unsigned NumPlatforms = 0;
};

std::string failure(const char *What, pi_result Result) {
  char *Message = nullptr;
  piPluginGetLastError(&Message);
  std::string Text = std::string(What) + ": " + resultName(Result);
  if (Message != nullptr && *Message != '\0')
    Text += std::string(" (") + Message + ")";
  return Text;
}

std::string typeName(pi_device_type Type) {
  std::string Names;
  auto Add = [&](pi_device_type Bit, const char *Name) {
    if (Type & Bit)
      Names += (Names.empty() ? "" : "|") + std::string(Name);
  };
  Add(PI_DEVICE_TYPE_CPU, "cpu");
  Add(PI_DEVICE_TYPE_GPU, "gpu");
  Add(PI_DEVICE_TYPE_ACC, "accelerator");
  return Names.empty() ? "unknown" : Names;
}

std::string usmName(pi_usm_mechanism Mechanism) {
  switch (Mechanism) {
  case PI_USM_MECHANISM_NONE:
    return "none (memory buffers only)";
  case PI_USM_MECHANISM_NATIVE:
    return "native";
  case PI_USM_MECHANISM_SVM:
    return "svm (OpenCL 2.0 buffer SVM)";
  }
  return "unknown (" + std::to_string(Mechanism) + ")";
}

std::string deviceGlobalName(pi_device_global_mechanism Mechanism) {
  switch (Mechanism) {
  case PI_DEVICE_GLOBAL_MECHANISM_NONE:
    return "none";
  case PI_DEVICE_GLOBAL_MECHANISM_NATIVE:
    return "native (the driver looks variables up by name)";
  case PI_DEVICE_GLOBAL_MECHANISM_LOWERED:
    return "lowered (adapter-owned storage)";
  }
  return "unknown (" + std::to_string(Mechanism) + ")";
}

template <typename T>
void queryValue(pi_device Device, pi_device_info Name, const char *What, T &Value,
                DeviceListing &Out) {
  if (pi_result R = piDeviceGetInfo(Device, Name, sizeof(Value), &Value, nullptr); R != PI_SUCCESS)
    Out.Errors.push_back(failure(What, R));
}

void queryString(pi_device Device, pi_device_info Name, const char *What, std::string &Value,
                 DeviceListing &Out) {
  if (pi_result R = conformance::deviceInfoString(Device, Name, Value); R != PI_SUCCESS)
    Out.Errors.push_back(failure(What, R));
}

DeviceListing describeDevice(pi_device Device) {
  DeviceListing Out;
  for (const conformance::DeviceParam &Param : conformance::allDevices())
    if (Param.Device == Device)
      Out.Id = Param.Id;
  queryString(Device, PI_DEVICE_INFO_NAME, "name", Out.Name, Out);
  queryString(Device, PI_DEVICE_INFO_VENDOR, "vendor", Out.Vendor, Out);
  queryString(Device, PI_DEVICE_INFO_VERSION, "version", Out.Version, Out);
  queryString(Device, PI_DEVICE_INFO_DRIVER_VERSION, "driver version", Out.DriverVersion, Out);
  queryString(Device, PI_EXT_DEVICE_INFO_BACKEND_NAME, "backend", Out.Backend, Out);
  pi_device_type Type = 0;
  queryValue(Device, PI_DEVICE_INFO_TYPE, "type", Type, Out);
  Out.Type = typeName(Type);
  pi_usm_mechanism Usm = PI_USM_MECHANISM_NONE;
  queryValue(Device, PI_EXT_DEVICE_INFO_USM_MECHANISM, "USM mechanism", Usm, Out);
  Out.Usm = usmName(Usm);
  pi_device_global_mechanism Globals = PI_DEVICE_GLOBAL_MECHANISM_NONE;
  queryValue(Device, PI_EXT_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM, "device-global mechanism", Globals,
             Out);
  Out.DeviceGlobals = deviceGlobalName(Globals);
  std::string Text;
  queryString(Device, PI_EXT_DEVICE_INFO_LINK_FORMATS, "link formats", Text, Out);
  Out.LinkFormats = splitWords(Text);
  Text.clear();
  queryString(Device, PI_EXT_DEVICE_INFO_IMAGE_FORMATS, "image formats", Text, Out);
  Out.ImageFormats = splitWords(Text);
  Text.clear();
  queryString(Device, PI_DEVICE_INFO_EXTENSIONS, "extensions", Text, Out);
  Out.Extensions = splitWords(Text);
  return Out;
}

std::vector<AdapterListing> listAdapters() {
  std::vector<AdapterListing> Adapters;
  const pi_uint32 Count = dglinkDispatchAdapterCount();
  for (pi_uint32 I = 0; I < Count; ++I) {
    dglink_adapter_info Info{};
    if (dglinkDispatchAdapterInfo(I, &Info) != PI_SUCCESS)
      continue;
    Adapters.push_back({Info.Name, Info.Path, Info.PluginVersion, Info.SkipReason,
                        Info.Loaded != PI_FALSE, Info.NumPlatforms});
  }
  return Adapters;
}

std::vector<PlatformListing> listPlatforms(std::vector<std::string> &Errors) {
  std::vector<PlatformListing> Listings;
  pi_uint32 Count = 0;
  if (pi_result R = piPlatformsGet(0, nullptr, &Count); R != PI_SUCCESS) {
    Errors.push_back(failure("piPlatformsGet", R));
    return Listings;
  }
  std::vector<pi_platform> Platforms(Count);
  if (Count != 0) {
    if (pi_result R = piPlatformsGet(Count, Platforms.data(), nullptr); R != PI_SUCCESS) {
      Errors.push_back(failure("piPlatformsGet", R));
      return Listings;
    }
  }
  for (pi_platform Platform : Platforms) {
    PlatformListing Out;
    const std::pair<pi_platform_info, std::string *> Strings[] = {
        {PI_PLATFORM_INFO_NAME, &Out.Name},
        {PI_PLATFORM_INFO_VENDOR, &Out.Vendor},
        {PI_PLATFORM_INFO_VERSION, &Out.Version},
        {PI_EXT_PLATFORM_INFO_BACKEND, &Out.Backend}};
    for (const auto &[Name, Value] : Strings)
      if (pi_result R = conformance::platformInfoString(Platform, Name, *Value); R != PI_SUCCESS)
        Out.Errors.push_back(failure("piPlatformGetInfo", R));
    pi_uint32 NumDevices = 0;
    pi_result R = piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 0, nullptr, &NumDevices);
    if (R != PI_SUCCESS && R != PI_ERROR_DEVICE_NOT_FOUND)
      Out.Errors.push_back(failure("piDevicesGet", R));
    if (R == PI_SUCCESS && NumDevices != 0) {
      std::vector<pi_device> Devices(NumDevices);
      if (R = piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, NumDevices, Devices.data(), nullptr);
          R != PI_SUCCESS)
        Out.Errors.push_back(failure("piDevicesGet", R));
      else
        for (pi_device Device : Devices)
          Out.Devices.push_back(describeDevice(Device));
    }
    Listings.push_back(std::move(Out));
  }
  return Listings;
}

// Words joined by spaces, wrapped at Width columns, continuation lines indented.
std::string wrap(const std::vector<std::string> &Words, size_t Indent, size_t Width) {
  if (Words.empty())
    return "(none)";
  std::string Out, Line;
  for (const std::string &Word : Words) {
    if (!Line.empty() && Indent + Line.size() + 1 + Word.size() > Width) {
      Out += Line + "\n" + std::string(Indent, ' ');
      Line.clear();
    }
    Line += (Line.empty() ? "" : " ") + Word;
  }
  return Out + Line;
}

void printText(const std::vector<AdapterListing> &Adapters,
               const std::vector<PlatformListing> &Platforms,
               const std::vector<std::string> &Errors) {
  std::cout << "Adapters\n";
  if (Adapters.empty())
    std::cout << "  (none found: no libdglink_adapter_<name>.so beside libdglink_pi.so or in "
                 "DGLINK_ADAPTER_PATH)\n";
  size_t NameWidth = 0;
  for (const AdapterListing &A : Adapters)
    NameWidth = std::max(NameWidth, A.Name.size());
  for (const AdapterListing &A : Adapters) {
    std::string State = A.Loaded ? "loaded, " + std::to_string(A.NumPlatforms) +
                                       (A.NumPlatforms == 1 ? " platform" : " platforms")
                                 : "skipped: " + A.SkipReason;
    std::cout << "  " << A.Name << std::string(NameWidth - A.Name.size() + 2, ' ') << State << "\n"
              << std::string(NameWidth + 4, ' ') << A.Path << "\n";
  }
  for (const std::string &E : Errors)
    std::cout << "  error: " << E << "\n";

  const size_t Indent = 6 + 16; // "    " + label column
  for (size_t P = 0; P < Platforms.size(); ++P) {
    const PlatformListing &Platform = Platforms[P];
    std::cout << "\nPlatform " << P << ": " << Platform.Name << "  [" << Platform.Backend << "]\n"
              << "  vendor   " << Platform.Vendor << "\n"
              << "  version  " << Platform.Version << "\n";
    for (const std::string &E : Platform.Errors)
      std::cout << "  error: " << E << "\n";
    if (Platform.Devices.empty())
      std::cout << "  (no devices)\n";
    for (size_t D = 0; D < Platform.Devices.size(); ++D) {
      const DeviceListing &Device = Platform.Devices[D];
      auto Row = [](const char *Label, const std::string &Value) {
        std::cout << "      " << std::left << std::setw(16) << Label << Value << "\n";
      };
      std::cout << "\n  Device " << D << ": " << Device.Name << "\n";
      Row("id", Device.Id);
      Row("type", Device.Type);
      Row("vendor", Device.Vendor);
      Row("version", Device.Version);
      Row("driver", Device.DriverVersion);
      Row("backend", Device.Backend);
      Row("USM", Device.Usm);
      Row("device globals", Device.DeviceGlobals);
      Row("link formats", wrap(Device.LinkFormats, Indent, 100));
      Row("image formats", wrap(Device.ImageFormats, Indent, 100));
      Row("extensions", wrap(Device.Extensions, Indent, 100));
      for (const std::string &E : Device.Errors)
        std::cout << "      error: " << E << "\n";
    }
  }
  if (Platforms.empty())
    std::cout << "\nNo platforms.\n";
  std::cout.flush();
}

void printJson(const std::vector<AdapterListing> &Adapters,
               const std::vector<PlatformListing> &Platforms,
               const std::vector<std::string> &Errors) {
  nlohmann::ordered_json Root;
  Root["adapters"] = nlohmann::ordered_json::array();
  for (const AdapterListing &A : Adapters)
    Root["adapters"].push_back({{"name", A.Name},
                                {"path", A.Path},
                                {"loaded", A.Loaded},
                                {"plugin_version", A.Version},
                                {"skip_reason", A.SkipReason},
                                {"platforms", A.NumPlatforms}});
  Root["platforms"] = nlohmann::ordered_json::array();
  for (const PlatformListing &P : Platforms) {
    nlohmann::ordered_json Platform = {{"name", P.Name},
                                       {"vendor", P.Vendor},
                                       {"version", P.Version},
                                       {"backend", P.Backend},
                                       {"errors", P.Errors}};
    Platform["devices"] = nlohmann::ordered_json::array();
    for (const DeviceListing &D : P.Devices)
      Platform["devices"].push_back({{"id", D.Id},
                                     {"name", D.Name},
                                     {"type", D.Type},
                                     {"vendor", D.Vendor},
                                     {"version", D.Version},
                                     {"driver_version", D.DriverVersion},
                                     {"backend", D.Backend},
                                     {"usm_mechanism", D.Usm},
                                     {"device_global_mechanism", D.DeviceGlobals},
                                     {"link_formats", D.LinkFormats},
                                     {"image_formats", D.ImageFormats},
                                     {"extensions", D.Extensions},
                                     {"errors", D.Errors}});
    Root["platforms"].push_back(std::move(Platform));
  }
  Root["errors"] = Errors;
  std::cout << Root.dump(2) << "\n";
}

} // namespace

int runLs(const LsOptions &Options) {
  const std::vector<AdapterListing> Adapters = listAdapters();
  std::vector<std::string> Errors;
  const std::vector<PlatformListing> Platforms = listPlatforms(Errors);
  if (Options.Json)
    printJson(Adapters, Platforms, Errors);
  else
    printText(Adapters, Platforms, Errors);
  return Errors.empty() ? 0 : 1;
}

} // namespace dglink::tools
