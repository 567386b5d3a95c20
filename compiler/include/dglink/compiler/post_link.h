// The post-link step of the shim (LLVM 15): recognise device globals, split device
// code into images, compute each image's property sets, and emit each image for
// spir64 (SPIR-V, LLVM bitcode), nvptx64 (PTX) and amdgcn (code objects). Errors are
// llvm::Error values whose messages name the variable, symbol or input concerned.
#pragma once

#include <dglink/compiler/bundle.h>
#include <dglink/support/image.h>

#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>
#include <llvm/Target/TargetMachine.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace dglink::shim {

// The annotation prefix dglink/device_global.h puts on a variable.
constexpr const char *DeviceGlobalAnnotation = "dglink_device_global:";

// Set name of the unique id -> symbol mapping (docs/property-sets.md).
constexpr const char *DeviceGlobalSymbolsSet = "SYCL/device global symbols";

struct DeviceGlobal {
  std::string Symbol;
  DeviceGlobalInfo Info; // Info.Size: sycl-device-global-size, the value's size (sizeof(T))
  // Bytes of the variable in the module: Info.Size, except for a variable without
  // device_image_scope that holds a pointer to its value (usmptr), whose instance is the
  // pointer.
  uint64_t InstanceSize = 0;
};

// Turns the plain-clang convention (llvm.global.annotations entries made by
// dglink/device_global.h) into the DPC++ attributes sycl-device-global-size,
// sycl-unique-id, sycl-device-image-scope and sycl-host-access, and drops those
// annotation entries. A malformed annotation is an error.
llvm::Error normalizeDeviceGlobalAnnotations(llvm::Module &M);

// The device globals M defines, recognised by sycl-device-global-size. A size that
// disagrees with the variable's type is an error (except for a usmptr, whose size is the
// value's), so is an unknown host access.
llvm::Expected<std::vector<DeviceGlobal>> findDeviceGlobals(const llvm::Module &M);

// Kernels: SPIR/PTX/AMDGPU kernel calling conventions or nvvm.annotations "kernel".
bool isKernel(const llvm::Function &F);

// Names the device compiler resolves, never another image: LLVM intrinsics,
// __-prefixed (demangled) names, __spirv_*, and in OpenCL modules the mangled
// OpenCL builtins.
bool isReservedSymbol(const llvm::Module &M, llvm::StringRef Name);

// What an image exports: kernels are entries, not exports. With sycl-module-id on any
// function of M, the functions that carry it; otherwise (OpenCL C) every externally
// visible function definition. Externally visible variable definitions too.
std::vector<std::string> exportedSymbols(const llvm::Module &M);
// What an image uses but does not define, reserved names skipped.
std::vector<std::string> importedSymbols(const llvm::Module &M);

enum class SplitMode { PerInput, PerKernel, AllInOne };
llvm::Expected<SplitMode> parseSplitMode(llvm::StringRef Name);

struct InputModule {
  std::string Name;
  std::unique_ptr<llvm::Module> Module;
};

struct SplitImage {
  std::string Name;
  std::unique_ptr<llvm::Module> Module;
  std::vector<std::string> Kernels;
  // An image of one set of virtual functions (outlineVirtualFunctions): the set's name,
  // whether it is the dummy twin (bodies emptied), and the aspects the set uses.
  std::string VirtualFunctionSet;
  bool Dummy = false;
  std::set<uint32_t> SetAspects;
};

// Splits (normalized) inputs into images. per-input: one image per input, as it is.
// all-in-one: the inputs linked into one image. per-kernel: the inputs linked, then
// one image per kernel and one per group of exported functions (by sycl-module-id,
// else by input), each with everything it reaches copied in and made internal, so
// images stay self-contained; what no input defines stays an import.
llvm::Expected<std::vector<SplitImage>> splitModules(std::vector<InputModule> Inputs,
                                                     SplitMode Mode);

