// The Level Zero adapter on its own (linked directly, no dispatch layer):
// zero platforms without a driver; on the test driver, what the conformance
// suite cannot reach: the HostAccessINTEL name found first, flat metadata of
// piProgramCreateWithBinary, native binaries, a module that imports built
// alone, and the message of a refused launch.
#include "spirv_builder.h"

#include <dglink/pi.h>

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
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

// ---- the adapter core's guarantees, on this adapter (docs/adapter-core.md) ----

// A handle of the wrong kind, a released one and memory that is no handle are refused
// with the contract's INVALID_<TYPE>, never read as what they are not.
TEST_F(OnTestDriver, HandlesOfTheWrongKindOrReleasedAreRefused) {
  pi_program Program = fromIl(hostAccessModule());
  ASSERT_NE(Program, nullptr);
  ASSERT_PI_OK(piProgramBuild(Program, 1, &Device, "", nullptr, nullptr));
  int32_t Value = 0;
  // A queue where a program is expected (a segfault in the lookup cache before).
  EXPECT_PI(PI_ERROR_INVALID_PROGRAM, piextEnqueueDeviceGlobalVariableRead(
                                          Queue, reinterpret_cast<pi_program>(Queue), "the_uid",
                                          PI_TRUE, 4, 0, &Value, 0, nullptr, nullptr));
  EXPECT_NE(lastError().find("is a queue, not a program"), std::string::npos) << lastError();
  EXPECT_PI(PI_ERROR_INVALID_QUEUE, piextEnqueueDeviceGlobalVariableRead(
                                        reinterpret_cast<pi_queue>(Program), Program, "the_uid",
                                        PI_TRUE, 4, 0, &Value, 0, nullptr, nullptr));
  EXPECT_PI(PI_ERROR_INVALID_CONTEXT, piContextRetain(reinterpret_cast<pi_context>(Device)));
  EXPECT_NE(lastError().find("is a device, not a context"), std::string::npos) << lastError();
  // Memory that is no handle at all.
  alignas(16) unsigned char NotAHandle[64] = {};
  EXPECT_PI(PI_ERROR_INVALID_KERNEL, piKernelRetain(reinterpret_cast<pi_kernel>(NotAHandle)));
  EXPECT_NE(lastError().find("is not a handle of the Level Zero adapter"), std::string::npos)
      << lastError();
  // A released queue and program: refused by name, nothing read.
  pi_queue Second = nullptr;
  ASSERT_PI_OK(piQueueCreate(Context, Device, 0, &Second));
  ASSERT_PI_OK(piQueueRelease(Second));
  EXPECT_PI(PI_ERROR_INVALID_QUEUE, piQueueFinish(Second));
  EXPECT_NE(lastError().find("is a queue that was released"), std::string::npos) << lastError();
  EXPECT_PI(PI_ERROR_INVALID_QUEUE, piQueueRelease(Second));
  pi_program Gone = nullptr;
  const std::vector<uint8_t> Module = hostAccessModule();
  ASSERT_PI_OK(piProgramCreate(Context, Module.data(), Module.size(), &Gone));
  ASSERT_PI_OK(piProgramRelease(Gone));
  EXPECT_PI(PI_ERROR_INVALID_PROGRAM,
            piextEnqueueDeviceGlobalVariableRead(Queue, Gone, "the_uid", PI_TRUE, 4, 0, &Value, 0,
                                                 nullptr, nullptr));
  // A released event in a wait list.
  pi_event Event = nullptr;
  ASSERT_PI_OK(piEnqueueEventsWait(Queue, 0, nullptr, &Event));
  ASSERT_PI_OK(piEventRelease(Event));
  EXPECT_PI(PI_ERROR_INVALID_EVENT_WAIT_LIST, piEnqueueEventsWait(Queue, 1, &Event, nullptr));
  EXPECT_NE(lastError().find("an event that was released"), std::string::npos) << lastError();
  // The program that was used still works.
  ASSERT_PI_OK(piextEnqueueDeviceGlobalVariableRead(Queue, Program, "the_uid", PI_TRUE, 4, 0,
                                                    &Value, 0, nullptr, nullptr));
  EXPECT_EQ(Value, 5);
}

