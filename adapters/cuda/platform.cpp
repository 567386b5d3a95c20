// The one CUDA platform: found once, with every device the driver reports;
// zero platforms (and success) where libcuda or a device is missing.
#include "handles.h"
#include "platform.h"

#include <dglink/support/extensions.h>
#include <dglink/support/info.h>
#include <dglink/support/log.h>

namespace dglink::cuda {
namespace {

pi_result describeDevice(_pi_platform &Platform, int Ordinal, _pi_device &Device) {
  const CudaDriver &Cu = cu();
  Device.Platform = &Platform;
  Device.Ordinal = Ordinal;
  DGLINK_CU(cuDeviceGet, &Device.Device, Ordinal);
  char Name[256] = {};
  DGLINK_CU(cuDeviceGetName, Name, static_cast<int>(sizeof(Name) - 1), Device.Device);
  Device.Name = Name;
  auto Attribute = [&](CUdevice_attribute Which, int &Out) {
    int Value = 0;
    if (Cu.cuDeviceGetAttribute(&Value, Which, Device.Device) == CUDA_SUCCESS)
      Out = Value;
  };
  Attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, Device.ComputeMajor);
  Attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, Device.ComputeMinor);
  Attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, Device.MultiprocessorCount);
  Attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, Device.MaxThreadsPerBlock);
  Attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, Device.MaxBlockDim[0]);
  Attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, Device.MaxBlockDim[1]);
  Attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, Device.MaxBlockDim[2]);
  Attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, Device.MaxGridDim[0]);
  Attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, Device.MaxGridDim[1]);
  Attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, Device.MaxGridDim[2]);
  DGLINK_CU(cuDeviceTotalMem, &Device.TotalMemory, Device.Device);

  Device.CanLink = nvJitLinkAvailable() || Cu.hasLinker();
  if (Device.CanLink)
    Device.LinkFormats = PI_DEVICE_BINARY_TARGET_NVPTX64;
  std::vector<std::string> Formats;
  if (Device.CanLink)
    Formats.push_back(Device.LinkFormats);
  Device.Extensions = buildExtensionString("", Formats, true);
  return PI_SUCCESS;
}

_pi_platform *discover() {
  std::string Reason;
  if (!loadCudaDriver(&Reason))
    return nullptr;
  int Count = 0;
  CUresult Result = cu().cuDeviceGetCount(&Count);
  if (Result != CUDA_SUCCESS || Count == 0) {
    logger().info("cuda: no CUDA device (cuDeviceGetCount: {} devices, result {}); "
                  "zero platforms",
                  Count, static_cast<int>(Result));
    return nullptr;
  }
  auto *Platform = new _pi_platform();
  int Version = 0;
  cu().cuDriverGetVersion(&Version);
  Platform->DriverVersion = std::to_string(Version / 1000) + "." + std::to_string(Version % 1000 / 10);
  Platform->Version = "CUDA " + Platform->DriverVersion;
  for (int Ordinal = 0; Ordinal < Count; ++Ordinal) {
    auto *Device = new _pi_device();
    if (describeDevice(*Platform, Ordinal, *Device) != PI_SUCCESS) {
      logger().warn("cuda: skipping device {}: {}", Ordinal, lastErrorMessage());
      delete Device;
      continue;
    }
    logger().debug("cuda: device {}: {} (sm_{}{}), extensions '{}'", Ordinal, Device->Name,
                   Device->ComputeMajor, Device->ComputeMinor, Device->Extensions);
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

} // namespace dglink::cuda

using namespace dglink::cuda;

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
  DGLINK_CUDA_CHECK_HANDLE(Platform, PI_ERROR_INVALID_PLATFORM);
  auto String = [&](const std::string &Value) {
    return dglink::returnInfoString(Value, ParamValueSize, ParamValue, ParamValueSizeRet);
  };
  switch (ParamName) {
  case PI_PLATFORM_INFO_NAME:
    return String("NVIDIA CUDA");
  case PI_PLATFORM_INFO_VENDOR:
    return String("NVIDIA Corporation");
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
