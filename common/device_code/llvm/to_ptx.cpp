// SPIR-V read back into LLVM IR, written as PTX for NVIDIA's OpenCL (to_ptx.h).
//
// What clang-15 does for OpenCL C on nvptx64-nvidia-nvcl, and so what is done here:
// - address spaces: private 0, global 1, local 3, constant 4, generic 0 (SPIR: private 0,
//   global 1, constant 2, local 3, generic 4); every type of the module is rewritten, in
//   a new module, with the pointers in opaque form (the reader gives typed pointers);
// - builtins are calls to their Itanium names, address spaces mangled with NVPTX's numbers
//   (remangle.h); kernels keep spir_kernel and are named in !nvvm.annotations "kernel";
//   other functions use the C calling convention;
// - the target triple nvptx64-nvidia-nvcl and the NVPTX data layout.
// Unlike clang's output, the OpenCL work-item functions (get_global_id, barrier, ...) are
// defined here from PTX's special registers: NVIDIA's OpenCL leaves them unresolved in a
// PTX binary (the conformance sources read the registers directly on NVPTX for the same
// reason); so are OpenCL 1.2's atomic functions, as NVPTX's atomic instructions. mad is
// llvm.fmuladd, which is what clang made of a * b + c before llvm-spirv named it mad. Every
// other builtin (math, ...) stays an external call, as in clang's PTX. The PTX comes from the
// shim's emitPtx (compiler/post_link), which adds the linkage directives the nvcl flavour of the
// backend leaves out.
#include "to_ptx.h"

#include "ptx_math.h"
#include "remangle.h"

