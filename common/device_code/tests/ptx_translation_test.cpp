// SPIR-V into PTX for NVIDIA's OpenCL, checked against clang-15's own PTX of the same
// OpenCL C (--target=nvptx64-nvidia-nvcl, which NVIDIA's OpenCL builds): the same kernels
// with the same parameter lists, the same functions left external (less the work-item and
// atomic functions the translation defines, which NVIDIA's OpenCL does not resolve in a
// PTX binary), and PTX that ptxas assembles for sm_90. The pairs are made at build time
// (CMakeLists.txt: the conformance sources, this folder's, the SPIR-V benchmark's).
#include "remangle.h"

#include <dglink/device_code/spirv_module.h>
#include <dglink/device_code/translate.h>
#include <dglink/support/error.h>

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace dglink::device_code {
namespace {

std::string fileText(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  return {std::istreambuf_iterator<char>(In), std::istreambuf_iterator<char>()};
}

// What the comparison reads from a PTX text: each kernel's parameter declarations (names
// dropped), and the functions declared without a body.
struct PtxShape {
  std::map<std::string, std::vector<std::string>> Kernels;
  std::set<std::string> External;
  std::set<std::string> Defined;
};

std::string withoutComments(const std::string &Ptx) {
  std::string Out;
  for (size_t At = 0; At < Ptx.size();) {
    if (Ptx.compare(At, 2, "//") == 0) {
      At = Ptx.find('\n', At);
      if (At == std::string::npos)
        break;
    } else if (Ptx.compare(At, 2, "/*") == 0) {
      const size_t End = Ptx.find("*/", At + 2);
      At = End == std::string::npos ? Ptx.size() : End + 2;
    } else {
      Out += Ptx[At++];
    }
  }
  return Out;
}

bool identifierChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) != 0 || C == '_' || C == '$';
}

PtxShape shapeOf(const std::string &Text) {
  const std::string Ptx = withoutComments(Text);
  PtxShape Shape;
  int Depth = 0;
  for (size_t At = 0; At < Ptx.size(); ++At) {
    const char C = Ptx[At];
    if (C == '{') {
      ++Depth;
      continue;
    }
    if (C == '}') {
      --Depth;
      continue;
    }
    const bool Entry = Ptx.compare(At, 6, ".entry") == 0;
    if (Depth != 0 || (!Entry && Ptx.compare(At, 5, ".func") != 0) ||
        (At > 0 && identifierChar(Ptx[At - 1])))
      continue;
    size_t Cursor = At + (Entry ? 6 : 5);
    while (Cursor < Ptx.size() && std::isspace(static_cast<unsigned char>(Ptx[Cursor])) != 0)
      ++Cursor;
    if (Cursor < Ptx.size() && Ptx[Cursor] == '(') // return parameters
      Cursor = Ptx.find(')', Cursor) + 1;
    while (Cursor < Ptx.size() && std::isspace(static_cast<unsigned char>(Ptx[Cursor])) != 0)
      ++Cursor;
    const size_t NameStart = Cursor;
    while (Cursor < Ptx.size() && identifierChar(Ptx[Cursor]))
      ++Cursor;
    const std::string Name = Ptx.substr(NameStart, Cursor - NameStart);
    const size_t Open = Ptx.find('(', Cursor);
    const size_t Close = Ptx.find(')', Open);
    const size_t Body = Ptx.find_first_of("{;", Close);
    if (Open == std::string::npos || Close == std::string::npos || Body == std::string::npos)
      break;
    if (Entry) {
      // ".param .u64 .ptr .global .align 4 k_param_0": everything but the name.
      std::vector<std::string> Parameters;
      std::stringstream List(Ptx.substr(Open + 1, Close - Open - 1));
      for (std::string Parameter; std::getline(List, Parameter, ',');) {
        std::stringstream Words(Parameter);
        std::vector<std::string> Split{std::istream_iterator<std::string>(Words), {}};
        if (!Split.empty())
          Split.pop_back();
        std::string Joined;
        for (const std::string &Word : Split)
          Joined += (Joined.empty() ? "" : " ") + Word;
        Parameters.push_back(Joined);
      }
      Shape.Kernels[Name] = Parameters;
    }
    if (Ptx[Body] == '{')
      Shape.Defined.insert(Name);
    else
      Shape.External.insert(Name);
    At = Body - 1;
  }
  for (const std::string &Name : Shape.Defined)
    Shape.External.erase(Name);
  return Shape;
}

