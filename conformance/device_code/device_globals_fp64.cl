// A double device global, in an image of its own because a device without fp64
// cannot build it; the scenario runs only where PI_DEVICE_INFO_DOUBLE_FP_CONFIG is
// non-zero. Program-scope mutable globals need OpenCL C 2.0.
#include "device.h"

#include <dglink/device_global.h>

DGLINK_DEVICE_GLOBAL("dg_double") global double dg_double;

// Doubling is exact, so host and device agree to the last bit with or without fma.
kernel void dg_scale_double(void) { dg_double = dg_double * 2.0 + 0.5; }

kernel void dg_copy_double(global double *Out) { Out[0] = dg_double; }