#include <dglink/compiler/post_link.h>

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <map>
#include <memory>
#include <mutex>

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace dglink::device_code {
namespace {

constexpr const char *NvclTriple = "nvptx64-nvidia-nvcl";
// The oldest GPUs NVIDIA's OpenCL drivers of today serve (Maxwell). The nvcl target's
// default, sm_20, has no funnel shift: NVPTX then rotates by a register amount in software
// without taking the amount modulo the width, so OpenCL's rotate(x, 40) gave 0 on an H200
// (MathBuiltins.IntegerRelationalAndConversionsExact); from sm_32 on it is one shf.wrap.
constexpr const char *TranslationArch = "sm_50";

// SPIR's address spaces as NVPTX's; false for one NVPTX has no counterpart of.
bool nvptxSpace(unsigned Spir, unsigned &Nvptx) {
  switch (Spir) {
  case 0: // private: allocas, which NVPTX keeps generic
  case 4: // generic
    Nvptx = 0;
    return true;
  case 1: // global
  case 3: // local (shared)
    Nvptx = Spir;
    return true;
  case 2: // constant
    Nvptx = 4;
    return true;
  default:
    return false;
  }
}

// The mangling of SPIR's constant and generic pointers in NVPTX's numbers (remangle.h).
const std::map<unsigned, unsigned> &manglingSpaces() {
  static const std::map<unsigned, unsigned> Spaces = {{2, 4}, {4, 0}};
  return Spaces;
}

// Every type rewritten with NVPTX's address spaces.
class SpaceMapper final : public llvm::ValueMapTypeRemapper {
public:
  explicit SpaceMapper(llvm::LLVMContext &InContext) : Context(InContext) {}

  llvm::Type *remapType(llvm::Type *Type) override {
    const auto Known = Done.find(Type);
    if (Known != Done.end())
      return Known->second;
    llvm::Type *Mapped = map(Type);
    Done[Type] = Mapped;
    return Mapped;
  }
  // The first address space that has no NVPTX counterpart (-1: none).
  long unknownSpace() const { return Unknown; }

private:
  llvm::Type *map(llvm::Type *Type) {
    if (auto *Pointer = llvm::dyn_cast<llvm::PointerType>(Type)) {
      unsigned Space = 0;
      if (!nvptxSpace(Pointer->getAddressSpace(), Space)) {
        if (Unknown < 0)
          Unknown = Pointer->getAddressSpace();
        Space = Pointer->getAddressSpace();
      }
      return llvm::PointerType::get(Context, Space);
    }
    if (auto *Array = llvm::dyn_cast<llvm::ArrayType>(Type))
      return llvm::ArrayType::get(remapType(Array->getElementType()), Array->getNumElements());
    if (auto *Vector = llvm::dyn_cast<llvm::VectorType>(Type))
      return llvm::VectorType::get(remapType(Vector->getElementType()), Vector->getElementCount());
    if (auto *Function = llvm::dyn_cast<llvm::FunctionType>(Type)) {
      std::vector<llvm::Type *> Parameters;
      for (llvm::Type *Parameter : Function->params())
        Parameters.push_back(remapType(Parameter));
      return llvm::FunctionType::get(remapType(Function->getReturnType()), Parameters,
                                     Function->isVarArg());
    }
    if (auto *Struct = llvm::dyn_cast<llvm::StructType>(Type)) {
      if (Struct->isOpaque())
        return Struct;
      std::vector<llvm::Type *> Elements;
      bool Changed = false;
      for (llvm::Type *Element : Struct->elements()) {
        Elements.push_back(remapType(Element));
        Changed = Changed || Elements.back() != Element;
      }
      if (!Changed)
        return Struct;
      if (Struct->isLiteral())
        return llvm::StructType::get(Context, Elements, Struct->isPacked());
      // Opaque pointers cannot lead back to the struct itself: no cycle to break.
      return llvm::StructType::create(Context, Elements, Struct->getName(), Struct->isPacked());
    }
    return Type;
  }

  llvm::LLVMContext &Context;
  std::map<llvm::Type *, llvm::Type *> Done;
  long Unknown = -1;
};

// The address-space cast constant that would become a cast into its own address space
// (private or generic into the other: both are NVPTX's 0), which no constant can be.
const llvm::ConstantExpr *collapsingCast(const llvm::Constant *Root) {
  llvm::SmallPtrSet<const llvm::Constant *, 16> Seen;
  std::vector<const llvm::Constant *> Work = {Root};
  while (!Work.empty()) {
    const llvm::Constant *C = Work.back();
    Work.pop_back();
    if (llvm::isa<llvm::GlobalValue>(C) || !Seen.insert(C).second)
      continue;
    if (const auto *Expression = llvm::dyn_cast<llvm::ConstantExpr>(C);
        Expression != nullptr && Expression->getOpcode() == llvm::Instruction::AddrSpaceCast) {
      unsigned From = 0, To = 0;
      if (nvptxSpace(Expression->getOperand(0)->getType()->getPointerAddressSpace(), From) &&
          nvptxSpace(Expression->getType()->getPointerAddressSpace(), To) && From == To)
        return Expression;
    }
    for (const llvm::Use &Operand : C->operands())
      if (const auto *Inner = llvm::dyn_cast<llvm::Constant>(Operand.get()))
        Work.push_back(Inner);
  }
  return nullptr;
}

bool checkConstants(const llvm::Module &M, std::string &Error) {
  auto Refuse = [&Error](const std::string &Where) {
    Error = "a constant address-space cast between the private and the generic address space "
            "(both NVPTX's generic space) in " +
            Where + " cannot be written for NVPTX";
    return false;
  };
  for (const llvm::GlobalVariable &Variable : M.globals())
    if (Variable.hasInitializer() && collapsingCast(Variable.getInitializer()) != nullptr)
      return Refuse("the initializer of '" + Variable.getName().str() + "'");
  for (const llvm::Function &F : M)
    for (const llvm::BasicBlock &Block : F)
      for (const llvm::Instruction &I : Block)
        for (const llvm::Use &Operand : I.operands())
          if (const auto *C = llvm::dyn_cast<llvm::Constant>(Operand.get());
              C != nullptr && collapsingCast(C) != nullptr)
            return Refuse("function '" + F.getName().str() + "'");
  return true;
}

// Attributes that carry a type (byval, sret, ...) with their types rewritten.
llvm::AttributeList remapAttributeTypes(llvm::LLVMContext &Context, llvm::AttributeList Attributes,
                                        SpaceMapper &Mapper) {
  for (unsigned Index = 0; Index < Attributes.getNumAttrSets(); ++Index)
    for (int Kind = llvm::Attribute::FirstTypeAttr; Kind <= llvm::Attribute::LastTypeAttr; ++Kind) {
      const auto TypeKind = static_cast<llvm::Attribute::AttrKind>(Kind);
      if (llvm::Type *Type = Attributes.getAttributeAtIndex(Index, TypeKind).getValueAsType())
        Attributes = Attributes.replaceAttributeTypeAtIndex(Context, Index, TypeKind,
                                                            Mapper.remapType(Type));
    }
  return Attributes;
}

// Old (typed pointers, SPIR's address spaces) rewritten into a new module of Context.
std::unique_ptr<llvm::Module> rewriteSpaces(llvm::Module &Old, llvm::LLVMContext &Context,
                                            std::string &Error) {
  if (!Old.aliases().empty() || !Old.ifuncs().empty()) {
    Error = "the module has aliases or ifuncs, which are not translated into PTX";
    return nullptr;
  }
  if (!checkConstants(Old, Error))
    return nullptr;
  auto New = std::make_unique<llvm::Module>(Old.getModuleIdentifier(), Context);
  New->setSourceFileName(Old.getSourceFileName());
  SpaceMapper Mapper(Context);
  llvm::ValueToValueMapTy Map;

  for (llvm::GlobalVariable &Variable : Old.globals()) {
    unsigned Space = 0;
    if (!nvptxSpace(Variable.getAddressSpace(), Space)) {
      Error = "variable '" + Variable.getName().str() + "' is in address space " +
              std::to_string(Variable.getAddressSpace()) + ", which NVPTX has no counterpart of";
      return nullptr;
    }
    auto *Made = new llvm::GlobalVariable(
        *New, Mapper.remapType(Variable.getValueType()), Variable.isConstant(),
        Variable.getLinkage(), nullptr, Variable.getName(), nullptr, Variable.getThreadLocalMode(),
        Space, Variable.isExternallyInitialized());
    Made->copyAttributesFrom(&Variable);
    Map[&Variable] = Made;
  }
  for (llvm::Function &F : Old) {
    auto *Type = llvm::cast<llvm::FunctionType>(Mapper.remapType(F.getFunctionType()));
    std::string Name = F.getName().str();
    // A builtin keeps its OpenCL name in NVPTX's mangling; what the module defines keeps
    // its name (its callers, in this module or another translated one, use that name).
    if (F.isDeclaration() && !F.isIntrinsic())
      if (std::optional<std::string> Renamed = remapAddressSpaceMangling(Name, manglingSpaces()))
        Name = std::move(*Renamed);
    if (llvm::Function *Same = New->getFunction(Name); Same != nullptr && F.isDeclaration() &&
                                                       Same->isDeclaration() &&
                                                       Same->getFunctionType() == Type) {
      Map[&F] = Same; // generic and private pointers: one NVPTX name
      continue;
    }
    llvm::Function *Made =
        llvm::Function::Create(Type, F.getLinkage(), F.getAddressSpace(), Name, New.get());
    Made->copyAttributesFrom(&F);
    Made->setAttributes(remapAttributeTypes(Context, F.getAttributes(), Mapper));
    Map[&F] = Made;
  }
  for (llvm::GlobalVariable &Variable : Old.globals()) {
    auto *Made = llvm::cast<llvm::GlobalVariable>(Map[&Variable]);
    if (Variable.hasInitializer())
      Made->setInitializer(llvm::MapValue(Variable.getInitializer(), Map, llvm::RF_None, &Mapper));
    llvm::SmallVector<std::pair<unsigned, llvm::MDNode *>, 4> Attached;
    Variable.getAllMetadata(Attached);
    for (const auto &[Kind, Node] : Attached)
      Made->addMetadata(Kind, *llvm::MapMetadata(Node, Map, llvm::RF_None, &Mapper));
  }
  for (llvm::Function &F : Old) {
    if (F.isDeclaration())
      continue;
    auto *Made = llvm::cast<llvm::Function>(Map[&F]);
    auto Argument = Made->arg_begin();
    for (llvm::Argument &Original : F.args()) {
      Argument->setName(Original.getName());
      Map[&Original] = &*Argument++;
    }
    llvm::SmallVector<llvm::ReturnInst *, 8> Returns;
    llvm::CloneFunctionInto(Made, &F, Map, llvm::CloneFunctionChangeType::DifferentModule, Returns,
                            "", nullptr, &Mapper);
    Made->setAttributes(remapAttributeTypes(Context, F.getAttributes(), Mapper));
  }
  for (const llvm::NamedMDNode &Named : Old.named_metadata()) {
    llvm::NamedMDNode *Made = New->getOrInsertNamedMetadata(Named.getName());
    for (const llvm::MDNode *Node : Named.operands())
      Made->addOperand(llvm::MapMetadata(Node, Map, llvm::RF_None, &Mapper));
  }
  if (Mapper.unknownSpace() >= 0) {
    Error = "the module uses address space " + std::to_string(Mapper.unknownSpace()) +
            ", which NVPTX has no counterpart of";
    return nullptr;
  }
  return New;
}

// What the rewrite leaves to tidy: casts between private and generic (one space now),
// intrinsics named after their old pointer types, SPIR's function calling convention.
void tidy(llvm::Module &M) {
  for (llvm::Function &F : M) {
    for (llvm::BasicBlock &Block : F)
      for (llvm::Instruction &I : llvm::make_early_inc_range(Block)) {
        if (auto *Cast = llvm::dyn_cast<llvm::AddrSpaceCastInst>(&I);
            Cast != nullptr && Cast->getSrcAddressSpace() == Cast->getDestAddressSpace()) {
          Cast->replaceAllUsesWith(Cast->getOperand(0));
          Cast->eraseFromParent();
        } else if (auto *Call = llvm::dyn_cast<llvm::CallBase>(&I);
                   Call != nullptr && Call->getCallingConv() == llvm::CallingConv::SPIR_FUNC) {
          Call->setCallingConv(llvm::CallingConv::C);
        }
      }
    if (F.getCallingConv() == llvm::CallingConv::SPIR_FUNC)
      F.setCallingConv(llvm::CallingConv::C);
  }
  for (llvm::Function &F : llvm::make_early_inc_range(M))
    if (F.isIntrinsic())
      if (llvm::Optional<llvm::Function *> Renamed =
              llvm::Intrinsic::remangleIntrinsicFunction(&F)) {
        F.replaceAllUsesWith(*Renamed);
        F.eraseFromParent();
      }
}

// Kernels named for NVPTX as clang names them: !{ptr @k, !"kernel", i32 1}.
void annotateKernels(llvm::Module &M) {
  llvm::LLVMContext &Context = M.getContext();
  llvm::NamedMDNode *Annotations = M.getOrInsertNamedMetadata("nvvm.annotations");
  for (llvm::Function &F : M) {
    if (F.isDeclaration() || F.getCallingConv() != llvm::CallingConv::SPIR_KERNEL)
      continue;
    llvm::Metadata *Operands[] = {
        llvm::ValueAsMetadata::get(&F), llvm::MDString::get(Context, "kernel"),
        llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(Context), 1))};
    Annotations->addOperand(llvm::MDNode::get(Context, Operands));
  }
}