// Functions the translation defines itself, which clang leaves external: every OpenCL
// builtin (Itanium-mangled: OpenCL C's builtins are overloadable); what is left are the
// module's imports of plain OpenCL C functions (link_caller, unresolved).
bool definedByTranslation(const std::string &Mangled) { return Mangled.rfind("_Z", 0) == 0; }

struct Pair {
  std::string Name, Spirv, ClangPtx;
};

std::vector<Pair> pairs() {
  std::vector<Pair> Pairs;
  std::ifstream In(DGLINK_DEVICE_CODE_TEST_PTX_PAIRS);
  for (std::string Line; std::getline(In, Line);) {
    std::stringstream Fields(Line);
    Pair Read;
    if (std::getline(Fields, Read.Name, '\t') && std::getline(Fields, Read.Spirv, '\t') &&
        std::getline(Fields, Read.ClangPtx, '\t'))
      Pairs.push_back(Read);
  }
  return Pairs;
}

// ptxas's exit status on Ptx (-c: relocatable, for PTX that imports functions), its
// output in Log; -1 where it could not be run.
int assemble(const std::string &Ptx, bool Relocatable, std::string &Log) {
  char Folder[] = "/tmp/dglink_ptxas_XXXXXX";
  if (mkdtemp(Folder) == nullptr)
    return -1;
  const std::string In = std::string(Folder) + "/in.ptx", Out = std::string(Folder) + "/out",
                    Messages = std::string(Folder) + "/log";
  std::ofstream(In, std::ios::binary) << Ptx;
  const std::string Command = std::string("'") + DGLINK_DEVICE_CODE_TEST_PTXAS + "' -arch=sm_90 " +
                              (Relocatable ? "-c " : "") + "'" + In + "' -o '" + Out + "' >'" +
                              Messages + "' 2>&1";
  const int Status = std::system(Command.c_str());
  Log = fileText(Messages);
  std::remove(In.c_str());
  std::remove(Out.c_str());
  std::remove(Messages.c_str());
  rmdir(Folder);
  return Status == -1 || !WIFEXITED(Status) ? -1 : WEXITSTATUS(Status);
}

class PtxTranslation : public ::testing::Test {
protected:
  void SetUp() override {
    std::string Why;
    if (!translatorAvailable(Why))
      GTEST_SKIP() << "the LLVM side cannot be loaded: " << Why;
  }
  static bool havePtxas() { return !std::string(DGLINK_DEVICE_CODE_TEST_PTXAS).empty(); }

  // The module's PTX, checked to be PTX of the OpenCL flavour.
  static std::string translated(const std::vector<uint8_t> &Module) {
    Bytes Out;
    EXPECT_EQ(translateSpirv("f", Module.data(), Module.size(), DeviceCode::Ptx, Out), PI_SUCCESS)
        << lastErrorMessage();
    if (Out == nullptr)
      return {};
    std::string Ptx(Out->begin(), Out->end());
    EXPECT_NE(Ptx.find(".target sm_"), std::string::npos);
    EXPECT_NE(Ptx.find("texmode_independent"), std::string::npos)
        << "NVIDIA's OpenCL builds PTX of the OpenCL flavour";
    EXPECT_NE(Ptx.find(".address_size 64"), std::string::npos);
    return Ptx;
  }
};

TEST_F(PtxTranslation, TheSuitesSourcesGiveClangsKernelsAndExternals) {
  const std::vector<Pair> Pairs = pairs();
  ASSERT_GE(Pairs.size(), 22u) << "read " << DGLINK_DEVICE_CODE_TEST_PTX_PAIRS;
  for (const Pair &Case : Pairs) {
    SCOPED_TRACE(Case.Name);
    const std::string Spirv = fileText(Case.Spirv);
    const std::vector<uint8_t> Module(Spirv.begin(), Spirv.end());
    ASSERT_GT(Module.size(), 20u) << "missing " << Case.Spirv;
    const std::string Ptx = translated(Module);
    ASSERT_FALSE(Ptx.empty());
    const PtxShape Mine = shapeOf(Ptx);
    const PtxShape Clang = shapeOf(fileText(Case.ClangPtx));
    ASSERT_FALSE(Clang.Defined.empty()) << "clang's PTX " << Case.ClangPtx << " defines nothing";
    EXPECT_EQ(Mine.Kernels, Clang.Kernels) << Ptx;
    std::set<std::string> Expected;
    for (const std::string &Name : Clang.External)
      if (!definedByTranslation(Name))
        Expected.insert(Name);
    EXPECT_EQ(Mine.External, Expected) << Ptx;
    for (const std::string &Name : Mine.External)
      EXPECT_FALSE(definedByTranslation(Name)) << Name << " is left to the driver";
    if (!havePtxas())
      continue;
    std::string Log;
    EXPECT_EQ(assemble(Ptx, true, Log), 0) << Log << "\n" << Ptx;
    // What imports nothing is a whole program: nothing is left unresolved.
    if (Mine.External.empty()) {
      EXPECT_EQ(assemble(Ptx, false, Log), 0) << Log << "\n" << Ptx;
    }
  }
}

