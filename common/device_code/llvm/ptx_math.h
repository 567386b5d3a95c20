// The OpenCL C builtins of a module on its way to PTX for NVIDIA's OpenCL (to_ptx.h) that
// NVIDIA's OpenCL does not resolve in a PTX binary: math, integer, common, geometric,
// relational, conversion and vector-data functions, defined in the module from LLVM's
// intrinsics, PTX's approximate instructions and NVIDIA's libdevice (found at run time).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace dglink::device_code {

// Defines every OpenCL builtin M declares (NVPTX's mangling, nvptx64 data layout set) that
// the table of ptx_math.cpp knows, linking the libdevice functions they call (libdevicePath)
// into M. False with Error naming every builtin left undefined (no libdevice, or a form the
// table does not cover) and how to provide libdevice; M is then not to be written.
bool defineMathBuiltins(llvm::Module &M, std::string &Error);

// Ptx, written from M, declaring the PTX ISA version what defineMathBuiltins linked into M
// needs (libdevice's inline assembly: 4.0), where the backend wrote an older one.
void raisePtxVersion(const llvm::Module &M, std::vector<uint8_t> &Ptx);

// Where libdevice is read from: DGLINK_LIBDEVICE (a file), else
// nvvm/libdevice/libdevice.10.bc of the CUDA toolkit under CUDA_PATH, CUDA_HOME or
// /usr/local/cuda, the first that exists. Empty, with Why, where there is none.
std::string libdevicePath(std::string &Why);

} // namespace dglink::device_code
