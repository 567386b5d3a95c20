// Unit tests of the device-global helpers the driver-lookup adapters share.
#include <dglink/support/device_global.h>
#include <dglink/support/error.h>

#include <gtest/gtest.h>

#include <string>

namespace {

using dglink::HostAccess;
using dglink::ImageMetadata;

std::vector<uint8_t> stringValue(const std::string &Text) {
  std::vector<uint8_t> Bytes(Text.begin(), Text.end());
  Bytes.push_back(0);
  return Bytes;
}

ImageMetadata declaring(const std::string &Id, uint32_t Size, HostAccess Access) {
  ImageMetadata Metadata;
  dglink::DeviceGlobalInfo Info;
  Info.UniqueId = Id;
  Info.Size = Size;
  Info.Access = Access;
  Metadata.DeviceGlobals[Id] = Info;
  return Metadata;
}

TEST(DeviceGlobalSymbol, FromTheSymbolSetFlatMetadataOrTheIdItself) {
  ImageMetadata Metadata;
  Metadata.RawSets[dglink::DeviceGlobalSymbolsSet]["uid::counter"] = stringValue("counter");
  Metadata.RawSets[PI_PROPERTY_SET_PROGRAM_METADATA][std::string(dglink::DeviceGlobalSymbolsSet) +
                                                     "/uid::flat"] = stringValue("flat_symbol");
  EXPECT_EQ(dglink::deviceGlobalSymbol(Metadata, "uid::counter"), "counter"); // NUL dropped
  EXPECT_EQ(dglink::deviceGlobalSymbol(Metadata, "uid::flat"), "flat_symbol");
  EXPECT_EQ(dglink::deviceGlobalSymbol(Metadata, "plain"), "plain");
}

TEST(CheckDeclaredDeviceGlobal, OnlyNamesTheImageListsWhereItListsAny) {
  const ImageMetadata Declaring = declaring("dg_a", 4, HostAccess::ReadWrite);
  int Program = 0;
  EXPECT_EQ(dglink::checkDeclaredDeviceGlobal("f", Declaring, "dg_a", &Program), PI_SUCCESS);
  EXPECT_EQ(dglink::checkDeclaredDeviceGlobal("f", Declaring, "helper", &Program),
            PI_ERROR_INVALID_VALUE);
  EXPECT_NE(dglink::lastErrorMessage().find("'helper'"), std::string::npos)
      << dglink::lastErrorMessage();
  EXPECT_EQ(dglink::checkDeclaredDeviceGlobal("f", ImageMetadata{}, "anything", &Program),
            PI_SUCCESS);
}

TEST(ApplyDeclaredDeviceGlobal, SmallerSizeAndDeclaredAccess) {
  size_t Size = 0;
  HostAccess Access = HostAccess::None;
  dglink::applyDeclaredDeviceGlobal(declaring("dg", 8, HostAccess::Read), "dg", 16, Size, Access);
  EXPECT_EQ(Size, 8u);
  EXPECT_EQ(Access, HostAccess::Read);
  dglink::applyDeclaredDeviceGlobal(declaring("dg", 32, HostAccess::Write), "dg", 16, Size, Access);
  EXPECT_EQ(Size, 16u);
  EXPECT_EQ(Access, HostAccess::Write);
  dglink::applyDeclaredDeviceGlobal(ImageMetadata{}, "dg", 12, Size, Access);
  EXPECT_EQ(Size, 12u);
  EXPECT_EQ(Access, HostAccess::ReadWrite);
}

TEST(CheckHostAccess, EachModeAndDirection) {
  EXPECT_EQ(dglink::checkHostAccess("f", "v", HostAccess::ReadWrite, true), PI_SUCCESS);
  EXPECT_EQ(dglink::checkHostAccess("f", "v", HostAccess::ReadWrite, false), PI_SUCCESS);
  EXPECT_EQ(dglink::checkHostAccess("f", "v", HostAccess::Read, false), PI_SUCCESS);
  EXPECT_EQ(dglink::checkHostAccess("f", "v", HostAccess::Write, true), PI_SUCCESS);
  EXPECT_EQ(dglink::checkHostAccess("f", "v", HostAccess::Read, true), PI_ERROR_INVALID_OPERATION);
  EXPECT_NE(dglink::lastErrorMessage().find("'v'"), std::string::npos);
  EXPECT_EQ(dglink::checkHostAccess("f", "v", HostAccess::Write, false),
            PI_ERROR_INVALID_OPERATION);
  EXPECT_EQ(dglink::checkHostAccess("f", "v", HostAccess::None, false), PI_ERROR_INVALID_OPERATION);
}

} // namespace