TEST_F(PtxTranslation, WorkItemFunctionsAreDefinedAndAtomicsAreNvptxAtomics) {
  const std::vector<Pair> Pairs = pairs();
  for (const Pair &Case : Pairs) {
    if (Case.Name != "spirv_intake_bench")
      continue;
    const std::string Spirv = fileText(Case.Spirv);
    const std::string Ptx = translated(std::vector<uint8_t>(Spirv.begin(), Spirv.end()));
    EXPECT_EQ(Ptx.find("get_global_id"), std::string::npos) << Ptx;
    EXPECT_EQ(Ptx.find("atomic_add"), std::string::npos) << Ptx;
    EXPECT_NE(Ptx.find("%ctaid.x"), std::string::npos) << Ptx;
    EXPECT_NE(Ptx.find("atom."), std::string::npos) << Ptx;
    EXPECT_NE(Ptx.find("bar.sync"), std::string::npos) << Ptx;
    return;
  }
  FAIL() << "no spirv_intake_bench pair in " << DGLINK_DEVICE_CODE_TEST_PTX_PAIRS;
}

TEST_F(PtxTranslation, PtxasIsThereOrTheCheckSaysWhy) {
  if (!havePtxas())
    GTEST_SKIP() << "ptxas (the CUDA toolkit) was not found when dglink was configured: the "
                    "translated PTX is compared with clang's but not assembled";
  std::string Log;
  EXPECT_EQ(
      assemble(".version 3.2\n.target sm_20, texmode_independent\n.address_size 64\n", false, Log),
      0)
      << Log;
}

// Device globals lowered on the way, as on PoCL: every kernel takes the storage as its
// last parameter (a global pointer), the variables are gone from the PTX, and the layout
// is the SPIR translation's.
TEST_F(PtxTranslation, LoweredModuleTakesTheStorageAsItsLastParameter) {
  const std::vector<uint8_t> Module = [] {
    const std::string Text = fileText(DGLINK_DEVICE_CODE_TEST_LOWERING_SPIRV);
    return std::vector<uint8_t>(Text.begin(), Text.end());
  }();
  ASSERT_GT(Module.size(), 20u);
  LoweredTranslation Ptx, Spir;
  ASSERT_EQ(translateSpirvLowered("f", Module.data(), Module.size(), DeviceCode::Ptx, Ptx),
            PI_SUCCESS)
      << lastErrorMessage();
  ASSERT_EQ(translateSpirvLowered("f", Module.data(), Module.size(), DeviceCode::Spir, Spir),
            PI_SUCCESS)
      << lastErrorMessage();
  ASSERT_TRUE(Ptx.Lowered.has_value()) << Ptx.NotLowered;
  ASSERT_TRUE(Spir.Lowered.has_value());
  EXPECT_EQ(Ptx.Lowered->Size, Spir.Lowered->Size);
  ASSERT_EQ(Ptx.Lowered->Variables.size(), Spir.Lowered->Variables.size());
  for (const auto &[Name, Variable] : Spir.Lowered->Variables) {
    ASSERT_EQ(Ptx.Lowered->Variables.count(Name), 1u) << Name;
    EXPECT_EQ(Ptx.Lowered->Variables.at(Name).Offset, Variable.Offset) << Name;
    EXPECT_EQ(Ptx.Lowered->Variables.at(Name).Initializer, Variable.Initializer) << Name;
  }
  const std::string Text(Ptx.Code->begin(), Ptx.Code->end());
  const PtxShape Shape = shapeOf(Text);
  ASSERT_EQ(Shape.Kernels.count("bump"), 1u) << Text;
  const std::vector<std::string> &Parameters = Shape.Kernels.at("bump");
  ASSERT_EQ(Parameters.size(), 2u) << Text;
  EXPECT_EQ(Parameters.back().find(".param .u64 .ptr .global"), 0u) << Parameters.back();
  EXPECT_EQ(Text.find(".global .align 4 .u32 counter"), std::string::npos) << Text;
  // The plain PTX of the same module keeps its variables; both are cached apart from the
  // SPIR translations.
  Bytes Plain;
  ASSERT_EQ(translateSpirv("f", Module.data(), Module.size(), DeviceCode::Ptx, Plain), PI_SUCCESS)
      << lastErrorMessage();
  const std::string PlainText(Plain->begin(), Plain->end());
  EXPECT_NE(PlainText.find("counter"), std::string::npos) << PlainText;
  EXPECT_EQ(shapeOf(PlainText).Kernels.at("bump").size(), 1u);
  if (havePtxas()) {
    std::string Log;
    EXPECT_EQ(assemble(Text, true, Log), 0) << Log << "\n" << Text;
  }
}

