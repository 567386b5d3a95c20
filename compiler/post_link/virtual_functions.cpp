// Virtual functions across device images (shared/seeds/virtual-functions-design.md):
// the attributes from plain-clang annotations, the virtual-call check, aspects per set
// and per kernel, outlining each set into its own image and its dummy twin, and the
// property sets that tell the runtime which images to link. docs/virtual-functions.md.
#include "post_link_internal.h"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/Demangle/Demangle.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <algorithm>
#include <map>
#include <set>

namespace dglink::shim {

using llvm::StringRef;

namespace {

std::vector<std::string> splitSets(StringRef Text) {
  llvm::SmallVector<StringRef, 4> Parts;
  Text.split(Parts, ',', -1, /*KeepEmpty=*/false);
  std::vector<std::string> Result;
  for (StringRef Part : Parts)
    if (!Part.trim().empty())
      Result.push_back(Part.trim().str());
  return Result;
}

// A list of sets as an attribute or annotation writes it (comma-separated) into Sets:
// "" or what is wrong with it. Every name must be non-empty (blanks around it do not
// count) and named once.
std::string parseSetList(StringRef Text, std::vector<std::string> &Sets) {
  llvm::SmallVector<StringRef, 4> Parts;
  Text.split(Parts, ',', -1, /*KeepEmpty=*/true);
  for (StringRef Part : Parts) {
    const StringRef Name = Part.trim();
    if (Name.empty())
      return Text.trim().empty() ? "names no set" : "has an empty set name";
    if (std::find(Sets.begin(), Sets.end(), Name.str()) != Sets.end())
      return "names set '" + Name.str() + "' twice";
    Sets.push_back(Name.str());
  }
  return "";
}

std::string joinSets(const std::vector<std::string> &Sets) {
  std::string Joined;
  for (const std::string &Set : Sets)
    Joined += (Joined.empty() ? "" : ",") + Set;
  return Joined;
}

// Checks the attributes of F, whether written as DPC++'s IR attributes or made from the
// annotations, and rewrites them without blanks.
llvm::Error checkVirtualFunctionAttributes(llvm::Function &F) {
  const std::string Name = F.getName().str();
  if (F.hasFnAttribute(IndirectlyCallableAttribute)) {
    const StringRef Value = F.getFnAttribute(IndirectlyCallableAttribute).getValueAsString();
    std::vector<std::string> Sets;
    if (std::string Problem = parseSetList(Value, Sets); !Problem.empty())
      return makeError("function '{}': attribute \"{}\"=\"{}\" {}: it must name exactly one set",
                       Name, IndirectlyCallableAttribute, Value.str(), Problem);
    if (Sets.size() != 1)
      return makeError("function '{}': attribute \"{}\"=\"{}\" names {} sets: a function "
                       "belongs to exactly one set",
                       Name, IndirectlyCallableAttribute, Value.str(), Sets.size());
    if (isKernel(F))
      return makeError("kernel '{}' cannot be indirectly callable (set '{}')", Name, Sets[0]);
    F.addFnAttr(IndirectlyCallableAttribute, Sets[0]);
  }
  if (F.hasFnAttribute(CallsIndirectlyAttribute)) {
    const StringRef Value = F.getFnAttribute(CallsIndirectlyAttribute).getValueAsString();
    std::vector<std::string> Sets;
    if (std::string Problem = parseSetList(Value, Sets); !Problem.empty())
      return makeError("function '{}': attribute \"{}\"=\"{}\" {}: it must name one or more "
                       "sets, each once",
                       Name, CallsIndirectlyAttribute, Value.str(), Problem);
    if (!isKernel(F))
      return makeError("function '{}' is not a kernel: calls-indirectly is a kernel attribute",
                       Name);
    F.addFnAttr(CallsIndirectlyAttribute, joinSets(Sets));
  }
  return llvm::Error::success();
}

bool usesType(const llvm::Type *Type, bool (*Is)(const llvm::Type *)) {
  if (Type == nullptr)
    return false;
  if (Is(Type->getScalarType()))
    return true;
  if (const auto *Function = llvm::dyn_cast<llvm::FunctionType>(Type))
    return usesType(Function->getReturnType(), Is) ||
           std::any_of(Function->param_begin(), Function->param_end(),
                       [Is](const llvm::Type *Param) { return usesType(Param, Is); });
  return false;
}

bool isDouble(const llvm::Type *Type) { return Type->isDoubleTy(); }
bool isHalf(const llvm::Type *Type) { return Type->isHalfTy(); }

// An OpenCL 64-bit atomic builtin: atom_* / atomic_* with a 64-bit integer in its type.
bool isAtomic64Builtin(const llvm::Function &F) {
  const std::string Name = llvm::demangle(F.getName().str());
  if (!StringRef(Name).startswith("atom_") && !StringRef(Name).startswith("atomic_"))
    return false;
  const llvm::FunctionType *Type = F.getFunctionType();
  if (Type->getReturnType()->isIntegerTy(64))
    return true;
  return std::any_of(Type->param_begin(), Type->param_end(),
                     [](const llvm::Type *Param) { return Param->isIntegerTy(64); });
}

// The aspects one function's own body uses (not its callees').
std::set<uint32_t> ownAspects(const llvm::Function &F) {
  std::set<uint32_t> Result;
  for (const llvm::Argument &Argument : F.args()) {
    if (usesType(Argument.getType(), isDouble))
      Result.insert(AspectFp64);
    if (usesType(Argument.getType(), isHalf))
      Result.insert(AspectFp16);
  }
  if (usesType(F.getReturnType(), isDouble))
    Result.insert(AspectFp64);
  if (usesType(F.getReturnType(), isHalf))
    Result.insert(AspectFp16);
  for (const llvm::Instruction &Instruction : llvm::instructions(F)) {
    std::vector<const llvm::Type *> Types = {Instruction.getType()};
    for (const llvm::Value *Operand : Instruction.operands())
      Types.push_back(Operand->getType());
    if (const auto *Alloca = llvm::dyn_cast<llvm::AllocaInst>(&Instruction))
      Types.push_back(Alloca->getAllocatedType());
    for (const llvm::Type *Type : Types) {
      if (usesType(Type, isDouble))
        Result.insert(AspectFp64);
      if (usesType(Type, isHalf))
        Result.insert(AspectFp16);
    }
    if (const auto *Rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(&Instruction);
        Rmw != nullptr && Rmw->getValOperand()->getType()->isIntegerTy(64))
      Result.insert(AspectAtomic64);
    if (const auto *Exchange = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(&Instruction);
        Exchange != nullptr && Exchange->getNewValOperand()->getType()->isIntegerTy(64))
      Result.insert(AspectAtomic64);
    if (const auto *Call = llvm::dyn_cast<llvm::CallBase>(&Instruction))
      if (const llvm::Function *Callee = Call->getCalledFunction();
          Callee != nullptr && Callee->isDeclaration() && isAtomic64Builtin(*Callee))
        Result.insert(AspectAtomic64);
  }
  return Result;
}

// The aspects F and every function it calls directly use (virtual calls not followed:
// a kernel pulls the aspects of the sets it names in calls-indirectly instead).
std::set<uint32_t> reachedAspects(const llvm::Function &F) {
  std::set<uint32_t> Result;
  std::set<const llvm::Function *> Seen = {&F};
  std::vector<const llvm::Function *> Worklist = {&F};
  while (!Worklist.empty()) {
    const llvm::Function *Current = Worklist.back();
    Worklist.pop_back();
    if (Current->isDeclaration())
      continue;
    const std::set<uint32_t> Own = ownAspects(*Current);
    Result.insert(Own.begin(), Own.end());
    for (const llvm::Instruction &Instruction : llvm::instructions(*Current))
      if (const auto *Call = llvm::dyn_cast<llvm::CallBase>(&Instruction))
        if (const llvm::Function *Callee = Call->getCalledFunction();
            Callee != nullptr && Seen.insert(Callee).second)
          Worklist.push_back(Callee);
  }
  return Result;
}

std::string aspectList(const std::set<uint32_t> &Aspects) {
  std::string Text;
  for (uint32_t Aspect : Aspects)
    Text += (Text.empty() ? "" : ",") + std::to_string(Aspect);
  return Text;
}

std::set<uint32_t> parseAspectList(StringRef Text) {
  std::set<uint32_t> Result;
  for (const std::string &Item : splitSets(Text)) {
    uint32_t Value = 0;
    if (!StringRef(Item).getAsInteger(10, Value))
      Result.insert(Value);
  }
  return Result;
}

// The set functions a kernel can reach through the globals it (or a function it calls
// directly) refers to: the vtables of the objects it constructs.
std::set<llvm::Function *> referencedSetFunctions(llvm::Function &Kernel) {
  std::set<llvm::Function *> Result;
  std::set<const llvm::Value *> Seen;
  std::vector<const llvm::Value *> Worklist = {&Kernel};
  while (!Worklist.empty()) {
    const llvm::Value *Current = Worklist.back();
    Worklist.pop_back();
    if (!Seen.insert(Current).second)
      continue;
    if (const auto *F = llvm::dyn_cast<llvm::Function>(Current)) {
      if (F->hasFnAttribute(IndirectlyCallableAttribute) && F != &Kernel) {
        Result.insert(const_cast<llvm::Function *>(F));
        continue; // the set's image holds its body
      }
      for (const llvm::Instruction &Instruction : llvm::instructions(*F))
        for (const llvm::Value *Operand : Instruction.operands())
          if (llvm::isa<llvm::Constant>(Operand))
            Worklist.push_back(Operand);
    } else if (const auto *Variable = llvm::dyn_cast<llvm::GlobalVariable>(Current)) {
      if (Variable->hasInitializer())
        Worklist.push_back(Variable->getInitializer());
    } else if (const auto *Constant = llvm::dyn_cast<llvm::Constant>(Current)) {
      for (const llvm::Value *Operand : Constant->operands())
        Worklist.push_back(Operand);
    }
  }
  return Result;
}

// Adds to Kernel a block no path reaches that calls each of Functions directly. Drivers
// that compile a kernel with only what its calls reach (PoCL copies the kernel's call
// graph into a module of its own) then also compile the functions its vtables point at;
// code generators drop the block.
void addReachabilityBlock(llvm::Function &Kernel, const std::set<llvm::Function *> &Functions) {
  if (Functions.empty())
    return;
  std::vector<llvm::Function *> Sorted(Functions.begin(), Functions.end());
  std::sort(Sorted.begin(), Sorted.end(), [](const llvm::Function *A, const llvm::Function *B) {
    return A->getName() < B->getName();
  });
  llvm::BasicBlock *Block =
      llvm::BasicBlock::Create(Kernel.getContext(), "dglink.virtual.functions", &Kernel);
  llvm::IRBuilder<> Builder(Block);
  for (llvm::Function *Callee : Sorted) {
    std::vector<llvm::Value *> Arguments;
    for (llvm::Type *Param : Callee->getFunctionType()->params())
      Arguments.push_back(llvm::PoisonValue::get(Param));
    llvm::CallInst *Call = Builder.CreateCall(Callee, Arguments);
    Call->setCallingConv(Callee->getCallingConv());
  }
  Builder.CreateUnreachable();
}

// Empties every entry of a set image's clone: same symbols and types, no behaviour.
void emptyBodies(llvm::Module &M) {
  for (llvm::Function &F : M) {
    if (F.isDeclaration() || !F.hasFnAttribute(IndirectlyCallableAttribute))
      continue;
    F.deleteBody();
    F.setLinkage(llvm::GlobalValue::ExternalLinkage);
    llvm::BasicBlock *Block = llvm::BasicBlock::Create(M.getContext(), "entry", &F);
    llvm::IRBuilder<> Builder(Block);
    if (F.getReturnType()->isVoidTy())
      Builder.CreateRetVoid();
    else
      Builder.CreateRet(llvm::Constant::getNullValue(F.getReturnType()));
  }
  // What only the old bodies used.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto It = M.begin(); It != M.end();) {
      llvm::Function &F = *It++;
      F.removeDeadConstantUsers();
      if (F.use_empty() && (F.isDeclaration() || F.hasLocalLinkage()) && !F.isIntrinsic()) {
        F.eraseFromParent();
        Changed = true;
      }
    }
    for (auto It = M.global_begin(); It != M.global_end();) {
      llvm::GlobalVariable &Variable = *It++;
      Variable.removeDeadConstantUsers();
      if (Variable.use_empty() && (Variable.isDeclaration() || Variable.hasLocalLinkage())) {
        Variable.eraseFromParent();
        Changed = true;
      }
    }
  }
}

