// Devices: the root devices of a driver, described once at discovery.
#include "handles.h"

#include <dglink/support/info.h>

using namespace dglink::level_zero;

namespace {
pi_device_type deviceType(ze_device_type_t Type) {
  switch (Type) {
  case ZE_DEVICE_TYPE_GPU:
    return PI_DEVICE_TYPE_GPU;
  case ZE_DEVICE_TYPE_CPU:
    return PI_DEVICE_TYPE_CPU;
  default: // FPGA, MCA, VPU (and the test driver)
    return PI_DEVICE_TYPE_ACC;
  }
}
} // namespace

extern "C" PI_API_EXPORT pi_result piDevicesGet(pi_platform Platform, pi_device_type DeviceType,
                                                pi_uint32 NumEntries, pi_device *Devices,
                                                pi_uint32 *NumDevices) {
  DGLINK_ZE_CHECK_HANDLE(Platform, PI_ERROR_INVALID_PLATFORM);
  DGLINK_TRY(dglink::checkDevicesGet(NumEntries, Devices, NumDevices));
  std::vector<_pi_device *> Matching;
  for (_pi_device *Device : Platform->Devices)
    if (DeviceType == PI_DEVICE_TYPE_ALL || DeviceType == PI_DEVICE_TYPE_DEFAULT ||
        (DeviceType & deviceType(Device->Type)) != 0)
      Matching.push_back(Device);
  if (NumDevices != nullptr)
    *NumDevices = static_cast<pi_uint32>(Matching.size());
  if (Devices != nullptr)
    for (size_t I = 0; I < Matching.size() && I < NumEntries; ++I)
      Devices[I] = Matching[I];
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result piDeviceGetInfo(pi_device Device, pi_device_info ParamName,
                                                   size_t ParamValueSize, void *ParamValue,
                                                   size_t *ParamValueSizeRet) {
  DGLINK_ZE_CHECK_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  auto Value = [&](auto V) {
    return dglink::returnInfo(V, ParamValueSize, ParamValue, ParamValueSizeRet);
  };
  auto String = [&](const std::string &V) {
    return dglink::returnInfoString(V, ParamValueSize, ParamValue, ParamValueSizeRet);
  };
  switch (ParamName) {
  case PI_DEVICE_INFO_TYPE:
    return Value(deviceType(Device->Type));
  case PI_DEVICE_INFO_VENDOR_ID:
    return Value(pi_uint32{Device->VendorId});
  case PI_DEVICE_INFO_MAX_COMPUTE_UNITS:
    return Value(pi_uint32{Device->ComputeUnits});
  case PI_DEVICE_INFO_MAX_WORK_GROUP_SIZE:
    return Value(Device->MaxGroupSize);
  case PI_DEVICE_INFO_GLOBAL_MEM_SIZE:
    return Value(pi_uint64{Device->GlobalMemory});
  case PI_DEVICE_INFO_DOUBLE_FP_CONFIG:
    return Value(pi_bitfield{Device->Fp64 ? 0x3Fu : 0u});
  case PI_DEVICE_INFO_AVAILABLE:
  case PI_DEVICE_INFO_COMPILER_AVAILABLE: // the driver compiles SPIR-V
    return Value(pi_bool{PI_TRUE});
  case PI_EXT_DEVICE_INFO_EXECUTES_KERNELS:
    return Value(pi_bool{Device->ExecutesKernels ? PI_TRUE : PI_FALSE});
  case PI_DEVICE_INFO_LINKER_AVAILABLE:
    return Value(pi_bool{Device->CanLink ? PI_TRUE : PI_FALSE});
  case PI_DEVICE_INFO_NAME:
    return String(Device->Name);
  case PI_DEVICE_INFO_VENDOR:
    return String(Device->VendorId == 0x8086 ? "Intel(R) Corporation"
                                             : "vendor " + std::to_string(Device->VendorId));
  case PI_DEVICE_INFO_DRIVER_VERSION:
    return String(Device->Platform->DriverVersion);
  case PI_DEVICE_INFO_VERSION:
    return String(Device->Platform->Version);
  case PI_DEVICE_INFO_EXTENSIONS:
    return String(Device->Extensions);
  case PI_DEVICE_INFO_PLATFORM:
    return Value(static_cast<pi_platform>(Device->Platform));
  case PI_DEVICE_INFO_IL_VERSION:
    return String(Device->IlVersion);
  case PI_DEVICE_INFO_REFERENCE_COUNT:
    return Value(pi_uint32{1});
  case PI_EXT_DEVICE_INFO_LINK_FORMATS:
    return String(Device->LinkFormats);
  case PI_DEVICE_INFO_USM_HOST_SUPPORT:
    return Value(Device->HostUsm);
  case PI_DEVICE_INFO_USM_DEVICE_SUPPORT:
    return Value(Device->DeviceUsm);
  case PI_DEVICE_INFO_USM_SINGLE_SHARED_SUPPORT:
    return Value(Device->SharedUsm);
  case PI_EXT_DEVICE_INFO_IMAGE_FORMATS:
    return String("spirv64"); // SPIR-V modules, linked or not
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

// Root devices live as long as the process: retain and release only check.
extern "C" PI_API_EXPORT pi_result piDeviceRetain(pi_device Device) {
  DGLINK_ZE_CHECK_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result piDeviceRelease(pi_device Device) {
  DGLINK_ZE_CHECK_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  return PI_SUCCESS;
}
