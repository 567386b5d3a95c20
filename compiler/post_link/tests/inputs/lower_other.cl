// Compiled on its own, so its storage layout overlaps lower_counter.cl's: the two lowered
// images must not link.
#include <dglink/device_global.h>

DGLINK_DEVICE_GLOBAL("lw_other") global int lw_other = 5;

kernel void lw_read_other(global int *Out) { Out[0] = lw_other; }
