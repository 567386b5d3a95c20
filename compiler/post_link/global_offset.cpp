// The global offset of a launch in the form DPC++ gives its CUDA and HIP device code
// (addGlobalOffsetEntries, post_link.h): a "<kernel>_with_offset" entry point whose last
// parameter is the offset, which UR's CUDA and HIP adapters (and the stream backend)
// launch for a non-zero offset; the kernel itself reads offset 0.
#include "post_link_internal.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/Triple.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <map>
#include <set>

namespace dglink::shim {
namespace {

// The kernel argument's address space: NVPTX's byval parameter is read through a
// generic pointer; AMDGPU's byref one lives in the constant address space with the
// other kernel arguments.
unsigned offsetAddressSpace(const llvm::Module &M) {
  return llvm::Triple(M.getTargetTriple()).isAMDGPU() ? 4 : 0;
}

// The functions that call Marker, and those that call them, up to the kernels; an
// error where one of them is used other than called (its address taken).
llvm::Expected<std::vector<llvm::Function *>> readersOf(llvm::Function &Marker) {
  std::vector<llvm::Function *> Readers;
  std::set<llvm::Function *> Seen;
  std::vector<llvm::Function *> Pending = {&Marker};
  while (!Pending.empty()) {
    llvm::Function *Callee = Pending.back();
    Pending.pop_back();
    for (llvm::User *User : Callee->users()) {
      auto *Call = llvm::dyn_cast<llvm::CallBase>(User);
      if (Call == nullptr || Call->getCalledOperand() != Callee)
        return makeError("'{}' reads the global offset ({}) and is used other than called: "
                         "its offset cannot be passed",
                         Callee->getName().str(), GlobalOffsetMarker);
      llvm::Function *Caller = Call->getFunction();
      if (Seen.insert(Caller).second) {
        Readers.push_back(Caller);
        Pending.push_back(Caller);
      }
    }
  }
  return Readers;
}

// The offset's component Dimension (0 outside 0..2) read from Offsets ([3 x i32]), as
// Type, the marker's result.
llvm::Value *readOffset(llvm::IRBuilder<> &B, llvm::Value *Offsets, llvm::Value *Dimension,
                        llvm::Type *Type) {
  auto *Array = llvm::ArrayType::get(B.getInt32Ty(), 3);
  llvm::Value *Valid = B.CreateICmpULT(Dimension, llvm::ConstantInt::get(Dimension->getType(), 3));
  llvm::Value *Index =
      B.CreateSelect(Valid, Dimension, llvm::ConstantInt::get(Dimension->getType(), 0));
  llvm::Value *Element = B.CreateInBoundsGEP(
      Array, Offsets, {B.getInt32(0), B.CreateZExtOrTrunc(Index, B.getInt32Ty())});
  llvm::Value *Value =
      B.CreateZExtOrTrunc(B.CreateAlignedLoad(B.getInt32Ty(), Element, llvm::Align(4)), Type);
  return B.CreateSelect(Valid, Value, llvm::ConstantInt::get(Type, 0));
}

// Copies the nvvm.annotations of Kernel (kernel, reqntid, maxntid ...) for Entry.
void annotateLike(llvm::Module &M, const llvm::Function &Kernel, llvm::Function &Entry) {
  llvm::NamedMDNode *Annotations = M.getNamedMetadata("nvvm.annotations");
  if (Annotations == nullptr)
    return;
  std::vector<llvm::MDNode *> Made;
  for (llvm::MDNode *Node : Annotations->operands()) {
    if (Node->getNumOperands() == 0)
      continue;
    auto *Value = llvm::dyn_cast_or_null<llvm::ConstantAsMetadata>(Node->getOperand(0));
    if (Value == nullptr || Value->getValue()->stripPointerCasts() != &Kernel)
      continue;
    llvm::SmallVector<llvm::Metadata *, 8> Operands(Node->op_begin(), Node->op_end());
    Operands[0] = llvm::ConstantAsMetadata::get(&Entry);
    Made.push_back(llvm::MDNode::get(M.getContext(), Operands));
  }
  for (llvm::MDNode *Node : Made)
    Annotations->addOperand(Node);
}

} // namespace

llvm::Expected<unsigned> addGlobalOffsetEntries(llvm::Module &M) {
  llvm::Function *Marker = M.getFunction(GlobalOffsetMarker);
  if (Marker == nullptr)
    return 0;
  llvm::FunctionType *MarkerType = Marker->getFunctionType();
  if (!Marker->isDeclaration() || MarkerType->getNumParams() != 1 ||
      !MarkerType->getParamType(0)->isIntegerTy() || !MarkerType->getReturnType()->isIntegerTy())
    return makeError("'{}' must be declared, not defined, as size_t {}(uint dimension)",
                     GlobalOffsetMarker, GlobalOffsetMarker);
  llvm::Expected<std::vector<llvm::Function *>> Found = readersOf(*Marker);
  if (!Found)
    return Found.takeError();
  const std::vector<llvm::Function *> &Readers = *Found;
  const std::vector<llvm::Function *> Kernels = kernelsOf(M);
  const std::set<llvm::Function *> KernelSet(Kernels.begin(), Kernels.end());
  llvm::LLVMContext &Context = M.getContext();
  auto *Array = llvm::ArrayType::get(llvm::Type::getInt32Ty(Context), 3);
  llvm::PointerType *OffsetPointer = llvm::PointerType::get(Array, offsetAddressSpace(M));
  const bool Amdgpu = llvm::Triple(M.getTargetTriple()).isAMDGPU();

  // Each reader's twin: its parameters, then the offset's address.
  std::map<llvm::Function *, llvm::Function *> Twins;
  unsigned Entries = 0;
  for (llvm::Function *Reader : Readers) {
    llvm::FunctionType *Old = Reader->getFunctionType();
    std::vector<llvm::Type *> Parameters(Old->param_begin(), Old->param_end());
    Parameters.push_back(OffsetPointer);
    auto *Type = llvm::FunctionType::get(Old->getReturnType(), Parameters, Old->isVarArg());
    llvm::Function *Twin =
        llvm::Function::Create(Type, Reader->getLinkage(), Reader->getAddressSpace(),
                               Reader->getName() + OffsetEntrySuffix, &M);
    llvm::ValueToValueMapTy Map;
    for (unsigned I = 0; I < Old->getNumParams(); ++I) {
      Twin->getArg(I)->setName(Reader->getArg(I)->getName());
      Map[Reader->getArg(I)] = Twin->getArg(I);
    }
    llvm::SmallVector<llvm::ReturnInst *, 4> Returns;
    llvm::CloneFunctionInto(Twin, Reader, Map, llvm::CloneFunctionChangeType::LocalChangesOnly,
                            Returns);
    Twin->setCallingConv(Reader->getCallingConv());
    llvm::Argument *Offsets = Twin->getArg(Old->getNumParams());
    Offsets->setName("global_offset");
    if (KernelSet.count(Reader) != 0) {
      // The kernel argument itself: 12 bytes by value, as DPC++'s entry points take it.
      Twin->addParamAttr(Offsets->getArgNo(),
                         Amdgpu ? llvm::Attribute::getWithByRefType(Context, Array)
                                : llvm::Attribute::getWithByValType(Context, Array));
      Twin->addParamAttr(Offsets->getArgNo(),
                         llvm::Attribute::getWithAlignment(Context, llvm::Align(4)));
      annotateLike(M, *Reader, *Twin);
      ++Entries;
    }
    Twins[Reader] = Twin;
  }

  // In the twins, the marker reads the offset and calls of readers go to their twins.
  for (const auto &[Reader, Twin] : Twins) {
    llvm::Argument *Offsets = Twin->getArg(Twin->arg_size() - 1);
    std::vector<llvm::CallBase *> Calls;
    for (llvm::Instruction &I : llvm::instructions(*Twin))
      if (auto *Call = llvm::dyn_cast<llvm::CallBase>(&I))
        if (auto *Callee = Call->getCalledFunction();
            Callee == Marker || (Callee != nullptr && Twins.count(Callee) != 0))
          Calls.push_back(Call);
    for (llvm::CallBase *Call : Calls) {
      llvm::IRBuilder<> B(Call);
      llvm::Function *Callee = Call->getCalledFunction();
      llvm::Value *Result = nullptr;
      if (Callee == Marker) {
        Result = readOffset(B, Offsets, Call->getArgOperand(0), Call->getType());
      } else {
        llvm::SmallVector<llvm::Value *, 8> Arguments(Call->arg_begin(), Call->arg_end());
        Arguments.push_back(Offsets);
        llvm::CallInst *Made = B.CreateCall(Twins[Callee], Arguments);
        Made->setCallingConv(Call->getCallingConv());
        Made->setDebugLoc(Call->getDebugLoc());
        Result = Made;
      }
      if (!Call->getType()->isVoidTy())
        Call->replaceAllUsesWith(Result);
      Call->eraseFromParent();
    }
  }

  // Everywhere else the offset is 0; the marker goes.
  std::vector<llvm::CallBase *> Rest;
  for (llvm::User *User : Marker->users())
    Rest.push_back(llvm::cast<llvm::CallBase>(User));
  for (llvm::CallBase *Call : Rest) {
    Call->replaceAllUsesWith(llvm::ConstantInt::get(Call->getType(), 0));
    Call->eraseFromParent();
  }
  Marker->eraseFromParent();
  return Entries;
}

} // namespace dglink::shim
