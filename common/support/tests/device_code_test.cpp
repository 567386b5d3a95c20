// Unit tests of the one rule "image target + format -> what a device takes".
#include <dglink/support/device_code.h>

#include <gtest/gtest.h>

namespace {

using dglink::DeviceCode;

TEST(DeviceCodeRule, NamesEachKindOfImageDglinkMakes) {
  EXPECT_EQ(dglink::deviceCodeOf(PI_DEVICE_BINARY_TARGET_SPIRV64, PI_DEVICE_BINARY_TYPE_SPIRV),
            DeviceCode::SpirV);
  EXPECT_EQ(
      dglink::deviceCodeOf(PI_DEVICE_BINARY_TARGET_SPIRV64, PI_DEVICE_BINARY_TYPE_LLVMIR_BITCODE),
      DeviceCode::Spir);
  EXPECT_EQ(dglink::deviceCodeOf(PI_DEVICE_BINARY_TARGET_NVPTX64, PI_DEVICE_BINARY_TYPE_NATIVE),
            DeviceCode::Ptx);
  EXPECT_EQ(dglink::deviceCodeOf(PI_DEVICE_BINARY_TARGET_AMDGCN, PI_DEVICE_BINARY_TYPE_NATIVE),
            DeviceCode::AmdCodeObject);
  EXPECT_STREQ(dglink::deviceCodeName(DeviceCode::Spir), "spir64");
  EXPECT_STREQ(dglink::deviceCodeName(DeviceCode::SpirV), "spirv64");
  EXPECT_STREQ(dglink::deviceCodeName(DeviceCode::Ptx), "nvptx64");
  EXPECT_STREQ(dglink::deviceCodeName(DeviceCode::AmdCodeObject), "amdgcn");
  EXPECT_STREQ(dglink::deviceCodeName(DeviceCode::Unknown), "");
}

TEST(DeviceCodeRule, PairsNoDeviceTakesAreUnknown) {
  // SPIR-V or bitcode for a native target, native code for spir64, the bytes-tell
  // format, targets dglink does not know, and the empty target.
  EXPECT_EQ(dglink::deviceCodeOf(PI_DEVICE_BINARY_TARGET_NVPTX64, PI_DEVICE_BINARY_TYPE_SPIRV),
            DeviceCode::Unknown);
  EXPECT_EQ(
      dglink::deviceCodeOf(PI_DEVICE_BINARY_TARGET_AMDGCN, PI_DEVICE_BINARY_TYPE_LLVMIR_BITCODE),
      DeviceCode::Unknown);
  EXPECT_EQ(dglink::deviceCodeOf(PI_DEVICE_BINARY_TARGET_SPIRV64, PI_DEVICE_BINARY_TYPE_NATIVE),
            DeviceCode::Unknown);
  EXPECT_EQ(dglink::deviceCodeOf(PI_DEVICE_BINARY_TARGET_SPIRV64, PI_DEVICE_BINARY_TYPE_NONE),
            DeviceCode::Unknown);
  EXPECT_EQ(dglink::deviceCodeOf(PI_DEVICE_BINARY_TARGET_SPIRV64_GEN, PI_DEVICE_BINARY_TYPE_NATIVE),
            DeviceCode::Unknown);
  EXPECT_EQ(dglink::deviceCodeOf("", PI_DEVICE_BINARY_TYPE_SPIRV), DeviceCode::Unknown);
}

TEST(DeviceCodeRule, BytesNameTheSameKinds) {
  EXPECT_EQ(dglink::deviceCodeOf(dglink::ImageFormat::SpirV), DeviceCode::SpirV);
  EXPECT_EQ(dglink::deviceCodeOf(dglink::ImageFormat::LlvmBitcode), DeviceCode::Spir);
  EXPECT_EQ(dglink::deviceCodeOf(dglink::ImageFormat::Ptx), DeviceCode::Ptx);
  EXPECT_EQ(dglink::deviceCodeOf(dglink::ImageFormat::Elf), DeviceCode::AmdCodeObject);
  EXPECT_EQ(dglink::deviceCodeOf(dglink::ImageFormat::Unknown), DeviceCode::Unknown);
}

TEST(DeviceCodeRule, NamesTargetsAndFormatsRoundTrip) {
  for (DeviceCode Code :
       {DeviceCode::Spir, DeviceCode::SpirV, DeviceCode::Ptx, DeviceCode::AmdCodeObject}) {
    EXPECT_EQ(dglink::deviceCodeNamed(dglink::deviceCodeName(Code)), Code);
    EXPECT_EQ(dglink::deviceCodeOf(dglink::targetOf(Code), dglink::formatOf(Code)), Code);
  }
  EXPECT_EQ(dglink::deviceCodeNamed("spir64_gen"), DeviceCode::Unknown);
  EXPECT_EQ(dglink::deviceCodeNamed(""), DeviceCode::Unknown);
  EXPECT_STREQ(dglink::targetOf(DeviceCode::Unknown), PI_DEVICE_BINARY_TARGET_UNKNOWN);
  EXPECT_EQ(dglink::formatOf(DeviceCode::Unknown), PI_DEVICE_BINARY_TYPE_NONE);
}

} // namespace
