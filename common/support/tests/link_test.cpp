// Unit tests of import/export resolution across link inputs.
#include <dglink/support/extensions.h>
#include <dglink/support/link.h>

#include <gtest/gtest.h>

namespace {

dglink::ImageMetadata image(std::vector<std::string> Exported, std::vector<std::string> Imported) {
  dglink::ImageMetadata Metadata;
  Metadata.Exported = std::move(Exported);
  Metadata.Imported = std::move(Imported);
  Metadata.HasSymbolTables = true;
  return Metadata;
}

TEST(ResolveImports, ChainResolves) {
  auto A = image({}, {"chain_1"});
  auto B = image({"chain_1"}, {"chain_2"});
  auto C = image({"chain_2"}, {"chain_3"});
  auto D = image({"chain_3"}, {});
  EXPECT_TRUE(dglink::resolveImports({&A, &B, &C, &D}).ok());
}

TEST(ResolveImports, ReportsUnresolvedAndDuplicatesByName) {
  auto A = image({"f"}, {"missing_symbol"});
  auto B = image({"f"}, {});
  const dglink::LinkProblems Problems = dglink::resolveImports({&A, &B});
  ASSERT_EQ(Problems.Unresolved.size(), 1u);
  ASSERT_EQ(Problems.Duplicates.size(), 1u);
  EXPECT_EQ(Problems.Unresolved[0], "missing_symbol (imported by input 0)");
  EXPECT_EQ(Problems.Duplicates[0], "f (exported by inputs 0 and 1)");
  EXPECT_EQ(Problems.describe(), "error: unresolved symbol missing_symbol (imported by input 0)\n"
                                 "error: duplicate symbol f (exported by inputs 0 and 1)\n");
}

TEST(ResolveImports, InputsWithoutTablesAreLeftToTheDriver) {
  auto A = image({}, {"g"});
  dglink::ImageMetadata Opaque; // no symbol tables: it may export g
  const auto Problems = dglink::resolveImports({&A, &Opaque});
  EXPECT_EQ(Problems.Unresolved.size(), 1u); // g is still unresolved among known exports
  EXPECT_TRUE(dglink::resolveImports({&Opaque, nullptr}).ok());
}

TEST(Extensions, MergesNativeListLinkingAndDeviceGlobals) {
  EXPECT_EQ(dglink::linkingExtension("spirv64"), "pi_ext_spirv64_linking");
  EXPECT_EQ(dglink::buildExtensionString("cl_khr_fp64  cl_khr_spir cl_khr_fp64", {"spir64"}, true),
            "cl_khr_fp64 cl_khr_spir pi_ext_spir64_linking pi_ext_device_global_access");
  EXPECT_EQ(dglink::buildExtensionString("", {}, false), "");
}

} // namespace
