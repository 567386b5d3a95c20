// DPC++'s global offset for CUDA and HIP (addGlobalOffsetEntries): each kernel that reads
// the offset gets "<kernel>_with_offset", its parameters then [3 x i32] by value (NVPTX
// byval, AMDGPU byref in the constant address space), in the IR, in the PTX the shim
// emits (which ptxas assembles for sm_90 where it is installed) and through compile();
// the kernel itself and the kernels that never read it are left with offset 0.
#include "test_util.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace dglink::shim {
namespace {

using test::errorText;
using test::parse;

// clang-15's shape of OpenCL C on nvptx64-nvidia-nvcl: reads_offset reaches the marker
// through a helper and adds it to the id; reads_twice calls the marker itself with a
// dimension it does not know until run time; no_offset never reads it.
const char *const NvptxModule = R"(
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-nvcl"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i64 @__dglink_global_offset(i32)

define internal i64 @global_id() {
  %Tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %Wide = zext i32 %Tid to i64
  %Offset = call i64 @__dglink_global_offset(i32 0)
  %Id = add i64 %Wide, %Offset
  ret i64 %Id
}

define spir_kernel void @reads_offset(ptr addrspace(1) noalias align 4 %Out, i32 %Value) {
  %Id = call i64 @global_id()
  %At = getelementptr inbounds i32, ptr addrspace(1) %Out, i64 %Id
  store i32 %Value, ptr addrspace(1) %At, align 4
  ret void
}

define spir_kernel void @reads_twice(ptr addrspace(1) %Out, i32 %Dimension) {
  %A = call i64 @__dglink_global_offset(i32 %Dimension)
  %B = call i64 @global_id()
  %Sum = add i64 %A, %B
  store i64 %Sum, ptr addrspace(1) %Out, align 8
  ret void
}

define spir_kernel void @no_offset(ptr addrspace(1) %Out) {
  %Tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  store i32 %Tid, ptr addrspace(1) %Out, align 4
  ret void
}

!nvvm.annotations = !{!0, !1, !2, !3}
!0 = !{ptr @reads_offset, !"kernel", i32 1}
!1 = !{ptr @reads_twice, !"kernel", i32 1}
!2 = !{ptr @no_offset, !"kernel", i32 1}
!3 = !{ptr @reads_offset, !"maxntidx", i32 256}
)";

bool callsMarker(const llvm::Function &F) {
  for (const llvm::Instruction &I : llvm::instructions(F))
    if (const auto *Call = llvm::dyn_cast<llvm::CallBase>(&I))
      if (const llvm::Function *Callee = Call->getCalledFunction();
          Callee != nullptr && Callee->getName() == GlobalOffsetMarker)
        return true;
  return false;
}

bool calls(const llvm::Function &F, const llvm::Function &Callee) {
  for (const llvm::Instruction &I : llvm::instructions(F))
    if (const auto *Call = llvm::dyn_cast<llvm::CallBase>(&I))
      if (Call->getCalledFunction() == &Callee)
        return true;
  return false;
}

// The nvvm.annotations of F: {kind, value} pairs.
std::vector<std::pair<std::string, int64_t>> annotationsOf(llvm::Module &M, llvm::Function &F) {
  std::vector<std::pair<std::string, int64_t>> Out;
  for (llvm::MDNode *Node : M.getNamedMetadata("nvvm.annotations")->operands()) {
    auto *Value = llvm::cast<llvm::ConstantAsMetadata>(Node->getOperand(0));
    if (Value->getValue() != &F)
      continue;
    auto *Kind = llvm::cast<llvm::MDString>(Node->getOperand(1));
    auto *Number = llvm::cast<llvm::ConstantAsMetadata>(Node->getOperand(2));
    Out.emplace_back(Kind->getString().str(),
                     llvm::cast<llvm::ConstantInt>(Number->getValue())->getSExtValue());
  }
  return Out;
}

