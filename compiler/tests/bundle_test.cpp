// Unit tests of the bundle format: round trips, the pi_device_binaries view, and
// malformed files (truncations, bad offsets, huge counts, unterminated strings,
// wrong magic or version), each with its exact error.
#include "bundle_test_util.h"

#include <dglink/support/error.h>
#include <dglink/support/image.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

using dglink::Bundle;
using dglink::BundleImage;
using dglink::BundleProperty;

using dglink::test::patch32;
using dglink::test::patch64;
using dglink::test::read32;
using dglink::test::read64;
using dglink::test::sampleBundle;

std::string readError(const std::vector<uint8_t> &Bytes) {
  Bundle Out;
  const pi_result Result = dglink::readBundle(Bytes.data(), Bytes.size(), Out);
  EXPECT_EQ(Result, PI_ERROR_INVALID_BINARY);
  return dglink::lastErrorMessage();
}

TEST(Bundle, RoundTripKeepsEveryField) {
  const Bundle Input = sampleBundle();
  const std::vector<uint8_t> Bytes = dglink::writeBundle(Input);
  Bundle Out;
  ASSERT_EQ(dglink::readBundle(Bytes.data(), Bytes.size(), Out), PI_SUCCESS)
      << dglink::lastErrorMessage();
  ASSERT_EQ(Out.Images.size(), 2u);
  for (size_t I = 0; I < 2; ++I) {
    const BundleImage &A = Input.Images[I];
    const BundleImage &B = Out.Images[I];
    EXPECT_EQ(A.Name, B.Name);
    EXPECT_EQ(A.Target, B.Target);
    EXPECT_EQ(A.Format, B.Format);
    EXPECT_EQ(A.CompileOptions, B.CompileOptions);
    EXPECT_EQ(A.LinkOptions, B.LinkOptions);
    EXPECT_EQ(A.Binary, B.Binary);
    EXPECT_EQ(A.Entries, B.Entries);
    ASSERT_EQ(A.PropertySets.size(), B.PropertySets.size());
    for (size_t S = 0; S < A.PropertySets.size(); ++S) {
      EXPECT_EQ(A.PropertySets[S].Name, B.PropertySets[S].Name);
      ASSERT_EQ(A.PropertySets[S].Properties.size(), B.PropertySets[S].Properties.size());
      for (size_t P = 0; P < A.PropertySets[S].Properties.size(); ++P) {
        const BundleProperty &X = A.PropertySets[S].Properties[P];
        const BundleProperty &Y = B.PropertySets[S].Properties[P];
        EXPECT_EQ(X.Name, Y.Name);
        EXPECT_EQ(X.Type, Y.Type);
        EXPECT_EQ(X.ValSize, Y.ValSize);
        EXPECT_EQ(X.Value, Y.Value);
      }
    }
  }
  // Writing what was read gives the same bytes.
  EXPECT_EQ(dglink::writeBundle(Out), Bytes);
}

TEST(Bundle, EmptyBundleRoundTrips) {
  const std::vector<uint8_t> Bytes = dglink::writeBundle(Bundle{});
  EXPECT_EQ(Bytes.size(), 48u);
  Bundle Out;
  Out.Images.resize(3);
  ASSERT_EQ(dglink::readBundle(Bytes.data(), Bytes.size(), Out), PI_SUCCESS);
  EXPECT_TRUE(Out.Images.empty());
}

TEST(Bundle, FileRoundTripAndMissingFile) {
  const std::string Path = ::testing::TempDir() + "/dglink_bundle_test.bundle";
  ASSERT_EQ(dglink::writeBundleFile(Path, sampleBundle()), PI_SUCCESS);
  Bundle Out;
  ASSERT_EQ(dglink::readBundleFile(Path, Out), PI_SUCCESS) << dglink::lastErrorMessage();
  EXPECT_EQ(Out.Images.size(), 2u);
  std::remove(Path.c_str());
  EXPECT_EQ(dglink::readBundleFile(Path, Out), PI_ERROR_INVALID_VALUE);
  EXPECT_EQ(dglink::lastErrorMessage(), "cannot open bundle '" + Path + "'");
}

