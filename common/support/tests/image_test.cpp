// Unit tests of image-format detection and validated property-set reading.
#include <dglink/support/error.h>
#include <dglink/support/image.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

using dglink::ImageFormat;

TEST(DetectFormat, RecognisesEachMagic) {
  const uint32_t SpirV = 0x07230203u;
  EXPECT_EQ(dglink::detectFormat(&SpirV, 4), ImageFormat::SpirV);
  const unsigned char Bitcode[] = {'B', 'C', 0xC0, 0xDE, 0x35, 0x14};
  EXPECT_EQ(dglink::detectFormat(Bitcode, sizeof(Bitcode)), ImageFormat::LlvmBitcode);
  const unsigned char Elf[] = {0x7F, 'E', 'L', 'F', 2, 1};
  EXPECT_EQ(dglink::detectFormat(Elf, sizeof(Elf)), ImageFormat::Elf);
  const std::string Ptx = "//\n.version 7.5\n.target sm_80\n.address_size 64\n";
  EXPECT_EQ(dglink::detectFormat(Ptx.data(), Ptx.size()), ImageFormat::Ptx);
}

TEST(DetectFormat, RejectsShortNullAndGarbage) {
  EXPECT_EQ(dglink::detectFormat(nullptr, 100), ImageFormat::Unknown);
  const char Short[] = "BC";
  EXPECT_EQ(dglink::detectFormat(Short, 2), ImageFormat::Unknown);
  const std::string Text = "hello, this is not a device image";
  EXPECT_EQ(dglink::detectFormat(Text.data(), Text.size()), ImageFormat::Unknown);
}

// Builds property sets in the ABI layout, owning every byte.
struct ImageBuilder {
  std::vector<std::vector<_pi_device_binary_property_struct>> Properties;
  std::vector<_pi_device_binary_property_set_struct> Sets;
  std::vector<std::vector<uint8_t>> Values;
  std::vector<std::string> Names;
  _pi_device_binary_struct Image{};

  char *keep(const std::string &Name) {
    Names.reserve(64);
    Names.push_back(Name);
    return Names.back().data();
  }
  void addSet(const std::string &Name, std::vector<_pi_device_binary_property_struct> Props) {
    Properties.push_back(std::move(Props));
    Sets.push_back({keep(Name), nullptr, nullptr});
  }
  _pi_device_binary_property_struct uint32(const std::string &Name, uint32_t Value) {
    return {keep(Name), nullptr, PI_PROPERTY_TYPE_UINT32, Value};
  }
  _pi_device_binary_property_struct bytes(const std::string &Name, std::vector<uint8_t> Value) {
    Values.reserve(64);
    Values.push_back(std::move(Value));
    return {keep(Name), Values.back().data(), PI_PROPERTY_TYPE_BYTE_ARRAY, Values.back().size()};
  }
  const _pi_device_binary_struct &finish() {
    for (size_t I = 0; I < Sets.size(); ++I) {
      Sets[I].PropertiesBegin = Properties[I].data();
      Sets[I].PropertiesEnd = Properties[I].data() + Properties[I].size();
    }
    Image.PropertySetsBegin = Sets.data();
    Image.PropertySetsEnd = Sets.data() + Sets.size();
    return Image;
  }
};

TEST(ReadImageMetadata, ReadsSymbolsAndDeviceGlobals) {
  ImageBuilder B;
  dglink::DeviceGlobalInfo Counter;
  Counter.Size = 16;
  Counter.DeviceImageScope = true;
  Counter.Access = dglink::HostAccess::Read;
  B.addSet(PI_PROPERTY_SET_EXPORTED_SYMBOLS, {B.uint32("link_callee", 1)});
  B.addSet(PI_PROPERTY_SET_IMPORTED_SYMBOLS, {B.uint32("chain_2", 1)});
  B.addSet(PI_PROPERTY_SET_DEVICE_GLOBALS,
           {B.bytes("uid_counter", dglink::encodeDeviceGlobalValue(Counter)),
            // the 8-byte form: size 4, not image scope, host access defaults to read_write
            B.bytes("uid_plain", {64, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0})});
  dglink::ImageMetadata Metadata;
  ASSERT_EQ(dglink::readImageMetadata(B.finish(), Metadata), PI_SUCCESS)
      << dglink::lastErrorMessage();
  EXPECT_TRUE(Metadata.HasSymbolTables);
  EXPECT_EQ(Metadata.Exported, std::vector<std::string>{"link_callee"});
  EXPECT_EQ(Metadata.Imported, std::vector<std::string>{"chain_2"});
  ASSERT_EQ(Metadata.DeviceGlobals.size(), 2u);
  const auto &Read = Metadata.DeviceGlobals.at("uid_counter");
  EXPECT_EQ(Read.Size, 16u);
  EXPECT_TRUE(Read.DeviceImageScope);
  EXPECT_EQ(Read.Access, dglink::HostAccess::Read);
  const auto &Plain = Metadata.DeviceGlobals.at("uid_plain");
  EXPECT_EQ(Plain.Size, 4u);
  EXPECT_FALSE(Plain.DeviceImageScope);
  EXPECT_EQ(Plain.Access, dglink::HostAccess::ReadWrite);
}

TEST(ReadImageMetadata, NoPropertySetsMeansNoSymbolTables) {
  _pi_device_binary_struct Image{};
  dglink::ImageMetadata Metadata;
  ASSERT_EQ(dglink::readImageMetadata(Image, Metadata), PI_SUCCESS);
  EXPECT_FALSE(Metadata.HasSymbolTables);
  EXPECT_TRUE(Metadata.DeviceGlobals.empty());
}