TEST(GlobalOffset, KernelsThatReadTheOffsetGetAnEntryPointTakingItLast) {
  llvm::LLVMContext Context;
  std::unique_ptr<llvm::Module> M = parse(Context, NvptxModule);
  ASSERT_TRUE(M);
  llvm::Expected<unsigned> Entries = addGlobalOffsetEntries(*M);
  ASSERT_TRUE(bool(Entries)) << errorText(Entries.takeError());
  EXPECT_EQ(*Entries, 2u);
  std::string Broken;
  llvm::raw_string_ostream Why(Broken);
  ASSERT_FALSE(llvm::verifyModule(*M, &Why)) << Why.str();
  EXPECT_EQ(M->getFunction(GlobalOffsetMarker), nullptr) << "the marker is gone";

  for (const char *Name : {"reads_offset", "reads_twice"}) {
    SCOPED_TRACE(Name);
    llvm::Function *Kernel = M->getFunction(Name);
    llvm::Function *Entry = M->getFunction(std::string(Name) + OffsetEntrySuffix);
    ASSERT_NE(Kernel, nullptr);
    ASSERT_NE(Entry, nullptr);
    // The kernel's parameters, then the offset: a byval [3 x i32], 4-byte aligned.
    ASSERT_EQ(Entry->arg_size(), Kernel->arg_size() + 1);
    for (unsigned I = 0; I < Kernel->arg_size(); ++I)
      EXPECT_EQ(Entry->getArg(I)->getType(), Kernel->getArg(I)->getType());
    const unsigned Last = Entry->arg_size() - 1;
    EXPECT_TRUE(Entry->getArg(Last)->getType()->isPointerTy());
    EXPECT_EQ(Entry->getArg(Last)->getType()->getPointerAddressSpace(), 0u);
    llvm::Type *ByVal = Entry->getParamByValType(Last);
    ASSERT_NE(ByVal, nullptr);
    ASSERT_TRUE(ByVal->isArrayTy());
    EXPECT_EQ(ByVal->getArrayNumElements(), 3u);
    EXPECT_TRUE(ByVal->getArrayElementType()->isIntegerTy(32));
    EXPECT_EQ(Entry->getParamAlign(Last).valueOrOne().value(), 4u);
    EXPECT_EQ(Entry->getCallingConv(), Kernel->getCallingConv());
    EXPECT_FALSE(callsMarker(*Kernel));
    EXPECT_FALSE(callsMarker(*Entry));
    // Both are kernels to the NVPTX backend.
    const auto Annotations = annotationsOf(*M, *Entry);
    EXPECT_NE(std::find(Annotations.begin(), Annotations.end(),
                        std::make_pair(std::string("kernel"), int64_t(1))),
              Annotations.end());
  }
  // Other annotations of a kernel go with it.
  const auto Copied = annotationsOf(*M, *M->getFunction("reads_offset_with_offset"));
  EXPECT_NE(std::find(Copied.begin(), Copied.end(),
                      std::make_pair(std::string("maxntidx"), int64_t(256))),
            Copied.end());

  // The helper has a twin that takes the offset's address; the kernel keeps the helper,
  // its entry point calls the twin.
  llvm::Function *Helper = M->getFunction("global_id");
  llvm::Function *Twin = M->getFunction("global_id_with_offset");
  ASSERT_NE(Helper, nullptr);
  ASSERT_NE(Twin, nullptr);
  ASSERT_EQ(Twin->arg_size(), 1u);
  EXPECT_TRUE(Twin->hasLocalLinkage());
  EXPECT_TRUE(calls(*M->getFunction("reads_offset"), *Helper));
  EXPECT_TRUE(calls(*M->getFunction("reads_offset_with_offset"), *Twin));
  EXPECT_FALSE(calls(*M->getFunction("reads_offset_with_offset"), *Helper));

  // A kernel that never reads the offset has no entry point.
  EXPECT_EQ(M->getFunction("no_offset_with_offset"), nullptr);
  EXPECT_TRUE(importedSymbols(*M).empty());

  // A second run finds no marker.
  Entries = addGlobalOffsetEntries(*M);
  ASSERT_TRUE(bool(Entries));
  EXPECT_EQ(*Entries, 0u);
}

