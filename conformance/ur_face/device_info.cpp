// urDeviceGetInfo through the Unified Runtime face: every query UR calls mandatory is
// answered, with the size UR's spec gives its type, on every device; and where this
// build can call the driver itself (the OpenCL ICD loader, the Level Zero loader over the
// project's test driver), the answers are the driver's own, read through the device's
// native handle.
#include "fixtures.h"

#include <unified-runtime/ur_api.h>

#ifdef DGLINK_NATIVE_OPENCL
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>
#endif
#ifdef DGLINK_NATIVE_LEVEL_ZERO
#include <level_zero/ze_api.h>
#endif

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace dglink::conformance {
namespace {

class UrDeviceInfo : public DeviceTest {
protected:
  ur_device_handle_t urDevice() const { return reinterpret_cast<ur_device_handle_t>(Device); }

  // A fixed-size answer: the query reports exactly sizeof(T) and gives it.
  template <typename T> T value(ur_device_info_t Name) {
    size_t Size = 0;
    EXPECT_EQ(urDeviceGetInfo(urDevice(), Name, 0, nullptr, &Size), UR_RESULT_SUCCESS)
        << "query " << Name;
    EXPECT_EQ(Size, sizeof(T)) << "query " << Name;
    T Out{};
    EXPECT_EQ(urDeviceGetInfo(urDevice(), Name, sizeof(T), &Out, nullptr), UR_RESULT_SUCCESS)
        << "query " << Name;
    return Out;
  }
  std::string string(ur_device_info_t Name) {
    size_t Size = 0;
    EXPECT_EQ(urDeviceGetInfo(urDevice(), Name, 0, nullptr, &Size), UR_RESULT_SUCCESS);
    std::string Out(Size, '\0');
    EXPECT_EQ(urDeviceGetInfo(urDevice(), Name, Size, Out.data(), nullptr), UR_RESULT_SUCCESS);
    return Out.substr(0, Out.find('\0')); // the text, without its NUL
  }
  ur_native_handle_t nativeDevice() {
    ur_native_handle_t Native = 0;
    EXPECT_EQ(urDeviceGetNativeHandle(urDevice(), &Native), UR_RESULT_SUCCESS);
    return Native;
  }

  // An optional query's bytes, or nothing where it is unanswered (the output then
  // untouched).
  std::optional<std::vector<uint8_t>> optionalBytes(ur_device_info_t Name) {
    size_t Size = 0;
    const ur_result_t Sized = urDeviceGetInfo(urDevice(), Name, 0, nullptr, &Size);
    if (Sized == UR_RESULT_ERROR_UNSUPPORTED_ENUMERATION) {
      std::vector<uint8_t> Canary(16, 0xA5), Before = Canary;
      EXPECT_EQ(urDeviceGetInfo(urDevice(), Name, Canary.size(), Canary.data(), nullptr),
                UR_RESULT_ERROR_UNSUPPORTED_ENUMERATION)
          << "query " << Name;
      EXPECT_EQ(Canary, Before) << "an unanswered query wrote its output";
      return std::nullopt;
    }
    EXPECT_EQ(Sized, UR_RESULT_SUCCESS) << "query " << Name << ": " << lastErrorMessage();
    std::vector<uint8_t> Out(Size);
    EXPECT_EQ(urDeviceGetInfo(urDevice(), Name, Size, Out.data(), nullptr), UR_RESULT_SUCCESS)
        << "query " << Name;
    return Out;
  }

  void checkOpenCl();
  void checkLevelZero();
};
DGLINK_INSTANTIATE_FOR_DEVICES(UrDeviceInfo);

// Every query UR's spec does not mark optional, with the size of its type (0: an array
// or string of any length).
TEST_P(UrDeviceInfo, EveryMandatoryQueryIsAnswered) {
  struct Query {
    ur_device_info_t Name;
    size_t Size;
  };
  constexpr size_t U32 = sizeof(uint32_t), U64 = sizeof(uint64_t), Size = sizeof(size_t),
                   Bool = sizeof(ur_bool_t), Any = 0;
  const Query Queries[] = {
      {UR_DEVICE_INFO_TYPE, sizeof(ur_device_type_t)},
      {UR_DEVICE_INFO_VENDOR_ID, U32},
      {UR_DEVICE_INFO_MAX_COMPUTE_UNITS, U32},
      {UR_DEVICE_INFO_MAX_WORK_ITEM_DIMENSIONS, U32},
      {UR_DEVICE_INFO_MAX_WORK_ITEM_SIZES, Any},
      {UR_DEVICE_INFO_MAX_WORK_GROUP_SIZE, Size},
      {UR_DEVICE_INFO_SINGLE_FP_CONFIG, sizeof(ur_device_fp_capability_flags_t)},
      {UR_DEVICE_INFO_HALF_FP_CONFIG, sizeof(ur_device_fp_capability_flags_t)},
      {UR_DEVICE_INFO_DOUBLE_FP_CONFIG, sizeof(ur_device_fp_capability_flags_t)},
      {UR_DEVICE_INFO_QUEUE_PROPERTIES, sizeof(ur_queue_flags_t)},
      {UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_CHAR, U32},
      {UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_SHORT, U32},
      {UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_INT, U32},
      {UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_LONG, U32},
      {UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_FLOAT, U32},
      {UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_DOUBLE, U32},
      {UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_HALF, U32},
      {UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_LONG_LONG, U32},
      {UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_CHAR, U32},
      {UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_SHORT, U32},
      {UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_INT, U32},
      {UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_LONG, U32},
      {UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_FLOAT, U32},
      {UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_DOUBLE, U32},
      {UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_HALF, U32},
      {UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_LONG_LONG, U32},
      {UR_DEVICE_INFO_MAX_CLOCK_FREQUENCY, U32},
      {UR_DEVICE_INFO_ADDRESS_BITS, U32},
      {UR_DEVICE_INFO_MAX_MEM_ALLOC_SIZE, U64},
      {UR_DEVICE_INFO_IMAGE_SUPPORT, Bool},
      {UR_DEVICE_INFO_MAX_READ_IMAGE_ARGS, U32},
      {UR_DEVICE_INFO_MAX_WRITE_IMAGE_ARGS, U32},
      {UR_DEVICE_INFO_IMAGE2D_MAX_WIDTH, Size},
      {UR_DEVICE_INFO_IMAGE2D_MAX_HEIGHT, Size},
      {UR_DEVICE_INFO_IMAGE3D_MAX_WIDTH, Size},
      {UR_DEVICE_INFO_IMAGE3D_MAX_HEIGHT, Size},
      {UR_DEVICE_INFO_IMAGE3D_MAX_DEPTH, Size},
      {UR_DEVICE_INFO_IMAGE_MAX_BUFFER_SIZE, Size},
      {UR_DEVICE_INFO_IMAGE_MAX_ARRAY_SIZE, Size},
      {UR_DEVICE_INFO_MAX_SAMPLERS, U32},
      {UR_DEVICE_INFO_MAX_PARAMETER_SIZE, Size},
      {UR_DEVICE_INFO_MEM_BASE_ADDR_ALIGN, U32},
      {UR_DEVICE_INFO_GLOBAL_MEM_CACHE_TYPE, sizeof(ur_device_mem_cache_type_t)},
      {UR_DEVICE_INFO_GLOBAL_MEM_CACHELINE_SIZE, U32},
      {UR_DEVICE_INFO_GLOBAL_MEM_CACHE_SIZE, U64},
      {UR_DEVICE_INFO_GLOBAL_MEM_SIZE, U64},
      {UR_DEVICE_INFO_MAX_CONSTANT_BUFFER_SIZE, U64},
      {UR_DEVICE_INFO_MAX_CONSTANT_ARGS, U32},
      {UR_DEVICE_INFO_LOCAL_MEM_TYPE, sizeof(ur_device_local_mem_type_t)},
      {UR_DEVICE_INFO_LOCAL_MEM_SIZE, U64},
      {UR_DEVICE_INFO_ERROR_CORRECTION_SUPPORT, Bool},
      {UR_DEVICE_INFO_HOST_UNIFIED_MEMORY, Bool},
      {UR_DEVICE_INFO_PROFILING_TIMER_RESOLUTION, Size},
      {UR_DEVICE_INFO_ENDIAN_LITTLE, Bool},
      {UR_DEVICE_INFO_AVAILABLE, Bool},
      {UR_DEVICE_INFO_COMPILER_AVAILABLE, Bool},
      {UR_DEVICE_INFO_LINKER_AVAILABLE, Bool},
      {UR_DEVICE_INFO_EXECUTION_CAPABILITIES, sizeof(ur_device_exec_capability_flags_t)},
      {UR_DEVICE_INFO_QUEUE_ON_DEVICE_PROPERTIES, sizeof(ur_queue_flags_t)},
      {UR_DEVICE_INFO_QUEUE_ON_HOST_PROPERTIES, sizeof(ur_queue_flags_t)},
      {UR_DEVICE_INFO_BUILT_IN_KERNELS, Any},
      {UR_DEVICE_INFO_PLATFORM, sizeof(ur_platform_handle_t)},
      {UR_DEVICE_INFO_REFERENCE_COUNT, U32},
      {UR_DEVICE_INFO_NAME, Any},
      {UR_DEVICE_INFO_VENDOR, Any},
      {UR_DEVICE_INFO_DRIVER_VERSION, Any},
      {UR_DEVICE_INFO_PROFILE, Any},
      {UR_DEVICE_INFO_VERSION, Any},
      {UR_DEVICE_INFO_BACKEND_RUNTIME_VERSION, Any},
      {UR_DEVICE_INFO_EXTENSIONS, Any},
      {UR_DEVICE_INFO_PRINTF_BUFFER_SIZE, Size},
      {UR_DEVICE_INFO_PREFERRED_INTEROP_USER_SYNC, Bool},
      {UR_DEVICE_INFO_PARENT_DEVICE, sizeof(ur_device_handle_t)},
      {UR_DEVICE_INFO_SUPPORTED_PARTITIONS, Any},
      {UR_DEVICE_INFO_PARTITION_MAX_SUB_DEVICES, U32},
      {UR_DEVICE_INFO_PARTITION_AFFINITY_DOMAIN, sizeof(ur_device_affinity_domain_flags_t)},
      {UR_DEVICE_INFO_PARTITION_TYPE, Any},
      {UR_DEVICE_INFO_MAX_NUM_SUB_GROUPS, U32},
      {UR_DEVICE_INFO_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, Bool},
      {UR_DEVICE_INFO_SUB_GROUP_SIZES_INTEL, Any},
      {UR_DEVICE_INFO_USM_HOST_SUPPORT, sizeof(ur_device_usm_access_capability_flags_t)},
      {UR_DEVICE_INFO_USM_DEVICE_SUPPORT, sizeof(ur_device_usm_access_capability_flags_t)},
      {UR_DEVICE_INFO_USM_SINGLE_SHARED_SUPPORT, sizeof(ur_device_usm_access_capability_flags_t)},
      {UR_DEVICE_INFO_USM_CROSS_SHARED_SUPPORT, sizeof(ur_device_usm_access_capability_flags_t)},
      {UR_DEVICE_INFO_USM_SYSTEM_SHARED_SUPPORT, sizeof(ur_device_usm_access_capability_flags_t)},
      {UR_DEVICE_INFO_IMAGE_SRGB, Bool},
      {UR_DEVICE_INFO_BUILD_ON_SUBDEVICE, Bool},
      {UR_DEVICE_INFO_ATOMIC_64, Bool},
      {UR_DEVICE_INFO_ATOMIC_MEMORY_ORDER_CAPABILITIES, sizeof(ur_memory_order_capability_flags_t)},
      {UR_DEVICE_INFO_ATOMIC_MEMORY_SCOPE_CAPABILITIES, sizeof(ur_memory_scope_capability_flags_t)},
      {UR_DEVICE_INFO_ATOMIC_FENCE_ORDER_CAPABILITIES, sizeof(ur_memory_order_capability_flags_t)},
      {UR_DEVICE_INFO_ATOMIC_FENCE_SCOPE_CAPABILITIES, sizeof(ur_memory_scope_capability_flags_t)},
      {UR_DEVICE_INFO_MAX_COMPUTE_QUEUE_INDICES, U32},
      {UR_DEVICE_INFO_KERNEL_SET_SPECIALIZATION_CONSTANTS, Bool},
      {UR_DEVICE_INFO_MAX_WORK_GROUPS_3D, 3 * Size},
      {UR_DEVICE_INFO_ASYNC_BARRIER, Bool},
      {UR_DEVICE_INFO_MEM_CHANNEL_SUPPORT, Bool},
      {UR_DEVICE_INFO_HOST_PIPE_READ_WRITE_SUPPORT, Bool},
      {UR_DEVICE_INFO_VIRTUAL_MEMORY_SUPPORT, Bool},
      {UR_DEVICE_INFO_ESIMD_SUPPORT, Bool},
      {UR_DEVICE_INFO_GLOBAL_VARIABLE_SUPPORT, Bool},
      {UR_DEVICE_INFO_USM_POOL_SUPPORT, Bool},
      {UR_DEVICE_INFO_NUM_COMPUTE_UNITS, U32},
      {UR_DEVICE_INFO_PROGRAM_SET_SPECIALIZATION_CONSTANTS, Bool},
      {UR_DEVICE_INFO_USE_NATIVE_ASSERT, Bool},
      {UR_DEVICE_INFO_BFLOAT16_CONVERSIONS_NATIVE, Bool},
      {UR_DEVICE_INFO_KERNEL_LAUNCH_CAPABILITIES, sizeof(ur_kernel_launch_properties_flags_t)},
      {UR_DEVICE_INFO_MAX_WORK_GROUPS, Size},
      {UR_DEVICE_INFO_IS_INTEGRATED_GPU, Bool},
  };
  for (const Query &Q : Queries) {
    SCOPED_TRACE(testing::Message() << "query " << Q.Name);
    size_t Reported = 0;
    ASSERT_EQ(urDeviceGetInfo(urDevice(), Q.Name, 0, nullptr, &Reported), UR_RESULT_SUCCESS)
        << lastErrorMessage();
    if (Q.Size != Any) {
      EXPECT_EQ(Reported, Q.Size);
    }
    if (Reported == 0)
      continue; // an empty list (no partitions, no sub-group sizes): nothing to read
    std::vector<unsigned char> Value(Reported);
    EXPECT_EQ(urDeviceGetInfo(urDevice(), Q.Name, Reported, Value.data(), nullptr),
              UR_RESULT_SUCCESS);
  }
}

// Images are served where the driver has them (OpenCL, CUDA and HIP's NVIDIA platform):
// every image limit is then the driver's (not 0; ur_face/images.cpp compares them with
// clGetDeviceInfo or cuDeviceGetAttribute), elsewhere the device says it has none and every
// limit is 0 to match.
TEST_P(UrDeviceInfo, ImageLimitsMatchImageSupport) {
  const bool Images = value<ur_bool_t>(UR_DEVICE_INFO_IMAGE_SUPPORT) != 0;
  EXPECT_FALSE(value<ur_bool_t>(UR_DEVICE_INFO_IMAGE_SRGB));
  for (ur_device_info_t Name : {UR_DEVICE_INFO_MAX_READ_IMAGE_ARGS,
                                UR_DEVICE_INFO_MAX_WRITE_IMAGE_ARGS, UR_DEVICE_INFO_MAX_SAMPLERS})
    EXPECT_EQ(value<uint32_t>(Name) != 0, Images) << "query " << Name;
  for (ur_device_info_t Name :
       {UR_DEVICE_INFO_IMAGE2D_MAX_WIDTH, UR_DEVICE_INFO_IMAGE2D_MAX_HEIGHT,
        UR_DEVICE_INFO_IMAGE3D_MAX_WIDTH, UR_DEVICE_INFO_IMAGE3D_MAX_HEIGHT,
        UR_DEVICE_INFO_IMAGE3D_MAX_DEPTH, UR_DEVICE_INFO_IMAGE_MAX_BUFFER_SIZE,
        UR_DEVICE_INFO_IMAGE_MAX_ARRAY_SIZE})
    EXPECT_EQ(value<size_t>(Name) != 0, Images) << "query " << Name;
}

// The memory's peak bandwidth, where the backend states it (CUDA, HIP): twice the peak
// memory clock times the bus's bytes, both of which the device then answers too; elsewhere
// unanswered, the output untouched.
TEST_P(UrDeviceInfo, MemoryBandwidthFollowsClockAndBusWidth) {
  if (!optionalBytes(UR_DEVICE_INFO_MAX_MEMORY_BANDWIDTH).has_value())
    return; // unanswered, its output untouched (optionalBytes checks)
  const uint64_t Bandwidth = value<uint64_t>(UR_DEVICE_INFO_MAX_MEMORY_BANDWIDTH);
  // The clock query answers whole MHz; the bandwidth is computed from the driver's kHz.
  const double Mhz = value<uint32_t>(UR_DEVICE_INFO_MEMORY_CLOCK_RATE);
  const double Bits = value<uint32_t>(UR_DEVICE_INFO_MEMORY_BUS_WIDTH);
  ASSERT_GT(Mhz, 0);
  ASSERT_GT(Bits, 0);
  const double Expected = (Mhz * 1e6) * 2 * (Bits / 8);
  EXPECT_NEAR(static_cast<double>(Bandwidth), Expected, (Bits / 8) * 2 * 1e6)
      << "clock " << Mhz << " MHz, bus " << Bits << " bits";
}

// NVIDIA's management library, opened by the test as the adapter opens it.
struct Nvml {
  using Device = void *;
  int (*Init)() = nullptr;
  int (*HandleByPciBusId)(const char *, Device *) = nullptr;
  int (*LimitConstraints)(Device, unsigned int *, unsigned int *) = nullptr;
  int (*FanSpeed)(Device, unsigned int *) = nullptr;
  int (*EventReasons)(Device, unsigned long long *) = nullptr;
  Device Gpu = nullptr;

  // The GPU at Address, or false where there is no NVML or no such GPU of NVML's.
  bool open(const std::string &Address) {
    void *Library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (Library == nullptr)
      return false;
    Init = reinterpret_cast<decltype(Init)>(dlsym(Library, "nvmlInit_v2"));
    HandleByPciBusId = reinterpret_cast<decltype(HandleByPciBusId)>(
        dlsym(Library, "nvmlDeviceGetHandleByPciBusId_v2"));
    LimitConstraints = reinterpret_cast<decltype(LimitConstraints)>(
        dlsym(Library, "nvmlDeviceGetPowerManagementLimitConstraints"));
    FanSpeed = reinterpret_cast<decltype(FanSpeed)>(dlsym(Library, "nvmlDeviceGetFanSpeed"));
    EventReasons = reinterpret_cast<decltype(EventReasons)>(
        dlsym(Library, "nvmlDeviceGetCurrentClocksEventReasons"));
    if (EventReasons == nullptr)
      EventReasons = reinterpret_cast<decltype(EventReasons)>(
          dlsym(Library, "nvmlDeviceGetCurrentClocksThrottleReasons"));
    return Init != nullptr && HandleByPciBusId != nullptr && Init() == 0 &&
           HandleByPciBusId(Address.c_str(), &Gpu) == 0;
  }
};

// The management queries (throttle reasons, fan speed, power limits): NVML's own readings
// of the GPU at the device's PCI address; UNSUPPORTED_ENUMERATION, the output untouched,
// where NVML does not know the device (no NVML here, a CPU, another vendor's GPU) or does
// not measure that reading on it.
TEST_P(UrDeviceInfo, ManagementQueriesAreNvmls) {
  std::string Address;
  size_t Size = 0;
  if (urDeviceGetInfo(urDevice(), UR_DEVICE_INFO_PCI_ADDRESS, 0, nullptr, &Size) ==
      UR_RESULT_SUCCESS)
    Address = string(UR_DEVICE_INFO_PCI_ADDRESS);
  Nvml Lib;
  const bool Known = !Address.empty() && Lib.open(Address);
  // A query's answer: true where answered (its value in Out), false where unsupported.
  auto Ask = [&](ur_device_info_t Name, size_t Bytes, void *Out) {
    const std::optional<std::vector<uint8_t>> Answer = optionalBytes(Name);
    if (!Answer.has_value())
      return false;
    EXPECT_EQ(Answer->size(), Bytes) << "query " << Name;
    std::memcpy(Out, Answer->data(), std::min(Bytes, Answer->size()));
    return true;
  };
  int32_t Min = 0, Max = 0, Fan = 0;
  ur_device_throttle_reasons_flags_t Reasons = 0;
  const bool HasMin = Ask(UR_DEVICE_INFO_MIN_POWER_LIMIT, sizeof(Min), &Min);
  const bool HasMax = Ask(UR_DEVICE_INFO_MAX_POWER_LIMIT, sizeof(Max), &Max);
  const bool HasFan = Ask(UR_DEVICE_INFO_FAN_SPEED, sizeof(Fan), &Fan);
  const bool HasReasons =
      Ask(UR_DEVICE_INFO_CURRENT_CLOCK_THROTTLE_REASONS, sizeof(Reasons), &Reasons);
  if (!Known) {
    EXPECT_FALSE(HasMin || HasMax || HasFan || HasReasons)
        << "answered without NVML knowing the device at '" << Address << "'";
    return;
  }
  unsigned int NvmlMin = 0, NvmlMax = 0, NvmlFan = 0;
  const bool Limits =
      Lib.LimitConstraints != nullptr && Lib.LimitConstraints(Lib.Gpu, &NvmlMin, &NvmlMax) == 0;
  EXPECT_EQ(HasMin, Limits);
  EXPECT_EQ(HasMax, Limits);
  if (Limits && HasMin && HasMax) {
    EXPECT_EQ(Min, static_cast<int32_t>(NvmlMin));
    EXPECT_EQ(Max, static_cast<int32_t>(NvmlMax));
    EXPECT_LE(Min, Max);
  }
  EXPECT_EQ(HasFan, Lib.FanSpeed != nullptr && Lib.FanSpeed(Lib.Gpu, &NvmlFan) == 0);
  unsigned long long NvmlReasons = 0;
  EXPECT_EQ(HasReasons,
            Lib.EventReasons != nullptr && Lib.EventReasons(Lib.Gpu, &NvmlReasons) == 0);
  EXPECT_EQ(Reasons & UR_DEVICE_THROTTLE_REASONS_FLAGS_MASK, 0u) << "flags UR does not define";
}

// The answers are the driver's own, asked through the device's native handle.
TEST_P(UrDeviceInfo, AnswersAreTheDrivers) {
  const std::string &Backend = GetParam().Backend;
  if (Backend == "opencl") {
#ifdef DGLINK_NATIVE_OPENCL
    checkOpenCl();
    return;
#endif
  } else if (Backend == "level_zero") {
#ifdef DGLINK_NATIVE_LEVEL_ZERO
    checkLevelZero();
    return;
#endif
  }
  GTEST_SKIP() << "this build cannot call the " << Backend << " driver to compare";
}

#ifdef DGLINK_NATIVE_OPENCL
template <typename T> T clValue(cl_device_id Id, cl_device_info Name) {
  T Out{};
  EXPECT_EQ(clGetDeviceInfo(Id, Name, sizeof(T), &Out, nullptr), CL_SUCCESS) << "cl query " << Name;
  return Out;
}

void UrDeviceInfo::checkOpenCl() {
  const auto Id = reinterpret_cast<cl_device_id>(nativeDevice());
  ASSERT_NE(Id, nullptr);
  EXPECT_EQ(value<uint32_t>(UR_DEVICE_INFO_MAX_CLOCK_FREQUENCY),
            clValue<cl_uint>(Id, CL_DEVICE_MAX_CLOCK_FREQUENCY));
  EXPECT_EQ(value<uint64_t>(UR_DEVICE_INFO_MAX_MEM_ALLOC_SIZE),
            clValue<cl_ulong>(Id, CL_DEVICE_MAX_MEM_ALLOC_SIZE));
  EXPECT_EQ(value<uint64_t>(UR_DEVICE_INFO_GLOBAL_MEM_CACHE_SIZE),
            clValue<cl_ulong>(Id, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE));
  EXPECT_EQ(value<uint32_t>(UR_DEVICE_INFO_GLOBAL_MEM_CACHELINE_SIZE),
            clValue<cl_uint>(Id, CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE));
  EXPECT_EQ(value<uint32_t>(UR_DEVICE_INFO_GLOBAL_MEM_CACHE_TYPE),
            clValue<cl_device_mem_cache_type>(Id, CL_DEVICE_GLOBAL_MEM_CACHE_TYPE));
  EXPECT_EQ(value<uint64_t>(UR_DEVICE_INFO_LOCAL_MEM_SIZE),
            clValue<cl_ulong>(Id, CL_DEVICE_LOCAL_MEM_SIZE));
  EXPECT_EQ(value<uint32_t>(UR_DEVICE_INFO_LOCAL_MEM_TYPE),
            clValue<cl_device_local_mem_type>(Id, CL_DEVICE_LOCAL_MEM_TYPE));
  EXPECT_EQ(value<uint64_t>(UR_DEVICE_INFO_MAX_CONSTANT_BUFFER_SIZE),
            clValue<cl_ulong>(Id, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE));
  EXPECT_EQ(value<uint32_t>(UR_DEVICE_INFO_MAX_CONSTANT_ARGS),
            clValue<cl_uint>(Id, CL_DEVICE_MAX_CONSTANT_ARGS));
  EXPECT_EQ(value<uint32_t>(UR_DEVICE_INFO_MEM_BASE_ADDR_ALIGN),
            clValue<cl_uint>(Id, CL_DEVICE_MEM_BASE_ADDR_ALIGN));
  EXPECT_EQ(value<size_t>(UR_DEVICE_INFO_MAX_PARAMETER_SIZE),
            clValue<size_t>(Id, CL_DEVICE_MAX_PARAMETER_SIZE));
  EXPECT_EQ(value<size_t>(UR_DEVICE_INFO_PRINTF_BUFFER_SIZE),
            clValue<size_t>(Id, CL_DEVICE_PRINTF_BUFFER_SIZE));
  EXPECT_EQ(value<size_t>(UR_DEVICE_INFO_PROFILING_TIMER_RESOLUTION),
            clValue<size_t>(Id, CL_DEVICE_PROFILING_TIMER_RESOLUTION));
  // Host-unified memory: the driver's fact only as IS_INTEGRATED_GPU (a GPU that has it);
  // HOST_UNIFIED_MEMORY is false while maps are not served (handles.h says why).
  const bool Unified = clValue<cl_bool>(Id, CL_DEVICE_HOST_UNIFIED_MEMORY) == CL_TRUE;
  const bool Gpu = (clValue<cl_device_type>(Id, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU) != 0;
  EXPECT_EQ(value<ur_bool_t>(UR_DEVICE_INFO_IS_INTEGRATED_GPU) != 0, Gpu && Unified);
  EXPECT_FALSE(value<ur_bool_t>(UR_DEVICE_INFO_HOST_UNIFIED_MEMORY));
  EXPECT_EQ(value<ur_bool_t>(UR_DEVICE_INFO_ERROR_CORRECTION_SUPPORT) != 0,
            clValue<cl_bool>(Id, CL_DEVICE_ERROR_CORRECTION_SUPPORT) == CL_TRUE);
  // Vector widths (UR's long long is OpenCL's long).
  const std::pair<ur_device_info_t, cl_device_info> Widths[] = {
      {UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_CHAR, CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR},
      {UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_INT, CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT},
      {UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_LONG_LONG, CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG},
      {UR_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_HALF, CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF},
      {UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_SHORT, CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT},
      {UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_FLOAT, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT},
      {UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_DOUBLE, CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE},
      {UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_LONG, CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG}};
  for (const auto &[Ur, Cl] : Widths)
    EXPECT_EQ(value<uint32_t>(Ur), clValue<cl_uint>(Id, Cl)) << "vector width query " << Ur;
  // Single precision: UR's bits for OpenCL's.
  const auto Single = clValue<cl_device_fp_config>(Id, CL_DEVICE_SINGLE_FP_CONFIG);
  const auto UrSingle = value<ur_device_fp_capability_flags_t>(UR_DEVICE_INFO_SINGLE_FP_CONFIG);
  EXPECT_EQ((UrSingle & UR_DEVICE_FP_CAPABILITY_FLAG_FMA) != 0, (Single & CL_FP_FMA) != 0);
  EXPECT_EQ((UrSingle & UR_DEVICE_FP_CAPABILITY_FLAG_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0,
            (Single & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0);
  EXPECT_EQ((UrSingle & UR_DEVICE_FP_CAPABILITY_FLAG_ROUND_TO_NEAREST) != 0,
            (Single & CL_FP_ROUND_TO_NEAREST) != 0);
  // Atomics: OpenCL 3.0's capability bits, acquire-release implying acquire and release,
  // a scope every narrower one; OpenCL 1.x's mandated minimum.
  char Version[256] = {};
  ASSERT_EQ(clGetDeviceInfo(Id, CL_DEVICE_VERSION, sizeof(Version) - 1, Version, nullptr),
            CL_SUCCESS);
  int Major = 1, Minor = 0;
  ASSERT_EQ(std::sscanf(Version, "OpenCL %d.%d", &Major, &Minor), 2) << Version;
  EXPECT_EQ(string(UR_DEVICE_INFO_BACKEND_RUNTIME_VERSION),
            std::to_string(Major) + "." + std::to_string(Minor));
  const auto Orders =
      value<ur_memory_order_capability_flags_t>(UR_DEVICE_INFO_ATOMIC_MEMORY_ORDER_CAPABILITIES);
  const auto Scopes =
      value<ur_memory_scope_capability_flags_t>(UR_DEVICE_INFO_ATOMIC_MEMORY_SCOPE_CAPABILITIES);
  const auto FenceScopes =
      value<ur_memory_scope_capability_flags_t>(UR_DEVICE_INFO_ATOMIC_FENCE_SCOPE_CAPABILITIES);
  if (Major >= 3) {
    const auto Memory =
        clValue<cl_device_atomic_capabilities>(Id, CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES);
    const auto Fence =
        clValue<cl_device_atomic_capabilities>(Id, CL_DEVICE_ATOMIC_FENCE_CAPABILITIES);
    EXPECT_EQ((Orders & UR_MEMORY_ORDER_CAPABILITY_FLAG_SEQ_CST) != 0,
              (Memory & CL_DEVICE_ATOMIC_ORDER_SEQ_CST) != 0);
    EXPECT_EQ((Orders & UR_MEMORY_ORDER_CAPABILITY_FLAG_ACQUIRE) != 0,
              (Memory & CL_DEVICE_ATOMIC_ORDER_ACQ_REL) != 0);
    EXPECT_EQ((Scopes & UR_MEMORY_SCOPE_CAPABILITY_FLAG_DEVICE) != 0,
              (Memory & (CL_DEVICE_ATOMIC_SCOPE_DEVICE | CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES)) != 0);
    EXPECT_EQ((Scopes & UR_MEMORY_SCOPE_CAPABILITY_FLAG_SYSTEM) != 0,
              (Memory & CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES) != 0);
    EXPECT_EQ((FenceScopes & UR_MEMORY_SCOPE_CAPABILITY_FLAG_SYSTEM) != 0,
              (Fence & CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES) != 0);
  } else if (Major == 1) {
    EXPECT_EQ(Orders, UR_MEMORY_ORDER_CAPABILITY_FLAG_RELAXED);
    EXPECT_EQ(Scopes & UR_MEMORY_SCOPE_CAPABILITY_FLAG_DEVICE, 0u);
  }
  // Identity: the driver's UUID and PCI address where it has the extensions, else none.
  size_t Length = 0;
  ASSERT_EQ(clGetDeviceInfo(Id, CL_DEVICE_EXTENSIONS, 0, nullptr, &Length), CL_SUCCESS);
  std::string Extensions(Length, '\0');
  ASSERT_EQ(clGetDeviceInfo(Id, CL_DEVICE_EXTENSIONS, Length, Extensions.data(), nullptr),
            CL_SUCCESS);
  const auto Has = [&](const std::string &Word) {
    return (" " + Extensions + " ").find(" " + Word + " ") != std::string::npos;
  };
  const std::optional<std::vector<uint8_t>> Uuid = optionalBytes(UR_DEVICE_INFO_UUID);
  std::vector<uint8_t> ClUuid(CL_UUID_SIZE_KHR);
  if (Has("cl_khr_device_uuid") &&
      clGetDeviceInfo(Id, CL_DEVICE_UUID_KHR, ClUuid.size(), ClUuid.data(), nullptr) ==
          CL_SUCCESS &&
      std::any_of(ClUuid.begin(), ClUuid.end(), [](uint8_t Byte) { return Byte != 0; })) {
    ASSERT_TRUE(Uuid.has_value()) << "the driver states a UUID";
    EXPECT_EQ(*Uuid, ClUuid);
  } else {
    EXPECT_FALSE(Uuid.has_value()) << "a UUID the driver does not state";
  }
  const std::optional<std::vector<uint8_t>> Pci = optionalBytes(UR_DEVICE_INFO_PCI_ADDRESS);
  cl_device_pci_bus_info_khr Bus{};
  if (Has("cl_khr_pci_bus_info") &&
      clGetDeviceInfo(Id, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof(Bus), &Bus, nullptr) == CL_SUCCESS) {
    ASSERT_TRUE(Pci.has_value()) << "the driver states a PCI address";
    char Expected[32] = {};
    std::snprintf(Expected, sizeof(Expected), "%04x:%02x:%02x.%x", Bus.pci_domain, Bus.pci_bus,
                  Bus.pci_device, Bus.pci_function);
    EXPECT_EQ(std::string(reinterpret_cast<const char *>(Pci->data())), Expected);
  } else {
    EXPECT_FALSE(Pci.has_value()) << "a PCI address the driver does not state";
  }
}
#else
void UrDeviceInfo::checkOpenCl() {}
#endif

#ifdef DGLINK_NATIVE_LEVEL_ZERO
// The Level Zero loader the adapter uses, opened at run time as the adapter opens it.
template <typename Function> Function zeFunction(const char *Name) {
  void *Library = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_GLOBAL);
  return Library == nullptr ? nullptr : reinterpret_cast<Function>(dlsym(Library, Name));
}

void UrDeviceInfo::checkLevelZero() {
  const auto Id = reinterpret_cast<ze_device_handle_t>(nativeDevice());
  const auto GetProperties = zeFunction<decltype(&zeDeviceGetProperties)>("zeDeviceGetProperties");
  const auto GetCompute =
      zeFunction<decltype(&zeDeviceGetComputeProperties)>("zeDeviceGetComputeProperties");
  const auto GetModule =
      zeFunction<decltype(&zeDeviceGetModuleProperties)>("zeDeviceGetModuleProperties");
  ASSERT_TRUE(GetProperties != nullptr && GetCompute != nullptr && GetModule != nullptr)
      << "libze_loader.so.1 cannot be opened, or lacks a zeDeviceGet*Properties";
  ze_device_properties_t Properties{};
  Properties.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  ASSERT_EQ(GetProperties(Id, &Properties), ZE_RESULT_SUCCESS);
  ze_device_compute_properties_t Compute{};
  Compute.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
  ASSERT_EQ(GetCompute(Id, &Compute), ZE_RESULT_SUCCESS);
  ze_device_module_properties_t Module{};
  Module.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES;
  ASSERT_EQ(GetModule(Id, &Module), ZE_RESULT_SUCCESS);

  EXPECT_EQ(value<uint32_t>(UR_DEVICE_INFO_MAX_CLOCK_FREQUENCY), Properties.coreClockRate);
  EXPECT_EQ(value<uint64_t>(UR_DEVICE_INFO_MAX_MEM_ALLOC_SIZE), Properties.maxMemAllocSize);
  EXPECT_EQ(value<size_t>(UR_DEVICE_INFO_PROFILING_TIMER_RESOLUTION), Properties.timerResolution);
  EXPECT_EQ(value<ur_bool_t>(UR_DEVICE_INFO_IS_INTEGRATED_GPU) != 0,
            (Properties.flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED) != 0 &&
                Properties.type == ZE_DEVICE_TYPE_GPU);
  EXPECT_FALSE(value<ur_bool_t>(UR_DEVICE_INFO_HOST_UNIFIED_MEMORY));
  EXPECT_EQ(value<ur_bool_t>(UR_DEVICE_INFO_ERROR_CORRECTION_SUPPORT) != 0,
            (Properties.flags & ZE_DEVICE_PROPERTY_FLAG_ECC) != 0);
  EXPECT_EQ(value<uint64_t>(UR_DEVICE_INFO_LOCAL_MEM_SIZE), Compute.maxSharedLocalMemory);
  size_t Groups[3] = {};
  ASSERT_EQ(urDeviceGetInfo(urDevice(), UR_DEVICE_INFO_MAX_WORK_GROUPS_3D, sizeof(Groups), Groups,
                            nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(Groups[0], Compute.maxGroupCountX);
  EXPECT_EQ(Groups[1], Compute.maxGroupCountY);
  EXPECT_EQ(Groups[2], Compute.maxGroupCountZ);
  size_t Bytes = 0;
  ASSERT_EQ(urDeviceGetInfo(urDevice(), UR_DEVICE_INFO_SUB_GROUP_SIZES_INTEL, 0, nullptr, &Bytes),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(Bytes, Compute.numSubGroupSizes * sizeof(uint32_t));
  EXPECT_EQ(value<size_t>(UR_DEVICE_INFO_MAX_PARAMETER_SIZE), Module.maxArgumentsSize);
  EXPECT_EQ(value<size_t>(UR_DEVICE_INFO_PRINTF_BUFFER_SIZE), Module.printfBufferSize);
  EXPECT_EQ(value<ur_bool_t>(UR_DEVICE_INFO_ATOMIC_64) != 0,
            (Module.flags & ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS) != 0);
  EXPECT_EQ(value<uint32_t>(UR_DEVICE_INFO_NATIVE_VECTOR_WIDTH_DOUBLE) != 0,
            (Module.flags & ZE_DEVICE_MODULE_FLAG_FP64) != 0);
  EXPECT_EQ((value<ur_device_fp_capability_flags_t>(UR_DEVICE_INFO_SINGLE_FP_CONFIG) &
             UR_DEVICE_FP_CAPABILITY_FLAG_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0,
            (Module.fp32flags & ZE_DEVICE_FP_FLAG_ROUNDED_DIVIDE_SQRT) != 0);
  // Identity and memory: the driver's UUID (none where it is zero), the fastest memory's
  // clock and bus width (none where the driver states 0, as the test driver does).
  const std::optional<std::vector<uint8_t>> Uuid = optionalBytes(UR_DEVICE_INFO_UUID);
  const std::vector<uint8_t> ZeUuid(Properties.uuid.id,
                                    Properties.uuid.id + ZE_MAX_DEVICE_UUID_SIZE);
  if (std::any_of(ZeUuid.begin(), ZeUuid.end(), [](uint8_t Byte) { return Byte != 0; })) {
    ASSERT_TRUE(Uuid.has_value()) << "the driver states a UUID";
    EXPECT_EQ(*Uuid, ZeUuid);
  } else {
    EXPECT_FALSE(Uuid.has_value());
  }
  const auto GetMemory =
      zeFunction<decltype(&zeDeviceGetMemoryProperties)>("zeDeviceGetMemoryProperties");
  ASSERT_NE(GetMemory, nullptr);
  uint32_t Count = 0;
  ASSERT_EQ(GetMemory(Id, &Count, nullptr), ZE_RESULT_SUCCESS);
  std::vector<ze_device_memory_properties_t> Memories(Count);
  for (ze_device_memory_properties_t &Memory : Memories)
    Memory.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
  if (Count != 0) {
    ASSERT_EQ(GetMemory(Id, &Count, Memories.data()), ZE_RESULT_SUCCESS);
  }
  uint32_t Clock = 0, Width = 0;
  for (const ze_device_memory_properties_t &Memory : Memories) {
    Clock = std::max(Clock, Memory.maxClockRate);
    Width = std::max(Width, Memory.maxBusWidth);
  }
  const std::optional<std::vector<uint8_t>> UrClock =
      optionalBytes(UR_DEVICE_INFO_MEMORY_CLOCK_RATE);
  const std::optional<std::vector<uint8_t>> UrWidth =
      optionalBytes(UR_DEVICE_INFO_MEMORY_BUS_WIDTH);
  EXPECT_EQ(UrClock.has_value(), Clock != 0);
  EXPECT_EQ(UrWidth.has_value(), Width != 0);
  if (UrClock.has_value() && Clock != 0) {
    EXPECT_EQ(value<uint32_t>(UR_DEVICE_INFO_MEMORY_CLOCK_RATE), Clock);
  }
  if (UrWidth.has_value() && Width != 0) {
    EXPECT_EQ(value<uint32_t>(UR_DEVICE_INFO_MEMORY_BUS_WIDTH), Width);
  }

  // A device that runs no kernels (the test driver) has no kernel execution to claim.
  const bool Runs = executesKernels();
  EXPECT_EQ(value<ur_device_exec_capability_flags_t>(UR_DEVICE_INFO_EXECUTION_CAPABILITIES),
            Runs ? ur_device_exec_capability_flags_t{UR_DEVICE_EXEC_CAPABILITY_FLAG_KERNEL} : 0u);
}
#else
void UrDeviceInfo::checkLevelZero() {}
#endif

} // namespace
} // namespace dglink::conformance
