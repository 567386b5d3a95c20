// Discovery and info queries: what the dispatch layer finds, and what platforms
// and devices say about themselves (values, sizes, too-small buffers, and the
// extension strings against the link formats).
#include "fixtures.h"

#include <dglink/dispatch.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace dglink::conformance {
namespace {

TEST(Discovery, DevicesFound) {
  ASSERT_TRUE(enumerationError().empty()) << enumerationError();
  if (allDevices().empty())
    GTEST_SKIP() << "no devices found by the dispatch layer";
  if (selectedDevices().empty())
    GTEST_SKIP() << "no device matches the selection (" << deviceSelection().describe() << ")";
}

TEST(Discovery, PlatformsGetArguments) {
  pi_uint32 Count = 0;
  ASSERT_PI_SUCCESS(piPlatformsGet(0, nullptr, &Count));
  // Nowhere to write: neither a list nor a count.
  EXPECT_PI_ERROR(PI_ERROR_INVALID_VALUE, piPlatformsGet(0, nullptr, nullptr));
  // A list of zero entries is not a list.
  pi_platform Platform = nullptr;
  EXPECT_PI_ERROR(PI_ERROR_INVALID_VALUE, piPlatformsGet(0, &Platform, nullptr));
}

// Every adapter the dispatch layer considered is either loaded or says why not,
// and the loaded ones account for every platform.
TEST(Discovery, AdaptersReportState) {
  const pi_uint32 Count = dglinkDispatchAdapterCount();
  pi_uint32 Platforms = 0;
  for (pi_uint32 I = 0; I < Count; ++I) {
    dglink_adapter_info Info{};
    ASSERT_PI_SUCCESS(dglinkDispatchAdapterInfo(I, &Info));
    ASSERT_NE(Info.Name, nullptr);
    ASSERT_NE(Info.Path, nullptr);
    ASSERT_NE(Info.SkipReason, nullptr);
    SCOPED_TRACE(testing::Message() << "adapter " << Info.Name << " at " << Info.Path);
    if (Info.Loaded) {
      EXPECT_STREQ(Info.SkipReason, "") << "a loaded adapter has no skip reason";
      Platforms += Info.NumPlatforms;
    } else {
      EXPECT_STRNE(Info.SkipReason, "") << "a skipped adapter says why";
      EXPECT_EQ(Info.NumPlatforms, 0u) << "a skipped adapter serves no platform";
    }
  }
  pi_uint32 Reported = 0;
  ASSERT_PI_SUCCESS(piPlatformsGet(0, nullptr, &Reported));
  EXPECT_EQ(Reported, Platforms) << "piPlatformsGet vs the loaded adapters' platforms";
  dglink_adapter_info Info{};
  EXPECT_PI_ERROR(PI_ERROR_INVALID_VALUE, dglinkDispatchAdapterInfo(Count, &Info));
  EXPECT_PI_ERROR(PI_ERROR_INVALID_VALUE, dglinkDispatchAdapterInfo(0, nullptr));
}

class PlatformInfo : public DeviceTest {};
DGLINK_INSTANTIATE_FOR_DEVICES(PlatformInfo);

TEST_P(PlatformInfo, Strings) {
  for (pi_platform_info Name : {PI_PLATFORM_INFO_NAME, PI_PLATFORM_INFO_VENDOR,
                                PI_PLATFORM_INFO_VERSION, PI_EXT_PLATFORM_INFO_BACKEND}) {
    SCOPED_TRACE(testing::Message() << "platform info 0x" << std::hex << Name);
    size_t Size = 0;
    ASSERT_PI_SUCCESS(piPlatformGetInfo(Platform, Name, 0, nullptr, &Size));
    ASSERT_GT(Size, 1u) << "an empty string";
    std::string Value(Size, 'x');
    size_t SizeAgain = 0;
    ASSERT_PI_SUCCESS(piPlatformGetInfo(Platform, Name, Size, Value.data(), &SizeAgain));
    EXPECT_EQ(SizeAgain, Size);
    EXPECT_EQ(std::strlen(Value.c_str()) + 1, Size) << "the size counts the text and its NUL";
  }
  std::string Backend;
  ASSERT_PI_SUCCESS(platformInfoString(Platform, PI_EXT_PLATFORM_INFO_BACKEND, Backend));
  EXPECT_EQ(Backend, GetParam().Backend);
}

TEST_P(PlatformInfo, TooSmallBuffer) {
  size_t Size = 0;
  ASSERT_PI_SUCCESS(piPlatformGetInfo(Platform, PI_PLATFORM_INFO_NAME, 0, nullptr, &Size));
  std::string Value(Size, 'x');
  EXPECT_PI_ERROR(PI_ERROR_INVALID_VALUE, piPlatformGetInfo(Platform, PI_PLATFORM_INFO_NAME,
                                                            Size - 1, Value.data(), nullptr));
}

class DeviceInfo : public DeviceTest {};
DGLINK_INSTANTIATE_FOR_DEVICES(DeviceInfo);

TEST_P(DeviceInfo, Type) {
  pi_device_type Type = 0;
  size_t Size = 0;
  ASSERT_PI_SUCCESS(piDeviceGetInfo(Device, PI_DEVICE_INFO_TYPE, sizeof(Type), &Type, &Size));
  EXPECT_EQ(Size, sizeof(pi_device_type));
  const pi_device_type Known = PI_DEVICE_TYPE_CPU | PI_DEVICE_TYPE_GPU | PI_DEVICE_TYPE_ACC;
  EXPECT_NE(Type & Known, 0u) << "type 0x" << std::hex << Type << " is not CPU, GPU or ACC";
}

TEST_P(DeviceInfo, Strings) {
  for (pi_device_info Name : {PI_DEVICE_INFO_NAME, PI_DEVICE_INFO_VENDOR, PI_DEVICE_INFO_VERSION,
                              PI_DEVICE_INFO_DRIVER_VERSION, PI_DEVICE_INFO_EXTENSIONS,
                              PI_EXT_DEVICE_INFO_LINK_FORMATS, PI_EXT_DEVICE_INFO_IMAGE_FORMATS,
                              PI_EXT_DEVICE_INFO_BACKEND_NAME}) {
    SCOPED_TRACE(testing::Message() << "device info 0x" << std::hex << Name);
    size_t Size = 0;
    ASSERT_PI_SUCCESS(piDeviceGetInfo(Device, Name, 0, nullptr, &Size));
    ASSERT_GE(Size, 1u) << "a string answer includes its NUL";
    std::string Value(Size, 'x');
    ASSERT_PI_SUCCESS(piDeviceGetInfo(Device, Name, Size, Value.data(), nullptr));
    EXPECT_EQ(std::strlen(Value.c_str()) + 1, Size) << "the size counts the text and its NUL";
  }
  EXPECT_FALSE(deviceString(PI_DEVICE_INFO_NAME).empty());
  EXPECT_FALSE(deviceString(PI_DEVICE_INFO_VENDOR).empty());
  EXPECT_FALSE(deviceString(PI_DEVICE_INFO_VERSION).empty());
  EXPECT_EQ(deviceString(PI_EXT_DEVICE_INFO_BACKEND_NAME), GetParam().Backend);
}

TEST_P(DeviceInfo, SizesReported) {
  struct Query {
    pi_device_info Name;
    size_t Size;
  };
  const Query Queries[] = {
      {PI_DEVICE_INFO_TYPE, sizeof(pi_device_type)},
      {PI_DEVICE_INFO_VENDOR_ID, sizeof(pi_uint32)},
      {PI_DEVICE_INFO_MAX_COMPUTE_UNITS, sizeof(pi_uint32)},
      {PI_DEVICE_INFO_MAX_WORK_GROUP_SIZE, sizeof(size_t)},
      {PI_DEVICE_INFO_GLOBAL_MEM_SIZE, sizeof(pi_uint64)},
      {PI_DEVICE_INFO_DOUBLE_FP_CONFIG, sizeof(pi_bitfield)},
      {PI_DEVICE_INFO_HALF_FP_CONFIG, sizeof(pi_bitfield)},
      {PI_DEVICE_INFO_AVAILABLE, sizeof(pi_bool)},
      {PI_DEVICE_INFO_COMPILER_AVAILABLE, sizeof(pi_bool)},
      {PI_DEVICE_INFO_LINKER_AVAILABLE, sizeof(pi_bool)},
      {PI_DEVICE_INFO_PLATFORM, sizeof(pi_platform)},
      {PI_EXT_DEVICE_INFO_USM_MECHANISM, sizeof(pi_usm_mechanism)},
      {PI_EXT_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM, sizeof(pi_device_global_mechanism)},
      {PI_EXT_DEVICE_INFO_EXECUTES_KERNELS, sizeof(pi_bool)},
      {PI_DEVICE_INFO_MAX_WORK_ITEM_DIMENSIONS, sizeof(pi_uint32)},
      {PI_DEVICE_INFO_MAX_WORK_ITEM_SIZES, 3 * sizeof(size_t)},
      {PI_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_CHAR, sizeof(pi_uint32)},
      {PI_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_HALF, sizeof(pi_uint32)},
      {PI_DEVICE_INFO_NATIVE_VECTOR_WIDTH_DOUBLE, sizeof(pi_uint32)},
      {PI_DEVICE_INFO_MAX_CLOCK_FREQUENCY, sizeof(pi_uint32)},
      {PI_DEVICE_INFO_ADDRESS_BITS, sizeof(pi_uint32)},
      {PI_DEVICE_INFO_MAX_MEM_ALLOC_SIZE, sizeof(pi_uint64)},
      {PI_DEVICE_INFO_IMAGE_SUPPORT, sizeof(pi_bool)},
      {PI_DEVICE_INFO_MAX_PARAMETER_SIZE, sizeof(size_t)},
      {PI_DEVICE_INFO_MEM_BASE_ADDR_ALIGN, sizeof(pi_uint32)},
      {PI_DEVICE_INFO_SINGLE_FP_CONFIG, sizeof(pi_bitfield)},
      {PI_DEVICE_INFO_GLOBAL_MEM_CACHE_TYPE, sizeof(pi_device_mem_cache_type)},
      {PI_DEVICE_INFO_GLOBAL_MEM_CACHELINE_SIZE, sizeof(pi_uint32)},
      {PI_DEVICE_INFO_GLOBAL_MEM_CACHE_SIZE, sizeof(pi_uint64)},
      {PI_DEVICE_INFO_MAX_CONSTANT_BUFFER_SIZE, sizeof(pi_uint64)},
      {PI_DEVICE_INFO_MAX_CONSTANT_ARGS, sizeof(pi_uint32)},
      {PI_DEVICE_INFO_LOCAL_MEM_TYPE, sizeof(pi_device_local_mem_type)},
      {PI_DEVICE_INFO_LOCAL_MEM_SIZE, sizeof(pi_uint64)},
      {PI_DEVICE_INFO_ERROR_CORRECTION_SUPPORT, sizeof(pi_bool)},
      {PI_DEVICE_INFO_PROFILING_TIMER_RESOLUTION, sizeof(size_t)},
      {PI_DEVICE_INFO_ENDIAN_LITTLE, sizeof(pi_bool)},
      {PI_DEVICE_INFO_EXECUTION_CAPABILITIES, sizeof(pi_bitfield)},
      {PI_DEVICE_INFO_HOST_UNIFIED_MEMORY, sizeof(pi_bool)},
      {PI_DEVICE_INFO_PREFERRED_INTEROP_USER_SYNC, sizeof(pi_bool)},
      {PI_DEVICE_INFO_PRINTF_BUFFER_SIZE, sizeof(size_t)},
      {PI_DEVICE_INFO_MAX_NUM_SUB_GROUPS, sizeof(pi_uint32)},
      {PI_DEVICE_INFO_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, sizeof(pi_bool)},
      {PI_DEVICE_INFO_ATOMIC_64, sizeof(pi_bool)},
      {PI_DEVICE_INFO_ATOMIC_MEMORY_ORDER_CAPABILITIES, sizeof(pi_memory_order_capabilities)},
      {PI_DEVICE_INFO_ATOMIC_MEMORY_SCOPE_CAPABILITIES, sizeof(pi_memory_scope_capabilities)},
      {PI_EXT_ONEAPI_DEVICE_INFO_MAX_GLOBAL_WORK_GROUPS, sizeof(size_t)},
      {PI_EXT_ONEAPI_DEVICE_INFO_MAX_WORK_GROUPS_3D, 3 * sizeof(size_t)},
  };
  for (const Query &Q : Queries) {
    SCOPED_TRACE(testing::Message() << "device info 0x" << std::hex << Q.Name);
    size_t Size = 0;
    ASSERT_PI_SUCCESS(piDeviceGetInfo(Device, Q.Name, 0, nullptr, &Size));
    EXPECT_EQ(Size, Q.Size);
    // The answer fits the size it reported.
    alignas(8) unsigned char Value[32] = {};
    EXPECT_PI_SUCCESS(piDeviceGetInfo(Device, Q.Name, Q.Size, Value, nullptr));
  }
}

// The limits agree with each other and with what the device computes: a device answers
// what it is, not a table of defaults.
TEST_P(DeviceInfo, LimitsAgree) {
  auto Scalar = [&](pi_device_info Name, auto &Out) {
    EXPECT_PI_SUCCESS(piDeviceGetInfo(Device, Name, sizeof(Out), &Out, nullptr))
        << "device info 0x" << std::hex << Name;
  };
  pi_uint64 Global = 0, MaxAlloc = 0, Local = 0;
  Scalar(PI_DEVICE_INFO_GLOBAL_MEM_SIZE, Global);
  Scalar(PI_DEVICE_INFO_MAX_MEM_ALLOC_SIZE, MaxAlloc);
  Scalar(PI_DEVICE_INFO_LOCAL_MEM_SIZE, Local);
  EXPECT_GT(MaxAlloc, 0u);
  EXPECT_LE(MaxAlloc, Global) << "one allocation larger than the device's memory";
  pi_device_local_mem_type LocalType = PI_DEVICE_LOCAL_MEM_TYPE_NONE;
  Scalar(PI_DEVICE_INFO_LOCAL_MEM_TYPE, LocalType);
  EXPECT_EQ(LocalType == PI_DEVICE_LOCAL_MEM_TYPE_NONE, Local == 0)
      << "local memory of type " << LocalType << " and size " << Local;
  // Vector widths of half and double are 0 exactly where the precision is not computed.
  pi_bitfield Half = 0, Double = 0, Single = 0;
  Scalar(PI_DEVICE_INFO_HALF_FP_CONFIG, Half);
  Scalar(PI_DEVICE_INFO_DOUBLE_FP_CONFIG, Double);
  Scalar(PI_DEVICE_INFO_SINGLE_FP_CONFIG, Single);
  EXPECT_NE(Single, 0u) << "every device computes floats";
  pi_uint32 Width = 0;
  Scalar(PI_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_HALF, Width);
  EXPECT_EQ(Width == 0, Half == 0) << "half: width " << Width << ", config " << Half;
  Scalar(PI_DEVICE_INFO_NATIVE_VECTOR_WIDTH_DOUBLE, Width);
  EXPECT_EQ(Width == 0, Double == 0) << "double: width " << Width << ", config " << Double;
  Scalar(PI_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_INT, Width);
  EXPECT_GE(Width, 1u);
  // PI has no image entry points: none through PI. Through UR images are served where the
  // driver has them (OpenCL, CUDA, HIP on NVIDIA; conformance/ur_face/images.cpp checks
  // them).
  pi_bool Images = PI_TRUE;
  Scalar(PI_DEVICE_INFO_IMAGE_SUPPORT, Images);
  if (!throughUnifiedRuntime()) {
    EXPECT_EQ(Images, PI_FALSE);
  }
  // Work-group limits: per dimension, and their product in all.
  size_t Groups[3] = {}, Total = 0;
  ASSERT_PI_SUCCESS(piDeviceGetInfo(Device, PI_EXT_ONEAPI_DEVICE_INFO_MAX_WORK_GROUPS_3D,
                                    sizeof(Groups), Groups, nullptr));
  Scalar(PI_EXT_ONEAPI_DEVICE_INFO_MAX_GLOBAL_WORK_GROUPS, Total);
  size_t Product = 1;
  for (size_t Each : Groups) {
    EXPECT_GT(Each, 0u);
    if (__builtin_mul_overflow(Product, Each, &Product))
      Product = SIZE_MAX;
  }
  EXPECT_EQ(Total, Product);
  // Atomics: relaxed order and work-group scope at least (OpenCL 3.0's minimum).
  pi_memory_order_capabilities Orders = 0;
  pi_memory_scope_capabilities Scopes = 0;
  Scalar(PI_DEVICE_INFO_ATOMIC_MEMORY_ORDER_CAPABILITIES, Orders);
  Scalar(PI_DEVICE_INFO_ATOMIC_MEMORY_SCOPE_CAPABILITIES, Scopes);
  EXPECT_NE(Orders & PI_MEMORY_ORDER_RELAXED, 0u);
  EXPECT_NE(Scopes & PI_MEMORY_SCOPE_WORK_GROUP, 0u);
  // 64-bit atomics wherever the extension string names them (CUDA and HIP name none).
  pi_bool Atomic64 = PI_FALSE;
  Scalar(PI_DEVICE_INFO_ATOMIC_64, Atomic64);
  if (hasExtension("cl_khr_int64_base_atomics") && hasExtension("cl_khr_int64_extended_atomics")) {
    EXPECT_EQ(Atomic64, PI_TRUE);
  }
  // Sub-group sizes: size_t each; the count of sub-groups at least one.
  size_t Bytes = 0;
  ASSERT_PI_SUCCESS(
      piDeviceGetInfo(Device, PI_DEVICE_INFO_SUB_GROUP_SIZES_INTEL, 0, nullptr, &Bytes));
  EXPECT_EQ(Bytes % sizeof(size_t), 0u);
  pi_uint32 SubGroups = 0;
  Scalar(PI_DEVICE_INFO_MAX_NUM_SUB_GROUPS, SubGroups);
  EXPECT_GE(SubGroups, 1u);
}

TEST_P(DeviceInfo, TooSmallBuffer) {
  size_t Size = 0;
  ASSERT_PI_SUCCESS(piDeviceGetInfo(Device, PI_DEVICE_INFO_NAME, 0, nullptr, &Size));
  std::string Name(Size, 'x');
  EXPECT_PI_ERROR(PI_ERROR_INVALID_VALUE,
                  piDeviceGetInfo(Device, PI_DEVICE_INFO_NAME, Size - 1, Name.data(), nullptr));
  pi_uint32 Half = 0; // half of a pi_device_type
  EXPECT_PI_ERROR(PI_ERROR_INVALID_VALUE,
                  piDeviceGetInfo(Device, PI_DEVICE_INFO_TYPE, sizeof(Half), &Half, nullptr));
}

TEST_P(DeviceInfo, PlatformMatches) {
  pi_platform Owner = nullptr;
  ASSERT_PI_SUCCESS(
      piDeviceGetInfo(Device, PI_DEVICE_INFO_PLATFORM, sizeof(Owner), &Owner, nullptr));
  EXPECT_EQ(Owner, Platform);
}

TEST_P(DeviceInfo, LinkFormatsMatchExtensions) {
  const std::vector<std::string> Formats = linkFormats();
  const std::vector<std::string> Extensions = splitWords(deviceString(PI_DEVICE_INFO_EXTENSIONS));
  auto Has = [](const std::vector<std::string> &List, const std::string &Word) {
    return std::find(List.begin(), List.end(), Word) != List.end();
  };
  for (const std::string &Format : Formats) {
    EXPECT_NE(findLinkFormat(Format), nullptr)
        << "link format '" << Format << "' is not one the conformance suite can prove";
    EXPECT_TRUE(Has(Extensions, "pi_ext_" + Format + "_linking"))
        << "link format '" << Format << "' without its extension string";
  }
  const std::string Prefix = "pi_ext_", Suffix = "_linking";
  for (const std::string &Extension : Extensions) {
    if (Extension.size() <= Prefix.size() + Suffix.size() ||
        Extension.compare(0, Prefix.size(), Prefix) != 0 ||
        Extension.compare(Extension.size() - Suffix.size(), Suffix.size(), Suffix) != 0)
      continue;
    const std::string Format =
        Extension.substr(Prefix.size(), Extension.size() - Prefix.size() - Suffix.size());
    EXPECT_TRUE(Has(Formats, Format)) << Extension << " is advertised but '" << Format
                                      << "' is not in PI_EXT_DEVICE_INFO_LINK_FORMATS";
  }
}

// A device builds every format it links; each format it names is one the suite knows.
TEST_P(DeviceInfo, ImageFormatsIncludeLinkFormats) {
  const std::vector<std::string> Built = imageFormats();
  for (const std::string &Format : linkFormats())
    EXPECT_NE(std::find(Built.begin(), Built.end(), Format), Built.end())
        << "link format '" << Format << "' is not in PI_EXT_DEVICE_INFO_IMAGE_FORMATS";
  for (const std::string &Format : Built)
    EXPECT_NE(findLinkFormat(Format), nullptr) << "image format '" << Format << "' is unknown";
}

TEST_P(DeviceInfo, Mechanisms) {
  const pi_usm_mechanism Usm = usmMechanism();
  EXPECT_TRUE(Usm == PI_USM_MECHANISM_NONE || Usm == PI_USM_MECHANISM_NATIVE ||
              Usm == PI_USM_MECHANISM_SVM)
      << "USM mechanism " << Usm;
  pi_device_global_mechanism Globals = PI_DEVICE_GLOBAL_MECHANISM_NONE;
  ASSERT_PI_SUCCESS(piDeviceGetInfo(Device, PI_EXT_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM,
                                    sizeof(Globals), &Globals, nullptr));
  EXPECT_TRUE(Globals == PI_DEVICE_GLOBAL_MECHANISM_NONE ||
              Globals == PI_DEVICE_GLOBAL_MECHANISM_NATIVE ||
              Globals == PI_DEVICE_GLOBAL_MECHANISM_LOWERED)
      << "device-global mechanism " << Globals;
  // The string promises what the mechanism delivers (docs/extension-strings.md).
  EXPECT_EQ(hasExtension(PI_EXT_DEVICE_GLOBAL_ACCESS), Globals != PI_DEVICE_GLOBAL_MECHANISM_NONE)
      << "device-global mechanism " << Globals << " vs " PI_EXT_DEVICE_GLOBAL_ACCESS;
}

TEST_P(DeviceInfo, RetainRelease) {
  EXPECT_PI_SUCCESS(piDeviceRetain(Device));
  EXPECT_PI_SUCCESS(piDeviceRelease(Device));
}

} // namespace
} // namespace dglink::conformance