// Each malformed input is refused with INVALID_BINARY, a message naming what is
// wrong, and the output left as it was.
void expectRejected(const _pi_device_binary_struct &Image, const std::string &Needle) {
  dglink::ImageMetadata Metadata;
  Metadata.Exported = {"sentinel"};
  EXPECT_EQ(dglink::readImageMetadata(Image, Metadata), PI_ERROR_INVALID_BINARY);
  EXPECT_NE(dglink::lastErrorMessage().find(Needle), std::string::npos)
      << "message: " << dglink::lastErrorMessage();
  EXPECT_EQ(Metadata.Exported, std::vector<std::string>{"sentinel"});
}

TEST(ReadImageMetadata, RejectsByteArrayWithWrongBitCount) {
  ImageBuilder B;
  B.addSet(PI_PROPERTY_SET_DEVICE_GLOBALS,
           {B.bytes("uid_x", {96, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0})});
  expectRejected(B.finish(), "header says 96 bits but 8 bytes follow");
}

TEST(ReadImageMetadata, RejectsByteArrayWithoutHeader) {
  ImageBuilder B;
  B.addSet(PI_PROPERTY_SET_DEVICE_GLOBALS, {B.bytes("uid_x", {1, 2, 3})});
  expectRejected(B.finish(), "has no 8-byte size header");
}

TEST(ReadImageMetadata, RejectsDeviceGlobalOfWrongSizeOrRange) {
  ImageBuilder B;
  B.addSet(PI_PROPERTY_SET_DEVICE_GLOBALS,
           {B.bytes("uid_x", {32, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0})});
  expectRejected(B.finish(), "value has 4 bytes, expected 8 or 12");
  ImageBuilder C;
  C.addSet(PI_PROPERTY_SET_DEVICE_GLOBALS,
           {C.bytes("uid_y", {96, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0})});
  expectRejected(C.finish(), "host_access 9 out of range");
}

TEST(ReadImageMetadata, RejectsDeviceGlobalThatIsNotAByteArray) {
  ImageBuilder B;
  B.addSet(PI_PROPERTY_SET_DEVICE_GLOBALS, {B.uint32("uid_x", 4)});
  expectRejected(B.finish(), "expected a byte array");
}

TEST(ReadImageMetadata, RejectsUnnamedSetsPropertiesAndBadTypes) {
  ImageBuilder B;
  B.addSet(PI_PROPERTY_SET_EXPORTED_SYMBOLS, {B.uint32("f", 1)});
  B.Properties[0][0].Name = nullptr;
  expectRejected(B.finish(), "a property has no name");

  ImageBuilder C;
  C.addSet(PI_PROPERTY_SET_EXPORTED_SYMBOLS, {C.uint32("f", 1)});
  C.Properties[0][0].Type = 77;
  expectRejected(C.finish(), "unknown type 77");

  ImageBuilder D;
  D.addSet("x", {});
  D.Sets[0].Name = nullptr;
  expectRejected(D.finish(), "property set 0 has no name");

  ImageBuilder E;
  E.addSet(PI_PROPERTY_SET_PROGRAM_METADATA, {});
  const char Unterminated[3] = {'a', 'b', 'c'};
  E.Properties[0].push_back(
      {E.keep("s"), const_cast<char *>(Unterminated), PI_PROPERTY_TYPE_STRING, 3});
  expectRejected(E.finish(), "not NUL-terminated");
}

TEST(ReadImageMetadata, RejectsInvertedRanges) {
  ImageBuilder B;
  B.addSet(PI_PROPERTY_SET_EXPORTED_SYMBOLS, {B.uint32("f", 1)});
  B.addSet(PI_PROPERTY_SET_IMPORTED_SYMBOLS, {B.uint32("g", 1)});
  _pi_device_binary_struct Image = B.finish();
  Image.PropertySetsBegin = B.Sets.data() + 1; // end before begin
  Image.PropertySetsEnd = B.Sets.data();
  expectRejected(Image, "property set range is invalid");

  _pi_device_binary_struct Half{};
  Half.PropertySetsBegin = B.Sets.data();
  expectRejected(Half, "property set range is invalid");
}

TEST(ReadFlatMetadata, QualifiedNamesLandInTheirSets) {
  char Name1[] = "SYCL/exported symbols/foo";
  char Name2[] = "SYCL/imported symbols/bar";
  char Name3[] = "some-flag";
  _pi_device_binary_property_struct P1{Name1, nullptr, PI_PROPERTY_TYPE_UINT32, 1};
  _pi_device_binary_property_struct P2{Name2, nullptr, PI_PROPERTY_TYPE_UINT32, 1};
  _pi_device_binary_property_struct P3{Name3, nullptr, PI_PROPERTY_TYPE_UINT32, 7};
  pi_device_binary_property List[] = {&P1, &P2, &P3};
  dglink::ImageMetadata Metadata;
  ASSERT_EQ(dglink::readFlatMetadata(3, List, Metadata), PI_SUCCESS);
  EXPECT_EQ(Metadata.Exported, std::vector<std::string>{"foo"});
  EXPECT_EQ(Metadata.Imported, std::vector<std::string>{"bar"});
  EXPECT_EQ(Metadata.RawSets.at(PI_PROPERTY_SET_PROGRAM_METADATA).at("some-flag"),
            (std::vector<uint8_t>{7, 0, 0, 0}));

  pi_device_binary_property WithNull[] = {&P1, nullptr};
  EXPECT_EQ(dglink::readFlatMetadata(2, WithNull, Metadata), PI_ERROR_INVALID_BINARY);
  EXPECT_EQ(dglink::readFlatMetadata(2, nullptr, Metadata), PI_ERROR_INVALID_VALUE);
}

} // namespace
