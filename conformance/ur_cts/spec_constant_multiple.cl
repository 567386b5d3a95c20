// Stands in for UR's test/conformance/device_code/spec_constant_multiple.cpp:
// `parallel_for<class SpecConstant>` with three specialization constants, a (uint32_t,
// SpecId 0), b (uint64_t, SpecId 1) and c (bool, SpecId 2), all defaulting to zero,
// writes c ? b - a : b + a to element 0 of a 1-D uint64_t buffer accessor (pointer,
// offset). SPIR-V: OpSpecConstant / OpSpecConstantFalse through llvm-spirv's
// __spirv_SpecConstant; PTX: the defaults as constants (see spec_constant.cl).
#include "ur_cts.h"

#ifdef __NVPTX__
#define SPEC_CONSTANT(id, value) (value)
#else
uint __attribute__((overloadable)) __spirv_SpecConstant(int id, uint value);
ulong __attribute__((overloadable)) __spirv_SpecConstant(int id, ulong value);
bool __attribute__((overloadable)) __spirv_SpecConstant(int id, bool value);
#define SPEC_CONSTANT(id, value) __spirv_SpecConstant(id, value)
#endif

kernel void UR_CTS_CGH_KERNEL(12SpecConstant)(global ulong *out, ur_cts_id1 out_offset) {
  const uint a = SPEC_CONSTANT(0, 0u);
  const ulong b = SPEC_CONSTANT(1, 0ul);
  const bool c = SPEC_CONSTANT(2, false);
  out[out_offset.offset[0]] = c ? b - a : b + a;
}