TEST_F(PtxTranslation, PtxIsCachedApartFromSpir) {
  const std::string Text = fileText(DGLINK_DEVICE_CODE_TEST_SPIRV);
  const std::vector<uint8_t> Module(Text.begin(), Text.end());
  translationCache().clear();
  Bytes Spir, Ptx, Again;
  ASSERT_EQ(translateSpirv("f", Module.data(), Module.size(), DeviceCode::Spir, Spir), PI_SUCCESS);
  const size_t Misses = translationCache().counters().Misses;
  ASSERT_EQ(translateSpirv("f", Module.data(), Module.size(), DeviceCode::Ptx, Ptx), PI_SUCCESS)
      << lastErrorMessage();
  EXPECT_EQ(translationCache().counters().Misses, Misses + 1) << "PTX is not the SPIR entry";
  EXPECT_EQ(translationCache().counters().Entries, 2u);
  EXPECT_NE(*Spir, *Ptx);
  const size_t Hits = translationCache().counters().Hits;
  ASSERT_EQ(translateSpirv("f", Module.data(), Module.size(), DeviceCode::Ptx, Again), PI_SUCCESS);
  EXPECT_EQ(Again, Ptx);
  EXPECT_EQ(translationCache().counters().Hits, Hits + 1);
}

TEST_F(PtxTranslation, MalformedOrRefusedModulesAreInvalidBinaries) {
  const std::string Text = fileText(DGLINK_DEVICE_CODE_TEST_SPIRV);
  std::vector<uint8_t> Module(Text.begin(), Text.end());
  Bytes Out;
  std::vector<uint8_t> Short(Module.begin(), Module.end() - 2);
  EXPECT_EQ(translateSpirv("f", Short.data(), Short.size(), DeviceCode::Ptx, Out),
            PI_ERROR_INVALID_BINARY);
  EXPECT_NE(lastErrorMessage().find("the SPIR-V module is malformed"), std::string::npos);
  // SPIR-V 1.6: LLVMSPIRVLib 15 ends its process on it; the message names PTX.
  std::vector<uint8_t> Newer = Module;
  const uint32_t Version = 0x00010600u;
  std::memcpy(Newer.data() + 4, &Version, 4);
  EXPECT_EQ(translateSpirv("f", Newer.data(), Newer.size(), DeviceCode::Ptx, Out),
            PI_ERROR_INVALID_BINARY);
  EXPECT_EQ(lastErrorMessage().rfind("f: the SPIR-V module cannot be translated into PTX "
                                     "(nvptx64): ",
                                     0),
            0u)
      << lastErrorMessage();
  EXPECT_EQ(Out, nullptr);
}

// The PTX of one kernel: from its .entry to the next.
std::string kernelPtx(const std::string &Ptx, const std::string &Name) {
  const size_t At = Ptx.find(".entry " + Name + "(");
  if (At == std::string::npos)
    return {};
  const size_t Next = Ptx.find(".entry ", At + 1);
  return Ptx.substr(At, Next == std::string::npos ? std::string::npos : Next - At);
}

std::vector<uint8_t> moduleAt(const char *Path) {
  const std::string Text = fileText(Path);
  return {Text.begin(), Text.end()};
}

bool readable(const std::string &Path) { return std::ifstream(Path).good(); }

// Whether the translator finds libdevice as ptx_math.cpp looks for it.
bool haveLibdevice() {
  if (const char *Named = std::getenv("DGLINK_LIBDEVICE"); Named != nullptr && *Named != 0)
    return readable(Named);
  for (const char *Variable : {"CUDA_PATH", "CUDA_HOME"})
    if (const char *Root = std::getenv(Variable);
        Root != nullptr && readable(std::string(Root) + "/nvvm/libdevice/libdevice.10.bc"))
      return true;
  return readable("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc");
}

