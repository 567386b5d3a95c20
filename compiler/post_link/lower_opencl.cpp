// The OpenCL lowering of device globals (docs/opencl-lowering.md): every device global of
// a compile moves out of program scope into one block of storage the adapter owns; every
// kernel takes a pointer to that block as a trailing argument, and every function that
// reaches a device global takes it too. Whatever cannot be rewritten that way is an error
// naming the variable and the function.
#include "post_link_internal.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/MathExtras.h>
#include <llvm/Support/raw_ostream.h>

#include <cstring>
#include <map>
#include <set>

namespace dglink::shim {

using llvm::StringRef;

namespace {

// OpenCL's global address space on spir64 and nvptx64 alike.
constexpr unsigned GlobalAddressSpace = 1;

// ---- initial values ----

// Writes the bytes of constant C, of Size bytes, at Out (zeroed by the caller).
llvm::Error writeConstant(const llvm::Constant *C, const llvm::DataLayout &Layout, uint8_t *Out,
                          uint64_t Size, const std::string &Variable) {
  if (llvm::isa<llvm::ConstantAggregateZero>(C) || llvm::isa<llvm::ConstantPointerNull>(C) ||
      llvm::isa<llvm::UndefValue>(C))
    return llvm::Error::success();
  auto WriteInteger = [&](llvm::APInt Value) -> llvm::Error {
    const uint64_t Bytes = Layout.getTypeStoreSize(C->getType());
    if (Bytes > Size)
      return makeError("device global '{}': its initializer does not fit its size", Variable);
    Value = Value.zextOrTrunc(static_cast<unsigned>(Bytes * 8));
    for (uint64_t I = 0; I < Bytes; ++I) // spir64 and nvptx64 are little-endian
      Out[I] = static_cast<uint8_t>(Value.extractBitsAsZExtValue(8, static_cast<unsigned>(I * 8)));
    return llvm::Error::success();
  };
  if (auto *Integer = llvm::dyn_cast<llvm::ConstantInt>(C))
    return WriteInteger(Integer->getValue());
  if (auto *Float = llvm::dyn_cast<llvm::ConstantFP>(C))
    return WriteInteger(Float->getValueAPF().bitcastToAPInt());
  // Arrays and vectors: element I at I times the element's allocation size; structs at
  // their layout's offsets.
  auto WriteElement = [&](const llvm::Constant *Element, uint64_t Offset) -> llvm::Error {
    if (Offset > Size)
      return makeError("device global '{}': its initializer does not fit its size", Variable);
    return writeConstant(Element, Layout, Out + Offset, Size - Offset, Variable);
  };
  if (auto *Sequence = llvm::dyn_cast<llvm::ConstantDataSequential>(C)) {
    const uint64_t Stride = Layout.getTypeAllocSize(Sequence->getElementType());
    for (unsigned I = 0; I < Sequence->getNumElements(); ++I)
      if (llvm::Error Failure = WriteElement(Sequence->getElementAsConstant(I), I * Stride))
        return Failure;
    return llvm::Error::success();
  }
  if (llvm::isa<llvm::ConstantArray>(C) || llvm::isa<llvm::ConstantVector>(C)) {
    llvm::Type *ElementType = llvm::isa<llvm::ConstantArray>(C)
                                  ? C->getType()->getArrayElementType()
                                  : llvm::cast<llvm::VectorType>(C->getType())->getElementType();
    const uint64_t Stride = Layout.getTypeAllocSize(ElementType);
    for (unsigned I = 0; I < C->getNumOperands(); ++I)
      if (llvm::Error Failure =
              WriteElement(llvm::cast<llvm::Constant>(C->getOperand(I)), I * Stride))
        return Failure;
    return llvm::Error::success();
  }
  if (auto *Struct = llvm::dyn_cast<llvm::ConstantStruct>(C)) {
    const llvm::StructLayout *Fields = Layout.getStructLayout(Struct->getType());
    for (unsigned I = 0; I < Struct->getNumOperands(); ++I)
      if (llvm::Error Failure =
              WriteElement(Struct->getOperand(I), Fields->getElementOffset(I)))
        return Failure;
    return llvm::Error::success();
  }
  std::string Text;
  llvm::raw_string_ostream Stream(Text);
  C->printAsOperand(Stream, false);
  return makeError("device global '{}' cannot be lowered: its initializer holds '{}', which is "
                   "not a number (an address is not known before the storage exists)",
                   Variable, Stream.str());
}

// ---- uses ----

// Where constant C sits, for a message: the initializer of a variable, or a constant.
std::string initializerOwner(const llvm::Constant *C) {
  if (auto *Owner = llvm::dyn_cast<llvm::GlobalVariable>(C))
    return "the initializer of '" + Owner->getName().str() + "'";
  std::vector<const llvm::Value *> Work{C};
  std::set<const llvm::Value *> Seen;
  while (!Work.empty()) {
    const llvm::Value *V = Work.back();
    Work.pop_back();
    if (!Seen.insert(V).second)
      continue;
    for (const llvm::User *User : V->users()) {
      if (auto *Owner = llvm::dyn_cast<llvm::GlobalVariable>(User))
        return "the initializer of '" + Owner->getName().str() + "'";
      if (llvm::isa<llvm::Constant>(User))
        Work.push_back(User);
    }
  }
  return "a constant vector or aggregate";
}

// Drops Variable from llvm.used / llvm.compiler.used: the lowered storage keeps it alive.
void removeFromUsedLists(llvm::Module &M, llvm::GlobalVariable &Variable) {
  for (const char *ListName : {"llvm.used", "llvm.compiler.used"}) {
    llvm::GlobalVariable *List = M.getNamedGlobal(ListName);
    if (List == nullptr || !List->hasInitializer())
      continue;
    auto *Array = llvm::dyn_cast<llvm::ConstantArray>(List->getInitializer());
    if (Array == nullptr)
      continue;
    std::vector<llvm::Constant *> Kept;
    for (llvm::Use &Operand : Array->operands())
      if (Operand.get()->stripPointerCasts() != &Variable)
        Kept.push_back(llvm::cast<llvm::Constant>(Operand.get()));
    if (Kept.size() == Array->getNumOperands())
      continue;
    const std::string Section = List->getSection().str();
    List->eraseFromParent();
    if (Kept.empty())
      continue;
    auto *Type = llvm::ArrayType::get(Array->getType()->getElementType(), Kept.size());
    auto *Replacement = new llvm::GlobalVariable(M, Type, false, llvm::GlobalValue::AppendingLinkage,
                                                 llvm::ConstantArray::get(Type, Kept), ListName);
    Replacement->setSection(Section);
  }
  Variable.removeDeadConstantUsers();
}

// Rewrites every constant expression over Value that an instruction uses into
// instructions, so that afterwards only instructions use Value. A use inside another
// constant (an initializer) is an error. The user list is read again after each
// expansion: expanding one expression can destroy another that used it.
llvm::Error expandConstantUsers(llvm::Constant &Value, const std::string &Variable) {
  for (;;) {
    llvm::ConstantExpr *Expression = nullptr;
    for (llvm::User *User : Value.users()) {
      if (llvm::isa<llvm::Instruction>(User))
        continue;
      Expression = llvm::dyn_cast<llvm::ConstantExpr>(User);
      if (Expression == nullptr)
        return makeError("device global '{}' cannot be lowered: its address is part of a "
                         "constant that is not an instruction's operand ({})",
                         Variable, initializerOwner(llvm::cast<llvm::Constant>(User)));
      break;
    }
    if (Expression == nullptr)
      return llvm::Error::success();
    if (llvm::Error Failure = expandConstantUsers(*Expression, Variable))
      return Failure;
    std::vector<llvm::User *> ExpressionUsers(Expression->user_begin(), Expression->user_end());
    for (llvm::User *ExpressionUser : ExpressionUsers) {
      auto *Instruction = llvm::dyn_cast<llvm::Instruction>(ExpressionUser);
      if (Instruction == nullptr)
        continue; // a dead constant user, dropped below
      if (auto *Phi = llvm::dyn_cast<llvm::PHINode>(Instruction)) {
        // One instruction per predecessor: a PHI may list the same block twice (a switch
        // with two cases to one block), and then its values must agree.
        std::map<llvm::BasicBlock *, llvm::Instruction *> PerBlock;
        for (unsigned I = 0; I < Phi->getNumIncomingValues(); ++I) {
          if (Phi->getIncomingValue(I) != Expression)
            continue;
          llvm::BasicBlock *Block = Phi->getIncomingBlock(I);
          llvm::Instruction *&Made = PerBlock[Block];
          if (Made == nullptr)
            Made = Expression->getAsInstruction(Block->getTerminator());
          Phi->setIncomingValue(I, Made);
        }
        continue;
      }
      Instruction->replaceUsesOfWith(Expression, Expression->getAsInstruction(Instruction));
    }
    Expression->removeDeadConstantUsers();
    if (!Expression->use_empty())
      return makeError("device global '{}' cannot be lowered: an expression over its address "
                       "has a use that is not an instruction",
                       Variable);
    Expression->destroyConstant();
  }
}

// ---- which functions take the storage ----

// Functions are named across the images of a compile: an external function by its name
// (a declaration in one image is the definition in another), a local one per image.
std::string functionKey(size_t Image, const llvm::Function &F) {
  if (F.hasLocalLinkage())
    return std::to_string(Image) + ":" + F.getName().str();
  return F.getName().str();
}

// The kernel argument metadata clang writes, extended by the storage argument.
llvm::MDNode *extendArgumentMetadata(llvm::LLVMContext &Context, StringRef Kind,
                                     const llvm::MDNode *Node) {
  std::vector<llvm::Metadata *> Operands(Node->op_begin(), Node->op_end());
  if (Kind == "kernel_arg_addr_space")
    Operands.push_back(llvm::ConstantAsMetadata::get(
        llvm::ConstantInt::get(llvm::Type::getInt32Ty(Context), GlobalAddressSpace)));
  else if (Kind == "kernel_arg_access_qual")
    Operands.push_back(llvm::MDString::get(Context, "none"));
  else if (Kind == "kernel_arg_type" || Kind == "kernel_arg_base_type")
    Operands.push_back(llvm::MDString::get(Context, "char*"));
  else if (Kind == "kernel_arg_name")
    Operands.push_back(llvm::MDString::get(Context, LoweredStorageArgumentName));
  else
    Operands.push_back(llvm::MDString::get(Context, ""));
  return llvm::MDNode::get(Context, Operands);
}

// F with the storage pointer as its last parameter, under Name, taking F's body, uses
// and metadata. F is left empty for the caller to erase.
llvm::Function *addStorageParameter(llvm::Function &F, const std::string &Name) {
  llvm::Module &M = *F.getParent();
  llvm::LLVMContext &Context = M.getContext();
  std::vector<llvm::Type *> Parameters(F.getFunctionType()->param_begin(),
                                       F.getFunctionType()->param_end());
  Parameters.push_back(llvm::Type::getInt8PtrTy(Context, GlobalAddressSpace));
  auto *Type = llvm::FunctionType::get(F.getReturnType(), Parameters, false);
  llvm::Function *New =
      llvm::Function::Create(Type, F.getLinkage(), F.getAddressSpace(), "", &M);
  New->copyAttributesFrom(&F);
  New->setAttributes(F.getAttributes()); // the new parameter has none
  llvm::SmallVector<std::pair<unsigned, llvm::MDNode *>, 8> Metadata;
  F.getAllMetadata(Metadata);
  llvm::SmallVector<StringRef, 32> KindNames;
  Context.getMDKindNames(KindNames);
  for (const auto &[Kind, Node] : Metadata) {
    const StringRef KindName = Kind < KindNames.size() ? KindNames[Kind] : StringRef();
    New->setMetadata(Kind, KindName.startswith("kernel_arg_")
                               ? extendArgumentMetadata(Context, KindName, Node)
                               : Node);
  }
  New->getBasicBlockList().splice(New->begin(), F.getBasicBlockList());
  for (unsigned I = 0; I < F.arg_size(); ++I) {
    F.getArg(I)->replaceAllUsesWith(New->getArg(I));
    New->getArg(I)->takeName(F.getArg(I));
  }
  New->getArg(F.arg_size())->setName(LoweredStorageArgumentName);
  if (Name == F.getName()) {
    New->takeName(&F);
  } else {
    New->setName(Name);
  }
  return New;
}

llvm::Value *storageOf(llvm::Function &F) { return F.getArg(F.arg_size() - 1); }

// Points the nvvm.annotations entries of Old (kernel marks) at New. With typed pointers
// the two differ in type, so a plain replaceAllUsesWith cannot do it.
void moveAnnotations(llvm::Module &M, llvm::Function &Old, llvm::Function &New) {
  llvm::NamedMDNode *Annotations = M.getNamedMetadata("nvvm.annotations");
  if (Annotations == nullptr)
    return;
  for (unsigned I = 0; I < Annotations->getNumOperands(); ++I) {
    llvm::MDNode *Node = Annotations->getOperand(I);
    if (Node->getNumOperands() == 0)
      continue;
    auto *Subject = llvm::dyn_cast_or_null<llvm::ValueAsMetadata>(Node->getOperand(0).get());
    if (Subject == nullptr || Subject->getValue() != &Old)
      continue;
    std::vector<llvm::Metadata *> Operands(Node->op_begin(), Node->op_end());
    Operands[0] = llvm::ValueAsMetadata::get(&New);
    Annotations->setOperand(I, llvm::MDNode::get(M.getContext(), Operands));
  }
}

// The function a call calls, through pointer casts (typed-pointer IR calls a function
// declared with other parameter types through a bitcast).
llvm::Function *calledFunction(const llvm::CallBase &Call) {
  return llvm::dyn_cast<llvm::Function>(Call.getCalledOperand()->stripPointerCasts());
}

// Whether constant C only serves llvm.used / llvm.compiler.used (C is one of those lists,
// or every user of C is such a constant). A dead constant serves nothing and counts too.
bool onlyInUsedLists(const llvm::Constant &C) {
  if (auto *Variable = llvm::dyn_cast<llvm::GlobalVariable>(&C))
    return Variable->getName() == "llvm.used" || Variable->getName() == "llvm.compiler.used";
  if (llvm::isa<llvm::GlobalValue>(C))
    return false;
  for (const llvm::User *User : C.users()) {
    auto *Outer = llvm::dyn_cast<llvm::Constant>(User);
    if (Outer == nullptr || !onlyInUsedLists(*Outer))
      return false;
  }
  return true;
}

// Whether every use of F calls it (directly or through a pointer cast), apart from the
// used lists: a function whose address escapes cannot be given the storage.
bool onlyCalled(const llvm::Function &F) {
  for (const llvm::Use &Use : F.uses()) {
    const llvm::User *User = Use.getUser();
    if (auto *Call = llvm::dyn_cast<llvm::CallBase>(User)) {
      if (!Call->isCallee(&Use))
        return false;
      continue;
    }
    auto *Cast = llvm::dyn_cast<llvm::ConstantExpr>(User);
    if (Cast == nullptr || !Cast->isCast()) {
      if (auto *C = llvm::dyn_cast<llvm::Constant>(User); C != nullptr && onlyInUsedLists(*C))
        continue;
      return false;
    }
    for (const llvm::Use &CastUse : Cast->uses()) {
      auto *Call = llvm::dyn_cast<llvm::CallBase>(CastUse.getUser());
      if (Call != nullptr && Call->isCallee(&CastUse))
        continue;
      auto *C = llvm::dyn_cast<llvm::Constant>(CastUse.getUser());
      if (C == nullptr || !onlyInUsedLists(*C))
        return false;
    }
  }
  return true;
}

// Call, which calls Old (perhaps through a cast), made a call of New with Storage last.
// Pointer arguments and a pointer result of other types are cast; anything else that
// does not match is an error.
llvm::Error rewriteCall(llvm::CallInst &Call, llvm::Function &Old, llvm::Function &New,
                        llvm::Value &Storage, const std::string &Image) {
  llvm::FunctionType *Type = New.getFunctionType();
  const std::string Caller = Call.getFunction()->getName().str();
  if (Call.arg_size() + 1 != Type->getNumParams())
    return makeError("image '{}': function '{}' calls '{}' with {} arguments; it takes {}", Image,
                     Caller, Old.getName().str(), Call.arg_size(), Type->getNumParams() - 1);
  std::vector<llvm::Value *> Arguments;
  for (unsigned I = 0; I < Call.arg_size(); ++I) {
    llvm::Value *Argument = Call.getArgOperand(I);
    llvm::Type *Wanted = Type->getParamType(I);
    if (Argument->getType() != Wanted) {
      if (!Argument->getType()->isPointerTy() || !Wanted->isPointerTy())
        return makeError("image '{}': function '{}' calls '{}' with argument {} of another type",
                         Image, Caller, Old.getName().str(), I);
      Argument = llvm::CastInst::CreatePointerBitCastOrAddrSpaceCast(Argument, Wanted, "", &Call);
    }
    Arguments.push_back(Argument);
  }
  Arguments.push_back(&Storage);
  const bool CastResult = !Call.getType()->isVoidTy() && Call.getType() != Type->getReturnType();
  if (CastResult && (!Call.getType()->isPointerTy() || !Type->getReturnType()->isPointerTy()))
    return makeError("image '{}': function '{}' calls '{}' expecting a result of another type",
                     Image, Caller, Old.getName().str());
  llvm::SmallVector<llvm::OperandBundleDef, 1> Bundles;
  Call.getOperandBundlesAsDefs(Bundles);
  auto *Replacement = llvm::CallInst::Create(Type, &New, Arguments, Bundles, "", &Call);
  Replacement->setCallingConv(Call.getCallingConv());
  if (!CastResult && Call.getType() == Type->getReturnType())
    Replacement->setAttributes(Call.getAttributes());
  Replacement->setTailCallKind(Call.getTailCallKind());
  Replacement->setDebugLoc(Call.getDebugLoc());
  Replacement->copyMetadata(Call);
  llvm::Value *Result = Replacement;
  if (CastResult)
    Result = llvm::CastInst::CreatePointerBitCastOrAddrSpaceCast(Replacement, Call.getType(), "",
                                                                 &Call);
  if (!Call.getType()->isVoidTy())
    Call.replaceAllUsesWith(Result);
  Replacement->takeName(&Call);
  Call.eraseFromParent();
  return llvm::Error::success();
}

// The place of Variable in Layout: a device global the images define, by its unique id;
// a declaration, by the name of the external definition it refers to. Null for any other
// variable, whatever its name.
const LoweredGlobal *placeOf(const llvm::GlobalVariable &Variable, const StorageLayout &Layout) {
  if (!Variable.isDeclaration()) {
    if (!isDeviceGlobal(Variable))
      return nullptr;
    llvm::Expected<DeviceGlobal> Global = readDeviceGlobal(Variable);
    if (!Global) {
      llvm::consumeError(Global.takeError()); // computeStorageLayout reported it
      return nullptr;
    }
    auto Known = Layout.ById.find(Global->Info.UniqueId);
    return Known == Layout.ById.end() ? nullptr : &Layout.Globals[Known->second];
  }
  if (Variable.hasLocalLinkage())
    return nullptr;
  auto Known = Layout.BySymbol.find(Variable.getName().str());
  return Known == Layout.BySymbol.end() ? nullptr : &Layout.Globals[Known->second];
}

} // namespace

llvm::Expected<StorageLayout> computeStorageLayout(const std::vector<SplitImage> &Images) {
  StorageLayout Layout;
  for (const SplitImage &Image : Images) {
    const llvm::DataLayout &Data = Image.Module->getDataLayout();
    for (const llvm::GlobalVariable &Variable : Image.Module->globals()) {
      if (Variable.isDeclaration() || Variable.getName().startswith("llvm."))
        continue;
      if (!isDeviceGlobal(Variable)) {
        if (Variable.getAddressSpace() == GlobalAddressSpace && !Variable.isConstant())
          return makeError("variable '{}' of image '{}' cannot be lowered: it is a mutable "
                           "program-scope variable but not a device global (declare it with "
                           "DGLINK_DEVICE_GLOBAL, or make it constant)",
                           Variable.getName().str(), Image.Name);
        continue;
      }
      llvm::Expected<DeviceGlobal> Global = readDeviceGlobal(Variable);
      if (!Global)
        return Global.takeError();
      LoweredGlobal Lowered;
      Lowered.UniqueId = Global->Info.UniqueId;
      Lowered.Symbol = Global->Symbol;
      Lowered.Size = Global->InstanceSize; // a usmptr's storage is the pointer
      const llvm::Constant *Initializer = Variable.getInitializer();
      if (!Initializer->isNullValue()) {
        Lowered.Initializer.assign(Lowered.Size, 0);
        if (llvm::Error Failure = writeConstant(Initializer, Data, Lowered.Initializer.data(),
                                                Lowered.Size, Lowered.Symbol))
          return Failure;
      }
      // A per-kernel split copies a variable into every image that uses it: one slot.
      if (auto Known = Layout.ById.find(Lowered.UniqueId); Known != Layout.ById.end()) {
        const LoweredGlobal &First = Layout.Globals[Known->second];
        if (First.Size != Lowered.Size || First.Initializer != Lowered.Initializer)
          return makeError("device globals '{}' and '{}' share the unique id '{}' but differ in "
                           "size or initial value",
                           First.Symbol, Lowered.Symbol, Lowered.UniqueId);
        continue;
      }
      // Other images reach an external variable by its name; a local one (static) only
      // its own image, by its unique id.
      const bool External = !Variable.hasLocalLinkage();
      if (auto Known = Layout.BySymbol.find(Lowered.Symbol);
          External && Known != Layout.BySymbol.end())
        return makeError("device global '{}' is defined with the unique ids '{}' and '{}'",
                         Lowered.Symbol, Layout.Globals[Known->second].UniqueId,
                         Lowered.UniqueId);
      const uint64_t Alignment =
          std::max<uint64_t>({Variable.getAlign().valueOrOne().value(),
                              Data.getABITypeAlign(Variable.getValueType()).value(), 8});
      Lowered.Offset = llvm::alignTo(Layout.Size, Alignment);
      Layout.Size = Lowered.Offset + Lowered.Size;
      Layout.ById[Lowered.UniqueId] = Layout.Globals.size();
      if (External)
        Layout.BySymbol[Lowered.Symbol] = Layout.Globals.size();
      Layout.Globals.push_back(std::move(Lowered));
    }
  }
  return Layout;
}

llvm::Error lowerDeviceGlobals(const std::vector<LoweringInput> &Images,
                               const StorageLayout &Layout) {
  // 1. Per image: the variables that move, with their constant-expression uses expanded.
  std::vector<std::vector<std::pair<llvm::GlobalVariable *, const LoweredGlobal *>>> Moved(
      Images.size());
  std::set<std::string> Needs; // function keys that take the storage
  for (size_t I = 0; I < Images.size(); ++I) {
    llvm::Module &M = *Images[I].Module;
    for (llvm::GlobalVariable &Variable : M.globals()) {
      const LoweredGlobal *Place = placeOf(Variable, Layout);
      if (Place == nullptr) {
        if (Variable.isDeclaration() && Variable.getAddressSpace() == GlobalAddressSpace &&
            !Variable.isConstant() && !Variable.use_empty()) {
          const llvm::Instruction *User = nullptr;
          for (const llvm::User *Candidate : Variable.users())
            if ((User = llvm::dyn_cast<llvm::Instruction>(Candidate)) != nullptr)
              break;
          return makeError("variable '{}', used by function '{}' of image '{}', cannot be "
                           "lowered: no input of this compile defines it, so its place in the "
                           "storage is unknown",
                           Variable.getName().str(),
                           User != nullptr ? User->getFunction()->getName().str() : "?",
                           Images[I].Name);
        }
        continue;
      }
      if (Variable.getAddressSpace() != GlobalAddressSpace)
        return makeError("device global '{}' of image '{}' is not in the global address space",
                         Variable.getName().str(), Images[I].Name);
      Moved[I].emplace_back(&Variable, Place);
    }
    for (auto &[Variable, Global] : Moved[I]) {
      removeFromUsedLists(M, *Variable);
      if (llvm::Error Failure = expandConstantUsers(*Variable, Global->Symbol))
        return Failure;
      for (llvm::User *User : Variable->users())
        Needs.insert(functionKey(I, *llvm::cast<llvm::Instruction>(User)->getFunction()));
    }
    // Every kernel takes the storage, so that a launch never needs to know which do.
    for (llvm::Function &F : M)
      if (!F.isDeclaration() && isKernel(F))
        Needs.insert(functionKey(I, F));
  }

  // 2. Callers of functions that take the storage take it too, across images.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t I = 0; I < Images.size(); ++I)
      for (llvm::Function &F : *Images[I].Module) {
        if (F.isDeclaration() || Needs.count(functionKey(I, F)) != 0)
          continue;
        for (llvm::BasicBlock &Block : F)
          for (llvm::Instruction &Instruction : Block) {
            auto *Call = llvm::dyn_cast<llvm::CallBase>(&Instruction);
            llvm::Function *Callee = Call != nullptr ? calledFunction(*Call) : nullptr;
            if (Callee != nullptr && Needs.count(functionKey(I, *Callee)) != 0 &&
                Needs.insert(functionKey(I, F)).second)
              Changed = true;
          }
      }
  }

  // 3. Rewrite the functions, then the calls, then the variables.
  for (size_t I = 0; I < Images.size(); ++I) {
    llvm::Module &M = *Images[I].Module;
    std::vector<llvm::Function *> Rewritten;
    for (llvm::Function &F : M)
      if (!F.isIntrinsic() && Needs.count(functionKey(I, F)) != 0)
        Rewritten.push_back(&F);
    std::map<llvm::Function *, llvm::Function *> NewOf;
    std::set<const llvm::Function *> TakesStorage;
    for (llvm::Function *F : Rewritten) {
      if (F->isVarArg())
        return makeError("function '{}' of image '{}' reaches device globals and is variadic: "
                         "it cannot take the storage argument",
                         F->getName().str(), Images[I].Name);
      if (!onlyCalled(*F))
          return makeError("function '{}' of image '{}' reaches device globals and its address "
                           "is taken: a call through the pointer could not pass the storage",
                           F->getName().str(), Images[I].Name);
      // An exported function that now takes the storage gets a new name, so that code
      // compiled without this lowering cannot call it without the argument: the link
      // fails instead.
      std::string Name = F->getName().str();
      if (!F->hasLocalLinkage() && !isKernel(*F))
        Name += LoweredFunctionSuffix;
      if (Name != F->getName() && M.getFunction(Name) != nullptr)
        return makeError("image '{}': cannot rename '{}' to '{}': the name is taken",
                         Images[I].Name, F->getName().str(), Name);
      NewOf[F] = addStorageParameter(*F, Name);
      TakesStorage.insert(NewOf[F]);
    }
    for (auto &[Old, New] : NewOf) {
      // The calls of Old, direct or through a cast (bodies have moved: their functions
      // are the new ones).
      std::vector<llvm::CallInst *> Calls;
      for (llvm::User *User : Old->users()) {
        if (auto *Call = llvm::dyn_cast<llvm::CallInst>(User)) {
          Calls.push_back(Call);
          continue;
        }
        if (auto *Cast = llvm::dyn_cast<llvm::ConstantExpr>(User))
          for (llvm::User *CastUser : Cast->users())
            if (auto *Call = llvm::dyn_cast<llvm::CallInst>(CastUser);
                Call != nullptr && calledFunction(*Call) == Old)
              Calls.push_back(Call);
      }
      for (llvm::CallInst *Call : Calls) {
        llvm::Function *Caller = Call->getFunction();
        if (TakesStorage.count(Caller) == 0)
          return makeError("image '{}': function '{}' calls '{}' but has no storage argument",
                           Images[I].Name, Caller->getName().str(), Old->getName().str());
        if (llvm::Error Failure =
                rewriteCall(*Call, *Old, *New, *storageOf(*Caller), Images[I].Name))
          return Failure;
      }
      // What is left are references from metadata (nvvm.annotations) and used lists.
      moveAnnotations(M, *Old, *New);
      for (llvm::User *User : Old->users())
        if (auto *C = llvm::dyn_cast<llvm::Constant>(User); C == nullptr || !onlyInUsedLists(*C))
          return makeError("image '{}': '{}' still has a use that is not a call (a dglink bug)",
                           Images[I].Name, Old->getName().str());
      if (!Old->use_empty())
        Old->replaceAllUsesWith(
            llvm::ConstantExpr::getPointerBitCastOrAddrSpaceCast(New, Old->getType()));
      Old->eraseFromParent();
    }
    for (auto &[Variable, Global] : Moved[I]) {
      std::map<llvm::Function *, llvm::Value *> AddressIn;
      std::vector<llvm::Use *> Uses;
      for (llvm::Use &Use : Variable->uses())
        Uses.push_back(&Use);
      for (llvm::Use *Use : Uses) {
        llvm::Function *F = llvm::cast<llvm::Instruction>(Use->getUser())->getFunction();
        llvm::Value *&Address = AddressIn[F];
        if (Address == nullptr) {
          llvm::IRBuilder<> Builder(&*F->getEntryBlock().getFirstInsertionPt());
          Address = Builder.CreatePointerCast(
              Builder.CreateInBoundsGEP(Builder.getInt8Ty(), storageOf(*F),
                                        Builder.getInt64(Global->Offset), Variable->getName()),
              Variable->getType());
        }
        Use->set(Address);
      }
      Variable->eraseFromParent();
    }
    std::string Problems;
    llvm::raw_string_ostream Stream(Problems);
    if (llvm::verifyModule(M, &Stream))
      return makeError("image '{}': the lowered module is invalid (a dglink bug): {}",
                       Images[I].Name, Stream.str());
  }
  return llvm::Error::success();
}

