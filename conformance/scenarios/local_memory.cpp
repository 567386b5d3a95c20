// Local-memory kernel arguments (piKernelSetArg with a null value; through the UR face,
// urEnqueueKernelLaunchWithArgsExp's LOCAL arguments): three local arrays of sizes the
// host picks around a by-value argument, each group's data checked, sizes changed
// between launches; a size of 0 refused on every adapter; on CUDA and HIP, a total past
// the device's limit refused at the launch with both figures (docs/stream-backend.md).
#include "fixtures.h"

namespace dglink::conformance {
namespace {

constexpr size_t Count = 256;
constexpr size_t Group = 64;
constexpr int Bias = 5;

class LocalMemory : public BuiltProgramTest {
protected:
  void SetUp() override {
    BuiltProgramTest::SetUp();
    if (HasFatalFailure() || IsSkipped())
      return;
    if (GetParam().Backend == "opencl" && (Format == "nvptx64" || Format == "amdgcn"))
      GTEST_SKIP() << "the suite's " << Format
                   << " image takes local arguments as offsets (DPC++'s CUDA/HIP form, "
                      "dglink-post-link --local-args-as-offsets); this OpenCL device takes "
                      "local pointers";
    ASSERT_NO_FATAL_FAILURE(buildProgram("local_memory", Program));
    ASSERT_NO_FATAL_FAILURE(createKernel(Program.get(), "local_mirror", Kernel));
  }
  bool streamBackend() const {
    return GetParam().Backend == "cuda" || GetParam().Backend.rfind("hip", 0) == 0;
  }
  // Arguments 0, 2 and 5: In, Bias, Out; Bytes, Values, Wide of the sizes given.
  void setArguments(pi_mem In, pi_mem Out, size_t Bytes, size_t Values, size_t Wide) {
    ASSERT_PI_SUCCESS(piextKernelSetArgMemObj(Kernel.get(), 0, &In));
    ASSERT_PI_SUCCESS(piKernelSetArg(Kernel.get(), 1, Bytes, nullptr));
    ASSERT_PI_SUCCESS(piKernelSetArg(Kernel.get(), 2, sizeof(Bias), &Bias));
    ASSERT_PI_SUCCESS(piKernelSetArg(Kernel.get(), 3, Values, nullptr));
    ASSERT_PI_SUCCESS(piKernelSetArg(Kernel.get(), 4, Wide, nullptr));
    ASSERT_PI_SUCCESS(piextKernelSetArgMemObj(Kernel.get(), 5, &Out));
  }
  // Each item reads its mirror item's values: In[mirror] * 1000 + (mirror's local id + 1)
  // + Bias.
  static int32_t expected(size_t I) {
    const size_t Base = I / Group * Group;
    const size_t Mirror = Group - 1 - (I - Base);
    return int32_t(Base + Mirror) * 7 * 1000 + int32_t(Mirror + 1) + Bias;
  }
  void run(size_t Bytes, size_t Values, size_t Wide) {
    std::vector<int32_t> Input(Count);
    for (size_t I = 0; I < Count; ++I)
      Input[I] = int32_t(I) * 7;
    MemHandle In, Out;
    ASSERT_PI_SUCCESS(piMemBufferCreate(Context.get(),
                                        PI_MEM_FLAGS_ACCESS_RW | PI_MEM_FLAGS_HOST_PTR_COPY,
                                        Count * sizeof(int32_t), Input.data(), In.out()));
    ASSERT_PI_SUCCESS(piMemBufferCreate(Context.get(), PI_MEM_FLAGS_ACCESS_RW,
                                        Count * sizeof(int32_t), nullptr, Out.out()));
    ASSERT_NO_FATAL_FAILURE(setArguments(In.get(), Out.get(), Bytes, Values, Wide));
    const size_t Global = Count, Local = Group;
    ASSERT_PI_SUCCESS(piEnqueueKernelLaunch(Queue.get(), Kernel.get(), 1, nullptr, &Global, &Local,
                                            0, nullptr, nullptr));
    std::vector<int32_t> Result(Count, -1);
    ASSERT_PI_SUCCESS(piEnqueueMemBufferRead(Queue.get(), Out.get(), PI_TRUE, 0,
                                             Count * sizeof(int32_t), Result.data(), 0, nullptr,
                                             nullptr));
    EXPECT_EVERY_ELEMENT(Result, expected);
  }
  ProgramHandle Program;
  KernelHandle Kernel;
};

TEST_P(LocalMemory, ArraysOfTheHostsSizes) {
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  // 67 bytes, so that the int array after them is padded to its alignment.
  ASSERT_NO_FATAL_FAILURE(run(Group + 3, Group * sizeof(int32_t), Group * sizeof(int64_t)));
}

TEST_P(LocalMemory, SizesChangeBetweenLaunches) {
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ASSERT_NO_FATAL_FAILURE(run(Group, Group * sizeof(int32_t), Group * sizeof(int64_t)));
  // Larger arrays than the kernel reads, and a large first one: the later ones move.
  ASSERT_NO_FATAL_FAILURE(run(4096 + 1, 3 * Group * sizeof(int32_t), 2 * Group * sizeof(int64_t)));
}

TEST_P(LocalMemory, ZeroSizeIsRefused) {
  const pi_result SetResult = piKernelSetArg(Kernel.get(), 1, 0, nullptr);
  if (!throughUnifiedRuntime()) {
    EXPECT_EQ(SetResult, PI_ERROR_INVALID_ARG_SIZE) << lastErrorMessage();
    return;
  }
  // The UR face takes arguments with the launch (urEnqueueKernelLaunchWithArgsExp).
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  MemHandle Buffer;
  ASSERT_PI_SUCCESS(piMemBufferCreate(Context.get(), PI_MEM_FLAGS_ACCESS_RW,
                                      Count * sizeof(int32_t), nullptr, Buffer.out()));
  const pi_mem Mem = Buffer.get();
  ASSERT_PI_SUCCESS(piextKernelSetArgMemObj(Kernel.get(), 0, &Mem));
  ASSERT_PI_SUCCESS(piKernelSetArg(Kernel.get(), 2, sizeof(Bias), &Bias));
  ASSERT_PI_SUCCESS(piKernelSetArg(Kernel.get(), 3, 4 * Group, nullptr));
  ASSERT_PI_SUCCESS(piKernelSetArg(Kernel.get(), 4, 8 * Group, nullptr));
  ASSERT_PI_SUCCESS(piextKernelSetArgMemObj(Kernel.get(), 5, &Mem));
  const size_t Global = Count, Local = Group;
  EXPECT_EQ(piEnqueueKernelLaunch(Queue.get(), Kernel.get(), 1, nullptr, &Global, &Local, 0,
                                  nullptr, nullptr),
            PI_ERROR_INVALID_ARG_SIZE)
      << lastErrorMessage();
}

// The stream backend's contract: the launch checks the total against the device's limit
// (CUDA: the opt-in maximum per block) and names both.
TEST_P(LocalMemory, BeyondTheDeviceLimitIsRefusedAtLaunch) {
  if (!streamBackend())
    GTEST_SKIP() << "the launch-time limit check is the CUDA and HIP adapters' (others leave "
                    "it to their driver)";
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  MemHandle Buffer;
  ASSERT_PI_SUCCESS(piMemBufferCreate(Context.get(), PI_MEM_FLAGS_ACCESS_RW,
                                      Count * sizeof(int32_t), nullptr, Buffer.out()));
  // Far past any device's shared memory per block (227 KiB on an H100); the arrays lie at
  // 0 (64 bytes), 128 (TooMuch, a multiple of 128) and 128 + TooMuch (512 bytes).
  const size_t TooMuch = size_t{16} << 20;
  ASSERT_NO_FATAL_FAILURE(setArguments(Buffer.get(), Buffer.get(), Group, TooMuch, 8 * Group));
  const size_t Global = Count, Local = Group;
  EXPECT_EQ(piEnqueueKernelLaunch(Queue.get(), Kernel.get(), 1, nullptr, &Global, &Local, 0,
                                  nullptr, nullptr),
            PI_ERROR_OUT_OF_RESOURCES);
  const std::string Message = lastErrorMessage();
  EXPECT_TRUE(containsIgnoringCase(Message, "local_mirror")) << Message;
  EXPECT_NE(Message.find(std::to_string(128 + TooMuch + 512)), std::string::npos) << Message;
  // The queue still works: the same kernel within the limit.
  ASSERT_NO_FATAL_FAILURE(run(Group, Group * sizeof(int32_t), Group * sizeof(int64_t)));
}

DGLINK_INSTANTIATE_FOR_DEVICES(LocalMemory);

} // namespace
} // namespace dglink::conformance