TEST(Bundle, DeviceBinariesLayoutIsWhatAdaptersRead) {
  dglink::DeviceBinaries View(sampleBundle());
  pi_device_binaries Binaries = View.get();
  ASSERT_EQ(Binaries->Version, PI_DEVICE_BINARIES_VERSION);
  ASSERT_EQ(Binaries->NumDeviceBinaries, 2);
  const _pi_device_binary_struct &Image = Binaries->DeviceBinaries[0];
  EXPECT_EQ(Image.Version, PI_DEVICE_BINARY_VERSION);
  EXPECT_EQ(Image.Kind, PI_DEVICE_BINARY_OFFLOAD_KIND_SYCL);
  EXPECT_EQ(Image.Format, PI_DEVICE_BINARY_TYPE_SPIRV);
  EXPECT_STREQ(Image.DeviceTargetSpec, "spir64");
  EXPECT_STREQ(Image.CompileOptions, "-cl-std=CL2.0");
  EXPECT_EQ(Image.BinaryEnd - Image.BinaryStart, 8);
  ASSERT_EQ(Image.EntriesEnd - Image.EntriesBegin, 2);
  EXPECT_STREQ(Image.EntriesBegin[1].name, "write_counter");

  dglink::ImageMetadata Metadata;
  ASSERT_EQ(dglink::readImageMetadata(Image, Metadata), PI_SUCCESS) << dglink::lastErrorMessage();
  EXPECT_EQ(Metadata.Exported, std::vector<std::string>{"helper"});
  EXPECT_EQ(Metadata.Imported, std::vector<std::string>{"library_function"});
  ASSERT_EQ(Metadata.DeviceGlobals.count("counter_uid"), 1u);
  const dglink::DeviceGlobalInfo &Counter = Metadata.DeviceGlobals["counter_uid"];
  EXPECT_EQ(Counter.Size, 4u);
  EXPECT_FALSE(Counter.DeviceImageScope);
  EXPECT_EQ(Counter.Access, dglink::HostAccess::Read);
  EXPECT_EQ(Metadata.RawSets["SYCL/device global symbols"]["counter_uid"],
            (std::vector<uint8_t>{'c', 'o', 'u', 'n', 't', 'e', 'r'}));
}

TEST(Bundle, PropertyHelpersUseTheAbiEncoding) {
  const BundleProperty Flag = BundleProperty::uint32("f", 7);
  EXPECT_EQ(Flag.Type, PI_PROPERTY_TYPE_UINT32);
  EXPECT_EQ(Flag.ValSize, 7u);
  EXPECT_TRUE(Flag.Value.empty());
  const BundleProperty Text = BundleProperty::string("s", "ab");
  EXPECT_EQ(Text.Value, (std::vector<uint8_t>{'a', 'b', 0}));
  EXPECT_EQ(Text.ValSize, 3u);
  const BundleProperty Bytes = BundleProperty::byteArray("b", {1, 2, 3});
  EXPECT_EQ(Bytes.Value, (std::vector<uint8_t>{24, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3}));
  EXPECT_EQ(Bytes.ValSize, 11u);
}

TEST(BundleMalformed, TooShortForTheHeader) {
  std::vector<uint8_t> Bytes = dglink::writeBundle(sampleBundle());
  Bytes.resize(47);
  EXPECT_EQ(readError(Bytes), "bundle: 47 bytes is shorter than the 48-byte header");
  Bundle Out;
  EXPECT_EQ(dglink::readBundle(nullptr, 0, Out), PI_ERROR_INVALID_BINARY);
  EXPECT_EQ(dglink::readBundle(nullptr, 10, Out), PI_ERROR_INVALID_VALUE);
}

TEST(BundleMalformed, WrongMagic) {
  std::vector<uint8_t> Bytes = dglink::writeBundle(sampleBundle());
  Bytes[0] = 'X';
  EXPECT_EQ(readError(Bytes), "bundle: wrong magic (not a dglink bundle)");
}

TEST(BundleMalformed, WrongVersion) {
  std::vector<uint8_t> Bytes = dglink::writeBundle(sampleBundle());
  patch32(Bytes, 8, 2);
  EXPECT_EQ(readError(Bytes), "bundle: version 2 is not supported (this reader reads version 1)");
}