// A 10 MB name is not echoed whole.
TEST_F(OnTestDriver, EchoedNamesAreCapped) {
  pi_program Program = fromIl(hostAccessModule());
  ASSERT_PI_OK(piProgramBuild(Program, 1, &Device, "", nullptr, nullptr));
  const std::string Huge(10u << 20, 'x');
  int32_t Value = 0;
  EXPECT_PI(PI_ERROR_INVALID_VALUE,
            piextEnqueueDeviceGlobalVariableRead(Queue, Program, Huge.c_str(), PI_TRUE, 4, 0,
                                                 &Value, 0, nullptr, nullptr));
  EXPECT_LT(lastError().size(), 1024u) << lastError().substr(0, 200);
  EXPECT_NE(lastError().find("(10485760 bytes)"), std::string::npos) << lastError().substr(0, 400);
  pi_kernel Kernel = nullptr;
  EXPECT_PI(PI_ERROR_INVALID_KERNEL_NAME, piKernelCreate(Program, Huge.c_str(), &Kernel));
  EXPECT_LT(lastError().size(), 1024u);
}

} // namespace

// The core's test-only hook: the N-th allocation point from now on this thread fails.
extern "C" void dglinkTestArmAllocationFailure(unsigned N);

namespace {

// Every export of the adapter, called with valid arguments while an allocation fails
// at its 1st, 2nd, ... allocation point: each call answers PI_ERROR_OUT_OF_HOST_MEMORY
// (or, once no point is left to fail, what it answers without the fault), never
// crashes, and hands out no handle.
TEST_F(OnTestDriver, AllocationFailureInEveryExportIsAnError) {
  pi_program Program = fromIl(hostAccessModule());
  ASSERT_PI_OK(piProgramBuild(Program, 1, &Device, "", nullptr, nullptr));
  const std::vector<uint8_t> Module = hostAccessModule();
  pi_kernel Kernel = nullptr;
  ASSERT_PI_OK(piKernelCreate(Program, "k", &Kernel));
  pi_mem Buffer = nullptr;
  ASSERT_PI_OK(piMemBufferCreate(Context, PI_MEM_FLAGS_ACCESS_RW, 64, nullptr, &Buffer));
  pi_event Event = nullptr;
  ASSERT_PI_OK(piEnqueueEventsWait(Queue, 0, nullptr, &Event));
  void *Usm = nullptr;
  ASSERT_PI_OK(piextUSMDeviceAlloc(&Usm, Context, Device, nullptr, 64, 0));

  char Bytes[64] = {};
  size_t Size = 0;
  pi_uint32 Count = 0;
  const size_t Global = 1;
  const unsigned char *Binary = Module.data();
  const size_t Length = Module.size();
  pi_plugin Plugin = {};
  std::strcpy(Plugin.PiVersion, PI_VERSION_STRING);
  char *Message = nullptr;
  // Each call; Made: a handle it made, released after a success.
  pi_context NewContext = nullptr;
  pi_queue NewQueue = nullptr;
  pi_mem NewMem = nullptr;
  pi_program NewProgram = nullptr, Linked = nullptr;
  pi_kernel NewKernel = nullptr;
  pi_event NewEvent = nullptr;
  void *NewUsm = nullptr;
  // Inputs made unarmed before each try: a program to compile, a compiled one to link.
  pi_program Fresh = nullptr, Compiled = nullptr;
  auto MakeInputs = [&] {
    ASSERT_EQ(piProgramCreate(Context, Binary, Length, &Fresh), PI_SUCCESS);
    ASSERT_EQ(piProgramCreate(Context, Binary, Length, &Compiled), PI_SUCCESS);
    ASSERT_EQ(piProgramCompile(Compiled, 0, nullptr, "", 0, nullptr, nullptr, nullptr, nullptr),
              PI_SUCCESS);
  };
  auto DropInputs = [&] {
    EXPECT_EQ(piProgramRelease(Fresh), PI_SUCCESS);
    EXPECT_EQ(piProgramRelease(Compiled), PI_SUCCESS);
  };
  const std::vector<std::pair<const char *, std::function<pi_result()>>> Calls = {
      {"piPluginInit", [&] { return piPluginInit(&Plugin); }},
      {"piTearDown", [&] { return piTearDown(nullptr); }},
      {"piPlatformsGet", [&] { return piPlatformsGet(0, nullptr, &Count); }},
      {"piPlatformGetInfo",
       [&] {
         return piPlatformGetInfo(Platform, PI_PLATFORM_INFO_NAME, sizeof(Bytes), Bytes, nullptr);
       }},
      {"piDevicesGet",
       [&] { return piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 0, nullptr, &Count); }},
      {"piDeviceGetInfo",
       [&] { return piDeviceGetInfo(Device, PI_DEVICE_INFO_NAME, 0, nullptr, &Size); }},
      {"piDeviceRetain", [&] { return piDeviceRetain(Device); }},
      {"piDeviceRelease", [&] { return piDeviceRelease(Device); }},
      {"piContextCreate", [&] { return piContextCreate(nullptr, 1, &Device, &NewContext); }},
      {"piContextGetInfo",
       [&] {
         return piContextGetInfo(Context, PI_CONTEXT_INFO_NUM_DEVICES, sizeof(Count), &Count,
                                 nullptr);
       }},
      {"piContextRetain", [&] { return piContextRetain(Context); }},
      {"piContextRelease", [&] { return piContextRelease(Context); }},
      {"piQueueCreate", [&] { return piQueueCreate(Context, Device, 0, &NewQueue); }},
      {"piQueueGetInfo",
       [&] { return piQueueGetInfo(Queue, PI_QUEUE_INFO_DEVICE, 0, nullptr, &Size); }},
      {"piQueueFinish", [&] { return piQueueFinish(Queue); }},
      {"piQueueRetain", [&] { return piQueueRetain(Queue); }},
      {"piQueueRelease", [&] { return piQueueRelease(Queue); }},
      {"piMemBufferCreate",
       [&] { return piMemBufferCreate(Context, PI_MEM_FLAGS_ACCESS_RW, 16, nullptr, &NewMem); }},
      {"piMemRetain", [&] { return piMemRetain(Buffer); }},
      {"piMemRelease", [&] { return piMemRelease(Buffer); }},
      {"piEnqueueMemBufferRead",
       [&] {
         return piEnqueueMemBufferRead(Queue, Buffer, PI_TRUE, 0, 16, Bytes, 0, nullptr, nullptr);
       }},
      {"piEnqueueMemBufferWrite",
       [&] {
         return piEnqueueMemBufferWrite(Queue, Buffer, PI_TRUE, 0, 16, Bytes, 0, nullptr,
                                        &NewEvent);
       }},
      {"piextUSMDeviceAlloc",
       [&] { return piextUSMDeviceAlloc(&NewUsm, Context, Device, nullptr, 16, 0); }},
      {"piextUSMHostAlloc", [&] { return piextUSMHostAlloc(&NewUsm, Context, nullptr, 16, 0); }},
      {"piextUSMSharedAlloc",
       [&] { return piextUSMSharedAlloc(&NewUsm, Context, Device, nullptr, 16, 0); }},
      {"piextUSMFree", [&] { return piextUSMFree(Context, nullptr); }},
      {"piextUSMEnqueueMemcpy",
       [&] { return piextUSMEnqueueMemcpy(Queue, PI_TRUE, Usm, Bytes, 16, 0, nullptr, nullptr); }},
      {"piextUSMEnqueueFill",
       [&] { return piextUSMEnqueueFill(Queue, Usm, Bytes, 4, 16, 0, nullptr, nullptr); }},
      {"piProgramCreate", [&] { return piProgramCreate(Context, Binary, Length, &NewProgram); }},
      {"piProgramCreateWithBinary",
       [&] {
         return piProgramCreateWithBinary(Context, 1, &Device, &Length, &Binary, 0, nullptr,
                                          nullptr, &NewProgram);
       }},
      {"piextProgramCreateWithImage",
       [&] {
         _pi_device_binary_struct Image = {};
         Image.Format = PI_DEVICE_BINARY_TYPE_SPIRV;
         Image.DeviceTargetSpec = PI_DEVICE_BINARY_TARGET_SPIRV64;
         Image.BinaryStart = Binary;
         Image.BinaryEnd = Binary + Length;
         return piextProgramCreateWithImage(Context, 0, nullptr, &Image, &NewProgram);
       }},
      {"piProgramCompile",
       [&] {
         return piProgramCompile(Fresh, 0, nullptr, "", 0, nullptr, nullptr, nullptr, nullptr);
       }},
      {"piProgramLink",
       [&] {
         return piProgramLink(Context, 0, nullptr, "", 1, &Compiled, nullptr, nullptr, &Linked);
       }},
      {"piProgramBuild", [&] { return piProgramBuild(Program, 0, nullptr, "", nullptr, nullptr); }},
      {"piProgramGetInfo",
       [&] { return piProgramGetInfo(Program, PI_PROGRAM_INFO_KERNEL_NAMES, 0, nullptr, &Size); }},
      {"piProgramGetBuildInfo",
       [&] {
         return piProgramGetBuildInfo(Program, Device, PI_PROGRAM_BUILD_INFO_LOG, 0, nullptr,
                                      &Size);
       }},
      {"piProgramRetain", [&] { return piProgramRetain(Program); }},
      {"piProgramRelease", [&] { return piProgramRelease(Program); }},
      {"piKernelCreate", [&] { return piKernelCreate(Program, "k", &NewKernel); }},
      {"piKernelSetArg",
       [&] {
         const int32_t V = 1;
         return piKernelSetArg(Kernel, 0, 4, &V) == PI_ERROR_OUT_OF_HOST_MEMORY
                    ? PI_ERROR_OUT_OF_HOST_MEMORY
                    : PI_SUCCESS;
       }},
      {"piextKernelSetArgPointer",
       [&] {
         return piextKernelSetArgPointer(Kernel, 0, sizeof(Usm), &Usm) ==
                        PI_ERROR_OUT_OF_HOST_MEMORY
                    ? PI_ERROR_OUT_OF_HOST_MEMORY
                    : PI_SUCCESS;
       }},
      {"piextKernelSetArgMemObj",
       [&] {
         return piextKernelSetArgMemObj(Kernel, 0, &Buffer) == PI_ERROR_OUT_OF_HOST_MEMORY
                    ? PI_ERROR_OUT_OF_HOST_MEMORY
                    : PI_SUCCESS;
       }},
      {"piKernelGetInfo",
       [&] { return piKernelGetInfo(Kernel, PI_KERNEL_INFO_FUNCTION_NAME, 0, nullptr, &Size); }},
      {"piKernelRetain", [&] { return piKernelRetain(Kernel); }},
      {"piKernelRelease", [&] { return piKernelRelease(Kernel); }},
      // The test driver runs no kernel: its answer, once the core let the launch through.
      {"piEnqueueKernelLaunch",
       [&] {
         const pi_result Result = piEnqueueKernelLaunch(Queue, Kernel, 1, nullptr, &Global, nullptr,
                                                        0, nullptr, nullptr);
         return Result == PI_ERROR_UNSUPPORTED_FEATURE ? PI_SUCCESS : Result;
       }},
      {"piEventsWait", [&] { return piEventsWait(1, &Event); }},
      {"piEventGetInfo",
       [&] {
         return piEventGetInfo(Event, PI_EVENT_INFO_COMMAND_EXECUTION_STATUS, 0, nullptr, &Size);
       }},
      {"piEventRetain", [&] { return piEventRetain(Event); }},
      {"piEventRelease", [&] { return piEventRelease(Event); }},
      {"piEnqueueEventsWait", [&] { return piEnqueueEventsWait(Queue, 1, &Event, &NewEvent); }},
      {"piEnqueueEventsWaitWithBarrier",
       [&] { return piEnqueueEventsWaitWithBarrier(Queue, 1, &Event, &NewEvent); }},
      {"piextEnqueueDeviceGlobalVariableRead",
       [&] {
         return piextEnqueueDeviceGlobalVariableRead(Queue, Program, "the_uid", PI_TRUE, 4, 0,
                                                     Bytes, 0, nullptr, nullptr);
       }},
      {"piextEnqueueDeviceGlobalVariableWrite",
       [&] {
         return piextEnqueueDeviceGlobalVariableWrite(Queue, Program, "the_symbol", PI_TRUE, 4, 0,
                                                      Bytes, 0, nullptr, &NewEvent);
       }},
  };
  // Every entry point of the ABI is in the list (and piPluginInit), but
  // piPluginGetLastError, checked after it.
  size_t EntryPoints = 0;
#define DGLINK_COUNT_ENTRY(Name, Ret, Params) ++EntryPoints;
  PI_ENTRY_POINTS(DGLINK_COUNT_ENTRY)
#undef DGLINK_COUNT_ENTRY
  EXPECT_EQ(Calls.size(), EntryPoints);

