// The OpenCL lowering on small IR modules: the layout and initial values, the rewritten
// kernels and functions, and an error naming the variable and the function for each
// thing that cannot be lowered.
#include "test_util.h"

#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>

#include <optional>

namespace dglink::shim {
namespace {

using test::errorText;
using test::parse;

// A spir64 module with two device globals (one initialised), an exported function that
// reaches one, a kernel that calls it and a kernel that touches no variable. Extra is
// appended.
std::string module(const std::string &Extra = "") {
  return R"(
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"

@counter = addrspace(1) global i32 0, align 4 #0
@table = addrspace(1) global [4 x i32] [i32 1, i32 2, i32 3, i32 4], align 4 #1

define i32 @bump(i32 %by) {
  %old = load i32, ptr addrspace(1) @counter, align 4
  %new = add i32 %old, %by
  store i32 %new, ptr addrspace(1) @counter, align 4
  ret i32 %new
}

define spir_kernel void @increment(ptr addrspace(1) %out) !kernel_arg_addr_space !0 !kernel_arg_type !1 {
  %v = call i32 @bump(i32 1)
  %p = getelementptr inbounds [4 x i32], ptr addrspace(1) @table, i64 0, i64 2
  %t = load i32, ptr addrspace(1) %p, align 4
  %s = add i32 %v, %t
  store i32 %s, ptr addrspace(1) %out, align 4
  ret void
}

define spir_kernel void @plain() {
  ret void
}
)" + Extra + R"(
attributes #0 = { "sycl-device-global-size"="4" "sycl-unique-id"="counter_uid" }
attributes #1 = { "sycl-device-global-size"="16" "sycl-unique-id"="table" }
!0 = !{i32 1}
!1 = !{!"int*"}
)";
}

struct Lowered {
  llvm::LLVMContext Context;
  std::vector<SplitImage> Images;
  std::optional<StorageLayout> Layout;
  std::string Error; // empty: lowered

