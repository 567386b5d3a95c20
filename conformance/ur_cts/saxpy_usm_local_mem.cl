// Stands in for UR's test/conformance/device_code/saxpy_usm_local_mem.cpp:
// `parallel_for<class saxpy_usm_local_mem>` over a 1-D nd_range with two local
// accessors: Z[i] = A * X[i] + Y[i] + i + (-i) + local range, i.e. A * X[i] + Y[i] +
// local size. Arguments in capture order: local_mem_A, local_mem_B (local pointers; the
// CTS sets them with urKernelSetArgLocal), Z, A, X, Y.
#include "ur_cts.h"

kernel void UR_CTS_CGH_KERNEL(19saxpy_usm_local_mem)(local uint *local_mem_a, local uint *local_mem_b,
                                                     global uint *z, uint a, global const uint *x,
                                                     global const uint *y) {
  const size_t i = ur_cts_global_linear_id(1);
  const size_t local_id = ur_cts_lid(0);
  local_mem_a[local_id] = (uint)i;
  local_mem_b[local_id * 2] = (uint)-i;
  local_mem_b[local_id * 2 + 1] = (uint)ur_cts_lsize(0);
  z[i] = a * x[i] + y[i] + local_mem_a[local_id] + local_mem_b[local_id * 2] +
         local_mem_b[local_id * 2 + 1];
}
