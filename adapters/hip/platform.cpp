// The one HIP platform: found once, with every device HIP reports; zero
// platforms (and success) where the runtime or a device is missing.
#include "handles.h"

#include <dglink/support/extensions.h>
#include <dglink/support/info.h>
#include <dglink/support/log.h>

namespace dglink::hip {
namespace {

bool isAmd() { return std::string(imageTarget()) == PI_DEVICE_BINARY_TARGET_AMDGCN; }

pi_result describeDevice(_pi_platform &Platform, int Ordinal, _pi_device &Device) {
  Device.Platform = &Platform;
  Device.Ordinal = Ordinal;
  DGLINK_HIP(GetDeviceInfo, Ordinal, Device.Info);
  Device.Name = Device.Info.Name;
  std::string How;
  const bool HaveLinker = linkerAvailable(&How);
  // AMD links for the device's ISA, which it must report.
  const bool HaveArch = !isAmd() || !Device.Info.Arch.empty();
  Device.CanLink = HaveLinker && HaveArch;
  if (Device.CanLink)
    Device.LinkFormats = imageTarget();
  else
    logger().info("hip: device {} cannot link at run time: {}", Ordinal,
                  HaveLinker ? "it reports no architecture name (gcnArchName)" : How);
  std::vector<std::string> Formats;
  if (Device.CanLink)
    Formats.push_back(Device.LinkFormats);
  // Device globals: hipModuleGetGlobal + hipMemcpy*Async, on both platforms.
  Device.Extensions = buildExtensionString("", Formats, true);
  return PI_SUCCESS;
}

_pi_platform *discover() {
  std::string Reason;
  if (!loadHip(&Reason))
    return nullptr;
  int Count = 0;
  const HipError Result = hip().GetDeviceCount(&Count);
  if (Result != HipSuccess || Count <= 0) {
    logger().info("hip: no {} GPU (hipGetDeviceCount: {} devices, {}); zero platforms",
                  hip().Platform, Result == HipSuccess ? Count : 0, hip().ErrorName(Result));
    return nullptr;
  }
  auto *Platform = new _pi_platform();
  int Version = 0;
  hip().DriverGetVersion(&Version);
  if (isAmd()) {
    // HIP's version number: major * 10000000 + minor * 100000 + patch.
    Platform->DriverVersion =
        std::to_string(Version / 10000000) + "." + std::to_string(Version / 100000 % 100);
    Platform->Version = "HIP " + Platform->DriverVersion + " (AMD)";
  } else {
    Platform->DriverVersion =
        std::to_string(Version / 1000) + "." + std::to_string(Version % 1000 / 10);
    Platform->Version = "HIP on CUDA " + Platform->DriverVersion + " (NVIDIA)";
  }
  for (int Ordinal = 0; Ordinal < Count; ++Ordinal) {
    auto *Device = new _pi_device();
    if (describeDevice(*Platform, Ordinal, *Device) != PI_SUCCESS) {
      logger().warn("hip: skipping device {}: {}", Ordinal, lastErrorMessage());
      delete Device;
      continue;
    }
    logger().debug("hip: device {}: {} ({}), extensions '{}'", Ordinal, Device->Name,
                   Device->Info.Arch, Device->Extensions);
    Platform->Devices.push_back(Device);
  }
  if (Platform->Devices.empty()) {
    delete Platform;
    return nullptr;
  }
  return Platform;
}

} // namespace

_pi_platform *thePlatform() {
  // Found once and never destroyed: a runtime may call in while the process exits.
  static _pi_platform *const Platform = discover();
  return Platform;
}

} // namespace dglink::hip

using namespace dglink::hip;

extern "C" PI_API_EXPORT pi_result piPlatformsGet(pi_uint32 NumEntries, pi_platform *Platforms,
                                                  pi_uint32 *NumPlatforms) try {
  DGLINK_TRY(dglink::checkPlatformsGet(NumEntries, Platforms, NumPlatforms));
  _pi_platform *Platform = thePlatform();
  if (NumPlatforms != nullptr)
    *NumPlatforms = Platform != nullptr ? 1 : 0;
  if (Platforms != nullptr && Platform != nullptr)
    Platforms[0] = Platform;
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piPlatformGetInfo(pi_platform Platform,
                                                     pi_platform_info ParamName,
                                                     size_t ParamValueSize, void *ParamValue,
                                                     size_t *ParamValueSizeRet) try {
  DGLINK_HIP_CHECK_HANDLE(Platform, PI_ERROR_INVALID_PLATFORM);
  auto String = [&](const std::string &Value) {
    return dglink::returnInfoString(Value, ParamValueSize, ParamValue, ParamValueSizeRet);
  };
  const bool Amd = std::string(imageTarget()) == PI_DEVICE_BINARY_TARGET_AMDGCN;
  switch (ParamName) {
  case PI_PLATFORM_INFO_NAME:
    return String(Amd ? "AMD HIP" : "HIP (NVIDIA platform)");
  case PI_PLATFORM_INFO_VENDOR:
    return String(Amd ? "Advanced Micro Devices, Inc." : "NVIDIA Corporation");
  case PI_PLATFORM_INFO_VERSION:
    return String(Platform->Version);
  case PI_PLATFORM_INFO_PROFILE:
    return String("FULL_PROFILE");
  case PI_PLATFORM_INFO_EXTENSIONS:
    return String("");
  case PI_EXT_PLATFORM_INFO_BACKEND:
    return String(DGLINK_ADAPTER_NAME);
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "piPlatformGetInfo: unknown parameter {:#x}",
                      static_cast<unsigned>(ParamName));
}
DGLINK_CATCH_ALL
