// Unit tests of image-format detection and validated property-set reading.
#include <dglink/support/error.h>
#include <dglink/support/image.h>

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <initializer_list>
#include <map>
#include <optional>
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

// ---- Unified Runtime's tagged program metadata (UR's CTS, DPC++'s native images) ----

// A byte array as UR's CTS and DPC++ pass it: an 8-byte size prefix, then Payload.
std::vector<uint8_t> prefixed(uint64_t Prefix, const std::string &Payload) {
  std::vector<uint8_t> Bytes;
  for (int I = 0; I < 8; ++I)
    Bytes.push_back(static_cast<uint8_t>(Prefix >> (8 * I)));
  Bytes.insert(Bytes.end(), Payload.begin(), Payload.end());
  return Bytes;
}

std::string sizes(std::initializer_list<uint32_t> Values) {
  std::string Bytes;
  for (uint32_t Value : Values)
    for (int I = 0; I < 4; ++I)
      Bytes.push_back(static_cast<char>(Value >> (8 * I)));
  return Bytes;
}

pi_result readOne(const std::string &Name, const std::vector<uint8_t> &Value,
                  dglink::ImageMetadata &Metadata,
                  pi_property_type Type = PI_PROPERTY_TYPE_BYTE_ARRAY) {
  std::string KeptName = Name;
  std::vector<uint8_t> KeptValue = Value;
  _pi_device_binary_property_struct Property{KeptName.data(), KeptValue.data(), Type,
                                             KeptValue.size()};
  pi_device_binary_property List[] = {&Property};
  return dglink::readFlatMetadata(1, List, Metadata);
}

TEST(ReadFlatMetadata, GlobalIdMappingWithUrCtsZeroPrefix) {
  // UR's CTS: "_Z7dev_var@global_id_mapping" = 8 zero bytes + "dev_var".
  dglink::ImageMetadata Metadata;
  ASSERT_EQ(readOne("_Z7dev_var@global_id_mapping", prefixed(0, "dev_var"), Metadata), PI_SUCCESS)
      << dglink::lastErrorMessage();
  EXPECT_EQ(Metadata.GlobalIdMapping.at("_Z7dev_var"), "dev_var");
  // DPC++ writes the size in bits; UR's adapters skip the prefix either way. A NUL ends
  // the symbol, as cuModuleGetGlobal reads it.
  dglink::ImageMetadata Dpcpp;
  ASSERT_EQ(
      readOne("uid::a@global_id_mapping", prefixed(8 * 8, std::string("a_sym\0xy", 8)), Dpcpp),
      PI_SUCCESS)
      << dglink::lastErrorMessage();
  EXPECT_EQ(Dpcpp.GlobalIdMapping.at("uid::a"), "a_sym");
}

TEST(ReadFlatMetadata, RequiredGroupSizeOneToThreeDimensions) {
  dglink::ImageMetadata Metadata;
  ASSERT_EQ(
      readOne("_Z8myKernelPi@reqd_work_group_size", prefixed(96, sizes({8, 16, 32})), Metadata),
      PI_SUCCESS)
      << dglink::lastErrorMessage();
  EXPECT_EQ(Metadata.RequiredGroupSizes.at("_Z8myKernelPi"), (std::array<uint32_t, 3>{8, 16, 32}));
  ASSERT_EQ(readOne("k1@reqd_work_group_size", prefixed(0, sizes({4})), Metadata), PI_SUCCESS);
  EXPECT_EQ(Metadata.RequiredGroupSizes.at("k1"), (std::array<uint32_t, 3>{4, 1, 1}));
}

