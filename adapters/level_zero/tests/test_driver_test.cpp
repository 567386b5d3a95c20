// The Level Zero test driver through the real Level Zero loader (ctest sets
// ZE_ENABLE_ALT_DRIVERS to it): that the loader loads it, that it says it is
// a test driver that runs no kernels, module globals with real storage and the
// seed's lookup rule, copies and events, dynamic linking and its failures; with
// DGLINK_ZE_TEST_DEVICES=2, that memory, modules, command lists and event pools belong
// to their devices as Level Zero says.
#include "spirv_builder.h"

#include <level_zero/ze_api.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace dglink::ze_test {
namespace {

class TestDriver : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    const char *Alt = std::getenv("ZE_ENABLE_ALT_DRIVERS");
    ASSERT_TRUE(Alt != nullptr && *Alt != '\0') << "ZE_ENABLE_ALT_DRIVERS is not set";
    ASSERT_EQ(zeInit(0), ZE_RESULT_SUCCESS) << "the loader did not load " << Alt;
  }
  void SetUp() override {
    uint32_t Count = 0;
    ASSERT_EQ(zeDriverGet(&Count, nullptr), ZE_RESULT_SUCCESS);
    ASSERT_EQ(Count, 1u);
    ASSERT_EQ(zeDriverGet(&Count, &Driver), ZE_RESULT_SUCCESS);
    Count = 1;
    ASSERT_EQ(zeDeviceGet(Driver, &Count, &Device), ZE_RESULT_SUCCESS);
    ASSERT_EQ(Count, 1u);
    ze_context_desc_t Desc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
    ASSERT_EQ(zeContextCreate(Driver, &Desc, &Context), ZE_RESULT_SUCCESS);
    ze_command_queue_desc_t ListDesc = {};
    ListDesc.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
    ASSERT_EQ(zeCommandListCreateImmediate(Context, Device, &ListDesc, &List), ZE_RESULT_SUCCESS);
    ze_event_pool_desc_t PoolDesc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr,
                                     ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 4};
    ASSERT_EQ(zeEventPoolCreate(Context, &PoolDesc, 1, &Device, &Pool), ZE_RESULT_SUCCESS);
    for (uint32_t I = 0; I < 2; ++I) {
      ze_event_desc_t EventDesc = {ZE_STRUCTURE_TYPE_EVENT_DESC, nullptr, I,
                                   ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
      ASSERT_EQ(zeEventCreate(Pool, &EventDesc, &Events[I]), ZE_RESULT_SUCCESS);
    }
  }
  void TearDown() override {
    for (ze_module_handle_t Module : Modules)
      EXPECT_EQ(zeModuleDestroy(Module), ZE_RESULT_SUCCESS);
    for (ze_event_handle_t Event : Events) {
      if (Event != nullptr) {
        EXPECT_EQ(zeEventDestroy(Event), ZE_RESULT_SUCCESS);
      }
    }
    if (Pool != nullptr) {
      EXPECT_EQ(zeEventPoolDestroy(Pool), ZE_RESULT_SUCCESS);
    }
    if (List != nullptr) {
      EXPECT_EQ(zeCommandListDestroy(List), ZE_RESULT_SUCCESS);
    }
    if (Context != nullptr) {
      EXPECT_EQ(zeContextDestroy(Context), ZE_RESULT_SUCCESS);
    }
  }

  // zeModuleCreate of Bytes (for On, else the first device); Log gets the build log.
  ze_result_t createModule(const std::vector<uint8_t> &Bytes, ze_module_handle_t &Module,
                           std::string &Log, const char *Flags = "",
                           ze_module_format_t Format = ZE_MODULE_FORMAT_IL_SPIRV,
                           ze_device_handle_t On = nullptr) {
    ze_module_desc_t Desc = {};
    Desc.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
    Desc.format = Format;
    Desc.inputSize = Bytes.size();
    Desc.pInputModule = Bytes.data();
    Desc.pBuildFlags = Flags;
    ze_module_build_log_handle_t BuildLog = nullptr;
    Module = nullptr;
    const ze_result_t Result =
        zeModuleCreate(Context, On != nullptr ? On : Device, &Desc, &Module, &BuildLog);
    Log = takeLog(BuildLog);
    if (Module != nullptr)
      Modules.push_back(Module);
    return Result;
  }
  static std::string takeLog(ze_module_build_log_handle_t Log) {
    if (Log == nullptr)
      return "(no log)";
    size_t Size = 0;
    EXPECT_EQ(zeModuleBuildLogGetString(Log, &Size, nullptr), ZE_RESULT_SUCCESS);
    std::string Text(Size, '\0');
    EXPECT_EQ(zeModuleBuildLogGetString(Log, &Size, Text.data()), ZE_RESULT_SUCCESS);
    EXPECT_EQ(zeModuleBuildLogDestroy(Log), ZE_RESULT_SUCCESS);
    return Text.c_str();
  }
  std::vector<uint8_t> image(const char *Name) {
    return readSpirvFile(DGLINK_ZE_TEST_SPIRV_DIR, Name);
  }

  ze_driver_handle_t Driver = nullptr;
  ze_device_handle_t Device = nullptr;
  ze_context_handle_t Context = nullptr;
  ze_command_list_handle_t List = nullptr;
  ze_event_pool_handle_t Pool = nullptr;
  ze_event_handle_t Events[2] = {nullptr, nullptr};
  std::vector<ze_module_handle_t> Modules;
};