// ---- the OpenCL work-item functions, from PTX's special registers ----

enum class Register { Tid, Ntid, Ctaid, Nctaid };

llvm::Value *special(llvm::IRBuilder<> &B, Register R, unsigned Dimension) {
  static const llvm::Intrinsic::ID Ids[4][3] = {
      {llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y,
       llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z},
      {llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x, llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_y,
       llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_z},
      {llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
       llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z},
      {llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_y,
       llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_z}};
  llvm::Module &M = *B.GetInsertBlock()->getModule();
  return B.CreateCall(llvm::Intrinsic::getDeclaration(&M, Ids[static_cast<int>(R)][Dimension]));
}

llvm::Value *wide(llvm::IRBuilder<> &B, Register R, unsigned Dimension) {
  return B.CreateZExt(special(B, R, Dimension), B.getInt64Ty());
}

enum class Query { GlobalId, LocalId, GroupId, LocalSize, GlobalSize, NumGroups, GlobalOffset };

llvm::Value *component(llvm::IRBuilder<> &B, Query Q, unsigned Dimension) {
  switch (Q) {
  case Query::GlobalId:
    return B.CreateAdd(
        B.CreateMul(wide(B, Register::Ctaid, Dimension), wide(B, Register::Ntid, Dimension)),
        wide(B, Register::Tid, Dimension));
  case Query::LocalId:
    return wide(B, Register::Tid, Dimension);
  case Query::GroupId:
    return wide(B, Register::Ctaid, Dimension);
  case Query::LocalSize:
    return wide(B, Register::Ntid, Dimension);
  case Query::GlobalSize:
    return B.CreateMul(wide(B, Register::Nctaid, Dimension), wide(B, Register::Ntid, Dimension));
  case Query::NumGroups:
    return wide(B, Register::Nctaid, Dimension);
  case Query::GlobalOffset:
    break;
  }
  // A PTX binary on NVIDIA's OpenCL has no way to the launch's global offset.
  return B.getInt64(0);
}

