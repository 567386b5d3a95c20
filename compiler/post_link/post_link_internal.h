// Shared between the post-link sources: attribute names, the error helper and the
// steps that are not part of the public interface.
#pragma once

#include <dglink/compiler/post_link.h>

#include <fmt/format.h>

#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dglink::shim {

// The DPC++ IR attributes (device-global design, dynamic-linking design).
constexpr const char *SizeAttribute = "sycl-device-global-size";
constexpr const char *UniqueIdAttribute = "sycl-unique-id";
constexpr const char *ImageScopeAttribute = "sycl-device-image-scope";
constexpr const char *HostAccessAttribute = "sycl-host-access";
constexpr const char *ModuleIdAttribute = "sycl-module-id";

// SPV_INTEL_global_variable_decorations as llvm-spirv 15 knows it (FACTS.md).
constexpr uint32_t HostAccessIntelDecoration = 6147;

template <typename... Args>
llvm::Error makeError(fmt::format_string<Args...> Format, Args &&...Arguments) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 fmt::format(Format, std::forward<Args>(Arguments)...));
}

// Replaces llvm.global.annotations by the entries of Kept (none: no array at all), then
// erases the strings the dropped entries pointed at (private llvm.metadata globals no
// longer used) and the constant expressions that pointed at annotated globals.
void keepAnnotations(llvm::Module &M, llvm::GlobalVariable *Annotations,
                     const std::vector<llvm::Constant *> &Kept);

bool isDeviceGlobal(const llvm::GlobalVariable &Variable);
// Whether Variable's type is one pointer, perhaps inside single-member structs: the
// device instance of a device global without device_image_scope (its usmptr).
bool holdsOnePointer(const llvm::GlobalVariable &Variable);
llvm::Expected<DeviceGlobal> readDeviceGlobal(const llvm::GlobalVariable &Variable);

// One image of M holding Entries and what they reach (split.cpp): entries and device
// globals keep their linkage, every other copied definition becomes internal.
SplitImage extractImage(const llvm::Module &M, std::string Name,
                        const std::vector<const llvm::GlobalValue *> &Entries);

// The kernels of M (local_arguments.cpp): NVPTX marks them in nvvm.annotations
// ({F, !"kernel", i32 1}) or with the ptx_kernel convention, AMDGPU with amdgpu_kernel.
std::vector<llvm::Function *> kernelsOf(llvm::Module &M);

// Adds !spirv.Decorations HostAccessINTEL (6147) {access, unique id} to each global.
void addHostAccessDecorations(llvm::Module &M, const std::vector<DeviceGlobal> &Globals);

} // namespace dglink::shim
