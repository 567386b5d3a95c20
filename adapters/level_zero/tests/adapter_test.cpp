// The Level Zero adapter on its own (linked directly, no dispatch layer):
// zero platforms without a driver; on the test driver, what the conformance
// suite cannot reach: the HostAccessINTEL name found first, flat metadata of
// piProgramCreateWithBinary, native binaries, a module that imports built
// alone, and the message of a refused launch.
#include "spirv_builder.h"

#include <dglink/pi.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

std::string lastError() {
  char *Message = nullptr;
  piPluginGetLastError(&Message);
  return Message != nullptr ? Message : "";
}

#define EXPECT_PI(Expected, Call)                                                                  \
  do {                                                                                             \
    const pi_result Result_ = (Call);                                                              \
    EXPECT_EQ(Result_, Expected) << #Call << ": " << lastError();                                  \
  } while (0)
#define ASSERT_PI_OK(Call)                                                                         \
  do {                                                                                             \
    const pi_result Result_ = (Call);                                                              \
    ASSERT_EQ(Result_, PI_SUCCESS) << #Call << ": " << lastError();                                \
  } while (0)

// ctest runs this with ZE_ENABLE_ALT_DRIVERS empty: the loader finds no driver.
TEST(NoDriver, AdapterLoadsAndReportsZeroPlatforms) {
  pi_plugin Plugin = {};
  std::strcpy(Plugin.PiVersion, PI_VERSION_STRING);
  ASSERT_PI_OK(piPluginInit(&Plugin));
  EXPECT_STREQ(Plugin.Targets, "level_zero");
  pi_uint32 Count = 7;
  ASSERT_PI_OK(piPlatformsGet(0, nullptr, &Count));
  EXPECT_EQ(Count, 0u);
}

class OnTestDriver : public ::testing::Test {
protected:
  void SetUp() override {
    pi_uint32 Count = 0;
    ASSERT_PI_OK(piPlatformsGet(0, nullptr, &Count));
    ASSERT_EQ(Count, 1u) << "ZE_ENABLE_ALT_DRIVERS should name the test driver";
    ASSERT_PI_OK(piPlatformsGet(1, &Platform, nullptr));
    ASSERT_PI_OK(piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 1, &Device, &Count));
    ASSERT_PI_OK(piContextCreate(nullptr, 1, &Device, &Context));
    ASSERT_PI_OK(piQueueCreate(Context, Device, 0, &Queue));
  }
  void TearDown() override {
    for (pi_program Program : Programs)
      EXPECT_PI(PI_SUCCESS, piProgramRelease(Program));
    if (Queue != nullptr) {
      EXPECT_PI(PI_SUCCESS, piQueueRelease(Queue));
    }
    if (Context != nullptr)
      EXPECT_PI(PI_SUCCESS, piContextRelease(Context));
  }
  std::string deviceString(pi_device_info Name) {
    size_t Size = 0;
    EXPECT_PI(PI_SUCCESS, piDeviceGetInfo(Device, Name, 0, nullptr, &Size));
    std::string Value(Size, '\0');
    EXPECT_PI(PI_SUCCESS, piDeviceGetInfo(Device, Name, Size, Value.data(), nullptr));
    return Value.c_str();
  }
  std::string buildLog(pi_program Program) {
    size_t Size = 0;
    EXPECT_PI(PI_SUCCESS,
              piProgramGetBuildInfo(Program, Device, PI_PROGRAM_BUILD_INFO_LOG, 0, nullptr, &Size));
    std::string Log(Size, '\0');
    EXPECT_PI(PI_SUCCESS, piProgramGetBuildInfo(Program, Device, PI_PROGRAM_BUILD_INFO_LOG, Size,
                                                Log.data(), nullptr));
    return Log.c_str();
  }
  pi_program fromIl(const std::vector<uint8_t> &Bytes) {
    pi_program Program = nullptr;
    EXPECT_PI(PI_SUCCESS, piProgramCreate(Context, Bytes.data(), Bytes.size(), &Program));
    if (Program != nullptr)
      Programs.push_back(Program);
    return Program;
  }

  pi_platform Platform = nullptr;
  pi_device Device = nullptr;
  pi_context Context = nullptr;
  pi_queue Queue = nullptr;
  std::vector<pi_program> Programs;
};