// A body for the declared function F; its calls are then inlined at -O2.
llvm::IRBuilder<> startDefinition(llvm::Function &F) {
  F.setLinkage(llvm::GlobalValue::InternalLinkage);
  F.setCallingConv(llvm::CallingConv::C);
  F.setAttributes(llvm::AttributeList());
  F.addFnAttr(llvm::Attribute::AlwaysInline);
  F.addFnAttr(llvm::Attribute::NoUnwind);
  return llvm::IRBuilder<>(llvm::BasicBlock::Create(F.getContext(), "entry", &F));
}

bool hasType(const llvm::Function &F, llvm::Type *Result,
             const std::vector<llvm::Type *> &Parameters) {
  return F.getFunctionType() == llvm::FunctionType::get(Result, Parameters, false);
}

// size_t f(uint dimension): the component of the dimension, Default outside 0..2.
void defineDimensionQuery(llvm::Function &F, Query Q, uint64_t Default) {
  llvm::IRBuilder<> B = startDefinition(F);
  llvm::Value *Dimension = F.getArg(0);
  llvm::Value *Result = B.getInt64(Default);
  for (unsigned D = 3; D-- > 0;)
    Result = B.CreateSelect(B.CreateICmpEQ(Dimension, B.getInt32(D)), component(B, Q, D), Result);
  B.CreateRet(Result);
}

