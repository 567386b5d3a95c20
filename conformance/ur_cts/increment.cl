// Stands in for UR's test/conformance/device_code/increment.cpp: `parallel_for<class
// IncrementBy1>`: input[i] += 1 over a USM array (its pointer, the one capture).
#include "ur_cts.h"

kernel void UR_CTS_CGH_KERNEL(12IncrementBy1)(global uint *input) {
  input[ur_cts_gid(0) - ur_cts_offset(0)] += 1;
}
