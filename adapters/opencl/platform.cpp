// Platform discovery through the OpenCL ICD loader: enumerated once, cached until
// piTearDown, with the extension entry points each platform offers resolved up front.
#include "opencl_adapter.h"

#include <dglink/support/info.h>
#include <dglink/support/log.h>

namespace dglink::opencl {
namespace {

struct PlatformCache {
  std::mutex Mutex;
  bool Enumerated = false;
  std::vector<std::unique_ptr<_pi_platform>> Platforms;
};

// Never destroyed: a runtime may still hold handles while the process exits.
PlatformCache &cache() {
  static auto *Instance = new PlatformCache;
  return *Instance;
}

template <typename Function> Function resolve(cl_platform_id Platform, const char *Name) {
  return reinterpret_cast<Function>(clGetExtensionFunctionAddressForPlatform(Platform, Name));
}

void resolveExtensionFunctions(_pi_platform &Platform) {
  cl_platform_id Id = Platform.Platform;
  IntelUsmFunctions &Usm = Platform.Usm;
  Usm.HostMemAlloc = resolve<clHostMemAllocINTEL_fn>(Id, "clHostMemAllocINTEL");
  Usm.DeviceMemAlloc = resolve<clDeviceMemAllocINTEL_fn>(Id, "clDeviceMemAllocINTEL");
  Usm.SharedMemAlloc = resolve<clSharedMemAllocINTEL_fn>(Id, "clSharedMemAllocINTEL");
  Usm.MemBlockingFree = resolve<clMemBlockingFreeINTEL_fn>(Id, "clMemBlockingFreeINTEL");
  Usm.EnqueueMemcpy = resolve<clEnqueueMemcpyINTEL_fn>(Id, "clEnqueueMemcpyINTEL");
  Usm.EnqueueMemFill = resolve<clEnqueueMemFillINTEL_fn>(Id, "clEnqueueMemFillINTEL");
  Usm.SetKernelArgMemPointer =
      resolve<clSetKernelArgMemPointerINTEL_fn>(Id, "clSetKernelArgMemPointerINTEL");
  Platform.GlobalVariable.Read =
      resolve<clEnqueueReadGlobalVariableINTEL_fn>(Id, "clEnqueueReadGlobalVariableINTEL");
  Platform.GlobalVariable.Write =
      resolve<clEnqueueWriteGlobalVariableINTEL_fn>(Id, "clEnqueueWriteGlobalVariableINTEL");
}

pi_result enumerate(std::vector<std::unique_ptr<_pi_platform>> &Out) {
  cl_uint Count = 0;
  cl_int Error = clGetPlatformIDs(0, nullptr, &Count);
  // The ICD loader says "no platform" with CL_PLATFORM_NOT_FOUND_KHR: not an error here.
  if (Error == CL_PLATFORM_NOT_FOUND_KHR || (Error == CL_SUCCESS && Count == 0))
    return PI_SUCCESS;
  if (Error != CL_SUCCESS)
    return clFailure(Error, "piPlatformsGet", "clGetPlatformIDs");
  std::vector<cl_platform_id> Ids(Count);
  Error = clGetPlatformIDs(Count, Ids.data(), nullptr);
  if (Error != CL_SUCCESS)
    return clFailure(Error, "piPlatformsGet", "clGetPlatformIDs");

  for (cl_platform_id Id : Ids) {
    auto Platform = std::make_unique<_pi_platform>();
    Platform->Platform = Id;
    Platform->Name = platformString(Id, CL_PLATFORM_NAME);
    Platform->Vendor = platformString(Id, CL_PLATFORM_VENDOR);
    Platform->Version = platformString(Id, CL_PLATFORM_VERSION);
    Platform->Profile = platformString(Id, CL_PLATFORM_PROFILE);
    Platform->Extensions = platformString(Id, CL_PLATFORM_EXTENSIONS);
    resolveExtensionFunctions(*Platform);

    cl_uint NumDevices = 0;
    Error = clGetDeviceIDs(Id, CL_DEVICE_TYPE_ALL, 0, nullptr, &NumDevices);
    if (Error != CL_SUCCESS && Error != CL_DEVICE_NOT_FOUND) {
      // One broken platform must not hide the others.
      logger().warn("OpenCL platform '{}': clGetDeviceIDs failed with {} ({}); skipped",
                    Platform->Name, clErrorName(Error), Error);
      continue;
    }
    if (Error == CL_SUCCESS && NumDevices != 0) {
      std::vector<cl_device_id> DeviceIds(NumDevices);
      Error = clGetDeviceIDs(Id, CL_DEVICE_TYPE_ALL, NumDevices, DeviceIds.data(), nullptr);
      if (Error != CL_SUCCESS)
        return clFailure(Error, "piPlatformsGet", "clGetDeviceIDs");
      for (cl_device_id DeviceId : DeviceIds)
        Platform->Devices.push_back(makeDevice(Platform.get(), DeviceId));
    }
    Out.push_back(std::move(Platform));
  }
  return PI_SUCCESS;
}

bool deviceMatches(const _pi_device &Device, pi_device_type Requested) {
  if (Requested == PI_DEVICE_TYPE_ALL)
    return true;
  return (Device.Type & Requested) != 0;
}

} // namespace

void tearDownPlatforms() {
  // Platforms and devices stay: a runtime may release contexts, queues and programs
  // after piTearDown (static destructors), and those reach their device and platform,
  // as does the dispatch layer's merged platform list. They own nothing that needs
  // releasing (OpenCL root devices are not reference counted) and go with the process.
}

} // namespace dglink::opencl