llvm::Value *localLinearId(llvm::IRBuilder<> &B) {
  // (tid.z * ntid.y + tid.y) * ntid.x + tid.x
  llvm::Value *Id = special(B, Register::Tid, 2);
  Id = B.CreateAdd(B.CreateMul(Id, special(B, Register::Ntid, 1)), special(B, Register::Tid, 1));
  return B.CreateAdd(B.CreateMul(Id, special(B, Register::Ntid, 0)), special(B, Register::Tid, 0));
}

llvm::Value *localLinearSize(llvm::IRBuilder<> &B) {
  return B.CreateMul(B.CreateMul(special(B, Register::Ntid, 0), special(B, Register::Ntid, 1)),
                     special(B, Register::Ntid, 2));
}

void defineWorkItemFunctions(llvm::Module &M) {
  static const struct {
    const char *Name;
    Query What;
    uint64_t Default;
  } DimensionQueries[] = {{"_Z13get_global_idj", Query::GlobalId, 0},
                          {"_Z12get_local_idj", Query::LocalId, 0},
                          {"_Z12get_group_idj", Query::GroupId, 0},
                          {"_Z14get_local_sizej", Query::LocalSize, 1},
                          {"_Z23get_enqueued_local_sizej", Query::LocalSize, 1},
                          {"_Z15get_global_sizej", Query::GlobalSize, 1},
                          {"_Z14get_num_groupsj", Query::NumGroups, 1},
                          {"_Z17get_global_offsetj", Query::GlobalOffset, 0}};
  llvm::LLVMContext &Context = M.getContext();
  llvm::Type *Int32 = llvm::Type::getInt32Ty(Context);
  llvm::Type *Int64 = llvm::Type::getInt64Ty(Context);
  llvm::Type *Void = llvm::Type::getVoidTy(Context);
  auto Declared = [&M](const char *Name) -> llvm::Function * {
    llvm::Function *F = M.getFunction(Name);
    return F != nullptr && F->isDeclaration() ? F : nullptr;
  };
  for (const auto &Query : DimensionQueries)
    if (llvm::Function *F = Declared(Query.Name); F != nullptr && hasType(*F, Int64, {Int32}))
      defineDimensionQuery(*F, Query.What, Query.Default);

  if (llvm::Function *F = Declared("_Z12get_work_dimv"); F != nullptr && hasType(*F, Int32, {})) {
    // The launch does not say how many dimensions it had: the highest one with more
    // than one work-item counts (as the CUDA adapter's definitions do).
    llvm::IRBuilder<> B = startDefinition(*F);
    llvm::Value *Dimensions = B.getInt32(1);
    for (unsigned D = 1; D < 3; ++D) {
      llvm::Value *Items =
          B.CreateMul(special(B, Register::Nctaid, D), special(B, Register::Ntid, D));
      Dimensions =
          B.CreateSelect(B.CreateICmpUGT(Items, B.getInt32(1)), B.getInt32(D + 1), Dimensions);
    }
    B.CreateRet(Dimensions);
  }
  if (llvm::Function *F = Declared("_Z20get_global_linear_idv");
      F != nullptr && hasType(*F, Int64, {})) {
    llvm::IRBuilder<> B = startDefinition(*F);
    llvm::Value *Id = component(B, Query::GlobalId, 2);
    for (unsigned D = 2; D-- > 0;)
      Id = B.CreateAdd(B.CreateMul(Id, component(B, Query::GlobalSize, D)),
                       component(B, Query::GlobalId, D));
    B.CreateRet(Id);
  }
  if (llvm::Function *F = Declared("_Z19get_local_linear_idv");
      F != nullptr && hasType(*F, Int64, {})) {
    llvm::IRBuilder<> B = startDefinition(*F);
    B.CreateRet(B.CreateZExt(localLinearId(B), Int64));
  }
  // Sub-groups are warps: 32 work-items of consecutive local linear ids.
  if (llvm::Function *F = Declared("_Z22get_sub_group_local_idv");
      F != nullptr && hasType(*F, Int32, {})) {
    llvm::IRBuilder<> B = startDefinition(*F);
    B.CreateRet(B.CreateURem(localLinearId(B), B.getInt32(32)));
  }
  if (llvm::Function *F = Declared("_Z15get_sub_group_idv");
      F != nullptr && hasType(*F, Int32, {})) {
    llvm::IRBuilder<> B = startDefinition(*F);
    B.CreateRet(B.CreateUDiv(localLinearId(B), B.getInt32(32)));
  }
  if (llvm::Function *F = Declared("_Z22get_max_sub_group_sizev");
      F != nullptr && hasType(*F, Int32, {})) {
    llvm::IRBuilder<> B = startDefinition(*F);
    B.CreateRet(B.getInt32(32));
  }
  for (const char *Name : {"_Z18get_num_sub_groupsv", "_Z27get_enqueued_num_sub_groupsv"})
    if (llvm::Function *F = Declared(Name); F != nullptr && hasType(*F, Int32, {})) {
      llvm::IRBuilder<> B = startDefinition(*F);
      B.CreateRet(B.CreateUDiv(B.CreateAdd(localLinearSize(B), B.getInt32(31)), B.getInt32(32)));
    }
  if (llvm::Function *F = Declared("_Z18get_sub_group_sizev");
      F != nullptr && hasType(*F, Int32, {})) {
    // The last sub-group of a work-group holds what is left.
    llvm::IRBuilder<> B = startDefinition(*F);
    llvm::Value *Start =
        B.CreateMul(B.CreateUDiv(localLinearId(B), B.getInt32(32)), B.getInt32(32));
    llvm::Value *Left = B.CreateSub(localLinearSize(B), Start);
    B.CreateRet(B.CreateSelect(B.CreateICmpULT(Left, B.getInt32(32)), Left, B.getInt32(32)));
  }
  // bar.sync orders every state space among the threads of a block: OpenCL's work-group
  // barrier for local and global memory alike.
  auto DefineWith = [&](const char *Name, const std::vector<llvm::Type *> &Parameters,
                        llvm::Intrinsic::ID Id) {
    if (llvm::Function *F = Declared(Name); F != nullptr && hasType(*F, Void, Parameters)) {
      llvm::IRBuilder<> B = startDefinition(*F);
      F->addFnAttr(llvm::Attribute::Convergent);
      B.CreateCall(llvm::Intrinsic::getDeclaration(&M, Id));
      B.CreateRetVoid();
    }
  };
  DefineWith("_Z7barrierj", {Int32}, llvm::Intrinsic::nvvm_barrier0);
  DefineWith("_Z18work_group_barrierj", {Int32}, llvm::Intrinsic::nvvm_barrier0);
  DefineWith("_Z18work_group_barrierj12memory_scope", {Int32, Int32},
             llvm::Intrinsic::nvvm_barrier0);
  DefineWith("_Z9mem_fencej", {Int32}, llvm::Intrinsic::nvvm_membar_cta);
  DefineWith("_Z14read_mem_fencej", {Int32}, llvm::Intrinsic::nvvm_membar_cta);
  DefineWith("_Z15write_mem_fencej", {Int32}, llvm::Intrinsic::nvvm_membar_cta);
}

// The plain name of an Itanium-mangled free function ("_Z10atomic_addPU3AS1Vii" ->
// "atomic_add"), or empty.
llvm::StringRef plainName(llvm::StringRef Mangled) {
  if (!Mangled.consume_front("_Z"))
    return {};
  size_t Length = 0;
  if (Mangled.consumeInteger(10, Length) || Length > Mangled.size())
    return {};
  return Mangled.take_front(Length);
}

// OpenCL 1.2's atomic functions (atomic_* and the cl_khr_*_atomics atom_*) on a global,
// local or generic int, uint, long or ulong (and float for xchg), as NVPTX's atomic
// instructions: relaxed, as OpenCL 1.2 defines them. Signedness is the last parameter's
// type in the name (i, l signed; j, m unsigned).
void defineAtomics(llvm::Module &M) {
  for (llvm::Function &F : M) {
    if (!F.isDeclaration() || F.isIntrinsic())
      continue;
    llvm::StringRef Name = plainName(F.getName());
    if (!Name.consume_front("atomic_") && !Name.consume_front("atom_"))
      continue;
    llvm::FunctionType *Type = F.getFunctionType();
    llvm::Type *Value = Type->getReturnType();
    const unsigned Parameters = Type->getNumParams();
    if (Parameters < 1 || Parameters > 3 || !Type->getParamType(0)->isPointerTy() ||
        !(Value->isIntegerTy(32) || Value->isIntegerTy(64) ||
          (Name == "xchg" && Value->isFloatTy())))
      continue;
    bool Typed = true;
    for (unsigned I = 1; I < Parameters; ++I)
      Typed = Typed && Type->getParamType(I) == Value;
    if (!Typed)
      continue;
    const char Last = F.getName().back();
    const bool Unsigned = Last == 'j' || Last == 'm';
    using Op = llvm::AtomicRMWInst::BinOp;
    const std::map<llvm::StringRef, Op> Binary = {{"add", Op::Add},
                                                  {"sub", Op::Sub},
                                                  {"xchg", Op::Xchg},
                                                  {"and", Op::And},
                                                  {"or", Op::Or},
                                                  {"xor", Op::Xor},
                                                  {"min", Unsigned ? Op::UMin : Op::Min},
                                                  {"max", Unsigned ? Op::UMax : Op::Max}};
    const auto Found = Binary.find(Name);
    const bool Step = Name == "inc" || Name == "dec";
    const bool Exchange = Name == "cmpxchg";
    if (!((Found != Binary.end() && Parameters == 2) || (Step && Parameters == 1) ||
          (Exchange && Parameters == 3)))
      continue;
    llvm::IRBuilder<> B = startDefinition(F);
    llvm::Value *Pointer = F.getArg(0);
    const auto Relaxed = llvm::AtomicOrdering::Monotonic;
    const llvm::MaybeAlign Natural(M.getDataLayout().getTypeStoreSize(Value).getFixedSize());
    if (Exchange) {
      llvm::Value *Pair =
          B.CreateAtomicCmpXchg(Pointer, F.getArg(1), F.getArg(2), Natural, Relaxed, Relaxed);
      B.CreateRet(B.CreateExtractValue(Pair, 0));
    } else if (Step) {
      B.CreateRet(B.CreateAtomicRMW(Name == "inc" ? Op::Add : Op::Sub, Pointer,
                                    llvm::ConstantInt::get(Value, 1), Natural, Relaxed));
    } else {
      B.CreateRet(B.CreateAtomicRMW(Found->second, Pointer, F.getArg(1), Natural, Relaxed));
    }
  }
}

