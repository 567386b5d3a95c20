// Devices: one per HIP device of the platform, described once at discovery.
#include "handles.h"

#include <dglink/support/info.h>

using namespace dglink::hip;

extern "C" PI_API_EXPORT pi_result piDevicesGet(pi_platform Platform, pi_device_type DeviceType,
                                                pi_uint32 NumEntries, pi_device *Devices,
                                                pi_uint32 *NumDevices) try {
  DGLINK_HIP_CHECK_HANDLE(Platform, PI_ERROR_INVALID_PLATFORM);
  DGLINK_TRY(dglink::checkDevicesGet(NumEntries, Devices, NumDevices));
  const bool Matches = DeviceType == PI_DEVICE_TYPE_ALL || DeviceType == PI_DEVICE_TYPE_DEFAULT ||
                       (DeviceType & PI_DEVICE_TYPE_GPU) != 0;
  const pi_uint32 Count = Matches ? static_cast<pi_uint32>(Platform->Devices.size()) : 0;
  if (NumDevices != nullptr)
    *NumDevices = Count;
  if (Devices != nullptr)
    for (pi_uint32 I = 0; I < Count && I < NumEntries; ++I)
      Devices[I] = Platform->Devices[I];
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piDeviceGetInfo(pi_device Device, pi_device_info ParamName,
                                                   size_t ParamValueSize, void *ParamValue,
                                                   size_t *ParamValueSizeRet) try {
  DGLINK_HIP_CHECK_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  auto Value = [&](auto V) {
    return dglink::returnInfo(V, ParamValueSize, ParamValue, ParamValueSizeRet);
  };
  auto String = [&](const std::string &V) {
    return dglink::returnInfoString(V, ParamValueSize, ParamValue, ParamValueSizeRet);
  };
  const bool Amd = std::string(imageTarget()) == PI_DEVICE_BINARY_TARGET_AMDGCN;
  const HipDeviceInfo &Info = Device->Info;
  switch (ParamName) {
  case PI_DEVICE_INFO_TYPE:
    return Value(PI_DEVICE_TYPE_GPU);
  case PI_DEVICE_INFO_VENDOR_ID:
    return Value(pi_uint32{Amd ? 0x1002u : 0x10DEu});
  case PI_DEVICE_INFO_MAX_COMPUTE_UNITS:
    return Value(static_cast<pi_uint32>(Info.MultiprocessorCount));
  case PI_DEVICE_INFO_MAX_WORK_GROUP_SIZE:
    return Value(static_cast<size_t>(Info.MaxThreadsPerBlock));
  case PI_DEVICE_INFO_GLOBAL_MEM_SIZE:
    return Value(static_cast<pi_uint64>(Info.TotalMemory));
  case PI_DEVICE_INFO_DOUBLE_FP_CONFIG:
    // denorm | inf_nan | round to nearest / zero / inf | fma: every HIP GPU.
    return Value(pi_bitfield{0x3F});
  case PI_DEVICE_INFO_AVAILABLE:
  case PI_EXT_DEVICE_INFO_EXECUTES_KERNELS:
    return Value(pi_bool{PI_TRUE});
  case PI_DEVICE_INFO_COMPILER_AVAILABLE:
    // NVIDIA: PTX is compiled by the driver's JIT. AMD: code objects are final
    // (relocatable ones need the linker).
    return Value(pi_bool{Amd ? PI_FALSE : PI_TRUE});
  case PI_DEVICE_INFO_LINKER_AVAILABLE:
    return Value(pi_bool{Device->CanLink ? PI_TRUE : PI_FALSE});
  case PI_DEVICE_INFO_NAME:
    return String(Device->Name);
  case PI_DEVICE_INFO_VENDOR:
    return String(Amd ? "Advanced Micro Devices, Inc." : "NVIDIA Corporation");
  case PI_DEVICE_INFO_DRIVER_VERSION:
    return String(Device->Platform->DriverVersion);
  case PI_DEVICE_INFO_VERSION:
    return String(Amd ? Info.Arch
                      : std::to_string(Info.ComputeMajor) + "." + std::to_string(Info.ComputeMinor));
  case PI_DEVICE_INFO_EXTENSIONS:
    return String(Device->Extensions);
  case PI_DEVICE_INFO_PLATFORM:
    return Value(static_cast<pi_platform>(Device->Platform));
  case PI_DEVICE_INFO_IL_VERSION:
    return String("");
  case PI_DEVICE_INFO_REFERENCE_COUNT:
    return Value(pi_uint32{1});
  case PI_EXT_DEVICE_INFO_LINK_FORMATS:
    return String(Device->LinkFormats);
  case PI_DEVICE_INFO_USM_HOST_SUPPORT:
  case PI_DEVICE_INFO_USM_DEVICE_SUPPORT:
  case PI_DEVICE_INFO_USM_SINGLE_SHARED_SUPPORT:
    // hipHostMalloc, hipMalloc and hipMallocManaged.
    return Value(pi_usm_capabilities{PI_USM_ACCESS | PI_USM_ATOMIC_ACCESS});
  case PI_EXT_DEVICE_INFO_IMAGE_FORMATS:
    return String(imageTarget()); // whether or not this device links
  case PI_EXT_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM:
    return Value(PI_DEVICE_GLOBAL_MECHANISM_NATIVE);
  case PI_EXT_DEVICE_INFO_USM_MECHANISM:
    return Value(PI_USM_MECHANISM_NATIVE);
  case PI_EXT_DEVICE_INFO_BACKEND_NAME:
    return String(DGLINK_ADAPTER_NAME);
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "piDeviceGetInfo: unknown parameter {:#x}",
                      static_cast<unsigned>(ParamName));
}
DGLINK_CATCH_ALL

// Root devices live as long as the process: retain and release only check.
extern "C" PI_API_EXPORT pi_result piDeviceRetain(pi_device Device) try {
  DGLINK_HIP_CHECK_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piDeviceRelease(pi_device Device) try {
  DGLINK_HIP_CHECK_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL
