// The shim's virtual-function handling (docs/virtual-functions.md) on the runtime tests'
// device code and on a kernel that calls without calls-indirectly: the images and property
// sets per set, the dummy twins, the aspects per kernel, and the diagnostic.
#include "test_util.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>

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

// Whether a spir64 bitcode image computes in half anywhere (a value, operand or alloca).
bool bitcodeUsesHalf(const std::vector<uint8_t> &Bytes) {
  llvm::LLVMContext Context;
  llvm::Expected<std::unique_ptr<llvm::Module>> M = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(
          llvm::StringRef(reinterpret_cast<const char *>(Bytes.data()), Bytes.size()), "image"),
      Context);
  if (!M) {
    ADD_FAILURE() << llvm::toString(M.takeError());
    return false;
  }
  for (const llvm::Function &F : **M)
    for (const llvm::Instruction &I : llvm::instructions(F)) {
      if (I.getType()->getScalarType()->isHalfTy())
        return true;
      for (const llvm::Value *Operand : I.operands())
        if (Operand->getType()->getScalarType()->isHalfTy())
          return true;
    }
  return false;
}

// A set computing in half (runtime/tests/device_code/virtual_functions_fp16.clcpp): fp16
// is detected, the set gets a dummy twin, and half stays inside the real set image. It
// compiles for nvptx64 too, whose clang target does not list cl_khr_fp16 by itself.
TEST(ShimVirtualFunctions, HalfSetGetsAspectFp16AndADummyOnEveryTarget) {
  CompileOptions Options;
  Options.Inputs = {DGLINK_SHIM_VF_FP16_SOURCE};
  Options.Targets = {"spir64", "nvptx64"};
  Options.IncludeDirs = {DGLINK_SHIM_DEVICE_INCLUDE};
  llvm::Expected<Bundle> Out = compile(Options);
  ASSERT_TRUE(static_cast<bool>(Out)) << llvm::toString(Out.takeError());
  // Per target: the kernel image, the default set, set_fp16 and its dummy.
  ASSERT_EQ(Out->Images.size(), 8u);
  for (const std::string &Target : {std::string("spir64"), std::string("nvptx64")}) {
    SCOPED_TRACE(Target);
    std::map<std::string, const BundleImage *> ByName;
    for (const BundleImage &Image : Out->Images)
      if (Image.Target == Target)
        ByName[Image.Name] = &Image;
    ASSERT_EQ(ByName.size(), 4u);
    const BundleImage &Kernels = *ByName.at("virtual_functions_fp16");
    EXPECT_EQ(
        stringProperty(Kernels, PI_PROPERTY_SET_VIRTUAL_FUNCTIONS, "uses-virtual-functions-set"),
        "_ZTSv,set_fp16");
    EXPECT_EQ(aspectsProperty(Kernels, KernelAspectsSet, "vf16_use_fp16"),
              std::vector<uint32_t>{AspectFp16});
    for (const char *Kernel : {"vf16_construct", "vf16_use"})
      EXPECT_TRUE(aspectsProperty(Kernels, KernelAspectsSet, Kernel).empty()) << Kernel;
    const BundleImage &Real = *ByName.at("virtual_functions_fp16 [virtual functions set_fp16]");
    EXPECT_EQ(aspectsProperty(Real, DeviceRequirementsSet, AspectsProperty),
              std::vector<uint32_t>{AspectFp16});
    const BundleImage &Dummy =
        *ByName.at("virtual_functions_fp16 [virtual functions set_fp16, dummy]");
    EXPECT_EQ(stringProperty(Dummy, PI_PROPERTY_SET_VIRTUAL_FUNCTIONS, "virtual-functions-set"),
              "set_fp16");
    const BundlePropertySet *DummySet = findSet(Dummy, PI_PROPERTY_SET_VIRTUAL_FUNCTIONS);
    ASSERT_NE(DummySet, nullptr);
    EXPECT_TRUE(std::any_of(DummySet->Properties.begin(), DummySet->Properties.end(),
                            [](const BundleProperty &Property) {
                              return Property.Name == DummyImageProperty &&
                                     Property.Type == PI_PROPERTY_TYPE_UINT32 &&
                                     Property.ValSize == 1;
                            }));
    EXPECT_TRUE(aspectsProperty(Dummy, DeviceRequirementsSet, AspectsProperty).empty());
    EXPECT_EQ(test::decode(Dummy.PropertySets).Exported, test::decode(Real.PropertySets).Exported);
    EXPECT_EQ(ByName.count("virtual_functions_fp16 [virtual functions _ZTSv, dummy]"), 0u);
    // Only the real set image holds half code: a device without fp16 never compiles any.
    if (Target == "spir64") {
      EXPECT_TRUE(bitcodeUsesHalf(Real.Binary));
      EXPECT_FALSE(bitcodeUsesHalf(Dummy.Binary));
      EXPECT_FALSE(bitcodeUsesHalf(Kernels.Binary));
    } else {
      auto ptxUsesHalf = [](const BundleImage &Image) {
        return std::string(Image.Binary.begin(), Image.Binary.end()).find(".f16") !=
               std::string::npos;
      };
      EXPECT_TRUE(ptxUsesHalf(Real));
      EXPECT_FALSE(ptxUsesHalf(Dummy));
      EXPECT_FALSE(ptxUsesHalf(Kernels));
    }
  }
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

// ---- Malformed set names, in annotations and in DPC++'s attributes ----

// IR with a function @f, a kernel @k and the annotations (target, text) clang would emit
// for the macros of dglink/virtual_functions.h; FunctionAttributes / KernelAttributes are
// written as they are (DPC++'s attributes).
std::string annotatedIr(const std::vector<std::pair<std::string, std::string>> &Annotations,
                        const std::string &FunctionAttributes = "",
                        const std::string &KernelAttributes = "") {
  std::string Text = "target triple = \"spir64-unknown-unknown\"\n";
  std::string Entries;
  for (size_t I = 0; I < Annotations.size(); ++I) {
    const std::string &Value = Annotations[I].second;
    Text += "@.str" + std::to_string(I) + " = private unnamed_addr constant [" +
            std::to_string(Value.size() + 1) + " x i8] c\"" + Value +
            "\\00\", section \"llvm.metadata\"\n";
    Entries += std::string(I == 0 ? "" : ", ") + "{ ptr, ptr, ptr, i32, ptr } { ptr @" +
               Annotations[I].first + ", ptr @.str" + std::to_string(I) +
               ", ptr null, i32 0, ptr null }";
  }
  if (!Annotations.empty())
    Text += "@llvm.global.annotations = appending global [" + std::to_string(Annotations.size()) +
            " x { ptr, ptr, ptr, i32, ptr }] [" + Entries + "], section \"llvm.metadata\"\n";
  Text += "define spir_func i32 @f(i32 %x) #0 {\n  ret i32 %x\n}\n"
          "define spir_kernel void @k(ptr addrspace(1) %out) #1 {\n  ret void\n}\n"
          "attributes #0 = { " +
          (FunctionAttributes.empty() ? std::string("nounwind") : FunctionAttributes) +
          " }\nattributes #1 = { " +
          (KernelAttributes.empty() ? std::string("nounwind") : KernelAttributes) + " }\n";
  return Text;
}

// The error normalizeVirtualFunctionAnnotations gives for IR, or "" if it accepts it.
std::string normalizeError(const std::string &Ir) {
  llvm::LLVMContext Context;
  std::unique_ptr<llvm::Module> M = test::parse(Context, Ir);
  if (!M)
    return "the test's IR does not parse";
  if (llvm::Error Failure = normalizeVirtualFunctionAnnotations(*M))
    return llvm::toString(std::move(Failure));
  return "";
}

TEST(ShimVirtualFunctions, MalformedSetNamesInAnnotationsAreErrorsNamingTheFunction) {
  const std::string Callable = "dglink_indirectly_callable:";
  const std::string Calls = "dglink_calls_indirectly:";
  struct Case {
    std::vector<std::pair<std::string, std::string>> Annotations;
    std::vector<std::string> Expected; // fragments of the message
  };
  const std::vector<Case> Cases = {
      {{{"f", Callable}}, {"function 'f'", "names no set", "exactly one set"}},
      {{{"f", Callable + " "}}, {"function 'f'", "names no set"}},
      {{{"f", Callable + "a,b"}}, {"function 'f'", "names 2 sets"}},
      {{{"f", Callable + "a"}, {"f", Callable + "b"}},
       {"function 'f' is put into two sets, 'a' and 'b'"}},
      {{{"k", Calls}}, {"function 'k'", "names no set"}},
      {{{"k", Calls + "a,,b"}}, {"function 'k'", "has an empty set name"}},
      {{{"k", Calls + "a,"}}, {"function 'k'", "has an empty set name"}},
      {{{"k", Calls + "a, a"}}, {"function 'k'", "names set 'a' twice"}},
      {{{"k", Calls + "a"}, {"k", Calls + "a"}}, {"kernel 'k' names set 'a' twice"}},
      {{{"k", Callable + "a"}}, {"kernel 'k' cannot be indirectly callable (set 'a')"}},
      {{{"f", Calls + "a"}}, {"function 'f' is not a kernel"}},
  };
  for (const Case &C : Cases) {
    const std::string Message = normalizeError(annotatedIr(C.Annotations));
    ASSERT_FALSE(Message.empty()) << C.Annotations.back().second;
    for (const std::string &Fragment : C.Expected)
      EXPECT_NE(Message.find(Fragment), std::string::npos)
          << "annotation '" << C.Annotations.back().second << "': " << Message;
  }
}

TEST(ShimVirtualFunctions, AnnotationsBecomeTrimmedAttributesAndSeveralCallsIndirectlyJoin) {
  llvm::LLVMContext Context;
  std::unique_ptr<llvm::Module> M =
      test::parse(Context, annotatedIr({{"f", "dglink_indirectly_callable: set_a "},
                                        {"f", "dglink_indirectly_callable:set_a"},
                                        {"k", "dglink_calls_indirectly: set_a , set_b"},
                                        {"k", "dglink_calls_indirectly:set_c"}}));
  ASSERT_NE(M, nullptr);
  ASSERT_FALSE(static_cast<bool>(normalizeVirtualFunctionAnnotations(*M)));
  EXPECT_EQ(M->getFunction("f")->getFnAttribute(IndirectlyCallableAttribute).getValueAsString(),
            "set_a");
  EXPECT_EQ(M->getFunction("k")->getFnAttribute(CallsIndirectlyAttribute).getValueAsString(),
            "set_a,set_b,set_c");
  // The annotations are gone.
  EXPECT_EQ(M->getNamedGlobal("llvm.global.annotations"), nullptr);
}

TEST(ShimVirtualFunctions, MalformedDpcppAttributesAreErrorsNamingTheFunctionAndTheValue) {
  struct Case {
    std::string FunctionAttributes, KernelAttributes;
    std::vector<std::string> Expected;
  };
  const std::vector<Case> Cases = {
      {"\"indirectly-callable\"=\"\"",
       "",
       {"function 'f'", "\"indirectly-callable\"=\"\"", "names no set"}},
      {"\"indirectly-callable\"=\"a,b\"", "", {"function 'f'", "names 2 sets"}},
      {"",
       "\"calls-indirectly\"=\"a,,b\"",
       {"function 'k'", "\"calls-indirectly\"=\"a,,b\"", "has an empty set name"}},
      {"", "\"calls-indirectly\"=\"b,a,b\"", {"function 'k'", "names set 'b' twice"}},
      {"", "\"indirectly-callable\"=\"a\"", {"kernel 'k' cannot be indirectly callable"}},
      {"\"calls-indirectly\"=\"a\"", "", {"function 'f' is not a kernel"}},
  };
  for (const Case &C : Cases) {
    const std::string Message =
        normalizeError(annotatedIr({}, C.FunctionAttributes, C.KernelAttributes));
    ASSERT_FALSE(Message.empty()) << C.FunctionAttributes << C.KernelAttributes;
    for (const std::string &Fragment : C.Expected)
      EXPECT_NE(Message.find(Fragment), std::string::npos)
          << C.FunctionAttributes << C.KernelAttributes << ": " << Message;
  }
  // Well-formed ones are kept, without the blanks.
  llvm::LLVMContext Context;
  std::unique_ptr<llvm::Module> M = test::parse(
      Context, annotatedIr({}, "\"indirectly-callable\"=\" a \"", "\"calls-indirectly\"=\"a, b\""));
  ASSERT_NE(M, nullptr);
  ASSERT_FALSE(static_cast<bool>(normalizeVirtualFunctionAnnotations(*M)));
  EXPECT_EQ(M->getFunction("f")->getFnAttribute(IndirectlyCallableAttribute).getValueAsString(),
            "a");
  EXPECT_EQ(M->getFunction("k")->getFnAttribute(CallsIndirectlyAttribute).getValueAsString(),
            "a,b");
}

} // namespace
} // namespace dglink::shim
