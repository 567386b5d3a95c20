// Platforms, devices and the adapter's own entry points (piPluginInit, the function
// table, last error, teardown): answered from what the backend found at discovery.
#include "entry.h"

#include <dglink/support/log.h>
#include <dglink/support/plugin.h>

using namespace dglink::core;

namespace dglink::core {

const pi_plugin_functions DispatchTable = {
#define DGLINK_CORE_TABLE_ENTRY(Name, Ret, Params) &::Name,
    PI_ENTRY_POINTS(DGLINK_CORE_TABLE_ENTRY)
#undef DGLINK_CORE_TABLE_ENTRY
};

const std::vector<std::unique_ptr<_pi_platform>> &platforms() {
  // Found once and never destroyed: a runtime may call in while the process exits.
  static const auto *const Platforms = [] {
    auto *Found = new std::vector<std::unique_ptr<_pi_platform>>();
    try {
      backend().discover(*Found);
    } catch (const std::exception &Exception) {
      logger().warn("{}: discovery failed ({}); zero platforms", backend().name(),
                    Exception.what());
      Found->clear();
    }
    return Found;
  }();
  return *Platforms;
}

pi_result checkWaitList(pi_uint32 NumEvents, const pi_event *Events) {
  if ((NumEvents == 0) != (Events == nullptr))
    return fail(PI_ERROR_INVALID_EVENT_WAIT_LIST,
                "event wait list: {} events but the list pointer is {}", NumEvents,
                Events == nullptr ? "null" : "not null");
  for (pi_uint32 I = 0; I < NumEvents; ++I) {
    HandleKind Actual = HandleKind::Event;
    const HandleState State = inspectHandle(Events[I], HandleKind::Event, &Actual);
    if (State == HandleState::Live)
      continue;
    return fail(PI_ERROR_INVALID_EVENT_WAIT_LIST, "event wait list: entry {} is {}", I,
                describeHandle(State, HandleKind::Event, Actual));
  }
  return PI_SUCCESS;
}

pi_result checkDeviceList(const char *Function, const _pi_context &Context, pi_uint32 NumDevices,
                          const pi_device *Devices) {
  if (NumDevices != 0 && Devices == nullptr)
    return fail(PI_ERROR_INVALID_VALUE, "{}: {} devices but the device list is null", Function,
                NumDevices);
  if (NumDevices == 0 && Devices != nullptr)
    return fail(PI_ERROR_INVALID_VALUE, "{}: a device list with 0 devices", Function);
  for (pi_uint32 I = 0; I < NumDevices; ++I) {
    HandleKind Actual = HandleKind::Device;
    const HandleState State = inspectHandle(Devices[I], HandleKind::Device, &Actual);
    if (State != HandleState::Live)
      return fail(PI_ERROR_INVALID_DEVICE, "{}: device {} is {}", Function, I,
                  describeHandle(State, HandleKind::Device, Actual));
    if (!Context.hasDevice(Devices[I]))
      return fail(PI_ERROR_INVALID_DEVICE, "{}: device '{}' is not a device of the context",
                  Function, Devices[I]->Description.Name);
  }
  return PI_SUCCESS;
}

} // namespace dglink::core

