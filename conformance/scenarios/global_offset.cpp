// Global offsets (piEnqueueKernelLaunch's GlobalWorkOffset; through the UR face,
// urEnqueueKernelLaunch's pGlobalWorkOffset): every work-item's global id includes the
// offset, checked at every index in one and two dimensions; offset 0 as before. CUDA and
// HIP run DPC++'s "<kernel>_with_offset" entry point (docs/stream-backend.md) and refuse
// an offset for a kernel without one; OpenCL devices that run the kernel as PTX refuse
// any (their ids come from PTX's special registers); Level Zero launches with offset 0
// only. Where a device owes the refusal, the scenario checks it and skips.
#include "fixtures.h"

namespace dglink::conformance {
namespace {

constexpr size_t Count = 256;
constexpr size_t Group = 32;

class GlobalOffset : public BuiltProgramTest {
protected:
  void SetUp() override {
    BuiltProgramTest::SetUp();
    if (HasFatalFailure() || IsSkipped())
      return;
    ASSERT_NO_FATAL_FAILURE(buildProgram("global_offset", Program));
  }
  bool streamBackend() const {
    return GetParam().Backend == "cuda" || GetParam().Backend.rfind("hip", 0) == 0;
  }
  // Why Launched, the result of a launch with a non-zero offset, is the refusal this
  // device owes (its message names the reason), or "" where it must have run.
  std::string refusal(pi_result Launched) const {
    const std::string Message = lastErrorMessage();
    if (GetParam().Backend == "level_zero" && Launched == PI_ERROR_INVALID_GLOBAL_OFFSET)
      return "the Level Zero adapter launches with global offset 0 only: " + Message;
    if (GetParam().Backend == "opencl" && Launched == PI_ERROR_INVALID_VALUE &&
        Message.find("PTX") != std::string::npos)
      return "this OpenCL device runs the kernel as PTX, whose ids come from PTX's special "
             "registers without the offset: " +
             Message;
    return "";
  }
  // Out (Items values) after a launch of Name with the offsets and sizes given.
  pi_result launch(const char *Name, pi_uint32 Dimensions, const size_t *Offset,
                   const size_t *Global, const size_t *Local, size_t Items,
                   std::vector<int32_t> &Result, uint32_t Width = 0) {
    KernelHandle Kernel;
    createKernel(Program.get(), Name, Kernel);
    if (HasFatalFailure())
      return PI_ERROR_INVALID_KERNEL;
    MemHandle Out;
    const std::vector<int32_t> Poison(Items, -1);
    EXPECT_EQ(piMemBufferCreate(Context.get(), PI_MEM_FLAGS_ACCESS_RW | PI_MEM_FLAGS_HOST_PTR_COPY,
                                Items * sizeof(int32_t), const_cast<int32_t *>(Poison.data()),
                                Out.out()),
              PI_SUCCESS);
    const pi_mem Mem = Out.get();
    EXPECT_EQ(piextKernelSetArgMemObj(Kernel.get(), 0, &Mem), PI_SUCCESS);
    if (Dimensions == 2) {
      EXPECT_EQ(piKernelSetArg(Kernel.get(), 1, sizeof(Width), &Width), PI_SUCCESS);
    }
    const pi_result Launched = piEnqueueKernelLaunch(Queue.get(), Kernel.get(), Dimensions, Offset,
                                                     Global, Local, 0, nullptr, nullptr);
    if (Launched != PI_SUCCESS)
      return Launched;
    Result.assign(Items, 0);
    EXPECT_EQ(piEnqueueMemBufferRead(Queue.get(), Out.get(), PI_TRUE, 0, Items * sizeof(int32_t),
                                     Result.data(), 0, nullptr, nullptr),
              PI_SUCCESS);
    return PI_SUCCESS;
  }
  ProgramHandle Program;
};

TEST_P(GlobalOffset, OneDimensionEveryIndexIncludesTheOffset) {
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  const size_t Offset[3] = {3, 0, 0};
  const size_t Global[3] = {Count, 1, 1};
  const size_t Local[3] = {Group, 1, 1};
  std::vector<int32_t> Result;
  const pi_result Launched = launch("offset_ids", 1, Offset, Global, Local, Count, Result);
  if (const std::string Why = refusal(Launched); !Why.empty())
    GTEST_SKIP() << Why;
  ASSERT_EQ(Launched, PI_SUCCESS) << lastErrorMessage();
  EXPECT_EVERY_ELEMENT(Result, [](size_t I) { return int32_t(I + 3); });
}

TEST_P(GlobalOffset, LocalSizeChosenByTheAdapter) {
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  const size_t Offset[3] = {17, 0, 0};
  const size_t Global[3] = {Count, 1, 1};
  std::vector<int32_t> Result;
  const pi_result Launched = launch("offset_ids", 1, Offset, Global, nullptr, Count, Result);
  if (const std::string Why = refusal(Launched); !Why.empty())
    GTEST_SKIP() << Why;
  ASSERT_EQ(Launched, PI_SUCCESS) << lastErrorMessage();
  EXPECT_EVERY_ELEMENT(Result, [](size_t I) { return int32_t(I + 17); });
}

TEST_P(GlobalOffset, TwoDimensionsEachWithItsOffset) {
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  constexpr size_t Width = 32, Height = 8;
  const size_t Offset[3] = {3, 5, 0};
  const size_t Global[3] = {Width, Height, 1};
  const size_t Local[3] = {8, 2, 1};
  std::vector<int32_t> Result;
  const pi_result Launched =
      launch("offset_ids_2d", 2, Offset, Global, Local, Width * Height, Result, Width);
  if (const std::string Why = refusal(Launched); !Why.empty())
    GTEST_SKIP() << Why;
  ASSERT_EQ(Launched, PI_SUCCESS) << lastErrorMessage();
  const auto Expected = [&](size_t I) {
    const size_t X = I % Width + 3;
    const size_t Y = I / Width + 5;
    return int32_t((X << 16) | Y);
  };
  EXPECT_EVERY_ELEMENT(Result, Expected);
}

TEST_P(GlobalOffset, OffsetZeroRunsAsWithout) {
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  const size_t Zero[3] = {0, 0, 0};
  const size_t Global[3] = {Count, 1, 1};
  const size_t Local[3] = {Group, 1, 1};
  std::vector<int32_t> Result;
  ASSERT_EQ(launch("offset_ids", 1, Zero, Global, Local, Count, Result), PI_SUCCESS)
      << lastErrorMessage();
  EXPECT_EVERY_ELEMENT(Result, [](size_t I) { return int32_t(I); });
  ASSERT_EQ(launch("group_ids", 1, nullptr, Global, Local, Count, Result), PI_SUCCESS)
      << lastErrorMessage();
  EXPECT_EVERY_ELEMENT(Result, [](size_t I) { return int32_t(I); });
}

// CUDA and HIP: a kernel without an offset entry point (it reads no offset) is refused a
// non-zero offset by name, where UR's adapters would launch it with offset 0.
TEST_P(GlobalOffset, StreamBackendsRefuseAnOffsetForAKernelWithoutOffsetEntry) {
  if (!streamBackend())
    GTEST_SKIP() << "the offset entry points are CUDA's and HIP's (other backends launch every "
                    "kernel with the driver's offset, or none)";
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  const size_t Offset[3] = {3, 0, 0};
  const size_t Global[3] = {Count, 1, 1};
  std::vector<int32_t> Result;
  EXPECT_EQ(launch("group_ids", 1, Offset, Global, nullptr, Count, Result), PI_ERROR_INVALID_VALUE);
  const std::string Message = lastErrorMessage();
  EXPECT_TRUE(containsIgnoringCase(Message, "group_ids_with_offset")) << Message;
}

DGLINK_INSTANTIATE_FOR_DEVICES(GlobalOffset);

} // namespace
} // namespace dglink::conformance
