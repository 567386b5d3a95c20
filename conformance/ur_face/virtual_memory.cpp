// Virtual and physical memory (urVirtualMem*, urPhysicalMem*), the context's own USM copy
// (urUSMContextMemcpyExp), the device's global timer and the suggested local size through
// UR (docs/ur.md). Where a device has virtual memory (CUDA, HIP on NVIDIA) the whole life
// of a mapping runs and its bytes are written and read through the mapping; elsewhere the
// refusals are checked. A scenario of dglink_conformance_ur only; through the bridge a
// pi_* handle is the UR handle.
#include "fixtures.h"
#include "ur_handles.h"

#include <unified-runtime/ur_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <thread>
#include <vector>

namespace dglink::conformance {
namespace {

bool deviceSays(ur_device_handle_t Device, ur_device_info_t Name) {
  ur_bool_t Value = false;
  EXPECT_EQ(urDeviceGetInfo(Device, Name, sizeof(Value), &Value, nullptr), UR_RESULT_SUCCESS);
  return Value != 0;
}

// ---- virtual and physical memory ----

class UrVirtualMemory : public QueueTest {};

// What every device checks, with or without virtual memory: UR's argument checks come
// before anything the device can or cannot do.
TEST_P(UrVirtualMemory, ArgumentsAreCheckedFirst) {
  const ur_context_handle_t C = asUr(Context.get());
  const ur_device_handle_t D = asUr(Device);
  size_t Granularity = 0;
  EXPECT_EQ(urVirtualMemGranularityGetInfo(C, D, 1, UR_VIRTUAL_MEM_GRANULARITY_INFO_FORCE_UINT32,
                                           sizeof(Granularity), &Granularity, nullptr),
            UR_RESULT_ERROR_INVALID_ENUMERATION);
  EXPECT_EQ(urVirtualMemGranularityGetInfo(C, D, 1, UR_VIRTUAL_MEM_GRANULARITY_INFO_MINIMUM, 0,
                                           nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(urVirtualMemGranularityGetInfo(C, D, 1, UR_VIRTUAL_MEM_GRANULARITY_INFO_MINIMUM, 0,
                                           &Granularity, nullptr),
            UR_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(urVirtualMemReserve(C, nullptr, 4096, nullptr), UR_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(urVirtualMemFree(C, nullptr, 4096), UR_RESULT_ERROR_INVALID_NULL_POINTER);
  int Anything = 0;
  EXPECT_EQ(urVirtualMemSetAccess(C, &Anything, 4096, UR_VIRTUAL_MEM_ACCESS_FLAG_FORCE_UINT32),
            UR_RESULT_ERROR_INVALID_ENUMERATION);
  EXPECT_EQ(urVirtualMemGetInfo(C, &Anything, 4096, UR_VIRTUAL_MEM_INFO_FORCE_UINT32, 0, nullptr,
                                &Granularity),
            UR_RESULT_ERROR_INVALID_ENUMERATION);
  ur_physical_mem_handle_t Physical = nullptr;
  const ur_physical_mem_properties_t Undefined{UR_STRUCTURE_TYPE_PHYSICAL_MEM_PROPERTIES, nullptr,
                                               UR_PHYSICAL_MEM_FLAG_FORCE_UINT32};
  EXPECT_EQ(urPhysicalMemCreate(C, D, 4096, &Undefined, &Physical),
            UR_RESULT_ERROR_INVALID_ENUMERATION);
  EXPECT_EQ(urPhysicalMemCreate(C, D, 4096, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(Physical, nullptr);
}

// A device without virtual memory says so, and every entry point that would need it
// refuses with UNSUPPORTED_FEATURE and a message (OpenCL, Level Zero, HIP on AMD).
TEST_P(UrVirtualMemory, RefusedWhereTheDeviceHasNone) {
  const ur_device_handle_t D = asUr(Device);
  if (deviceSays(D, UR_DEVICE_INFO_VIRTUAL_MEMORY_SUPPORT))
    GTEST_SKIP() << "the device has virtual memory (MappedBytesRoundTrip runs it)";
  const ur_context_handle_t C = asUr(Context.get());
  size_t Granularity = 0;
  EXPECT_EQ(urVirtualMemGranularityGetInfo(C, D, 1, UR_VIRTUAL_MEM_GRANULARITY_INFO_MINIMUM,
                                           sizeof(Granularity), &Granularity, nullptr),
            UR_RESULT_ERROR_UNSUPPORTED_FEATURE);
  EXPECT_NE(urLastError(Platform).find("virtual memory"), std::string::npos)
      << urLastError(Platform);
  void *Start = nullptr;
  EXPECT_EQ(urVirtualMemReserve(C, nullptr, 1 << 21, &Start), UR_RESULT_ERROR_UNSUPPORTED_FEATURE);
  EXPECT_EQ(Start, nullptr);
  ur_physical_mem_handle_t Physical = nullptr;
  EXPECT_EQ(urPhysicalMemCreate(C, D, 1 << 21, nullptr, &Physical),
            UR_RESULT_ERROR_UNSUPPORTED_FEATURE);
  EXPECT_EQ(Physical, nullptr);
}

// The life of a mapping: granularities, physical memory and its queries and reference
// count, a reservation, a mapping written and read through USM copies, its access changed
// and read back, then everything undone.
TEST_P(UrVirtualMemory, MappedBytesRoundTrip) {
  const ur_device_handle_t D = asUr(Device);
  if (!deviceSays(D, UR_DEVICE_INFO_VIRTUAL_MEMORY_SUPPORT))
    GTEST_SKIP() << "the device has no virtual memory (UR_DEVICE_INFO_VIRTUAL_MEMORY_SUPPORT)";
  const ur_context_handle_t C = asUr(Context.get());
  size_t Minimum = 0, Recommended = 0, Size = 0;
  ASSERT_EQ(urVirtualMemGranularityGetInfo(C, D, 1, UR_VIRTUAL_MEM_GRANULARITY_INFO_MINIMUM, 0,
                                           nullptr, &Size),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(Size, sizeof(size_t));
  ASSERT_EQ(urVirtualMemGranularityGetInfo(C, D, 1, UR_VIRTUAL_MEM_GRANULARITY_INFO_MINIMUM,
                                           sizeof(Minimum), &Minimum, nullptr),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_EQ(urVirtualMemGranularityGetInfo(C, nullptr, 1,
                                           UR_VIRTUAL_MEM_GRANULARITY_INFO_RECOMMENDED,
                                           sizeof(Recommended), &Recommended, nullptr),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_GT(Minimum, 0u);
  EXPECT_EQ(Recommended % Minimum, 0u);

  const size_t Bytes = 2 * Minimum;
  ur_physical_mem_handle_t Physical = nullptr;
  EXPECT_EQ(urPhysicalMemCreate(C, D, Bytes - 1, nullptr, &Physical), UR_RESULT_ERROR_INVALID_SIZE);
  ASSERT_EQ(urPhysicalMemCreate(C, D, Bytes, nullptr, &Physical), UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ur_context_handle_t OfContext = nullptr;
  ur_device_handle_t OfDevice = nullptr;
  size_t OfSize = 0;
  ur_physical_mem_properties_t Properties{};
  // A handle's size: the pointer the query writes.
  constexpr size_t HandleBytes = sizeof(void *);
  EXPECT_EQ(urPhysicalMemGetInfo(Physical, UR_PHYSICAL_MEM_INFO_CONTEXT, HandleBytes, &OfContext,
                                 nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(
      urPhysicalMemGetInfo(Physical, UR_PHYSICAL_MEM_INFO_DEVICE, HandleBytes, &OfDevice, nullptr),
      UR_RESULT_SUCCESS);
  EXPECT_EQ(
      urPhysicalMemGetInfo(Physical, UR_PHYSICAL_MEM_INFO_SIZE, sizeof(OfSize), &OfSize, nullptr),
      UR_RESULT_SUCCESS);
  EXPECT_EQ(urPhysicalMemGetInfo(Physical, UR_PHYSICAL_MEM_INFO_PROPERTIES, sizeof(Properties),
                                 &Properties, nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(OfContext, C);
  EXPECT_EQ(OfDevice, D);
  EXPECT_EQ(OfSize, Bytes);
  EXPECT_EQ(Properties.stype, UR_STRUCTURE_TYPE_PHYSICAL_MEM_PROPERTIES);
  EXPECT_EQ(Properties.flags, 0u);
  auto References = [&] {
    uint32_t Count = 0;
    EXPECT_EQ(urPhysicalMemGetInfo(Physical, UR_PHYSICAL_MEM_INFO_REFERENCE_COUNT, sizeof(Count),
                                   &Count, nullptr),
              UR_RESULT_SUCCESS);
    return Count;
  };
  EXPECT_EQ(References(), 1u);
  ASSERT_EQ(urPhysicalMemRetain(Physical), UR_RESULT_SUCCESS);
  EXPECT_EQ(References(), 2u);
  ASSERT_EQ(urPhysicalMemRelease(Physical), UR_RESULT_SUCCESS);
  EXPECT_EQ(References(), 1u);

  void *Start = nullptr;
  ASSERT_EQ(urVirtualMemReserve(C, nullptr, Bytes, &Start), UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_NE(Start, nullptr);
  // Past the physical memory's end: refused before the driver is asked.
  EXPECT_EQ(
      urVirtualMemMap(C, Start, Bytes, Physical, Minimum, UR_VIRTUAL_MEM_ACCESS_FLAG_READ_WRITE),
      UR_RESULT_ERROR_INVALID_SIZE);
  ASSERT_EQ(urVirtualMemMap(C, Start, Bytes, Physical, 0, UR_VIRTUAL_MEM_ACCESS_FLAG_READ_WRITE),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ur_virtual_mem_access_flags_t Access = 0;
  EXPECT_EQ(urVirtualMemGetInfo(C, Start, Bytes, UR_VIRTUAL_MEM_INFO_ACCESS_MODE, sizeof(Access),
                                &Access, nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(Access, UR_VIRTUAL_MEM_ACCESS_FLAG_READ_WRITE);

  // The mapping is device memory the queue copies to and from.
  std::vector<uint32_t> Data(Bytes / sizeof(uint32_t));
  std::iota(Data.begin(), Data.end(), 7u);
  std::vector<uint32_t> Back(Data.size(), 0);
  const ur_queue_handle_t Q = asUr(Queue.get());
  ASSERT_EQ(urEnqueueUSMMemcpy(Q, true, Start, Data.data(), Bytes, 0, nullptr, nullptr),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  ASSERT_EQ(urEnqueueUSMMemcpy(Q, true, Back.data(), Start, Bytes, 0, nullptr, nullptr),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  EXPECT_EQ(Back, Data);

  ASSERT_EQ(urVirtualMemSetAccess(C, Start, Bytes, UR_VIRTUAL_MEM_ACCESS_FLAG_READ_ONLY),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  EXPECT_EQ(urVirtualMemGetInfo(C, Start, Bytes, UR_VIRTUAL_MEM_INFO_ACCESS_MODE, sizeof(Access),
                                &Access, nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(Access, UR_VIRTUAL_MEM_ACCESS_FLAG_READ_ONLY);
  // Released while mapped: the mapping keeps the memory until it is unmapped.
  ASSERT_EQ(urPhysicalMemRelease(Physical), UR_RESULT_SUCCESS);
  std::fill(Back.begin(), Back.end(), 0u);
  ASSERT_EQ(urEnqueueUSMMemcpy(Q, true, Back.data(), Start, Bytes, 0, nullptr, nullptr),
            UR_RESULT_SUCCESS)
      << urLastError(Platform);
  EXPECT_EQ(Back, Data);
  EXPECT_EQ(urVirtualMemUnmap(C, Start, Bytes), UR_RESULT_SUCCESS) << urLastError(Platform);
  EXPECT_EQ(urVirtualMemFree(C, Start, Bytes), UR_RESULT_SUCCESS) << urLastError(Platform);
}

DGLINK_INSTANTIATE_FOR_DEVICES(UrVirtualMemory);

// ---- the context's own USM copy ----

class UrContextMemcpy : public QueueTest {};

// A blocking copy with no queue of the caller's, between device USM and host USM (where
// the device has host USM: NVIDIA's OpenCL has none, and there the host's bytes go through
// the queue), on every device with USM; UR's argument checks.
TEST_P(UrContextMemcpy, CopiesAndBlocks) {
  const ur_device_handle_t D = asUr(Device);
  const bool Says = deviceSays(D, UR_DEVICE_INFO_USM_CONTEXT_MEMCPY_SUPPORT_EXP);
  EXPECT_EQ(Says, usmMechanism() != PI_USM_MECHANISM_NONE);
  if (!Says)
    GTEST_SKIP() << "device has no USM (PI_EXT_DEVICE_INFO_USM_MECHANISM is NONE)";
  ur_device_usm_access_capability_flags_t HostUsm = 0;
  ASSERT_EQ(urDeviceGetInfo(D, UR_DEVICE_INFO_USM_HOST_SUPPORT, sizeof(HostUsm), &HostUsm, nullptr),
            UR_RESULT_SUCCESS);
  const ur_context_handle_t C = asUr(Context.get());
  const ur_queue_handle_t Q = asUr(Queue.get());
  constexpr size_t Bytes = 1 << 16;
  void *DeviceA = nullptr;
  void *DeviceB = nullptr;
  void *Host = nullptr;
  std::vector<uint8_t> Plain(Bytes);
  ASSERT_EQ(urUSMDeviceAlloc(C, D, nullptr, nullptr, Bytes, &DeviceA), UR_RESULT_SUCCESS);
  ASSERT_EQ(urUSMDeviceAlloc(C, D, nullptr, nullptr, Bytes, &DeviceB), UR_RESULT_SUCCESS);
  if (HostUsm != 0) {
    ASSERT_EQ(urUSMHostAlloc(C, nullptr, nullptr, Bytes, &Host), UR_RESULT_SUCCESS);
  }
  std::vector<uint8_t> Data(Bytes);
  std::iota(Data.begin(), Data.end(), uint8_t{5});
  if (Host != nullptr) {
    std::copy(Data.begin(), Data.end(), static_cast<uint8_t *>(Host));
    EXPECT_EQ(urUSMContextMemcpyExp(C, DeviceA, Host, Bytes), UR_RESULT_SUCCESS)
        << urLastError(Platform);
  } else {
    ASSERT_EQ(urEnqueueUSMMemcpy(Q, true, DeviceA, Data.data(), Bytes, 0, nullptr, nullptr),
              UR_RESULT_SUCCESS);
  }
  EXPECT_EQ(urUSMContextMemcpyExp(C, DeviceB, DeviceA, Bytes), UR_RESULT_SUCCESS)
      << urLastError(Platform);
  uint8_t *Back = Plain.data();
  if (Host != nullptr) {
    Back = static_cast<uint8_t *>(Host);
    std::fill_n(Back, Bytes, uint8_t{0});
    EXPECT_EQ(urUSMContextMemcpyExp(C, Host, DeviceB, Bytes), UR_RESULT_SUCCESS)
        << urLastError(Platform);
  } else {
    ASSERT_EQ(urEnqueueUSMMemcpy(Q, true, Back, DeviceB, Bytes, 0, nullptr, nullptr),
              UR_RESULT_SUCCESS);
  }
  // Blocking: the bytes are there when the call returns.
  EXPECT_TRUE(std::equal(Data.begin(), Data.end(), Back));
  EXPECT_EQ(urUSMContextMemcpyExp(C, DeviceB, DeviceA, 0), UR_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(urUSMContextMemcpyExp(C, nullptr, DeviceA, Bytes),
            UR_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(urUSMContextMemcpyExp(C, DeviceB, nullptr, Bytes),
            UR_RESULT_ERROR_INVALID_NULL_POINTER);
  for (void *Pointer : {DeviceA, DeviceB, Host})
    if (Pointer != nullptr) {
      EXPECT_EQ(urUSMFree(C, Pointer), UR_RESULT_SUCCESS);
    }
}

DGLINK_INSTANTIATE_FOR_DEVICES(UrContextMemcpy);

// ---- the device's timer and a launch's suggested local size ----

class UrDeviceTimerAndLaunch : public BuiltProgramTest {};

// The host's timer always; the device's where its backend has one (the stream backend:
// the clock its events' profiling times use), advancing with the host's.
TEST_P(UrDeviceTimerAndLaunch, GlobalTimestamps) {
  const ur_device_handle_t D = asUr(Device);
  uint64_t HostOnly = 0;
  ASSERT_EQ(urDeviceGetGlobalTimestamps(D, nullptr, &HostOnly), UR_RESULT_SUCCESS);
  EXPECT_NE(HostOnly, 0u);
  EXPECT_EQ(urDeviceGetGlobalTimestamps(D, nullptr, nullptr), UR_RESULT_SUCCESS);
  uint64_t DeviceStart = 0, HostStart = 0;
  const ur_result_t Result = urDeviceGetGlobalTimestamps(D, &DeviceStart, &HostStart);
  if (Result == UR_RESULT_ERROR_UNSUPPORTED_FEATURE)
    GTEST_SKIP() << "no global timer of this device: " << urLastError(Platform);
  ASSERT_EQ(Result, UR_RESULT_SUCCESS) << urLastError(Platform);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  uint64_t DeviceEnd = 0, HostEnd = 0;
  ASSERT_EQ(urDeviceGetGlobalTimestamps(D, &DeviceEnd, &HostEnd), UR_RESULT_SUCCESS);
  EXPECT_GT(DeviceEnd, DeviceStart);
  EXPECT_GT(HostEnd, HostStart);
  const double DeviceSpan = static_cast<double>(DeviceEnd - DeviceStart);
  const double HostSpan = static_cast<double>(HostEnd - HostStart);
  EXPECT_NEAR(DeviceSpan / HostSpan, 1.0, 0.05);
}

// A suggestion that divides the global sizes within the kernel's and the device's limits,
// for one to three dimensions; the launch's checks.
TEST_P(UrDeviceTimerAndLaunch, SuggestedLocalSizeDividesTheGlobalOne) {
  ProgramHandle Program;
  ASSERT_NO_FATAL_FAILURE(buildProgram("pattern", Program));
  KernelHandle Kernel;
  ASSERT_NO_FATAL_FAILURE(createKernel(Program.get(), "fill_pattern", Kernel));
  const ur_kernel_handle_t K = asUr(Kernel.get());
  const ur_queue_handle_t Q = asUr(Queue.get());
  size_t MostPerGroup = 0;
  ASSERT_EQ(urKernelGetGroupInfo(K, asUr(Device), UR_KERNEL_GROUP_INFO_WORK_GROUP_SIZE,
                                 sizeof(MostPerGroup), &MostPerGroup, nullptr),
            UR_RESULT_SUCCESS);
  const size_t Offset[3] = {0, 0, 0};
  const size_t Global[3] = {96, 10, 7};
  for (uint32_t Dimensions = 1; Dimensions <= 3; ++Dimensions) {
    size_t Local[3] = {0, 0, 0};
    ASSERT_EQ(urKernelGetSuggestedLocalWorkSize(K, Q, Dimensions, Offset, Global, Local),
              UR_RESULT_SUCCESS)
        << urLastError(Platform);
    size_t Threads = 1;
    for (uint32_t I = 0; I < Dimensions; ++I) {
      ASSERT_GE(Local[I], 1u);
      EXPECT_EQ(Global[I] % Local[I], 0u) << "dimension " << I;
      Threads *= Local[I];
    }
    EXPECT_LE(Threads, MostPerGroup);
  }
  size_t Local[3] = {0, 0, 0};
  EXPECT_EQ(urKernelGetSuggestedLocalWorkSize(K, Q, 4, Offset, Global, Local),
            UR_RESULT_ERROR_INVALID_WORK_DIMENSION);
  const size_t Zero[1] = {0};
  EXPECT_EQ(urKernelGetSuggestedLocalWorkSize(K, Q, 1, Offset, Zero, Local),
            UR_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION);
  EXPECT_EQ(urKernelGetSuggestedLocalWorkSize(K, Q, 1, nullptr, Global, Local),
            UR_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(urKernelGetSuggestedLocalWorkSize(K, Q, 1, Offset, Global, nullptr),
            UR_RESULT_ERROR_INVALID_NULL_POINTER);
}

DGLINK_INSTANTIATE_FOR_DEVICES(UrDeviceTimerAndLaunch);

} // namespace
} // namespace dglink::conformance