TEST_F(OnTestDriver, DeviceSaysItIsTheTestDriver) {
  EXPECT_NE(deviceString(PI_DEVICE_INFO_NAME).find("dglink Level Zero test driver"),
            std::string::npos);
  pi_bool Executes = PI_TRUE;
  ASSERT_PI_OK(piDeviceGetInfo(Device, PI_EXT_DEVICE_INFO_EXECUTES_KERNELS, sizeof(Executes),
                               &Executes, nullptr));
  EXPECT_EQ(Executes, PI_FALSE);
  pi_device_type Type = 0;
  ASSERT_PI_OK(piDeviceGetInfo(Device, PI_DEVICE_INFO_TYPE, sizeof(Type), &Type, nullptr));
  EXPECT_EQ(Type, PI_DEVICE_TYPE_ACC) << "never a GPU";
  const std::string Extensions = deviceString(PI_DEVICE_INFO_EXTENSIONS);
  EXPECT_NE(Extensions.find(PI_EXT_SPIRV64_LINKING), std::string::npos) << Extensions;
  EXPECT_NE(Extensions.find(PI_EXT_DEVICE_GLOBAL_ACCESS), std::string::npos) << Extensions;
  EXPECT_NE(Extensions.find("dglink_test_driver_no_kernel_execution"), std::string::npos);
  EXPECT_EQ(deviceString(PI_EXT_DEVICE_INFO_LINK_FORMATS), "spirv64");
  EXPECT_EQ(deviceString(PI_EXT_DEVICE_INFO_IMAGE_FORMATS), "spirv64");
}

// The OpenCL names and fp configs a SYCL runtime reads fp16, fp64 and atomic64 from,
// made from zeDeviceGetModuleProperties. ctest runs this once per value of the test
// driver's DGLINK_ZE_TEST_MODULE_FLAGS (unset: its default, fp64 and int64 atomics).
TEST_F(OnTestDriver, ModuleFlagsBecomeExtensionsAndFpConfigs) {
  struct Case {
    const char *Flags; // DGLINK_ZE_TEST_MODULE_FLAGS, nullptr for unset
    const char *Extensions;
    pi_bitfield Half, Double;
  };
  // The test driver's fp flags: denorm, inf/nan, the three roundings, fma; doubles also
  // correctly rounded divide and sqrt (OpenCL's bit 7, Level Zero's bit 6).
  const Case Cases[] = {
      {nullptr,
       "dglink_test_driver_no_kernel_execution cl_khr_il_program cl_khr_fp64 "
       "cl_khr_int64_base_atomics "
       "cl_khr_int64_extended_atomics pi_ext_spirv64_linking pi_ext_device_global_access",
       0, 0xBF},
      {"fp16,int64_atomics",
       "dglink_test_driver_no_kernel_execution cl_khr_il_program cl_khr_fp16 "
       "cl_khr_int64_base_atomics "
       "cl_khr_int64_extended_atomics pi_ext_spirv64_linking pi_ext_device_global_access",
       0x3F, 0},
      {"fp16,fp64,int64_atomics",
       "dglink_test_driver_no_kernel_execution cl_khr_il_program cl_khr_fp16 cl_khr_fp64 "
       "cl_khr_int64_base_atomics cl_khr_int64_extended_atomics pi_ext_spirv64_linking "
       "pi_ext_device_global_access",
       0x3F, 0xBF},
      {"none",
       "dglink_test_driver_no_kernel_execution cl_khr_il_program pi_ext_spirv64_linking "
       "pi_ext_device_global_access",
       0, 0},
  };
  const char *Flags = std::getenv("DGLINK_ZE_TEST_MODULE_FLAGS");
  const Case *Expected = nullptr;
  for (const Case &Each : Cases)
    if ((Flags == nullptr) == (Each.Flags == nullptr) &&
        (Flags == nullptr || std::strcmp(Flags, Each.Flags) == 0))
      Expected = &Each;
  ASSERT_NE(Expected, nullptr) << "no expectation for DGLINK_ZE_TEST_MODULE_FLAGS='" << Flags
                               << "': add a case";
  EXPECT_EQ(deviceString(PI_DEVICE_INFO_EXTENSIONS), Expected->Extensions);
  pi_bitfield Half = 0xFFFF, Double = 0xFFFF;
  ASSERT_PI_OK(
      piDeviceGetInfo(Device, PI_DEVICE_INFO_HALF_FP_CONFIG, sizeof(Half), &Half, nullptr));
  ASSERT_PI_OK(
      piDeviceGetInfo(Device, PI_DEVICE_INFO_DOUBLE_FP_CONFIG, sizeof(Double), &Double, nullptr));
  EXPECT_EQ(Half, Expected->Half);
  EXPECT_EQ(Double, Expected->Double);
  // Driver-level names stay on the platform; the device's computing ones are its own.
  size_t Size = 0;
  ASSERT_PI_OK(piPlatformGetInfo(Platform, PI_PLATFORM_INFO_EXTENSIONS, 0, nullptr, &Size));
  std::string PlatformExtensions(Size, '\0');
  ASSERT_PI_OK(piPlatformGetInfo(Platform, PI_PLATFORM_INFO_EXTENSIONS, Size,
                                 PlatformExtensions.data(), nullptr));
  EXPECT_STREQ(PlatformExtensions.c_str(), "dglink_test_driver_no_kernel_execution");
}

