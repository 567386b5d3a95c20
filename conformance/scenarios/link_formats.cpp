// Every advertised pi_ext_<format>_linking string is proven by a two-image link
// that runs and gives the right values on that device; every format the device
// does not advertise is refused with PI_ERROR_INVALID_OPERATION.
#include "fixtures.h"

#include <algorithm>

namespace dglink::conformance {
namespace {

class LinkFormats : public QueueTest {
protected:
  void checkFormat(const std::string &Name);
  void checkAdvertised(const std::string &Name);
  void checkRefused(const LinkFormat &Format);
};
DGLINK_INSTANTIATE_FOR_DEVICES(LinkFormats);

void LinkFormats::checkFormat(const std::string &Name) {
  const std::vector<std::string> Advertised = linkFormats();
  const bool IsAdvertised =
      std::find(Advertised.begin(), Advertised.end(), Name) != Advertised.end();
  if (!hasImages(Name))
    GTEST_SKIP() << missingImagesReason(Name)
                 << (IsAdvertised ? "; advertised but unproven"
                                  : "; not advertised, refusal unchecked");
  if (IsAdvertised)
    checkAdvertised(Name);
  else
    checkRefused(*findLinkFormat(Name));
}

void LinkFormats::checkAdvertised(const std::string &Name) {
  if (!executesKernels())
    GTEST_SKIP() << "device does not execute kernels; advertised but unproven";
  ProgramHandle Linked;
  ASSERT_NO_FATAL_FAILURE(linkImages({"link_caller", "link_callee"}, Name, Linked));
  KernelHandle Kernel;
  ASSERT_NO_FATAL_FAILURE(createKernel(Linked.get(), "link_caller", Kernel));
  std::vector<int32_t> Values;
  ASSERT_NO_FATAL_FAILURE(runOnBuffer(Kernel.get(), 256, Values));
  EXPECT_EVERY_ELEMENT(Values, [](size_t I) { return int32_t(I) * 7 + 5; });
}

// A refusal may come at any step (create, compile or link) but must come, with
// PI_ERROR_INVALID_OPERATION and a message that names the format.
void LinkFormats::checkRefused(const LinkFormat &Format) {
  auto ExpectRefusal = [&](const char *Step, pi_result Result) {
    const ::testing::AssertionResult Refused =
        failedWith(Step, "", "", Result, PI_ERROR_INVALID_OPERATION, nullptr);
    if (!Refused) {
      ADD_FAILURE() << "format " << Format.Name << " is not advertised but " << Refused.message();
      return;
    }
    const std::string Message = lastErrorMessage();
    const bool Named =
        std::any_of(Format.MessageNames.begin(), Format.MessageNames.end(),
                    [&](const std::string &Word) { return containsIgnoringCase(Message, Word); });
    EXPECT_TRUE(Named) << "the refusal message \"" << Message << "\" does not name the format "
                       << Format.Name;
  };
  // The images outlive the programs made from them.
  std::vector<std::unique_ptr<DeviceImage>> Images;
  std::vector<ProgramHandle> Inputs(2);
  std::vector<pi_program> Raw;
  const char *Names[] = {"link_caller", "link_callee"};
  for (size_t I = 0; I < 2; ++I) {
    Images.push_back(std::make_unique<DeviceImage>(*findImage(Names[I], Format.Name), Format));
    const pi_result Created = piextProgramCreateWithImage(Context.get(), 1, &Device,
                                                          Images.back()->get(), Inputs[I].out());
    if (Created != PI_SUCCESS)
      return ExpectRefusal("piextProgramCreateWithImage", Created);
    const pi_result Compiled =
        piProgramCompile(Inputs[I].get(), 1, &Device, "", 0, nullptr, nullptr, nullptr, nullptr);
    if (Compiled != PI_SUCCESS)
      return ExpectRefusal("piProgramCompile", Compiled);
    Raw.push_back(Inputs[I].get());
  }
  ProgramHandle Linked;
  ExpectRefusal("piProgramLink", piProgramLink(Context.get(), 1, &Device, "", 2, Raw.data(),
                                               nullptr, nullptr, Linked.out()));
}

TEST_P(LinkFormats, Spir64) { checkFormat("spir64"); }
TEST_P(LinkFormats, Spirv64) { checkFormat("spirv64"); }
TEST_P(LinkFormats, Nvptx64) { checkFormat("nvptx64"); }
TEST_P(LinkFormats, Amdgcn) { checkFormat("amdgcn"); }

} // namespace
} // namespace dglink::conformance
