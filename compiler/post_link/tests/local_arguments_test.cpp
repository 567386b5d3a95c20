// DPC++'s CUDA/HIP form of local-memory kernel arguments (lowerLocalArguments): local
// pointer parameters of NVPTX and AMDGPU kernels become i32 offsets into one external
// local array, in the IR and in the PTX the shim emits; other parameters, other
// functions and kernels without local pointers stay as they were.
#include "test_util.h"

#include <llvm/IR/Instructions.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

namespace dglink::shim {
namespace {

using test::errorText;
using test::parse;

// clang-15's shape of OpenCL C on nvptx64-nvidia-nvcl: kernels named in
// nvvm.annotations, opaque pointers; one kernel with two local arrays around a value,
// one without local pointers, a helper that takes a local pointer (no kernel).
const char *const NvptxModule = R"(
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-nvcl"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define internal void @helper(ptr addrspace(3) %P) {
  store i32 1, ptr addrspace(3) %P, align 4
  ret void
}

define spir_kernel void @two_locals(ptr addrspace(1) noalias align 4 %Out,
                                    ptr addrspace(3) noalias align 4 %A, i32 %Value,
                                    ptr addrspace(3) align 8 %B) !kernel_arg_addr_space !1 {
  %Id = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %InA = getelementptr inbounds i32, ptr addrspace(3) %A, i32 %Id
  store i32 %Value, ptr addrspace(3) %InA, align 4
  %InB = getelementptr inbounds i64, ptr addrspace(3) %B, i32 %Id
  store i64 7, ptr addrspace(3) %InB, align 8
  call void @helper(ptr addrspace(3) %A)
  %Read = load i32, ptr addrspace(3) %A, align 4
  store i32 %Read, ptr addrspace(1) %Out, align 4
  ret void
}

define spir_kernel void @no_locals(ptr addrspace(1) %Out) {
  store i32 3, ptr addrspace(1) %Out, align 4
  ret void
}

!nvvm.annotations = !{!0, !2}
!0 = !{ptr @two_locals, !"kernel", i32 1}
!1 = !{i32 1, i32 3, i32 0, i32 3}
!2 = !{ptr @no_locals, !"kernel", i32 1}
)";

TEST(LocalArguments, LocalPointersOfKernelsBecomeOffsets) {
  llvm::LLVMContext Context;
  std::unique_ptr<llvm::Module> M = parse(Context, NvptxModule);
  ASSERT_TRUE(M);
  EXPECT_EQ(lowerLocalArguments(*M), 1u);
  std::string Broken;
  llvm::raw_string_ostream Why(Broken);
  ASSERT_FALSE(llvm::verifyModule(*M, &Why)) << Why.str();

  llvm::Function *Kernel = M->getFunction("two_locals");
  ASSERT_NE(Kernel, nullptr) << "the kernel keeps its name";
  llvm::FunctionType *Type = Kernel->getFunctionType();
  ASSERT_EQ(Type->getNumParams(), 4u);
  EXPECT_TRUE(Type->getParamType(0)->isPointerTy());
  EXPECT_TRUE(Type->getParamType(1)->isIntegerTy(32));
  EXPECT_TRUE(Type->getParamType(2)->isIntegerTy(32));
  EXPECT_TRUE(Type->getParamType(3)->isIntegerTy(32));
  // The pointer's attributes stay on the pointer and leave the offsets.
  EXPECT_TRUE(Kernel->hasParamAttribute(0, llvm::Attribute::NoAlias));
  EXPECT_FALSE(Kernel->hasParamAttribute(1, llvm::Attribute::NoAlias));
  EXPECT_FALSE(Kernel->getParamAlign(3).has_value());
  EXPECT_NE(Kernel->getMetadata("kernel_arg_addr_space"), nullptr) << "metadata kept";

  // One external zero-length local array, the base of both offsets.
  llvm::GlobalVariable *Array = M->getGlobalVariable("two_locals_local_arguments");
  ASSERT_NE(Array, nullptr);
  EXPECT_TRUE(Array->isDeclaration());
  EXPECT_EQ(Array->getAddressSpace(), 3u);
  EXPECT_EQ(Array->getAlign().valueOrOne().value(), 16u);
  ASSERT_TRUE(Array->getValueType()->isArrayTy());
  EXPECT_EQ(Array->getValueType()->getArrayNumElements(), 0u);
  unsigned Geps = 0;
  for (llvm::User *User : Array->users())
    if (auto *Gep = llvm::dyn_cast<llvm::GetElementPtrInst>(User)) {
      EXPECT_EQ(Gep->getFunction(), Kernel);
      EXPECT_TRUE(Gep->isInBounds());
      EXPECT_TRUE(Gep->getOperand(2) == Kernel->getArg(1) ||
                  Gep->getOperand(2) == Kernel->getArg(3));
      ++Geps;
    }
  EXPECT_EQ(Geps, 2u);

  // nvvm.annotations names the new kernel; the other kernel and the helper are unchanged.
  llvm::NamedMDNode *Annotations = M->getNamedMetadata("nvvm.annotations");
  ASSERT_NE(Annotations, nullptr);
  auto *Named = llvm::cast<llvm::ConstantAsMetadata>(Annotations->getOperand(0)->getOperand(0));
  EXPECT_EQ(Named->getValue(), Kernel);
  llvm::Function *Plain = M->getFunction("no_locals");
  ASSERT_NE(Plain, nullptr);
  EXPECT_TRUE(Plain->getArg(0)->getType()->isPointerTy());
  EXPECT_EQ(M->getGlobalVariable("no_locals_local_arguments"), nullptr);
  llvm::Function *Helper = M->getFunction("helper");
  ASSERT_NE(Helper, nullptr);
  EXPECT_TRUE(Helper->getArg(0)->getType()->isPointerTy());

  // The array is the launch's dynamic local memory, not a symbol another image provides.
  EXPECT_TRUE(importedSymbols(*M).empty());

  // A second run finds nothing left to do.
  EXPECT_EQ(lowerLocalArguments(*M), 0u);
}