std::string describeType(const llvm::Type *Type) {
  std::string Text;
  llvm::raw_string_ostream Stream(Text);
  Type->print(Stream);
  return Stream.str();
}

} // namespace

const char *aspectName(uint32_t Aspect) {
  switch (Aspect) {
  case AspectFp16:
    return "fp16";
  case AspectFp64:
    return "fp64";
  case AspectAtomic64:
    return "atomic64";
  default:
    return "unknown";
  }
}

llvm::Error normalizeVirtualFunctionAnnotations(llvm::Module &M) {
  if (llvm::GlobalVariable *Annotations = M.getNamedGlobal("llvm.global.annotations");
      Annotations != nullptr && Annotations->hasInitializer()) {
    if (auto *Array = llvm::dyn_cast<llvm::ConstantArray>(Annotations->getInitializer())) {
      std::vector<llvm::Constant *> Kept;
      for (llvm::Use &Operand : Array->operands()) {
        auto *Entry = llvm::dyn_cast<llvm::ConstantStruct>(Operand.get());
        StringRef Text;
        llvm::Function *F = nullptr;
        if (Entry != nullptr && Entry->getNumOperands() >= 2) {
          F = llvm::dyn_cast<llvm::Function>(Entry->getOperand(0)->stripPointerCasts());
          if (!llvm::getConstantStringInfo(Entry->getOperand(1), Text))
            Text = StringRef();
        }
        const bool Callable = Text.startswith(IndirectlyCallableAnnotation);
        const bool Calls = Text.startswith(CallsIndirectlyAnnotation);
        if (F == nullptr || (!Callable && !Calls)) {
          Kept.push_back(llvm::cast<llvm::Constant>(Operand.get()));
          continue;
        }
        const StringRef Value =
            Text.drop_front(Callable ? StringRef(IndirectlyCallableAnnotation).size()
                                     : StringRef(CallsIndirectlyAnnotation).size());
        std::vector<std::string> Sets;
        if (std::string Problem = parseSetList(Value, Sets); !Problem.empty())
          return makeError("function '{}': annotation '{}' {}: it must name {}", F->getName().str(),
                           Text.str(), Problem,
                           Callable ? "exactly one set" : "one or more sets, each once");
        if (Callable && Sets.size() != 1)
          return makeError("function '{}': annotation '{}' names {} sets: a function belongs "
                           "to exactly one set",
                           F->getName().str(), Text.str(), Sets.size());
        if (Callable && isKernel(*F))
          return makeError("kernel '{}' cannot be indirectly callable (set '{}')",
                           F->getName().str(), Sets[0]);
        if (Calls && !isKernel(*F))
          return makeError("function '{}' is not a kernel: calls-indirectly is a kernel attribute",
                           F->getName().str());
        if (Callable && F->hasFnAttribute(IndirectlyCallableAttribute)) {
          // Two annotations, or an annotation and DPC++'s attribute: one set only.
          const std::string Before =
              F->getFnAttribute(IndirectlyCallableAttribute).getValueAsString().trim().str();
          if (Before != Sets[0])
            return makeError("function '{}' is put into two sets, '{}' and '{}': a function "
                             "belongs to exactly one set",
                             F->getName().str(), Before, Sets[0]);
        }
        if (Calls && F->hasFnAttribute(CallsIndirectlyAttribute)) {
          // Several annotations on one kernel: the union, each set still named once.
          std::vector<std::string> Before;
          if (std::string Problem = parseSetList(
                  F->getFnAttribute(CallsIndirectlyAttribute).getValueAsString(), Before);
              Problem.empty()) {
            for (const std::string &Set : Sets)
              if (std::find(Before.begin(), Before.end(), Set) != Before.end())
                return makeError("kernel '{}' names set '{}' twice in calls-indirectly",
                                 F->getName().str(), Set);
            Before.insert(Before.end(), Sets.begin(), Sets.end());
            Sets = std::move(Before);
          }
        }
        F->addFnAttr(Callable ? IndirectlyCallableAttribute : CallsIndirectlyAttribute,
                     joinSets(Sets));
      }
      if (Kept.size() != Array->getNumOperands())
        keepAnnotations(M, Annotations, Kept);
    }
  }
  // Whatever wrote them: one set per function, no empty or repeated set names.
  for (llvm::Function &F : M)
    if (llvm::Error Failure = checkVirtualFunctionAttributes(F))
      return Failure;
  // Plain clang marks no call site: in device code a call through a pointer can only
  // be a virtual call (OpenCL has no function pointers without the clang extension
  // that C++ for OpenCL's virtual functions need), so every one gets the marker.
  for (llvm::Function &F : M)
    for (llvm::Instruction &Instruction : llvm::instructions(F))
      if (auto *Call = llvm::dyn_cast<llvm::CallBase>(&Instruction);
          Call != nullptr && Call->isIndirectCall() && !Call->hasFnAttr(VirtualCallAttribute))
        Call->addFnAttr(llvm::Attribute::get(M.getContext(), VirtualCallAttribute));
  return llvm::Error::success();
}

