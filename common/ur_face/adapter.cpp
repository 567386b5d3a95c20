// The adapter, its platforms and devices through UR: answered from what the core's
// backend found at discovery, as piPlatformsGet / piDeviceGetInfo answer it.
#include "entry_points.h"
#include "nvml.h"

#include <dglink/ur_ext.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>

namespace dglink::ur {

namespace {

// OpenCL's cl_device_fp_config bits (PI's DOUBLE_FP_CONFIG, HALF_FP_CONFIG) as UR's.
ur_device_fp_capability_flags_t fpFlags(pi_bitfield Cl) {
  ur_device_fp_capability_flags_t Flags = 0;
  const std::pair<pi_bitfield, ur_device_fp_capability_flags_t> Pairs[] = {
      {1U << 0, UR_DEVICE_FP_CAPABILITY_FLAG_DENORM},
      {1U << 1, UR_DEVICE_FP_CAPABILITY_FLAG_INF_NAN},
      {1U << 2, UR_DEVICE_FP_CAPABILITY_FLAG_ROUND_TO_NEAREST},
      {1U << 3, UR_DEVICE_FP_CAPABILITY_FLAG_ROUND_TO_ZERO},
      {1U << 4, UR_DEVICE_FP_CAPABILITY_FLAG_ROUND_TO_INF},
      {1U << 5, UR_DEVICE_FP_CAPABILITY_FLAG_FMA},
      {1U << 6, UR_DEVICE_FP_CAPABILITY_FLAG_SOFT_FLOAT},
      {1U << 7, UR_DEVICE_FP_CAPABILITY_FLAG_CORRECTLY_ROUNDED_DIVIDE_SQRT}};
  for (const auto &[Bit, Flag] : Pairs)
    if ((Cl & Bit) != 0)
      Flags |= Flag;
  return Flags;
}

ur_device_usm_access_capability_flags_t usmFlags(pi_usm_capabilities Pi) {
  ur_device_usm_access_capability_flags_t Flags = 0;
  if ((Pi & PI_USM_ACCESS) != 0)
    Flags |= UR_DEVICE_USM_ACCESS_CAPABILITY_FLAG_ACCESS;
  if ((Pi & PI_USM_ATOMIC_ACCESS) != 0)
    Flags |= UR_DEVICE_USM_ACCESS_CAPABILITY_FLAG_ATOMIC_ACCESS;
  return Flags;
}

// PI's memory order and scope bits are UR's (pi.h).
static_assert(PI_MEMORY_ORDER_SEQ_CST == UR_MEMORY_ORDER_CAPABILITY_FLAG_SEQ_CST &&
                  PI_MEMORY_ORDER_ACQ_REL == UR_MEMORY_ORDER_CAPABILITY_FLAG_ACQ_REL &&
                  PI_MEMORY_SCOPE_SYSTEM == UR_MEMORY_SCOPE_CAPABILITY_FLAG_SYSTEM &&
                  PI_MEMORY_SCOPE_WORK_ITEM == UR_MEMORY_SCOPE_CAPABILITY_FLAG_WORK_ITEM,
              "PI and UR number atomic capabilities alike");
static_assert(static_cast<int>(PI_DEVICE_MEM_CACHE_TYPE_READ_WRITE_CACHE) ==
                      static_cast<int>(UR_DEVICE_MEM_CACHE_TYPE_READ_WRITE_CACHE) &&
                  static_cast<int>(PI_DEVICE_LOCAL_MEM_TYPE_GLOBAL) ==
                      static_cast<int>(UR_DEVICE_LOCAL_MEM_TYPE_GLOBAL) &&
                  PI_EXEC_NATIVE_KERNEL == UR_DEVICE_EXEC_CAPABILITY_FLAG_NATIVE_KERNEL,
              "PI's (OpenCL's) and UR's memory types and execution capabilities agree");

// One of the device's vector widths: UR's queries come in OpenCL's order of types,
// except long long (UR's own name for long).
uint32_t vectorWidth(const dglink::core::DeviceVectorWidths &Widths, uint32_t Name) {
  using dglink::core::VectorType;
  const bool Native = (Name >= UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_CHAR &&
                       Name <= UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_HALF) ||
                      Name == UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_LONG_LONG;
  VectorType Type = VectorType::Long;
  if (Name != UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_LONG_LONG &&
      Name != UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_LONG_LONG)
    Type = static_cast<VectorType>(Name - (Native ? UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_CHAR
                                                  : UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_CHAR));
  const size_t Index = static_cast<size_t>(Type);
  return Native ? Widths.Native[Index] : Widths.Preferred[Index];
}

ur_device_type_t deviceType(pi_device_type Type) {
  if ((Type & PI_DEVICE_TYPE_CPU) != 0)
    return UR_DEVICE_TYPE_CPU;
  if ((Type & PI_DEVICE_TYPE_ACC) != 0)
    return UR_DEVICE_TYPE_FPGA;
  return UR_DEVICE_TYPE_GPU;
}

bool contains(const std::string &Words, const std::string &Word) {
  for (const std::string &Each : splitOnSpaces(Words))
    if (Each == Word)
      return true;
  return false;
}

// UR's management queries, answered by NVML where it knows the device (nvml.h).
ur_result_t managementReading(const InfoAnswer &Answer, const std::string &PciAddress,
                              ur_device_info_t Name) {
  nvml::Reading What = nvml::Reading::ThrottleReasons;
  if (Name == UR_DEVICE_INFO_FAN_SPEED)
    What = nvml::Reading::FanSpeedPercent;
  else if (Name == UR_DEVICE_INFO_MIN_POWER_LIMIT)
    What = nvml::Reading::MinPowerLimitMilliwatts;
  else if (Name == UR_DEVICE_INFO_MAX_POWER_LIMIT)
    What = nvml::Reading::MaxPowerLimitMilliwatts;
  int64_t Value = 0;
  // Unanswered or failed: the last error says why (NVML's own words where it answered).
  if (const ur_result_t Read = nvml::read(PciAddress, What, Value); Read != UR_RESULT_SUCCESS)
    return Read;
  if (What == nvml::Reading::ThrottleReasons)
    return Answer.value(static_cast<ur_device_throttle_reasons_flags_t>(Value));
  // Percent and milliwatts are int32_t in UR's spec.
  return Answer.value(static_cast<int32_t>(Value));
}

} // namespace

std::vector<std::string> splitOnSpaces(const std::string &Text) {
  std::vector<std::string> Words;
  size_t Start = 0;
  while (Start < Text.size()) {
    const size_t End = Text.find(' ', Start);
    const size_t Stop = End == std::string::npos ? Text.size() : End;
    if (Stop > Start)
      Words.push_back(Text.substr(Start, Stop - Start));
    Start = Stop + 1;
  }
  return Words;
}

ur_adapter_handle_t adapterHandle() {
  static ur_adapter_handle_t_ Adapter{&ddiTable()};
  return &Adapter;
}

// ---- adapter ----

ur_result_t urAdapterGet(uint32_t NumEntries, ur_adapter_handle_t *phAdapters,
                         uint32_t *pNumAdapters) try {
  if (phAdapters != nullptr && NumEntries == 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE,
                  "{}: 'NumEntries' is 0 but 'phAdapters' is not null", __func__);
  if (phAdapters != nullptr) {
    phAdapters[0] = adapterHandle();
    adapterHandle()->RefCount.fetch_add(1);
  }
  if (pNumAdapters != nullptr)
    *pNumAdapters = 1;
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urAdapterRetain(ur_adapter_handle_t hAdapter) try {
  DGLINK_UR_NOT_NULL_HANDLE(hAdapter);
  hAdapter->RefCount.fetch_add(1);
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

// The adapter's platforms and devices live as long as the process: the last release
// tears down what the backend keeps for the process, as piTearDown does.
ur_result_t urAdapterRelease(ur_adapter_handle_t hAdapter) try {
  DGLINK_UR_NOT_NULL_HANDLE(hAdapter);
  uint32_t Count = hAdapter->RefCount.load();
  do {
    if (Count == 0)
      return failUr(UR_RESULT_ERROR_INVALID_NULL_HANDLE, "{}: the adapter has no reference left",
                    __func__);
  } while (!hAdapter->RefCount.compare_exchange_weak(Count, Count - 1));
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urAdapterGetLastError(ur_adapter_handle_t hAdapter, const char **ppMessage,
                                  int32_t *pError) try {
  DGLINK_UR_NOT_NULL_HANDLE(hAdapter);
  DGLINK_UR_NOT_NULL_POINTER(ppMessage);
  DGLINK_UR_NOT_NULL_POINTER(pError);
  *ppMessage = dglink::lastErrorMessage().c_str();
  *pError = static_cast<int32_t>(dglink::lastErrorCode());
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urAdapterGetInfo(ur_adapter_handle_t hAdapter, ur_adapter_info_t propName,
                             size_t propSize, void *pPropValue, size_t *pPropSizeRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hAdapter);
  const InfoAnswer Answer(__func__, propSize, pPropValue, pPropSizeRet);
  if (const ur_result_t Checked = Answer.check(); Checked != UR_RESULT_SUCCESS)
    return Checked;
  switch (propName) {
  case UR_ADAPTER_INFO_BACKEND:
    return Answer.value(backendOf(dglink::core::backend().name()));
  case UR_ADAPTER_INFO_REFERENCE_COUNT:
    return Answer.value(hAdapter->RefCount.load());
  case UR_ADAPTER_INFO_VERSION:
    return Answer.value(uint32_t{1});
  default:
    break;
  }
  return Answer.unsupported(propName);
}
DGLINK_UR_CATCH_ALL

// ---- platform ----

ur_result_t urPlatformGet(ur_adapter_handle_t hAdapter, uint32_t NumEntries,
                          ur_platform_handle_t *phPlatforms, uint32_t *pNumPlatforms) try {
  DGLINK_UR_NOT_NULL_HANDLE(hAdapter);
  if (phPlatforms == nullptr && pNumPlatforms == nullptr)
    return failUr(UR_RESULT_ERROR_INVALID_NULL_POINTER,
                  "{}: arguments 'phPlatforms' and 'pNumPlatforms' are both null", __func__);
  if (phPlatforms != nullptr && NumEntries == 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE,
                  "{}: 'NumEntries' is 0 but 'phPlatforms' is not null", __func__);
  pi_uint32 Count = 0;
  DGLINK_UR_TRY(piPlatformsGet(0, nullptr, &Count));
  if (pNumPlatforms != nullptr)
    *pNumPlatforms = Count;
  if (phPlatforms != nullptr && Count != 0) {
    std::vector<pi_platform> All(Count);
    DGLINK_UR_TRY(piPlatformsGet(Count, All.data(), nullptr));
    for (uint32_t I = 0; I < NumEntries && I < Count; ++I)
      phPlatforms[I] = face(All[I]);
  }
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urPlatformGetInfo(ur_platform_handle_t hPlatform, ur_platform_info_t propName,
                              size_t propSize, void *pPropValue, size_t *pPropSizeRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hPlatform);
  DGLINK_UR_CHECK(hPlatform, PI_ERROR_INVALID_PLATFORM);
  const InfoAnswer Answer(__func__, propSize, pPropValue, pPropSizeRet);
  if (const ur_result_t Checked = Answer.check(); Checked != UR_RESULT_SUCCESS)
    return Checked;
  const dglink::core::PlatformDescription &D = core(hPlatform)->Description;
  switch (propName) {
  case UR_PLATFORM_INFO_NAME:
    return Answer.string(D.Name);
  case UR_PLATFORM_INFO_VENDOR_NAME:
    return Answer.string(D.Vendor);
  case UR_PLATFORM_INFO_VERSION:
    return Answer.string(D.Version);
  case UR_PLATFORM_INFO_EXTENSIONS:
    return Answer.string(D.Extensions);
  case UR_PLATFORM_INFO_PROFILE:
    return Answer.string(D.Profile);
  case UR_PLATFORM_INFO_BACKEND:
    return Answer.value(backendOf(dglink::core::backend().name()));
  case UR_PLATFORM_INFO_ADAPTER:
    return Answer.value(adapterHandle());
  default:
    break;
  }
  return Answer.unsupported(propName);
}
DGLINK_UR_CATCH_ALL

ur_result_t urPlatformGetApiVersion(ur_platform_handle_t hPlatform,
                                    ur_api_version_t *pVersion) try {
  DGLINK_UR_NOT_NULL_HANDLE(hPlatform);
  DGLINK_UR_NOT_NULL_POINTER(pVersion);
  DGLINK_UR_CHECK(hPlatform, PI_ERROR_INVALID_PLATFORM);
  *pVersion = UR_API_VERSION_CURRENT;
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

// The SYCL runtime's optimisation options are the drivers' as they are; any other
// frontend option has no backend spelling here.
ur_result_t urPlatformGetBackendOption(ur_platform_handle_t hPlatform, const char *pFrontendOption,
                                       const char **ppPlatformOption) try {
  DGLINK_UR_NOT_NULL_HANDLE(hPlatform);
  DGLINK_UR_NOT_NULL_POINTER(pFrontendOption);
  DGLINK_UR_NOT_NULL_POINTER(ppPlatformOption);
  const std::string Option = pFrontendOption;
  if (Option == "-O0" || Option == "-O1" || Option == "-O2" || Option == "-O3") {
    *ppPlatformOption = Option == "-O0" ? "-cl-opt-disable" : "";
    return UR_RESULT_SUCCESS;
  }
  return failUr(UR_RESULT_ERROR_INVALID_VALUE, "{}: no backend option for '{}'", __func__,
                dglink::clip(pFrontendOption));
}
DGLINK_UR_CATCH_ALL

// ---- device ----

ur_result_t urDeviceGet(ur_platform_handle_t hPlatform, ur_device_type_t DeviceType,
                        uint32_t NumEntries, ur_device_handle_t *phDevices,
                        uint32_t *pNumDevices) try {
  DGLINK_UR_NOT_NULL_HANDLE(hPlatform);
  if (phDevices == nullptr && pNumDevices == nullptr)
    return failUr(UR_RESULT_ERROR_INVALID_NULL_POINTER,
                  "{}: arguments 'phDevices' and 'pNumDevices' are both null", __func__);
  if (phDevices != nullptr && NumEntries == 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE, "{}: 'NumEntries' is 0 but 'phDevices' is not null",
                  __func__);
  pi_device_type Type = 0;
  switch (DeviceType) {
  case UR_DEVICE_TYPE_ALL:
    Type = PI_DEVICE_TYPE_ALL;
    break;
  case UR_DEVICE_TYPE_DEFAULT:
    Type = PI_DEVICE_TYPE_DEFAULT;
    break;
  case UR_DEVICE_TYPE_GPU:
    Type = PI_DEVICE_TYPE_GPU;
    break;
  case UR_DEVICE_TYPE_CPU:
    Type = PI_DEVICE_TYPE_CPU;
    break;
  case UR_DEVICE_TYPE_FPGA:
    Type = PI_DEVICE_TYPE_ACC;
    break;
  case UR_DEVICE_TYPE_MCA:
  case UR_DEVICE_TYPE_VPU:
  case UR_DEVICE_TYPE_CUSTOM:
    // Kinds no dglink backend has: none of them.
    DGLINK_UR_CHECK(hPlatform, PI_ERROR_INVALID_PLATFORM);
    if (pNumDevices != nullptr)
      *pNumDevices = 0;
    return UR_RESULT_SUCCESS;
  default:
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: DeviceType {:#x} is not a device type",
                  __func__, static_cast<unsigned>(DeviceType));
  }
  pi_uint32 Count = 0;
  DGLINK_UR_TRY(piDevicesGet(core(hPlatform), Type, 0, nullptr, &Count));
  if (pNumDevices != nullptr)
    *pNumDevices = Count;
  if (phDevices != nullptr && Count != 0) {
    std::vector<pi_device> All(Count);
    DGLINK_UR_TRY(piDevicesGet(core(hPlatform), Type, Count, All.data(), nullptr));
    for (uint32_t I = 0; I < NumEntries && I < Count; ++I)
      phDevices[I] = face(All[I]);
  }
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urDeviceGetInfo(ur_device_handle_t hDevice, ur_device_info_t propName, size_t propSize,
                            void *pPropValue, size_t *pPropSizeRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hDevice);
  DGLINK_UR_CHECK(hDevice, PI_ERROR_INVALID_DEVICE);
  const InfoAnswer Answer(__func__, propSize, pPropValue, pPropSizeRet);
  if (const ur_result_t Checked = Answer.check(); Checked != UR_RESULT_SUCCESS)
    return Checked;
  const _pi_device &Device = *core(hDevice);
  const dglink::core::DeviceDescription &D = Device.Description;
  switch (static_cast<uint32_t>(propName)) {
  case UR_DEVICE_INFO_TYPE:
    return Answer.value(deviceType(D.Type));
  case UR_DEVICE_INFO_VENDOR_ID:
    return Answer.value(uint32_t{D.VendorId});
  case UR_DEVICE_INFO_DEVICE_ID:
    return Answer.value(uint32_t{0});
  case UR_DEVICE_INFO_MAX_COMPUTE_UNITS:
  case UR_DEVICE_INFO_NUM_COMPUTE_UNITS:
    return Answer.value(uint32_t{D.ComputeUnits});
  case UR_DEVICE_INFO_MAX_WORK_ITEM_DIMENSIONS:
    return Answer.value(uint32_t{3});
  case UR_DEVICE_INFO_MAX_WORK_ITEM_SIZES:
    return Answer.bytes(D.MaxWorkItemSizes, sizeof(D.MaxWorkItemSizes));
  case UR_DEVICE_INFO_MAX_WORK_GROUP_SIZE:
    return Answer.value(D.MaxWorkGroupSize);
  case UR_DEVICE_INFO_DOUBLE_FP_CONFIG:
    return Answer.value(fpFlags(D.DoubleFpConfig));
  case UR_DEVICE_INFO_SINGLE_FP_CONFIG:
    return Answer.value(fpFlags(D.Limits.SingleFpConfig));
  case UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_CHAR:
  case UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_SHORT:
  case UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_INT:
  case UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_LONG:
  case UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_FLOAT:
  case UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_DOUBLE:
  case UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_HALF:
  case UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_LONG_LONG:
  case UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_CHAR:
  case UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_SHORT:
  case UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_INT:
  case UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_LONG:
  case UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_FLOAT:
  case UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_DOUBLE:
  case UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_HALF:
  case UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_LONG_LONG:
    return Answer.value(vectorWidth(D.VectorWidths, propName));
  // ---- limits of kernels and launches
  case UR_DEVICE_INFO_MAX_CLOCK_FREQUENCY:
    return Answer.value(uint32_t{D.Limits.MaxClockFrequency});
  case UR_DEVICE_INFO_MAX_WORK_GROUPS_3D:
    return Answer.bytes(D.Limits.MaxWorkGroups, sizeof(D.Limits.MaxWorkGroups));
  case UR_DEVICE_INFO_MAX_WORK_GROUPS:
    return Answer.value(D.Limits.totalWorkGroups());
  case UR_DEVICE_INFO_MAX_PARAMETER_SIZE:
    return Answer.value(D.Limits.MaxParameterSize);
  case UR_DEVICE_INFO_MAX_CONSTANT_ARGS:
    return Answer.value(uint32_t{D.Limits.MaxConstantArgs});
  case UR_DEVICE_INFO_PRINTF_BUFFER_SIZE:
    return Answer.value(D.Limits.PrintfBufferSize);
  case UR_DEVICE_INFO_PROFILING_TIMER_RESOLUTION:
    return Answer.value(D.Limits.ProfilingTimerResolution);
  case UR_DEVICE_INFO_MAX_NUM_SUB_GROUPS:
    return Answer.value(uint32_t{D.Limits.MaxNumSubGroups});
  case UR_DEVICE_INFO_SUB_GROUP_SIZES_INTEL:
    return Answer.array(D.Limits.SubGroupSizes);
  case UR_DEVICE_INFO_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS:
    return Answer.boolean(D.Limits.SubGroupIndependentForwardProgress);
  case UR_DEVICE_INFO_EXECUTION_CAPABILITIES:
    return Answer.value(static_cast<ur_device_exec_capability_flags_t>(
        D.Limits.ExecutionCapabilities & (PI_EXEC_KERNEL | PI_EXEC_NATIVE_KERNEL)));
  case UR_DEVICE_INFO_ASYNC_BARRIER:
    return Answer.boolean(D.Limits.AsyncBarrier);
  case UR_DEVICE_INFO_BFLOAT16_CONVERSIONS_NATIVE:
    return Answer.boolean(D.Limits.Bfloat16Conversions);
  case UR_DEVICE_INFO_ESIMD_SUPPORT:
    return Answer.boolean(D.Limits.Esimd);
  case UR_DEVICE_INFO_MAX_COMPUTE_QUEUE_INDICES:
    return Answer.value(uint32_t{1}); // no backend here has a notion of queue indices
  case UR_DEVICE_INFO_KERNEL_LAUNCH_CAPABILITIES:
    // Cooperative launches where the driver has them (core::enqueueLaunch); no cluster,
    // work-group memory or queue-serialization properties.
    return Answer.value(static_cast<ur_kernel_launch_properties_flags_t>(
        D.CooperativeLaunch ? UR_KERNEL_LAUNCH_PROPERTIES_FLAG_COOPERATIVE : 0));
  // ---- memory
  case UR_DEVICE_INFO_MAX_MEM_ALLOC_SIZE:
    return Answer.value(uint64_t{D.Memory.MaxAllocSize});
  case UR_DEVICE_INFO_MEM_BASE_ADDR_ALIGN:
    return Answer.value(uint32_t{D.Memory.BaseAddressAlignBits});
  case UR_DEVICE_INFO_GLOBAL_MEM_CACHE_TYPE:
    return Answer.value(static_cast<ur_device_mem_cache_type_t>(D.Memory.GlobalCacheType));
  case UR_DEVICE_INFO_GLOBAL_MEM_CACHELINE_SIZE:
    return Answer.value(uint32_t{D.Memory.GlobalCacheLineSize});
  case UR_DEVICE_INFO_GLOBAL_MEM_CACHE_SIZE:
    return Answer.value(uint64_t{D.Memory.GlobalCacheSize});
  case UR_DEVICE_INFO_MAX_CONSTANT_BUFFER_SIZE:
    return Answer.value(uint64_t{D.Memory.MaxConstantBufferSize});
  case UR_DEVICE_INFO_LOCAL_MEM_TYPE:
    return Answer.value(static_cast<ur_device_local_mem_type_t>(D.Memory.LocalMemType));
  case UR_DEVICE_INFO_LOCAL_MEM_SIZE:
    return Answer.value(uint64_t{D.Memory.LocalMemSize});
  case UR_DEVICE_INFO_ERROR_CORRECTION_SUPPORT:
    return Answer.boolean(D.Memory.ErrorCorrection);
  case UR_DEVICE_INFO_HOST_UNIFIED_MEMORY:
    return Answer.boolean(dglink::core::servesHostUnifiedMemory(D.Memory));
  case UR_DEVICE_INFO_IS_INTEGRATED_GPU:
    return Answer.boolean(D.IntegratedGpu);
  case UR_DEVICE_INFO_MEM_CHANNEL_SUPPORT:
    // urMemBufferCreate takes no channel property here.
    return Answer.boolean(false);
  // ---- atomics
  case UR_DEVICE_INFO_ATOMIC_64:
    return Answer.boolean(D.Atomics.Int64);
  case UR_DEVICE_INFO_ATOMIC_MEMORY_ORDER_CAPABILITIES:
    return Answer.value(static_cast<ur_memory_order_capability_flags_t>(D.Atomics.MemoryOrders));
  case UR_DEVICE_INFO_ATOMIC_MEMORY_SCOPE_CAPABILITIES:
    return Answer.value(static_cast<ur_memory_scope_capability_flags_t>(D.Atomics.MemoryScopes));
  case UR_DEVICE_INFO_ATOMIC_FENCE_ORDER_CAPABILITIES:
    return Answer.value(static_cast<ur_memory_order_capability_flags_t>(D.Atomics.FenceOrders));
  case UR_DEVICE_INFO_ATOMIC_FENCE_SCOPE_CAPABILITIES:
    return Answer.value(static_cast<ur_memory_scope_capability_flags_t>(D.Atomics.FenceScopes));
  // ---- images (the driver's limits where the backend serves images; 0 elsewhere)
  case UR_DEVICE_INFO_IMAGE_SUPPORT:
    return Answer.boolean(D.Images.Supported);
  case UR_DEVICE_INFO_MAX_READ_IMAGE_ARGS:
    return Answer.value(uint32_t{D.Images.MaxReadArgs});
  case UR_DEVICE_INFO_MAX_WRITE_IMAGE_ARGS:
    return Answer.value(uint32_t{D.Images.MaxWriteArgs});
  case UR_DEVICE_INFO_MAX_READ_WRITE_IMAGE_ARGS:
    return Answer.value(uint32_t{D.Images.MaxReadWriteArgs});
  case UR_DEVICE_INFO_MAX_SAMPLERS:
    return Answer.value(uint32_t{D.Images.MaxSamplers});
  case UR_DEVICE_INFO_IMAGE2D_MAX_WIDTH:
    return Answer.value(D.Images.Max2D[0]);
  case UR_DEVICE_INFO_IMAGE2D_MAX_HEIGHT:
    return Answer.value(D.Images.Max2D[1]);
  case UR_DEVICE_INFO_IMAGE3D_MAX_WIDTH:
    return Answer.value(D.Images.Max3D[0]);
  case UR_DEVICE_INFO_IMAGE3D_MAX_HEIGHT:
    return Answer.value(D.Images.Max3D[1]);
  case UR_DEVICE_INFO_IMAGE3D_MAX_DEPTH:
    return Answer.value(D.Images.Max3D[2]);
  case UR_DEVICE_INFO_IMAGE_MAX_BUFFER_SIZE:
    return Answer.value(D.Images.MaxBufferSize);
  case UR_DEVICE_INFO_IMAGE_MAX_ARRAY_SIZE:
    return Answer.value(D.Images.MaxArraySize);
  case UR_DEVICE_INFO_IMAGE_SRGB:
    return Answer.boolean(false); // no backend claims sRGB image writes
  // ---- partitions: none (urDevicePartition is not served)
  case UR_DEVICE_INFO_PARTITION_AFFINITY_DOMAIN:
    return Answer.value(ur_device_affinity_domain_flags_t{0});
  case UR_DEVICE_INFO_PREFERRED_INTEROP_USER_SYNC:
    // No interop objects (OpenGL, DirectX) are shared through this face.
    return Answer.boolean(false);
  case UR_DEVICE_INFO_BACKEND_RUNTIME_VERSION:
    return Answer.string(D.RuntimeVersion);
  case UR_DEVICE_INFO_HALF_FP_CONFIG:
    return Answer.value(fpFlags(D.HalfFpConfig));
  case UR_DEVICE_INFO_GLOBAL_MEM_SIZE:
    return Answer.value(uint64_t{D.GlobalMemSize});
  case UR_DEVICE_INFO_ADDRESS_BITS:
    return Answer.value(uint32_t{64});
  case UR_DEVICE_INFO_ENDIAN_LITTLE:
  case UR_DEVICE_INFO_AVAILABLE:
    return Answer.boolean(true);
  case UR_DEVICE_INFO_COMPILER_AVAILABLE:
    return Answer.boolean(D.CompilerAvailable);
  case UR_DEVICE_INFO_LINKER_AVAILABLE:
    return Answer.boolean(D.LinkerAvailable);
  case UR_DEVICE_INFO_BUILD_ON_SUBDEVICE:
  case UR_DEVICE_INFO_HOST_PIPE_READ_WRITE_SUPPORT:
  case UR_DEVICE_INFO_KERNEL_SET_SPECIALIZATION_CONSTANTS:
  case UR_DEVICE_INFO_BINDLESS_IMAGES_SUPPORT_EXP:
  case UR_DEVICE_INFO_ENQUEUE_NATIVE_COMMAND_SUPPORT_EXP:
  case UR_DEVICE_INFO_LOW_POWER_EVENTS_SUPPORT_EXP:
  case UR_DEVICE_INFO_USM_P2P_SUPPORT_EXP:
  case UR_DEVICE_INFO_MULTI_DEVICE_COMPILE_SUPPORT_EXP:
  case UR_DEVICE_INFO_ASYNC_USM_ALLOCATIONS_SUPPORT_EXP:
  case UR_DEVICE_INFO_REUSABLE_EVENTS_SUPPORT_EXP:
  case UR_DEVICE_INFO_ENQUEUE_HOST_TASK_SUPPORT_EXP:
  case UR_DEVICE_INFO_USM_HOST_ALLOC_REGISTER_SUPPORT_EXP:
  case UR_DEVICE_INFO_GRAPH_RECORD_AND_REPLAY_SUPPORT_EXP:
  case UR_DEVICE_INFO_DEVICE_WAIT_SUPPORT_EXP:
  case UR_DEVICE_INFO_IPC_MEMORY_SUPPORT_EXP:
    // Features this face does not serve: their entry points answer UNSUPPORTED_FEATURE.
    return Answer.boolean(false);
  case UR_DEVICE_INFO_COMMAND_BUFFER_SUPPORT_EXP:
    // The core records and replays command buffers on every backend (command_buffer.h).
    return Answer.boolean(true);
  case UR_DEVICE_INFO_COMMAND_BUFFER_UPDATE_CAPABILITIES_EXP: {
    // The core updates a kernel launch's arguments, sizes and kernel, and a command's
    // events; a global offset where the backend launches with one (OpenCL; CUDA and HIP
    // for kernels with DPC++'s "<kernel>_with_offset" entry point).
    ur_device_command_buffer_update_capability_flags_t Flags =
        UR_DEVICE_COMMAND_BUFFER_UPDATE_CAPABILITY_FLAG_KERNEL_ARGUMENTS |
        UR_DEVICE_COMMAND_BUFFER_UPDATE_CAPABILITY_FLAG_LOCAL_WORK_SIZE |
        UR_DEVICE_COMMAND_BUFFER_UPDATE_CAPABILITY_FLAG_GLOBAL_WORK_SIZE |
        UR_DEVICE_COMMAND_BUFFER_UPDATE_CAPABILITY_FLAG_KERNEL_HANDLE |
        UR_DEVICE_COMMAND_BUFFER_UPDATE_CAPABILITY_FLAG_EVENTS;
    if (core::backend().globalOffsets())
      Flags |= UR_DEVICE_COMMAND_BUFFER_UPDATE_CAPABILITY_FLAG_GLOBAL_WORK_OFFSET;
    return Answer.value(Flags);
  }
  case UR_DEVICE_INFO_COMMAND_BUFFER_EVENT_SUPPORT_EXP:
    // Commands wait for events and signal their own (core::CommandEventImpl).
    return Answer.boolean(true);
  case UR_DEVICE_INFO_COMMAND_BUFFER_SUBGRAPH_SUPPORT_EXP:
    // No command buffer inside another.
    return Answer.boolean(false);
  case UR_DEVICE_INFO_TIMESTAMP_RECORDING_SUPPORT_EXP:
    // urEnqueueTimestampRecordingExp where the backend records the device's time on any
    // queue (CUDA and HIP: a timed event; core::QueueImpl::timestamp).
    return Answer.boolean(D.TimestampRecording);
  case UR_DEVICE_INFO_VIRTUAL_MEMORY_SUPPORT:
    // urVirtualMem* / urPhysicalMem* where the driver maps memory (core::ContextImpl).
    return Answer.boolean(D.VirtualMemory);
  case UR_DEVICE_INFO_USM_CONTEXT_MEMCPY_SUPPORT_EXP:
    // urUSMContextMemcpyExp is the core's blocking copy on a queue of its own: wherever
    // the device has USM to copy.
    return Answer.boolean(D.Usm != PI_USM_MECHANISM_NONE);
  // ---- what the driver states beyond the mandatory queries (UR's optional ones):
  // unanswered where it does not say
  case UR_DEVICE_INFO_UUID:
    if (D.Uuid.empty())
      return Answer.unsupported(propName);
    return Answer.array(D.Uuid);
  case UR_DEVICE_INFO_PCI_ADDRESS:
    if (D.PciAddress.empty())
      return Answer.unsupported(propName);
    return Answer.string(D.PciAddress);
  case UR_DEVICE_INFO_MEMORY_CLOCK_RATE:
    if (D.MemoryClockMHz == 0)
      return Answer.unsupported(propName);
    return Answer.value(uint32_t{D.MemoryClockMHz});
  case UR_DEVICE_INFO_MEMORY_BUS_WIDTH:
    if (D.MemoryBusWidthBits == 0)
      return Answer.unsupported(propName);
    return Answer.value(uint32_t{D.MemoryBusWidthBits});
  case UR_DEVICE_INFO_MAX_REGISTERS_PER_WORK_GROUP:
    if (D.MaxRegistersPerWorkGroup == 0)
      return Answer.unsupported(propName);
    return Answer.value(uint32_t{D.MaxRegistersPerWorkGroup});
  case UR_DEVICE_INFO_GLOBAL_MEM_FREE: {
    pi_uint64 Free = 0;
    if (Device.Impl == nullptr || !Device.Impl->freeMemory(Free))
      return Answer.unsupported(propName);
    return Answer.value(uint64_t{Free});
  }
  case UR_DEVICE_INFO_MAX_MEMORY_BANDWIDTH:
    if (D.MaxMemoryBandwidth == 0)
      return Answer.unsupported(propName);
    return Answer.value(uint64_t{D.MaxMemoryBandwidth});
  // What NVIDIA's management library says of the GPU at the device's PCI address (nvml.h).
  case UR_DEVICE_INFO_CURRENT_CLOCK_THROTTLE_REASONS:
  case UR_DEVICE_INFO_FAN_SPEED:
  case UR_DEVICE_INFO_MIN_POWER_LIMIT:
  case UR_DEVICE_INFO_MAX_POWER_LIMIT:
    return managementReading(Answer, D.PciAddress, propName);
  // ---- image and interop features the face does not serve (no urMemImageCreate, no
  // bindless images, no external memory): none of them, of no size
  case UR_DEVICE_INFO_IMAGE_PITCH_ALIGN_EXP:
  case UR_DEVICE_INFO_MIPMAP_MAX_ANISOTROPY_EXP:
    return Answer.value(uint32_t{0});
  case UR_DEVICE_INFO_MAX_IMAGE_LINEAR_WIDTH_EXP:
  case UR_DEVICE_INFO_MAX_IMAGE_LINEAR_HEIGHT_EXP:
  case UR_DEVICE_INFO_MAX_IMAGE_LINEAR_PITCH_EXP:
    return Answer.value(size_t{0});
  case UR_DEVICE_INFO_BINDLESS_IMAGES_SHARED_USM_SUPPORT_EXP:
  case UR_DEVICE_INFO_BINDLESS_IMAGES_1D_USM_SUPPORT_EXP:
  case UR_DEVICE_INFO_BINDLESS_IMAGES_2D_USM_SUPPORT_EXP:
  case UR_DEVICE_INFO_MIPMAP_SUPPORT_EXP:
  case UR_DEVICE_INFO_MIPMAP_ANISOTROPY_SUPPORT_EXP:
  case UR_DEVICE_INFO_MIPMAP_LEVEL_REFERENCE_SUPPORT_EXP:
  case UR_DEVICE_INFO_EXTERNAL_MEMORY_IMPORT_SUPPORT_EXP:
  case UR_DEVICE_INFO_EXTERNAL_SEMAPHORE_IMPORT_SUPPORT_EXP:
  case UR_DEVICE_INFO_CUBEMAP_SUPPORT_EXP:
  case UR_DEVICE_INFO_CUBEMAP_SEAMLESS_FILTERING_SUPPORT_EXP:
  case UR_DEVICE_INFO_BINDLESS_SAMPLED_IMAGE_FETCH_1D_USM_SUPPORT_EXP:
  case UR_DEVICE_INFO_BINDLESS_SAMPLED_IMAGE_FETCH_1D_SUPPORT_EXP:
  case UR_DEVICE_INFO_BINDLESS_SAMPLED_IMAGE_FETCH_2D_USM_SUPPORT_EXP:
  case UR_DEVICE_INFO_BINDLESS_SAMPLED_IMAGE_FETCH_2D_SUPPORT_EXP:
  case UR_DEVICE_INFO_BINDLESS_SAMPLED_IMAGE_FETCH_3D_SUPPORT_EXP:
  case UR_DEVICE_INFO_IMAGE_ARRAY_SUPPORT_EXP:
  case UR_DEVICE_INFO_BINDLESS_UNIQUE_ADDRESSING_PER_DIM_SUPPORT_EXP:
  case UR_DEVICE_INFO_BINDLESS_SAMPLE_1D_USM_SUPPORT_EXP:
  case UR_DEVICE_INFO_BINDLESS_SAMPLE_2D_USM_SUPPORT_EXP:
  case UR_DEVICE_INFO_IPC_PHYSICAL_MEMORY_SUPPORT_EXP:
    return Answer.boolean(false);
  case UR_DEVICE_INFO_2D_BLOCK_ARRAY_CAPABILITIES_EXP:
    // Intel's 2D block loads and stores: no device here has them.
    return Answer.value(ur_exp_device_2d_block_array_capability_flags_t{0});
  case UR_DEVICE_INFO_PROGRAM_SET_SPECIALIZATION_CONSTANTS:
    // Specialization constants are set in a SPIR-V module's words before it is built
    // (dglink::core::setSpecializationConstants): wherever the device takes SPIR-V,
    // translated or not.
    return Answer.boolean(contains(D.ImageFormats, "spirv64"));
  case UR_DEVICE_INFO_NAME:
    return Answer.string(D.Name);
  case UR_DEVICE_INFO_VENDOR:
    return Answer.string(D.Vendor);
  case UR_DEVICE_INFO_DRIVER_VERSION:
    return Answer.string(D.DriverVersion);
  case UR_DEVICE_INFO_VERSION:
    return Answer.string(D.Version);
  case UR_DEVICE_INFO_PROFILE:
    return Answer.string(Device.Platform->Description.Profile);
  case UR_DEVICE_INFO_EXTENSIONS:
    return Answer.string(D.Extensions);
  case UR_DEVICE_INFO_IL_VERSION:
    if (D.IlVersion.empty())
      return Answer.unsupported(propName); // UR: no IL, no answer
    return Answer.string(D.IlVersion);
  case UR_DEVICE_INFO_BUILT_IN_KERNELS:
    return Answer.string("");
  case UR_DEVICE_INFO_PLATFORM:
    return Answer.value(face(Device.Platform));
  case UR_DEVICE_INFO_REFERENCE_COUNT:
    return Answer.value(uint32_t{1}); // root devices live as long as the process
  case UR_DEVICE_INFO_PARENT_DEVICE:
    return Answer.value(ur_device_handle_t{nullptr});
  case UR_DEVICE_INFO_PARTITION_MAX_SUB_DEVICES:
    return Answer.value(uint32_t{0});
  case UR_DEVICE_INFO_SUPPORTED_PARTITIONS:
  case UR_DEVICE_INFO_PARTITION_TYPE:
    return Answer.bytes(nullptr, 0);
  case UR_DEVICE_INFO_USM_POOL_SUPPORT: // the core's pools serve every kind the device has
    return Answer.boolean((D.HostUsm | D.DeviceUsm | D.SharedUsm) != 0);
  case UR_DEVICE_INFO_USM_HOST_SUPPORT:
    return Answer.value(usmFlags(D.HostUsm));
  case UR_DEVICE_INFO_USM_DEVICE_SUPPORT:
    return Answer.value(usmFlags(D.DeviceUsm));
  case UR_DEVICE_INFO_USM_SINGLE_SHARED_SUPPORT:
    return Answer.value(usmFlags(D.SharedUsm));
  case UR_DEVICE_INFO_USM_CROSS_SHARED_SUPPORT:
  case UR_DEVICE_INFO_USM_SYSTEM_SHARED_SUPPORT:
    return Answer.value(ur_device_usm_access_capability_flags_t{0});
  case UR_DEVICE_INFO_QUEUE_PROPERTIES:
  case UR_DEVICE_INFO_QUEUE_ON_HOST_PROPERTIES:
    return Answer.value(ur_queue_flags_t{UR_QUEUE_FLAG_PROFILING_ENABLE});
  case UR_DEVICE_INFO_QUEUE_ON_DEVICE_PROPERTIES:
    return Answer.value(ur_queue_flags_t{0});
  case UR_DEVICE_INFO_GLOBAL_VARIABLE_SUPPORT:
    return Answer.boolean(D.DeviceGlobal != PI_DEVICE_GLOBAL_MECHANISM_NONE);
  case UR_DEVICE_INFO_DYNAMIC_LINK_SUPPORT_EXP:
    return Answer.boolean(!D.LinkFormats.empty());
  case UR_DEVICE_INFO_USE_NATIVE_ASSERT:
    return Answer.boolean(false);
  case DGLINK_UR_DEVICE_INFO_LINK_FORMATS:
    return Answer.string(D.LinkFormats);
  case DGLINK_UR_DEVICE_INFO_IMAGE_FORMATS:
    return Answer.string(D.ImageFormats);
  case DGLINK_UR_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM:
    return Answer.value(static_cast<uint32_t>(D.DeviceGlobal));
  case DGLINK_UR_DEVICE_INFO_USM_MECHANISM:
    return Answer.value(static_cast<uint32_t>(D.Usm));
  case DGLINK_UR_DEVICE_INFO_EXECUTES_KERNELS:
    return Answer.boolean(D.ExecutesKernels);
  case DGLINK_UR_DEVICE_INFO_BACKEND_NAME:
    return Answer.string(dglink::core::backend().name());
  default:
    break;
  }
  return Answer.unsupported(propName);
}
DGLINK_UR_CATCH_ALL

// Root devices live as long as the process: retain and release only check.
ur_result_t urDeviceRetain(ur_device_handle_t hDevice) try {
  DGLINK_UR_NOT_NULL_HANDLE(hDevice);
  DGLINK_UR_CORE(piDeviceRetain(core(hDevice)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urDeviceRelease(ur_device_handle_t hDevice) try {
  DGLINK_UR_NOT_NULL_HANDLE(hDevice);
  DGLINK_UR_CORE(piDeviceRelease(core(hDevice)));
}
DGLINK_UR_CATCH_ALL

// The device's global timer where its backend has one (core::DeviceImpl::globalTimestamp:
// the clock its events' profiling times use) and the host's steady clock, the one UR's
// adapters report as the host's timer. The host time is read after the device's.
ur_result_t urDeviceGetGlobalTimestamps(ur_device_handle_t hDevice, uint64_t *pDeviceTimestamp,
                                        uint64_t *pHostTimestamp) try {
  DGLINK_UR_NOT_NULL_HANDLE(hDevice);
  DGLINK_UR_CHECK(hDevice, PI_ERROR_INVALID_DEVICE);
  if (pDeviceTimestamp != nullptr) {
    const _pi_device &Device = *core(hDevice);
    pi_uint64 Nanoseconds = 0;
    const pi_result Result = Device.Impl != nullptr ? Device.Impl->globalTimestamp(Nanoseconds)
                                                    : PI_ERROR_UNSUPPORTED_FEATURE;
    if (Result == PI_ERROR_UNSUPPORTED_FEATURE)
      return failUr(UR_RESULT_ERROR_UNSUPPORTED_FEATURE,
                    "{}: the {} adapter has no global timer of device '{}'", __func__,
                    dglink::core::adapterLabel(), Device.Description.Name);
    DGLINK_UR_TRY(Result);
    *pDeviceTimestamp = Nanoseconds;
  }
  if (pHostTimestamp != nullptr)
    *pHostTimestamp = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                std::chrono::steady_clock::now().time_since_epoch())
                                                .count());
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

namespace {

// A binary target in UR's words (UR_DEVICE_BINARY_TARGET_*) as dglink's image format
// names it (PI_EXT_DEVICE_INFO_IMAGE_FORMATS), or null where dglink has no format of that
// meaning. UR's "spir64" is a SPIR-V module, dglink's "spirv64"; dglink's "spir64" (SPIR
// 1.2 bitcode) has no UR name. AOT targets for devices dglink does not drive (spir64_gen,
// spir64_x86_64, spir64_fpga, native_cpu) and 32-bit SPIR-V ("spir") name none.
const char *dglinkFormatOf(const char *UrTarget) {
  if (std::strcmp(UrTarget, UR_DEVICE_BINARY_TARGET_SPIRV64) == 0)
    return "spirv64";
  if (std::strcmp(UrTarget, UR_DEVICE_BINARY_TARGET_NVPTX64) == 0)
    return "nvptx64";
  if (std::strcmp(UrTarget, UR_DEVICE_BINARY_TARGET_AMDGCN) == 0)
    return "amdgcn";
  return nullptr;
}

} // namespace

// The binary the device runs best, as the SYCL runtime asks before it creates a program:
// targets in UR's words, mapped to dglink's image formats; a native image (PTX, code
// object) before SPIR-V, as UR's adapters prefer AOT images to IL; among equals the
// first.
ur_result_t urDeviceSelectBinary(ur_device_handle_t hDevice, const ur_device_binary_t *pBinaries,
                                 uint32_t NumBinaries, uint32_t *pSelectedBinary) try {
  DGLINK_UR_NOT_NULL_HANDLE(hDevice);
  DGLINK_UR_NOT_NULL_POINTER(pBinaries);
  DGLINK_UR_NOT_NULL_POINTER(pSelectedBinary);
  DGLINK_UR_CHECK(hDevice, PI_ERROR_INVALID_DEVICE);
  if (NumBinaries == 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE, "{}: 'NumBinaries' is 0", __func__);
  const std::string &Formats = core(hDevice)->Description.ImageFormats;
  // The image through which the device keeps the whole contract first: a native image
  // (PTX, code object) where the driver finds device globals in it by name; elsewhere
  // SPIR-V, which the adapter lowers itself (NVIDIA's OpenCL: a PTX image of DPC++ has
  // no lowering, the SPIR-V translated into PTX does), then a native image.
  const bool NativeFirst =
      core(hDevice)->Description.DeviceGlobal == PI_DEVICE_GLOBAL_MECHANISM_NATIVE;
  for (const bool Native : {NativeFirst, !NativeFirst})
    for (uint32_t I = 0; I < NumBinaries; ++I) {
      const char *Target = pBinaries[I].pDeviceTargetSpec;
      const char *Format = Target != nullptr ? dglinkFormatOf(Target) : nullptr;
      if (Format != nullptr && (std::strcmp(Format, "spirv64") != 0) == Native &&
          contains(Formats, Format)) {
        *pSelectedBinary = I;
        return UR_RESULT_SUCCESS;
      }
    }
  return failUr(UR_RESULT_ERROR_INVALID_BINARY,
                "{}: none of the {} binaries has a target device '{}' runs (UR targets "
                "spir64 = SPIR-V, nvptx64, amdgcn; the device takes dglink formats '{}')",
                __func__, NumBinaries, core(hDevice)->Description.Name, Formats);
}
DGLINK_UR_CATCH_ALL

} // namespace dglink::ur
