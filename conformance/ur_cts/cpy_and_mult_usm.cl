// Stands in for UR's test/conformance/device_code/cpy_and_mult_usm.cpp:
// `parallel_for<class cpy_and_mult_usm>`: dst[i] = src[i] * 2 over USM (src, dst).
#include "ur_cts.h"

kernel void UR_CTS_CGH_KERNEL(16cpy_and_mult_usm)(global const uint *src, global uint *dst) {
  const size_t id = ur_cts_gid(0) - ur_cts_offset(0);
  dst[id] = src[id] * 2;
}
