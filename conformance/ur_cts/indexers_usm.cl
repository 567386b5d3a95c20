// Stands in for UR's test/conformance/device_code/indexers_usm.cpp: `parallel_for<class
// indexers>` over a 3-D nd_range writes, at 6 * its global linear id in a USM int array,
// its global ids then its local ids in SYCL's order: SYCL dimension 0 is UR's (and
// OpenCL's) dimension 2, as DPC++ reverses the dimensions of a 3-D kernel.
#include "ur_cts.h"

kernel void UR_CTS_CGH_KERNEL(8indexers)(global int *ptr) {
  global int *wi_ptr = ptr + ur_cts_global_linear_id(3) * 6;
  wi_ptr[0] = (int)ur_cts_gid(2);
  wi_ptr[1] = (int)ur_cts_gid(1);
  wi_ptr[2] = (int)ur_cts_gid(0);
  wi_ptr[3] = (int)ur_cts_lid(2);
  wi_ptr[4] = (int)ur_cts_lid(1);
  wi_ptr[5] = (int)ur_cts_lid(0);
}