TEST(BundleMalformed, EveryTruncationIsRejected) {
  const std::vector<uint8_t> Bytes = dglink::writeBundle(sampleBundle());
  for (size_t Length = 0; Length < Bytes.size(); ++Length) {
    std::vector<uint8_t> Prefix(Bytes.begin(), Bytes.begin() + Length);
    Bundle Out;
    ASSERT_EQ(dglink::readBundle(Prefix.data(), Prefix.size(), Out), PI_ERROR_INVALID_BINARY)
        << Length;
  }
  std::vector<uint8_t> Truncated(Bytes.begin(), Bytes.end() - 1);
  EXPECT_EQ(readError(Truncated),
            fmt::format("bundle header: file size field says {} bytes but {} were given "
                        "(truncated?)",
                        Bytes.size(), Bytes.size() - 1));
}

TEST(BundleMalformed, BinaryOffsetPastTheEnd) {
  std::vector<uint8_t> Bytes = dglink::writeBundle(sampleBundle());
  const uint64_t Size = Bytes.size();
  patch64(Bytes, 48 + 24, Size - 4); // image 0's binary offset: 8 bytes from 4 before the end
  EXPECT_EQ(readError(Bytes),
            fmt::format("image 0 ('counter'): binary: 8 bytes at offset {} run past the end of "
                        "the {}-byte bundle",
                        Size - 4, Size));
  // An offset plus size that wraps around 64 bits is caught as well.
  patch64(Bytes, 48 + 24, 16);
  patch64(Bytes, 48 + 32, ~uint64_t(0) - 8);
  EXPECT_NE(readError(Bytes).find("image 0 ('counter'): binary:"), std::string::npos);
}

TEST(BundleMalformed, HugeCountsAreRejectedBeforeAllocating) {
  std::vector<uint8_t> Bytes = dglink::writeBundle(sampleBundle());
  std::vector<uint8_t> Images = Bytes;
  patch32(Images, 16, 0xFFFF);
  EXPECT_EQ(readError(Images),
            fmt::format("bundle header: image table: 65535 records of 64 bytes at offset 48 do "
                        "not fit in the {}-byte bundle",
                        Bytes.size()));
  patch32(Images, 16, 0x10000);
  EXPECT_EQ(readError(Images), "bundle header: 65536 images, at most 65535 are allowed");

  std::vector<uint8_t> Entries = Bytes;
  patch32(Entries, 48 + 20, 0xFFFFFFFF);
  EXPECT_NE(readError(Entries).find("image 0 ('counter'): entry table: 4294967295 records of 4 "
                                    "bytes"),
            std::string::npos);

  std::vector<uint8_t> Sets = Bytes;
  patch32(Sets, 48 + 56, 0xFFFFFFFF);
  EXPECT_NE(readError(Sets).find("image 0 ('counter'): property set table: 4294967295 records"),
            std::string::npos);
}

TEST(BundleMalformed, PropertyCountTooLarge) {
  std::vector<uint8_t> Bytes = dglink::writeBundle(sampleBundle());
  const uint64_t SetTable = read64(Bytes, 48 + 48);
  patch32(Bytes, SetTable + 4, 0x7FFFFFFF);
  EXPECT_NE(readError(Bytes).find("image 0 ('counter'), property set 'SYCL/device globals': "
                                  "property table: 2147483647 records of 24 bytes"),
            std::string::npos);
}

TEST(BundleMalformed, StringReferenceOutsideTheTable) {
  std::vector<uint8_t> Bytes = dglink::writeBundle(sampleBundle());
  const uint64_t StringsSize = read64(Bytes, 32);
  patch32(Bytes, 48 + 4, static_cast<uint32_t>(StringsSize));
  EXPECT_EQ(readError(Bytes),
            fmt::format("image 0 ('counter'): target: string reference {} is outside the {}-byte "
                        "string table",
                        StringsSize, StringsSize));
}

TEST(BundleMalformed, UnterminatedString) {
  std::vector<uint8_t> Bytes = dglink::writeBundle(sampleBundle());
  // The string table ends with the last string's NUL: overwrite it.
  Bytes.back() = 'x';
  const std::string Message = readError(Bytes);
  EXPECT_NE(Message.find("is not NUL-terminated within the string table"), std::string::npos)
      << Message;
}

TEST(BundleMalformed, StringTablePastTheEnd) {
  std::vector<uint8_t> Bytes = dglink::writeBundle(sampleBundle());
  patch64(Bytes, 32, read64(Bytes, 32) + 1);
  EXPECT_NE(readError(Bytes).find("bundle header: string table:"), std::string::npos);
}