#define SKIP_WITHOUT(Bytes, Name)                                                                  \
  if ((Bytes).empty())                                                                             \
  GTEST_SKIP() << "no " Name ".spv (llvm-spirv-15 missing when dglink was built)"

TEST_F(TestDriver, SaysItIsATestDriverThatRunsNoKernels) {
  ze_device_properties_t Properties = {};
  Properties.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  ASSERT_EQ(zeDeviceGetProperties(Device, &Properties), ZE_RESULT_SUCCESS);
  EXPECT_NE(std::string(Properties.name).find("dglink Level Zero test driver"), std::string::npos)
      << Properties.name;
  EXPECT_NE(std::string(Properties.name).find("executes no kernels"), std::string::npos);
  EXPECT_NE(Properties.vendorId, 0x8086u) << "the test driver must not pass for Intel hardware";
  EXPECT_NE(Properties.type, ZE_DEVICE_TYPE_GPU);
  uint32_t Count = 0;
  ASSERT_EQ(zeDriverGetExtensionProperties(Driver, &Count, nullptr), ZE_RESULT_SUCCESS);
  std::vector<ze_driver_extension_properties_t> Extensions(Count);
  ASSERT_EQ(zeDriverGetExtensionProperties(Driver, &Count, Extensions.data()), ZE_RESULT_SUCCESS);
  bool Found = false;
  for (const auto &Extension : Extensions)
    Found = Found || std::string(Extension.name) == "dglink_test_driver_no_kernel_execution";
  EXPECT_TRUE(Found);
}

// As a real driver: a precision's fp capabilities exactly where its flag is set. The
// flags are DGLINK_ZE_TEST_MODULE_FLAGS's (fp64 and int64 atomics where it is unset).
TEST_F(TestDriver, ModulePropertiesAreThoseOfARealDriver) {
  ze_device_module_properties_t Module = {};
  Module.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES;
  ASSERT_EQ(zeDeviceGetModuleProperties(Device, &Module), ZE_RESULT_SUCCESS);
  if (std::getenv("DGLINK_ZE_TEST_MODULE_FLAGS") == nullptr) {
    EXPECT_EQ(Module.flags, ZE_DEVICE_MODULE_FLAG_FP64 | ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS);
  }
  EXPECT_EQ((Module.flags & ZE_DEVICE_MODULE_FLAG_FP16) != 0, Module.fp16flags != 0);
  EXPECT_EQ((Module.flags & ZE_DEVICE_MODULE_FLAG_FP64) != 0, Module.fp64flags != 0);
  EXPECT_NE(Module.fp32flags, 0u);
  EXPECT_EQ(Module.spirvVersionSupported, ZE_MAKE_VERSION(1, 4));
}