  // One image per text: "image", then "image1", "image2"...
  explicit Lowered(const std::vector<std::string> &Texts) {
    std::vector<LoweringInput> Inputs;
    for (size_t I = 0; I < Texts.size(); ++I) {
      SplitImage Image;
      Image.Name = I == 0 ? "image" : "image" + std::to_string(I);
      Image.Module = parse(Context, Texts[I], Image.Name);
      if (!Image.Module) {
        Error = "parse failed";
        return;
      }
      Images.push_back(std::move(Image));
    }
    for (SplitImage &Image : Images)
      Inputs.push_back({Image.Name, Image.Module.get()});
    llvm::Expected<StorageLayout> Computed = computeStorageLayout(Images);
    if (!Computed) {
      Error = errorText(Computed.takeError());
      return;
    }
    Layout = std::move(*Computed);
    if (llvm::Error Failure = lowerDeviceGlobals(Inputs, *Layout))
      Error = errorText(std::move(Failure));
  }
  explicit Lowered(const std::string &Text) : Lowered(std::vector<std::string>{Text}) {}
  llvm::Module &module(size_t I = 0) { return *Images[I].Module; }
};

TEST(Lowering, LayoutAndInitialValues) {
  Lowered L(module());
  ASSERT_EQ(L.Error, "");
  ASSERT_EQ(L.Layout->Globals.size(), 2u);
  const LoweredGlobal &Counter = L.Layout->Globals[L.Layout->ById.at("counter_uid")];
  const LoweredGlobal &Table = L.Layout->Globals[L.Layout->ById.at("table")];
  EXPECT_EQ(Counter.Offset, 0u);
  EXPECT_TRUE(Counter.Initializer.empty());
  EXPECT_EQ(Table.Offset, 8u); // at least 8-byte aligned
  EXPECT_EQ(Table.Initializer,
            (std::vector<uint8_t>{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0}));
  EXPECT_EQ(L.Layout->Size, 24u);
}

TEST(Lowering, KernelsAndReachingFunctionsTakeTheStorage) {
  Lowered L(module());
  ASSERT_EQ(L.Error, "");
  llvm::Module &M = L.module();
  EXPECT_EQ(M.getNamedGlobal("counter"), nullptr) << "the variables leave program scope";
  EXPECT_EQ(M.getNamedGlobal("table"), nullptr);
  EXPECT_EQ(M.getFunction("bump"), nullptr) << "the exported function is renamed";
  llvm::Function *Bump = M.getFunction("bump_dglink_dg");
  ASSERT_NE(Bump, nullptr);
  EXPECT_EQ(Bump->arg_size(), 2u);
  for (const char *Kernel : {"increment", "plain"}) {
    llvm::Function *F = M.getFunction(Kernel);
    ASSERT_NE(F, nullptr) << Kernel;
    ASSERT_GE(F->arg_size(), 1u);
    EXPECT_EQ(F->getArg(F->arg_size() - 1)->getName(), LoweredStorageArgumentName) << Kernel;
  }
  // The kernel argument metadata has an entry for the storage.
  auto *Spaces = M.getFunction("increment")->getMetadata("kernel_arg_addr_space");
  ASSERT_NE(Spaces, nullptr);
  EXPECT_EQ(Spaces->getNumOperands(), 2u);
  // The call passes the kernel's storage on.
  bool Passed = false;
  for (llvm::Instruction &I : M.getFunction("increment")->getEntryBlock())
    if (auto *Call = llvm::dyn_cast<llvm::CallInst>(&I))
      Passed = Call->getCalledFunction() == Bump &&
               Call->getArgOperand(1) == M.getFunction("increment")->getArg(1);
  EXPECT_TRUE(Passed);
}

TEST(Lowering, MutableVariableThatIsNotADeviceGlobalIsAnError) {
  Lowered L(module("@loose = addrspace(1) global i32 0, align 4\n"));
  EXPECT_EQ(L.Error,
            "variable 'loose' of image 'image' cannot be lowered: it is a mutable program-scope "
            "variable but not a device global (declare it with DGLINK_DEVICE_GLOBAL, or make it "
            "constant)");
}

TEST(Lowering, InitializerHoldingAnAddressIsAnError) {
  Lowered L(module("@holder = addrspace(1) global ptr addrspace(1) @counter, align 8 #2\n"
                   "attributes #2 = { \"sycl-device-global-size\"=\"8\" }\n"));
  EXPECT_EQ(L.Error,
            "device global 'holder' cannot be lowered: its initializer holds '@counter', which "
            "is not a number (an address is not known before the storage "
            "exists)");
}

TEST(Lowering, VariableNoInputDefinesIsAnError) {
  Lowered L(module("@elsewhere = external addrspace(1) global i32, align 4\n"
                   "define void @reader(ptr addrspace(1) %out) {\n"
                   "  %v = load i32, ptr addrspace(1) @elsewhere, align 4\n"
                   "  store i32 %v, ptr addrspace(1) %out, align 4\n  ret void\n}\n"));
  EXPECT_EQ(L.Error,
            "variable 'elsewhere', used by function 'reader' of image 'image', cannot be "
            "lowered: no input of this compile defines it, so its place in the storage is "
            "unknown");
}

TEST(Lowering, AddressTakenFunctionThatReachesStorageIsAnError) {
  Lowered L(module("@table_of_functions = addrspace(1) constant ptr @bump, align 8\n"));
  EXPECT_EQ(L.Error,
            "function 'bump' of image 'image' reaches device globals and its address is taken: "
            "a call through the pointer could not pass the storage");
}

// Typed-pointer IR (what clang-15 makes for spir64) calls a function declared with other
// parameter types through a bitcast: the call still gets the storage.
constexpr const char *TypedHeader = R"(
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"
@cnt = addrspace(1) global i32 0, align 4 #0
define void @helper(i32 addrspace(1)* %p) {
  %v = load i32, i32 addrspace(1)* @cnt, align 4
  store i32 %v, i32 addrspace(1)* %p, align 4
  ret void
}
)";
constexpr const char *TypedFooter = R"(
attributes #0 = { "sycl-device-global-size"="4" "sycl-unique-id"="cnt" }
)";

