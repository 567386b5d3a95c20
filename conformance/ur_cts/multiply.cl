// Stands in for UR's test/conformance/device_code/multiply.cpp: `parallel_for<class
// MultiplyBy2>`: input[i] *= 2 over a USM array (its pointer, the one capture).
#include "ur_cts.h"

kernel void UR_CTS_CGH_KERNEL(11MultiplyBy2)(global uint *input) {
  input[ur_cts_gid(0) - ur_cts_offset(0)] *= 2;
}
