// Tests that need a device of the build's HIP platform: an NVIDIA GPU for
// dglink_hip_nvidia_tests, an AMD GPU for dglink_hip_tests. Without one they
// skip, saying so.
#include "test_support.h"

#include <cstring>
#include <vector>

#if DGLINK_TEST_NVCL_CODE
extern const unsigned char OpenClGlobalsPtx[];
extern const size_t OpenClGlobalsPtxSize;
extern const unsigned char OpenClLinkMainPtx[];
extern const size_t OpenClLinkMainPtxSize;
extern const unsigned char OpenClLinkLibPtx[];
extern const size_t OpenClLinkLibPtxSize;
#endif
#if DGLINK_TEST_AMD_CODE
extern const unsigned char AmdGlobalsObject[];
extern const size_t AmdGlobalsObjectSize;
extern const unsigned char AmdLinkMainObject[];
extern const size_t AmdLinkMainObjectSize;
extern const unsigned char AmdLinkLibObject[];
extern const size_t AmdLinkLibObjectSize;
#endif

using namespace dglink::hip::test;

namespace {

#if DGLINK_TEST_HIP_NVIDIA
constexpr const char *Target = PI_DEVICE_BINARY_TARGET_NVPTX64;
constexpr const char *LinkingExtension = PI_EXT_NVPTX64_LINKING;
#else
constexpr const char *Target = PI_DEVICE_BINARY_TARGET_AMDGCN;
constexpr const char *LinkingExtension = PI_EXT_AMDGCN_LINKING;
#endif

// The device code of this platform: globals (counter, table[42], kernel bump),
// and a caller / callee pair for linking (call_cl_helper -> cl_helper).
struct Code {
  const unsigned char *Bytes = nullptr;
  size_t Size = 0;
};
struct PlatformCode {
  Code Globals, LinkMain, LinkLib;
  bool Available = false;
};
PlatformCode platformCode() {
  PlatformCode C;
#if DGLINK_TEST_HIP_NVIDIA && DGLINK_TEST_NVCL_CODE
  C = {{OpenClGlobalsPtx, OpenClGlobalsPtxSize},
       {OpenClLinkMainPtx, OpenClLinkMainPtxSize},
       {OpenClLinkLibPtx, OpenClLinkLibPtxSize},
       true};
#elif !DGLINK_TEST_HIP_NVIDIA && DGLINK_TEST_AMD_CODE
  C = {{AmdGlobalsObject, AmdGlobalsObjectSize},
       {AmdLinkMainObject, AmdLinkMainObjectSize},
       {AmdLinkLibObject, AmdLinkLibObjectSize},
       true};
#endif
  return C;
}

class HipDevice : public HipDeviceTest {
protected:
  void SetUp() override {
    HipDeviceTest::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    Code = platformCode();
  }

  pi_program create(const struct Code &C) {
    _pi_device_binary_struct Image{};
    Image.Version = PI_DEVICE_BINARY_VERSION;
    Image.Kind = PI_DEVICE_BINARY_OFFLOAD_KIND_SYCL;
    Image.Format = PI_DEVICE_BINARY_TYPE_NATIVE;
    Image.DeviceTargetSpec = Target;
    Image.CompileOptions = "";
    Image.LinkOptions = "";
    Image.BinaryStart = C.Bytes;
    Image.BinaryEnd = C.Bytes + C.Size;
    pi_program Program = nullptr;
    EXPECT_PI(pi().piextProgramCreateWithImage(Context, 1, &Device, &Image, &Program));
    return Program;
  }

  std::string buildLog(pi_program Program) {
    size_t Size = 0;
    EXPECT_PI(
        pi().piProgramGetBuildInfo(Program, Device, PI_PROGRAM_BUILD_INFO_LOG, 0, nullptr, &Size));
    std::string Log(Size, '\0');
    EXPECT_PI(pi().piProgramGetBuildInfo(Program, Device, PI_PROGRAM_BUILD_INFO_LOG, Size,
                                         Log.data(), nullptr));
    return Log;
  }