  auto ReleaseMade = [&] {
    if (NewContext != nullptr) {
      EXPECT_EQ(piContextRelease(NewContext), PI_SUCCESS);
    }
    if (NewQueue != nullptr) {
      EXPECT_EQ(piQueueRelease(NewQueue), PI_SUCCESS);
    }
    if (NewMem != nullptr) {
      EXPECT_EQ(piMemRelease(NewMem), PI_SUCCESS);
    }
    if (NewProgram != nullptr) {
      EXPECT_EQ(piProgramRelease(NewProgram), PI_SUCCESS);
    }
    if (Linked != nullptr) {
      EXPECT_EQ(piProgramRelease(Linked), PI_SUCCESS);
    }
    if (NewKernel != nullptr) {
      EXPECT_EQ(piKernelRelease(NewKernel), PI_SUCCESS);
    }
    if (NewEvent != nullptr) {
      EXPECT_EQ(piEventRelease(NewEvent), PI_SUCCESS);
    }
    if (NewUsm != nullptr) {
      EXPECT_EQ(piextUSMFree(Context, NewUsm), PI_SUCCESS);
    }
    NewContext = nullptr, NewQueue = nullptr, NewMem = nullptr, NewProgram = nullptr;
    Linked = nullptr, NewKernel = nullptr, NewEvent = nullptr, NewUsm = nullptr;
  };
  auto Find = [&](const std::string &Name) -> const std::function<pi_result()> & {
    for (const auto &Entry : Calls)
      if (Name == Entry.first)
        return Entry.second;
    ADD_FAILURE() << "no call " << Name;
    return Calls.front().second;
  };
  constexpr unsigned MaxPoints = 64;
  for (const auto &[Name, Call] : Calls) {
    const std::string Text = Name;
    const size_t Retain = Text.find("Retain"), Release = Text.find("Release");
    const bool Counted = Text != "piDeviceRetain" && Text != "piDeviceRelease";
    unsigned Point = 1;
    for (; Point < MaxPoints; ++Point) {
      // A release needs a reference of its own to drop: a retain first, unarmed.
      if (Counted && Release != std::string::npos) {
        ASSERT_EQ(Find(std::string(Text).replace(Release, 7, "Retain"))(), PI_SUCCESS) << Name;
      }
      MakeInputs();
      dglinkTestArmAllocationFailure(Point);
      const pi_result Result = Call();
      dglinkTestArmAllocationFailure(0);
      DropInputs();
      if (Result == PI_ERROR_OUT_OF_HOST_MEMORY) {
        EXPECT_FALSE(NewContext || NewQueue || NewMem || NewProgram || Linked || NewKernel ||
                     NewEvent || NewUsm)
            << Name << " handed out a handle and failed";
        EXPECT_NE(lastError().find("out of host memory"), std::string::npos) << Name;
        // Nothing changed: the reference taken for a release is still there.
        if (Counted && Release != std::string::npos) {
          ASSERT_EQ(Call(), PI_SUCCESS) << Name;
        }
        continue;
      }
      // No point left to fail: the call's own answer, and what it did is undone.
      EXPECT_EQ(Result, PI_SUCCESS) << Name << ": " << lastError();
      if (Counted && Retain != std::string::npos) {
        EXPECT_EQ(Find(std::string(Text).replace(Retain, 6, "Release"))(), PI_SUCCESS) << Name;
      }
      ReleaseMade();
      break;
    }
    EXPECT_GT(Point, 1u) << Name << ": the barrier's fault point was not reached";
    EXPECT_LT(Point, MaxPoints) << Name;
  }
  // piPluginGetLastError answers the last error: the injected one, then its message.
  dglinkTestArmAllocationFailure(1);
  EXPECT_EQ(piPluginGetLastError(&Message), PI_ERROR_OUT_OF_HOST_MEMORY);
  dglinkTestArmAllocationFailure(0);
  EXPECT_EQ(piPluginGetLastError(&Message), PI_ERROR_OUT_OF_HOST_MEMORY);
  ASSERT_NE(Message, nullptr);
  EXPECT_NE(std::string(Message).find("piPluginGetLastError: out of host memory"),
            std::string::npos)
      << Message;
  EXPECT_EQ(piextUSMFree(Context, Usm), PI_SUCCESS);
  EXPECT_EQ(piEventRelease(Event), PI_SUCCESS);
  EXPECT_EQ(piMemRelease(Buffer), PI_SUCCESS);
  EXPECT_EQ(piKernelRelease(Kernel), PI_SUCCESS);
}

} // namespace