llvm::Error checkVirtualCalls(const llvm::Module &M) {
  for (const llvm::Function &Kernel : M) {
    if (Kernel.isDeclaration() || !isKernel(Kernel) ||
        Kernel.hasFnAttribute(CallsIndirectlyAttribute))
      continue;
    std::set<const llvm::Function *> Seen = {&Kernel};
    std::vector<const llvm::Function *> Worklist = {&Kernel};
    while (!Worklist.empty()) {
      const llvm::Function *Current = Worklist.back();
      Worklist.pop_back();
      for (const llvm::Instruction &Instruction : llvm::instructions(*Current)) {
        const auto *Call = llvm::dyn_cast<llvm::CallBase>(&Instruction);
        if (Call == nullptr)
          continue;
        if (Call->hasFnAttr(VirtualCallAttribute)) {
          const std::string Where =
              Current == &Kernel
                  ? std::string()
                  : fmt::format(" in function '{}' that it calls", Current->getName().str());
          return makeError("kernel '{}' makes a virtual call{} (a call through a pointer to "
                           "'{}') but has no calls-indirectly attribute: mark it with "
                           "DGLINK_CALLS_INDIRECTLY(\"<set>,...\") naming the sets it calls "
                           "into (dglink/virtual_functions.h)",
                           Kernel.getName().str(), Where, describeType(Call->getFunctionType()));
        }
        if (const llvm::Function *Callee = Call->getCalledFunction();
            Callee != nullptr && !Callee->isDeclaration() && Seen.insert(Callee).second)
          Worklist.push_back(Callee);
      }
    }
  }
  return llvm::Error::success();
}