  PlatformCode Code;
};

TEST_F(HipDevice, DescribesTheDevice) {
  EXPECT_EQ(deviceString(Device, PI_EXT_DEVICE_INFO_BACKEND_NAME), DGLINK_TEST_ADAPTER_NAME);
  EXPECT_FALSE(deviceString(Device, PI_DEVICE_INFO_NAME).empty());
  EXPECT_EQ(deviceString(Device, PI_EXT_DEVICE_INFO_IMAGE_FORMATS), Target);
  pi_device_global_mechanism Globals = PI_DEVICE_GLOBAL_MECHANISM_NONE;
  ASSERT_PI(pi().piDeviceGetInfo(Device, PI_EXT_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM,
                                 sizeof(Globals), &Globals, nullptr));
  EXPECT_EQ(Globals, PI_DEVICE_GLOBAL_MECHANISM_NATIVE);
  const std::string Extensions = deviceString(Device, PI_DEVICE_INFO_EXTENSIONS);
  EXPECT_NE(Extensions.find(PI_EXT_DEVICE_GLOBAL_ACCESS), std::string::npos) << Extensions;
  pi_bool Links = PI_FALSE;
  ASSERT_PI(pi().piDeviceGetInfo(Device, PI_DEVICE_INFO_LINKER_AVAILABLE, sizeof(Links), &Links,
                                 nullptr));
  // The linking string and link format come exactly with a linker.
  EXPECT_EQ(Extensions.find(LinkingExtension) != std::string::npos, Links == PI_TRUE) << Extensions;
  EXPECT_EQ(deviceString(Device, PI_EXT_DEVICE_INFO_LINK_FORMATS), Links ? Target : "");
}

TEST_F(HipDevice, UsmAllocationsAndCopies) {
  void *DevicePtr = nullptr, *HostPtr = nullptr, *SharedPtr = nullptr;
  ASSERT_PI(pi().piextUSMDeviceAlloc(&DevicePtr, Context, Device, nullptr, 4096, 0));
  ASSERT_PI(pi().piextUSMHostAlloc(&HostPtr, Context, nullptr, 4096, 0));
  ASSERT_PI(pi().piextUSMSharedAlloc(&SharedPtr, Context, Device, nullptr, 4096, 0));
  const int Pattern = 0x5A5A1234;
  ASSERT_PI(pi().piextUSMEnqueueFill(Queue, DevicePtr, &Pattern, 4, 4096, 0, nullptr, nullptr));
  ASSERT_PI(
      pi().piextUSMEnqueueMemcpy(Queue, PI_TRUE, HostPtr, DevicePtr, 4096, 0, nullptr, nullptr));
  for (int I = 0; I < 1024; ++I)
    ASSERT_EQ(static_cast<int *>(HostPtr)[I], Pattern) << I;
  std::vector<int> Pageable(1024, 7);
  pi_event Done = nullptr;
  ASSERT_PI(pi().piextUSMEnqueueMemcpy(Queue, PI_FALSE, SharedPtr, Pageable.data(), 4096, 0,
                                       nullptr, &Done));
  ASSERT_PI(pi().piEventsWait(1, &Done));
  EXPECT_EQ(static_cast<int *>(SharedPtr)[1023], 7);
  EXPECT_PI(pi().piEventRelease(Done));
  EXPECT_PI(pi().piextUSMFree(Context, DevicePtr));
  EXPECT_PI(pi().piextUSMFree(Context, HostPtr));
  EXPECT_PI(pi().piextUSMFree(Context, SharedPtr));
}

TEST_F(HipDevice, DeviceGlobalsThroughHipModuleGetGlobal) {
  if (!Code.Available)
    GTEST_SKIP() << "no device code for " << Target << " was built (clang-15 missing)";
  pi_program Program = create(Code.Globals);
  ASSERT_NE(Program, nullptr);
  int Value = 41;
  // Not built yet: not an executable for the queue's device.
  EXPECT_EQ(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
            pi().piextEnqueueDeviceGlobalVariableWrite(Queue, Program, "counter", PI_TRUE, 4, 0,
                                                       &Value, 0, nullptr, nullptr));
  ASSERT_PI(pi().piProgramBuild(Program, 1, &Device, "", nullptr, nullptr));
  ASSERT_PI(pi().piextEnqueueDeviceGlobalVariableWrite(Queue, Program, "counter", PI_TRUE, 4, 0,
                                                       &Value, 0, nullptr, nullptr));
  pi_kernel Bump = nullptr;
  ASSERT_PI(pi().piKernelCreate(Program, "bump", &Bump));
  const size_t One = 1;
  ASSERT_PI(pi().piEnqueueKernelLaunch(Queue, Bump, 1, nullptr, &One, &One, 0, nullptr, nullptr));
  int Back = 0;
  ASSERT_PI(pi().piextEnqueueDeviceGlobalVariableRead(Queue, Program, "counter", PI_TRUE, 4, 0,
                                                      &Back, 0, nullptr, nullptr));
  EXPECT_EQ(Back, 42);

  // table[42]: a write at an offset, read back whole; past the end is refused.
  std::vector<int> Table(42, 0);
  const int Patch[2] = {7, 8};
  ASSERT_PI(pi().piextEnqueueDeviceGlobalVariableWrite(Queue, Program, "table", PI_TRUE, 8, 40 * 4,
                                                       Patch, 0, nullptr, nullptr));
  ASSERT_PI(pi().piextEnqueueDeviceGlobalVariableRead(Queue, Program, "table", PI_TRUE, 42 * 4, 0,
                                                      Table.data(), 0, nullptr, nullptr));
  EXPECT_EQ(Table[40], 7);
  EXPECT_EQ(Table[41], 8);
  EXPECT_EQ(PI_ERROR_INVALID_VALUE,
            pi().piextEnqueueDeviceGlobalVariableRead(Queue, Program, "table", PI_TRUE, 8, 41 * 4,
                                                      Table.data(), 0, nullptr, nullptr));
  EXPECT_NE(lastError().find("past its size of 168 bytes"), std::string::npos) << lastError();
  EXPECT_EQ(PI_ERROR_INVALID_VALUE,
            pi().piextEnqueueDeviceGlobalVariableRead(Queue, Program, "no_such_global", PI_TRUE, 4,
                                                      0, &Back, 0, nullptr, nullptr));
  EXPECT_NE(lastError().find("no_such_global"), std::string::npos) << lastError();
  EXPECT_PI(pi().piKernelRelease(Bump));
  EXPECT_PI(pi().piProgramRelease(Program));
}

TEST_F(HipDevice, CompileAndLinkResolveAnImport) {
  if (!Code.Available)
    GTEST_SKIP() << "no device code for " << Target << " was built (clang-15 missing)";
  pi_bool Links = PI_FALSE;
  ASSERT_PI(pi().piDeviceGetInfo(Device, PI_DEVICE_INFO_LINKER_AVAILABLE, sizeof(Links), &Links,
                                 nullptr));
  pi_program Inputs[2] = {create(Code.LinkMain), create(Code.LinkLib)};
  ASSERT_NE(Inputs[0], nullptr);
  ASSERT_NE(Inputs[1], nullptr);
  for (pi_program Input : Inputs)
    ASSERT_PI(pi().piProgramCompile(Input, 1, &Device, "", 0, nullptr, nullptr, nullptr, nullptr));
  pi_program Linked = nullptr;
  const pi_result Result =
      pi().piProgramLink(Context, 1, &Device, "", 2, Inputs, nullptr, nullptr, &Linked);
  if (!Links) {
    // No linker here: refused as an operation this device cannot do.
    EXPECT_EQ(Result, PI_ERROR_INVALID_OPERATION) << lastError();
  } else {
    ASSERT_EQ(Result, PI_SUCCESS) << lastError();
    pi_kernel Kernel = nullptr;
    ASSERT_PI(pi().piKernelCreate(Linked, "call_cl_helper", &Kernel));
    void *Out = nullptr;
    ASSERT_PI(pi().piextUSMSharedAlloc(&Out, Context, Device, nullptr, 4, 0));
    ASSERT_PI(pi().piextKernelSetArgPointer(Kernel, 0, sizeof(Out), &Out));
    const int X = 8;
    ASSERT_PI(pi().piKernelSetArg(Kernel, 1, sizeof(X), &X));
    const size_t One = 1;
    ASSERT_PI(
        pi().piEnqueueKernelLaunch(Queue, Kernel, 1, nullptr, &One, &One, 0, nullptr, nullptr));
    ASSERT_PI(pi().piQueueFinish(Queue));
    EXPECT_EQ(*static_cast<int *>(Out), 42);
    EXPECT_PI(pi().piextUSMFree(Context, Out));
    EXPECT_PI(pi().piKernelRelease(Kernel));
    EXPECT_PI(pi().piProgramRelease(Linked));
  }
  for (pi_program Input : Inputs)
    EXPECT_PI(pi().piProgramRelease(Input));
}

TEST_F(HipDevice, UnresolvedImportFailsTheLinkWithALog) {
  if (!Code.Available)
    GTEST_SKIP() << "no device code for " << Target << " was built (clang-15 missing)";
  pi_bool Links = PI_FALSE;
  ASSERT_PI(pi().piDeviceGetInfo(Device, PI_DEVICE_INFO_LINKER_AVAILABLE, sizeof(Links), &Links,
                                 nullptr));
  if (!Links)
    GTEST_SKIP() << "the device reports no run-time linker";
  pi_program Main = create(Code.LinkMain);
  ASSERT_NE(Main, nullptr);
  ASSERT_PI(pi().piProgramCompile(Main, 1, &Device, "", 0, nullptr, nullptr, nullptr, nullptr));
  pi_program Linked = nullptr;
  EXPECT_EQ(PI_ERROR_LINK_PROGRAM_FAILURE,
            pi().piProgramLink(Context, 1, &Device, "", 1, &Main, nullptr, nullptr, &Linked));
  ASSERT_NE(Linked, nullptr) << "a failed link still gives a program with a build log";
  EXPECT_NE(buildLog(Linked).find("cl_helper"), std::string::npos) << buildLog(Linked);
  EXPECT_EQ(PI_ERROR_INVALID_OPERATION,
            pi().piProgramBuild(Linked, 1, &Device, "", nullptr, nullptr));
  EXPECT_PI(pi().piProgramRelease(Linked));
  EXPECT_PI(pi().piProgramRelease(Main));
}

} // namespace