// ptxas's exit status on Ptx for sm_90, its output in Log; -1 where it could not run.
int assemble(const std::string &Ptx, std::string &Log) {
  char Folder[] = "/tmp/dglink_offset_ptxas_XXXXXX";
  if (mkdtemp(Folder) == nullptr)
    return -1;
  const std::string In = std::string(Folder) + "/in.ptx", Out = std::string(Folder) + "/out",
                    Messages = std::string(Folder) + "/log";
  std::ofstream(In, std::ios::binary) << Ptx;
  const std::string Command = std::string("'") + DGLINK_SHIM_TEST_PTXAS + "' -arch=sm_90 '" + In +
                              "' -o '" + Out + "' >'" + Messages + "' 2>&1";
  const int Status = std::system(Command.c_str());
  std::stringstream Text;
  Text << std::ifstream(Messages).rdbuf();
  Log = Text.str();
  std::remove(In.c_str());
  std::remove(Out.c_str());
  std::remove(Messages.c_str());
  rmdir(Folder);
  return Status == -1 || !WIFEXITED(Status) ? -1 : WEXITSTATUS(Status);
}

// The PTX of an entry point: its parameter list, from ".entry NAME(" to ")".
std::string parametersOf(const std::string &Ptx, const std::string &Name) {
  const size_t Start = Ptx.find(".entry " + Name + "(");
  if (Start == std::string::npos)
    return "";
  return Ptx.substr(Start, Ptx.find(')', Start) - Start + 1);
}

TEST(GlobalOffset, PtxEntryPointTakesTwelveBytesLastAndAssembles) {
  llvm::LLVMContext Context;
  std::unique_ptr<llvm::Module> M = parse(Context, NvptxModule);
  ASSERT_TRUE(M);
  ASSERT_TRUE(bool(addGlobalOffsetEntries(*M)));
  llvm::Expected<std::vector<uint8_t>> Bytes = emitPtx(*M, "sm_70");
  ASSERT_TRUE(bool(Bytes)) << errorText(Bytes.takeError());
  const std::string Ptx(Bytes->begin(), Bytes->end());
  // reads_offset(ptr, i32) -> reads_offset_with_offset(ptr, i32, [3 x i32]).
  const std::string Kernel = parametersOf(Ptx, "reads_offset");
  const std::string Entry = parametersOf(Ptx, "reads_offset_with_offset");
  ASSERT_FALSE(Kernel.empty()) << Ptx;
  ASSERT_FALSE(Entry.empty()) << Ptx;
  EXPECT_EQ(Kernel.find("_param_2"), std::string::npos) << Kernel;
  EXPECT_NE(Entry.find(".param .u64 .ptr .global .align 4 reads_offset_with_offset_param_0"),
            std::string::npos)
      << Entry;
  EXPECT_NE(Entry.find(".param .u32 reads_offset_with_offset_param_1"), std::string::npos) << Entry;
  EXPECT_NE(Entry.find(".param .align 4 .b8 reads_offset_with_offset_param_2[12]"),
            std::string::npos)
      << Entry;
  EXPECT_NE(
      parametersOf(Ptx, "reads_twice_with_offset").find("reads_twice_with_offset_param_2[12]"),
      std::string::npos)
      << Ptx;
  EXPECT_TRUE(parametersOf(Ptx, "no_offset_with_offset").empty());
  if (std::string(DGLINK_SHIM_TEST_PTXAS).empty())
    GTEST_SKIP() << "ptxas was not found when dglink was built";
  std::string Log;
  EXPECT_EQ(assemble(Ptx, Log), 0) << Log << "\n" << Ptx;
}