// int uid_var (HostAccessINTEL "the_uid", exported as "the_symbol") = 5, and a
// kernel "k" taking one pointer.
std::vector<uint8_t> hostAccessModule() {
  using dglink::ze_test::SpirvBuilder;
  SpirvBuilder B;
  B.op(15, SpirvBuilder::join(SpirvBuilder::join({6, 60}, SpirvBuilder::string("k")), {}));
  B.hostAccess(30, 2, "the_uid").linkage(30, "the_symbol", 0);
  B.op(21, {1, 32, 0}).op(43, {1, 2, 5}).op(32, {4, 5, 1}).op(19, {24}).op(33, {25, 24, 4});
  B.op(59, {4, 30, 5, 2});
  B.op(54, {24, 60, 0, 25}).op(55, {4, 61}).op(248, {62}).op(253, {}).op(56, {});
  return B.bytes();
}

TEST_F(OnTestDriver, HostAccessNameIsTheUniqueId) {
  pi_program Program = fromIl(hostAccessModule());
  ASSERT_NE(Program, nullptr);
  ASSERT_PI_OK(piProgramBuild(Program, 1, &Device, "", nullptr, nullptr));
  int32_t Value = 0;
  ASSERT_PI_OK(piextEnqueueDeviceGlobalVariableRead(Queue, Program, "the_uid", PI_TRUE, 4, 0,
                                                    &Value, 0, nullptr, nullptr));
  EXPECT_EQ(Value, 5);
  const int32_t Written = 77;
  ASSERT_PI_OK(piextEnqueueDeviceGlobalVariableWrite(Queue, Program, "the_uid", PI_TRUE, 4, 0,
                                                     &Written, 0, nullptr, nullptr));
  // The export name reaches the same variable.
  ASSERT_PI_OK(piextEnqueueDeviceGlobalVariableRead(Queue, Program, "the_symbol", PI_TRUE, 4, 0,
                                                    &Value, 0, nullptr, nullptr));
  EXPECT_EQ(Value, 77);
  EXPECT_PI(PI_ERROR_INVALID_VALUE,
            piextEnqueueDeviceGlobalVariableRead(Queue, Program, "other", PI_TRUE, 4, 0, &Value, 0,
                                                 nullptr, nullptr));
  EXPECT_NE(lastError().find("device global 'other' is not in program"), std::string::npos)
      << lastError();
  EXPECT_NE(lastError().find("ZE_RESULT_ERROR_INVALID_GLOBAL_NAME"), std::string::npos);
  // 4 bytes from the module: one byte more is refused, naming the size.
  EXPECT_PI(PI_ERROR_INVALID_VALUE,
            piextEnqueueDeviceGlobalVariableRead(Queue, Program, "the_uid", PI_TRUE, 4, 1, &Value,
                                                 0, nullptr, nullptr));
  EXPECT_NE(lastError().find("size of 4 bytes"), std::string::npos) << lastError();
}

