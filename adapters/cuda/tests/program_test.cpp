// Programs on a CUDA device: OpenCL-flavoured PTX, compile + link (and its
// failures, which name the symbols), formats CUDA refuses.
#include "test_support.h"

#include <cstring>

using namespace dglink::cuda::test;

namespace {

class Programs : public CudaDeviceTest {
protected:
  pi_program create(const unsigned char *Bytes, size_t Size) {
    pi_program Program = nullptr;
    ImageBuilder Builder(Bytes, Size);
    EXPECT_PI(pi().piextProgramCreateWithImage(Context, 1, &Device, &Builder.image(), &Program));
    return Program;
  }
  pi_program compiled(const _pi_device_binary_struct &Image) {
    pi_program Program = nullptr;
    EXPECT_PI(pi().piextProgramCreateWithImage(Context, 1, &Device, &Image, &Program));
    EXPECT_PI(
        pi().piProgramCompile(Program, 1, &Device, "", 0, nullptr, nullptr, nullptr, nullptr));
    return Program;
  }
  pi_int32 buildStatus(pi_program Program) {
    pi_program_build_status Status = PI_PROGRAM_BUILD_STATUS_NONE;
    EXPECT_PI(pi().piProgramGetBuildInfo(Program, Device, PI_PROGRAM_BUILD_INFO_STATUS,
                                         sizeof(Status), &Status, nullptr));
    return Status;
  }
  // Launches Kernel(int *out, int x) on one work-item and returns *out.
  int callWithInt(pi_program Program, const char *Name, int X) {
    pi_kernel Kernel = nullptr;
    EXPECT_PI(pi().piKernelCreate(Program, Name, &Kernel));
    if (Kernel == nullptr)
      return -1;
    void *Out = nullptr;
    EXPECT_PI(pi().piextUSMDeviceAlloc(&Out, Context, Device, nullptr, sizeof(int), 0));
    EXPECT_PI(pi().piextKernelSetArgPointer(Kernel, 0, sizeof(Out), &Out));
    EXPECT_PI(pi().piKernelSetArg(Kernel, 1, sizeof(X), &X));
    const size_t Global = 1;
    EXPECT_PI(pi().piEnqueueKernelLaunch(Queue, Kernel, 1, nullptr, &Global, nullptr, 0, nullptr,
                                         nullptr));
    int Value = -1;
    EXPECT_PI(
        pi().piextUSMEnqueueMemcpy(Queue, PI_TRUE, &Value, Out, sizeof(int), 0, nullptr, nullptr));
    EXPECT_PI(pi().piextUSMFree(Context, Out));
    EXPECT_PI(pi().piKernelRelease(Kernel));
    return Value;
  }
};

TEST_F(Programs, RefusesSpirV) {
  const uint32_t SpirV[] = {0x07230203u, 0x00010000u, 0, 1, 0};
  pi_program Program = nullptr;
  EXPECT_EQ(PI_ERROR_INVALID_OPERATION,
            pi().piProgramCreate(Context, SpirV, sizeof(SpirV), &Program));
  EXPECT_NE(lastError().find("CUDA cannot consume SPIR-V"), std::string::npos) << lastError();
  ImageBuilder Builder(reinterpret_cast<const unsigned char *>(SpirV), sizeof(SpirV));
  _pi_device_binary_struct Image = Builder.image();
  Image.Format = PI_DEVICE_BINARY_TYPE_SPIRV;
  Image.DeviceTargetSpec = PI_DEVICE_BINARY_TARGET_SPIRV64;
  EXPECT_EQ(PI_ERROR_INVALID_OPERATION,
            pi().piextProgramCreateWithImage(Context, 1, &Device, &Image, &Program));
  const unsigned char Garbage[] = "not a device image at all";
  EXPECT_EQ(PI_ERROR_INVALID_BINARY,
            pi().piProgramCreate(Context, Garbage, sizeof(Garbage), &Program));
}

TEST_F(Programs, BadPtxFailsToBuildWithALog) {
  const char Ptx[] = ".version 7.5\n.target sm_75\n.address_size 64\n"
                     ".visible .entry broken() { this is not ptx; }\n";
  pi_program Program = create(reinterpret_cast<const unsigned char *>(Ptx), sizeof(Ptx));
  ASSERT_NE(Program, nullptr);
  EXPECT_EQ(PI_ERROR_BUILD_PROGRAM_FAILURE,
            pi().piProgramBuild(Program, 1, &Device, nullptr, nullptr, nullptr));
  EXPECT_EQ(buildStatus(Program), PI_PROGRAM_BUILD_STATUS_ERROR);
  EXPECT_FALSE(buildLog(Program).empty());
  pi_kernel Kernel = nullptr;
  EXPECT_EQ(PI_ERROR_INVALID_PROGRAM_EXECUTABLE, pi().piKernelCreate(Program, "broken", &Kernel));
  EXPECT_PI(pi().piProgramRelease(Program));
}

TEST_F(Programs, LinkArgumentChecks) {
  pi_program Out = nullptr;
  pi_program One = nullptr;
  EXPECT_EQ(PI_ERROR_INVALID_VALUE,
            pi().piProgramLink(Context, 1, &Device, nullptr, 0, &One, nullptr, nullptr, &Out));
  EXPECT_EQ(PI_ERROR_INVALID_VALUE,
            pi().piProgramLink(Context, 1, &Device, nullptr, 1, nullptr, nullptr, nullptr, &Out));
  EXPECT_EQ(PI_ERROR_INVALID_VALUE,
            pi().piProgramLink(Context, 1, &Device, nullptr, 1, &One, nullptr, nullptr, nullptr));
  EXPECT_EQ(PI_ERROR_INVALID_PROGRAM,
            pi().piProgramLink(Context, 1, &Device, nullptr, 1, &One, nullptr, nullptr, &Out));
  EXPECT_EQ(Out, nullptr);
}

#if DGLINK_TEST_NVCC_CODE
TEST_F(Programs, LinksTwoPtxImages) {
  ImageBuilder Main(CudaLinkMainPtx, CudaLinkMainPtxSize);
  Main.imported("helper");
  ImageBuilder Library(CudaLinkLibPtx, CudaLinkLibPtxSize);
  Library.exported("helper");
  pi_program Inputs[] = {compiled(Main.image()), compiled(Library.image())};
  // A compiled object is no executable yet.
  pi_kernel Kernel = nullptr;
  EXPECT_EQ(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
            pi().piKernelCreate(Inputs[0], "call_helper", &Kernel));
  pi_program Linked = nullptr;
  ASSERT_PI(pi().piProgramLink(Context, 1, &Device, nullptr, 2, Inputs, nullptr, nullptr, &Linked));
  EXPECT_EQ(buildStatus(Linked), PI_PROGRAM_BUILD_STATUS_SUCCESS);
  EXPECT_EQ(callWithInt(Linked, "call_helper", 10), 31);
  pi_program_binary_type Type = PI_PROGRAM_BINARY_TYPE_NONE;
  ASSERT_PI(pi().piProgramGetBuildInfo(Linked, Device, PI_PROGRAM_BUILD_INFO_BINARY_TYPE,
                                       sizeof(Type), &Type, nullptr));
  EXPECT_EQ(Type, PI_PROGRAM_BINARY_TYPE_EXECUTABLE);
  for (pi_program Input : Inputs)
    EXPECT_PI(pi().piProgramRelease(Input));
  EXPECT_PI(pi().piProgramRelease(Linked));
}

TEST_F(Programs, UnresolvedImportFailsTheLinkAndIsNamed) {
  ImageBuilder Main(CudaLinkMainPtx, CudaLinkMainPtxSize);
  Main.imported("helper");
  pi_program Input = compiled(Main.image());
  pi_program Linked = nullptr;
  EXPECT_EQ(PI_ERROR_LINK_PROGRAM_FAILURE,
            pi().piProgramLink(Context, 1, &Device, nullptr, 1, &Input, nullptr, nullptr, &Linked));
  EXPECT_NE(lastError().find("helper"), std::string::npos) << lastError();
  ASSERT_NE(Linked, nullptr) << "a failed link still returns a program";
  EXPECT_EQ(buildStatus(Linked), PI_PROGRAM_BUILD_STATUS_ERROR);
  const std::string Log = buildLog(Linked);
  EXPECT_NE(Log.find("unresolved symbol helper"), std::string::npos) << Log;
  EXPECT_PI(pi().piProgramRelease(Linked));

  // Without symbol tables the linker itself names the symbol.
  const unsigned char *Binary = CudaLinkMainPtx;
  const size_t Length = CudaLinkMainPtxSize;
  pi_program Plain = nullptr;
  ASSERT_PI(pi().piProgramCreateWithBinary(Context, 1, &Device, &Length, &Binary, 0, nullptr,
                                           nullptr, &Plain));
  Linked = nullptr;
  EXPECT_EQ(PI_ERROR_LINK_PROGRAM_FAILURE,
            pi().piProgramLink(Context, 1, &Device, nullptr, 1, &Plain, nullptr, nullptr, &Linked));
  ASSERT_NE(Linked, nullptr);
  EXPECT_NE(buildLog(Linked).find("helper"), std::string::npos) << buildLog(Linked);
  EXPECT_PI(pi().piProgramRelease(Linked));
  EXPECT_PI(pi().piProgramRelease(Plain));
  EXPECT_PI(pi().piProgramRelease(Input));
}

TEST_F(Programs, DuplicateExportFailsTheLink) {
  ImageBuilder First(CudaLinkLibPtx, CudaLinkLibPtxSize);
  First.exported("helper");
  ImageBuilder Second(CudaLinkLibPtx, CudaLinkLibPtxSize);
  Second.exported("helper");
  pi_program Inputs[] = {compiled(First.image()), compiled(Second.image())};
  pi_program Linked = nullptr;
  EXPECT_EQ(PI_ERROR_LINK_PROGRAM_FAILURE,
            pi().piProgramLink(Context, 1, &Device, nullptr, 2, Inputs, nullptr, nullptr, &Linked));
  ASSERT_NE(Linked, nullptr);
  EXPECT_NE(buildLog(Linked).find("duplicate symbol helper"), std::string::npos)
      << buildLog(Linked);
  EXPECT_PI(pi().piProgramRelease(Linked));
  for (pi_program Input : Inputs)
    EXPECT_PI(pi().piProgramRelease(Input));
}

TEST_F(Programs, ProgramInfo) {
  pi_program Program = create(CudaLinkLibPtx, CudaLinkLibPtxSize);
  size_t Size = 0;
  ASSERT_PI(
      pi().piProgramGetInfo(Program, PI_PROGRAM_INFO_BINARY_SIZES, sizeof(Size), &Size, nullptr));
  std::vector<unsigned char> Copy(Size);
  unsigned char *Target = Copy.data();
  ASSERT_PI(
      pi().piProgramGetInfo(Program, PI_PROGRAM_INFO_BINARIES, sizeof(Target), &Target, nullptr));
  EXPECT_EQ(0, std::memcmp(Copy.data(), CudaLinkLibPtx, CudaLinkLibPtxSize));
  pi_program Main = create(CudaLinkMainPtx, CudaLinkMainPtxSize);
  size_t Kernels = 0;
  ASSERT_PI(
      pi().piProgramGetInfo(Main, PI_PROGRAM_INFO_NUM_KERNELS, sizeof(Kernels), &Kernels, nullptr));
  EXPECT_EQ(Kernels, 1u);
  char Names[64] = {};
  ASSERT_PI(
      pi().piProgramGetInfo(Main, PI_PROGRAM_INFO_KERNEL_NAMES, sizeof(Names), Names, nullptr));
  EXPECT_STREQ(Names, "call_helper");
  EXPECT_PI(pi().piProgramRelease(Program));
  EXPECT_PI(pi().piProgramRelease(Main));
}
#endif

#if DGLINK_TEST_NVCL_CODE
// PTX from clang's OpenCL target: globals shared by the kernels, work-item
// functions defined by the adapter.
TEST_F(Programs, OpenClFlavouredPtxRuns) {
  ImageBuilder Builder(OpenClGlobalsPtx, OpenClGlobalsPtxSize);
  Builder.deviceGlobal("counter", 4).deviceGlobal("table", 168);
  pi_program Program = buildImage(Builder.image());
  ASSERT_NE(Program, nullptr);
  int Table[42];
  for (int I = 0; I < 42; ++I)
    Table[I] = 100 * I;
  ASSERT_PI(pi().piextEnqueueDeviceGlobalVariableWrite(
      Queue, Program, "table", PI_TRUE, sizeof(Table), 0, Table, 0, nullptr, nullptr));
  // bump twice: the counter is one variable for every kernel of the program.
  pi_kernel Bump = nullptr;
  ASSERT_PI(pi().piKernelCreate(Program, "bump", &Bump));
  const size_t One = 1;
  for (int I = 0; I < 2; ++I)
    ASSERT_PI(
        pi().piEnqueueKernelLaunch(Queue, Bump, 1, nullptr, &One, nullptr, 0, nullptr, nullptr));
  int Counter = 0;
  ASSERT_PI(pi().piextEnqueueDeviceGlobalVariableRead(Queue, Program, "counter", PI_TRUE, 4, 0,
                                                      &Counter, 0, nullptr, nullptr));
  EXPECT_EQ(Counter, 2);

  pi_kernel Add = nullptr;
  ASSERT_PI(pi().piKernelCreate(Program, "add", &Add));
  void *Out = nullptr;
  ASSERT_PI(pi().piextUSMSharedAlloc(&Out, Context, Device, nullptr, 128 * sizeof(int), 0));
  const int V = 7;
  ASSERT_PI(pi().piextKernelSetArgPointer(Add, 0, sizeof(Out), &Out));
  ASSERT_PI(pi().piKernelSetArg(Add, 1, sizeof(V), &V));
  const size_t Global = 128, Local = 32;
  ASSERT_PI(
      pi().piEnqueueKernelLaunch(Queue, Add, 1, nullptr, &Global, &Local, 0, nullptr, nullptr));
  ASSERT_PI(pi().piQueueFinish(Queue));
  for (int I = 0; I < 128; ++I)
    ASSERT_EQ(static_cast<int *>(Out)[I], 100 * (I % 42) + 7 + 2) << I;

  pi_kernel Ids = nullptr;
  ASSERT_PI(pi().piKernelCreate(Program, "ids", &Ids));
  void *IdsOut = nullptr;
  ASSERT_PI(pi().piextUSMSharedAlloc(&IdsOut, Context, Device, nullptr, 4 * 96 * 8, 0));
  ASSERT_PI(pi().piextKernelSetArgPointer(Ids, 0, sizeof(IdsOut), &IdsOut));
  const size_t IdsGlobal = 96, IdsLocal = 32;
  ASSERT_PI(pi().piEnqueueKernelLaunch(Queue, Ids, 1, nullptr, &IdsGlobal, &IdsLocal, 0, nullptr,
                                       nullptr));
  ASSERT_PI(pi().piQueueFinish(Queue));
  const auto *Values = static_cast<const uint64_t *>(IdsOut);
  for (uint64_t I = 0; I < 96; ++I) {
    EXPECT_EQ(Values[4 * I + 0], I % 32);
    EXPECT_EQ(Values[4 * I + 1], I / 32);
    EXPECT_EQ(Values[4 * I + 2], 32u);
    EXPECT_EQ(Values[4 * I + 3], 96u);
  }
  EXPECT_PI(pi().piextUSMFree(Context, Out));
  EXPECT_PI(pi().piextUSMFree(Context, IdsOut));
  for (pi_kernel Kernel : {Bump, Add, Ids})
    EXPECT_PI(pi().piKernelRelease(Kernel));
  EXPECT_PI(pi().piProgramRelease(Program));
}

TEST_F(Programs, LinksOpenClFlavouredPtx) {
  ImageBuilder Main(OpenClLinkMainPtx, OpenClLinkMainPtxSize);
  ImageBuilder Library(OpenClLinkLibPtx, OpenClLinkLibPtxSize);
  pi_program Inputs[] = {compiled(Main.image()), compiled(Library.image())};
  pi_program Linked = nullptr;
  ASSERT_PI(pi().piProgramLink(Context, 1, &Device, nullptr, 2, Inputs, nullptr, nullptr, &Linked))
      << buildLog(Linked);
  EXPECT_EQ(callWithInt(Linked, "call_cl_helper", 4), 22);
  for (pi_program Input : Inputs)
    EXPECT_PI(pi().piProgramRelease(Input));
  EXPECT_PI(pi().piProgramRelease(Linked));
}
#endif

} // namespace
