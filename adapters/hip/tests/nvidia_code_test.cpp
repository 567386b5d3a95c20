// The NVIDIA build's device-code layer on the host: PTX recognised, OpenCL-
// flavoured PTX linked across images by nvJitLink (which needs no GPU), and an
// unresolved import failing the link with a log naming it.
#include "native_code.h"

#include "jit_link.h"

#include <dglink/support/error.h>

#include <gtest/gtest.h>

#include <vector>

#if DGLINK_TEST_NVCL_CODE
extern const unsigned char OpenClLinkMainPtx[];
extern const size_t OpenClLinkMainPtxSize;
extern const unsigned char OpenClLinkLibPtx[];
extern const size_t OpenClLinkLibPtxSize;
#endif

using namespace dglink::hip;

namespace {

TEST(HipNvidiaCode, RecognisesPtxAndRefusesCodeObjects) {
  CodeKind Kind;
  const char Ptx[] = ".version 7.5\n.target sm_75\n.address_size 64\n";
  ASSERT_TRUE(detectCode(Ptx, sizeof(Ptx), Kind));
  EXPECT_EQ(Kind, CodeKind::Ptx);
  const unsigned char SpirV[] = {0x03, 0x02, 0x23, 0x07, 0, 0, 1, 0};
  EXPECT_FALSE(detectCode(SpirV, sizeof(SpirV), Kind));
  EXPECT_STREQ(imageTarget(), PI_DEVICE_BINARY_TARGET_NVPTX64);
  // An AMD code object is no link input here.
  std::vector<char> Object(64, 0);
  std::vector<char> Out;
  std::string Log;
  EXPECT_EQ(PI_ERROR_INVALID_OPERATION,
            linkCode({{CodeKind::Relocatable, &Object, {}}}, "sm_90", 9, 0, Out, Kind, Log));
}

#if DGLINK_TEST_NVCL_CODE
std::vector<char> ptx(const unsigned char *Data, size_t Size) {
  return std::vector<char>(reinterpret_cast<const char *>(Data),
                           reinterpret_cast<const char *>(Data) + Size + 1); // with its NUL
}

class HipNvJitLink : public ::testing::Test {
protected:
  void SetUp() override {
    if (!dglink::cuda::nvJitLinkAvailable())
      GTEST_SKIP() << "no libnvJitLink here (the link would need the driver's cuLink*)";
  }
  std::vector<char> Main = ptx(OpenClLinkMainPtx, OpenClLinkMainPtxSize);
  std::vector<char> Library = ptx(OpenClLinkLibPtx, OpenClLinkLibPtxSize);
};

TEST_F(HipNvJitLink, LinksOpenClPtxAcrossImages) {
  EXPECT_EQ(kernelNames(CodeKind::Ptx, Main), std::vector<std::string>{"call_cl_helper"});
  std::vector<char> Out;
  std::string Log;
  CodeKind Kind = CodeKind::Ptx;
  ASSERT_EQ(PI_SUCCESS, linkCode({{CodeKind::Ptx, &Main, {}}, {CodeKind::Ptx, &Library, {}}},
                                 "sm_90", 9, 0, Out, Kind, Log))
      << dglink::lastErrorMessage() << "\n"
      << Log;
  EXPECT_EQ(Kind, CodeKind::Cubin);
  CodeKind Detected;
  ASSERT_TRUE(detectCode(Out.data(), Out.size(), Detected));
  EXPECT_EQ(Detected, CodeKind::Cubin);
}

TEST_F(HipNvJitLink, UnresolvedImportIsALinkFailureNamingIt) {
  std::vector<char> Out;
  std::string Log;
  CodeKind Kind;
  EXPECT_EQ(PI_ERROR_LINK_PROGRAM_FAILURE,
            linkCode({{CodeKind::Ptx, &Main, {}}}, "sm_90", 9, 0, Out, Kind, Log));
  EXPECT_NE(Log.find("cl_helper"), std::string::npos) << Log;
}
#endif

} // namespace