TEST_F(OnTestDriver, LaunchIsRefusedWithTheReason) {
  pi_program Program = fromIl(hostAccessModule());
  ASSERT_PI_OK(piProgramBuild(Program, 1, &Device, "", nullptr, nullptr));
  pi_kernel Kernel = nullptr;
  ASSERT_PI_OK(piKernelCreate(Program, "k", &Kernel));
  pi_uint32 NumArgs = 0;
  ASSERT_PI_OK(
      piKernelGetInfo(Kernel, PI_KERNEL_INFO_NUM_ARGS, sizeof(NumArgs), &NumArgs, nullptr));
  EXPECT_EQ(NumArgs, 1u);
  void *Null = nullptr;
  EXPECT_PI(PI_ERROR_INVALID_ARG_INDEX, piextKernelSetArgPointer(Kernel, 1, sizeof(Null), &Null));
  EXPECT_PI(PI_ERROR_INVALID_ARG_SIZE, piKernelSetArg(Kernel, 0, 4, &Null));
  ASSERT_PI_OK(piextKernelSetArgPointer(Kernel, 0, sizeof(Null), &Null));
  const size_t Global = 4;
  pi_event Event = nullptr;
  EXPECT_PI(PI_ERROR_UNSUPPORTED_FEATURE,
            piEnqueueKernelLaunch(Queue, Kernel, 1, nullptr, &Global, nullptr, 0, nullptr, &Event));
  EXPECT_NE(lastError().find("executes no kernels"), std::string::npos) << lastError();
  EXPECT_NE(lastError().find("ZE_RESULT_ERROR_UNSUPPORTED_FEATURE"), std::string::npos);
  EXPECT_EQ(Event, nullptr);
  EXPECT_PI(PI_SUCCESS, piKernelRelease(Kernel));
}

// piProgramCreateWithBinary: the flat metadata maps the unique id to its
// symbol; a native binary of the driver is accepted, garbage fails the build.
// USE_HOST_POINTER buffers over one array share the driver's import of it, which Level
// Zero's import extension does not count (a range inside an import adds nothing, a release
// ends the whole import, a partial overlap is refused): the import lives while any buffer
// over it does, and goes with the last.
TEST_F(OnTestDriver, HostPointerBuffersShareOneImport) {
  std::vector<uint8_t> Host(16384, 0x5A);
  const pi_mem_flags Use = PI_MEM_FLAGS_ACCESS_RW | PI_MEM_FLAGS_HOST_PTR_USE;
  pi_mem Whole = nullptr, Inner = nullptr, Partial = nullptr;
  ASSERT_PI_OK(piMemBufferCreate(Context, Use, 4096, Host.data(), &Whole));
  ASSERT_PI_OK(piMemBufferCreate(Context, Use, 1024, Host.data() + 1024, &Inner));
  // [2048, 6144) overlaps the import [0, 4096) in part.
  EXPECT_PI(PI_ERROR_UNSUPPORTED_FEATURE,
            piMemBufferCreate(Context, Use, 4096, Host.data() + 2048, &Partial));
  EXPECT_NE(lastError().find("only in part"), std::string::npos) << lastError();
  EXPECT_EQ(Partial, nullptr);
  // The inner buffer still uses the import: it outlives the buffer that made it.
  EXPECT_PI(PI_SUCCESS, piMemRelease(Whole));
  EXPECT_PI(PI_ERROR_UNSUPPORTED_FEATURE,
            piMemBufferCreate(Context, Use, 4096, Host.data() + 2048, &Partial));
  const std::vector<uint8_t> Bytes(1024, 0x33);
  EXPECT_PI(PI_SUCCESS, piEnqueueMemBufferWrite(Queue, Inner, PI_TRUE, 0, Bytes.size(),
                                                Bytes.data(), 0, nullptr, nullptr));
  EXPECT_EQ(Host[1024], 0x33);
  EXPECT_EQ(Host[2047], 0x33);
  EXPECT_EQ(Host[2048], 0x5A);
  // With the last buffer gone the import is gone: the range is free to import anew.
  EXPECT_PI(PI_SUCCESS, piMemRelease(Inner));
  ASSERT_PI_OK(piMemBufferCreate(Context, Use, 4096, Host.data() + 2048, &Partial));
  EXPECT_PI(PI_SUCCESS, piMemRelease(Partial));
}