// A device_image_scope device global used (defined or referenced) by more than one
// image is an error naming the variable and the images.
// Virtual functions (docs/virtual-functions.md): DPC++'s IR attributes, the plain-clang
// annotations of dglink/virtual_functions.h, and the property sets.
constexpr const char *IndirectlyCallableAttribute = "indirectly-callable";
constexpr const char *CallsIndirectlyAttribute = "calls-indirectly";
constexpr const char *VirtualCallAttribute = "virtual-call";
// On kernels after outlining: the aspects (comma-separated ids) the kernel requires.
constexpr const char *KernelAspectsAttribute = "dglink-kernel-aspects";
constexpr const char *IndirectlyCallableAnnotation = "dglink_indirectly_callable:";
constexpr const char *CallsIndirectlyAnnotation = "dglink_calls_indirectly:";
constexpr const char *VirtualFunctionsSetProperty = "virtual-functions-set";
constexpr const char *UsesVirtualFunctionsSetProperty = "uses-virtual-functions-set";
constexpr const char *DummyImageProperty = "dummy-image";
constexpr const char *DeviceRequirementsSet = "SYCL/device requirements";
constexpr const char *AspectsProperty = "aspects";
constexpr const char *KernelAspectsSet = "DGLINK/kernel aspects";
// sycl::aspect values (DPC++'s numbering).
constexpr uint32_t AspectFp16 = 5;
constexpr uint32_t AspectFp64 = 6;
constexpr uint32_t AspectAtomic64 = 28;
const char *aspectName(uint32_t Aspect);

// Turns the annotations into the attributes and marks every call through a pointer
// with "virtual-call"; a malformed annotation is an error naming the function.
llvm::Error normalizeVirtualFunctionAnnotations(llvm::Module &M);
// A kernel without calls-indirectly that makes a virtual call (itself or in a function
// it calls) is an error naming the kernel, the function and the call's type.
llvm::Error checkVirtualCalls(const llvm::Module &M);
// Moves each set's functions out of the inputs (declarations stay) into an image per set
// and input, plus a dummy twin for a set that uses aspects; records the kernels'
// aspects; returns the set images.
llvm::Expected<std::vector<SplitImage>> outlineVirtualFunctions(std::vector<InputModule> &Inputs);
// SYCL/virtual functions, SYCL/device requirements and DGLINK/kernel aspects of Image.
std::vector<BundlePropertySet> virtualFunctionPropertySets(const SplitImage &Image);

llvm::Error checkDeviceImageScope(const std::vector<SplitImage> &Images);

// The property sets of one image: device globals, exported and imported symbols, and
// the unique id -> symbol mapping where they differ. Empty sets are left out, except
// the two symbol sets, which say the image was post-linked.
llvm::Expected<std::vector<BundlePropertySet>> computePropertySets(const llvm::Module &M);

// Target emitters. SPIR-V gets a HostAccessINTEL decoration (capability 6146,
// decoration 6147: llvm-spirv 15's pre-standard encoding) on each device global, with
// its host access and unique id; the module is changed by translation, so pass a copy.
llvm::Expected<std::vector<uint8_t>> emitSpirV(llvm::Module &M);
std::vector<uint8_t> emitBitcode(const llvm::Module &M);
// PTX with LLVM's NVPTX backend for Arch (empty: the backend's default); external
// definitions are .visible and declarations .extern under their own names, also for
// the nvcl flavour whose backend leaves functions without linkage directives.
llvm::Expected<std::vector<uint8_t>> emitPtx(llvm::Module &M, const std::string &Arch);
// LLVM's NVPTX target machine for Triple (nvptx64-nvidia-cuda or -nvcl) and Arch (empty:
// the backend's default), the NVPTX backend initialised once per process.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>> nvptxTargetMachine(const std::string &Triple,
                                                                        const std::string &Arch);
// An AMD code object for Arch (e.g. gfx90a) with LLVM's AMDGPU backend. An image
// that imports or exports symbols stays a relocatable object (ET_REL), the input the
// HIP adapter links with comgr at run time; any other is linked with ld.lld -shared
// into an executable one (ET_DYN). Hidden external definitions (clang's default for
// OpenCL on amdgcn) become protected, so hipModuleGetGlobal finds them by name, and
// hidden declarations default, so they stay undefined symbols (imports). A call to a
// function that is neither defined nor an import (an OpenCL builtin when the ROCm
// device libraries were not linked) is an error naming it.
llvm::Expected<std::vector<uint8_t>> emitCodeObject(llvm::Module &M, const std::string &Arch);

// DPC++'s form of local-memory kernel arguments for CUDA and HIP
// (local_arguments.cpp): each kernel's local (address space 3) pointer parameters
// become i32 offsets into one external zero-length local array of the kernel, the
// block's dynamic shared memory, which the CUDA and HIP adapters lay out and size at
// each launch. Kernels are NVPTX's (nvvm.annotations, ptx_kernel) and AMDGPU's
// (amdgpu_kernel). Returns how many kernels changed.
unsigned lowerLocalArguments(llvm::Module &M);

