// The shim's pipeline: inputs -> LLVM modules per target family -> device globals
// normalized and checked -> split -> property sets -> one bundle image per target.
#include "post_link_internal.h"

#include <llvm/ADT/Triple.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/FileUtilities.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Transforms/Utils/Cloning.h>

#ifndef DGLINK_SHIM_CLANG
#define DGLINK_SHIM_CLANG "clang-15"
#endif
// Where dglink/device_global.h is, from the folder of the running program: installed,
// bin/ -> include/; the build tree mirrors that layout.
#ifndef DGLINK_SHIM_INCLUDE_FROM_BINDIR
#define DGLINK_SHIM_INCLUDE_FROM_BINDIR "../include"
#endif
// The ROCm device libraries' bitcode folder (opencl.bc, ocml.bc, ockl.bc, oclc_*.bc)
// found at build time; empty where none was.
#ifndef DGLINK_SHIM_ROCM_DEVICE_LIBS
#define DGLINK_SHIM_ROCM_DEVICE_LIBS ""
#endif

namespace dglink::shim {

namespace {

// Targets that come from the same LLVM module: the spir64 pair, and nvptx64.
struct TargetFamily {
  const char *Name;
  llvm::Triple::ArchType Arch;
  const char *ClangTriple;
  std::vector<std::string> Targets;
};

enum class InputKind { OpenClC, CppForOpenCl, LlvmIr };

llvm::Expected<InputKind> inputKind(const std::string &Path) {
  const llvm::StringRef Extension = llvm::sys::path::extension(Path);
  if (Extension == ".cl")
    return InputKind::OpenClC;
  if (Extension == ".clcpp")
    return InputKind::CppForOpenCl;
  if (Extension == ".ll" || Extension == ".bc")
    return InputKind::LlvmIr;
  return makeError("input '{}': unknown kind (expected .cl, .clcpp, .ll or .bc)", Path);
}

llvm::Expected<std::unique_ptr<llvm::Module>>
parseModule(const std::string &Path, const std::string &Shown, llvm::LLVMContext &Context) {
  llvm::SMDiagnostic Diagnostic;
  std::unique_ptr<llvm::Module> M = llvm::parseIRFile(Path, Diagnostic, Context);
  if (!M)
    return makeError("input '{}': {}:{}: {}", Shown, Diagnostic.getLineNo(),
                     Diagnostic.getColumnNo(), Diagnostic.getMessage().str());
  return M;
}

// The ROCm device libraries' folder for amdgcn: the option's, else the one found at
// build time; empty: none (the sources are compiled with -nogpulib). A folder given
// that lacks opencl.bc or the GPU's oclc_isa_version_<n>.bc is an error.
llvm::Expected<std::string> rocmDeviceLibraries(const CompileOptions &Options) {
  const std::string Folder =
      Options.RocmDeviceLibs.empty() ? DGLINK_SHIM_ROCM_DEVICE_LIBS : Options.RocmDeviceLibs;
  if (Folder.empty() || Folder == "none")
    return std::string();
  llvm::SmallString<128> OpenCl(Folder);
  llvm::sys::path::append(OpenCl, "opencl.bc");
  if (!llvm::sys::fs::exists(OpenCl))
    return makeError("the ROCm device libraries are not in '{}' (no opencl.bc there; install "
                     "rocm-device-libs, or give their bitcode folder with --rocm-device-libs)",
                     Folder);
  // gfx90a -> oclc_isa_version_90a.bc, as clang's driver names it.
  const llvm::StringRef Arch(Options.AmdgcnArch);
  llvm::SmallString<128> Isa(Folder);
  llvm::sys::path::append(Isa, "oclc_isa_version_" +
                                   (Arch.startswith("gfx") ? Arch.drop_front(3) : Arch).str() +
                                   ".bc");
  if (!llvm::sys::fs::exists(Isa))
    return makeError("the ROCm device libraries in '{}' have no library for {} ({} is missing)",
                     Folder, Options.AmdgcnArch, llvm::sys::path::filename(Isa).str());
  return Folder;
}

// The folder that holds dglink/device_global.h for device sources, found beside the
// running program (never a path of the build machine); empty when it is not there.
const std::string &deviceHeaderFolder() {
  static const std::string Folder = [] {
    static int Anchor = 0;
    const std::string Program = llvm::sys::fs::getMainExecutable("dglink-post-link", &Anchor);
    llvm::SmallString<128> Candidate(llvm::sys::path::parent_path(Program));
    llvm::sys::path::append(Candidate, DGLINK_SHIM_INCLUDE_FROM_BINDIR);
    llvm::sys::path::remove_dots(Candidate, /*remove_dot_dot=*/true);
    llvm::SmallString<128> Header(Candidate);
    llvm::sys::path::append(Header, "dglink", "device_global.h");
    return llvm::sys::fs::exists(Header) ? Candidate.str().str() : std::string();
  }();
  return Folder;
}

// Compiles a device source to a module for Family's triple with clang.
llvm::Expected<std::unique_ptr<llvm::Module>> compileSource(const std::string &Path, InputKind Kind,
                                                            const TargetFamily &Family,
                                                            const CompileOptions &Options,
                                                            llvm::LLVMContext &Context) {
  const std::string Clang = Options.Clang.empty() ? DGLINK_SHIM_CLANG : Options.Clang;
  llvm::ErrorOr<std::string> Program = llvm::sys::findProgramByName(Clang);
  if (!Program)
    return makeError("input '{}': cannot find the device compiler '{}'", Path, Clang);
  llvm::SmallString<128> Output;
  if (std::error_code Code = llvm::sys::fs::createTemporaryFile("dglink-shim", "bc", Output))
    return makeError("cannot create a temporary file: {}", Code.message());
  llvm::FileRemover Remove(Output);
  std::vector<std::string> Arguments = {*Program};
  if (Kind == InputKind::OpenClC) {
    Arguments.insert(Arguments.end(), {"-x", "cl", "-cl-std=" + Options.OpenClStd});
  } else {
    // No RTTI: its type_info vtables would be imports no device image provides.
    Arguments.insert(Arguments.end(), {"-x", "clcpp", "-cl-std=clc++1.0", "-Xclang", "-fno-rtti"});
  }
  Arguments.insert(Arguments.end(), {std::string("--target=") + Family.ClangTriple, "-O2",
                                     "-Xclang", "-finclude-default-header", "-emit-llvm", "-c"});
  // clang's NVPTX target does not list cl_khr_fp16, so code using half (a set the shim
  // gives aspect fp16) would compile for spir64 and amdgcn but not nvptx64; every GPU
  // CUDA runs on has fp16 (the runtime gives CUDA and HIP devices the aspect).
  if (Family.Arch == llvm::Triple::nvptx64)
    Arguments.insert(Arguments.end(), {"-Xclang", "-cl-ext=+cl_khr_fp16"});
  if (Family.Arch == llvm::Triple::amdgcn) {
    // OpenCL builtins (get_global_id, math) come from the ROCm device libraries: clang
    // links opencl.bc, ocml.bc, ockl.bc and the oclc_* control libraries for the GPU
    // into the module (internalized, only what is used). Without them (-nogpulib) the
    // builtins stay undefined and emitCodeObject refuses the image, naming them.
    Arguments.push_back("-mcpu=" + Options.AmdgcnArch);
    llvm::Expected<std::string> Libraries = rocmDeviceLibraries(Options);
    if (!Libraries)
      return makeError("input '{}': {}", Path, llvm::toString(Libraries.takeError()));
    if (Libraries->empty())
      Arguments.push_back("-nogpulib");
    else
      Arguments.push_back("--rocm-device-lib-path=" + *Libraries);
  }
  if (!deviceHeaderFolder().empty())
    Arguments.insert(Arguments.end(), {"-I", deviceHeaderFolder()});
  for (const std::string &Directory : Options.IncludeDirs)
    Arguments.insert(Arguments.end(), {"-I", Directory});
  for (const std::string &Define : Options.Defines)
    Arguments.push_back("-D" + Define);
  Arguments.insert(Arguments.end(), {"-o", Output.str().str(), Path});
  std::vector<llvm::StringRef> ArgumentRefs(Arguments.begin(), Arguments.end());
  std::string Message;
  const int Status =
      llvm::sys::ExecuteAndWait(*Program, ArgumentRefs, llvm::None, {}, 0, 0, &Message);
  if (Status != 0)
    return makeError("input '{}': {} failed for {} (exit status {}{}{})", Path, Clang,
                     Family.ClangTriple, Status, Message.empty() ? "" : ": ", Message);
  return parseModule(Output.str().str(), Path, Context);
}

llvm::Expected<std::unique_ptr<llvm::Module>> loadInput(const std::string &Path,
                                                        const TargetFamily &Family,
                                                        const CompileOptions &Options,
                                                        llvm::LLVMContext &Context) {
  llvm::Expected<InputKind> Kind = inputKind(Path);
  if (!Kind)
    return Kind.takeError();
  if (*Kind != InputKind::LlvmIr)
    return compileSource(Path, *Kind, Family, Options, Context);
  llvm::Expected<std::unique_ptr<llvm::Module>> M = parseModule(Path, Path, Context);
  if (!M)
    return M.takeError();
  const llvm::Triple Triple((*M)->getTargetTriple());
  if (Triple.getArch() != Family.Arch)
    return makeError("input '{}' is LLVM IR for '{}'; target {} needs a {} module (give the "
                     "source, or IR for each target)",
                     Path, Triple.str(), Family.Targets.front(), Family.Name);
  return M;
}

// What DPC++ gives its CUDA and HIP device code: "<kernel>_with_offset" entry points of
// the kernels that read the global offset (device.h's helpers call the marker), always;
// local-memory arguments as offsets where asked.
llvm::Error streamForm(llvm::Module &M, const CompileOptions &Options) {
  if (llvm::Expected<unsigned> Entries = addGlobalOffsetEntries(M); !Entries)
    return Entries.takeError();
  if (Options.LocalArgumentOffsets)
    lowerLocalArguments(M);
  return llvm::Error::success();
}

// One image of Source (module M: the split image, or its lowered copy) for Target.
llvm::Expected<BundleImage> emitImage(const std::string &Target, const SplitImage &Source,
                                      const llvm::Module &M, std::vector<BundlePropertySet> Sets,
                                      bool AllSources, const CompileOptions &Options,
                                      bool Lowered = false) {
  BundleImage Out;
  Out.Name = Source.Name;
  Out.Entries = Source.Kernels;
  Out.PropertySets = std::move(Sets);
  const llvm::Triple Triple(M.getTargetTriple());
  // The OpenCL C version the sources were compiled for, which program-scope variables
  // need (CL2.0) at build time; a lowered image has none left and builds on OpenCL C 1.2
  // devices too, which refuse -cl-std=CL2.0.
  if (AllSources && !Lowered && Triple.getArch() == llvm::Triple::spir64)
    Out.CompileOptions = "-cl-std=" + Options.OpenClStd;
  std::unique_ptr<llvm::Module> Copy = llvm::CloneModule(M);
  llvm::Expected<std::vector<uint8_t>> Bytes = std::vector<uint8_t>();
  if (Target == "spir64") {
    Out.Target = PI_DEVICE_BINARY_TARGET_SPIRV64;
    Out.Format = PI_DEVICE_BINARY_TYPE_LLVMIR_BITCODE;
    Bytes = emitBitcode(*Copy);
  } else if (Target == "spirv64") {
    Out.Target = PI_DEVICE_BINARY_TARGET_SPIRV64;
    Out.Format = PI_DEVICE_BINARY_TYPE_SPIRV;
    Bytes = emitSpirV(*Copy);
  } else if (Target == "amdgcn") {
    if (llvm::Error Failed = streamForm(*Copy, Options))
      return makeError("image '{}': {}", Source.Name, llvm::toString(std::move(Failed)));
    Out.Target = PI_DEVICE_BINARY_TARGET_AMDGCN;
    Out.Format = PI_DEVICE_BINARY_TYPE_NATIVE;
    Bytes = emitCodeObject(*Copy, Options.AmdgcnArch);
  } else {
    if (llvm::Error Failed = streamForm(*Copy, Options))
      return makeError("image '{}': {}", Source.Name, llvm::toString(std::move(Failed)));
    Out.Target = PI_DEVICE_BINARY_TARGET_NVPTX64;
    Out.Format = PI_DEVICE_BINARY_TYPE_NATIVE;
    Bytes = emitPtx(*Copy, Options.NvptxArch);
  }
  if (!Bytes)
    return makeError("image '{}': {}", Source.Name, llvm::toString(Bytes.takeError()));
  Out.Binary = std::move(*Bytes);
  return Out;
}

} // namespace

llvm::Expected<Bundle> compile(const CompileOptions &Options) {
  if (Options.Inputs.empty())
    return makeError("no inputs");
  if (Options.Targets.empty())
    return makeError("no targets (spirv64, spir64, nvptx64, amdgcn)");
  std::vector<TargetFamily> Families = {
      {"spir64", llvm::Triple::spir64, "spir64-unknown-unknown", {}},
      {"nvptx64", llvm::Triple::nvptx64, "nvptx64-nvidia-nvcl", {}},
      {"amdgcn", llvm::Triple::amdgcn, "amdgcn-amd-amdhsa", {}}};
  for (const std::string &Target : Options.Targets) {
    if (Target == "spirv64" || Target == "spir64")
      Families[0].Targets.push_back(Target);
    else if (Target == "nvptx64")
      Families[1].Targets.push_back(Target);
    else if (Target == "amdgcn")
      Families[2].Targets.push_back(Target);
    else
      return makeError("unknown target '{}' (spirv64, spir64, nvptx64, amdgcn)", Target);
  }
  bool AllSources = true;
  for (const std::string &Path : Options.Inputs) {
    llvm::Expected<InputKind> Kind = inputKind(Path);
    if (!Kind)
      return Kind.takeError();
    AllSources = AllSources && *Kind != InputKind::LlvmIr;
  }

  Bundle Result;
  for (const TargetFamily &Family : Families) {
    if (Family.Targets.empty())
      continue;
    llvm::LLVMContext Context;
    std::vector<InputModule> Modules;
    for (const std::string &Path : Options.Inputs) {
      llvm::Expected<std::unique_ptr<llvm::Module>> M = loadInput(Path, Family, Options, Context);
      if (!M)
        return M.takeError();
      // The input's name, not its path: a bundle (and every program that embeds one) must
      // not carry the folders of the machine that compiled it.
      (*M)->setSourceFileName(llvm::sys::path::filename(Path));
      if (llvm::Error Failure = normalizeDeviceGlobalAnnotations(**M))
        return makeError("input '{}': {}", Path, llvm::toString(std::move(Failure)));
      if (llvm::Expected<std::vector<DeviceGlobal>> Globals = findDeviceGlobals(**M); !Globals)
        return makeError("input '{}': {}", Path, llvm::toString(Globals.takeError()));
      if (llvm::Error Failure = normalizeVirtualFunctionAnnotations(**M))
        return makeError("input '{}': {}", Path, llvm::toString(std::move(Failure)));
      if (llvm::Error Failure = checkVirtualCalls(**M))
        return makeError("input '{}': {}", Path, llvm::toString(std::move(Failure)));
      Modules.push_back({llvm::sys::path::stem(Path).str(), std::move(*M)});
    }
    // Each set of virtual functions goes into images of its own, whatever the split mode.
    llvm::Expected<std::vector<SplitImage>> SetImages = outlineVirtualFunctions(Modules);
    if (!SetImages)
      return SetImages.takeError();
    llvm::Expected<std::vector<SplitImage>> Images =
        splitModules(std::move(Modules), Options.Split);
    if (!Images)
      return Images.takeError();
    for (SplitImage &Image : *SetImages)
      Images->push_back(std::move(Image));
    if (llvm::Error Failure = checkDeviceImageScope(*Images))
      return Failure;
    std::vector<std::vector<BundlePropertySet>> PlainSets;
    for (SplitImage &Image : *Images) {
      llvm::Expected<std::vector<BundlePropertySet>> Sets = computePropertySets(*Image.Module);
      if (!Sets)
        return makeError("image '{}': {}", Image.Name, llvm::toString(Sets.takeError()));
      for (BundlePropertySet &Set : virtualFunctionPropertySets(Image))
        Sets->push_back(std::move(Set));
      PlainSets.push_back(std::move(*Sets));
      for (const std::string &Target : Family.Targets) {
        llvm::Expected<BundleImage> Out =
            emitImage(Target, Image, *Image.Module, PlainSets.back(), AllSources, Options);
        if (!Out)
          return Out.takeError();
        Result.Images.push_back(std::move(*Out));
      }
    }
    if (!Options.LowerForOpenCl || Family.Arch == llvm::Triple::amdgcn)
      continue;
    // The OpenCL form: the same images with their device globals lowered into storage the
    // adapter owns, when the compile has device globals at all.
    llvm::Expected<StorageLayout> Layout = computeStorageLayout(*Images);
    if (!Layout)
      return Layout.takeError();
    if (Layout->Globals.empty())
      continue;
    std::vector<std::unique_ptr<llvm::Module>> Lowered;
    std::vector<LoweringInput> LoweringInputs;
    for (SplitImage &Image : *Images) {
      Lowered.push_back(llvm::CloneModule(*Image.Module));
      LoweringInputs.push_back({Image.Name, Lowered.back().get()});
    }
    if (llvm::Error Failure = lowerDeviceGlobals(LoweringInputs, *Layout))
      return Failure;
    for (size_t I = 0; I < Images->size(); ++I) {
      const SplitImage &Image = (*Images)[I];
      // SYCL/device globals as before (sizes, scope, host access); the symbol sets of the
      // lowered module (renamed functions); where each variable lives.
      std::vector<BundlePropertySet> Sets;
      for (const BundlePropertySet &Set : PlainSets[I])
        if (Set.Name == PI_PROPERTY_SET_DEVICE_GLOBALS ||
            Set.Name == PI_PROPERTY_SET_VIRTUAL_FUNCTIONS || Set.Name == DeviceRequirementsSet ||
            Set.Name == KernelAspectsSet)
          Sets.push_back(Set);
      llvm::Expected<std::vector<BundlePropertySet>> Symbols = computePropertySets(*Lowered[I]);
      if (!Symbols)
        return makeError("image '{}': {}", Image.Name, llvm::toString(Symbols.takeError()));
      for (BundlePropertySet &Set : *Symbols)
        if (Set.Name == PI_PROPERTY_SET_EXPORTED_SYMBOLS ||
            Set.Name == PI_PROPERTY_SET_IMPORTED_SYMBOLS)
          Sets.push_back(std::move(Set));
      for (BundlePropertySet &Set : storagePropertySets(*Image.Module, *Layout))
        Sets.push_back(std::move(Set));
      for (const std::string &Target : Family.Targets) {
        llvm::Expected<BundleImage> Out =
            emitImage(Target, Image, *Lowered[I], Sets, AllSources, Options, /*Lowered=*/true);
        if (!Out)
          return Out.takeError();
        Result.Images.push_back(std::move(*Out));
      }
    }
  }
  return Result;
}

} // namespace dglink::shim
