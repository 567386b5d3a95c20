// Stands in for UR's test/conformance/device_code/saxpy_usm.cpp: `parallel_for<class
// saxpy>`: Z[i] = A * X[i] + Y[i] over USM, arguments in capture order (Z, A, X, Y).
#include "ur_cts.h"

kernel void UR_CTS_CGH_KERNEL(5saxpy)(global uint *z, uint a, global const uint *x,
                                      global const uint *y) {
  const size_t i = ur_cts_gid(0) - ur_cts_offset(0);
  z[i] = a * x[i] + y[i];
}
