// Symbols of a module (kernels, exports, imports) and the device-code split modes.
#include "post_link_internal.h"

#include <llvm/Demangle/Demangle.h>
#include <llvm/IR/CallingConv.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <algorithm>
#include <map>
#include <set>

namespace dglink::shim {

using llvm::StringRef;

namespace {

// Functions named "kernel" in nvvm.annotations (how clang marks NVPTX kernels).
bool isNvvmKernel(const llvm::Function &F) {
  const llvm::NamedMDNode *Annotations = F.getParent()->getNamedMetadata("nvvm.annotations");
  if (Annotations == nullptr)
    return false;
  for (const llvm::MDNode *Node : Annotations->operands()) {
    if (Node->getNumOperands() < 3)
      continue;
    auto *Subject = llvm::dyn_cast_or_null<llvm::ValueAsMetadata>(Node->getOperand(0).get());
    auto *Key = llvm::dyn_cast_or_null<llvm::MDString>(Node->getOperand(1).get());
    if (Subject != nullptr && Subject->getValue() == &F && Key != nullptr &&
        Key->getString() == "kernel")
      return true;
  }
  return false;
}

bool usesModuleIds(const llvm::Module &M) {
  for (const llvm::Function &F : M)
    if (F.hasFnAttribute(ModuleIdAttribute))
      return true;
  return false;
}

bool isExportedFunction(const llvm::Function &F, bool ModuleIds) {
  if (F.isDeclaration() || F.hasLocalLinkage() || isKernel(F) ||
      isReservedSymbol(*F.getParent(), F.getName()))
    return false;
  return !ModuleIds || F.hasFnAttribute(ModuleIdAttribute) ||
         F.hasFnAttribute(IndirectlyCallableAttribute);
}

// The globals a value refers to, through constant expressions and initializers.
void collectReferences(const llvm::Value *V, std::set<const llvm::GlobalValue *> &Out,
                       std::set<const llvm::Value *> &Seen,
                       std::vector<const llvm::GlobalValue *> &Worklist) {
  if (!Seen.insert(V).second)
    return;
  if (auto *Global = llvm::dyn_cast<llvm::GlobalValue>(V)) {
    if (Out.insert(Global).second)
      Worklist.push_back(Global);
    return;
  }
  if (auto *Expression = llvm::dyn_cast<llvm::Constant>(V))
    for (const llvm::Use &Operand : Expression->operands())
      collectReferences(Operand.get(), Out, Seen, Worklist);
}

// Everything the entries reach: called functions, used variables, their initializers.
std::set<const llvm::GlobalValue *>
reachable(const std::vector<const llvm::GlobalValue *> &Entries) {
  std::set<const llvm::GlobalValue *> Result(Entries.begin(), Entries.end());
  std::set<const llvm::Value *> Seen;
  std::vector<const llvm::GlobalValue *> Worklist(Entries.begin(), Entries.end());
  while (!Worklist.empty()) {
    const llvm::GlobalValue *Global = Worklist.back();
    Worklist.pop_back();
    if (auto *F = llvm::dyn_cast<llvm::Function>(Global)) {
      for (const llvm::BasicBlock &Block : *F)
        for (const llvm::Instruction &Instruction : Block)
          for (const llvm::Use &Operand : Instruction.operands())
            collectReferences(Operand.get(), Result, Seen, Worklist);
    } else if (auto *Variable = llvm::dyn_cast<llvm::GlobalVariable>(Global)) {
      if (Variable->hasInitializer())
        collectReferences(Variable->getInitializer(), Result, Seen, Worklist);
    } else if (auto *Alias = llvm::dyn_cast<llvm::GlobalAlias>(Global)) {
      collectReferences(Alias->getAliasee(), Result, Seen, Worklist);
    }
  }
  return Result;
}

// Drops declarations nothing uses any more (what the clone left of the rest).
void removeUnusedDeclarations(llvm::Module &M) {
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (auto It = M.begin(); It != M.end();) {
      llvm::Function &F = *It++;
      F.removeDeadConstantUsers();
      if (F.isDeclaration() && F.use_empty() && !F.isIntrinsic()) {
        F.eraseFromParent();
        Changed = true;
      }
    }
    for (auto It = M.global_begin(); It != M.global_end();) {
      llvm::GlobalVariable &Variable = *It++;
      Variable.removeDeadConstantUsers();
      if (Variable.isDeclaration() && Variable.use_empty()) {
        Variable.eraseFromParent();
        Changed = true;
      }
    }
  }
}

std::vector<std::string> kernelNamesOf(const llvm::Module &M) {
  std::vector<std::string> Result;
  for (const llvm::Function &F : M)
    if (!F.isDeclaration() && isKernel(F))
      Result.push_back(F.getName().str());
  return Result;
}

} // namespace

