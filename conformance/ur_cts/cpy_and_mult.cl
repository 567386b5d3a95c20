// Stands in for UR's test/conformance/device_code/cpy_and_mult.cpp: `parallel_for<class
// cpy_and_mult>`: dst[i] = src[i] * 2 over two 1-D buffer accessors, each its pointer
// and offset (src first, as captured).
#include "ur_cts.h"

kernel void UR_CTS_CGH_KERNEL(12cpy_and_mult)(global const uint *src, ur_cts_id1 src_offset,
                                              global uint *dst, ur_cts_id1 dst_offset) {
  const size_t id = ur_cts_gid(0) - ur_cts_offset(0);
  dst[dst_offset.offset[0] + id] = src[src_offset.offset[0] + id] * 2;
}