TEST_F(TestDriver, UsmCopiesAndFillsWithEvents) {
  void *DeviceMemory = nullptr;
  ze_device_mem_alloc_desc_t DeviceDesc = {};
  DeviceDesc.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC;
  ASSERT_EQ(zeMemAllocDevice(Context, &DeviceDesc, 64, 0, Device, &DeviceMemory),
            ZE_RESULT_SUCCESS);
  ze_memory_allocation_properties_t Properties = {};
  Properties.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES;
  ASSERT_EQ(zeMemGetAllocProperties(Context, DeviceMemory, &Properties, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(Properties.type, ZE_MEMORY_TYPE_DEVICE);

  const uint32_t Pattern = 0xC0FFEE11;
  ASSERT_EQ(zeCommandListAppendMemoryFill(List, DeviceMemory, &Pattern, 4, 64, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  std::vector<uint32_t> Source = {1, 2, 3, 4};
  ASSERT_EQ(zeCommandListAppendMemoryCopy(List, static_cast<char *>(DeviceMemory) + 8,
                                          Source.data(), 16, Events[0], 0, nullptr),
            ZE_RESULT_SUCCESS);
  std::vector<uint32_t> Back(16, 0);
  ASSERT_EQ(
      zeCommandListAppendMemoryCopy(List, Back.data(), DeviceMemory, 64, Events[1], 1, &Events[0]),
      ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventHostSynchronize(Events[1], UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventQueryStatus(Events[0]), ZE_RESULT_SUCCESS);
  for (size_t I = 0; I < 16; ++I)
    EXPECT_EQ(Back[I], I >= 2 && I < 6 ? Source[I - 2] : Pattern) << I;

  // A copy that runs past the end of the allocation is refused.
  EXPECT_EQ(zeCommandListAppendMemoryCopy(List, static_cast<char *>(DeviceMemory) + 60,
                                          Source.data(), 16, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_SIZE);
  // Waiting on an event nothing signaled would never end: refused.
  ASSERT_EQ(zeEventHostReset(Events[0]), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventQueryStatus(Events[0]), ZE_RESULT_NOT_READY);
  EXPECT_EQ(zeCommandListAppendBarrier(List, nullptr, 1, &Events[0]),
            ZE_RESULT_ERROR_NOT_AVAILABLE);
  int Unrelated = 0;
  EXPECT_EQ(zeMemFree(Context, &Unrelated), ZE_RESULT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(zeMemFree(Context, DeviceMemory), ZE_RESULT_SUCCESS);
}

// Events of a timestamp pool record when their command ran, on the clock that
// zeDeviceGetGlobalTimestamps reads (1 ns a tick, 64 bits); others record nothing.
TEST_F(TestDriver, TimestampEventsRecordWhenTheirCommandRan) {
  ze_device_properties_t Properties = {};
  Properties.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  ASSERT_EQ(zeDeviceGetProperties(Device, &Properties), ZE_RESULT_SUCCESS);
  EXPECT_EQ(Properties.timerResolution, 1u);
  EXPECT_EQ(Properties.kernelTimestampValidBits, 64u);
  ze_event_pool_desc_t PoolDesc = {
      ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr,
      ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, 1};
  ze_event_pool_handle_t Stamped = nullptr;
  ASSERT_EQ(zeEventPoolCreate(Context, &PoolDesc, 1, &Device, &Stamped), ZE_RESULT_SUCCESS);
  ze_event_desc_t EventDesc = {ZE_STRUCTURE_TYPE_EVENT_DESC, nullptr, 0, ZE_EVENT_SCOPE_FLAG_HOST,
                               ZE_EVENT_SCOPE_FLAG_HOST};
  ze_event_handle_t Event = nullptr;
  ASSERT_EQ(zeEventCreate(Stamped, &EventDesc, &Event), ZE_RESULT_SUCCESS);
  ze_kernel_timestamp_result_t Times = {};
  EXPECT_EQ(zeEventQueryKernelTimestamp(Event, &Times), ZE_RESULT_NOT_READY);
  uint64_t HostBefore = 0, Before = 0;
  ASSERT_EQ(zeDeviceGetGlobalTimestamps(Device, &HostBefore, &Before), ZE_RESULT_SUCCESS);
  std::vector<uint8_t> From(1 << 20, 5), To(1 << 20, 0);
  ASSERT_EQ(
      zeCommandListAppendMemoryCopy(List, To.data(), From.data(), From.size(), Event, 0, nullptr),
      ZE_RESULT_SUCCESS);
  uint64_t HostAfter = 0, After = 0;
  ASSERT_EQ(zeDeviceGetGlobalTimestamps(Device, &HostAfter, &After), ZE_RESULT_SUCCESS);
  EXPECT_EQ(To, From);
  ASSERT_EQ(zeEventQueryKernelTimestamp(Event, &Times), ZE_RESULT_SUCCESS);
  EXPECT_LE(Before, Times.global.kernelStart);
  EXPECT_LE(Times.global.kernelStart, Times.global.kernelEnd);
  EXPECT_LE(Times.global.kernelEnd, After);
  EXPECT_LE(HostBefore, HostAfter);
  EXPECT_EQ(zeEventQueryKernelTimestamp(Events[0], &Times), ZE_RESULT_ERROR_INVALID_ARGUMENT)
      << "an event of a pool without ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP";
  EXPECT_EQ(zeEventQueryKernelTimestamp(Event, nullptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeEventDestroy(Event), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventPoolDestroy(Stamped), ZE_RESULT_SUCCESS);
}

TEST_F(TestDriver, ModuleGlobalsHaveStorageAndInitialValues) {
  const std::vector<uint8_t> Bytes = image("device_globals");
  SKIP_WITHOUT(Bytes, "device_globals");
  ze_module_handle_t Module = nullptr;
  std::string Log;
  ASSERT_EQ(createModule(Bytes, Module, Log, "-cl-std=CL2.0"), ZE_RESULT_SUCCESS) << Log;
  EXPECT_NE(Log.find("dglink test driver"), std::string::npos) << Log;

  size_t Size = 0;
  void *Pointer = nullptr;
  ASSERT_EQ(zeModuleGetGlobalPointer(Module, "dg_initialized", &Size, &Pointer), ZE_RESULT_SUCCESS);
  ASSERT_EQ(Size, 4u);
  int32_t Value = 0;
  std::memcpy(&Value, Pointer, 4);
  EXPECT_EQ(Value, 0x1234ABCD);
  ASSERT_EQ(zeModuleGetGlobalPointer(Module, "dg_big", &Size, &Pointer), ZE_RESULT_SUCCESS);
  EXPECT_EQ(Size, 1048576u);
  // The shim decorates each device global with HostAccessINTEL named by its unique
  // id, so the unique id and the exported symbol name the same storage; a name that
  // is neither is unknown.
  void *ByUniqueId = nullptr;
  ASSERT_EQ(zeModuleGetGlobalPointer(Module, "dg_counter_uid", &Size, &ByUniqueId),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(Size, 4u);
  ASSERT_EQ(zeModuleGetGlobalPointer(Module, "dg_counter", &Size, &Pointer), ZE_RESULT_SUCCESS);
  EXPECT_EQ(Size, 4u);
  EXPECT_EQ(ByUniqueId, Pointer);
  void *Unknown = nullptr;
  EXPECT_EQ(zeModuleGetGlobalPointer(Module, "dg_counter_id", &Size, &Unknown),
            ZE_RESULT_ERROR_INVALID_GLOBAL_NAME);

  // A write through a command list is what the next lookup sees.
  const int32_t Written = 0x5EED;
  ASSERT_EQ(zeCommandListAppendMemoryCopy(List, Pointer, &Written, 4, Events[0], 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeEventHostSynchronize(Events[0], UINT64_MAX), ZE_RESULT_SUCCESS);
  void *Again = nullptr;
  ASSERT_EQ(zeModuleGetGlobalPointer(Module, "dg_counter", nullptr, &Again), ZE_RESULT_SUCCESS);
  EXPECT_EQ(Again, Pointer);
  std::memcpy(&Value, Again, 4);
  EXPECT_EQ(Value, 0x5EED);

  // A second module of the same image has its own storage.
  ze_module_handle_t Second = nullptr;
  ASSERT_EQ(createModule(Bytes, Second, Log), ZE_RESULT_SUCCESS) << Log;
  void *Other = nullptr;
  ASSERT_EQ(zeModuleGetGlobalPointer(Second, "dg_counter", nullptr, &Other), ZE_RESULT_SUCCESS);
  EXPECT_NE(Other, Pointer);
  std::memcpy(&Value, Other, 4);
  EXPECT_EQ(Value, 0);
}

// The seed's rule on a module made for it: "alpha" is one variable's
// HostAccessINTEL name and another's export name; the first wins.
TEST_F(TestDriver, HostAccessNameComesBeforeTheExportName) {
  SpirvBuilder B;
  B.hostAccess(30, 2, "alpha").linkage(30, "first_symbol", 0);
  B.linkage(31, "alpha", 0);
  B.op(21, {1, 32, 0}).op(43, {1, 2, 111}).op(43, {1, 3, 222});
  B.op(32, {4, 5, 1});
  B.op(59, {4, 30, 5, 2}).op(59, {4, 31, 5, 3});
  ze_module_handle_t Module = nullptr;
  std::string Log;
  ASSERT_EQ(createModule(B.bytes(), Module, Log), ZE_RESULT_SUCCESS) << Log;
  void *Pointer = nullptr;
  int32_t Value = 0;
  ASSERT_EQ(zeModuleGetGlobalPointer(Module, "alpha", nullptr, &Pointer), ZE_RESULT_SUCCESS);
  std::memcpy(&Value, Pointer, 4);
  EXPECT_EQ(Value, 111) << "the HostAccessINTEL name must win over an export name";
  ASSERT_EQ(zeModuleGetGlobalPointer(Module, "first_symbol", nullptr, &Pointer), ZE_RESULT_SUCCESS);
  std::memcpy(&Value, Pointer, 4);
  EXPECT_EQ(Value, 111);
  EXPECT_EQ(zeModuleGetGlobalPointer(Module, "beta", nullptr, &Pointer),
            ZE_RESULT_ERROR_INVALID_GLOBAL_NAME);
  EXPECT_EQ(zeModuleGetGlobalPointer(Module, nullptr, nullptr, &Pointer),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

// A module's globals share one segment, as a real driver keeps them: each at the
// offset its type's alignment asks for, the segment's end the limit of a copy.
TEST_F(TestDriver, ModuleGlobalsShareOneAlignedSegment) {
  SpirvBuilder B;
  B.linkage(30, "small", 0).linkage(31, "wide", 0).linkage(32, "last", 0);
  B.op(21, {1, 32, 0}).op(21, {2, 64, 0}).op(43, {1, 3, 7});
  B.op(32, {4, 5, 1}).op(32, {5, 5, 2});
  B.op(59, {4, 30, 5, 3}).op(59, {5, 31, 5}).op(59, {4, 32, 5});
  ze_module_handle_t Module = nullptr;
  std::string Log;
  ASSERT_EQ(createModule(B.bytes(), Module, Log), ZE_RESULT_SUCCESS) << Log;
  char *Small = nullptr, *Wide = nullptr, *Last = nullptr;
  size_t Size = 0;
  ASSERT_EQ(zeModuleGetGlobalPointer(Module, "small", &Size, reinterpret_cast<void **>(&Small)),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(Size, 4u);
  ASSERT_EQ(zeModuleGetGlobalPointer(Module, "wide", &Size, reinterpret_cast<void **>(&Wide)),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(Size, 8u);
  ASSERT_EQ(zeModuleGetGlobalPointer(Module, "last", &Size, reinterpret_cast<void **>(&Last)),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(Small) % 64, 0u) << "the segment is aligned";
  EXPECT_EQ(Wide, Small + 8) << "the 8-byte global at its aligned offset after the 4-byte one";
  EXPECT_EQ(Last, Wide + 8);
  int32_t Value = 0;
  std::memcpy(&Value, Small, 4);
  EXPECT_EQ(Value, 7);
  int64_t WideValue = -1;
  std::memcpy(&WideValue, Wide, 8);
  EXPECT_EQ(WideValue, 0) << "padding and globals without an initializer are zero";
  // A module global is not USM.
  ze_memory_allocation_properties_t Properties = {};
  Properties.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES;
  ASSERT_EQ(zeMemGetAllocProperties(Context, Wide, &Properties, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(Properties.type, ZE_MEMORY_TYPE_UNKNOWN);
  // Up to the segment's end (20 bytes from Small) a copy is the driver's memory; past
  // it, refused.
  std::vector<uint8_t> Bytes(21, 0);
  EXPECT_EQ(zeCommandListAppendMemoryCopy(List, Bytes.data(), Small, 20, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListAppendMemoryCopy(List, Bytes.data(), Small, 21, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(zeCommandListAppendMemoryCopy(List, Last, Bytes.data(), 8, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_SIZE);
}

TEST_F(TestDriver, KernelsAreCreatedButNeverRun) {
  const std::vector<uint8_t> Bytes = image("device_globals");
  SKIP_WITHOUT(Bytes, "device_globals");
  ze_module_handle_t Module = nullptr;
  std::string Log;
  ASSERT_EQ(createModule(Bytes, Module, Log), ZE_RESULT_SUCCESS) << Log;
  uint32_t Count = 0;
  ASSERT_EQ(zeModuleGetKernelNames(Module, &Count, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(Count, 12u);
  ze_kernel_desc_t Desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0, "no_such_kernel"};
  ze_kernel_handle_t Kernel = nullptr;
  EXPECT_EQ(zeKernelCreate(Module, &Desc, &Kernel), ZE_RESULT_ERROR_INVALID_KERNEL_NAME);
  Desc.pKernelName = "dg_read_counter";
  ASSERT_EQ(zeKernelCreate(Module, &Desc, &Kernel), ZE_RESULT_SUCCESS);
  ze_kernel_properties_t Properties = {};
  Properties.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
  ASSERT_EQ(zeKernelGetProperties(Kernel, &Properties), ZE_RESULT_SUCCESS);
  EXPECT_EQ(Properties.numKernelArgs, 1u);
  void *Pointer = nullptr;
  EXPECT_EQ(zeKernelSetArgumentValue(Kernel, 0, sizeof(Pointer), &Pointer), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeKernelSetArgumentValue(Kernel, 0, 4, &Pointer),
            ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
  EXPECT_EQ(zeKernelSetArgumentValue(Kernel, 1, sizeof(Pointer), &Pointer),
            ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX);
  const ze_group_count_t Groups = {1, 1, 1};
  EXPECT_EQ(zeCommandListAppendLaunchKernel(List, Kernel, &Groups, Events[0], 0, nullptr),
            ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
  EXPECT_EQ(zeEventQueryStatus(Events[0]), ZE_RESULT_NOT_READY) << "a refused launch signaled";
  EXPECT_EQ(zeKernelDestroy(Kernel), ZE_RESULT_SUCCESS);
}

// A local-memory parameter takes a null value and its bytes of local memory (the spec's
// pArgValue null); given a value, it is a pointer of the pointer's size.
TEST_F(TestDriver, LocalMemoryArgumentsTakeTheirSize) {
  const std::vector<uint8_t> Bytes = image("local_memory");
  SKIP_WITHOUT(Bytes, "local_memory");
  ze_module_handle_t Module = nullptr;
  std::string Log;
  ASSERT_EQ(createModule(Bytes, Module, Log), ZE_RESULT_SUCCESS) << Log;
  // local_mirror(global const int *In, local uchar *Bytes, int Bias, local int *Values, ...)
  ze_kernel_desc_t Desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0, "local_mirror"};
  ze_kernel_handle_t Kernel = nullptr;
  ASSERT_EQ(zeKernelCreate(Module, &Desc, &Kernel), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeKernelSetArgumentValue(Kernel, 1, 4096, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeKernelSetArgumentValue(Kernel, 3, 48, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeKernelSetArgumentValue(Kernel, 1, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
  // Global and by-value parameters keep their sizes, also with a null value.
  EXPECT_EQ(zeKernelSetArgumentValue(Kernel, 0, 4096, nullptr),
            ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
  const int Bias = 3;
  EXPECT_EQ(zeKernelSetArgumentValue(Kernel, 2, sizeof(Bias), &Bias), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeKernelSetArgumentValue(Kernel, 2, 64, nullptr),
            ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
  EXPECT_EQ(zeKernelDestroy(Kernel), ZE_RESULT_SUCCESS);
}

TEST_F(TestDriver, DynamicLinkResolvesImports) {
  const std::vector<uint8_t> Caller = image("link_caller"), Callee = image("link_callee");
  SKIP_WITHOUT(Caller, "link_caller");
  ze_module_handle_t Linked[2] = {};
  std::string Log;
  ASSERT_EQ(createModule(Caller, Linked[0], Log), ZE_RESULT_SUCCESS) << Log;
  EXPECT_NE(Log.find("1 imports to link"), std::string::npos) << Log;
  ASSERT_EQ(createModule(Callee, Linked[1], Log), ZE_RESULT_SUCCESS) << Log;
  ze_kernel_desc_t Desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0, "link_caller"};
  ze_kernel_handle_t Kernel = nullptr;
  EXPECT_EQ(zeKernelCreate(Linked[0], &Desc, &Kernel), ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED);
  ze_module_build_log_handle_t LinkLog = nullptr;
  ASSERT_EQ(zeModuleDynamicLink(2, Linked, &LinkLog), ZE_RESULT_SUCCESS);
  EXPECT_NE(takeLog(LinkLog).find("linked 2 modules"), std::string::npos);
  ASSERT_EQ(zeKernelCreate(Linked[0], &Desc, &Kernel), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeKernelDestroy(Kernel), ZE_RESULT_SUCCESS);
}

TEST_F(TestDriver, DynamicLinkFailuresNameTheSymbols) {
  const std::vector<uint8_t> Unresolved = image("unresolved"), Callee = image("link_callee");
  SKIP_WITHOUT(Unresolved, "unresolved");
  ze_module_handle_t Inputs[2] = {};
  std::string Log;
  ASSERT_EQ(createModule(Unresolved, Inputs[0], Log), ZE_RESULT_SUCCESS) << Log;
  ASSERT_EQ(createModule(Callee, Inputs[1], Log), ZE_RESULT_SUCCESS) << Log;
  ze_module_build_log_handle_t LinkLog = nullptr;
  EXPECT_EQ(zeModuleDynamicLink(2, Inputs, &LinkLog), ZE_RESULT_ERROR_MODULE_LINK_FAILURE);
  Log = takeLog(LinkLog);
  EXPECT_NE(Log.find("unresolved import 'dglink_missing_symbol' of module 0"), std::string::npos)
      << Log;

  ze_module_handle_t Twice[2] = {};
  ASSERT_EQ(createModule(Callee, Twice[0], Log), ZE_RESULT_SUCCESS) << Log;
  ASSERT_EQ(createModule(Callee, Twice[1], Log), ZE_RESULT_SUCCESS) << Log;
  LinkLog = nullptr;
  EXPECT_EQ(zeModuleDynamicLink(2, Twice, &LinkLog), ZE_RESULT_ERROR_MODULE_LINK_FAILURE);
  Log = takeLog(LinkLog);
  EXPECT_NE(Log.find("symbol 'link_callee' is exported by modules 0 and 1"), std::string::npos)
      << Log;
}

TEST_F(TestDriver, BadModulesAndOptionsFailWithALog) {
  ze_module_handle_t Module = nullptr;
  std::string Log;
  const std::vector<uint8_t> Garbage = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                        11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
  EXPECT_EQ(createModule(Garbage, Module, Log), ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
  EXPECT_NE(Log.find("bad magic number"), std::string::npos) << Log;
  EXPECT_EQ(Module, nullptr);
  EXPECT_EQ(createModule(Garbage, Module, Log, "", ZE_MODULE_FORMAT_NATIVE),
            ZE_RESULT_ERROR_INVALID_NATIVE_BINARY);
  EXPECT_NE(Log.find("not a native binary"), std::string::npos) << Log;
  SpirvBuilder Empty;
  EXPECT_EQ(createModule(Empty.bytes(), Module, Log, "-O2 garbage"),
            ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
  EXPECT_NE(Log.find("build option 'garbage'"), std::string::npos) << Log;
  ASSERT_EQ(createModule(Empty.bytes(), Module, Log, "-O2 -cl-std=CL2.0"), ZE_RESULT_SUCCESS)
      << Log;
}

// A driver of two devices (ctest level_zero_test_driver_two_devices sets
// DGLINK_ZE_TEST_DEVICES=2): each device has its own memory, modules, command lists and
// event visibility, as Level Zero says a driver's devices do.
class TwoTestDevices : public TestDriver {
protected:
  void SetUp() override {
    TestDriver::SetUp();
    if (HasFatalFailure())
      return;
    uint32_t Count = 0;
    ASSERT_EQ(zeDeviceGet(Driver, &Count, nullptr), ZE_RESULT_SUCCESS);
    if (Count < 2)
      GTEST_SKIP() << "the test driver has one device (DGLINK_ZE_TEST_DEVICES unset)";
    Count = 2;
    ASSERT_EQ(zeDeviceGet(Driver, &Count, Devices), ZE_RESULT_SUCCESS);
    ASSERT_EQ(Count, 2u);
    ASSERT_EQ(Devices[0], Device);
    ze_command_queue_desc_t ListDesc = {};
    ListDesc.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
    ASSERT_EQ(zeCommandListCreateImmediate(Context, Devices[1], &ListDesc, &SecondList),
              ZE_RESULT_SUCCESS);
    // A pool of the context with no device listed: visible to every device.
    ze_event_pool_desc_t PoolDesc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr,
                                     ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 2};
    ASSERT_EQ(zeEventPoolCreate(Context, &PoolDesc, 0, nullptr, &AllDevicesPool),
              ZE_RESULT_SUCCESS);
    ze_event_desc_t EventDesc = {ZE_STRUCTURE_TYPE_EVENT_DESC, nullptr, 0, ZE_EVENT_SCOPE_FLAG_HOST,
                                 ZE_EVENT_SCOPE_FLAG_HOST};
    ASSERT_EQ(zeEventCreate(AllDevicesPool, &EventDesc, &Shared), ZE_RESULT_SUCCESS);
  }
  void TearDown() override {
    if (Shared != nullptr) {
      EXPECT_EQ(zeEventDestroy(Shared), ZE_RESULT_SUCCESS);
    }
    if (AllDevicesPool != nullptr) {
      EXPECT_EQ(zeEventPoolDestroy(AllDevicesPool), ZE_RESULT_SUCCESS);
    }
    if (SecondList != nullptr) {
      EXPECT_EQ(zeCommandListDestroy(SecondList), ZE_RESULT_SUCCESS);
    }
    TestDriver::TearDown();
  }
  static bool peerAccess() {
    const char *Text = std::getenv("DGLINK_ZE_TEST_PEER_ACCESS");
    return Text == nullptr || std::strcmp(Text, "0") != 0;
  }

  ze_device_handle_t Devices[2] = {nullptr, nullptr};
  ze_command_list_handle_t SecondList = nullptr;
  ze_event_pool_handle_t AllDevicesPool = nullptr;
  ze_event_handle_t Shared = nullptr;
};

// Two devices alike but for their uuid, both saying they are the test driver; peers
// unless DGLINK_ZE_TEST_PEER_ACCESS=0.
TEST_F(TwoTestDevices, DevicesAreToldApartAndArePeers) {
  ze_device_properties_t Properties[2] = {};
  for (int I = 0; I < 2; ++I) {
    Properties[I].stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    ASSERT_EQ(zeDeviceGetProperties(Devices[I], &Properties[I]), ZE_RESULT_SUCCESS);
    EXPECT_NE(std::string(Properties[I].name).find("dglink Level Zero test driver"),
              std::string::npos);
    EXPECT_EQ(Properties[I].type, ZE_DEVICE_TYPE_VPU) << "never a GPU";
    EXPECT_EQ(Properties[I].vendorId, 0u);
  }
  EXPECT_NE(std::memcmp(Properties[0].uuid.id, Properties[1].uuid.id, ZE_MAX_DEVICE_UUID_SIZE), 0);
  ze_bool_t Reaches = 0;
  ASSERT_EQ(zeDeviceCanAccessPeer(Devices[1], Devices[0], &Reaches), ZE_RESULT_SUCCESS);
  EXPECT_EQ(Reaches != 0, peerAccess());
  ASSERT_EQ(zeDeviceCanAccessPeer(Devices[1], Devices[1], &Reaches), ZE_RESULT_SUCCESS);
  EXPECT_NE(Reaches, 0) << "a device reaches its own memory";
}

// Device memory belongs to the device it was allocated on (zeMemGetAllocProperties says
// which; host memory to none); a command of the other device reaches it only as a peer.
TEST_F(TwoTestDevices, DeviceMemoryBelongsToItsDevice) {
  void *Memory[2] = {nullptr, nullptr};
  ze_device_mem_alloc_desc_t DeviceDesc = {};
  DeviceDesc.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC;
  for (int I = 0; I < 2; ++I) {
    ASSERT_EQ(zeMemAllocDevice(Context, &DeviceDesc, 64, 0, Devices[I], &Memory[I]),
              ZE_RESULT_SUCCESS);
    ze_memory_allocation_properties_t Properties = {};
    Properties.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES;
    ze_device_handle_t Owner = nullptr;
    ASSERT_EQ(zeMemGetAllocProperties(Context, Memory[I], &Properties, &Owner), ZE_RESULT_SUCCESS);
    EXPECT_EQ(Properties.type, ZE_MEMORY_TYPE_DEVICE);
    EXPECT_EQ(Owner, Devices[I]) << "device " << I;
  }
  void *Host = nullptr;
  ze_host_mem_alloc_desc_t HostDesc = {};
  HostDesc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
  ASSERT_EQ(zeMemAllocHost(Context, &HostDesc, 64, 0, &Host), ZE_RESULT_SUCCESS);
  ze_memory_allocation_properties_t Properties = {};
  Properties.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES;
  ze_device_handle_t Owner = Devices[0];
  ASSERT_EQ(zeMemGetAllocProperties(Context, Host, &Properties, &Owner), ZE_RESULT_SUCCESS);
  EXPECT_EQ(Owner, nullptr);

  const uint32_t Pattern = 0x01020304;
  EXPECT_EQ(
      zeCommandListAppendMemoryFill(SecondList, Memory[1], &Pattern, 4, 64, nullptr, 0, nullptr),
      ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListAppendMemoryCopy(SecondList, Host, Memory[1], 64, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(
      zeCommandListAppendMemoryCopy(SecondList, Memory[0], Memory[1], 64, nullptr, 0, nullptr),
      peerAccess() ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_ARGUMENT)
      << "device 1's list writing device 0's memory";
  EXPECT_EQ(zeCommandListAppendMemoryCopy(List, Host, Memory[1], 64, nullptr, 0, nullptr),
            peerAccess() ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_ARGUMENT)
      << "device 0's list reading device 1's memory";
  for (void *Each : {Memory[0], Memory[1], Host})
    EXPECT_EQ(zeMemFree(Context, Each), ZE_RESULT_SUCCESS);
}

// One image built for each device: two modules, each with its own instance of every
// global; a kernel runs only on a list of its module's device; modules of different
// devices do not link.
TEST_F(TwoTestDevices, ModulesAreCodeOfOneDevice) {
  const std::vector<uint8_t> Bytes = image("device_globals");
  SKIP_WITHOUT(Bytes, "device_globals");
  ze_module_handle_t Module[2] = {nullptr, nullptr};
  std::string Log;
  void *Counter[2] = {nullptr, nullptr};
  for (int I = 0; I < 2; ++I) {
    ASSERT_EQ(createModule(Bytes, Module[I], Log, "", ZE_MODULE_FORMAT_IL_SPIRV, Devices[I]),
              ZE_RESULT_SUCCESS)
        << Log;
    ASSERT_EQ(zeModuleGetGlobalPointer(Module[I], "dg_counter_uid", nullptr, &Counter[I]),
              ZE_RESULT_SUCCESS);
  }
  EXPECT_NE(Counter[0], Counter[1]) << "the devices share one instance";
  const int32_t Values[2] = {0x0D00, 0x0D01};
  ze_command_list_handle_t Lists[2] = {List, SecondList};
  for (int I = 0; I < 2; ++I)
    ASSERT_EQ(
        zeCommandListAppendMemoryCopy(Lists[I], Counter[I], &Values[I], 4, nullptr, 0, nullptr),
        ZE_RESULT_SUCCESS);
  for (int I = 0; I < 2; ++I) {
    int32_t Back = 0;
    ASSERT_EQ(zeCommandListAppendMemoryCopy(Lists[I], &Back, Counter[I], 4, nullptr, 0, nullptr),
              ZE_RESULT_SUCCESS);
    EXPECT_EQ(Back, Values[I]) << "device " << I;
  }

  ze_kernel_desc_t Desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0, "dg_read_counter"};
  ze_kernel_handle_t Kernel = nullptr;
  ASSERT_EQ(zeKernelCreate(Module[0], &Desc, &Kernel), ZE_RESULT_SUCCESS);
  const ze_group_count_t Groups = {1, 1, 1};
  EXPECT_EQ(zeCommandListAppendLaunchKernel(SecondList, Kernel, &Groups, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_ARGUMENT)
      << "device 0's kernel on device 1's list";
  EXPECT_EQ(zeCommandListAppendLaunchKernel(List, Kernel, &Groups, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
  EXPECT_EQ(zeKernelDestroy(Kernel), ZE_RESULT_SUCCESS);

  const std::vector<uint8_t> Caller = image("link_caller"), Callee = image("link_callee");
  SKIP_WITHOUT(Caller, "link_caller");
  ze_module_handle_t Inputs[2] = {nullptr, nullptr};
  ASSERT_EQ(createModule(Caller, Inputs[0], Log, "", ZE_MODULE_FORMAT_IL_SPIRV, Devices[0]),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(createModule(Callee, Inputs[1], Log, "", ZE_MODULE_FORMAT_IL_SPIRV, Devices[1]),
            ZE_RESULT_SUCCESS);
  ze_module_build_log_handle_t LinkLog = nullptr;
  EXPECT_EQ(zeModuleDynamicLink(2, Inputs, &LinkLog), ZE_RESULT_ERROR_MODULE_LINK_FAILURE);
  Log = takeLog(LinkLog);
  EXPECT_NE(Log.find("module 1 is code of device 1, module 0 of device 0"), std::string::npos)
      << Log;
}

// An event may be signaled or waited for by a list of a device its pool is visible to:
// the fixture's pool lists device 0 only, a pool listing none is visible to both.
TEST_F(TwoTestDevices, EventsAreUsableWhereTheirPoolIsVisible) {
  int32_t Source = 7, Target = 0;
  EXPECT_EQ(zeCommandListAppendMemoryCopy(SecondList, &Target, &Source, 4, Events[0], 0, nullptr),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(List, &Target, &Source, 4, Events[0], 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListAppendBarrier(SecondList, nullptr, 1, &Events[0]),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(List, &Target, &Source, 4, Shared, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListAppendBarrier(SecondList, nullptr, 1, &Shared), ZE_RESULT_SUCCESS)
      << "an event of device 0's list orders device 1's";
  EXPECT_EQ(Target, 7);
}

} // namespace
} // namespace dglink::ze_test