TEST(ReadFlatMetadata, RejectsMalformedTaggedMetadata) {
  dglink::ImageMetadata Metadata;
  EXPECT_EQ(readOne("id@global_id_mapping", {0, 0, 0}, Metadata), PI_ERROR_INVALID_BINARY);
  EXPECT_NE(dglink::lastErrorMessage().find("less than its 8-byte size prefix"), std::string::npos)
      << dglink::lastErrorMessage();
  EXPECT_EQ(readOne("id@global_id_mapping", prefixed(0, ""), Metadata), PI_ERROR_INVALID_BINARY);
  EXPECT_NE(dglink::lastErrorMessage().find("symbol is empty"), std::string::npos)
      << dglink::lastErrorMessage();
  EXPECT_EQ(readOne("@global_id_mapping", prefixed(0, "x"), Metadata), PI_ERROR_INVALID_BINARY);
  EXPECT_NE(dglink::lastErrorMessage().find("no unique id before the tag"), std::string::npos)
      << dglink::lastErrorMessage();
  EXPECT_EQ(readOne("id@global_id_mapping", {1, 0, 0, 0}, Metadata, PI_PROPERTY_TYPE_UINT32),
            PI_ERROR_INVALID_BINARY);
  EXPECT_NE(dglink::lastErrorMessage().find("expected a byte array"), std::string::npos)
      << dglink::lastErrorMessage();
  // UR answers UR_RESULT_ERROR_INVALID_WORK_GROUP_SIZE for anything but 1 to 3 sizes.
  for (const std::string &Bad : {std::string(), sizes({1, 2, 3, 4}), std::string("abcde")}) {
    EXPECT_EQ(readOne("k@reqd_work_group_size", prefixed(0, Bad), Metadata),
              PI_ERROR_INVALID_WORK_GROUP_SIZE)
        << Bad.size() << " bytes";
    EXPECT_NE(dglink::lastErrorMessage().find("expected 1 to 3 32-bit sizes"), std::string::npos)
        << dglink::lastErrorMessage();
  }
  EXPECT_TRUE(Metadata.GlobalIdMapping.empty());
  EXPECT_TRUE(Metadata.RequiredGroupSizes.empty());
}

TEST(ReadImageMetadata, ProgramMetadataSetOfAnImageCarriesTheTags) {
  ImageBuilder B;
  B.addSet(PI_PROPERTY_SET_PROGRAM_METADATA,
           {B.bytes("uid::v@global_id_mapping", prefixed(0, "v_symbol")),
            B.bytes("kern@reqd_work_group_size", prefixed(64, sizes({2, 3})))});
  dglink::ImageMetadata Metadata;
  ASSERT_EQ(dglink::readImageMetadata(B.finish(), Metadata), PI_SUCCESS)
      << dglink::lastErrorMessage();
  EXPECT_EQ(Metadata.GlobalIdMapping.at("uid::v"), "v_symbol");
  EXPECT_EQ(Metadata.RequiredGroupSizes.at("kern"), (std::array<uint32_t, 3>{2, 3, 1}));
}

// ---- images lowered for OpenCL (the DGLINK/ sets) ----

std::vector<uint8_t> withHeader(const std::vector<uint8_t> &Payload) {
  std::vector<uint8_t> Bytes(8, 0);
  const uint64_t Bits = Payload.size() * 8;
  for (int I = 0; I < 8; ++I)
    Bytes[I] = static_cast<uint8_t>(Bits >> (8 * I));
  Bytes.insert(Bytes.end(), Payload.begin(), Payload.end());
  return Bytes;
}

// Little-endian uint64 values, one after the other.
std::vector<uint8_t> le64(std::initializer_list<uint64_t> Values) {
  std::vector<uint8_t> Bytes;
  for (uint64_t Value : Values)
    for (int I = 0; I < 8; ++I)
      Bytes.push_back(static_cast<uint8_t>(Value >> (8 * I)));
  return Bytes;
}

// A lowered image: 64 bytes of storage, "counter" (4 bytes at 8, initial value 7) and
// "table" (16 bytes at 16); Mutate may spoil one piece before the image is finished.
struct LoweredImage {
  uint64_t StorageSize = 64;
  std::string Argument = "last";
  uint64_t CounterOffset = 8;
  uint64_t TableSize = 16;
  std::vector<uint8_t> CounterInit = {7, 0, 0, 0};
  bool WithStorageSet = true;