TEST_F(OnTestDriver, BinariesAndFlatMetadata) {
  const std::vector<uint8_t> Image =
      dglink::ze_test::readSpirvFile(DGLINK_ZE_TEST_SPIRV_DIR, "device_globals");
  if (Image.empty())
    GTEST_SKIP() << "no device_globals.spv (llvm-spirv-15 missing when dglink was built)";
  char SymbolName[] = "SYCL/device global symbols/dg_counter_uid";
  char Symbol[] = "dg_counter";
  _pi_device_binary_property_struct Property = {SymbolName, Symbol, PI_PROPERTY_TYPE_STRING,
                                                sizeof(Symbol)};
  pi_device_binary_property Metadata = &Property;
  const unsigned char *Binary = Image.data();
  const size_t Length = Image.size();
  pi_int32 Status = -1;
  pi_program Program = nullptr;
  ASSERT_PI_OK(piProgramCreateWithBinary(Context, 1, &Device, &Length, &Binary, 1, &Metadata,
                                         &Status, &Program));
  Programs.push_back(Program);
  EXPECT_EQ(Status, PI_SUCCESS);
  ASSERT_PI_OK(piProgramBuild(Program, 1, &Device, "-cl-std=CL2.0", nullptr, nullptr));
  const int32_t Written = 0x600D;
  ASSERT_PI_OK(piextEnqueueDeviceGlobalVariableWrite(Queue, Program, "dg_counter_uid", PI_TRUE, 4,
                                                     0, &Written, 0, nullptr, nullptr));
  int32_t Back = 0;
  ASSERT_PI_OK(piextEnqueueDeviceGlobalVariableRead(Queue, Program, "dg_counter", PI_TRUE, 4, 0,
                                                    &Back, 0, nullptr, nullptr));
  EXPECT_EQ(Back, 0x600D);

  // The driver's own native format: its tag, then the SPIR-V.
  std::vector<unsigned char> Native(8 + Image.size());
  std::memcpy(Native.data(), "DGLZNAT1", 8);
  std::memcpy(Native.data() + 8, Image.data(), Image.size());
  const unsigned char *NativeBinary = Native.data();
  const size_t NativeLength = Native.size();
  pi_program NativeProgram = nullptr;
  ASSERT_PI_OK(piProgramCreateWithBinary(Context, 1, &Device, &NativeLength, &NativeBinary, 0,
                                         nullptr, nullptr, &NativeProgram));
  Programs.push_back(NativeProgram);
  ASSERT_PI_OK(piProgramBuild(NativeProgram, 1, &Device, "", nullptr, nullptr));
  pi_device_binary_format Format = PI_DEVICE_BINARY_TYPE_NONE;
  ASSERT_PI_OK(piProgramGetInfo(NativeProgram, PI_EXT_PROGRAM_INFO_FORMAT, sizeof(Format), &Format,
                                nullptr));
  EXPECT_EQ(Format, PI_DEVICE_BINARY_TYPE_NATIVE);

  const std::vector<unsigned char> Garbage(64, 0x5A);
  const unsigned char *GarbageBinary = Garbage.data();
  const size_t GarbageLength = Garbage.size();
  pi_program Bad = nullptr;
  ASSERT_PI_OK(piProgramCreateWithBinary(Context, 1, &Device, &GarbageLength, &GarbageBinary, 0,
                                         nullptr, nullptr, &Bad));
  Programs.push_back(Bad);
  EXPECT_PI(PI_ERROR_INVALID_BINARY, piProgramBuild(Bad, 1, &Device, "", nullptr, nullptr));
  EXPECT_NE(buildLog(Bad).find("not a native binary of the dglink test driver"), std::string::npos)
      << buildLog(Bad);
  // SPIR-V only for IL.
  pi_program NotIl = nullptr;
  EXPECT_PI(PI_ERROR_INVALID_BINARY,
            piProgramCreate(Context, Garbage.data(), Garbage.size(), &NotIl));
  EXPECT_EQ(NotIl, nullptr);
}

TEST_F(OnTestDriver, BuildOptionsReachTheDriver) {
  pi_program Program = fromIl(hostAccessModule());
  EXPECT_PI(PI_ERROR_BUILD_PROGRAM_FAILURE,
            piProgramBuild(Program, 1, &Device, "-O2 not-an-option", nullptr, nullptr));
  EXPECT_NE(buildLog(Program).find("build option 'not-an-option'"), std::string::npos)
      << buildLog(Program);
  pi_program_build_status Status = PI_PROGRAM_BUILD_STATUS_NONE;
  ASSERT_PI_OK(piProgramGetBuildInfo(Program, Device, PI_PROGRAM_BUILD_INFO_STATUS, sizeof(Status),
                                     &Status, nullptr));
  EXPECT_EQ(Status, PI_PROGRAM_BUILD_STATUS_ERROR);
  ASSERT_PI_OK(piProgramBuild(Program, 1, &Device, "-O2", nullptr, nullptr));
  ASSERT_PI_OK(piProgramGetBuildInfo(Program, Device, PI_PROGRAM_BUILD_INFO_STATUS, sizeof(Status),
                                     &Status, nullptr));
  EXPECT_EQ(Status, PI_PROGRAM_BUILD_STATUS_SUCCESS);
}

