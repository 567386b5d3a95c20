// Host-only pieces of the CUDA adapter: the PTX scanner, the repair of clang's
// OpenCL-flavoured PTX, and links with nvJitLink (no GPU needed) for sm_90.
#include "test_support.h"

#include "jit_link.h"
#include "nvcl_ptx.h"

#include <algorithm>
#include <cstring>

using namespace dglink::cuda;

namespace {

const char *const SmallPtx = R"(//
.version 7.5
.target sm_20, texmode_independent
.address_size 64
	// .globl	k
.func  (.param .b32 func_retval0) helper
(
	.param .b32 helper_param_0
)
;
.func  (.param .b64 func_retval0) _Z13get_global_idj
(
	.param .b32 _Z13get_global_idj_param_0
)
;
.visible .func local_visible() { ret; }
.func  (.param .b32 func_retval0) defined_here(.param .b32 x)
{
	/* a { brace } in a comment */
	ret;
}
.entry k(
	.param .u64 .ptr .global .align 4 k_param_0
)
.maxntid 64, 1, 1
{
	ret;
}
)";

const PtxFunction *findFunction(const std::vector<PtxFunction> &Functions, const std::string &Name,
                                bool Defined) {
  for (const PtxFunction &Function : Functions)
    if (Function.Name == Name && Function.Defined == Defined)
      return &Function;
  return nullptr;
}

TEST(CudaPtx, ScansFunctionsAndKernels) {
  const std::vector<PtxFunction> Functions = scanPtxFunctions(SmallPtx);
  ASSERT_NE(findFunction(Functions, "helper", false), nullptr);
  ASSERT_NE(findFunction(Functions, "_Z13get_global_idj", false), nullptr);
  const PtxFunction *Visible = findFunction(Functions, "local_visible", true);
  ASSERT_NE(Visible, nullptr);
  EXPECT_EQ(Visible->Linkage, ".visible");
  ASSERT_NE(findFunction(Functions, "defined_here", true), nullptr);
  const PtxFunction *Kernel = findFunction(Functions, "k", true);
  ASSERT_NE(Kernel, nullptr);
  EXPECT_TRUE(Kernel->IsEntry);
  EXPECT_EQ(ptxKernelNames(SmallPtx), std::vector<std::string>{"k"});
  EXPECT_EQ(ptxUndefinedFunctions(SmallPtx), std::vector<std::string>{"helper"});
  EXPECT_TRUE(isOpenClFlavouredPtx(SmallPtx));
}

TEST(CudaPtx, RepairsOpenClFlavour) {
  const std::string Fixed = fixOpenClPtx(SmallPtx, {"defined_here"});
  const std::vector<PtxFunction> Functions = scanPtxFunctions(Fixed);
  const PtxFunction *Helper = findFunction(Functions, "helper", false);
  ASSERT_NE(Helper, nullptr);
  EXPECT_EQ(Helper->Linkage, ".extern");
  EXPECT_NE(findFunction(Functions, "_Z13get_global_idj", true), nullptr) << Fixed;
  EXPECT_EQ(findFunction(Functions, "k", true)->Linkage, ".visible");
  EXPECT_EQ(findFunction(Functions, "defined_here", true)->Linkage, ".visible");
  // Already-linked PTX (CUDA flavour) is left alone.
  const std::string Cuda = ".version 8.0\n.target sm_75\n.address_size 64\n"
                           ".visible .entry e() { ret; }\n";
  EXPECT_EQ(fixOpenClPtx(Cuda), Cuda);
}

class CudaJitLink : public ::testing::Test {
protected:
  void SetUp() override {
    if (!nvJitLinkAvailable())
      GTEST_SKIP() << "libnvJitLink not found";
  }
  static LinkInput ptx(const std::string &Text, const char *Name) {
    LinkInput Input;
    Input.Format = NativeFormat::Ptx;
    Input.Data = Text.c_str();
    Input.Size = Text.size() + 1;
    Input.Name = Name;
    return Input;
  }
  pi_result link(const std::vector<LinkInput> &Inputs) {
    Cubin.clear();
    Log.clear();
    return linkWithNvJitLink(Inputs, 9, 0, Cubin, Log);
  }
  bool isElf() const {
    return Cubin.size() > 4 && std::memcmp(Cubin.data(),
                                           "\x7f"
                                           "ELF",
                                           4) == 0;
  }
  std::vector<char> Cubin;
  std::string Log;
};

#if DGLINK_TEST_NVCL_CODE
std::string text(const unsigned char *Bytes, size_t Size) {
  return std::string(reinterpret_cast<const char *>(Bytes), Size);
}

// Whole-program: what piProgramBuild hands the driver, checked by ptxas here.
TEST_F(CudaJitLink, OpenClPtxAssemblesForSm90) {
  for (const std::string &Ptx : {text(OpenClGlobalsPtx, OpenClGlobalsPtxSize),
                                 text(OpenClBuiltinsPtx, OpenClBuiltinsPtxSize)}) {
    const std::string Fixed = fixOpenClPtx(Ptx);
    ASSERT_EQ(PI_SUCCESS, link({ptx(Fixed, "opencl")})) << Log << "\n" << Fixed;
    EXPECT_TRUE(isElf());
  }
}