std::vector<BundlePropertySet> storagePropertySets(const llvm::Module &Unlowered,
                                                   const StorageLayout &Layout) {
  BundlePropertySet Storage{LoweredStorageSet, {}};
  std::vector<uint8_t> Size(8);
  for (int I = 0; I < 8; ++I)
    Size[I] = static_cast<uint8_t>(Layout.Size >> (8 * I));
  Storage.Properties.push_back(BundleProperty::byteArray(LoweredStorageSizeProperty, Size));
  Storage.Properties.push_back(
      BundleProperty::string(LoweredStorageArgumentProperty, LoweredStorageArgumentLast));
  BundlePropertySet Offsets{LoweredOffsetsSet, {}};
  BundlePropertySet Initializers{LoweredInitializersSet, {}};
  // The variables this image defines or refers to; initial values of the ones it defines.
  std::map<std::string, std::pair<const LoweredGlobal *, bool>> Listed;
  for (const llvm::GlobalVariable &Variable : Unlowered.globals()) {
    const LoweredGlobal *Place = placeOf(Variable, Layout);
    if (Place == nullptr)
      continue;
    const LoweredGlobal &Global = *Place;
    auto &Entry = Listed[Global.UniqueId];
    Entry.first = &Global;
    Entry.second = Entry.second || !Variable.isDeclaration();
  }
  for (const auto &[Id, Entry] : Listed) {
    std::vector<uint8_t> Value(16);
    for (int I = 0; I < 8; ++I) {
      Value[I] = static_cast<uint8_t>(Entry.first->Offset >> (8 * I));
      Value[8 + I] = static_cast<uint8_t>(Entry.first->Size >> (8 * I));
    }
    Offsets.Properties.push_back(BundleProperty::byteArray(Id, Value));
    if (Entry.second && !Entry.first->Initializer.empty())
      Initializers.Properties.push_back(BundleProperty::byteArray(Id, Entry.first->Initializer));
  }
  std::vector<BundlePropertySet> Sets;
  Sets.push_back(std::move(Storage));
  Sets.push_back(std::move(Offsets));
  if (!Initializers.Properties.empty())
    Sets.push_back(std::move(Initializers));
  return Sets;
}

} // namespace dglink::shim
