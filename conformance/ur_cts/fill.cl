// Stands in for UR's test/conformance/device_code/fill.cpp: `parallel_for<class fill>`
// writes val to every element of a 1-D buffer accessor. Arguments as DPC++ gives them:
// the accessor's pointer and offset (its ranges are unused, so dropped), then val.
#include "ur_cts.h"

kernel void UR_CTS_CGH_KERNEL(4fill)(global uint *a, ur_cts_id1 a_offset, uint val) {
  a[a_offset.offset[0] + ur_cts_gid(0) - ur_cts_offset(0)] = val;
}
