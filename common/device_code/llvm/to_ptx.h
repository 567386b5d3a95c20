// The LLVM side's PTX writer: a module read back from SPIR-V (spir64, SPIR's address
// spaces) made into the PTX that NVIDIA's OpenCL builds from clCreateProgramWithBinary.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace dglink::device_code {

// Out = PTX for nvptx64-nvidia-nvcl made from M, as clang-15 makes it from the same
// OpenCL C (--target=nvptx64-nvidia-nvcl): NVPTX's address spaces (SPIR's constant 2 is 4,
// generic 4 is 0), builtin names mangled with them, kernels annotated for NVPTX, the
// OpenCL work-item functions defined from PTX's special registers (NVIDIA's OpenCL does not
// resolve them in a PTX binary) and OpenCL 1.2's atomic functions as NVPTX's atomics,
// optimized at -O2, written by LLVM's NVPTX backend with
// the shim's linkage directives. M is left unusable. False with Error on a module that
// cannot be written so.
bool writePtx(llvm::Module &M, std::vector<uint8_t> &Out, std::string &Error);

} // namespace dglink::device_code
