// SPIR-V as DPC++ hands it over: piProgramCreate (through the UR face,
// urProgramCreateWithIL with no properties) with a module and nothing else. Every device
// that lists "spirv64" in PI_EXT_DEVICE_INFO_IMAGE_FORMATS builds and runs it, whether its
// driver takes SPIR-V or the adapter translates it (OpenCL without IL: docs/opencl.md);
// every device refuses a malformed module with PI_ERROR_INVALID_BINARY and a message that
// says what is wrong; and translation adds nothing to what a device says it links.
#include "fixtures.h"

#include <algorithm>
#include <cstring>

namespace dglink::conformance {
namespace {

class SpirvIntake : public QueueTest {
protected:
  // The shim's SPIR-V module of source Name (clang-15 + LLVMSPIRVLib at build time).
  bool moduleOf(const std::string &Name, std::vector<uint8_t> &Out, std::string &WhyNot) {
    const EmbeddedImage *Image = findImage(Name, "spirv64");
    if (Image == nullptr) {
      WhyNot = missingImagesReason("spirv64");
      return false;
    }
    Out.assign(Image->Binary->BinaryStart, Image->Binary->BinaryEnd);
    return true;
  }
  bool buildsSpirV() {
    const std::vector<std::string> Formats = imageFormats();
    return std::find(Formats.begin(), Formats.end(), "spirv64") != Formats.end();
  }
  // Runs fill_pattern of a program made from Module with piProgramCreate.
  void runFillPattern(const std::vector<uint8_t> &Module) {
    ProgramHandle Program;
    ASSERT_PI_SUCCESS(piProgramCreate(Context.get(), Module.data(), Module.size(), Program.out()));
    if (const pi_result Result = piProgramBuild(Program.get(), 1, &Device, "", nullptr, nullptr);
        Result != PI_SUCCESS)
      FAIL() << succeeded("piProgramBuild", Result).message() << "\nbuild log:\n"
             << buildLog(Program.get());
    pi_device_binary_format Format = PI_DEVICE_BINARY_TYPE_NONE;
    EXPECT_PI_SUCCESS(piProgramGetInfo(Program.get(), PI_EXT_PROGRAM_INFO_FORMAT, sizeof(Format),
                                       &Format, nullptr));
    EXPECT_EQ(Format, PI_DEVICE_BINARY_TYPE_SPIRV) << "the program is SPIR-V, however it was built";
    DGLINK_REQUIRE_KERNEL_EXECUTION();
    KernelHandle Kernel;
    ASSERT_NO_FATAL_FAILURE(createKernel(Program.get(), "fill_pattern", Kernel));
    std::vector<int32_t> Values;
    ASSERT_NO_FATAL_FAILURE(runOnBuffer(Kernel.get(), 1024, Values));
    EXPECT_EVERY_ELEMENT(Values, [](size_t I) { return int32_t(I) * 3 + 1; });
  }
};
DGLINK_INSTANTIATE_FOR_DEVICES(SpirvIntake);

TEST_P(SpirvIntake, ModuleWithoutMetadataBuildsAndRuns) {
  if (!buildsSpirV())
    GTEST_SKIP() << "device builds no SPIR-V (PI_EXT_DEVICE_INFO_IMAGE_FORMATS: '"
                 << deviceString(PI_EXT_DEVICE_INFO_IMAGE_FORMATS) << "')";
  std::vector<uint8_t> Module;
  std::string WhyNot;
  if (!moduleOf("pattern", Module, WhyNot))
    GTEST_SKIP() << WhyNot;
  ASSERT_NO_FATAL_FAILURE(runFillPattern(Module));
  // The same module again (an adapter that translates it reuses the translation).
  ASSERT_NO_FATAL_FAILURE(runFillPattern(Module));
}

// Each case: how the real module is spoiled, and what the message must say.
struct Spoiled {
  const char *What;
  const char *Says;
  std::vector<uint8_t> Bytes;
};

void setWord(std::vector<uint8_t> &Bytes, size_t Index, uint32_t Value) {
  std::memcpy(Bytes.data() + Index * 4, &Value, 4);
}
uint32_t wordAt(const std::vector<uint8_t> &Bytes, size_t Index) {
  uint32_t Value;
  std::memcpy(&Value, Bytes.data() + Index * 4, 4);
  return Value;
}

std::vector<Spoiled> spoil(const std::vector<uint8_t> &Module) {
  std::vector<Spoiled> Cases;
  auto Add = [&](const char *What, const char *Says, auto &&Change) {
    std::vector<uint8_t> Bytes = Module;
    Change(Bytes);
    Cases.push_back({What, Says, std::move(Bytes)});
  };
  Add("cut 2 bytes short", "not a whole number of 32-bit words",
      [](std::vector<uint8_t> &B) { B.resize(B.size() - 2); });
  Add("only 12 bytes", "fewer than the 20 of its header",
      [](std::vector<uint8_t> &B) { B.resize(12); });
  Add("header only", "no instructions after its header",
      [](std::vector<uint8_t> &B) { B.resize(20); });
  Add("big-endian", "big-endian", [](std::vector<uint8_t> &B) {
    for (size_t I = 0; I + 4 <= B.size(); I += 4)
      std::reverse(B.begin() + static_cast<long>(I), B.begin() + static_cast<long>(I) + 4);
  });
  Add("version 2.0", "version word 0x00020000",
      [](std::vector<uint8_t> &B) { setWord(B, 1, 0x00020000u); });
  Add("id bound 0", "id bound (word 3) is 0", [](std::vector<uint8_t> &B) { setWord(B, 3, 0); });
  Add("id bound 2^31", "beyond SPIR-V's limit",
      [](std::vector<uint8_t> &B) { setWord(B, 3, 0x80000000u); });
  Add("id bound 2", "outside the bound 1 to 1", [](std::vector<uint8_t> &B) { setWord(B, 3, 2); });
  Add("schema 7", "schema (word 4) is 7", [](std::vector<uint8_t> &B) { setWord(B, 4, 7); });
  Add("first instruction of 0 words", "word count of 0",
      [](std::vector<uint8_t> &B) { setWord(B, 5, wordAt(B, 5) & 0xFFFFu); });
  Add("first instruction of 65535 words", "65535 words but only",
      [](std::vector<uint8_t> &B) { setWord(B, 5, (wordAt(B, 5) & 0xFFFFu) | 0xFFFF0000u); });
  return Cases;
}

TEST_P(SpirvIntake, MalformedModulesAreInvalidBinariesOnEveryDevice) {
  std::vector<uint8_t> Module;
  std::string WhyNot;
  if (!moduleOf("pattern", Module, WhyNot))
    GTEST_SKIP() << WhyNot;
  for (const Spoiled &Case : spoil(Module)) {
    SCOPED_TRACE(Case.What);
    pi_program Program = nullptr;
    EXPECT_PI_ERROR_NAMING(
        PI_ERROR_INVALID_BINARY, Case.Says,
        piProgramCreate(Context.get(), Case.Bytes.data(), Case.Bytes.size(), &Program));
    EXPECT_PI_ERROR_NAMING(
        PI_ERROR_INVALID_BINARY, "SPIR-V module is malformed",
        piProgramCreate(Context.get(), Case.Bytes.data(), Case.Bytes.size(), &Program));
    EXPECT_EQ(Program, nullptr);
  }
  // Nothing was changed by the refusals: the module itself still builds and runs where
  // SPIR-V does.
  if (!buildsSpirV() || !executesKernels())
    return;
  ASSERT_NO_FATAL_FAILURE(runFillPattern(Module));
}

TEST_P(SpirvIntake, TranslationAddsNothingToWhatTheDeviceLinks) {
  // A device whose driver takes no IL may build SPIR-V (translated), but it does not
  // claim to take IL or to link SPIR-V.
  if (deviceString(PI_DEVICE_INFO_IL_VERSION).find("SPIR-V") != std::string::npos)
    GTEST_SKIP() << "the device's driver takes SPIR-V (PI_DEVICE_INFO_IL_VERSION '"
                 << deviceString(PI_DEVICE_INFO_IL_VERSION) << "')";
  const std::vector<std::string> Links = linkFormats();
  EXPECT_EQ(std::find(Links.begin(), Links.end(), "spirv64"), Links.end());
  EXPECT_FALSE(hasExtension(PI_EXT_SPIRV64_LINKING));
  EXPECT_FALSE(hasExtension("cl_khr_il_program"));
}

} // namespace
} // namespace dglink::conformance
