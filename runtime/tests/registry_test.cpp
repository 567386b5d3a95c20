// The image registry without a device: what registration indexes, and that a bad
// bundle is an error with the bundle reader's message and registers nothing.
#include "counting_table.h"

#include <dglink/compiler/bundle.h>
#include <dglink/runtime.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace dglink::runtime {
namespace {

using testing::conformanceBundle;

bool contains(const std::vector<std::string> &List, const std::string &Item) {
  return std::find(List.begin(), List.end(), Item) != List.end();
}

class RuntimeRegistry : public ::testing::Test {
protected:
  void SetUp() override {
    if (conformanceBundle("chain_1").Data == nullptr)
      GTEST_SKIP() << "the conformance suite was built without device code (no shim), so "
                      "there is no bundle to register";
  }
  Runtime Rt{testing::countingTable()};
};

TEST_F(RuntimeRegistry, IndexesEveryImageOfABundle) {
  const testing::BundleBytes Chain = conformanceBundle("chain_1");
  Expected<ModuleId> Id = Rt.registerBundle(Chain.Data, Chain.Size, "chain_1.bundle");
  ASSERT_TRUE(Id.ok()) << Id.status().Message;
  EXPECT_NE(*Id, 0u);

  Bundle Parsed;
  ASSERT_EQ(readBundle(Chain.Data, Chain.Size, Parsed), PI_SUCCESS);
  const std::vector<ImageInfo> Images = Rt.images();
  ASSERT_EQ(Images.size(), Parsed.Images.size());
  for (size_t I = 0; I < Images.size(); ++I) {
    SCOPED_TRACE(Images[I].Name);
    EXPECT_EQ(Images[I].Module, *Id);
    EXPECT_EQ(Images[I].Index, I);
    EXPECT_EQ(Images[I].Target, Parsed.Images[I].Target);
    EXPECT_EQ(Images[I].Format, Parsed.Images[I].Format);
    EXPECT_EQ(Images[I].Name.rfind("chain_1.bundle#" + std::to_string(I), 0), 0u);
    EXPECT_TRUE(Images[I].Entries.empty());
    EXPECT_EQ(Images[I].Exports, std::vector<std::string>{"chain_1"});
    EXPECT_EQ(Images[I].Imports, std::vector<std::string>{"chain_2"});
    // spir64 is SPIR bitcode or SPIR-V; the link-format names tell them apart.
    if (Images[I].Target == "spir64")
      EXPECT_EQ(Images[I].LinkFormat,
                Images[I].Format == PI_DEVICE_BINARY_TYPE_SPIRV ? "spirv64" : "spir64");
    else
      EXPECT_EQ(Images[I].LinkFormat, Images[I].Target);
  }
}

TEST_F(RuntimeRegistry, IndexesKernelsAndDeviceGlobals) {
  const testing::BundleBytes Caller = conformanceBundle("link_caller");
  const testing::BundleBytes Globals = conformanceBundle("device_globals");
  ASSERT_NE(Globals.Data, nullptr);
  ASSERT_TRUE(Rt.registerBundle(Caller.Data, Caller.Size, "link_caller.bundle").ok());
  Expected<ModuleId> GlobalsId = Rt.registerBundle(Globals.Data, Globals.Size, "dg.bundle");
  ASSERT_TRUE(GlobalsId.ok()) << GlobalsId.status().Message;
  bool SawLowered = false;
  bool SawPlain = false;
  for (const ImageInfo &Image : Rt.images()) {
    SCOPED_TRACE(Image.Name);
    if (Image.Module != *GlobalsId) {
      EXPECT_EQ(Image.Entries, std::vector<std::string>{"link_caller"});
      EXPECT_EQ(Image.Imports, std::vector<std::string>{"link_callee"});
      EXPECT_FALSE(Image.Lowered);
      continue;
    }
    EXPECT_FALSE(Image.DeviceGlobals.empty());
    (Image.Lowered ? SawLowered : SawPlain) = true;
  }
  // The device-global bundle has plain images and, for OpenCL, lowered ones.
  EXPECT_TRUE(SawPlain);
  EXPECT_TRUE(SawLowered);
}

TEST_F(RuntimeRegistry, GarbageIsRefusedWithTheReadersMessage) {
  const std::string Garbage = "this is not a bundle, it is a sentence of plain text";
  Expected<ModuleId> Id = Rt.registerBundle(Garbage.data(), Garbage.size(), "garbage");
  ASSERT_FALSE(Id.ok());
  EXPECT_EQ(Id.status().Code, PI_ERROR_INVALID_BINARY);
  EXPECT_NE(Id.status().Message.find("garbage: bundle: wrong magic"), std::string::npos)
      << Id.status().Message;
  EXPECT_TRUE(Rt.images().empty());
}

TEST_F(RuntimeRegistry, TruncatedBundleIsRefusedAndNothingIsRegistered) {
  const testing::BundleBytes Chain = conformanceBundle("chain_0");
  ASSERT_TRUE(Rt.registerBundle(Chain.Data, Chain.Size, "chain_0.bundle").ok());
  const size_t Before = Rt.images().size();
  for (const size_t Size : {size_t(0), size_t(7), size_t(48), Chain.Size / 2, Chain.Size - 1}) {
    Expected<ModuleId> Id = Rt.registerBundle(Chain.Data, Size, "cut.bundle");
    ASSERT_FALSE(Id.ok()) << "size " << Size;
    EXPECT_EQ(Id.status().Code, PI_ERROR_INVALID_BINARY) << Id.status().Message;
    EXPECT_EQ(Id.status().Message.rfind("cut.bundle: bundle", 0), 0u) << Id.status().Message;
  }
  EXPECT_EQ(Rt.images().size(), Before);
}

TEST_F(RuntimeRegistry, MissingFileAndNullDataAreInvalidValues) {
  Expected<ModuleId> File = Rt.registerBundleFile("/nonexistent/dglink/none.bundle");
  ASSERT_FALSE(File.ok());
  EXPECT_EQ(File.status().Code, PI_ERROR_INVALID_VALUE);
  EXPECT_NE(File.status().Message.find("none.bundle"), std::string::npos) << File.status().Message;
  Expected<ModuleId> Null = Rt.registerBundle(nullptr, 10, "null");
  ASSERT_FALSE(Null.ok());
  EXPECT_EQ(Null.status().Code, PI_ERROR_INVALID_VALUE);
  EXPECT_TRUE(Rt.images().empty());
}

TEST_F(RuntimeRegistry, UnregisterForgetsTheImagesOnce) {
  const testing::BundleBytes Chain = conformanceBundle("chain_2");
  Expected<ModuleId> Id = Rt.registerBundle(Chain.Data, Chain.Size, "chain_2.bundle");
  ASSERT_TRUE(Id.ok());
  EXPECT_TRUE(Rt.unregisterModule(*Id).ok());
  EXPECT_TRUE(Rt.images().empty());
  const Status Again = Rt.unregisterModule(*Id);
  EXPECT_EQ(Again.Code, PI_ERROR_INVALID_VALUE);
  EXPECT_NE(Again.Message.find("module " + std::to_string(*Id) + " is not registered"),
            std::string::npos)
      << Again.Message;
}

TEST_F(RuntimeRegistry, DeviceBinariesAreRegisteredAsDpcppLaysThemOut) {
  const testing::BundleBytes Callee = conformanceBundle("link_callee");
  Bundle Parsed;
  ASSERT_EQ(readBundle(Callee.Data, Callee.Size, Parsed), PI_SUCCESS);
  DeviceBinaries Binaries(Parsed);
  Expected<ModuleId> Id = Rt.registerDeviceBinaries(Binaries.get(), "embedded");
  ASSERT_TRUE(Id.ok()) << Id.status().Message;
  const std::vector<ImageInfo> Images = Rt.images();
  ASSERT_EQ(Images.size(), Binaries.size());
  for (const ImageInfo &Image : Images)
    EXPECT_TRUE(contains(Image.Exports, "link_callee")) << Image.Name;
  ASSERT_TRUE(Rt.unregisterModule(*Id).ok());

  // A broken image: its target is null. Nothing of the module is registered.
  _pi_device_binary_struct Broken = Binaries.image(0);
  Broken.DeviceTargetSpec = nullptr;
  _pi_device_binaries_struct One{PI_DEVICE_BINARIES_VERSION, 1, &Broken, nullptr, nullptr};
  Expected<ModuleId> Bad = Rt.registerDeviceBinaries(&One, "broken");
  ASSERT_FALSE(Bad.ok());
  EXPECT_EQ(Bad.status().Code, PI_ERROR_INVALID_BINARY);
  EXPECT_NE(Bad.status().Message.find("broken image 0: its target (DeviceTargetSpec) is null"),
            std::string::npos)
      << Bad.status().Message;
  EXPECT_EQ(Rt.registerDeviceBinaries(nullptr, "null").status().Code, PI_ERROR_INVALID_VALUE);
  EXPECT_TRUE(Rt.images().empty());
}

} // namespace
} // namespace dglink::runtime
