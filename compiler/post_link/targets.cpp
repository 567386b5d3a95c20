// Target emitters: spir64 LLVM bitcode, spir64 SPIR-V through the SPIRV-LLVM-Translator
// library, nvptx64 PTX through LLVM's NVPTX backend, amdgcn code objects through LLVM's
// AMDGPU backend (and ld.lld for executable ones).
#include "post_link_internal.h"

#include <LLVMSPIRVLib/LLVMSPIRVLib.h>

#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/FileUtilities.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#ifndef DGLINK_SHIM_LLD
#define DGLINK_SHIM_LLD "ld.lld-15"
#endif

#include <map>
#include <mutex>
#include <set>
#include <sstream>

namespace dglink::shim {

std::vector<uint8_t> emitBitcode(const llvm::Module &M) {
  llvm::SmallVector<char, 0> Buffer;
  llvm::BitcodeWriter Writer(Buffer);
  Writer.writeModule(M);
  Writer.writeSymtab();
  Writer.writeStrtab();
  return std::vector<uint8_t>(Buffer.begin(), Buffer.end());
}

llvm::Expected<std::vector<uint8_t>> emitSpirV(llvm::Module &M) {
  llvm::Expected<std::vector<DeviceGlobal>> Globals = findDeviceGlobals(M);
  if (!Globals)
    return Globals.takeError();
  addHostAccessDecorations(M, *Globals);
  const SPIRV::TranslatorOpts Options(
      SPIRV::VersionNumber::MaximumVersion,
      {{SPIRV::ExtensionID::SPV_INTEL_global_variable_decorations, true},
       // Virtual functions: vtables hold function addresses, calls go through them.
       {SPIRV::ExtensionID::SPV_INTEL_function_pointers, true}});
  std::ostringstream Stream;
  std::string Message;
  if (!llvm::writeSpirv(&M, Options, Stream, Message))
    return makeError("SPIR-V translation of '{}' failed: {}", M.getModuleIdentifier(), Message);
  const std::string Bytes = Stream.str();
  return std::vector<uint8_t>(Bytes.begin(), Bytes.end());
}

namespace {

// The function or variable a PTX declaration line names: the identifier after the
// directive and an optional return-value list "(...)".
llvm::StringRef ptxDeclaredName(llvm::StringRef Rest) {
  Rest = Rest.ltrim();
  if (Rest.startswith("(")) {
    const size_t Close = Rest.find(')');
    if (Close == llvm::StringRef::npos)
      return {};
    Rest = Rest.drop_front(Close + 1).ltrim();
  }
  return Rest.take_while(
      [](char C) { return llvm::isAlnum(C) || C == '_' || C == '$' || C == '.'; });
}

// The name of a .global variable: the last identifier before '[', '=' or ';'.
llvm::StringRef ptxVariableName(llvm::StringRef Line) {
  const size_t End = Line.find_first_of("[=;");
  llvm::StringRef Head = Line.take_front(End).rtrim();
  const size_t Space = Head.find_last_of(" \t");
  return Space == llvm::StringRef::npos ? Head : Head.drop_front(Space + 1);
}

using LinkageDirectives = std::map<std::string, const char *, std::less<>>;

// ".visible " for each external definition of M, ".extern " for each declaration.
LinkageDirectives linkageDirectives(const llvm::Module &M) {
  LinkageDirectives Result;
  auto Add = [&Result](const llvm::GlobalValue &Global) {
    if (!Global.hasLocalLinkage())
      Result[Global.getName().str()] = Global.isDeclaration() ? ".extern " : ".visible ";
  };
  for (const llvm::Function &F : M)
    Add(F);
  for (const llvm::GlobalVariable &Variable : M.globals())
    Add(Variable);
  return Result;
}

const char *directiveOf(const LinkageDirectives &Linkage, llvm::StringRef Name) {
  auto It = Linkage.find(Name);
  return It == Linkage.end() ? nullptr : It->second;
}

// Adds the linkage directives the nvcl flavour of the NVPTX backend leaves out, from
// the module's own linkage, so that images link and globals are found by name.
std::string addPtxLinkage(llvm::StringRef Ptx, const LinkageDirectives &Linkage) {
  std::string Out;
  Out.reserve(Ptx.size() + 256);
  while (!Ptx.empty()) {
    auto [Line, Rest] = Ptx.split('\n');
    const bool HadNewline = Ptx.size() > Line.size();
    Ptx = Rest;
    const char *Directive = nullptr;
    if (Line.startswith(".entry ")) {
      Directive = ".visible ";
    } else if (Line.startswith(".func ") || Line.startswith(".func\t")) {
      Directive = directiveOf(Linkage, ptxDeclaredName(Line.drop_front(5)));
    } else if (Line.startswith(".global ")) {
      Directive = directiveOf(Linkage, ptxVariableName(Line));
    }
    if (Directive != nullptr)
      Out += Directive;
    Out += Line.str();
    if (HadNewline)
      Out += '\n';
  }
  return Out;
}

} // namespace

llvm::Expected<std::unique_ptr<llvm::TargetMachine>> nvptxTargetMachine(const std::string &Triple,
                                                                        const std::string &Arch) {
  static std::once_flag Initialized;
  std::call_once(Initialized, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  std::string Message;
  const llvm::Target *Target = llvm::TargetRegistry::lookupTarget(Triple, Message);
  if (Target == nullptr)
    return makeError("no NVPTX backend for '{}': {}", Triple, Message);
  std::unique_ptr<llvm::TargetMachine> Machine(Target->createTargetMachine(
      Triple, Arch, "", llvm::TargetOptions(), llvm::None, llvm::None, llvm::CodeGenOpt::Default));
  if (!Machine)
    return makeError("cannot create an NVPTX target machine for '{}' ({})", Triple, Arch);
  return Machine;
}

llvm::Expected<std::vector<uint8_t>> emitPtx(llvm::Module &M, const std::string &Arch) {
  const std::string Triple = M.getTargetTriple();
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> Made = nvptxTargetMachine(Triple, Arch);
  if (!Made)
    return Made.takeError();
  std::unique_ptr<llvm::TargetMachine> Machine = std::move(*Made);
  M.setDataLayout(Machine->createDataLayout());
  llvm::SmallString<0> Text;
  llvm::raw_svector_ostream Stream(Text);
  llvm::legacy::PassManager Passes;
  if (Machine->addPassesToEmitFile(Passes, Stream, nullptr, llvm::CGFT_AssemblyFile))
    return makeError("the NVPTX backend cannot emit PTX for '{}'", Triple);
  // Codegen rewrites variables (address spaces): take the linkage from the input.
  const LinkageDirectives Linkage = linkageDirectives(M);
  Passes.run(M);
  const std::string Ptx = addPtxLinkage(Text.str(), Linkage);
  return std::vector<uint8_t>(Ptx.begin(), Ptx.end());
}

llvm::Expected<std::vector<uint8_t>> emitCodeObject(llvm::Module &M, const std::string &Arch) {
  static std::once_flag Initialized;
  std::call_once(Initialized, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
  });
  // A code object that imports or exports symbols takes part in run-time links: it
  // stays relocatable (the backend's object), which the HIP adapter links with comgr
  // (piProgramCompile + piProgramLink, or alone at piProgramBuild). One that does
  // neither is linked now into an executable code object that loads as it is.
  const std::vector<std::string> ImportList = importedSymbols(M);
  const std::set<std::string> Imports(ImportList.begin(), ImportList.end());
  const bool Relocatable = !Imports.empty() || !exportedSymbols(M).empty();
  // What no input defines and is no import (OpenCL builtins such as get_global_id,
  // reserved names) comes from nowhere at run time: the ROCm device libraries define
  // the builtins at compile time.
  for (const llvm::Function &F : M)
    if (F.isDeclaration() && !F.isIntrinsic() && !F.use_empty() &&
        Imports.count(F.getName().str()) == 0)
      return makeError("the amdgcn code object calls '{}', which no input defines and no other "
                       "image can provide (an OpenCL builtin comes from the ROCm device "
                       "libraries: install rocm-device-libs, or give their bitcode folder with "
                       "--rocm-device-libs)",
                       F.getName().str());
  // Hidden declarations could not be resolved by another code object either.
  for (llvm::GlobalValue &Global : M.global_values())
    if (!Global.hasLocalLinkage() && Global.hasHiddenVisibility() &&
        !Global.getName().startswith("llvm."))
      Global.setVisibility(Global.isDeclaration() ? llvm::GlobalValue::DefaultVisibility
                                                  : llvm::GlobalValue::ProtectedVisibility);
  const std::string Triple = M.getTargetTriple();
  std::string Message;
  const llvm::Target *Target = llvm::TargetRegistry::lookupTarget(Triple, Message);
  if (Target == nullptr)
    return makeError("no AMDGPU backend for '{}': {}", Triple, Message);
  std::unique_ptr<llvm::TargetMachine> Machine(
      Target->createTargetMachine(Triple, Arch, "", llvm::TargetOptions(), llvm::Reloc::PIC_,
                                  llvm::None, llvm::CodeGenOpt::Default));
  if (!Machine)
    return makeError("cannot create an AMDGPU target machine for '{}' ({})", Triple, Arch);
  M.setDataLayout(Machine->createDataLayout());

  llvm::SmallString<128> Object, Linked;
  if (std::error_code Code = llvm::sys::fs::createTemporaryFile("dglink-shim", "o", Object))
    return makeError("cannot create a temporary file: {}", Code.message());
  llvm::FileRemover RemoveObject(Object);
  if (std::error_code Code = llvm::sys::fs::createTemporaryFile("dglink-shim", "co", Linked))
    return makeError("cannot create a temporary file: {}", Code.message());
  llvm::FileRemover RemoveLinked(Linked);
  {
    std::error_code Code;
    llvm::raw_fd_ostream Stream(Object, Code);
    if (Code)
      return makeError("cannot write '{}': {}", Object.str().str(), Code.message());
    llvm::legacy::PassManager Passes;
    if (Machine->addPassesToEmitFile(Passes, Stream, nullptr, llvm::CGFT_ObjectFile))
      return makeError("the AMDGPU backend cannot emit an object for '{}'", Arch);
    Passes.run(M);
  }
  if (Relocatable) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer = llvm::MemoryBuffer::getFile(Object);
    if (!Buffer)
      return makeError("cannot read the {} object: {}", Arch, Buffer.getError().message());
    return std::vector<uint8_t>((*Buffer)->getBufferStart(), (*Buffer)->getBufferEnd());
  }
  // An executable code object is a linked shared object.
  llvm::ErrorOr<std::string> Lld = llvm::sys::findProgramByName(DGLINK_SHIM_LLD);
  if (!Lld)
    return makeError("amdgcn needs ld.lld ('{}' not found: apt-get install lld-15)",
                     DGLINK_SHIM_LLD);
  const llvm::StringRef Arguments[] = {*Lld, "-shared", "-o", Linked, Object};
  std::string Failure;
  if (llvm::sys::ExecuteAndWait(*Lld, Arguments, llvm::None, {}, 0, 0, &Failure) != 0)
    return makeError("ld.lld failed to link the {} code object{}{}", Arch,
                     Failure.empty() ? "" : ": ", Failure);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer = llvm::MemoryBuffer::getFile(Linked);
  if (!Buffer)
    return makeError("cannot read the linked code object: {}", Buffer.getError().message());
  return std::vector<uint8_t>((*Buffer)->getBufferStart(), (*Buffer)->getBufferEnd());
}

} // namespace dglink::shim