// OpenCL's mad as llvm.fmuladd: what clang emits for a * b + c, which llvm-spirv writes as
// OpenCL.std's mad and the reader gives back as a call of mad; clang's PTX has an fma.
void defineMad(llvm::Module &M) {
  for (llvm::Function &F : M) {
    if (!F.isDeclaration() || plainName(F.getName()) != "mad")
      continue;
    llvm::FunctionType *Type = F.getFunctionType();
    llvm::Type *Value = Type->getReturnType();
    if (!Value->isFPOrFPVectorTy() || Type->getNumParams() != 3 || Type->getParamType(0) != Value ||
        Type->getParamType(1) != Value || Type->getParamType(2) != Value)
      continue;
    llvm::IRBuilder<> B = startDefinition(F);
    B.CreateRet(B.CreateIntrinsic(llvm::Intrinsic::fmuladd, {Value},
                                  {F.getArg(0), F.getArg(1), F.getArg(2)}));
  }
}

bool verified(llvm::Module &M, const char *Stage, std::string &Error) {
  std::string Broken;
  llvm::raw_string_ostream Stream(Broken);
  if (!llvm::verifyModule(M, &Stream))
    return true;
  Stream.flush();
  Error = std::string("the module rewritten for NVPTX does not verify (") + Stage +
          "): " + Broken.substr(0, 500);
  return false;
}

} // namespace

