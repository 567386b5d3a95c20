// The AMD build's device-code layer on the host: recognising amdgcn code objects,
// reading kernel names, and linking relocatable objects with comgr (which needs
// no GPU), including the failure for an unresolved import.
#include "native_code.h"

#include <dglink/support/error.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#if DGLINK_TEST_AMD_CODE
extern const unsigned char AmdGlobalsObject[];
extern const size_t AmdGlobalsObjectSize;
extern const unsigned char AmdLinkMainObject[];
extern const size_t AmdLinkMainObjectSize;
extern const unsigned char AmdLinkLibObject[];
extern const size_t AmdLinkLibObjectSize;
#endif

using namespace dglink::hip;

namespace {

TEST(HipAmdCode, RefusesWhatIsNotAnAmdCodeObject) {
  CodeKind Kind;
  const char Ptx[] = ".version 7.5\n.target sm_75\n";
  EXPECT_FALSE(detectCode(Ptx, sizeof(Ptx), Kind));
  const unsigned char SpirV[] = {0x03, 0x02, 0x23, 0x07, 0, 0, 1, 0};
  EXPECT_FALSE(detectCode(SpirV, sizeof(SpirV), Kind));
  // An x86-64 ELF header: right magic, wrong machine.
  unsigned char Elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  Elf[16] = 1;  // ET_REL
  Elf[18] = 62; // EM_X86_64
  EXPECT_FALSE(detectCode(Elf, sizeof(Elf), Kind));
  Elf[18] = 224; // EM_AMDGPU, but no sections: recognised, and nothing to read
  ASSERT_TRUE(detectCode(Elf, sizeof(Elf), Kind));
  EXPECT_EQ(Kind, CodeKind::Relocatable);
  EXPECT_TRUE(kernelNames(Kind, std::vector<char>(Elf, Elf + sizeof(Elf))).empty());
  EXPECT_FALSE(detectCode(Elf, 10, Kind)); // truncated
  EXPECT_STREQ(imageTarget(), PI_DEVICE_BINARY_TARGET_AMDGCN);
}

// A section table pointing past the end of the file is not followed.
TEST(HipAmdCode, ToleratesCorruptSectionTables) {
  std::vector<char> Elf(64, 0);
  const unsigned char Header[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  std::copy(Header, Header + sizeof(Header), Elf.begin());
  Elf[16] = 1;
  Elf[18] = static_cast<char>(224);
  Elf[40] = static_cast<char>(0xF0); // e_shoff far away
  Elf[41] = static_cast<char>(0xFF);
  Elf[58] = 64; // e_shentsize
  Elf[60] = 9;  // e_shnum
  EXPECT_TRUE(kernelNames(CodeKind::Relocatable, Elf).empty());
}

#if DGLINK_TEST_AMD_CODE
std::vector<char> bytes(const unsigned char *Data, size_t Size) {
  return std::vector<char>(reinterpret_cast<const char *>(Data),
                           reinterpret_cast<const char *>(Data) + Size);
}

class HipComgrLink : public ::testing::Test {
protected:
  void SetUp() override {
    std::string Why;
    if (!linkerAvailable(&Why))
      GTEST_SKIP() << "no comgr here: " << Why;
  }
  std::vector<char> Main = bytes(AmdLinkMainObject, AmdLinkMainObjectSize);
  std::vector<char> Library = bytes(AmdLinkLibObject, AmdLinkLibObjectSize);
  std::vector<char> Globals = bytes(AmdGlobalsObject, AmdGlobalsObjectSize);
};

TEST_F(HipComgrLink, ReadsRelocatableObjects) {
  CodeKind Kind;
  ASSERT_TRUE(detectCode(Main.data(), Main.size(), Kind));
  EXPECT_EQ(Kind, CodeKind::Relocatable);
  EXPECT_EQ(kernelNames(Kind, Main), std::vector<std::string>{"call_cl_helper"});
  EXPECT_EQ(kernelNames(Kind, Globals), std::vector<std::string>{"bump"});
  EXPECT_TRUE(kernelNames(Kind, Library).empty());
}

TEST_F(HipComgrLink, LinksAnImportAgainstAnExport) {
  std::vector<char> Out;
  std::string Log;
  CodeKind Kind = CodeKind::Relocatable;
  ASSERT_EQ(PI_SUCCESS, linkCode({{CodeKind::Relocatable, &Main, {}},
                                  {CodeKind::Relocatable, &Library, {"cl_helper"}}},
                                 "gfx90a", 0, 0, Out, Kind, Log))
      << dglink::lastErrorMessage() << "\n"
      << Log;
  EXPECT_EQ(Kind, CodeKind::CodeObject);
  CodeKind Detected;
  ASSERT_TRUE(detectCode(Out.data(), Out.size(), Detected));
  EXPECT_EQ(Detected, CodeKind::CodeObject); // an executable (ET_DYN) code object
  EXPECT_EQ(kernelNames(Detected, Out), std::vector<std::string>{"call_cl_helper"});
}

TEST_F(HipComgrLink, BuildingARelocatableObjectLinksItAlone) {
  std::vector<char> Out;
  std::string Log;
  ASSERT_EQ(PI_SUCCESS, codeForLoad(CodeKind::Relocatable, Globals, "gfx90a", Out, Log))
      << dglink::lastErrorMessage() << "\n"
      << Log;
  CodeKind Detected;
  ASSERT_TRUE(detectCode(Out.data(), Out.size(), Detected));
  EXPECT_EQ(Detected, CodeKind::CodeObject);
}

TEST_F(HipComgrLink, UnresolvedImportIsALinkFailureNamingIt) {
  std::vector<char> Out;
  std::string Log;
  CodeKind Kind;
  EXPECT_EQ(PI_ERROR_LINK_PROGRAM_FAILURE,
            linkCode({{CodeKind::Relocatable, &Main, {}}}, "gfx90a", 0, 0, Out, Kind, Log));
  EXPECT_NE(Log.find("cl_helper"), std::string::npos) << Log;
  EXPECT_NE(dglink::lastErrorMessage().find("cl_helper"), std::string::npos)
      << dglink::lastErrorMessage();
  EXPECT_TRUE(Out.empty());
}

TEST_F(HipComgrLink, OnlyRelocatableObjectsAreLinkInputs) {
  std::vector<char> Executable;
  std::string Log;
  ASSERT_EQ(PI_SUCCESS, codeForLoad(CodeKind::Relocatable, Globals, "gfx90a", Executable, Log))
      << dglink::lastErrorMessage();
  std::vector<char> Out;
  CodeKind Kind;
  EXPECT_EQ(PI_ERROR_INVALID_OPERATION,
            linkCode({{CodeKind::Relocatable, &Main, {}}, {CodeKind::CodeObject, &Executable, {}}},
                     "gfx90a", 0, 0, Out, Kind, Log));
  EXPECT_NE(dglink::lastErrorMessage().find("relocatable"), std::string::npos)
      << dglink::lastErrorMessage();
}
#else
TEST(HipComgrLink, NeedsClang15) {
  GTEST_SKIP() << "clang-15 was not found when dglink was built: no amdgcn objects to link";
}
#endif

} // namespace
