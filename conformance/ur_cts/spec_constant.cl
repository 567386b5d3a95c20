// Stands in for UR's test/conformance/device_code/spec_constant.cpp: `parallel_for<class
// SpecConstant>` writes the uint32_t specialization constant (SPIR-V SpecId 0, default
// 1000) to element 0 of a 1-D buffer accessor (pointer, offset). In SPIR-V it is a real
// OpSpecConstant: llvm-spirv turns a call of __spirv_SpecConstant(id, default) into one,
// as DPC++'s own lowering does. PTX has no specialization constants (UR's CUDA adapter
// reports them unsupported): there the default is a plain constant.
#include "ur_cts.h"

#ifdef __NVPTX__
#define SPEC_CONSTANT(id, value) (value)
#else
uint __attribute__((overloadable)) __spirv_SpecConstant(int id, uint value);
#define SPEC_CONSTANT(id, value) __spirv_SpecConstant(id, value)
#endif

kernel void UR_CTS_CGH_KERNEL(12SpecConstant)(global uint *out, ur_cts_id1 out_offset) {
  out[out_offset.offset[0]] = SPEC_CONSTANT(0, 1000u);
}