TEST(Lowering, CallThroughABitcastGetsTheStorage) {
  Lowered L(std::string(TypedHeader) + R"(
define spir_kernel void @k(float addrspace(1)* %o) {
  call void bitcast (void (i32 addrspace(1)*)* @helper to void (float addrspace(1)*)*)(float addrspace(1)* %o)
  ret void
}
)" + TypedFooter);
  ASSERT_EQ(L.Error, "");
  llvm::Function *K = L.module().getFunction("k");
  llvm::Function *Helper = L.module().getFunction("helper_dglink_dg");
  ASSERT_TRUE(K != nullptr && Helper != nullptr);
  bool Passed = false;
  for (llvm::Instruction &I : K->getEntryBlock())
    if (auto *Call = llvm::dyn_cast<llvm::CallInst>(&I))
      Passed = Call->getCalledFunction() == Helper && Call->arg_size() == 2 &&
               Call->getArgOperand(1) == K->getArg(1);
  EXPECT_TRUE(Passed) << "the call through the cast was not given the storage";
}

TEST(Lowering, AddressTakenThroughABitcastIsAnError) {
  Lowered L(std::string(TypedHeader) +
            "@fp = addrspace(2) constant i8* bitcast (void (i32 addrspace(1)*)* @helper to i8*)\n" +
            TypedFooter);
  EXPECT_EQ(L.Error, "function 'helper' of image 'image' reaches device globals and its address "
                     "is taken: a call through the pointer could not pass the storage");
}

TEST(Lowering, VariablesAreMatchedByUniqueIdNotByName) {
  // image: an external device global "table"; image1: its own constant "table" and a
  // static device global "counter"; image2: another static device global "counter".
  const std::string Header = R"(
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64-unknown-unknown"
)";
  Lowered L({Header + R"(
@table = addrspace(1) global [4 x i32] zeroinitializer, align 4 #0
attributes #0 = { "sycl-device-global-size"="16" "sycl-unique-id"="a_table" }
)",
             Header + R"(
@table = addrspace(2) constant [4 x i32] [i32 10, i32 20, i32 30, i32 40], align 4
@counter = internal addrspace(1) global i32 0, align 4 #0
define spir_kernel void @tk(ptr addrspace(1) %o, i32 %i) {
  %p = getelementptr inbounds [4 x i32], ptr addrspace(2) @table, i64 0, i32 %i
  %v = load i32, ptr addrspace(2) %p, align 4
  %c = load i32, ptr addrspace(1) @counter, align 4
  %s = add i32 %v, %c
  store i32 %s, ptr addrspace(1) %o, align 4
  ret void
}
attributes #0 = { "sycl-device-global-size"="4" "sycl-unique-id"="counter_in_1" }
)",
             Header + R"(
@counter = internal addrspace(1) global i32 0, align 4 #0
attributes #0 = { "sycl-device-global-size"="4" "sycl-unique-id"="counter_in_2" }
)"});
  ASSERT_EQ(L.Error, "");
  EXPECT_NE(L.module(1).getNamedGlobal("table"), nullptr)
      << "image1's own constant 'table' must stay";
  EXPECT_EQ(L.module(1).getNamedGlobal("counter"), nullptr);
  ASSERT_EQ(L.Layout->Globals.size(), 3u);
  EXPECT_NE(L.Layout->Globals[L.Layout->ById.at("counter_in_1")].Offset,
            L.Layout->Globals[L.Layout->ById.at("counter_in_2")].Offset);
}

TEST(Lowering, SwitchWithTwoEdgesToOneBlock) {
  Lowered L(module(R"(
define spir_kernel void @pick(ptr addrspace(1) %out, i32 %which) {
entry:
  switch i32 %which, label %done [ i32 1, label %done
                                   i32 2, label %done ]
done:
  %p = phi ptr addrspace(1) [ getelementptr inbounds ([4 x i32], ptr addrspace(1) @table, i64 0, i64 1), %entry ], [ getelementptr inbounds ([4 x i32], ptr addrspace(1) @table, i64 0, i64 1), %entry ], [ getelementptr inbounds ([4 x i32], ptr addrspace(1) @table, i64 0, i64 1), %entry ]
  %v = load i32, ptr addrspace(1) %p, align 4
  store i32 %v, ptr addrspace(1) %out, align 4
  ret void
}
)"));
  EXPECT_EQ(L.Error, "");
}

} // namespace
} // namespace dglink::shim
