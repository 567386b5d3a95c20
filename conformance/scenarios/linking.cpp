// Separate compilation and linking: images compiled one by one, linked with
// piProgramLink, run, and every element compared. On a device that runs no
// kernels the scenarios still link and create the kernel, then skip.
#include "fixtures.h"

namespace dglink::conformance {
namespace {

class Linking : public LinkTest {
protected:
  // Links Images, runs Kernel over Count elements and compares with Expected.
  void linkAndRun(const std::vector<std::string> &Images, const char *Kernel,
                  const std::function<int32_t(size_t)> &Expected) {
    ProgramHandle Linked;
    ASSERT_NO_FATAL_FAILURE(linkImages(Images, Format, Linked));
    KernelHandle K;
    ASSERT_NO_FATAL_FAILURE(createKernel(Linked.get(), Kernel, K));
    // Linked and the kernel made: what remains needs the kernel to run.
  DGLINK_REQUIRE_KERNEL_EXECUTION();
    std::vector<int32_t> Values;
    ASSERT_NO_FATAL_FAILURE(runOnBuffer(K.get(), 1024, Values));
    EXPECT_EVERY_ELEMENT(Values, Expected) << "format " << Format;
  }
};
DGLINK_INSTANTIATE_FOR_DEVICES(Linking);

TEST_P(Linking, TwoImages) {
  linkAndRun({"link_caller", "link_callee"}, "link_caller",
             [](size_t I) { return int32_t(I) * 7 + 5; });
}

// Each image appends one hex digit, so 0xDCBA needs all four images and shows
// that the calls went 0 -> 1 -> 2 -> 3.
int32_t chainValue(size_t I) { return int32_t(I) << 16 | 0xDCBA; }

TEST_P(Linking, ChainOfFour) {
  linkAndRun({"chain_0", "chain_1", "chain_2", "chain_3"}, "chain_start", chainValue);
}

// The order of the inputs does not matter to a linker.
TEST_P(Linking, ChainOfFourReversed) {
  linkAndRun({"chain_3", "chain_2", "chain_1", "chain_0"}, "chain_start", chainValue);
}

TEST_P(Linking, LinkedProgramListsItsKernel) {
  ProgramHandle Linked;
  ASSERT_NO_FATAL_FAILURE(linkImages({"link_caller", "link_callee"}, Format, Linked));
  size_t Size = 0;
  ASSERT_PI_SUCCESS(
      piProgramGetInfo(Linked.get(), PI_PROGRAM_INFO_KERNEL_NAMES, 0, nullptr, &Size));
  std::string Names(Size, '\0');
  ASSERT_PI_SUCCESS(
      piProgramGetInfo(Linked.get(), PI_PROGRAM_INFO_KERNEL_NAMES, Size, Names.data(), nullptr));
  EXPECT_NE(Names.find("link_caller"), std::string::npos) << "kernel names: " << Names;
}

// Two programs linked from the same images are independent.
TEST_P(Linking, TwiceFromTheSameImages) {
  linkAndRun({"link_caller", "link_callee"}, "link_caller",
             [](size_t I) { return int32_t(I) * 7 + 5; });
  linkAndRun({"link_caller", "link_callee"}, "link_caller",
             [](size_t I) { return int32_t(I) * 7 + 5; });
}

} // namespace
} // namespace dglink::conformance