llvm::Expected<std::vector<SplitImage>> outlineVirtualFunctions(std::vector<InputModule> &Inputs) {
  // 1. The aspects of each set: those of its functions, in every input.
  std::map<std::string, std::set<uint32_t>> SetAspects;
  for (const InputModule &Input : Inputs)
    for (const llvm::Function &F : *Input.Module)
      if (!F.isDeclaration() && F.hasFnAttribute(IndirectlyCallableAttribute)) {
        const std::string Set =
            F.getFnAttribute(IndirectlyCallableAttribute).getValueAsString().str();
        const std::set<uint32_t> Aspects = reachedAspects(F);
        SetAspects[Set].insert(Aspects.begin(), Aspects.end());
      }

  std::vector<SplitImage> SetImages;
  for (InputModule &Input : Inputs) {
    llvm::Module &M = *Input.Module;
    // 2. Each kernel's aspects: its own code's, and those of the sets it calls into (not
    // those of the sets whose vtables it only writes into objects).
    for (llvm::Function &Kernel : M) {
      if (Kernel.isDeclaration() || !isKernel(Kernel))
        continue;
      std::set<uint32_t> Aspects = reachedAspects(Kernel);
      if (Kernel.hasFnAttribute(CallsIndirectlyAttribute))
        for (const std::string &Set :
             splitSets(Kernel.getFnAttribute(CallsIndirectlyAttribute).getValueAsString())) {
          const auto Found = SetAspects.find(Set);
          if (Found != SetAspects.end())
            Aspects.insert(Found->second.begin(), Found->second.end());
        }
      if (!Aspects.empty())
        Kernel.addFnAttr(KernelAspectsAttribute, aspectList(Aspects));
    }
    // 3. The set images of this input, extracted while the bodies are still here.
    std::map<std::string, std::vector<const llvm::GlobalValue *>> Sets;
    for (const llvm::Function &F : M)
      if (!F.isDeclaration() && F.hasFnAttribute(IndirectlyCallableAttribute))
        Sets[F.getFnAttribute(IndirectlyCallableAttribute).getValueAsString().str()].push_back(&F);
    if (Sets.empty())
      continue;
    for (const auto &[Set, Functions] : Sets) {
      SplitImage Image =
          extractImage(M, Input.Name + " [virtual functions " + Set + "]", Functions);
      // Kernels that only construct objects stay in their images.
      Image.Kernels.clear();
      Image.VirtualFunctionSet = Set;
      Image.SetAspects = SetAspects[Set];
      if (!Image.SetAspects.empty()) {
        SplitImage Dummy;
        Dummy.Name = Input.Name + " [virtual functions " + Set + ", dummy]";
        Dummy.Module = llvm::CloneModule(*Image.Module);
        emptyBodies(*Dummy.Module);
        Dummy.VirtualFunctionSet = Set;
        Dummy.Dummy = true;
        SetImages.push_back(std::move(Image));
        SetImages.push_back(std::move(Dummy));
      } else {
        SetImages.push_back(std::move(Image));
      }
    }
    // 4. Kernels keep declarations only; each one that constructs objects calls the
    // functions their vtables point at from a block nothing reaches (see above).
    for (llvm::Function &Kernel : M)
      if (!Kernel.isDeclaration() && isKernel(Kernel))
        addReachabilityBlock(Kernel, referencedSetFunctions(Kernel));
    for (llvm::Function &F : M)
      if (!F.isDeclaration() && F.hasFnAttribute(IndirectlyCallableAttribute)) {
        F.deleteBody();
        F.setLinkage(llvm::GlobalValue::ExternalLinkage);
      }
  }
  return SetImages;
}