// One image of M holding Entries and what they reach. Entries and device globals
// keep their linkage; every other copied definition becomes internal, so that two
// images linked together never define a symbol twice.
SplitImage extractImage(const llvm::Module &M, std::string Name,
                        const std::vector<const llvm::GlobalValue *> &Entries) {
  const std::set<const llvm::GlobalValue *> Keep = reachable(Entries);
  llvm::ValueToValueMapTy Map;
  std::unique_ptr<llvm::Module> Clone = llvm::CloneModule(
      M, Map, [&Keep](const llvm::GlobalValue *Global) { return Keep.count(Global) != 0; });
  std::set<std::string> EntryNames;
  for (const llvm::GlobalValue *Entry : Entries)
    EntryNames.insert(Entry->getName().str());
  for (llvm::Function &F : *Clone)
    if (!F.isDeclaration() && !EntryNames.count(F.getName().str()) && !F.hasLocalLinkage())
      F.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable &Variable : Clone->globals())
    if (!Variable.isDeclaration() && !isDeviceGlobal(Variable) && !Variable.hasLocalLinkage() &&
        !Variable.getName().startswith("llvm."))
      Variable.setLinkage(llvm::GlobalValue::InternalLinkage);
  removeUnusedDeclarations(*Clone);
  SplitImage Image;
  Image.Name = std::move(Name);
  for (const llvm::Function &F : *Clone)
    if (!F.isDeclaration() && isKernel(F))
      Image.Kernels.push_back(F.getName().str());
  Image.Module = std::move(Clone);
  return Image;
}

bool isKernel(const llvm::Function &F) {
  switch (F.getCallingConv()) {
  case llvm::CallingConv::SPIR_KERNEL:
  case llvm::CallingConv::PTX_Kernel:
  case llvm::CallingConv::AMDGPU_KERNEL:
    return true;
  default:
    return isNvvmKernel(F);
  }
}

bool isReservedSymbol(const llvm::Module &M, StringRef Name) {
  if (Name.startswith("llvm.") || Name.startswith("__"))
    return true;
  // Virtual functions of C++ for OpenCL are mangled like builtins, but are the user's.
  if (const llvm::Function *F = M.getFunction(Name);
      F != nullptr && F->hasFnAttribute(IndirectlyCallableAttribute))
    return false;
  if (Name.startswith("_Z")) {
    // OpenCL C functions are not mangled; the overloaded builtins are.
    if (M.getNamedMetadata("opencl.ocl.version") != nullptr)
      return true;
    return StringRef(llvm::demangle(Name.str())).startswith("__");
  }
  return false;
}

std::vector<std::string> exportedSymbols(const llvm::Module &M) {
  const bool ModuleIds = usesModuleIds(M);
  std::vector<std::string> Result;
  for (const llvm::Function &F : M)
    if (isExportedFunction(F, ModuleIds))
      Result.push_back(F.getName().str());
  for (const llvm::GlobalVariable &Variable : M.globals())
    if (!Variable.isDeclaration() && !Variable.hasLocalLinkage() &&
        !isReservedSymbol(M, Variable.getName()))
      Result.push_back(Variable.getName().str());
  std::sort(Result.begin(), Result.end());
  return Result;
}

std::vector<std::string> importedSymbols(const llvm::Module &M) {
  std::vector<std::string> Result;
  for (const llvm::Function &F : M)
    if (F.isDeclaration() && !F.isIntrinsic() && !F.use_empty() &&
        !isReservedSymbol(M, F.getName()))
      Result.push_back(F.getName().str());
  // An external array in local memory (address space 3) is the kernel's dynamic local
  // memory (lowerLocalArguments), sized at launch: no other image provides it.
  for (const llvm::GlobalVariable &Variable : M.globals())
    if (Variable.isDeclaration() && !Variable.use_empty() && Variable.getAddressSpace() != 3 &&
        !isReservedSymbol(M, Variable.getName()))
      Result.push_back(Variable.getName().str());
  std::sort(Result.begin(), Result.end());
  return Result;
}