// DPC++'s global offset for CUDA and HIP (global_offset.cpp; intel/llvm's GlobalOffset
// pass, which UR's CUDA and HIP adapters launch): device code reads the launch's offset
// by calling GlobalOffsetMarker, `size_t __dglink_global_offset(uint dimension)` (0
// outside 0..2). Each kernel that reaches a call of it gets a second entry point, the
// kernel's name with OffsetEntrySuffix, whose parameters are the kernel's and then the
// offset by value, three 32-bit values ([3 x i32]: NVPTX byval, a `.param .b8 [12]`;
// AMDGPU byref in the constant address space, 12 bytes of the kernel arguments); every
// function between the kernel and the calls gets such a twin taking the offset's address.
// The kernel itself, and every other function, reads offset 0. Kernels are NVPTX's and
// AMDGPU's as for lowerLocalArguments. Returns how many entry points were made; an error
// where the marker is defined, has another type, or is used other than called.
constexpr const char *GlobalOffsetMarker = "__dglink_global_offset";
constexpr const char *OffsetEntrySuffix = "_with_offset";
llvm::Expected<unsigned> addGlobalOffsetEntries(llvm::Module &M);

// ---- The OpenCL lowering of device globals (docs/opencl-lowering.md) ----
// Every device global of a compile gets a place in one block of storage the OpenCL
// adapter allocates per program and device; kernels take a pointer to it as their last
// argument, and so does every function that reaches a device global (an exported one
// is renamed with LoweredFunctionSuffix, so that code compiled without the lowering
// fails to link with it instead of calling it without the argument).
constexpr const char *LoweredStorageSet = PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_STORAGE;
constexpr const char *LoweredOffsetsSet = PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_OFFSETS;
constexpr const char *LoweredInitializersSet = PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_INITIALIZERS;
constexpr const char *LoweredStorageSizeProperty = "size";
constexpr const char *LoweredStorageArgumentProperty = "argument";
constexpr const char *LoweredStorageArgumentLast = "last";
constexpr const char *LoweredStorageArgumentName = "__dglink_dg_storage";
constexpr const char *LoweredFunctionSuffix = "_dglink_dg";

struct LoweredGlobal {
  std::string UniqueId;
  std::string Symbol;
  uint64_t Offset = 0;
  uint64_t Size = 0;
  std::vector<uint8_t> Initializer; // empty: zero
};

// One layout for all images of a compile, so that images that link share it.
struct StorageLayout {
  uint64_t Size = 0;
  std::vector<LoweredGlobal> Globals;
  std::map<std::string, size_t> ById, BySymbol;
};

// The layout of the device globals the images define. A mutable program-scope variable
// that is not a device global, or an initializer that holds an address, is an error.
llvm::Expected<StorageLayout> computeStorageLayout(const std::vector<SplitImage> &Images);

struct LoweringInput {
  std::string Name;
  llvm::Module *Module;
};
// Lowers the images (copies of a compile's split images) together, so that calls
// between them agree on who takes the storage.
llvm::Error lowerDeviceGlobals(const std::vector<LoweringInput> &Images,
                               const StorageLayout &Layout);
// The DGLINK/ property sets of the lowered form of image Unlowered.
std::vector<BundlePropertySet> storagePropertySets(const llvm::Module &Unlowered,
                                                   const StorageLayout &Layout);

// The whole shim: inputs (OpenCL C / C++ for OpenCL sources, compiled with clang per
// target; or .ll/.bc for the target their triple names) -> bundle.
struct CompileOptions {
  std::vector<std::string> Inputs;
  // spirv64 (spir64 SPIR-V), spir64 (spir64 LLVM bitcode), nvptx64 (PTX), amdgcn
  // (code object)
  std::vector<std::string> Targets;
  SplitMode Split = SplitMode::PerInput;
  std::string Clang; // empty: the clang-15 found at build time
  std::string OpenClStd = "CL2.0";
  std::string NvptxArch; // empty: the backend's default
  std::string AmdgcnArch = "gfx90a";
  // The ROCm device libraries' bitcode folder for amdgcn sources (OpenCL builtins);
  // empty: the one found at build time, if any; "none": not linked (-nogpulib).
  std::string RocmDeviceLibs;
  std::vector<std::string> IncludeDirs;
  std::vector<std::string> Defines;
  // Also emit, for spir64 / spirv64 / nvptx64, images with device globals lowered for
  // OpenCL (when the compile has any device global).
  bool LowerForOpenCl = false;
  // nvptx64 and amdgcn images take local-memory kernel arguments as offsets into one
  // dynamic shared-memory array (lowerLocalArguments), as DPC++'s CUDA and HIP device
  // code does and the CUDA and HIP adapters expect; NVIDIA's OpenCL, which takes local
  // pointers, cannot run such kernels from their PTX.
  bool LocalArgumentOffsets = false;
};
llvm::Expected<Bundle> compile(const CompileOptions &Options);

} // namespace dglink::shim