  const _pi_device_binary_struct &build(ImageBuilder &B) {
    dglink::DeviceGlobalInfo Counter;
    Counter.Size = 4;
    dglink::DeviceGlobalInfo Table;
    Table.Size = 16;
    B.addSet(PI_PROPERTY_SET_DEVICE_GLOBALS,
             {B.bytes("counter", dglink::encodeDeviceGlobalValue(Counter)),
              B.bytes("table", dglink::encodeDeviceGlobalValue(Table))});
    if (WithStorageSet) {
      std::vector<uint8_t> Text(Argument.begin(), Argument.end());
      Text.push_back(0);
      B.Values.reserve(64);
      B.Values.push_back(Text);
      std::vector<uint8_t> &Kept = B.Values.back();
      _pi_device_binary_property_struct ArgumentProperty{B.keep("argument"), Kept.data(),
                                                         PI_PROPERTY_TYPE_STRING, Kept.size()};
      B.addSet(PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_STORAGE,
               {B.bytes("size", withHeader(le64({StorageSize}))), ArgumentProperty});
    }
    B.addSet(PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_OFFSETS,
             {B.bytes("counter", withHeader(le64({CounterOffset, 4}))),
              B.bytes("table", withHeader(le64({16, TableSize})))});
    B.addSet(PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_INITIALIZERS,
             {B.bytes("counter", withHeader(CounterInit))});
    return B.finish();
  }
};

TEST(LoweredStorage, ReadsLayoutAndInitialContents) {
  ImageBuilder B;
  LoweredImage L;
  dglink::ImageMetadata Metadata;
  ASSERT_EQ(dglink::readImageMetadata(L.build(B), Metadata), PI_SUCCESS)
      << dglink::lastErrorMessage();
  ASSERT_TRUE(Metadata.Lowered);
  EXPECT_EQ(Metadata.Lowered->Size, 64u);
  EXPECT_EQ(Metadata.Lowered->Variables.at("table").Offset, 16u);
  const std::vector<uint8_t> Contents = Metadata.Lowered->initialContents();
  ASSERT_EQ(Contents.size(), 64u);
  std::vector<uint8_t> Expected(64, 0);
  Expected[8] = 7;
  EXPECT_EQ(Contents, Expected);
  EXPECT_EQ(dglink::refuseLoweredImage("piextProgramCreateWithImage", Metadata),
            PI_ERROR_INVALID_OPERATION);
  EXPECT_NE(dglink::lastErrorMessage().find("lowered for OpenCL"), std::string::npos);
}

TEST(LoweredStorage, RejectsEveryInconsistency) {
  {
    ImageBuilder B;
    LoweredImage L;
    L.CounterOffset = 62; // 62 + 4 > 64
    expectRejected(L.build(B), "offset 62 + size 4 is past the storage's 64 bytes");
  }
  {
    ImageBuilder B;
    LoweredImage L;
    L.CounterOffset = UINT64_MAX - 1; // the sum overflows
    expectRejected(L.build(B), "is past the storage's 64 bytes");
  }
  {
    ImageBuilder B;
    LoweredImage L;
    L.TableSize = 12; // SYCL/device globals says 16
    expectRejected(L.build(B), "size 12 but 'SYCL/device globals' says 16");
  }
  {
    ImageBuilder B;
    LoweredImage L;
    L.CounterInit = {7, 0}; // 2 bytes for a 4-byte variable
    expectRejected(L.build(B), "2 bytes for a variable of 4");
  }
  {
    ImageBuilder B;
    LoweredImage L;
    L.Argument = "first";
    expectRejected(L.build(B), "property 'argument' must be");
  }
  {
    ImageBuilder B;
    LoweredImage L;
    L.StorageSize = uint64_t(1) << 50;
    expectRejected(L.build(B), "is not plausible");
  }
  {
    ImageBuilder B;
    LoweredImage L;
    L.WithStorageSet = false;
    expectRejected(L.build(B), "without 'DGLINK/device global storage'");
  }
}