// A context of the two devices of a test driver with two (ctest
// level_zero_adapter_two_devices: DGLINK_ZE_TEST_DEVICES=2; and _no_peers, whose devices
// do not reach each other's memory): one Level Zero context, a module per device, the
// queue's device's instance and kernel, USM on the device asked for, buffers and events
// of every device of the context.
class OnTwoTestDevices : public OnTestDriver {
protected:
  void SetUp() override {
    OnTestDriver::SetUp();
    if (HasFatalFailure())
      return;
    pi_uint32 Count = 0;
    ASSERT_PI_OK(piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 0, nullptr, &Count));
    if (Count < 2)
      GTEST_SKIP() << "the test driver has one device (DGLINK_ZE_TEST_DEVICES unset)";
    ASSERT_PI_OK(piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 2, Both, nullptr));
    ASSERT_EQ(Both[0], Device);
    ASSERT_PI_OK(piContextCreate(nullptr, 2, Both, &Two));
    for (int I = 0; I < 2; ++I)
      ASSERT_PI_OK(piQueueCreate(Two, Both[I], 0, &Queues[I]));
  }
  void TearDown() override {
    for (pi_program Program : TwoDevicePrograms)
      EXPECT_PI(PI_SUCCESS, piProgramRelease(Program));
    for (pi_queue Each : Queues)
      if (Each != nullptr)
        EXPECT_PI(PI_SUCCESS, piQueueRelease(Each));
    if (Two != nullptr)
      EXPECT_PI(PI_SUCCESS, piContextRelease(Two));
    OnTestDriver::TearDown();
  }
  // Bytes as a program of the two-device context, built for both devices.
  pi_program builtForBoth(const std::vector<uint8_t> &Bytes) {
    pi_program Program = nullptr;
    EXPECT_PI(PI_SUCCESS, piProgramCreate(Two, Bytes.data(), Bytes.size(), &Program));
    if (Program == nullptr)
      return nullptr;
    TwoDevicePrograms.push_back(Program);
    EXPECT_PI(PI_SUCCESS, piProgramBuild(Program, 2, Both, "", nullptr, nullptr));
    return Program;
  }
  static bool peerAccess() {
    const char *Text = std::getenv("DGLINK_ZE_TEST_PEER_ACCESS");
    return Text == nullptr || std::strcmp(Text, "0") != 0;
  }

  pi_device Both[2] = {nullptr, nullptr};
  pi_context Two = nullptr;
  pi_queue Queues[2] = {nullptr, nullptr};
  std::vector<pi_program> TwoDevicePrograms;
};

