// Stands in for UR's test/conformance/device_code/fill_usm.cpp: `parallel_for<class
// fill_usm>` writes val to every element of a USM array (pointer, val).
#include "ur_cts.h"

kernel void UR_CTS_CGH_KERNEL(8fill_usm)(global uint *data, uint val) {
  data[ur_cts_gid(0) - ur_cts_offset(0)] = val;
}
