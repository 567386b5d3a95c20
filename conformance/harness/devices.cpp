// Device enumeration and selection for the conformance suite.
#include "devices.h"

#include <dglink/support/error.h>

#include <cctype>
#include <cstdlib>
#include <map>
#include <sstream>

namespace dglink::conformance {

void PrintTo(const DeviceParam &Param, std::ostream *Out) {
  *Out << Param.Id << " (" << Param.Backend << ": " << Param.Name << ")";
}

namespace {
std::string envOrEmpty(const char *Name) {
  const char *Value = std::getenv(Name);
  return Value != nullptr ? Value : "";
}

std::string lower(std::string Text) {
  for (char &C : Text)
    C = static_cast<char>(std::tolower(static_cast<unsigned char>(C)));
  return Text;
}
} // namespace

bool DeviceSelection::matches(const DeviceParam &Param) const {
  if (!Adapter.empty() && lower(Adapter) != lower(Param.Backend))
    return false;
  return Device.empty() || lower(Param.Id).find(lower(Device)) != std::string::npos;
}

std::string DeviceSelection::describe() const {
  std::string Text;
  if (!Adapter.empty())
    Text += "adapter=" + Adapter;
  if (!Device.empty())
    Text += std::string(Text.empty() ? "" : " ") + "device=" + Device;
  return Text.empty() ? "all devices" : Text;
}

DeviceSelection &deviceSelection() {
  static DeviceSelection Selection{envOrEmpty("DGLINK_CONFORMANCE_ADAPTER"),
                                   envOrEmpty("DGLINK_CONFORMANCE_DEVICE")};
  return Selection;
}

bool throughUnifiedRuntime() {
#ifdef DGLINK_CONFORMANCE_FACE_UR
  return true;
#else
  return false;
#endif
}

std::string sanitizeName(const std::string &Text) {
  std::string Out;
  for (char C : Text) {
    if (std::isalnum(static_cast<unsigned char>(C)))
      Out += C;
    else if (!Out.empty() && Out.back() != '_')
      Out += '_';
  }
  while (!Out.empty() && Out.back() == '_')
    Out.pop_back();
  return Out.empty() ? "device" : Out;
}

std::vector<std::string> splitWords(const std::string &Text) {
  std::vector<std::string> Words;
  std::istringstream Stream(Text);
  for (std::string Word; Stream >> Word;)
    Words.push_back(Word);
  return Words;
}

namespace {
template <typename Handle, typename Param>
pi_result infoString(pi_result (*Query)(Handle, Param, size_t, void *, size_t *), Handle H,
                     Param Name, std::string &Out) {
  size_t Size = 0;
  if (pi_result Result = Query(H, Name, 0, nullptr, &Size); Result != PI_SUCCESS)
    return Result;
  std::string Value(Size, '\0');
  if (pi_result Result = Query(H, Name, Size, Value.data(), nullptr); Result != PI_SUCCESS)
    return Result;
  // The answer includes its NUL; keep only the text before it.
  Value.resize(Value.find('\0') == std::string::npos ? Value.size() : Value.find('\0'));
  Out = std::move(Value);
  return PI_SUCCESS;
}

std::string describeFailure(const char *What, pi_result Result) {
  char *Message = nullptr;
  piPluginGetLastError(&Message);
  std::string Text = std::string(What) + " returned " + resultName(Result);
  if (Message != nullptr && *Message != '\0')
    Text += std::string(": ") + Message;
  return Text;
}

struct Enumeration {
  std::vector<DeviceParam> Devices;
  std::string Error;
};

Enumeration enumerate() {
  // Before any adapter is loaded: PoCL reads it when its library initialises.
  setenv("POCL_KERNEL_CACHE", "0", /*overwrite=*/0);
  Enumeration Result;
  pi_uint32 NumPlatforms = 0;
  if (pi_result R = piPlatformsGet(0, nullptr, &NumPlatforms); R != PI_SUCCESS) {
    Result.Error = describeFailure("piPlatformsGet", R);
    return Result;
  }
  std::vector<pi_platform> Platforms(NumPlatforms);
  if (NumPlatforms != 0) {
    if (pi_result R = piPlatformsGet(NumPlatforms, Platforms.data(), nullptr); R != PI_SUCCESS) {
      Result.Error = describeFailure("piPlatformsGet", R);
      return Result;
    }
  }
  std::map<std::string, int> NextIndex; // per backend
  for (pi_platform Platform : Platforms) {
    std::string Backend;
    if (pi_result R = platformInfoString(Platform, PI_EXT_PLATFORM_INFO_BACKEND, Backend);
        R != PI_SUCCESS) {
      Result.Error = describeFailure("piPlatformGetInfo(PI_EXT_PLATFORM_INFO_BACKEND)", R);
      continue;
    }
    pi_uint32 NumDevices = 0;
    pi_result R = piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 0, nullptr, &NumDevices);
    if (R == PI_ERROR_DEVICE_NOT_FOUND)
      continue; // a platform without devices, as OpenCL reports it
    if (R != PI_SUCCESS) {
      Result.Error = describeFailure("piDevicesGet", R);
      continue;
    }
    std::vector<pi_device> Devices(NumDevices);
    if (NumDevices != 0) {
      if (R = piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, NumDevices, Devices.data(), nullptr);
          R != PI_SUCCESS) {
        Result.Error = describeFailure("piDevicesGet", R);
        continue;
      }
    }
    for (pi_device Device : Devices) {
      DeviceParam Param;
      Param.Platform = Platform;
      Param.Device = Device;
      Param.Backend = Backend;
      if (R = deviceInfoString(Device, PI_DEVICE_INFO_NAME, Param.Name); R != PI_SUCCESS)
        Result.Error = describeFailure("piDeviceGetInfo(PI_DEVICE_INFO_NAME)", R);
      // Long driver names ("pthread-skylake-avx512-AMD EPYC 7B13 64-Core Processor")
      // would make every test name unwieldy; the index keeps the id unique.
      std::string ShortName = sanitizeName(Param.Name).substr(0, 32);
      while (!ShortName.empty() && ShortName.back() == '_')
        ShortName.pop_back();
      Param.Id = sanitizeName(Backend) + "_" + std::to_string(NextIndex[Backend]++) + "_" +
                 (ShortName.empty() ? "device" : ShortName);
      Result.Devices.push_back(std::move(Param));
    }
  }
  return Result;
}

const Enumeration &enumeration() {
  static const Enumeration Result = enumerate();
  return Result;
}
} // namespace

const std::vector<DeviceParam> &allDevices() { return enumeration().Devices; }
const std::string &enumerationError() { return enumeration().Error; }

std::vector<DeviceParam> selectedDevices() {
  std::vector<DeviceParam> Selected;
  for (const DeviceParam &Param : allDevices())
    if (deviceSelection().matches(Param))
      Selected.push_back(Param);
  return Selected;
}

pi_result platformInfoString(pi_platform Platform, pi_platform_info Name, std::string &Out) {
  return infoString(piPlatformGetInfo, Platform, Name, Out);
}

pi_result deviceInfoString(pi_device Device, pi_device_info Name, std::string &Out) {
  return infoString(piDeviceGetInfo, Device, Name, Out);
}

} // namespace dglink::conformance