TEST(LocalArguments, PtxTakesOffsetsAndDeclaresDynamicSharedMemory) {
  llvm::LLVMContext Context;
  std::unique_ptr<llvm::Module> M = parse(Context, NvptxModule);
  ASSERT_TRUE(M);
  ASSERT_EQ(lowerLocalArguments(*M), 1u);
  llvm::Expected<std::vector<uint8_t>> Bytes = emitPtx(*M, "sm_70");
  ASSERT_TRUE(bool(Bytes)) << errorText(Bytes.takeError());
  const std::string Ptx(Bytes->begin(), Bytes->end());
  EXPECT_NE(Ptx.find(".extern .shared .align 16 .b8 two_locals_local_arguments[];"),
            std::string::npos)
      << Ptx;
  EXPECT_NE(Ptx.find(".param .u32 two_locals_param_1"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find(".param .u32 two_locals_param_3"), std::string::npos) << Ptx;
  EXPECT_EQ(Ptx.find(".ptr .shared"), std::string::npos) << "no shared pointer parameter left";
}

TEST(LocalArguments, AmdgpuKernels) {
  const char *const Text = R"(
target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @k(ptr addrspace(3) %A, i32 %V) {
  store i32 %V, ptr addrspace(3) %A, align 4
  ret void
}
)";
  llvm::LLVMContext Context;
  std::unique_ptr<llvm::Module> M = parse(Context, Text);
  ASSERT_TRUE(M);
  EXPECT_EQ(lowerLocalArguments(*M), 1u);
  llvm::Function *Kernel = M->getFunction("k");
  ASSERT_NE(Kernel, nullptr);
  EXPECT_EQ(Kernel->getCallingConv(), llvm::CallingConv::AMDGPU_KERNEL);
  EXPECT_TRUE(Kernel->getArg(0)->getType()->isIntegerTy(32));
  EXPECT_NE(M->getGlobalVariable("k_local_arguments"), nullptr);
  EXPECT_FALSE(llvm::verifyModule(*M, &llvm::errs()));
}

TEST(Compile, LocalArgumentOffsetsOnlyWhereAsked) {
  // The option changes the PTX only; SPIR-V keeps local pointers.
  for (const bool Offsets : {false, true}) {
    CompileOptions Options;
    Options.Inputs = {std::string(DGLINK_SHIM_TEST_INPUTS) + "/local_arguments.cl"};
    Options.Targets = {"spir64", "nvptx64"};
    Options.LocalArgumentOffsets = Offsets;
    llvm::Expected<Bundle> Result = compile(Options);
    ASSERT_TRUE(bool(Result)) << errorText(Result.takeError());
    ASSERT_EQ(Result->Images.size(), 2u);
    const std::string Ptx(Result->Images[1].Binary.begin(), Result->Images[1].Binary.end());
    EXPECT_EQ(Ptx.find("local_sum_local_arguments[]") != std::string::npos, Offsets) << Ptx;
    EXPECT_EQ(Ptx.find(".ptr .shared") != std::string::npos, !Offsets) << Ptx;
  }
}

} // namespace
} // namespace dglink::shim