extern "C" {

PI_API_EXPORT pi_result piPluginInit(pi_plugin *PluginInfo) try {
  DGLINK_ENTRY();
  return dglink::initPlugin(PluginInfo, backend().name(), DispatchTable);
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piPluginGetLastError(char **Message) try {
  DGLINK_ENTRY();
  return dglink::getLastError(Message);
}
DGLINK_CATCH_ALL

// Handles still alive stay valid: they are the caller's to release.
PI_API_EXPORT pi_result piTearDown(void *PluginParameter) try {
  DGLINK_ENTRY();
  backend().tearDown();
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piPlatformsGet(pi_uint32 NumEntries, pi_platform *Platforms,
                                       pi_uint32 *NumPlatforms) try {
  DGLINK_ENTRY();
  if (Platforms == nullptr && NumPlatforms == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piPlatformsGet: arguments 'Platforms' and 'NumPlatforms' are both null");
  if (Platforms != nullptr && NumEntries == 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piPlatformsGet: argument 'NumEntries' is 0 but 'Platforms' is not null");
  const auto &All = platforms();
  if (NumPlatforms != nullptr)
    *NumPlatforms = static_cast<pi_uint32>(All.size());
  if (Platforms != nullptr)
    for (size_t I = 0; I < All.size() && I < NumEntries; ++I)
      Platforms[I] = All[I].get();
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piPlatformGetInfo(pi_platform Platform, pi_platform_info ParamName,
                                          size_t ParamValueSize, void *ParamValue,
                                          size_t *ParamValueSizeRet) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Platform, PI_ERROR_INVALID_PLATFORM);
  const PlatformDescription &Description = Platform->Description;
  auto String = [&](const std::string &Value) {
    return dglink::returnInfoString(Value, ParamValueSize, ParamValue, ParamValueSizeRet);
  };
  switch (ParamName) {
  case PI_PLATFORM_INFO_NAME:
    return String(Description.Name);
  case PI_PLATFORM_INFO_VENDOR:
    return String(Description.Vendor);
  case PI_PLATFORM_INFO_VERSION:
    return String(Description.Version);
  case PI_PLATFORM_INFO_PROFILE:
    return String(Description.Profile);
  case PI_PLATFORM_INFO_EXTENSIONS:
    return String(Description.Extensions);
  case PI_EXT_PLATFORM_INFO_BACKEND:
    return String(backend().name());
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "piPlatformGetInfo: unknown parameter {:#x}",
                      static_cast<unsigned>(ParamName));
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piDevicesGet(pi_platform Platform, pi_device_type DeviceType,
                                     pi_uint32 NumEntries, pi_device *Devices,
                                     pi_uint32 *NumDevices) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Platform, PI_ERROR_INVALID_PLATFORM);
  if (Devices == nullptr && NumDevices == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piDevicesGet: arguments 'Devices' and 'NumDevices' are both null");
  if (Devices != nullptr && NumEntries == 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piDevicesGet: argument 'NumEntries' is 0 but 'Devices' is not null");
  constexpr pi_device_type KnownTypes =
      PI_DEVICE_TYPE_DEFAULT | PI_DEVICE_TYPE_CPU | PI_DEVICE_TYPE_GPU | PI_DEVICE_TYPE_ACC;
  if (DeviceType != PI_DEVICE_TYPE_ALL && (DeviceType == 0 || (DeviceType & ~KnownTypes) != 0))
    return dglink::fail(PI_ERROR_INVALID_DEVICE_TYPE,
                        "piDevicesGet: DeviceType {:#x} is not a device type",
                        static_cast<unsigned long long>(DeviceType));
  // The default device is one device: the platform's first (drivers rarely flag one).
  pi_uint32 Count = 0;
  for (_pi_device *Device : Platform->Devices) {
    if (DeviceType != PI_DEVICE_TYPE_ALL && DeviceType != PI_DEVICE_TYPE_DEFAULT &&
        (DeviceType & Device->Description.Type) == 0)
      continue;
    if (DeviceType == PI_DEVICE_TYPE_DEFAULT && Count == 1)
      break;
    if (Devices != nullptr && Count < NumEntries)
      Devices[Count] = Device;
    ++Count;
  }
  if (NumDevices != nullptr)
    *NumDevices = Count;
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piDeviceGetInfo(pi_device Device, pi_device_info ParamName,
                                        size_t ParamValueSize, void *ParamValue,
                                        size_t *ParamValueSizeRet) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  const DeviceDescription &D = Device->Description;
  auto Value = [&](auto V) {
    return dglink::returnInfo(V, ParamValueSize, ParamValue, ParamValueSizeRet);
  };
  auto String = [&](const std::string &V) {
    return dglink::returnInfoString(V, ParamValueSize, ParamValue, ParamValueSizeRet);
  };
  auto Bool = [&](bool V) { return Value(pi_bool{V ? PI_TRUE : PI_FALSE}); };
  switch (ParamName) {
  case PI_DEVICE_INFO_TYPE:
    return Value(D.Type);
  case PI_DEVICE_INFO_VENDOR_ID:
    return Value(D.VendorId);
  case PI_DEVICE_INFO_MAX_COMPUTE_UNITS:
    return Value(D.ComputeUnits);
  case PI_DEVICE_INFO_MAX_WORK_GROUP_SIZE:
    return Value(D.MaxWorkGroupSize);
  case PI_DEVICE_INFO_GLOBAL_MEM_SIZE:
    return Value(D.GlobalMemSize);
  case PI_DEVICE_INFO_DOUBLE_FP_CONFIG:
    return Value(D.DoubleFpConfig);
  case PI_DEVICE_INFO_HALF_FP_CONFIG:
    return Value(D.HalfFpConfig);
  case PI_DEVICE_INFO_AVAILABLE:
    return Bool(true);
  case PI_DEVICE_INFO_COMPILER_AVAILABLE:
    return Bool(D.CompilerAvailable);
  case PI_DEVICE_INFO_LINKER_AVAILABLE:
    return Bool(D.LinkerAvailable);
  case PI_EXT_DEVICE_INFO_EXECUTES_KERNELS:
    return Bool(D.ExecutesKernels);
  case PI_DEVICE_INFO_NAME:
    return String(D.Name);
  case PI_DEVICE_INFO_VENDOR:
    return String(D.Vendor);
  case PI_DEVICE_INFO_DRIVER_VERSION:
    return String(D.DriverVersion);
  case PI_DEVICE_INFO_VERSION:
    return String(D.Version);
  case PI_DEVICE_INFO_EXTENSIONS:
    return String(D.Extensions);
  case PI_DEVICE_INFO_PLATFORM:
    return Value(static_cast<pi_platform>(Device->Platform));
  case PI_DEVICE_INFO_IL_VERSION:
    return String(D.IlVersion);
  case PI_DEVICE_INFO_REFERENCE_COUNT:
    return Value(pi_uint32{1}); // root devices live as long as the process
  case PI_EXT_DEVICE_INFO_LINK_FORMATS:
    return String(D.LinkFormats);
  case PI_EXT_DEVICE_INFO_IMAGE_FORMATS:
    return String(D.ImageFormats);
  case PI_DEVICE_INFO_USM_HOST_SUPPORT:
    return Value(D.HostUsm);
  case PI_DEVICE_INFO_USM_DEVICE_SUPPORT:
    return Value(D.DeviceUsm);
  case PI_DEVICE_INFO_USM_SINGLE_SHARED_SUPPORT:
    return Value(D.SharedUsm);
  case PI_EXT_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM:
    return Value(D.DeviceGlobal);
  case PI_EXT_DEVICE_INFO_USM_MECHANISM:
    return Value(D.Usm);
  case PI_EXT_DEVICE_INFO_BACKEND_NAME:
    return String(backend().name());
  case PI_DEVICE_INFO_MAX_WORK_ITEM_DIMENSIONS:
    return Value(pi_uint32{3});
  case PI_DEVICE_INFO_MAX_WORK_ITEM_SIZES:
    return dglink::returnInfoBytes(D.MaxWorkItemSizes, sizeof(D.MaxWorkItemSizes), ParamValueSize,
                                   ParamValue, ParamValueSizeRet);
  case PI_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_CHAR:
    return Value(D.VectorWidths.Preferred[static_cast<size_t>(VectorType::Char)]);
  case PI_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_SHORT:
    return Value(D.VectorWidths.Preferred[static_cast<size_t>(VectorType::Short)]);
  case PI_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_INT:
    return Value(D.VectorWidths.Preferred[static_cast<size_t>(VectorType::Int)]);
  case PI_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_LONG:
    return Value(D.VectorWidths.Preferred[static_cast<size_t>(VectorType::Long)]);
  case PI_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_FLOAT:
    return Value(D.VectorWidths.Preferred[static_cast<size_t>(VectorType::Float)]);
  case PI_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_DOUBLE:
    return Value(D.VectorWidths.Preferred[static_cast<size_t>(VectorType::Double)]);
  case PI_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_HALF:
    return Value(D.VectorWidths.Preferred[static_cast<size_t>(VectorType::Half)]);
  case PI_DEVICE_INFO_NATIVE_VECTOR_WIDTH_CHAR:
    return Value(D.VectorWidths.Native[static_cast<size_t>(VectorType::Char)]);
  case PI_DEVICE_INFO_NATIVE_VECTOR_WIDTH_SHORT:
    return Value(D.VectorWidths.Native[static_cast<size_t>(VectorType::Short)]);
  case PI_DEVICE_INFO_NATIVE_VECTOR_WIDTH_INT:
    return Value(D.VectorWidths.Native[static_cast<size_t>(VectorType::Int)]);
  case PI_DEVICE_INFO_NATIVE_VECTOR_WIDTH_LONG:
    return Value(D.VectorWidths.Native[static_cast<size_t>(VectorType::Long)]);
  case PI_DEVICE_INFO_NATIVE_VECTOR_WIDTH_FLOAT:
    return Value(D.VectorWidths.Native[static_cast<size_t>(VectorType::Float)]);
  case PI_DEVICE_INFO_NATIVE_VECTOR_WIDTH_DOUBLE:
    return Value(D.VectorWidths.Native[static_cast<size_t>(VectorType::Double)]);
  case PI_DEVICE_INFO_NATIVE_VECTOR_WIDTH_HALF:
    return Value(D.VectorWidths.Native[static_cast<size_t>(VectorType::Half)]);
  case PI_DEVICE_INFO_MAX_CLOCK_FREQUENCY:
    return Value(D.Limits.MaxClockFrequency);
  case PI_DEVICE_INFO_ADDRESS_BITS:
    return Value(pi_uint32{64});
  case PI_DEVICE_INFO_MAX_MEM_ALLOC_SIZE:
    return Value(D.Memory.MaxAllocSize);
  case PI_DEVICE_INFO_IMAGE_SUPPORT:
    return Bool(false); // PI has no image entry points (images: the UR face, image.cpp)
  case PI_DEVICE_INFO_MAX_PARAMETER_SIZE:
    return Value(D.Limits.MaxParameterSize);
  case PI_DEVICE_INFO_MEM_BASE_ADDR_ALIGN:
    return Value(D.Memory.BaseAddressAlignBits);
  case PI_DEVICE_INFO_SINGLE_FP_CONFIG:
    return Value(D.Limits.SingleFpConfig);
  case PI_DEVICE_INFO_GLOBAL_MEM_CACHE_TYPE:
    return Value(static_cast<pi_device_mem_cache_type>(D.Memory.GlobalCacheType));
  case PI_DEVICE_INFO_GLOBAL_MEM_CACHELINE_SIZE:
    return Value(D.Memory.GlobalCacheLineSize);
  case PI_DEVICE_INFO_GLOBAL_MEM_CACHE_SIZE:
    return Value(D.Memory.GlobalCacheSize);
  case PI_DEVICE_INFO_MAX_CONSTANT_BUFFER_SIZE:
    return Value(D.Memory.MaxConstantBufferSize);
  case PI_DEVICE_INFO_MAX_CONSTANT_ARGS:
    return Value(D.Limits.MaxConstantArgs);
  case PI_DEVICE_INFO_LOCAL_MEM_TYPE:
    return Value(static_cast<pi_device_local_mem_type>(D.Memory.LocalMemType));
  case PI_DEVICE_INFO_LOCAL_MEM_SIZE:
    return Value(D.Memory.LocalMemSize);
  case PI_DEVICE_INFO_ERROR_CORRECTION_SUPPORT:
    return Bool(D.Memory.ErrorCorrection);
  case PI_DEVICE_INFO_PROFILING_TIMER_RESOLUTION:
    return Value(D.Limits.ProfilingTimerResolution);
  case PI_DEVICE_INFO_ENDIAN_LITTLE:
    return Bool(true);
  case PI_DEVICE_INFO_EXECUTION_CAPABILITIES:
    return Value(D.Limits.ExecutionCapabilities);
  case PI_DEVICE_INFO_HOST_UNIFIED_MEMORY:
    return Bool(servesHostUnifiedMemory(D.Memory));
  case PI_DEVICE_INFO_PREFERRED_INTEROP_USER_SYNC:
    return Bool(false); // no interop objects are shared through the adapters
  case PI_DEVICE_INFO_PRINTF_BUFFER_SIZE:
    return Value(D.Limits.PrintfBufferSize);
  case PI_DEVICE_INFO_MAX_NUM_SUB_GROUPS:
    return Value(D.Limits.MaxNumSubGroups);
  case PI_DEVICE_INFO_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS:
    return Bool(D.Limits.SubGroupIndependentForwardProgress);
  case PI_DEVICE_INFO_SUB_GROUP_SIZES_INTEL: {
    // OpenCL's (and PI's) sizes are size_t.
    const std::vector<size_t> Sizes(D.Limits.SubGroupSizes.begin(), D.Limits.SubGroupSizes.end());
    return dglink::returnInfoArray(Sizes, ParamValueSize, ParamValue, ParamValueSizeRet);
  }
  case PI_DEVICE_INFO_ATOMIC_64:
    return Bool(D.Atomics.Int64);
  case PI_DEVICE_INFO_ATOMIC_MEMORY_ORDER_CAPABILITIES:
    return Value(D.Atomics.MemoryOrders);
  case PI_DEVICE_INFO_ATOMIC_MEMORY_SCOPE_CAPABILITIES:
    return Value(D.Atomics.MemoryScopes);
  case PI_EXT_ONEAPI_DEVICE_INFO_MAX_GLOBAL_WORK_GROUPS:
    return Value(D.Limits.totalWorkGroups());
  case PI_EXT_ONEAPI_DEVICE_INFO_MAX_WORK_GROUPS_3D:
    return dglink::returnInfoBytes(D.Limits.MaxWorkGroups, sizeof(D.Limits.MaxWorkGroups),
                                   ParamValueSize, ParamValue, ParamValueSizeRet);
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "piDeviceGetInfo: unknown parameter {:#x}",
                      static_cast<unsigned>(ParamName));
}
DGLINK_CATCH_ALL

// Root devices live as long as the process: retain and release only check.
PI_API_EXPORT pi_result piDeviceRetain(pi_device Device) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piDeviceRelease(pi_device Device) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Device, PI_ERROR_INVALID_DEVICE);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

} // extern "C"

// Test-only: the fault-injection hook of handles.h, for tests that load the adapter.
extern "C" PI_API_EXPORT void dglinkTestArmAllocationFailure(unsigned N) {
  dglink::core::armAllocationFailure(N);
}