using namespace dglink::opencl;

extern "C" {

PI_API_EXPORT pi_result piPlatformsGet(pi_uint32 NumEntries, pi_platform *Platforms,
                                       pi_uint32 *NumPlatforms) try {
  if (Platforms == nullptr && NumPlatforms == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: arguments 'Platforms' and 'NumPlatforms' are both null", __func__);
  if (Platforms != nullptr && NumEntries == 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: argument 'NumEntries' is 0 but 'Platforms' is not null", __func__);
  PlatformCache &Cache = cache();
  std::lock_guard<std::mutex> Lock(Cache.Mutex);
  if (!Cache.Enumerated) {
    std::vector<std::unique_ptr<_pi_platform>> Found;
    DGLINK_TRY(enumerate(Found));
    Cache.Platforms = std::move(Found);
    Cache.Enumerated = true;
  }
  const auto Count = static_cast<pi_uint32>(Cache.Platforms.size());
  if (Platforms != nullptr)
    for (pi_uint32 I = 0; I < NumEntries && I < Count; ++I)
      Platforms[I] = Cache.Platforms[I].get();
  if (NumPlatforms != nullptr)
    *NumPlatforms = Count;
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piPlatformGetInfo(pi_platform Platform, pi_platform_info ParamName,
                                          size_t ParamValueSize, void *ParamValue,
                                          size_t *ParamValueSizeRet) try {
  DGLINK_OPENCL_CHECK_HANDLE(Platform, PI_ERROR_INVALID_PLATFORM);
  switch (ParamName) {
  case PI_PLATFORM_INFO_NAME:
    return dglink::returnInfoString(Platform->Name, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_PLATFORM_INFO_VENDOR:
    return dglink::returnInfoString(Platform->Vendor, ParamValueSize, ParamValue,
                                    ParamValueSizeRet);
  case PI_PLATFORM_INFO_VERSION:
    return dglink::returnInfoString(Platform->Version, ParamValueSize, ParamValue,
                                    ParamValueSizeRet);
  case PI_PLATFORM_INFO_PROFILE:
    return dglink::returnInfoString(Platform->Profile, ParamValueSize, ParamValue,
                                    ParamValueSizeRet);
  case PI_PLATFORM_INFO_EXTENSIONS:
    return dglink::returnInfoString(Platform->Extensions, ParamValueSize, ParamValue,
                                    ParamValueSizeRet);
  case PI_EXT_PLATFORM_INFO_BACKEND:
    return dglink::returnInfoString(DGLINK_ADAPTER_NAME, ParamValueSize, ParamValue,
                                    ParamValueSizeRet);
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: unknown ParamName 0x{:x}", __func__,
                      static_cast<unsigned>(ParamName));
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piDevicesGet(pi_platform Platform, pi_device_type DeviceType,
                                     pi_uint32 NumEntries, pi_device *Devices,
                                     pi_uint32 *NumDevices) try {
  DGLINK_OPENCL_CHECK_HANDLE(Platform, PI_ERROR_INVALID_PLATFORM);
  constexpr pi_device_type KnownTypes =
      PI_DEVICE_TYPE_DEFAULT | PI_DEVICE_TYPE_CPU | PI_DEVICE_TYPE_GPU | PI_DEVICE_TYPE_ACC;
  if (DeviceType != PI_DEVICE_TYPE_ALL && (DeviceType == 0 || (DeviceType & ~KnownTypes) != 0))
    return dglink::fail(PI_ERROR_INVALID_DEVICE_TYPE, "{}: DeviceType 0x{:x} is not a device type",
                        __func__, DeviceType);
  if (Devices == nullptr && NumDevices == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: arguments 'Devices' and 'NumDevices' are both null", __func__);
  if (Devices != nullptr && NumEntries == 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: argument 'NumEntries' is 0 but 'Devices' is not null", __func__);

  std::vector<pi_device> Matching;
  for (const auto &Device : Platform->Devices)
    if (deviceMatches(*Device, DeviceType))
      Matching.push_back(Device.get());
  // OpenCL drivers rarely flag a default device; the first one is the default then.
  if (DeviceType == PI_DEVICE_TYPE_DEFAULT && Matching.empty() && !Platform->Devices.empty())
    Matching.push_back(Platform->Devices.front().get());
  if (DeviceType == PI_DEVICE_TYPE_DEFAULT && Matching.size() > 1)
    Matching.resize(1);

  // No device of the requested type is an empty answer, not an error (as in DPC++).
  const auto Count = static_cast<pi_uint32>(Matching.size());
  if (Devices != nullptr)
    for (pi_uint32 I = 0; I < NumEntries && I < Count; ++I)
      Devices[I] = Matching[I];
  if (NumDevices != nullptr)
    *NumDevices = Count;
  return PI_SUCCESS;
}
DGLINK_OPENCL_CATCH_ALL

} // extern "C"
