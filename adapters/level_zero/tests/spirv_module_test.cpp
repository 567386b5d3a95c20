// The test driver's SPIR-V reader: what it reads from hand-made modules and
// from the conformance suite's llvm-spirv-15 output, and that malformed input
// (every truncation and corruption tried below) is an error, never a crash.
#include "spirv_builder.h"
#include "spirv_module.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace dglink::ze_test {
namespace {

enum : uint32_t { Export = 0, Import = 1, CrossWorkgroup = 5 };
enum : uint32_t {
  OpTypeVoid = 19,
  OpTypeInt = 21,
  OpTypeFloat = 22,
  OpTypeVector = 23,
  OpTypeArray = 28,
  OpTypeStruct = 30,
  OpTypePointer = 32,
  OpTypeFunction = 33,
  OpConstant = 43,
  OpConstantComposite = 44,
  OpConstantNull = 46,
  OpFunction = 54,
  OpFunctionParameter = 55,
  OpFunctionEnd = 56,
  OpVariable = 59,
  OpDecorate = 71,
  OpEntryPoint = 15,
  OpLabel = 248,
  OpReturn = 253
};

const SpirvGlobal *findGlobal(const SpirvModule &Module, const std::string &Export) {
  for (const SpirvGlobal &Global : Module.Globals)
    if (Global.ExportName == Export || Global.HostAccessName == Export)
      return &Global;
  return nullptr;
}

bool read(const std::vector<uint8_t> &Bytes, SpirvModule &Module, std::string &Error) {
  return readSpirvModule(Bytes.data(), Bytes.size(), Module, Error);
}

// int g_int = 7 (exported, HostAccessINTEL "uid_int" read), a struct
// {char; int; long} zero-initialised, a float3 vector, an int[3] initialised
// with a composite, an imported int, and a kernel taking (int*, long).
SpirvBuilder sampleModule() {
  SpirvBuilder B;
  B.op(OpEntryPoint,
       SpirvBuilder::join(SpirvBuilder::join({6, 60}, SpirvBuilder::string("k")), {30}));
  B.hostAccess(30, 0, "uid_int").linkage(30, "g_int", Export);
  B.linkage(31, "g_struct", Export).linkage(32, "g_vec", Export);
  B.linkage(33, "g_array", Export).linkage(34, "g_imported", Import);
  B.linkage(61, "helper", Import);
  B.op(OpTypeInt, {1, 32, 0}).op(OpTypeInt, {2, 8, 0}).op(OpTypeInt, {3, 64, 0});
  B.op(OpTypeFloat, {4, 32});
  B.op(OpConstant, {1, 5, 7}).op(OpConstant, {1, 6, 3});
  B.op(OpConstant, {1, 7, 0x11}).op(OpConstant, {1, 8, 0x22}).op(OpConstant, {1, 9, 0x33});
  B.op(OpTypeStruct, {10, 2, 1, 3}); // {char; int; long}: 16 bytes, align 8
  B.op(OpTypeVector, {11, 4, 3});    // float3: 16 bytes
  B.op(OpTypeArray, {12, 1, 6});     // int[3]
  B.op(OpConstantComposite, {12, 13, 7, 8, 9});
  B.op(OpConstantNull, {10, 14});
  B.op(OpTypePointer, {20, CrossWorkgroup, 1});
  B.op(OpTypePointer, {21, CrossWorkgroup, 10});
  B.op(OpTypePointer, {22, CrossWorkgroup, 11});
  B.op(OpTypePointer, {23, CrossWorkgroup, 12});
  B.op(OpTypeVoid, {24});
  B.op(OpTypeFunction, {25, 24, 20, 3});
  B.op(OpVariable, {20, 30, CrossWorkgroup, 5});
  B.op(OpVariable, {21, 31, CrossWorkgroup, 14});
  B.op(OpVariable, {22, 32, CrossWorkgroup});
  B.op(OpVariable, {23, 33, CrossWorkgroup, 13});
  B.op(OpVariable, {20, 34, CrossWorkgroup});
  B.op(OpFunction, {24, 61, 0, 25})
      .op(OpFunctionParameter, {20, 62})
      .op(OpFunctionParameter, {3, 63});
  B.op(OpFunctionEnd, {});
  B.op(OpFunction, {24, 60, 0, 25})
      .op(OpFunctionParameter, {20, 64})
      .op(OpFunctionParameter, {3, 65});
  B.op(OpLabel, {66}).op(OpReturn, {}).op(OpFunctionEnd, {});
  return B;
}

TEST(SpirvModule, ReadsGlobalsKernelsAndLinkage) {
  SpirvModule Module;
  std::string Error;
  ASSERT_TRUE(read(sampleModule().bytes(), Module, Error)) << Error;
  ASSERT_EQ(Module.Globals.size(), 5u);

  const SpirvGlobal *Int = findGlobal(Module, "g_int");
  ASSERT_NE(Int, nullptr);
  EXPECT_EQ(Int->Size, 4u);
  EXPECT_TRUE(Int->HasHostAccess);
  EXPECT_EQ(Int->HostAccessName, "uid_int");
  EXPECT_EQ(Int->HostAccessMode, 0u);
  EXPECT_EQ(Int->Initializer, (std::vector<uint8_t>{7, 0, 0, 0}));

  const SpirvGlobal *Struct = findGlobal(Module, "g_struct");
  ASSERT_NE(Struct, nullptr);
  EXPECT_EQ(Struct->Size, 16u);
  EXPECT_EQ(Struct->Alignment, 8u);
  EXPECT_EQ(Struct->Initializer, std::vector<uint8_t>(16, 0));

  const SpirvGlobal *Vector = findGlobal(Module, "g_vec");
  ASSERT_NE(Vector, nullptr);
  EXPECT_EQ(Vector->Size, 16u);
  EXPECT_TRUE(Vector->Initializer.empty()) << "no initializer: zero";

  const SpirvGlobal *Array = findGlobal(Module, "g_array");
  ASSERT_NE(Array, nullptr);
  EXPECT_EQ(Array->Size, 12u);
  EXPECT_EQ(Array->Initializer,
            (std::vector<uint8_t>{0x11, 0, 0, 0, 0x22, 0, 0, 0, 0x33, 0, 0, 0}));

  EXPECT_EQ(Module.imports(), (std::vector<std::string>{"helper", "g_imported"}));
  const std::vector<std::string> Exports = Module.exports();
  EXPECT_EQ(Exports.size(), 4u);
  ASSERT_EQ(Module.Kernels.size(), 1u);
  EXPECT_EQ(Module.Kernels[0].Name, "k");
  EXPECT_EQ(Module.Kernels[0].ParameterSizes, (std::vector<uint64_t>{8, 8}));
}

TEST(SpirvModule, PackedStructHasNoPadding) {
  SpirvBuilder B;
  B.op(OpDecorate, {10, 10}); // CPacked
  B.op(OpTypeInt, {1, 32, 0}).op(OpTypeInt, {2, 8, 0});
  B.op(OpTypeStruct, {10, 2, 1});
  B.op(OpTypePointer, {20, CrossWorkgroup, 10});
  B.op(OpVariable, {20, 30, CrossWorkgroup}).linkage(30, "packed", Export);
  SpirvModule Module;
  std::string Error;
  ASSERT_TRUE(read(B.bytes(), Module, Error)) << Error;
  ASSERT_EQ(Module.Globals.size(), 1u);
  EXPECT_EQ(Module.Globals[0].Size, 5u);
}

// llvm-spirv-15's output for the conformance images (skips where the build had
// no llvm-spirv-15).
TEST(SpirvModule, ReadsTheConformanceDeviceGlobalsImage) {
  const std::vector<uint8_t> Bytes = readSpirvFile(DGLINK_ZE_TEST_SPIRV_DIR, "device_globals");
  if (Bytes.empty())
    GTEST_SKIP() << "no device_globals.spv (llvm-spirv-15 missing when dglink was built)";
  SpirvModule Module;
  std::string Error;
  ASSERT_TRUE(read(Bytes, Module, Error)) << Error;
  struct Expected {
    const char *Name;
    uint64_t Size;
  };
  for (const Expected &E :
       {Expected{"dg_counter", 4}, Expected{"dg_quad", 16}, Expected{"dg_record", 24},
        Expected{"dg_big", 1048576}, Expected{"dg_pointer", 8}, Expected{"dg_unreferenced", 8},
        Expected{"dg_no_host_access", 4}}) {
    const SpirvGlobal *Global = findGlobal(Module, E.Name);
    ASSERT_NE(Global, nullptr) << E.Name;
    EXPECT_EQ(Global->Size, E.Size) << E.Name;
  }
  const SpirvGlobal *Quad = findGlobal(Module, "dg_initialized_quad");
  ASSERT_NE(Quad, nullptr);
  const uint8_t QuadBytes[16] = {0x11, 0,    0,    0, 0x22, 0x22, 0,    0,
                                 0x33, 0x33, 0x33, 0, 0x44, 0x44, 0x44, 0x44};
  EXPECT_EQ(Quad->Initializer, std::vector<uint8_t>(QuadBytes, QuadBytes + 16));
  // The shim's HostAccessINTEL decorations: the unique id and the host access of
  // device_globals.cl's declarations.
  struct Decorated {
    const char *Export;
    const char *UniqueId;
    uint32_t Mode;
  };
  for (const Decorated &D :
       {Decorated{"dg_counter", "dg_counter_uid", 2}, Decorated{"dg_record", "dg_record_uid", 2},
        Decorated{"dg_read_only", "dg_read_only", 0},
        Decorated{"dg_write_only", "dg_write_only", 1},
        Decorated{"dg_no_host_access", "dg_no_host_access", 3}}) {
    const SpirvGlobal *Global = findGlobal(Module, D.Export);
    ASSERT_NE(Global, nullptr) << D.Export;
    EXPECT_EQ(Global->ExportName, D.Export);
    EXPECT_TRUE(Global->HasHostAccess) << D.Export;
    EXPECT_EQ(Global->HostAccessName, D.UniqueId);
    EXPECT_EQ(Global->HostAccessMode, D.Mode) << D.Export;
  }
  // The GlobalInvocationId builtin is imported but is not an import to link.
  EXPECT_TRUE(Module.imports().empty());
  std::vector<std::string> Kernels;
  for (const SpirvKernel &Kernel : Module.Kernels)
    Kernels.push_back(Kernel.Name);
  EXPECT_NE(std::find(Kernels.begin(), Kernels.end(), "dg_read_counter"), Kernels.end());
  EXPECT_EQ(Kernels.size(), 12u);
}

TEST(SpirvModule, ReadsImportsOfTheLinkImages) {
  const std::vector<uint8_t> Bytes = readSpirvFile(DGLINK_ZE_TEST_SPIRV_DIR, "unresolved");
  if (Bytes.empty())
    GTEST_SKIP() << "no unresolved.spv (llvm-spirv-15 missing when dglink was built)";
  SpirvModule Module;
  std::string Error;
  ASSERT_TRUE(read(Bytes, Module, Error)) << Error;
  EXPECT_EQ(Module.imports(), std::vector<std::string>{"dglink_missing_symbol"});
}

// ---- malformed input ----

struct Malformed {
  const char *What;
  std::vector<uint32_t> Words;
  const char *Message; // a word of the expected error
};

std::vector<uint32_t> header(uint32_t Bound = 100) { return {0x07230203, 0x00010400, 0, Bound, 0}; }
std::vector<uint32_t> with(std::vector<uint32_t> Words, std::initializer_list<uint32_t> More) {
  Words.insert(Words.end(), More.begin(), More.end());
  return Words;
}

TEST(SpirvModule, MalformedModulesAreErrors) {
  const Malformed Cases[] = {
      {"bad magic", {0x12345678, 0x00010400, 0, 100, 0}, "magic"},
      {"big-endian", {0x03022307, 0x00010400, 0, 100, 0}, "big-endian"},
      {"version 2.0", {0x07230203, 0x00020000, 0, 100, 0}, "version"},
      {"version 1.7", {0x07230203, 0x00010700, 0, 100, 0}, "version"},
      {"bound 0", header(0), "bound"},
      {"word count 0", with(header(), {0x00000011}), "word count 0"},
      {"instruction past the end", with(header(), {0x00050015, 1, 32}), "past the end"},
      {"id past the bound", with(header(10), {0x00040015, 10, 32, 0}), "bound"},
      {"id 0", with(header(), {0x00040015, 0, 32, 0}), "bound"},
      {"too few operands", with(header(), {0x00020015, 1}), "too few operands"},
      {"unterminated string", with(header(), {0x00030005, 1, 0x41414141}), "NUL-terminated"},
      {"missing string", with(header(), {0x00020005, 1}), "string"},
      {"id defined twice", with(header(), {0x00040015, 1, 32, 0, 0x00040015, 1, 32, 0}), "twice"},
      {"bad integer width", with(header(), {0x00040015, 1, 33, 0}), "width"},
      {"variable of an undefined type", with(header(), {0x0004003B, 4, 3, 5}),
       "not a pointer type"},
      {"vector of an undefined type", with(header(), {0x00040017, 2, 1, 4}),
       "not a type defined before its use"},
      {"array length not a constant", with(header(), {0x00040015, 1, 32, 0, 0x0004001C, 2, 1, 1}),
       "not an integer constant"},
      {"array of zero elements",
       with(header(), {0x00040015, 1, 32, 0, 0x0004002B, 1, 2, 0, 0x0004001C, 3, 1, 2}), "empty"},
      {"array too large",
       with(header(), {0x00040015, 1, 64, 0, 0x0005002B, 1, 2, 0, 0x10, 0x0004001C, 3, 1, 2}),
       "too large"},
      {"constant with the wrong word count",
       with(header(), {0x00040015, 1, 32, 0, 0x0005002B, 1, 2, 0, 0}), "value words"},
      {"composite with too few constituents",
       with(header(),
            {0x00040015, 1, 32, 0, 0x0004002B, 1, 2, 2, 0x0004001C, 3, 1, 2, 0x0004002C, 3, 4, 2}),
       "constituents"},
      {"OpFunctionEnd outside a function", with(header(), {0x00010038}), "outside"},
      {"function without its end",
       with(header(), {0x00020013, 1, 0x00030021, 2, 1, 0x00050036, 1, 3, 0, 2}), "OpFunctionEnd"},
      {"function of a type that is not a function type",
       with(header(), {0x00020013, 1, 0x00050036, 1, 3, 0, 1}), "not a function type"},
      {"unsized variable",
       with(header(), {0x00020013, 1, 0x00040020, 2, 5, 1, 0x0004003B, 2, 3, 5}), "without a size"},
      {"variable initialised with a non-constant",
       with(header(), {0x00040015, 1, 32, 0, 0x00040020, 2, 5, 1, 0x0005003B, 2, 3, 5, 7}),
       "not a constant"},
      {"linkage with an empty name", with(header(), {0x00050047, 1, 41, 0, 0}), "empty name"},
      {"HostAccessINTEL mode out of range", with(header(), {0x00050047, 1, 6147, 9, 0x00000041}),
       "mode"},
  };
  for (const Malformed &Case : Cases) {
    SCOPED_TRACE(Case.What);
    std::vector<uint8_t> Bytes(Case.Words.size() * 4);
    std::memcpy(Bytes.data(), Case.Words.data(), Bytes.size());
    SpirvModule Module;
    std::string Error;
    EXPECT_FALSE(read(Bytes, Module, Error));
    EXPECT_NE(Error.find(Case.Message), std::string::npos) << "error: " << Error;
  }
}

TEST(SpirvModule, ShortOrRaggedInputIsAnError) {
  SpirvModule Module;
  std::string Error;
  EXPECT_FALSE(readSpirvModule(nullptr, 0, Module, Error));
  EXPECT_NE(Error.find("header"), std::string::npos) << Error;
  const std::vector<uint8_t> Bytes = sampleModule().bytes();
  EXPECT_FALSE(readSpirvModule(Bytes.data(), 19, Module, Error));
  EXPECT_NE(Error.find("header"), std::string::npos) << Error;
  EXPECT_FALSE(readSpirvModule(Bytes.data(), 22, Module, Error));
  EXPECT_NE(Error.find("whole number of words"), std::string::npos) << Error;
}

// Every prefix (a module cut anywhere) and every single-word corruption of a
// real module: an error or a module, never a crash (run under ASan in CI).
TEST(SpirvModule, TruncatedAndCorruptedModulesNeverCrash) {
  std::vector<uint8_t> Bytes = readSpirvFile(DGLINK_ZE_TEST_SPIRV_DIR, "device_globals");
  if (Bytes.empty())
    Bytes = sampleModule().bytes();
  size_t Failures = 0;
  for (size_t Words = 0; Words * 4 < Bytes.size(); ++Words) {
    SpirvModule Module;
    std::string Error;
    if (!readSpirvModule(Bytes.data(), Words * 4, Module, Error)) {
      ++Failures;
      EXPECT_FALSE(Error.empty());
    }
  }
  EXPECT_GT(Failures, 0u);
  // Every word of smaller modules, so that the test stays fast under ASan.
  const uint32_t Poison[] = {0, 0xFFFFFFFFu, 0x00010000u, 0xFFFF0001u, 0x7FFFFFFFu};
  for (const std::vector<uint8_t> &Module :
       {readSpirvFile(DGLINK_ZE_TEST_SPIRV_DIR, "link_caller"), sampleModule().bytes()}) {
    for (size_t Word = 0; Word * 4 < Module.size(); ++Word)
      for (uint32_t Value : Poison) {
        std::vector<uint8_t> Corrupt = Module;
        std::memcpy(Corrupt.data() + Word * 4, &Value, 4);
        SpirvModule Read;
        std::string Error;
        if (!readSpirvModule(Corrupt.data(), Corrupt.size(), Read, Error)) {
          EXPECT_FALSE(Error.empty()) << "word " << Word;
        }
      }
  }
}

} // namespace
} // namespace dglink::ze_test
