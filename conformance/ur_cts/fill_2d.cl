// Stands in for UR's test/conformance/device_code/fill_2d.cpp: `parallel_for<class
// fill_2d>` over a 2-D nd_range writes val at each item's global linear id in a 1-D
// buffer accessor (pointer, offset), then val.
#include "ur_cts.h"

kernel void UR_CTS_CGH_KERNEL(7fill_2d)(global uint *a, ur_cts_id1 a_offset, uint val) {
  a[a_offset.offset[0] + ur_cts_global_linear_id(2)] = val;
}
