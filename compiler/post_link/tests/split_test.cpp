// Split modes, exports and imports, property sets per image, and the
// device_image_scope diagnostic.
#include "sample_ir.h"
#include "test_util.h"

#include <llvm/IR/Function.h>
#include <llvm/Linker/Linker.h>

#include <algorithm>

namespace dglink::shim {
namespace {

using test::counterModule;
using test::decode;
using test::errorText;
using test::parse;
using Names = std::vector<std::string>;

std::vector<InputModule> oneInput(llvm::LLVMContext &Context, const std::string &Text) {
  std::vector<InputModule> Inputs;
  Inputs.push_back({"counter", parse(Context, Text, "counter")});
  return Inputs;
}

const SplitImage *findImage(const std::vector<SplitImage> &Images, const std::string &Name) {
  for (const SplitImage &Image : Images)
    if (Image.Name == Name)
      return &Image;
  return nullptr;
}

TEST(Symbols, ExportsAndImportsSkipReservedNames) {
  llvm::LLVMContext Context;
  auto M = parse(Context, counterModule());
  ASSERT_TRUE(M);
  EXPECT_EQ(exportedSymbols(*M), (Names{"counter", "helper", "plain", "table"}));
  // _Z13get_global_idj (an OpenCL builtin), __spirv_*, __-prefixed and llvm.* are left out.
  EXPECT_EQ(importedSymbols(*M), (Names{"library_function"}));
  EXPECT_TRUE(isKernel(*M->getFunction("read_counter")));
  EXPECT_FALSE(isKernel(*M->getFunction("helper")));
}

TEST(Symbols, MangledNamesOutsideOpenClAreImportsUnlessReserved) {
  llvm::LLVMContext Context;
  auto M = parse(Context, counterModule());
  ASSERT_TRUE(M);
  M->eraseNamedMetadata(M->getNamedMetadata("opencl.ocl.version"));
  EXPECT_EQ(importedSymbols(*M), (Names{"_Z13get_global_idj", "library_function"}));
  EXPECT_TRUE(isReservedSymbol(*M, "_Z5__fooi")); // demangles to __foo(int)
}

TEST(Symbols, ModuleIdsSelectTheExportedFunctions) {
  llvm::LLVMContext Context;
  auto M = parse(Context, counterModule());
  ASSERT_TRUE(M);
  M->getFunction("helper")->addFnAttr("sycl-module-id", "a.cpp");
  const std::string Other = R"(define spir_func void @not_external_in_sycl() { ret void })";
  auto Extra = parse(Context, std::string(test::SpirHeader) + Other);
  ASSERT_TRUE(Extra);
  ASSERT_FALSE(llvm::Linker::linkModules(*M, std::move(Extra)));
  const Names Exports = exportedSymbols(*M);
  EXPECT_NE(std::find(Exports.begin(), Exports.end(), "helper"), Exports.end());
  EXPECT_EQ(std::find(Exports.begin(), Exports.end(), "not_external_in_sycl"), Exports.end());
}

TEST(PropertySets, PerImageSetsDecodeAsAdaptersReadThem) {
  llvm::LLVMContext Context;
  auto M = parse(Context, counterModule());
  ASSERT_TRUE(M);
  llvm::Expected<std::vector<BundlePropertySet>> Sets = computePropertySets(*M);
  ASSERT_TRUE(bool(Sets)) << errorText(Sets.takeError());
  ASSERT_EQ(Sets->size(), 4u);
  EXPECT_EQ((*Sets)[0].Name, "SYCL/device globals");
  EXPECT_EQ((*Sets)[1].Name, "SYCL/device global symbols");
  EXPECT_EQ((*Sets)[2].Name, "SYCL/exported symbols");
  EXPECT_EQ((*Sets)[3].Name, "SYCL/imported symbols");
  ImageMetadata Metadata = decode(*Sets);
  EXPECT_EQ(Metadata.Exported, (Names{"counter", "helper", "plain", "table"}));
  EXPECT_EQ(Metadata.Imported, (Names{"library_function"}));
  ASSERT_EQ(Metadata.DeviceGlobals.size(), 2u);
  EXPECT_EQ(Metadata.DeviceGlobals["counter_uid"].Size, 4u);
  EXPECT_EQ(Metadata.DeviceGlobals["counter_uid"].Access, HostAccess::Read);
  EXPECT_FALSE(Metadata.DeviceGlobals["counter_uid"].DeviceImageScope);
  EXPECT_EQ(Metadata.DeviceGlobals["table"].Size, 16u);
  EXPECT_TRUE(Metadata.DeviceGlobals["table"].DeviceImageScope);
  // The 12-byte form: {size, device_image_scope, host_access}.
  EXPECT_EQ(Metadata.RawSets["SYCL/device globals"]["counter_uid"],
            (std::vector<uint8_t>{4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  // Only the id that differs from its symbol is mapped.
  EXPECT_EQ(Metadata.RawSets["SYCL/device global symbols"].size(), 1u);
  EXPECT_EQ(Metadata.RawSets["SYCL/device global symbols"]["counter_uid"],
            (std::vector<uint8_t>{'c', 'o', 'u', 'n', 't', 'e', 'r'}));
}

TEST(PropertySets, DuplicateUniqueIdIsAnError) {
  llvm::LLVMContext Context;
  auto M = parse(Context, counterModule());
  ASSERT_TRUE(M);
  M->getNamedGlobal("table")->addAttribute("sycl-unique-id", "counter_uid");
  EXPECT_EQ(errorText(computePropertySets(*M).takeError()),
            "device globals 'counter' and 'table' have the same unique id 'counter_uid'");
}

TEST(Split, PerInputKeepsEachInputWhole) {
  llvm::LLVMContext Context;
  std::vector<InputModule> Inputs = oneInput(Context, counterModule());
  Inputs.push_back({"second", parse(Context, std::string(test::SpirHeader) +
                                                 "define spir_kernel void @other() { ret void }")});
  llvm::Expected<std::vector<SplitImage>> Images =
      splitModules(std::move(Inputs), SplitMode::PerInput);
  ASSERT_TRUE(bool(Images)) << errorText(Images.takeError());
  ASSERT_EQ(Images->size(), 2u);
  EXPECT_EQ((*Images)[0].Name, "counter");
  EXPECT_EQ((*Images)[0].Kernels, (Names{"read_counter", "fill_table"}));
  EXPECT_EQ((*Images)[1].Kernels, (Names{"other"}));
  EXPECT_FALSE(bool(checkDeviceImageScope(*Images)));
}

TEST(Split, AllInOneLinksTheInputsAndResolvesImports) {
  llvm::LLVMContext Context;
  std::vector<InputModule> Inputs = oneInput(Context, counterModule());
  Inputs.push_back({"library", parse(Context, std::string(test::SpirHeader) + R"(
define spir_func i32 @library_function(i32 %x) { ret i32 %x }
)")});
  llvm::Expected<std::vector<SplitImage>> Images =
      splitModules(std::move(Inputs), SplitMode::AllInOne);
  ASSERT_TRUE(bool(Images)) << errorText(Images.takeError());
  ASSERT_EQ(Images->size(), 1u);
  EXPECT_EQ((*Images)[0].Name, "all");
  EXPECT_EQ((*Images)[0].Kernels, (Names{"read_counter", "fill_table"}));
  EXPECT_EQ(importedSymbols(*(*Images)[0].Module), Names{});
  EXPECT_EQ(exportedSymbols(*(*Images)[0].Module),
            (Names{"counter", "helper", "library_function", "plain", "table"}));
}

TEST(Split, AllInOneReportsADuplicateDefinition) {
  llvm::LLVMContext Context;
  std::vector<InputModule> Inputs = oneInput(Context, counterModule());
  Inputs.push_back({"again", parse(Context, std::string(test::SpirHeader) + R"(
define spir_func i32 @helper(i32 %x) { ret i32 %x }
)")});
  llvm::Expected<std::vector<SplitImage>> Images =
      splitModules(std::move(Inputs), SplitMode::AllInOne);
  ASSERT_FALSE(bool(Images));
  EXPECT_EQ(errorText(Images.takeError()),
            "cannot link input 'again' with the inputs before it: Linking globals named "
            "'helper': symbol multiply defined!");
}

TEST(Split, PerKernelMakesSelfContainedImages) {
  llvm::LLVMContext Context;
  llvm::Expected<std::vector<SplitImage>> Images =
      splitModules(oneInput(Context, counterModule()), SplitMode::PerKernel);
  ASSERT_TRUE(bool(Images)) << errorText(Images.takeError());
  ASSERT_EQ(Images->size(), 3u);

  const SplitImage *Read = findImage(*Images, "read_counter");
  ASSERT_NE(Read, nullptr);
  EXPECT_EQ(Read->Kernels, Names{"read_counter"});
  // helper is copied in and made internal; the device global keeps its name; what
  // the kernel does not reach is gone; the unresolved call stays an import.
  ASSERT_NE(Read->Module->getFunction("helper"), nullptr);
  EXPECT_TRUE(Read->Module->getFunction("helper")->hasInternalLinkage());
  EXPECT_EQ(Read->Module->getNamedGlobal("table"), nullptr);
  EXPECT_EQ(Read->Module->getNamedGlobal("plain"), nullptr);
  EXPECT_EQ(Read->Module->getFunction("fill_table"), nullptr);
  EXPECT_EQ(exportedSymbols(*Read->Module), Names{"counter"});
  EXPECT_EQ(importedSymbols(*Read->Module), Names{"library_function"});

  const SplitImage *Fill = findImage(*Images, "fill_table");
  ASSERT_NE(Fill, nullptr);
  EXPECT_EQ(exportedSymbols(*Fill->Module), Names{"table"});
  EXPECT_EQ(importedSymbols(*Fill->Module), Names{});
  llvm::Expected<std::vector<BundlePropertySet>> FillSets = computePropertySets(*Fill->Module);
  ASSERT_TRUE(bool(FillSets));
  EXPECT_EQ(decode(*FillSets).DeviceGlobals.count("table"), 1u);
  EXPECT_EQ(decode(*FillSets).DeviceGlobals.count("counter_uid"), 0u);

  // The exported function gets an image of its own, where it stays external.
  const SplitImage *Exports = findImage(*Images, "exports of counter");
  ASSERT_NE(Exports, nullptr);
  EXPECT_TRUE(Exports->Kernels.empty());
  EXPECT_EQ(exportedSymbols(*Exports->Module), (Names{"counter", "helper"}));
  EXPECT_FALSE(bool(checkDeviceImageScope(*Images)));
}

TEST(Split, ImageScopeGlobalInTwoImagesIsAnError) {
  llvm::LLVMContext Context;
  const std::string Text = counterModule() + R"(
define spir_kernel void @peek_table(i32 addrspace(1)* %out) {
  %v = load i32, i32 addrspace(1)* getelementptr inbounds ([4 x i32], [4 x i32] addrspace(1)* @table, i64 0, i64 2), align 4
  store i32 %v, i32 addrspace(1)* %out, align 4
  ret void
}
)";
  llvm::Expected<std::vector<SplitImage>> Images =
      splitModules(oneInput(Context, Text), SplitMode::PerKernel);
  ASSERT_TRUE(bool(Images)) << errorText(Images.takeError());
  EXPECT_EQ(errorText(checkDeviceImageScope(*Images)),
            "device_global variable 'table' (unique id 'table') with property "
            "\"device_image_scope\" is used in more than one device image: 'fill_table', "
            "'peek_table'");
  // One image holding both kernels is fine.
  llvm::Expected<std::vector<SplitImage>> Whole =
      splitModules(oneInput(Context, Text), SplitMode::AllInOne);
  ASSERT_TRUE(bool(Whole));
  EXPECT_FALSE(bool(checkDeviceImageScope(*Whole)));
}

TEST(Split, UnknownModeIsAnError) {
  EXPECT_EQ(errorText(parseSplitMode("sideways").takeError()),
            "unknown split mode 'sideways' (per-input, per-kernel, all-in-one)");
  EXPECT_EQ(*parseSplitMode("per-kernel"), SplitMode::PerKernel);
}

} // namespace
} // namespace dglink::shim
