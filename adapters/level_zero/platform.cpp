// Platforms: one per Level Zero driver, each with its root devices, described
// once; zero platforms (and success) where the loader or a driver is missing.
#include "platform.h"
#include "handles.h"

#include <dglink/support/extensions.h>
#include <dglink/support/info.h>
#include <dglink/support/log.h>

#include <algorithm>
#include <cstring>

namespace dglink::level_zero {
namespace {

// The smallest module there is: header, the capabilities of OpenCL kernels and
// the memory model. Linking it alone tells whether the driver links at all.
const uint32_t ProbeModule[] = {0x07230203,
                                0x00010000,
                                0,
                                1,
                                0,
                                0x00020011,
                                4 /* Addresses */,
                                0x00020011,
                                5 /* Linkage */,
                                0x00020011,
                                6 /* Kernel */,
                                0x0003000E,
                                2 /* Physical64 */,
                                2 /* OpenCL */};

bool probeLinking(ze_context_handle_t Context, ze_device_handle_t Device) {
  ze_module_desc_t Desc = {};
  Desc.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
  Desc.format = ZE_MODULE_FORMAT_IL_SPIRV;
  Desc.inputSize = sizeof(ProbeModule);
  Desc.pInputModule = reinterpret_cast<const uint8_t *>(ProbeModule);
  Desc.pBuildFlags = "";
  ze_module_handle_t Module = nullptr;
  if (ze().zeModuleCreate(Context, Device, &Desc, &Module, nullptr) != ZE_RESULT_SUCCESS)
    return false;
  const bool Linked = ze().zeModuleDynamicLink(1, &Module, nullptr) == ZE_RESULT_SUCCESS;
  ze().zeModuleDestroy(Module);
  return Linked;
}

pi_usm_capabilities usmCapabilities(ze_memory_access_cap_flags_t Flags) {
  pi_usm_capabilities Capabilities = 0;
  if ((Flags & ZE_MEMORY_ACCESS_CAP_FLAG_RW) != 0)
    Capabilities |= PI_USM_ACCESS;
  if ((Flags & ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC) != 0)
    Capabilities |= PI_USM_ATOMIC_ACCESS;
  return Capabilities;
}

pi_result describeDevice(_pi_platform &Platform, ze_device_handle_t Handle, _pi_device &Device) {
  Device.Platform = &Platform;
  Device.Device = Handle;
  ze_device_properties_t Properties = {};
  Properties.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  DGLINK_ZE(zeDeviceGetProperties, Handle, &Properties);
  Device.Name = Properties.name;
  Device.Type = Properties.type;
  Device.VendorId = Properties.vendorId;
  Device.ComputeUnits =
      Properties.numSlices * Properties.numSubslicesPerSlice * Properties.numEUsPerSubslice;

  ze_device_compute_properties_t Compute = {};
  Compute.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
  DGLINK_ZE(zeDeviceGetComputeProperties, Handle, &Compute);
  Device.MaxGroupSize = Compute.maxTotalGroupSize;
  Device.MaxGroupSizes[0] = Compute.maxGroupSizeX;
  Device.MaxGroupSizes[1] = Compute.maxGroupSizeY;
  Device.MaxGroupSizes[2] = Compute.maxGroupSizeZ;

  ze_device_module_properties_t Module = {};
  Module.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES;
  DGLINK_ZE(zeDeviceGetModuleProperties, Handle, &Module);
  Device.Fp64 = (Module.flags & ZE_DEVICE_MODULE_FLAG_FP64) != 0 && Module.fp64flags != 0;
  Device.IlVersion = "SPIR-V_" + std::to_string(ZE_MAJOR_VERSION(Module.spirvVersionSupported)) +
                     "." + std::to_string(ZE_MINOR_VERSION(Module.spirvVersionSupported));

  uint32_t MemoryCount = 0;
  DGLINK_ZE(zeDeviceGetMemoryProperties, Handle, &MemoryCount, nullptr);
  std::vector<ze_device_memory_properties_t> Memories(MemoryCount);
  for (ze_device_memory_properties_t &Memory : Memories)
    Memory.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
  if (MemoryCount != 0)
    DGLINK_ZE(zeDeviceGetMemoryProperties, Handle, &MemoryCount, Memories.data());
  for (const ze_device_memory_properties_t &Memory : Memories)
    Device.GlobalMemory += Memory.totalSize;

  ze_device_memory_access_properties_t Access = {};
  Access.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES;
  DGLINK_ZE(zeDeviceGetMemoryAccessProperties, Handle, &Access);
  Device.HostUsm = usmCapabilities(Access.hostAllocCapabilities);
  Device.DeviceUsm = usmCapabilities(Access.deviceAllocCapabilities);
  Device.SharedUsm = usmCapabilities(Access.sharedSingleDeviceAllocCapabilities);

  Device.ExecutesKernels =
      Platform.Extensions.find(NoKernelExecutionExtension) == std::string::npos;

  ze_context_desc_t ContextDesc = {};
  ContextDesc.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC;
  ze_context_handle_t Context = nullptr;
  DGLINK_ZE(zeContextCreate, Platform.Driver, &ContextDesc, &Context);
  Device.CanLink = probeLinking(Context, Handle);
  ze().zeContextDestroy(Context);

  std::vector<std::string> Formats;
  if (Device.CanLink) {
    Device.LinkFormats = "spirv64";
    Formats.push_back(Device.LinkFormats);
  }
  // zeModuleGetGlobalPointer is core Level Zero: every driver has it.
  Device.Extensions = buildExtensionString(Platform.Extensions, Formats, true);
  return PI_SUCCESS;
}

pi_result describePlatform(ze_driver_handle_t Driver, _pi_platform &Platform) {
  Platform.Driver = Driver;
  ze_api_version_t Api = ZE_API_VERSION_1_0;
  DGLINK_ZE(zeDriverGetApiVersion, Driver, &Api);
  Platform.Version = "Level Zero " + std::to_string(ZE_MAJOR_VERSION(Api)) + "." +
                     std::to_string(ZE_MINOR_VERSION(Api));
  ze_driver_properties_t Properties = {};
  Properties.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
  DGLINK_ZE(zeDriverGetProperties, Driver, &Properties);
  Platform.DriverVersion = std::to_string(Properties.driverVersion);
  uint32_t Count = 0;
  DGLINK_ZE(zeDriverGetExtensionProperties, Driver, &Count, nullptr);
  std::vector<ze_driver_extension_properties_t> Extensions(Count);
  if (Count != 0)
    DGLINK_ZE(zeDriverGetExtensionProperties, Driver, &Count, Extensions.data());
  for (const ze_driver_extension_properties_t &Extension : Extensions)
    Platform.Extensions +=
        std::string(Platform.Extensions.empty() ? "" : " ") +
        std::string(Extension.name, strnlen(Extension.name, sizeof(Extension.name)));
  return PI_SUCCESS;
}

std::vector<_pi_platform *> discover() {
  std::vector<_pi_platform *> Platforms;
  if (!loadLevelZero(nullptr))
    return Platforms;
  uint32_t Count = 0;
  if (ze_result_t Result = ze().zeDriverGet(&Count, nullptr); Result != ZE_RESULT_SUCCESS) {
    logger().info("level_zero: zeDriverGet: {}; zero platforms", zeResultName(Result));
    return Platforms;
  }
  std::vector<ze_driver_handle_t> Drivers(Count);
  if (Count != 0 && ze().zeDriverGet(&Count, Drivers.data()) != ZE_RESULT_SUCCESS)
    return Platforms;
  for (ze_driver_handle_t Driver : Drivers) {
    auto *Platform = new _pi_platform();
    uint32_t NumDevices = 0;
    if (describePlatform(Driver, *Platform) != PI_SUCCESS ||
        ze().zeDeviceGet(Driver, &NumDevices, nullptr) != ZE_RESULT_SUCCESS) {
      logger().warn("level_zero: skipping a driver: {}", lastErrorMessage());
      delete Platform;
      continue;
    }
    std::vector<ze_device_handle_t> Handles(NumDevices);
    if (NumDevices != 0 &&
        ze().zeDeviceGet(Driver, &NumDevices, Handles.data()) != ZE_RESULT_SUCCESS)
      NumDevices = 0;
    for (uint32_t I = 0; I < NumDevices; ++I) {
      auto *Device = new _pi_device();
      if (describeDevice(*Platform, Handles[I], *Device) != PI_SUCCESS) {
        logger().warn("level_zero: skipping device {}: {}", I, lastErrorMessage());
        delete Device;
        continue;
      }
      logger().debug("level_zero: device '{}', executes kernels: {}, extensions '{}'", Device->Name,
                     Device->ExecutesKernels, Device->Extensions);
      Platform->Devices.push_back(Device);
    }
    if (Platform->Devices.empty()) {
      delete Platform;
      continue;
    }
    Platforms.push_back(Platform);
  }
  return Platforms;
}

} // namespace

const std::vector<_pi_platform *> &thePlatforms() {
  // Found once and never destroyed: a runtime may call in while the process exits.
  static const std::vector<_pi_platform *> *const Platforms =
      new std::vector<_pi_platform *>(discover());
  return *Platforms;
}

} // namespace dglink::level_zero

