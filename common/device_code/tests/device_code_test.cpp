// Unit tests of common/device_code: the SPIR-V module check (each refusal's exact
// message), the translation cache (hits, bounds, eviction, threads) and the translation
// of a real module (made at build time by clang-15 and llvm-spirv-15) into SPIR bitcode
// (into PTX: ptx_translation_test.cpp).
#include <dglink/device_code/spirv_module.h>
#include <dglink/device_code/spirv_specialize.h>
#include <dglink/device_code/translate.h>
#include <dglink/support/error.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <thread>
#include <vector>

namespace dglink::device_code {
namespace {

std::vector<uint8_t> moduleFile(const char *Path) {
  std::ifstream In(Path, std::ios::binary);
  return {std::istreambuf_iterator<char>(In), std::istreambuf_iterator<char>()};
}
std::vector<uint8_t> realModule() { return moduleFile(DGLINK_DEVICE_CODE_TEST_SPIRV); }

void setWord(std::vector<uint8_t> &Bytes, size_t Index, uint32_t Value) {
  std::memcpy(Bytes.data() + Index * 4, &Value, 4);
}

std::string refusal(const std::vector<uint8_t> &Bytes) {
  EXPECT_EQ(checkSpirvModule("f", Bytes.data(), Bytes.size()), PI_ERROR_INVALID_BINARY);
  return lastErrorMessage();
}

TEST(SpirvModuleCheck, AcceptsWhatLlvmSpirvWrites) {
  const std::vector<uint8_t> Module = realModule();
  ASSERT_GT(Module.size(), 20u) << "missing " << DGLINK_DEVICE_CODE_TEST_SPIRV;
  EXPECT_EQ(checkSpirvModule("f", Module.data(), Module.size()), PI_SUCCESS) << lastErrorMessage();
}

TEST(SpirvModuleCheck, RefusesEachMalformationWithItsMessage) {
  const std::vector<uint8_t> Module = realModule();
  ASSERT_GT(Module.size(), 40u);
  const std::string Prefix = "f: the SPIR-V module is malformed: ";
  EXPECT_EQ(checkSpirvModule("f", nullptr, 20), PI_ERROR_INVALID_BINARY);
  EXPECT_EQ(lastErrorMessage(), Prefix + "no bytes (null pointer)");
  std::vector<uint8_t> B(Module.begin(), Module.end() - 1);
  EXPECT_EQ(refusal(B), Prefix + "its size, " + std::to_string(Module.size() - 1) +
                            " bytes, is not a whole number of 32-bit words");
  B.assign(Module.begin(), Module.begin() + 16);
  EXPECT_EQ(refusal(B), Prefix + "it has 16 bytes, fewer than the 20 of its header");
  B.assign(Module.begin(), Module.begin() + 20);
  EXPECT_EQ(refusal(B), Prefix + "it has no instructions after its header");
  B = Module;
  setWord(B, 0, 0x12345678u);
  EXPECT_EQ(refusal(B), Prefix + "its magic number is 0x12345678, not 0x07230203");
  setWord(B, 0, 0x03022307u);
  EXPECT_EQ(refusal(B),
            Prefix + "it is big-endian (magic number 0x03022307), which is not read here");
  B = Module;
  setWord(B, 1, 0x00010700u);
  EXPECT_EQ(refusal(B), Prefix + "its version word 0x00010700 is no SPIR-V version (1.0 to 1.6)");
  B = Module;
  setWord(B, 3, 0);
  EXPECT_EQ(refusal(B), Prefix + "its id bound (word 3) is 0");
  setWord(B, 3, 0x400001u);
  EXPECT_EQ(refusal(B), Prefix + "its id bound 4194305 is beyond SPIR-V's limit of 4194303 ids");
  B = Module;
  setWord(B, 4, 3);
  EXPECT_EQ(refusal(B), Prefix + "its schema (word 4) is 3, not 0");
  B = Module;
  uint32_t First;
  std::memcpy(&First, B.data() + 20, 4);
  setWord(B, 5, First & 0xFFFFu);
  EXPECT_EQ(refusal(B), Prefix + "the instruction at word 5 (opcode " +
                            std::to_string(First & 0xFFFFu) + ") has a word count of 0");
  setWord(B, 5, (First & 0xFFFFu) | 0xFFFF0000u);
  EXPECT_EQ(refusal(B), Prefix + "the instruction at word 5 (opcode " +
                            std::to_string(First & 0xFFFFu) + ") has 65535 words but only " +
                            std::to_string(Module.size() / 4 - 5) + " remain");
  // Every id the module defines is at least 1: a bound of 1 leaves none.
  B = Module;
  setWord(B, 3, 1);
  EXPECT_NE(refusal(B).find("outside the bound 1 to 0"), std::string::npos) << lastErrorMessage();
}

TEST(SpirvModuleCheck, RefusesAnIdDefinedTwiceAndAMissingMemoryModel) {
  // OpCapability Addresses; OpMemoryModel Physical64 OpenCL; OpTypeInt %1 32 0 (twice).
  std::vector<uint32_t> Words = {SpirvMagic, 0x00010000u, 0, 3,  0, 0x00020011u, 4, 0x0003000Eu, 2,
                                 2,          0x00040015u, 1, 32, 0, 0x00040015u, 1, 32,          0};
  std::vector<uint8_t> B(Words.size() * 4);
  std::memcpy(B.data(), Words.data(), B.size());
  EXPECT_EQ(refusal(B), "f: the SPIR-V module is malformed: the instruction at word 14 (opcode 21) "
                        "defines id 1 a second time");
  Words[7] = 0x00030000u; // the memory model becomes an OpNop of 3 words
  Words.resize(14);
  B.resize(Words.size() * 4);
  std::memcpy(B.data(), Words.data(), B.size());
  EXPECT_EQ(refusal(B),
            "f: the SPIR-V module is malformed: it has 0 OpMemoryModel instructions, not "
            "exactly one");
}

TEST(SpirvModuleCheck, RefusesFunctionsLeftOpenOrNested) {
  const std::vector<uint8_t> Module = realModule();
  // The module ends with the OpFunctionEnd of its kernel: without it the kernel is open.
  std::vector<uint8_t> B(Module.begin(), Module.end() - 4);
  EXPECT_NE(refusal(B).find("has no OpFunctionEnd"), std::string::npos) << lastErrorMessage();
  // An OpFunctionEnd more than functions.
  B = Module;
  B.insert(B.end(), {56, 0, 1, 0});
  EXPECT_NE(refusal(B).find("ends no function"), std::string::npos) << lastErrorMessage();
}

TEST(TranslationCache, FindsWhatWasKeptForThatTargetOnly) {
  TranslationCache Cache;
  const std::vector<uint8_t> In = {1, 2, 3, 4};
  const Bytes Out = std::make_shared<std::vector<uint8_t>>(std::vector<uint8_t>{9, 9});
  EXPECT_EQ(Cache.find(In.data(), In.size(), DeviceCode::Spir), nullptr);
  Cache.insert(In.data(), In.size(), DeviceCode::Spir, Out);
  EXPECT_EQ(Cache.find(In.data(), In.size(), DeviceCode::Spir), Out);
  EXPECT_EQ(Cache.find(In.data(), In.size(), DeviceCode::Ptx), nullptr);
  const std::vector<uint8_t> Other = {1, 2, 3, 5};
  EXPECT_EQ(Cache.find(Other.data(), Other.size(), DeviceCode::Spir), nullptr);
  const TranslationCache::Counters Seen = Cache.counters();
  EXPECT_EQ(Seen.Entries, 1u);
  EXPECT_EQ(Seen.Bytes, 6u);
  EXPECT_EQ(Seen.Hits, 1u);
  EXPECT_EQ(Seen.Misses, 3u);
}

TEST(TranslationCache, DropsTheLeastRecentlyUsedBeyondItsBounds) {
  TranslationCache Cache({2, 100});
  const Bytes Out = std::make_shared<std::vector<uint8_t>>(10, 0);
  const std::vector<uint8_t> A(10, 'a'), B(10, 'b'), C(10, 'c');
  Cache.insert(A.data(), A.size(), DeviceCode::Spir, Out);
  Cache.insert(B.data(), B.size(), DeviceCode::Spir, Out);
  EXPECT_NE(Cache.find(A.data(), A.size(), DeviceCode::Spir), nullptr); // A is now the newest
  Cache.insert(C.data(), C.size(), DeviceCode::Spir, Out);              // B goes
  EXPECT_EQ(Cache.find(B.data(), B.size(), DeviceCode::Spir), nullptr);
  EXPECT_NE(Cache.find(A.data(), A.size(), DeviceCode::Spir), nullptr);
  EXPECT_NE(Cache.find(C.data(), C.size(), DeviceCode::Spir), nullptr);
  EXPECT_EQ(Cache.counters().Evictions, 1u);
  // Bytes: an entry of 60 bytes leaves room for one of 40 at most.
  const std::vector<uint8_t> Big(50, 'x');
  Cache.insert(Big.data(), Big.size(), DeviceCode::Spir, Out);
  EXPECT_EQ(Cache.counters().Entries, 2u);
  EXPECT_LE(Cache.counters().Bytes, 100u);
  // One larger than the whole bound is not kept.
  const std::vector<uint8_t> Huge(200, 'h');
  Cache.insert(Huge.data(), Huge.size(), DeviceCode::Spir, Out);
  EXPECT_EQ(Cache.find(Huge.data(), Huge.size(), DeviceCode::Spir), nullptr);
}

TEST(TranslationCache, ServesManyThreadsAtOnce) {
  TranslationCache Cache({16, 1 << 20});
  std::atomic<size_t> Wrong{0};
  std::vector<std::thread> Threads;
  for (int T = 0; T < 8; ++T)
    Threads.emplace_back([&Cache, &Wrong, T] {
      for (int I = 0; I < 2000; ++I) {
        const std::vector<uint8_t> In = {static_cast<uint8_t>((I + T) % 32), 7};
        const Bytes Out = std::make_shared<std::vector<uint8_t>>(1, In[0]);
        if (Bytes Found = Cache.find(In.data(), In.size(), DeviceCode::Spir))
          Wrong += (*Found)[0] != In[0];
        Cache.insert(In.data(), In.size(), DeviceCode::Spir, Out);
      }
    });
  for (std::thread &Thread : Threads)
    Thread.join();
  EXPECT_EQ(Wrong.load(), 0u);
  EXPECT_LE(Cache.counters().Entries, 16u);
}

// The literal words of the OpSpecConstant* decorated with SpecId Id (its opcode first).
std::vector<uint32_t> specConstantWords(const std::vector<uint8_t> &Module, uint32_t Id) {
  const auto Word = [&Module](size_t Index) {
    uint32_t Value;
    std::memcpy(&Value, Module.data() + Index * 4, 4);
    return Value;
  };
  uint32_t Result = 0;
  for (size_t At = 5; At < Module.size() / 4; At += Word(At) >> 16)
    if ((Word(At) & 0xFFFF) == 71 && Word(At + 2) == 1 && Word(At + 3) == Id)
      Result = Word(At + 1);
  for (size_t At = 5; At < Module.size() / 4; At += Word(At) >> 16) {
    const uint32_t Op = Word(At) & 0xFFFF;
    if (Op >= 48 && Op <= 50 && Word(At + 2) == Result) {
      std::vector<uint32_t> Words{Op};
      for (size_t I = At + 3; I < At + (Word(At) >> 16); ++I)
        Words.push_back(Word(I));
      return Words;
    }
  }
  return {};
}

std::vector<uint8_t> bytesOf(uint64_t Value, size_t Size) {
  std::vector<uint8_t> Bytes(Size);
  std::memcpy(Bytes.data(), &Value, Size);
  return Bytes;
}

TEST(SpirvSpecialization, ConstantsAreFoundAndSetInTheirWords) {
  const std::vector<uint8_t> Module = moduleFile(DGLINK_DEVICE_CODE_TEST_SPEC_SPIRV);
  ASSERT_GT(Module.size(), 20u) << "missing " << DGLINK_DEVICE_CODE_TEST_SPEC_SPIRV;
  ASSERT_EQ(checkSpirvModule("f", Module.data(), Module.size()), PI_SUCCESS);
  EXPECT_EQ(spirvSpecConstants(Module.data(), Module.size()),
            (std::map<uint32_t, size_t>{{0, 4}, {1, 8}, {2, 1}, {3, 2}}));
  EXPECT_EQ(specConstantWords(Module, 0), (std::vector<uint32_t>{50, 1000}));
  EXPECT_EQ(specConstantWords(Module, 2), (std::vector<uint32_t>{49}));

  std::vector<uint8_t> Out;
  ASSERT_EQ(specializeSpirv("f", Module.data(), Module.size(),
                            {{0, bytesOf(42, 4)},
                             {1, bytesOf(0x1122334455667788ull, 8)},
                             {2, {1}},
                             {3, bytesOf(static_cast<uint16_t>(-3), 2)}},
                            Out),
            PI_SUCCESS)
      << lastErrorMessage();
  ASSERT_EQ(Out.size(), Module.size());
  EXPECT_EQ(checkSpirvModule("f", Out.data(), Out.size()), PI_SUCCESS);
  EXPECT_EQ(specConstantWords(Out, 0), (std::vector<uint32_t>{50, 42}));
  EXPECT_EQ(specConstantWords(Out, 1), (std::vector<uint32_t>{50, 0x55667788u, 0x11223344u}));
  EXPECT_EQ(specConstantWords(Out, 2), (std::vector<uint32_t>{48}));
  // A 16-bit literal fills the low half of its word; OpenCL's integer types carry no
  // signedness (0), so the high half is zero, as SPIR-V requires then.
  EXPECT_EQ(specConstantWords(Out, 3), (std::vector<uint32_t>{50, 0x0000FFFDu}));
  // Only the words of the constants changed.
  size_t Changed = 0;
  for (size_t I = 0; I < Module.size(); ++I)
    Changed += Module[I] != Out[I];
  EXPECT_LE(Changed, 4u + 8u + 1u + 4u);
}

TEST(SpirvSpecialization, UnknownIdsAndWrongSizesAreRefused) {
  const std::vector<uint8_t> Module = moduleFile(DGLINK_DEVICE_CODE_TEST_SPEC_SPIRV);
  std::vector<uint8_t> Out{9};
  EXPECT_EQ(specializeSpirv("f", Module.data(), Module.size(), {{999, bytesOf(1, 4)}}, Out),
            PI_ERROR_INVALID_SPEC_ID);
  EXPECT_EQ(lastErrorMessage(),
            "f: the SPIR-V module has no specialization constant with SpecId 999");
  EXPECT_EQ(specializeSpirv("f", Module.data(), Module.size(), {{1, bytesOf(1, 4)}}, Out),
            PI_ERROR_INVALID_VALUE);
  EXPECT_EQ(lastErrorMessage(),
            "f: specialization constant 1 has 8 bytes in the module, the value 4");
  EXPECT_EQ(Out, std::vector<uint8_t>{9}) << "a refused specialization wrote its output";
  EXPECT_TRUE(spirvSpecConstants(realModule().data(), realModule().size()).empty());
}

// A module's own required work-group sizes: LocalSize by entry-point name; other execution
// modes, entry points without one and anything after the first function are not read.
TEST(SpirvRequiredGroupSizes, LocalSizeOfEachEntryPoint) {
  // clang-format off
  const std::vector<uint32_t> Words = {
      SpirvMagic, 0x00010000, 0, 10, 0,
      (4u << 16) | 15, 6, 2, 'k',                    // OpEntryPoint Kernel %2 "k"
      (5u << 16) | 15, 6, 3, 0x6568746fu, 0x72u,     // OpEntryPoint Kernel %3 "other"
      (6u << 16) | 16, 2, 17, 4, 2, 1,               // OpExecutionMode %2 LocalSize 4 2 1
      (3u << 16) | 16, 3, 31,                        // OpExecutionMode %3 ContractionOff
      (5u << 16) | 54, 1, 3, 0, 4,                   // OpFunction
      (6u << 16) | 16, 3, 17, 8, 8, 8};              // after it: not read
  // clang-format on
  std::vector<uint8_t> Bytes(Words.size() * 4);
  std::memcpy(Bytes.data(), Words.data(), Bytes.size());
  const auto Sizes = spirvRequiredGroupSizes(Bytes.data(), Bytes.size());
  ASSERT_EQ(Sizes.size(), 1u);
  EXPECT_EQ(Sizes.at("k"), (std::array<uint32_t, 3>{4, 2, 1}));
  // A module cut inside an instruction: what came before it, nothing invented.
  EXPECT_TRUE(spirvRequiredGroupSizes(Bytes.data(), size_t{4} * 17).empty());
  EXPECT_TRUE(spirvRequiredGroupSizes(nullptr, 0).empty());
  EXPECT_TRUE(spirvRequiredGroupSizes(realModule().data(), realModule().size()).empty());
}

class Translation : public ::testing::Test {
protected:
  void SetUp() override {
    std::string Why;
    if (!translatorAvailable(Why))
      GTEST_SKIP() << "the LLVM side cannot be loaded: " << Why;
  }
};

TEST_F(Translation, RealModuleBecomesSpirBitcodeOnceAndIsReused) {
  const std::vector<uint8_t> Module = realModule();
  translationCache().clear();
  Bytes First, Second;
  ASSERT_EQ(translateSpirv("f", Module.data(), Module.size(), DeviceCode::Spir, First), PI_SUCCESS)
      << lastErrorMessage();
  ASSERT_NE(First, nullptr);
  ASSERT_GT(First->size(), 4u);
  EXPECT_EQ((*First)[0], 'B');
  EXPECT_EQ((*First)[1], 'C');
  const size_t HitsBefore = translationCache().counters().Hits;
  ASSERT_EQ(translateSpirv("f", Module.data(), Module.size(), DeviceCode::Spir, Second),
            PI_SUCCESS);
  EXPECT_EQ(Second, First) << "the second translation of the same module is the cached one";
  EXPECT_EQ(translationCache().counters().Hits, HitsBefore + 1);
}

// The lowering an OpenCL device without device-global access gets: every mutable
// program-scope variable of the global address space placed in the storage (8-byte
// aligned, by symbol where the module names no HostAccessINTEL), its initial bytes kept,
// the constant left alone; asked again, the same answer from the cache.
TEST_F(Translation, VariablesAreLoweredIntoStorageWithTheirInitialBytes) {
  const std::vector<uint8_t> Module = moduleFile(DGLINK_DEVICE_CODE_TEST_LOWERING_SPIRV);
  ASSERT_GT(Module.size(), 20u) << "missing " << DGLINK_DEVICE_CODE_TEST_LOWERING_SPIRV;
  EXPECT_TRUE(spirvHostAccessNames(Module.data(), Module.size()).empty());
  EXPECT_TRUE(spirvHasGlobalVariables(Module.data(), Module.size()));
  EXPECT_FALSE(spirvHasGlobalVariables(realModule().data(), realModule().size()));
  translationCache().clear();
  LoweredTranslation Lowered;
  ASSERT_EQ(translateSpirvLowered("f", Module.data(), Module.size(), DeviceCode::Spir, Lowered),
            PI_SUCCESS)
      << lastErrorMessage();
  EXPECT_EQ(Lowered.NotLowered, "");
  ASSERT_NE(Lowered.Code, nullptr);
  ASSERT_GT(Lowered.Code->size(), 4u);
  EXPECT_EQ((*Lowered.Code)[0], 'B');
  ASSERT_TRUE(Lowered.Lowered.has_value());
  const auto &Variables = Lowered.Lowered->Variables;
  ASSERT_EQ(Variables.size(), 3u);
  ASSERT_EQ(Variables.count("counter"), 1u);
  ASSERT_EQ(Variables.count("table"), 1u);
  ASSERT_EQ(Variables.count("shared"), 1u);
  EXPECT_EQ(Variables.at("counter").Size, 4u);
  EXPECT_EQ(Variables.at("counter").Initializer, (std::vector<uint8_t>{5, 0, 0, 0}));
  EXPECT_EQ(Variables.at("table").Size, 16u);
  EXPECT_TRUE(Variables.at("table").Initializer.empty());
  EXPECT_EQ(Variables.at("shared").Size, 8u);
  uint64_t End = 0;
  for (const auto &[Name, Variable] : Variables) {
    EXPECT_EQ(Variable.Offset % 8, 0u) << Name;
    End = std::max(End, Variable.Offset + Variable.Size);
  }
  EXPECT_EQ(Lowered.Lowered->Size, End);
  std::vector<uint8_t> Initial = Lowered.Lowered->initialContents();
  ASSERT_EQ(Initial.size(), Lowered.Lowered->Size);
  EXPECT_EQ(Initial[Variables.at("counter").Offset], 5);

  const size_t HitsBefore = translationCache().counters().Hits;
  LoweredTranslation Again;
  ASSERT_EQ(translateSpirvLowered("f", Module.data(), Module.size(), DeviceCode::Spir, Again),
            PI_SUCCESS);
  EXPECT_EQ(translationCache().counters().Hits, HitsBefore + 1);
  EXPECT_EQ(*Again.Code, *Lowered.Code);
  // The plain translation of the same module is another entry, and keeps the variables.
  Bytes Plain;
  ASSERT_EQ(translateSpirv("f", Module.data(), Module.size(), DeviceCode::Spir, Plain), PI_SUCCESS);
  EXPECT_NE(*Plain, *Lowered.Code);
}

// SPIR-V devices get the lowered module as SPIR-V; a module without variables comes back
// as it was, with nothing lowered.
TEST_F(Translation, LoweringIntoSpirvAndAModuleWithNothingToLower) {
  const std::vector<uint8_t> Module = moduleFile(DGLINK_DEVICE_CODE_TEST_LOWERING_SPIRV);
  LoweredTranslation Lowered;
  ASSERT_EQ(translateSpirvLowered("f", Module.data(), Module.size(), DeviceCode::SpirV, Lowered),
            PI_SUCCESS)
      << lastErrorMessage();
  ASSERT_TRUE(Lowered.Lowered.has_value());
  ASSERT_NE(Lowered.Code, nullptr);
  EXPECT_EQ(checkSpirvModule("f", Lowered.Code->data(), Lowered.Code->size()), PI_SUCCESS)
      << lastErrorMessage();
  EXPECT_NE(*Lowered.Code, Module);

  const std::vector<uint8_t> Plain = realModule();
  LoweredTranslation Nothing;
  ASSERT_EQ(translateSpirvLowered("f", Plain.data(), Plain.size(), DeviceCode::SpirV, Nothing),
            PI_SUCCESS);
  EXPECT_FALSE(Nothing.Lowered.has_value());
  EXPECT_EQ(Nothing.NotLowered, "");
  EXPECT_EQ(*Nothing.Code, Plain);
  EXPECT_EQ(
      translateSpirvLowered("f", Plain.data(), Plain.size(), DeviceCode::AmdCodeObject, Nothing),
      PI_ERROR_INVALID_OPERATION);
  EXPECT_EQ(lastErrorMessage(), "f: SPIR-V cannot be translated into amdgcn here");
}

// The first instruction of Module with this opcode (its word index), or 0.
size_t findInstruction(const std::vector<uint8_t> &Module, uint32_t Opcode) {
  for (size_t At = 5; At < Module.size() / 4;) {
    uint32_t Word;
    std::memcpy(&Word, Module.data() + At * 4, 4);
    if ((Word & 0xFFFF) == Opcode)
      return At;
    At += Word >> 16 == 0 ? 1 : Word >> 16;
  }
  return 0;
}

// LLVMSPIRVLib 15 aborts on an opcode it does not know and calls exit() on a SPIR-V
// version it does not read: both end the translator's process, not this one; each is the
// module's PI_ERROR_INVALID_BINARY, and the next module gets a new translator.
TEST_F(Translation, WhatEndsTheTranslatorEndsOnlyItsProcess) {
  const std::vector<uint8_t> Good = realModule();
  std::vector<uint8_t> Aborts = Good;
  const size_t Source = findInstruction(Aborts, 3); // OpSource
  ASSERT_NE(Source, 0u);
  uint32_t Word;
  std::memcpy(&Word, Aborts.data() + Source * 4, 4);
  setWord(Aborts, Source, (Word & 0xFFFF0000u) | 0x7FFFu);
  std::vector<uint8_t> Exits = Good;
  setWord(Exits, 1, 0x00010600u); // SPIR-V 1.6

  Bytes Out;
  const size_t Starts = translatorStarts();
  EXPECT_EQ(translateSpirv("f", Aborts.data(), Aborts.size(), DeviceCode::Spir, Out),
            PI_ERROR_INVALID_BINARY);
  EXPECT_EQ(lastErrorMessage().rfind("f: the SPIR-V module cannot be translated into SPIR 1.2 "
                                     "bitcode (spir64): the translator (LLVMSPIRVLib) stopped on "
                                     "it with signal 6 (Aborted): ",
                                     0),
            0u)
      << lastErrorMessage();
  EXPECT_NE(lastErrorMessage().find("Assertion"), std::string::npos) << lastErrorMessage();
  EXPECT_EQ(translateSpirv("f", Exits.data(), Exits.size(), DeviceCode::Spir, Out),
            PI_ERROR_INVALID_BINARY);
  EXPECT_NE(lastErrorMessage().find("the translator (LLVMSPIRVLib) ended its process with status "),
            std::string::npos)
      << lastErrorMessage();
  EXPECT_NE(lastErrorMessage().find("unsupported SPIR-V version number"), std::string::npos)
      << lastErrorMessage();
  EXPECT_EQ(Out, nullptr);
  translationCache().clear();
  ASSERT_EQ(translateSpirv("f", Good.data(), Good.size(), DeviceCode::Spir, Out), PI_SUCCESS)
      << lastErrorMessage();
  EXPECT_EQ((*Out)[0], 'B');
  // Each failure ended one translator; the good module needed a new one.
  EXPECT_EQ(translatorStarts(), Starts + 2 + (Starts == 0 ? 1 : 0));
}

TEST_F(Translation, IntoAKindWithoutATranslationIsAnInvalidOperation) {
  const std::vector<uint8_t> Module = realModule();
  Bytes Out;
  EXPECT_EQ(translateSpirv("f", Module.data(), Module.size(), DeviceCode::AmdCodeObject, Out),
            PI_ERROR_INVALID_OPERATION);
  EXPECT_EQ(lastErrorMessage(), "f: SPIR-V cannot be translated into amdgcn here");
  EXPECT_EQ(Out, nullptr);
}

TEST_F(Translation, MalformedModuleIsRefusedBeforeTheTranslator) {
  std::vector<uint8_t> Module = realModule();
  Module.resize(Module.size() - 2);
  Bytes Out;
  EXPECT_EQ(translateSpirv("f", Module.data(), Module.size(), DeviceCode::Spir, Out),
            PI_ERROR_INVALID_BINARY);
  EXPECT_NE(lastErrorMessage().find("the SPIR-V module is malformed"), std::string::npos);
  EXPECT_EQ(Out, nullptr);
}

} // namespace
} // namespace dglink::device_code