dglink::ImageMetadata loweredMetadata(std::map<std::string, std::pair<uint64_t, uint64_t>> Places,
                                      uint64_t Size) {
  dglink::ImageMetadata Metadata;
  Metadata.Lowered.emplace();
  Metadata.Lowered->Size = Size;
  for (const auto &[Id, Place] : Places)
    Metadata.Lowered->Variables[Id] = {Place.first, Place.second, {}, {}};
  return Metadata;
}

// A variable without device_image_scope whose place is 8 bytes holds a pointer to its
// value (usmptr): SYCL/device globals records the value's 16 bytes, as DPC++ does.
TEST(LoweredStorage, UsmptrPlaceIsThePointer) {
  ImageBuilder B;
  LoweredImage L;
  L.TableSize = 8;
  dglink::ImageMetadata Metadata;
  ASSERT_EQ(dglink::readImageMetadata(L.build(B), Metadata), PI_SUCCESS)
      << dglink::lastErrorMessage();
  EXPECT_EQ(Metadata.DeviceGlobals.at("table").Size, 16u);
  EXPECT_EQ(Metadata.Lowered->Variables.at("table").Size, 8u);
}

TEST(LoweredStorage, LinkMergesOneLayout) {
  const dglink::ImageMetadata A = loweredMetadata({{"a", {0, 4}}, {"shared", {8, 8}}}, 32);
  const dglink::ImageMetadata B = loweredMetadata({{"shared", {8, 8}}, {"b", {16, 16}}}, 32);
  dglink::ImageMetadata Plain; // no device globals: links with anything
  std::optional<dglink::LoweredStorage> Out;
  ASSERT_EQ(dglink::mergeLoweredStorage({&A, &B, &Plain}, Out), PI_SUCCESS)
      << dglink::lastErrorMessage();
  ASSERT_TRUE(Out);
  EXPECT_EQ(Out->Size, 32u);
  EXPECT_EQ(Out->Variables.size(), 3u);
  std::optional<dglink::LoweredStorage> None;
  ASSERT_EQ(dglink::mergeLoweredStorage({&Plain}, None), PI_SUCCESS);
  EXPECT_FALSE(None);
}

TEST(LoweredStorage, LinkRefusesOverlapsAndMixedImages) {
  const dglink::ImageMetadata A = loweredMetadata({{"a", {0, 8}}}, 8);
  const dglink::ImageMetadata Other = loweredMetadata({{"other", {4, 4}}}, 8);
  std::optional<dglink::LoweredStorage> Out;
  EXPECT_EQ(dglink::mergeLoweredStorage({&A, &Other}, Out), PI_ERROR_LINK_PROGRAM_FAILURE);
  EXPECT_NE(dglink::lastErrorMessage().find("'a' and 'other' overlap"), std::string::npos)
      << dglink::lastErrorMessage();
  const dglink::ImageMetadata Moved = loweredMetadata({{"a", {8, 8}}}, 16);
  EXPECT_EQ(dglink::mergeLoweredStorage({&A, &Moved}, Out), PI_ERROR_LINK_PROGRAM_FAILURE);
  EXPECT_NE(dglink::lastErrorMessage().find("two places"), std::string::npos);
  dglink::ImageMetadata NotLowered;
  NotLowered.DeviceGlobals["native"] =
      dglink::DeviceGlobalInfo{"native", 4, false, dglink::HostAccess::ReadWrite};
  EXPECT_EQ(dglink::mergeLoweredStorage({&A, &NotLowered}, Out), PI_ERROR_INVALID_OPERATION);
  EXPECT_NE(dglink::lastErrorMessage().find("'native'"), std::string::npos);
  EXPECT_FALSE(Out) << "a refused merge leaves the output alone";
}

} // namespace