// One program, a module per device: each device's write lands in its own instance, and
// a launch on either queue reaches the driver with that device's kernel (the test
// driver refuses another device's kernel with ZE_RESULT_ERROR_INVALID_ARGUMENT before
// it says that it runs none).
TEST_F(OnTwoTestDevices, EachDeviceHasItsOwnInstanceAndKernel) {
  pi_uint32 NumDevices = 0;
  ASSERT_PI_OK(
      piContextGetInfo(Two, PI_CONTEXT_INFO_NUM_DEVICES, sizeof(NumDevices), &NumDevices, nullptr));
  EXPECT_EQ(NumDevices, 2u);
  pi_program Program = builtForBoth(hostAccessModule());
  ASSERT_NE(Program, nullptr);
  const int32_t Values[2] = {0x77, 0x88};
  for (int I = 0; I < 2; ++I) {
    int32_t Initial = 0;
    ASSERT_PI_OK(piextEnqueueDeviceGlobalVariableRead(Queues[I], Program, "the_uid", PI_TRUE, 4, 0,
                                                      &Initial, 0, nullptr, nullptr));
    EXPECT_EQ(Initial, 5) << "device " << I;
    ASSERT_PI_OK(piextEnqueueDeviceGlobalVariableWrite(Queues[I], Program, "the_uid", PI_TRUE, 4, 0,
                                                       &Values[I], 0, nullptr, nullptr));
  }
  for (int I = 0; I < 2; ++I) {
    int32_t Back = 0;
    ASSERT_PI_OK(piextEnqueueDeviceGlobalVariableRead(Queues[I], Program, "the_symbol", PI_TRUE, 4,
                                                      0, &Back, 0, nullptr, nullptr));
    EXPECT_EQ(Back, Values[I]) << "device " << I << " sees another device's instance";
  }
  pi_kernel Kernel = nullptr;
  ASSERT_PI_OK(piKernelCreate(Program, "k", &Kernel));
  void *Null = nullptr;
  ASSERT_PI_OK(piextKernelSetArgPointer(Kernel, 0, sizeof(Null), &Null));
  for (int I = 0; I < 2; ++I) {
    const size_t Global = 4;
    EXPECT_PI(PI_ERROR_UNSUPPORTED_FEATURE,
              piEnqueueKernelLaunch(Queues[I], Kernel, 1, nullptr, &Global, nullptr, 0, nullptr,
                                    nullptr));
    EXPECT_NE(lastError().find("executes no kernels"), std::string::npos)
        << "device " << I << ": " << lastError();
  }
  EXPECT_PI(PI_SUCCESS, piKernelRelease(Kernel));
}

// Compile + link for both devices: the output has code (and the kernel) on each.
TEST_F(OnTwoTestDevices, LinkMakesCodeForEveryDevice) {
  const std::vector<uint8_t> Caller =
      dglink::ze_test::readSpirvFile(DGLINK_ZE_TEST_SPIRV_DIR, "link_caller");
  const std::vector<uint8_t> Callee =
      dglink::ze_test::readSpirvFile(DGLINK_ZE_TEST_SPIRV_DIR, "link_callee");
  if (Caller.empty() || Callee.empty())
    GTEST_SKIP() << "no link_caller.spv (llvm-spirv-15 missing when dglink was built)";
  pi_program Inputs[2] = {nullptr, nullptr};
  const std::vector<uint8_t> *Bytes[2] = {&Caller, &Callee};
  for (int I = 0; I < 2; ++I) {
    ASSERT_PI_OK(piProgramCreate(Two, Bytes[I]->data(), Bytes[I]->size(), &Inputs[I]));
    TwoDevicePrograms.push_back(Inputs[I]);
    ASSERT_PI_OK(piProgramCompile(Inputs[I], 2, Both, "", 0, nullptr, nullptr, nullptr, nullptr));
  }
  pi_program Linked = nullptr;
  ASSERT_PI_OK(piProgramLink(Two, 2, Both, "", 2, Inputs, nullptr, nullptr, &Linked));
  TwoDevicePrograms.push_back(Linked);
  pi_kernel Kernel = nullptr;
  ASSERT_PI_OK(piKernelCreate(Linked, "link_caller", &Kernel));
  const size_t Global = 1;
  EXPECT_PI(
      PI_ERROR_UNSUPPORTED_FEATURE,
      piEnqueueKernelLaunch(Queues[1], Kernel, 1, nullptr, &Global, nullptr, 0, nullptr, nullptr));
  EXPECT_NE(lastError().find("executes no kernels"), std::string::npos) << lastError();
  EXPECT_PI(PI_SUCCESS, piKernelRelease(Kernel));
}

// Device USM is allocated on the device asked for: its own queue reaches it, the other
// device's queue only where the devices are peers (the test driver refuses otherwise).
TEST_F(OnTwoTestDevices, DeviceUsmIsOnTheDeviceAskedFor) {
  void *Usm = nullptr;
  ASSERT_PI_OK(piextUSMDeviceAlloc(&Usm, Two, Both[1], nullptr, 64, 0));
  const std::vector<uint8_t> Source(64, 0x5C);
  std::vector<uint8_t> Back(64, 0);
  ASSERT_PI_OK(
      piextUSMEnqueueMemcpy(Queues[1], PI_TRUE, Usm, Source.data(), 64, 0, nullptr, nullptr));
  const pi_result FromOther =
      piextUSMEnqueueMemcpy(Queues[0], PI_TRUE, Back.data(), Usm, 64, 0, nullptr, nullptr);
  if (peerAccess()) {
    EXPECT_EQ(FromOther, PI_SUCCESS) << lastError();
    EXPECT_EQ(Back, Source);
  } else {
    EXPECT_NE(FromOther, PI_SUCCESS) << "device 0 reached device 1's memory without peer access";
    EXPECT_NE(lastError().find("ZE_RESULT_ERROR_INVALID_ARGUMENT"), std::string::npos)
        << lastError();
  }
  ASSERT_PI_OK(piextUSMFree(Two, Usm));
}

