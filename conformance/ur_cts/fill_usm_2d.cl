// Stands in for UR's test/conformance/device_code/fill_usm_2d.cpp: `parallel_for<class
// fill_2d>` over a 2-D nd_range writes val at each item's global linear id of a USM
// array (pointer, val). The kernel-name class is fill_2d, as in the original.
#include "ur_cts.h"

kernel void UR_CTS_CGH_KERNEL(7fill_2d)(global uint *data, uint val) {
  data[ur_cts_global_linear_id(2)] = val;
}
