// Target emitters and the whole pipeline: the HostAccessINTEL decoration read back
// with llvm-spirv --to-text, PTX linkage and visibility, bitcode that parses back,
// and a bundle compiled from OpenCL C that uses dglink/device_global.h.
#include "sample_ir.h"
#include "test_util.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Support/MemoryBuffer.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

namespace dglink::shim {
namespace {

using test::counterModule;
using test::decode;
using test::errorText;
using test::parse;

std::string runAndCapture(const std::string &Command) {
  std::string Output;
  FILE *Pipe = popen(Command.c_str(), "r");
  if (Pipe == nullptr)
    return Output;
  char Buffer[4096];
  size_t Count;
  while ((Count = fread(Buffer, 1, sizeof(Buffer), Pipe)) > 0)
    Output.append(Buffer, Count);
  pclose(Pipe);
  return Output;
}

std::string spirvText(const std::vector<uint8_t> &Binary) {
  const std::string Path = ::testing::TempDir() + "/dglink_shim_test.spv";
  std::ofstream(Path, std::ios::binary)
      .write(reinterpret_cast<const char *>(Binary.data()), Binary.size());
  const std::string Text =
      runAndCapture(std::string(DGLINK_SHIM_LLVM_SPIRV) + " --to-text " + Path + " -o -");
  std::remove(Path.c_str());
  return Text;
}

// Whether the SPIR-V module has an instruction with Opcode whose operands start with
// Operands (0 matches any word: the decorated id).
bool hasInstruction(const std::vector<uint8_t> &Binary, uint32_t Opcode,
                    const std::vector<uint32_t> &Operands) {
  std::vector<uint32_t> Words(Binary.size() / 4);
  std::memcpy(Words.data(), Binary.data(), Words.size() * 4);
  for (size_t At = 5; At < Words.size();) {
    const uint32_t Count = Words[At] >> 16;
    if (Count == 0)
      return false;
    if ((Words[At] & 0xFFFF) == Opcode && Count > Operands.size()) {
      bool Match = true;
      for (size_t I = 0; I < Operands.size(); ++I)
        Match = Match && (Operands[I] == 0 || Words[At + 1 + I] == Operands[I]);
      if (Match)
        return true;
    }
    At += Count;
  }
  return false;
}

TEST(Targets, SpirVCarriesHostAccessIntelWithTheUniqueId) {
  if (std::string(DGLINK_SHIM_LLVM_SPIRV).find("NOTFOUND") != std::string::npos)
    GTEST_SKIP() << "llvm-spirv-15 was not found when dglink was built";
  llvm::LLVMContext Context;
  auto M = parse(Context, counterModule());
  ASSERT_TRUE(M);
  llvm::Expected<std::vector<uint8_t>> Binary = emitSpirV(*M);
  ASSERT_TRUE(bool(Binary)) << errorText(Binary.takeError());
  ASSERT_GE(Binary->size(), 20u);
  EXPECT_EQ(detectFormat(Binary->data(), Binary->size()), ImageFormat::SpirV);
  // The numeric encoding llvm-spirv 15 accepts: OpCapability 6146, OpDecorate .. 6147.
  EXPECT_TRUE(hasInstruction(*Binary, 17, {6146}));
  EXPECT_TRUE(hasInstruction(*Binary, 71, {0, 6147}));
  const std::string Text = spirvText(*Binary);
  EXPECT_NE(Text.find("Capability GlobalVariableDecorationsINTEL"), std::string::npos) << Text;
  EXPECT_NE(Text.find("Extension \"SPV_INTEL_global_variable_decorations\""), std::string::npos);
  // host access: counter read (0), table unset -> read_write (2).
  EXPECT_NE(Text.find("HostAccessINTEL 0 \"counter_uid\""), std::string::npos) << Text;
  EXPECT_NE(Text.find("HostAccessINTEL 2 \"table\""), std::string::npos) << Text;
  // An ordinary variable gets no decoration.
  EXPECT_EQ(Text.find("HostAccessINTEL 2 \"plain\""), std::string::npos);
}

TEST(Targets, BitcodeParsesBackWithTheAttributes) {
  llvm::LLVMContext Context;
  auto M = parse(Context, counterModule());
  ASSERT_TRUE(M);
  const std::vector<uint8_t> Bytes = emitBitcode(*M);
  EXPECT_EQ(detectFormat(Bytes.data(), Bytes.size()), ImageFormat::LlvmBitcode);
  llvm::LLVMContext Other;
  auto Buffer = llvm::MemoryBuffer::getMemBuffer(
      llvm::StringRef(reinterpret_cast<const char *>(Bytes.data()), Bytes.size()), "image", false);
  llvm::Expected<std::unique_ptr<llvm::Module>> Back = llvm::parseBitcodeFile(*Buffer, Other);
  ASSERT_TRUE(bool(Back)) << errorText(Back.takeError());
  EXPECT_EQ((*Back)->getTargetTriple(), "spir64-unknown-unknown");
  llvm::Expected<std::vector<DeviceGlobal>> Globals = findDeviceGlobals(**Back);
  ASSERT_TRUE(bool(Globals));
  EXPECT_EQ(Globals->size(), 2u);
}

constexpr const char *NvptxModule = R"(
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-nvcl"

@counter = addrspace(1) global i32 0, align 4 #0
@hidden = internal addrspace(1) global i32 0, align 4

define i32 @helper(i32 %x) {
  %v = load i32, i32 addrspace(1)* @counter, align 4
  %h = load i32, i32 addrspace(1)* @hidden, align 4
  %r = add i32 %v, %h
  %s = add i32 %r, %x
  ret i32 %s
}
define internal i32 @private_helper(i32 %x) { ret i32 %x }
declare i32 @library_function(i32)

define void @bump(i32 addrspace(1)* %out) {
  %v = call i32 @helper(i32 1)
  %w = call i32 @library_function(i32 %v)
  %p = call i32 @private_helper(i32 %w)
  store i32 %p, i32 addrspace(1)* %out, align 4
  ret void
}
attributes #0 = { "sycl-device-global-size"="4" "sycl-unique-id"="counter_uid" }
!nvvm.annotations = !{!0}
!0 = !{void (i32 addrspace(1)*)* @bump, !"kernel", i32 1}
)";

TEST(Targets, PtxGlobalsAndExportsAreVisibleImportsExtern) {
  llvm::LLVMContext Context;
  auto M = parse(Context, NvptxModule);
  ASSERT_TRUE(M);
  EXPECT_TRUE(isKernel(*M->getFunction("bump")));
  llvm::Expected<std::vector<uint8_t>> Binary = emitPtx(*M, "sm_75");
  ASSERT_TRUE(bool(Binary)) << errorText(Binary.takeError());
  const std::string Ptx(Binary->begin(), Binary->end());
  EXPECT_EQ(detectFormat(Ptx.data(), Ptx.size()), ImageFormat::Ptx);
  EXPECT_NE(Ptx.find(".target sm_75"), std::string::npos);
  EXPECT_NE(Ptx.find("\n.visible .global .align 4 .u32 counter;"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("\n.global .align 4 .u32 hidden;"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("\n.visible .entry bump("), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("\n.visible .func  (.param .b32 func_retval0) helper("), std::string::npos)
      << Ptx;
  EXPECT_NE(Ptx.find("\n.extern .func  (.param .b32 func_retval0) library_function"),
            std::string::npos)
      << Ptx;
  EXPECT_EQ(Ptx.find(".visible .func  (.param .b32 func_retval0) private_helper"),
            std::string::npos);
  // Nothing is marked twice.
  EXPECT_EQ(Ptx.find(".visible .visible"), std::string::npos);
  EXPECT_EQ(Ptx.find(".extern .extern"), std::string::npos);
}

TEST(Compile, OpenClSourceToEveryTarget) {
  CompileOptions Options;
  Options.Inputs = {std::string(DGLINK_SHIM_TEST_INPUTS) + "/counter.cl"};
  Options.Targets = {"spirv64", "spir64", "nvptx64"};
  llvm::Expected<Bundle> Result = compile(Options);
  ASSERT_TRUE(bool(Result)) << errorText(Result.takeError());
  ASSERT_EQ(Result->Images.size(), 3u);
  const BundleImage &SpirV = Result->Images[0];
  const BundleImage &Bitcode = Result->Images[1];
  const BundleImage &Ptx = Result->Images[2];
  EXPECT_EQ(SpirV.Target, "spir64");
  EXPECT_EQ(SpirV.Format, PI_DEVICE_BINARY_TYPE_SPIRV);
  EXPECT_EQ(SpirV.CompileOptions, "-cl-std=CL2.0");
  EXPECT_EQ(Bitcode.Format, PI_DEVICE_BINARY_TYPE_LLVMIR_BITCODE);
  EXPECT_EQ(Ptx.Target, "nvptx64");
  EXPECT_EQ(Ptx.Format, PI_DEVICE_BINARY_TYPE_NATIVE);
  for (const BundleImage &Image : Result->Images) {
    EXPECT_EQ(Image.Name, "counter");
    EXPECT_EQ(Image.Entries, (std::vector<std::string>{"bump_counter", "use_scoped"}));
    ImageMetadata Metadata = decode(Image.PropertySets);
    ASSERT_EQ(Metadata.DeviceGlobals.size(), 3u) << Image.Target;
    EXPECT_EQ(Metadata.DeviceGlobals["counter_uid"].Size, 4u);
    EXPECT_EQ(Metadata.DeviceGlobals["counter_uid"].Access, HostAccess::ReadWrite);
    EXPECT_EQ(Metadata.DeviceGlobals["readonly_table"].Size, 16u);
    EXPECT_EQ(Metadata.DeviceGlobals["readonly_table"].Access, HostAccess::Read);
    EXPECT_EQ(Metadata.DeviceGlobals["scoped"].Size, 8u);
    EXPECT_TRUE(Metadata.DeviceGlobals["scoped"].DeviceImageScope);
    EXPECT_EQ(Metadata.DeviceGlobals["scoped"].Access, HostAccess::None);
    EXPECT_EQ(Metadata.Exported,
              (std::vector<std::string>{"counter", "helper", "scoped", "table"}));
    EXPECT_EQ(Metadata.Imported, std::vector<std::string>{"library_function"});
    EXPECT_EQ(Metadata.RawSets["SYCL/device global symbols"].size(), 2u);
  }
  const std::string PtxText(Ptx.Binary.begin(), Ptx.Binary.end());
  EXPECT_NE(PtxText.find(".visible .global .align 4 .u32 counter;"), std::string::npos) << PtxText;
  EXPECT_NE(PtxText.find(".visible .global .align 8 .u64 scoped;"), std::string::npos) << PtxText;
  EXPECT_NE(PtxText.find(".extern .func  (.param .b32 func_retval0) library_function"),
            std::string::npos)
      << PtxText;
  if (std::string(DGLINK_SHIM_LLVM_SPIRV).find("NOTFOUND") == std::string::npos) {
    const std::string Text = spirvText(SpirV.Binary);
    EXPECT_NE(Text.find("HostAccessINTEL 2 \"counter_uid\""), std::string::npos) << Text;
    EXPECT_NE(Text.find("HostAccessINTEL 0 \"readonly_table\""), std::string::npos) << Text;
    EXPECT_NE(Text.find("HostAccessINTEL 3 \"scoped\""), std::string::npos) << Text;
  }
}

TEST(Compile, PerKernelSplitDiagnosesNothingForOneScopedUser) {
  CompileOptions Options;
  Options.Inputs = {std::string(DGLINK_SHIM_TEST_INPUTS) + "/counter.cl"};
  Options.Targets = {"spir64"};
  Options.Split = SplitMode::PerKernel;
  llvm::Expected<Bundle> Result = compile(Options);
  ASSERT_TRUE(bool(Result)) << errorText(Result.takeError());
  ASSERT_EQ(Result->Images.size(), 3u);
  EXPECT_EQ(Result->Images[0].Name, "bump_counter");
  EXPECT_EQ(Result->Images[1].Name, "use_scoped");
  EXPECT_EQ(Result->Images[2].Name, "exports of counter");
}

// The symbol lines of llvm-readelf --dyn-symbols that name Symbol.
std::string symbolLine(const std::string &Table, const std::string &Symbol) {
  size_t At = 0;
  while ((At = Table.find(" " + Symbol + "\n", At)) != std::string::npos) {
    const size_t Begin = Table.rfind('\n', At) + 1;
    return Table.substr(Begin, At + Symbol.size() + 1 - Begin);
  }
  return "";
}

// An amdgcn image as a file, read back with llvm-readelf: its header and symbols.
struct ElfText {
  std::string Header, Symbols, DynamicSymbols;
};
ElfText readElf(const std::vector<uint8_t> &Binary) {
  const std::string Path = ::testing::TempDir() + "/dglink_shim_test.co";
  std::ofstream(Path, std::ios::binary)
      .write(reinterpret_cast<const char *>(Binary.data()), Binary.size());
  const std::string Readelf = DGLINK_SHIM_LLVM_READELF;
  ElfText Out{runAndCapture(Readelf + " -h " + Path), runAndCapture(Readelf + " --symbols " + Path),
              runAndCapture(Readelf + " --dyn-symbols " + Path)};
  std::remove(Path.c_str());
  return Out;
}

bool haveReadelf() {
  return std::string(DGLINK_SHIM_LLVM_READELF).find("NOTFOUND") == std::string::npos;
}

// An image that imports (library_function) and exports (helper, the variables) takes
// part in run-time links: a relocatable object, the HIP adapter's comgr link input.
TEST(Compile, AmdgcnImageThatLinksIsRelocatableWithProtectedGlobals) {
  CompileOptions Options;
  Options.Inputs = {std::string(DGLINK_SHIM_TEST_INPUTS) + "/counter.cl"};
  Options.Targets = {"amdgcn"};
  Options.RocmDeviceLibs = "none"; // counter.cl calls no OpenCL builtin
  llvm::Expected<Bundle> Result = compile(Options);
  ASSERT_TRUE(bool(Result)) << errorText(Result.takeError());
  ASSERT_EQ(Result->Images.size(), 1u);
  const BundleImage &Image = Result->Images[0];
  EXPECT_EQ(Image.Target, "amdgcn");
  EXPECT_EQ(Image.Format, PI_DEVICE_BINARY_TYPE_NATIVE);
  EXPECT_EQ(detectFormat(Image.Binary.data(), Image.Binary.size()), ImageFormat::Elf);
  EXPECT_EQ(Image.Entries, (std::vector<std::string>{"bump_counter", "use_scoped"}));
  ImageMetadata Metadata = decode(Image.PropertySets);
  EXPECT_EQ(Metadata.DeviceGlobals.size(), 3u);
  EXPECT_EQ(Metadata.Imported, std::vector<std::string>{"library_function"});
  if (!haveReadelf())
    GTEST_SKIP() << "llvm-readelf was not found when dglink was built";
  const ElfText Elf = readElf(Image.Binary);
  EXPECT_NE(Elf.Header.find("AMDGPU"), std::string::npos) << Elf.Header;
  EXPECT_NE(Elf.Header.find("REL (Relocatable file)"), std::string::npos) << Elf.Header;
  for (const char *Global : {"counter", "table", "scoped", "helper"}) {
    const std::string Line = symbolLine(Elf.Symbols, Global);
    EXPECT_NE(Line.find("PROTECTED"), std::string::npos) << Global << ":\n" << Elf.Symbols;
  }
  EXPECT_NE(symbolLine(Elf.Symbols, "counter").find("OBJECT"), std::string::npos);
  EXPECT_NE(symbolLine(Elf.Symbols, "bump_counter.kd").find("OBJECT"), std::string::npos)
      << Elf.Symbols;
  const std::string Import = symbolLine(Elf.Symbols, "library_function");
  EXPECT_NE(Import.find("UND"), std::string::npos) << Elf.Symbols;
  EXPECT_NE(Import.find("DEFAULT"), std::string::npos) << Elf.Symbols;
}

// OpenCL builtins come from the ROCm device libraries, linked at compile time: no
// undefined builtin is left, and an image that neither imports nor exports is an
// executable code object that loads as it is.
TEST(Compile, AmdgcnOpenClBuiltinsComeFromTheDeviceLibraries) {
  if (std::string(DGLINK_SHIM_ROCM_DEVICE_LIBS).empty())
    GTEST_SKIP() << "the ROCm device libraries were not found when dglink was built "
                    "(apt-get install rocm-device-libs)";
  CompileOptions Options;
  Options.Inputs = {std::string(DGLINK_SHIM_TEST_INPUTS) + "/global_id.cl"};
  Options.Targets = {"amdgcn"};
  Options.OpenClStd = "CL1.2";
  llvm::Expected<Bundle> Result = compile(Options);
  ASSERT_TRUE(bool(Result)) << errorText(Result.takeError());
  ASSERT_EQ(Result->Images.size(), 1u);
  const BundleImage &Image = Result->Images[0];
  EXPECT_EQ(Image.Entries, std::vector<std::string>{"scale_by_id"});
  ImageMetadata Metadata = decode(Image.PropertySets);
  EXPECT_TRUE(Metadata.Imported.empty());
  EXPECT_TRUE(Metadata.Exported.empty());
  if (!haveReadelf())
    GTEST_SKIP() << "llvm-readelf was not found when dglink was built";
  const ElfText Elf = readElf(Image.Binary);
  EXPECT_NE(Elf.Header.find("AMDGPU"), std::string::npos) << Elf.Header;
  EXPECT_NE(Elf.Header.find("DYN (Shared object file)"), std::string::npos) << Elf.Header;
  EXPECT_NE(symbolLine(Elf.DynamicSymbols, "scale_by_id.kd").find("OBJECT"), std::string::npos)
      << Elf.DynamicSymbols;
  for (const std::string *Table : {&Elf.Symbols, &Elf.DynamicSymbols}) {
    EXPECT_EQ(Table->find("get_global_id"), std::string::npos) << *Table;
    EXPECT_EQ(Table->find("get_local_size"), std::string::npos) << *Table;
    EXPECT_EQ(Table->find("sqrt"), std::string::npos) << *Table;
  }
}

TEST(Compile, AmdgcnOpenClBuiltinsWithoutTheDeviceLibrariesAreRefused) {
  CompileOptions Options;
  Options.Inputs = {std::string(DGLINK_SHIM_TEST_INPUTS) + "/global_id.cl"};
  Options.Targets = {"amdgcn"};
  Options.OpenClStd = "CL1.2";
  Options.RocmDeviceLibs = "none";
  EXPECT_EQ(errorText(compile(Options).takeError()),
            "image 'global_id': the amdgcn code object calls '_Z13get_global_idj', which no "
            "input defines and no other image can provide (an OpenCL builtin comes from the "
            "ROCm device libraries: install rocm-device-libs, or give their bitcode folder with "
            "--rocm-device-libs)");
  Options.RocmDeviceLibs = ::testing::TempDir();
  EXPECT_EQ(errorText(compile(Options).takeError()),
            "input '" + Options.Inputs[0] + "': the ROCm device libraries are not in '" +
                ::testing::TempDir() +
                "' (no opencl.bc there; install rocm-device-libs, or give their bitcode folder "
                "with --rocm-device-libs)");
  if (std::string(DGLINK_SHIM_ROCM_DEVICE_LIBS).empty())
    GTEST_SKIP() << "the ROCm device libraries were not found when dglink was built "
                    "(apt-get install rocm-device-libs)";
  Options.RocmDeviceLibs.clear();
  Options.AmdgcnArch = "gfx9999";
  EXPECT_EQ(errorText(compile(Options).takeError()),
            "input '" + Options.Inputs[0] + "': the ROCm device libraries in '" +
                DGLINK_SHIM_ROCM_DEVICE_LIBS +
                "' have no library for gfx9999 (oclc_isa_version_9999.bc is missing)");
}

TEST(Compile, CppForOpenClLinksThroughExternC) {
  CompileOptions Options;
  Options.Inputs = {std::string(DGLINK_SHIM_TEST_INPUTS) + "/cpp_counter.clcpp"};
  Options.Targets = {"spir64", "nvptx64"};
  llvm::Expected<Bundle> Result = compile(Options);
  ASSERT_TRUE(bool(Result)) << errorText(Result.takeError());
  ASSERT_EQ(Result->Images.size(), 2u);
  for (const BundleImage &Image : Result->Images) {
    EXPECT_EQ(Image.Name, "cpp_counter");
    EXPECT_EQ(Image.Entries, std::vector<std::string>{"cpp_kernel"});
    ImageMetadata Metadata = decode(Image.PropertySets);
    EXPECT_EQ(Metadata.DeviceGlobals.count("cpp_counter"), 1u);
    // The template instance (mangled) is neither exported nor imported.
    EXPECT_EQ(Metadata.Exported, (std::vector<std::string>{"counter", "exported_helper"}));
    EXPECT_EQ(Metadata.Imported, std::vector<std::string>{"imported_helper"});
  }
}

TEST(Compile, BadTargetsAndInputs) {
  CompileOptions Options;
  Options.Inputs = {std::string(DGLINK_SHIM_TEST_INPUTS) + "/counter.cl"};
  Options.Targets = {"x86"};
  EXPECT_EQ(errorText(compile(Options).takeError()),
            "unknown target 'x86' (spirv64, spir64, nvptx64, amdgcn)");
  Options.Targets = {"spir64"};
  Options.Inputs = {"kernel.txt"};
  EXPECT_EQ(errorText(compile(Options).takeError()),
            "input 'kernel.txt': unknown kind (expected .cl, .clcpp, .ll or .bc)");
}

TEST(Compile, IrForAnotherTargetIsAnError) {
  const std::string Path = ::testing::TempDir() + "/dglink_shim_spir.ll";
  std::ofstream(Path) << counterModule();
  CompileOptions Options;
  Options.Inputs = {Path};
  Options.Targets = {"nvptx64"};
  EXPECT_EQ(errorText(compile(Options).takeError()),
            "input '" + Path +
                "' is LLVM IR for 'spir64-unknown-unknown'; target nvptx64 needs "
                "a nvptx64 module (give the source, or IR for each target)");
  Options.Targets = {"spir64"};
  llvm::Expected<Bundle> Result = compile(Options);
  ASSERT_TRUE(bool(Result)) << errorText(Result.takeError());
  EXPECT_EQ(Result->Images.size(), 1u);
  EXPECT_EQ(Result->Images[0].CompileOptions, "");
  std::remove(Path.c_str());
}

} // namespace
} // namespace dglink::shim
