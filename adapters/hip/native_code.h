// The device code each HIP platform runs, and how it is linked: the part of the
// adapter that differs between the two builds besides the HipApi table.
//   AMD (native_code_amd.cpp): AMD GPU code objects (ELF, EM_AMDGPU); relocatable
//     objects are linked into an executable code object by comgr
//     (libamd_comgr.so.2, opened with dlopen).
//   NVIDIA (native_code_nvidia.cpp): PTX, cubin and fatbin, linked by nvJitLink or
//     the driver's cuLink* (common/cuda_driver's cuda_code.h, shared with the CUDA
//     adapter).
#pragma once

#include <dglink/pi.h>
#include <dglink/stream/driver.h>

#include <string>
#include <vector>

namespace dglink::hip {

using stream::CodeKind;
using stream::codeKindName;
using stream::LinkSource;

// The image target this build runs: PI_DEVICE_BINARY_TARGET_AMDGCN or _NVPTX64.
const char *imageTarget();
// For messages: what this build runs ("PTX, cubin and fatbin").
const char *codeDescription();

// Recognises code this build runs; false for anything else.
bool detectCode(const void *Data, size_t Size, CodeKind &Kind);

// Names of the kernels in Bytes (PTX .entry; code-object "<name>.kd" symbols).
std::vector<std::string> kernelNames(CodeKind Kind, const std::vector<char> &Bytes);

// What hipModuleLoadData gets for a program built on its own: OpenCL-flavoured
// PTX repaired (NVIDIA), a relocatable code object linked alone (AMD), other
// code as it is. Arch: the device's ISA ("gfx90a", "sm_90").
pi_result codeForLoad(CodeKind Kind, const std::vector<char> &Bytes, const std::string &Arch,
                      std::vector<char> &Out, std::string &Log);

// Whether this build can link at run time here; Why says what is missing.
bool linkerAvailable(std::string *Why = nullptr);

// Links Sources into one loadable image for Arch (Major/Minor: NVIDIA's compute
// capability). PI_ERROR_LINK_PROGRAM_FAILURE with Log naming the problem
// (unresolved symbols among it); PI_ERROR_INVALID_OPERATION for inputs this
// platform cannot link; PI_ERROR_LINKER_NOT_AVAILABLE without a linker.
pi_result linkCode(const std::vector<LinkSource> &Sources, const std::string &Arch, int Major,
                   int Minor, std::vector<char> &Out, CodeKind &OutKind, std::string &Log);

} // namespace dglink::hip