TEST(GlobalOffset, AmdgpuEntryPointTakesItByReferenceInTheKernelArguments) {
  const char *const Text = R"(
target triple = "amdgcn-amd-amdhsa"
declare i64 @__dglink_global_offset(i32)
define amdgpu_kernel void @k(ptr addrspace(1) %Out) {
  %Offset = call i64 @__dglink_global_offset(i32 1)
  store i64 %Offset, ptr addrspace(1) %Out, align 8
  ret void
}
)";
  llvm::LLVMContext Context;
  std::unique_ptr<llvm::Module> M = parse(Context, Text);
  ASSERT_TRUE(M);
  llvm::Expected<unsigned> Entries = addGlobalOffsetEntries(*M);
  ASSERT_TRUE(bool(Entries)) << errorText(Entries.takeError());
  EXPECT_EQ(*Entries, 1u);
  EXPECT_FALSE(llvm::verifyModule(*M, &llvm::errs()));
  llvm::Function *Entry = M->getFunction("k_with_offset");
  ASSERT_NE(Entry, nullptr);
  EXPECT_EQ(Entry->getCallingConv(), llvm::CallingConv::AMDGPU_KERNEL);
  ASSERT_EQ(Entry->arg_size(), 2u);
  EXPECT_EQ(Entry->getArg(1)->getType()->getPointerAddressSpace(), 4u);
  llvm::Type *ByRef = Entry->getParamByRefType(1);
  ASSERT_NE(ByRef, nullptr);
  EXPECT_EQ(ByRef->getArrayNumElements(), 3u);
  // The kernel itself stores offset 0.
  llvm::Function *Kernel = M->getFunction("k");
  auto *Store = llvm::dyn_cast<llvm::StoreInst>(&*llvm::inst_begin(*Kernel));
  ASSERT_NE(Store, nullptr);
  EXPECT_TRUE(llvm::isa<llvm::ConstantInt>(Store->getValueOperand()));
}

TEST(GlobalOffset, MarkerUsedOtherThanCalledIsAnError) {
  const char *const Text = R"(
target triple = "nvptx64-nvidia-nvcl"
declare i64 @__dglink_global_offset(i32)
@Table = global ptr @__dglink_global_offset
)";
  llvm::LLVMContext Context;
  std::unique_ptr<llvm::Module> M = parse(Context, Text);
  ASSERT_TRUE(M);
  llvm::Expected<unsigned> Entries = addGlobalOffsetEntries(*M);
  ASSERT_FALSE(bool(Entries));
  EXPECT_NE(errorText(Entries.takeError()).find("used other than called"), std::string::npos);
}

TEST(GlobalOffset, DefinedMarkerIsAnError) {
  const char *const Text = R"(
target triple = "nvptx64-nvidia-nvcl"
define i64 @__dglink_global_offset(i32 %D) {
  ret i64 7
}
)";
  llvm::LLVMContext Context;
  std::unique_ptr<llvm::Module> M = parse(Context, Text);
  ASSERT_TRUE(M);
  llvm::Expected<unsigned> Entries = addGlobalOffsetEntries(*M);
  ASSERT_FALSE(bool(Entries));
  EXPECT_NE(errorText(Entries.takeError()).find("declared, not defined"), std::string::npos);
}

TEST(Compile, Nvptx64ImagesHaveOffsetEntryPointsTheirEntriesDoNotList) {
  CompileOptions Options;
  Options.Inputs = {std::string(DGLINK_SHIM_TEST_INPUTS) + "/global_offset.cl"};
  Options.Targets = {"spir64", "nvptx64"};
  llvm::Expected<Bundle> Result = compile(Options);
  ASSERT_TRUE(bool(Result)) << errorText(Result.takeError());
  ASSERT_EQ(Result->Images.size(), 2u);
  const BundleImage &Image = Result->Images[1];
  const std::string Ptx(Image.Binary.begin(), Image.Binary.end());
  EXPECT_FALSE(parametersOf(Ptx, "ids_with_offset").empty()) << Ptx;
  EXPECT_NE(parametersOf(Ptx, "ids_with_offset").find("ids_with_offset_param_1[12]"),
            std::string::npos)
      << Ptx;
  EXPECT_TRUE(parametersOf(Ptx, "plain_with_offset").empty()) << Ptx;
  EXPECT_EQ(Ptx.find(GlobalOffsetMarker), std::string::npos) << Ptx;
  EXPECT_EQ(std::count(Image.Entries.begin(), Image.Entries.end(), "ids_with_offset"), 0);
  // The SPIR-V side keeps OpenCL's get_global_offset.
  const std::string Spir(Result->Images[0].Binary.begin(), Result->Images[0].Binary.end());
  EXPECT_EQ(Spir.find("ids_with_offset"), std::string::npos);
  if (std::string(DGLINK_SHIM_TEST_PTXAS).empty())
    GTEST_SKIP() << "ptxas was not found when dglink was built";
  std::string Log;
  EXPECT_EQ(assemble(Ptx, Log), 0) << Log << "\n" << Ptx;
}

} // namespace
} // namespace dglink::shim
