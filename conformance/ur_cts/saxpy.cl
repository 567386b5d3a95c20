// Stands in for UR's test/conformance/device_code/saxpy.cpp: `parallel_for<class saxpy>`:
// z[i] = A * x[i] + y[i] over 1-D buffer accessors. Arguments in DPC++'s capture order
// (first use in the lambda): z (pointer, offset), A, x (pointer, offset), y (pointer,
// offset).
#include "ur_cts.h"

kernel void UR_CTS_CGH_KERNEL(5saxpy)(global uint *z, ur_cts_id1 z_offset, uint a,
                                      global const uint *x, ur_cts_id1 x_offset,
                                      global const uint *y, ur_cts_id1 y_offset) {
  const size_t i = ur_cts_gid(0) - ur_cts_offset(0);
  z[z_offset.offset[0] + i] = a * x[x_offset.offset[0] + i] + y[y_offset.offset[0] + i];
}
