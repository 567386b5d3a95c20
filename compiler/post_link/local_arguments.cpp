// Local-memory kernel arguments in the form DPC++ gives its CUDA and HIP device code:
// a kernel's `local` (address space 3) pointer parameters become 32-bit offsets into
// one dynamic shared-memory array of the kernel, which the CUDA and HIP adapters lay
// out and size at each launch (common/stream_backend/local_memory.h).
#include "post_link_internal.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>

#include <algorithm>
#include <set>

namespace dglink::shim {
namespace {

// Local memory on both GPU targets (NVPTX shared, AMDGPU LDS).
constexpr unsigned LocalAddressSpace = 3;
// The dynamic array's alignment: its start is the base every offset counts from, and
// the widest load NVPTX and AMDGPU make of local memory is 16 bytes.
constexpr uint64_t DynamicArrayAlignment = 16;

bool isLocalPointer(const llvm::Type *Type) {
  return Type->isPointerTy() && Type->getPointerAddressSpace() == LocalAddressSpace;
}

// Replaces Kernel by a function of the same name whose local pointer parameters are
// i32 offsets into a new external zero-length array in local memory (PTX
// `.extern .shared`, the block's dynamic shared memory), each use of such a parameter
// by the array's address plus its offset. Returns the new function.
llvm::Function *rewriteKernel(llvm::Module &M, llvm::Function &Kernel) {
  llvm::LLVMContext &Context = M.getContext();
  llvm::Type *Offset = llvm::Type::getInt32Ty(Context);
  llvm::FunctionType *Old = Kernel.getFunctionType();
  const llvm::AttributeList Attributes = Kernel.getAttributes();
  std::vector<llvm::Type *> Parameters;
  llvm::SmallVector<llvm::AttributeSet, 8> ParameterAttributes;
  for (unsigned I = 0; I < Old->getNumParams(); ++I) {
    llvm::Type *Type = Old->getParamType(I);
    // Pointer attributes (align, noalias, nocapture...) mean nothing on an offset.
    Parameters.push_back(isLocalPointer(Type) ? Offset : Type);
    ParameterAttributes.push_back(isLocalPointer(Type) ? llvm::AttributeSet()
                                                       : Attributes.getParamAttrs(I));
  }
  auto *ArrayType = llvm::ArrayType::get(llvm::Type::getInt8Ty(Context), 0);
  auto *Array = new llvm::GlobalVariable(M, ArrayType, false, llvm::GlobalValue::ExternalLinkage,
                                         nullptr, Kernel.getName() + "_local_arguments", nullptr,
                                         llvm::GlobalValue::NotThreadLocal, LocalAddressSpace);
  Array->setAlignment(llvm::Align(DynamicArrayAlignment));

  auto *Type = llvm::FunctionType::get(Old->getReturnType(), Parameters, Old->isVarArg());
  llvm::Function *New =
      llvm::Function::Create(Type, Kernel.getLinkage(), Kernel.getAddressSpace(), "", &M);
  New->copyAttributesFrom(&Kernel);
  New->setAttributes(llvm::AttributeList::get(Context, Attributes.getFnAttrs(),
                                              Attributes.getRetAttrs(), ParameterAttributes));
  New->setComdat(Kernel.getComdat());
  llvm::SmallVector<std::pair<unsigned, llvm::MDNode *>, 8> Metadata;
  Kernel.getAllMetadata(Metadata);
  for (const auto &[Kind, Node] : Metadata)
    New->addMetadata(Kind, *Node);
  New->takeName(&Kernel);
  New->getBasicBlockList().splice(New->begin(), Kernel.getBasicBlockList());

  llvm::IRBuilder<> Builder(&*New->getEntryBlock().getFirstInsertionPt());
  auto NewArgument = New->arg_begin();
  for (llvm::Argument &Argument : Kernel.args()) {
    llvm::Value *Replacement = &*NewArgument;
    if (isLocalPointer(Argument.getType())) {
      llvm::Value *Address =
          Builder.CreateInBoundsGEP(ArrayType, Array, {Builder.getInt32(0), &*NewArgument});
      // Typed pointers: the element type of the parameter, not i8.
      Replacement = Builder.CreatePointerCast(Address, Argument.getType());
    }
    NewArgument->takeName(&Argument);
    Argument.replaceAllUsesWith(Replacement);
    ++NewArgument;
  }
  return New;
}

} // namespace

std::vector<llvm::Function *> kernelsOf(llvm::Module &M) {
  std::vector<llvm::Function *> Kernels;
  std::set<llvm::Function *> Seen;
  const auto add = [&](llvm::Function *F) {
    if (F != nullptr && !F->isDeclaration() && Seen.insert(F).second)
      Kernels.push_back(F);
  };
  for (llvm::Function &F : M)
    if (F.getCallingConv() == llvm::CallingConv::PTX_Kernel ||
        F.getCallingConv() == llvm::CallingConv::AMDGPU_KERNEL)
      add(&F);
  if (llvm::NamedMDNode *Annotations = M.getNamedMetadata("nvvm.annotations"))
    for (llvm::MDNode *Node : Annotations->operands()) {
      if (Node->getNumOperands() < 3)
        continue;
      auto *Kind = llvm::dyn_cast_or_null<llvm::MDString>(Node->getOperand(1).get());
      if (Kind == nullptr || Kind->getString() != "kernel")
        continue;
      if (auto *Value = llvm::dyn_cast_or_null<llvm::ConstantAsMetadata>(Node->getOperand(0)))
        add(llvm::dyn_cast<llvm::Function>(Value->getValue()->stripPointerCasts()));
    }
  return Kernels;
}

unsigned lowerLocalArguments(llvm::Module &M) {
  unsigned Changed = 0;
  for (llvm::Function *Kernel : kernelsOf(M)) {
    const llvm::FunctionType *Type = Kernel->getFunctionType();
    if (std::none_of(Type->param_begin(), Type->param_end(), isLocalPointer))
      continue;
    llvm::Function *New = rewriteKernel(M, *Kernel);
    // nvvm.annotations and anything else that names the kernel now name the new one.
    if (llvm::NamedMDNode *Annotations = M.getNamedMetadata("nvvm.annotations"))
      for (llvm::MDNode *Node : Annotations->operands())
        if (Node->getNumOperands() > 0)
          if (auto *Value = llvm::dyn_cast_or_null<llvm::ConstantAsMetadata>(Node->getOperand(0));
              Value != nullptr && Value->getValue()->stripPointerCasts() == Kernel)
            Node->replaceOperandWith(0, llvm::ConstantAsMetadata::get(New));
    if (!Kernel->use_empty())
      Kernel->replaceAllUsesWith(llvm::ConstantExpr::getPointerCast(New, Kernel->getType()));
    Kernel->eraseFromParent();
    ++Changed;
  }
  return Changed;
}

} // namespace dglink::shim