// OpenCL's builtins defined in the module (llvm/ptx_math.cpp), one builtin per kernel: the
// PTX instruction each became; libdevice's functions inlined; nothing left external.
class PtxMath : public PtxTranslation {};

TEST_F(PtxMath, EachBuiltinBecomesItsInstruction) {
  if (!haveLibdevice())
    GTEST_SKIP() << "no libdevice (DGLINK_LIBDEVICE, CUDA_PATH, CUDA_HOME, /usr/local/cuda)";
  const std::vector<uint8_t> Module = moduleAt(DGLINK_DEVICE_CODE_TEST_MATH_SPIRV);
  ASSERT_GT(Module.size(), 20u);
  const std::string Ptx = translated(Module);
  ASSERT_FALSE(Ptx.empty());
  const struct {
    const char *Kernel;
    std::vector<const char *> Has, HasNot;
  } Cases[] = {
      // Correctly rounded: no approximation, no fast-math.
      {"sqrt_float", {"sqrt.rn.f32"}, {"approx"}},
      {"sqrt_double", {"sqrt.rn.f64"}, {"approx"}},
      {"sqrt_float4", {"sqrt.rn.f32"}, {"approx"}},
      {"fma_float", {"fma.rn.f32"}, {}},
      {"fma_double", {"fma.rn.f64"}, {}},
      {"fmin_float", {"min.f32"}, {}},
      {"floor_float", {"cvt.rmi.f32.f32"}, {}},
      {"rint_double", {"cvt.rni.f64.f64"}, {}},
      // PTX's approximate instructions, scaled where they need it.
      {"native_exp2_float", {"ex2.approx.f32"}, {"mul.rn.f32"}},
      {"native_sin_float", {"sin.approx.f32"}, {}},
      {"native_rsqrt_float", {"rsqrt.approx.f32"}, {}},
      {"half_divide_float", {"div.approx.f32"}, {}},
      {"native_log_float", {"lg2.approx.f32", "mul.rn.f32"}, {}},
      // libdevice, inlined: its own instruction sequences, no call, no approximation.
      {"sin_float", {"fma.rn.f32"}, {"sin.approx", "call"}},
      {"exp_double", {"fma.rn.f64"}, {"call"}},
      {"isnan_float", {"setp.nan.f32"}, {}},
      {"clz_uint", {"clz.b32"}, {}},
      {"popcount_ulong", {"popc.b64"}, {}},
      {"mul_hi_int", {"mul.hi.s32"}, {}},
      {"add_sat_uchar", {}, {"call"}},
      {"convert_int_rte_float", {"cvt.rni"}, {}},
      {"convert_float_rtz_int", {"cvt.rz.f32.s32"}, {}},
      {"convert_float_rtp_double", {"cvt.rp.f32.f64"}, {}},
      {"length_float4", {"sqrt.rn.f32"}, {"call"}},
      // OpenCL takes the amount modulo the width: the wrapping funnel shift (sm_32 on;
      // below, NVPTX's software rotate does not, and NVIDIA's OpenCL gave 0).
      {"rotate_int", {"shf.l.wrap.b32"}, {}},
  };
  for (const auto &Case : Cases) {
    SCOPED_TRACE(Case.Kernel);
    const std::string Kernel = kernelPtx(Ptx, Case.Kernel);
    ASSERT_FALSE(Kernel.empty()) << Ptx;
    for (const char *Text : Case.Has)
      EXPECT_NE(Kernel.find(Text), std::string::npos) << Text << " in\n" << Kernel;
    for (const char *Text : Case.HasNot)
      EXPECT_EQ(Kernel.find(Text), std::string::npos) << Text << " in\n" << Kernel;
  }
  EXPECT_TRUE(shapeOf(Ptx).External.empty()) << Ptx;
  EXPECT_EQ(Ptx.find("__nvvm_reflect"), std::string::npos) << "NVVMReflect folded it";
  const size_t Visible = Ptx.find(".visible .func");
  EXPECT_EQ(Visible, std::string::npos)
      << "libdevice stays internal: "
      << Ptx.substr(Visible == std::string::npos ? 0 : Visible, 300);
  EXPECT_NE(Ptx.find(".version 4.0"), std::string::npos) << "libdevice's inline assembly";
  if (havePtxas()) {
    std::string Log;
    EXPECT_EQ(assemble(Ptx, false, Log), 0) << Log;
  }
}

