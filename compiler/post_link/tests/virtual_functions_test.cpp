// The shim's virtual-function handling (docs/virtual-functions.md) on the runtime tests'
// device code and on a kernel that calls without calls-indirectly: the images and property
// sets per set, the dummy twins, the aspects per kernel, and the diagnostic.
#include "test_util.h"

#include <algorithm>
#include <map>

namespace dglink::shim {
namespace {

const BundlePropertySet *findSet(const BundleImage &Image, const std::string &Name) {
  for (const BundlePropertySet &Set : Image.PropertySets)
    if (Set.Name == Name)
      return &Set;
  return nullptr;
}

std::string stringProperty(const BundleImage &Image, const std::string &Set,
                           const std::string &Name) {
  if (const BundlePropertySet *Found = findSet(Image, Set))
    for (const BundleProperty &Property : Found->Properties)
      if (Property.Name == Name)
        return std::string(Property.Value.begin(), Property.Value.end() - 1);
  return "";
}

std::vector<uint32_t> aspectsProperty(const BundleImage &Image, const std::string &Set,
                                      const std::string &Name) {
  std::vector<uint32_t> Result;
  if (const BundlePropertySet *Found = findSet(Image, Set))
    for (const BundleProperty &Property : Found->Properties)
      if (Property.Name == Name)
        for (size_t I = 8; I + 4 <= Property.Value.size(); I += 4)
          Result.push_back(uint32_t(Property.Value[I]) | uint32_t(Property.Value[I + 1]) << 8 |
                           uint32_t(Property.Value[I + 2]) << 16 |
                           uint32_t(Property.Value[I + 3]) << 24);
  return Result;
}

TEST(ShimVirtualFunctions, EachSetGetsAnImageAndFp64SetsADummy) {
  CompileOptions Options;
  Options.Inputs = {DGLINK_SHIM_VF_SOURCE};
  Options.Targets = {"spir64"};
  Options.IncludeDirs = {DGLINK_SHIM_DEVICE_INCLUDE};
  llvm::Expected<Bundle> Out = compile(Options);
  ASSERT_TRUE(static_cast<bool>(Out)) << llvm::toString(Out.takeError());
  // The kernel image, four sets, two dummies (the fp64 sets).
  ASSERT_EQ(Out->Images.size(), 7u);
  std::map<std::string, const BundleImage *> ByName;
  for (const BundleImage &Image : Out->Images)
    ByName[Image.Name] = &Image;
  const BundleImage &Kernels = *ByName.at("virtual_functions");
  EXPECT_EQ(
      stringProperty(Kernels, PI_PROPERTY_SET_VIRTUAL_FUNCTIONS, "uses-virtual-functions-set"),
      "_ZTSv,fp64_set,regular_set,set_fp64");
  EXPECT_EQ(aspectsProperty(Kernels, KernelAspectsSet, "vf_use_fp64"),
            std::vector<uint32_t>{AspectFp64});
  EXPECT_EQ(aspectsProperty(Kernels, KernelAspectsSet, "vf2_call_fp64"),
            std::vector<uint32_t>{AspectFp64});
  // Constructing kernels and callers of sets without aspects require nothing.
  for (const char *Kernel : {"vf_construct", "vf_use", "vf2_construct", "vf2_call_regular"})
    EXPECT_TRUE(aspectsProperty(Kernels, KernelAspectsSet, Kernel).empty()) << Kernel;
  // The kernel image only declares the virtual functions: it imports them.
  const ImageMetadata KernelMetadata = test::decode(Kernels.PropertySets);
  EXPECT_NE(std::find(KernelMetadata.Imported.begin(), KernelMetadata.Imported.end(),
                      "_ZNU3AS44Base3barEi"),
            KernelMetadata.Imported.end());

  const BundleImage &Fp64 = *ByName.at("virtual_functions [virtual functions set_fp64]");
  EXPECT_EQ(stringProperty(Fp64, PI_PROPERTY_SET_VIRTUAL_FUNCTIONS, "virtual-functions-set"),
            "set_fp64");
  EXPECT_EQ(aspectsProperty(Fp64, DeviceRequirementsSet, AspectsProperty),
            std::vector<uint32_t>{AspectFp64});
  EXPECT_TRUE(Fp64.Entries.empty());
  const BundleImage &Dummy = *ByName.at("virtual_functions [virtual functions set_fp64, dummy]");
  EXPECT_EQ(stringProperty(Dummy, PI_PROPERTY_SET_VIRTUAL_FUNCTIONS, "virtual-functions-set"),
            "set_fp64");
  EXPECT_TRUE(aspectsProperty(Dummy, DeviceRequirementsSet, AspectsProperty).empty());
  // Same exported symbols as the real image.
  EXPECT_EQ(test::decode(Dummy.PropertySets).Exported, test::decode(Fp64.PropertySets).Exported);
  EXPECT_EQ(test::decode(Fp64.PropertySets).Exported,
            std::vector<std::string>{"_ZNU3AS44Base3barEi"});
  // The default set uses no aspect: no dummy.
  EXPECT_EQ(ByName.count("virtual_functions [virtual functions _ZTSv, dummy]"), 0u);
  EXPECT_EQ(ByName.count("virtual_functions [virtual functions _ZTSv]"), 1u);
}

TEST(ShimVirtualFunctions, VirtualCallWithoutCallsIndirectlyIsAnError) {
  CompileOptions Options;
  Options.Inputs = {std::string(DGLINK_SHIM_TEST_INPUTS) + "/vf_missing_calls_indirectly.clcpp"};
  Options.Targets = {"spir64"};
  Options.IncludeDirs = {DGLINK_SHIM_DEVICE_INCLUDE};
  llvm::Expected<Bundle> Out = compile(Options);
  ASSERT_FALSE(static_cast<bool>(Out));
  const std::string Message = llvm::toString(Out.takeError());
  EXPECT_NE(Message.find("kernel 'unmarked' makes a virtual call in function '_Z7measure"),
            std::string::npos)
      << Message;
  EXPECT_NE(Message.find("' that it calls (a call through a pointer to 'i32 ("), std::string::npos)
      << Message;
  EXPECT_NE(Message.find("has no calls-indirectly attribute"), std::string::npos) << Message;
}

} // namespace
} // namespace dglink::shim