// A buffer belongs to the context: written on one device's queue, read on the other's,
// peers or not (device memory of the first device, or host memory).
TEST_F(OnTwoTestDevices, BufferIsReachedFromEveryDevice) {
  std::vector<int32_t> Source(256);
  for (size_t I = 0; I < Source.size(); ++I)
    Source[I] = static_cast<int32_t>(I * 5 + 1);
  const size_t Bytes = Source.size() * sizeof(int32_t);
  pi_mem Buffer = nullptr;
  ASSERT_PI_OK(piMemBufferCreate(Two, PI_MEM_FLAGS_ACCESS_RW | PI_MEM_FLAGS_HOST_PTR_COPY, Bytes,
                                 Source.data(), &Buffer));
  std::vector<int32_t> Back(Source.size(), 0);
  EXPECT_PI(PI_SUCCESS, piEnqueueMemBufferRead(Queues[1], Buffer, PI_TRUE, 0, Bytes, Back.data(), 0,
                                               nullptr, nullptr));
  EXPECT_EQ(Back, Source);
  std::reverse(Source.begin(), Source.end());
  // A non-blocking write on device 1's queue, read on device 0's after its event.
  pi_event Written = nullptr;
  EXPECT_PI(PI_SUCCESS, piEnqueueMemBufferWrite(Queues[1], Buffer, PI_FALSE, 0, Bytes,
                                                Source.data(), 0, nullptr, &Written));
  EXPECT_PI(PI_SUCCESS, piEnqueueMemBufferRead(Queues[0], Buffer, PI_TRUE, 0, Bytes, Back.data(), 1,
                                               &Written, nullptr));
  EXPECT_EQ(Back, Source);
  EXPECT_PI(PI_SUCCESS, piEventRelease(Written));
  EXPECT_PI(PI_SUCCESS, piMemRelease(Buffer));
}

// Bad input keeps its errors: a queue of a device that is not in the context, and a
// device global of a program not built for the queue's device.
TEST_F(OnTwoTestDevices, DevicesOutsideTheContextOrProgramAreRefused) {
  pi_context OnlySecond = nullptr;
  ASSERT_PI_OK(piContextCreate(nullptr, 1, &Both[1], &OnlySecond));
  pi_queue Stray = nullptr;
  EXPECT_PI(PI_ERROR_INVALID_DEVICE, piQueueCreate(OnlySecond, Both[0], 0, &Stray));
  EXPECT_EQ(Stray, nullptr);
  EXPECT_PI(PI_SUCCESS, piContextRelease(OnlySecond));

  const std::vector<uint8_t> Bytes = hostAccessModule();
  const unsigned char *Binary = Bytes.data();
  const size_t Length = Bytes.size();
  pi_program FirstOnly = nullptr;
  ASSERT_PI_OK(piProgramCreateWithBinary(Two, 1, &Both[0], &Length, &Binary, 0, nullptr, nullptr,
                                         &FirstOnly));
  TwoDevicePrograms.push_back(FirstOnly);
  ASSERT_PI_OK(piProgramBuild(FirstOnly, 1, &Both[0], "", nullptr, nullptr));
  int32_t Value = 0;
  ASSERT_PI_OK(piextEnqueueDeviceGlobalVariableRead(Queues[0], FirstOnly, "the_uid", PI_TRUE, 4, 0,
                                                    &Value, 0, nullptr, nullptr));
  EXPECT_EQ(Value, 5);
  EXPECT_PI(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
            piextEnqueueDeviceGlobalVariableRead(Queues[1], FirstOnly, "the_uid", PI_TRUE, 4, 0,
                                                 &Value, 0, nullptr, nullptr));
}

// The adapter core's guarantees (handles of the wrong kind or released, capped
// echoes, an allocation failure in every export) are conformance scenarios
// (conformance/scenarios/core_guarantees.cpp), run on this adapter by the
// conformance_level_zero_test_driver test like on every other.

} // namespace