TEST_F(PtxMath, UncoveredBuiltinsAreRefusedByName) {
  const std::vector<uint8_t> Module = moduleAt(DGLINK_DEVICE_CODE_TEST_REFUSED_SPIRV);
  ASSERT_GT(Module.size(), 20u);
  Bytes Out;
  EXPECT_EQ(translateSpirv("f", Module.data(), Module.size(), DeviceCode::Ptx, Out),
            PI_ERROR_INVALID_BINARY);
  const std::string &Message = lastErrorMessage();
  EXPECT_NE(Message.find("does not cover: _Z15vstore_half_rtzfmPDh"), std::string::npos) << Message;
  EXPECT_EQ(Out, nullptr);
}

// Run by the device_code_without_libdevice test, with DGLINK_LIBDEVICE naming no file.
TEST_F(PtxMath, WithoutLibdeviceTheModuleIsRefusedByName) {
  const char *Named = std::getenv("DGLINK_LIBDEVICE");
  if (Named == nullptr || readable(Named))
    GTEST_SKIP() << "run with DGLINK_LIBDEVICE naming a file that is not there "
                    "(ctest: device_code_without_libdevice)";
  const std::vector<uint8_t> Module = moduleAt(DGLINK_DEVICE_CODE_TEST_MATH_SPIRV);
  Bytes Out;
  EXPECT_EQ(translateSpirv("f", Module.data(), Module.size(), DeviceCode::Ptx, Out),
            PI_ERROR_INVALID_BINARY);
  const std::string &Message = lastErrorMessage();
  EXPECT_NE(Message.find("cannot define these without NVIDIA's libdevice: "), std::string::npos)
      << Message;
  EXPECT_NE(Message.find("_Z3sinf"), std::string::npos) << Message;
  EXPECT_NE(Message.find("_Z3expd"), std::string::npos) << Message;
  EXPECT_EQ(Message.find("_Z4sqrtf"), std::string::npos) << "sqrt needs no libdevice";
  EXPECT_NE(Message.find(std::string("DGLINK_LIBDEVICE names '") + Named + "'"), std::string::npos)
      << Message;
  // What needs no libdevice is still translated.
  for (const Pair &Case : pairs())
    if (Case.Name == "integer_relational" || Case.Name == "conversions") {
      SCOPED_TRACE(Case.Name);
      const std::vector<uint8_t> Other = moduleAt(Case.Spirv.c_str());
      EXPECT_FALSE(translated(Other).empty());
    }
}

TEST(AddressSpaceMangling, SpirNamesBecomeNvptxNames) {
  const std::map<unsigned, unsigned> Spaces = {{2, 4}, {4, 0}};
  auto Remap = [&Spaces](const char *Name) {
    return remapAddressSpaceMangling(Name, Spaces).value_or("(none)");
  };
  // What clang-15 writes for the same OpenCL C on nvptx64-nvidia-nvcl.
  EXPECT_EQ(Remap("_Z6vload4mPU3AS2Kf"), "_Z6vload4mPU3AS4Kf");
  EXPECT_EQ(Remap("_Z5fractfPU3AS4f"), "_Z5fractfPf");
  EXPECT_EQ(Remap("_Z5fractDv4_fPU3AS4S_"), "_Z5fractDv4_fPS_");
  EXPECT_EQ(Remap("_Z10atomic_addPU3AS1Vii"), "_Z10atomic_addPU3AS1Vii");
  EXPECT_EQ(Remap("_Z10atomic_addPU3AS3Vii"), "_Z10atomic_addPU3AS3Vii");
  EXPECT_EQ(Remap("_Z13get_global_idj"), "_Z13get_global_idj");
  EXPECT_EQ(Remap("_Z18work_group_barrierj12memory_scope"),
            "_Z18work_group_barrierj12memory_scope");
  // A dropped qualifier renumbers the substitutions after it.
  EXPECT_EQ(Remap("_Z3fooPU3AS4iS0_"), "_Z3fooPiS_");
  EXPECT_EQ(Remap("_Z3barPU3AS4Dv4_fPU3AS4S_S1_"), "_Z3barPDv4_fS0_S0_");
  // Names it does not understand are left to the caller.
  EXPECT_EQ(Remap("_ZN4sycl3fooEv"), "(none)");
  EXPECT_EQ(Remap("main"), "(none)");
  EXPECT_EQ(Remap("_Z3fooS5_"), "(none)");
  EXPECT_EQ(Remap("_Z999foo"), "(none)");
}

} // namespace
} // namespace dglink::device_code
