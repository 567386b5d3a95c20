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

  explicit Lowered(const std::string &Text) {
    SplitImage Image;
    Image.Name = "image";
    Image.Module = parse(Context, Text, "image");
    if (!Image.Module) {
      Error = "parse failed";
      return;
    }
    Images.push_back(std::move(Image));
    llvm::Expected<StorageLayout> Computed = computeStorageLayout(Images);
    if (!Computed) {
      Error = errorText(Computed.takeError());
      return;
    }
    Layout = std::move(*Computed);
    if (llvm::Error Failure = lowerDeviceGlobals({{"image", Images[0].Module.get()}}, *Layout))
      Error = errorText(std::move(Failure));
  }
  llvm::Module &module() { return *Images[0].Module; }
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

} // namespace
} // namespace dglink::shim