llvm::Expected<SplitMode> parseSplitMode(StringRef Name) {
  if (Name == "per-input" || Name == "source")
    return SplitMode::PerInput;
  if (Name == "per-kernel" || Name == "kernel")
    return SplitMode::PerKernel;
  if (Name == "all-in-one" || Name == "off" || Name == "none")
    return SplitMode::AllInOne;
  return makeError("unknown split mode '{}' (per-input, per-kernel, all-in-one)", Name.str());
}

llvm::Expected<std::vector<SplitImage>> splitModules(std::vector<InputModule> Inputs,
                                                     SplitMode Mode) {
  std::vector<SplitImage> Images;
  if (Mode == SplitMode::PerInput) {
    for (InputModule &Input : Inputs) {
      SplitImage Image;
      Image.Name = Input.Name;
      Image.Kernels = kernelNamesOf(*Input.Module);
      Image.Module = std::move(Input.Module);
      Images.push_back(std::move(Image));
    }
    return Images;
  }
  if (Inputs.empty())
    return Images;

  // Which input each exported function came from, for per-kernel grouping.
  std::map<std::string, std::string> Origin;
  for (const InputModule &Input : Inputs)
    for (const std::string &Name : exportedSymbols(*Input.Module))
      Origin.emplace(Name, Input.Name);

  std::unique_ptr<llvm::Module> Linked = std::move(Inputs.front().Module);
  std::string LinkedName = Inputs.front().Name;
  for (size_t I = 1; I < Inputs.size(); ++I) {
    // The linker reports why through the context's diagnostic handler (whose default
    // ends the process on an error): collect the messages instead.
    std::string Diagnostics;
    llvm::LLVMContext &Context = Linked->getContext();
    auto SavedHandler = Context.getDiagnosticHandlerCallBack();
    void *SavedState = Context.getDiagnosticContext();
    Context.setDiagnosticHandlerCallBack(
        [](const llvm::DiagnosticInfo &Info, void *State) {
          auto &Text = *static_cast<std::string *>(State);
          llvm::raw_string_ostream Stream(Text);
          llvm::DiagnosticPrinterRawOStream Printer(Stream);
          if (!Text.empty())
            Stream << "; ";
          Info.print(Printer);
        },
        &Diagnostics);
    const bool Failed = llvm::Linker::linkModules(*Linked, std::move(Inputs[I].Module));
    Context.setDiagnosticHandlerCallBack(SavedHandler, SavedState);
    if (Failed)
      return makeError("cannot link input '{}' with the inputs before it: {}", Inputs[I].Name,
                       Diagnostics);
    LinkedName += "+" + Inputs[I].Name;
  }
  if (Mode == SplitMode::AllInOne) {
    SplitImage Image;
    Image.Name = Inputs.size() == 1 ? LinkedName : "all";
    Image.Kernels = kernelNamesOf(*Linked);
    Image.Module = std::move(Linked);
    Images.push_back(std::move(Image));
    return Images;
  }

  const bool ModuleIds = usesModuleIds(*Linked);
  std::map<std::string, std::vector<const llvm::GlobalValue *>> ExportGroups;
  for (const llvm::Function &F : *Linked) {
    if (F.isDeclaration())
      continue;
    if (isKernel(F)) {
      Images.push_back(extractImage(*Linked, F.getName().str(), {&F}));
    } else if (isExportedFunction(F, ModuleIds)) {
      std::string Group = ModuleIds ? F.getFnAttribute(ModuleIdAttribute).getValueAsString().str()
                                    : Origin[F.getName().str()];
      ExportGroups[Group].push_back(&F);
    }
  }
  for (auto &[Group, Entries] : ExportGroups)
    Images.push_back(extractImage(*Linked, "exports of " + Group, Entries));
  return Images;
}

} // namespace dglink::shim
