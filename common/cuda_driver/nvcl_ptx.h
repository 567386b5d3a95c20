// PTX from clang's OpenCL target (nvptx64-nvidia-nvcl) made loadable by the CUDA
// driver: that flavour declares the OpenCL work-item functions without defining
// them and writes functions without linkage directives, which ptxas refuses
// ("Unresolved extern function") and the linker cannot resolve.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace dglink::cuda {

// A top-level .func or .entry of a PTX module.
struct PtxFunction {
  bool IsEntry = false; // .entry (a kernel), else .func
  std::string Name;
  size_t Start = 0;     // offset of its ".func" / ".entry"
  bool Defined = false; // has a body (else a prototype ending in ';')
  std::string Linkage;  // ".visible", ".extern", ".weak" or empty
};

// The top-level functions and kernels of a PTX text (comments skipped).
std::vector<PtxFunction> scanPtxFunctions(std::string_view Ptx);

// Names of the kernels (.entry) of a PTX text.
std::vector<std::string> ptxKernelNames(std::string_view Ptx);

// True for PTX of the OpenCL flavour (".target ..., texmode_independent").
bool isOpenClFlavouredPtx(std::string_view Ptx);

// Functions a module declares without defining, OpenCL work-item functions
// excluded: what it imports from other modules of a link.
std::vector<std::string> ptxUndefinedFunctions(std::string_view Ptx);

// For OpenCL-flavoured PTX: appends definitions of the OpenCL work-item
// functions it declares (get_global_id, barrier, ...), marks kernels .visible,
// other declared-only functions .extern, and defined functions named in Exported
// .visible. Other PTX is returned unchanged.
std::string fixOpenClPtx(std::string_view Ptx, const std::set<std::string> &Exported = {});

// The work-item functions fixOpenClPtx can define (mangled names).
const std::vector<std::string> &openClBuiltinNames();

} // namespace dglink::cuda