std::vector<BundlePropertySet> virtualFunctionPropertySets(const SplitImage &Image) {
  std::vector<BundlePropertySet> Sets;
  BundlePropertySet Functions{PI_PROPERTY_SET_VIRTUAL_FUNCTIONS, {}};
  BundlePropertySet Requirements{DeviceRequirementsSet, {}};
  BundlePropertySet KernelAspects{KernelAspectsSet, {}};
  auto encode = [](const std::set<uint32_t> &Aspects) {
    std::vector<uint8_t> Bytes;
    for (uint32_t Aspect : Aspects)
      for (int Shift = 0; Shift < 32; Shift += 8)
        Bytes.push_back(static_cast<uint8_t>(Aspect >> Shift));
    return Bytes;
  };
  if (!Image.VirtualFunctionSet.empty()) {
    Functions.Properties.push_back(
        BundleProperty::string(VirtualFunctionsSetProperty, Image.VirtualFunctionSet));
    if (Image.Dummy)
      Functions.Properties.push_back(BundleProperty::uint32(DummyImageProperty, 1));
    else if (!Image.SetAspects.empty())
      Requirements.Properties.push_back(
          BundleProperty::byteArray(AspectsProperty, encode(Image.SetAspects)));
  } else {
    std::set<std::string> Used;
    std::set<uint32_t> Union;
    for (const llvm::Function &F : *Image.Module) {
      if (F.isDeclaration() && F.hasFnAttribute(IndirectlyCallableAttribute) && !F.use_empty())
        Used.insert(F.getFnAttribute(IndirectlyCallableAttribute).getValueAsString().str());
      if (F.isDeclaration() || !isKernel(F))
        continue;
      if (F.hasFnAttribute(CallsIndirectlyAttribute))
        for (const std::string &Set :
             splitSets(F.getFnAttribute(CallsIndirectlyAttribute).getValueAsString()))
          Used.insert(Set);
      if (F.hasFnAttribute(KernelAspectsAttribute)) {
        const std::set<uint32_t> Aspects =
            parseAspectList(F.getFnAttribute(KernelAspectsAttribute).getValueAsString());
        Union.insert(Aspects.begin(), Aspects.end());
        KernelAspects.Properties.push_back(
            BundleProperty::byteArray(F.getName().str(), encode(Aspects)));
      }
    }
    if (!Used.empty())
      Functions.Properties.push_back(BundleProperty::string(UsesVirtualFunctionsSetProperty,
                                                            joinSets({Used.begin(), Used.end()})));
    if (!Union.empty())
      Requirements.Properties.push_back(BundleProperty::byteArray(AspectsProperty, encode(Union)));
  }
  for (BundlePropertySet *Set : {&Functions, &Requirements, &KernelAspects})
    if (!Set->Properties.empty())
      Sets.push_back(std::move(*Set));
  return Sets;
}

} // namespace dglink::shim