TEST(BundleMalformed, UnknownFormatAndPropertyType) {
  std::vector<uint8_t> Bytes = dglink::writeBundle(sampleBundle());
  std::vector<uint8_t> Format = Bytes;
  patch32(Format, 48 + 16, 9);
  EXPECT_EQ(readError(Format), "image 0 ('counter'): unknown format 9");

  std::vector<uint8_t> Type = Bytes;
  const uint64_t SetTable = read64(Type, 48 + 48);
  const uint64_t Properties = read64(Type, SetTable + 8);
  patch32(Type, Properties + 4, 77);
  EXPECT_EQ(readError(Type), "image 0 ('counter'), property set 'SYCL/device globals', "
                             "property 'counter_uid': unknown type 77");
}

TEST(BundleMalformed, DeviceGlobalValueIsDecodedLikeAnAdapter) {
  std::vector<uint8_t> Bytes = dglink::writeBundle(sampleBundle());
  const uint64_t SetTable = read64(Bytes, 48 + 48);
  const uint64_t Properties = read64(Bytes, SetTable + 8);
  const uint64_t Value = read64(Bytes, Properties + 8);
  // host_access (third uint32 after the 8-byte header) out of range.
  patch32(Bytes, Value + 8 + 8, 4);
  EXPECT_EQ(readError(Bytes), "image 0 ('counter'): property set 'SYCL/device globals', property "
                              "'counter_uid': device_image_scope 0 / host_access 4 out of range");
  // A byte-array header that disagrees with its size.
  patch32(Bytes, Value + 8 + 8, 0);
  patch64(Bytes, Value, 13 * 8);
  EXPECT_EQ(readError(Bytes), "image 0 ('counter'): property set 'SYCL/device globals', property "
                              "'counter_uid': byte array header says 104 bits but 12 bytes follow");
}

TEST(BundleMalformed, StringValueWithoutNul) {
  Bundle Input = sampleBundle();
  BundleProperty &Symbol = Input.Images[0].PropertySets[3].Properties[0];
  ASSERT_EQ(Symbol.Type, PI_PROPERTY_TYPE_STRING);
  Symbol.Value.back() = 'x';
  const std::vector<uint8_t> Bytes = dglink::writeBundle(Input);
  EXPECT_EQ(readError(Bytes), "image 0 ('counter'): property set 'SYCL/device global symbols', "
                              "property 'counter_uid': string value is not NUL-terminated within "
                              "its 8 bytes");
}

TEST(BundleMalformed, UintValueWithAnOffset) {
  std::vector<uint8_t> Bytes = dglink::writeBundle(sampleBundle());
  const uint64_t SetTable = read64(Bytes, 48 + 48);
  const uint64_t Exported = read64(Bytes, SetTable + 16 + 8);
  patch64(Bytes, Exported + 8, 16);
  EXPECT_EQ(readError(Bytes), "image 0 ('counter'), property set 'SYCL/exported symbols', "
                              "property 'helper': UINT32 value 1 (offset 16) is not a 32-bit "
                              "value kept in the size");
}

TEST(BundleMalformed, RepeatedNames) {
  Bundle Input = sampleBundle();
  Input.Images[0].PropertySets[1].Name = Input.Images[0].PropertySets[0].Name;
  EXPECT_EQ(readError(dglink::writeBundle(Input)),
            "image 0 ('counter'): property set 'SYCL/device globals' appears twice");
  Input = sampleBundle();
  Input.Images[0].PropertySets[1].Properties.push_back(BundleProperty::uint32("helper", 1));
  EXPECT_EQ(readError(dglink::writeBundle(Input)),
            "image 0 ('counter'), property set 'SYCL/exported symbols', property 'helper': empty "
            "or repeated property name");
}

TEST(BundleMalformed, ReservedFieldsMustBeZero) {
  std::vector<uint8_t> Bytes = dglink::writeBundle(sampleBundle());
  std::vector<uint8_t> Header = Bytes;
  patch32(Header, 12, 1);
  EXPECT_EQ(readError(Header), "bundle header: reserved fields are not zero");
  patch32(Bytes, 48 + 60, 1);
  EXPECT_EQ(readError(Bytes), "image 0 ('counter'): reserved field is not zero");
  EXPECT_EQ(read32(Bytes, 8), 1u);
}

} // namespace