using namespace dglink::level_zero;

extern "C" PI_API_EXPORT pi_result piPlatformsGet(pi_uint32 NumEntries, pi_platform *Platforms,
                                                  pi_uint32 *NumPlatforms) {
  DGLINK_TRY(dglink::checkPlatformsGet(NumEntries, Platforms, NumPlatforms));
  const std::vector<_pi_platform *> &All = thePlatforms();
  if (NumPlatforms != nullptr)
    *NumPlatforms = static_cast<pi_uint32>(All.size());
  if (Platforms != nullptr)
    for (size_t I = 0; I < All.size() && I < NumEntries; ++I)
      Platforms[I] = All[I];
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result piPlatformGetInfo(pi_platform Platform,
                                                     pi_platform_info ParamName,
                                                     size_t ParamValueSize, void *ParamValue,
                                                     size_t *ParamValueSizeRet) {
  DGLINK_ZE_CHECK_HANDLE(Platform, PI_ERROR_INVALID_PLATFORM);
  auto String = [&](const std::string &Value) {
    return dglink::returnInfoString(Value, ParamValueSize, ParamValue, ParamValueSizeRet);
  };
  switch (ParamName) {
  case PI_PLATFORM_INFO_NAME:
    return String("Level Zero");
  case PI_PLATFORM_INFO_VENDOR:
    // The loader does not say who made a driver; the devices' vendor ids do.
    return String("Level Zero driver " + Platform->DriverVersion);
  case PI_PLATFORM_INFO_VERSION:
    return String(Platform->Version);
  case PI_PLATFORM_INFO_PROFILE:
    return String("FULL_PROFILE");
  case PI_PLATFORM_INFO_EXTENSIONS:
    return String(Platform->Extensions);
  case PI_EXT_PLATFORM_INFO_BACKEND:
    return String(DGLINK_ADAPTER_NAME);
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "piPlatformGetInfo: unknown parameter {:#x}",
                      static_cast<unsigned>(ParamName));
}