bool writePtx(llvm::Module &Spir, std::vector<uint8_t> &Out, std::string &Error) {
  if (!llvm::StringRef(Spir.getTargetTriple()).startswith("spir64")) {
    Error = "it is not a 64-bit module (addressing model gives target '" + Spir.getTargetTriple() +
            "'), and NVIDIA's OpenCL takes 64-bit PTX (nvptx64)";
    return false;
  }
  // Debug information is not carried into the PTX.
  llvm::StripDebugInfo(Spir);
  // The reader's typed pointers into opaque ones: bitcode read into a context of opaque
  // pointers is upgraded on the way.
  llvm::SmallVector<char, 0> Bitcode;
  llvm::raw_svector_ostream BitcodeStream(Bitcode);
  llvm::WriteBitcodeToFile(Spir, BitcodeStream);
  llvm::LLVMContext Context;
  Context.setOpaquePointers(true);
  llvm::Expected<std::unique_ptr<llvm::Module>> Opaque = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(llvm::StringRef(Bitcode.data(), Bitcode.size()), "spir"), Context);
  if (!Opaque) {
    Error = "the module cannot be read back with opaque pointers: " +
            llvm::toString(Opaque.takeError());
    return false;
  }
  std::unique_ptr<llvm::Module> M = rewriteSpaces(**Opaque, Context, Error);
  if (!M)
    return false;
  Opaque->reset();
  tidy(*M);
  annotateKernels(*M);

  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> Made =
      dglink::shim::nvptxTargetMachine(NvclTriple, TranslationArch);
  if (!Made) {
    Error = llvm::toString(Made.takeError());
    return false;
  }
  const std::unique_ptr<llvm::TargetMachine> Machine = std::move(*Made);
  M->setTargetTriple(NvclTriple);
  M->setDataLayout(Machine->createDataLayout());
  defineWorkItemFunctions(*M);
  defineAtomics(*M);
  defineMad(*M);
  if (!defineMathBuiltins(*M, Error))
    return false;
  if (!verified(*M, "before optimization", Error))
    return false;

  // -O2, as clang compiles OpenCL C: the work-item functions are inlined, and what the
  // reader wrote out for every dimension of a builtin vector goes away.
  {
    llvm::LoopAnalysisManager Loops;
    llvm::FunctionAnalysisManager Functions;
    llvm::CGSCCAnalysisManager Sccs;
    llvm::ModuleAnalysisManager Modules;
    llvm::PassBuilder Builder(Machine.get());
    Builder.registerModuleAnalyses(Modules);
    Builder.registerCGSCCAnalyses(Sccs);
    Builder.registerFunctionAnalyses(Functions);
    Builder.registerLoopAnalyses(Loops);
    Builder.crossRegisterProxies(Loops, Functions, Sccs, Modules);
    llvm::ModulePassManager Passes =
        Builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
    Passes.run(*M, Modules);
  }
  if (!verified(*M, "after optimization", Error))
    return false;
  llvm::Expected<std::vector<uint8_t>> Ptx = dglink::shim::emitPtx(*M, TranslationArch);
  if (!Ptx) {
    Error = llvm::toString(Ptx.takeError());
    return false;
  }
  Out = std::move(*Ptx);
  raisePtxVersion(*M, Out);
  return true;
}

} // namespace dglink::device_code