TEST_F(CudaJitLink, LinksOpenClPtxAcrossImages) {
  const std::string Main = text(OpenClLinkMainPtx, OpenClLinkMainPtxSize);
  const std::string Library = text(OpenClLinkLibPtx, OpenClLinkLibPtxSize);
  std::set<std::string> Exported;
  for (const std::string &Name : ptxUndefinedFunctions(Main))
    Exported.insert(Name);
  EXPECT_EQ(Exported, std::set<std::string>{"cl_helper"});
  const std::string FixedMain = fixOpenClPtx(Main, Exported);
  const std::string FixedLibrary = fixOpenClPtx(Library, Exported);
  ASSERT_EQ(PI_SUCCESS, link({ptx(FixedMain, "main"), ptx(FixedLibrary, "lib")})) << Log;
  EXPECT_TRUE(isElf());
  EXPECT_EQ(PI_ERROR_LINK_PROGRAM_FAILURE, link({ptx(FixedMain, "main")}));
  EXPECT_NE(Log.find("cl_helper"), std::string::npos) << Log;
}
#endif

#if DGLINK_TEST_NVCC_CODE
TEST_F(CudaJitLink, LinksCudaPtxAndNamesUnresolvedSymbols) {
  const std::string Main(reinterpret_cast<const char *>(CudaLinkMainPtx), CudaLinkMainPtxSize);
  const std::string Library(reinterpret_cast<const char *>(CudaLinkLibPtx), CudaLinkLibPtxSize);
  ASSERT_EQ(PI_SUCCESS, link({ptx(Main, "main"), ptx(Library, "lib")})) << Log;
  EXPECT_TRUE(isElf());
  EXPECT_EQ(PI_ERROR_LINK_PROGRAM_FAILURE, link({ptx(Main, "main")}));
  EXPECT_NE(Log.find("helper"), std::string::npos) << Log;
  const std::string Globals(reinterpret_cast<const char *>(CudaGlobalsPtx), CudaGlobalsPtxSize);
  ASSERT_EQ(PI_SUCCESS, link({ptx(Globals, "globals")})) << Log;
}
#endif

// A module that imports from other images has every declaration .extern, the
// work-item functions too (the virtual-function kernel images): they are still defined
// here, since no other module of the link defines them.
TEST(CudaPtx, DefinesWorkItemFunctionsDeclaredExtern) {
  const std::string Ptx = R"(//
.version 7.5
.target sm_20, texmode_independent
.address_size 64
.extern .func  (.param .b32 func_retval0) imported
(
	.param .b32 imported_param_0
)
;
.extern .func  (.param .b64 func_retval0) _Z13get_global_idj
(
	.param .b32 _Z13get_global_idj_param_0
)
;
.visible .entry k(
	.param .u64 .ptr .global .align 4 k_param_0
)
{
	ret;
}
)";
  const std::string Fixed = fixOpenClPtx(Ptx);
  const std::vector<PtxFunction> Functions = scanPtxFunctions(Fixed);
  const PtxFunction *Builtin = findFunction(Functions, "_Z13get_global_idj", true);
  ASSERT_NE(Builtin, nullptr) << Fixed;
  EXPECT_EQ(Fixed.find(".extern .func  (.param .b64 func_retval0) _Z13get_global_idj"),
            std::string::npos)
      << Fixed;
  const PtxFunction *Import = findFunction(Functions, "imported", false);
  ASSERT_NE(Import, nullptr);
  EXPECT_EQ(Import->Linkage, ".extern") << "an import stays extern";
  EXPECT_EQ(ptxUndefinedFunctions(Fixed), std::vector<std::string>{"imported"});
}

TEST(CudaPtx, DetectsNativeFormats) {
  NativeFormat Format;
  const char Ptx[] = ".version 7.5\n.target sm_75\n";
  EXPECT_TRUE(detectNativeFormat(Ptx, sizeof(Ptx), Format));
  EXPECT_EQ(Format, NativeFormat::Ptx);
  const unsigned char Fatbin[] = {0x50, 0xED, 0x55, 0xBA, 1, 0, 0x10, 0};
  EXPECT_TRUE(detectNativeFormat(Fatbin, sizeof(Fatbin), Format));
  EXPECT_EQ(Format, NativeFormat::Fatbin);
  const unsigned char Elf[] = {0x7F, 'E', 'L', 'F', 2, 1, 1, 0};
  EXPECT_TRUE(detectNativeFormat(Elf, sizeof(Elf), Format));
  EXPECT_EQ(Format, NativeFormat::Cubin);
  const uint32_t SpirV[] = {0x07230203u, 0};
  EXPECT_FALSE(detectNativeFormat(SpirV, sizeof(SpirV), Format));
}

} // namespace
