// Stands in for UR's test/conformance/device_code/inc.cpp: `parallel_for<inc>` (inc is
// a class at namespace scope: _ZTS3inc) increments each element of a 1-D buffer
// accessor (pointer, offset).
#include "ur_cts.h"

kernel void _ZTS3inc(global uint *acc, ur_cts_id1 acc_offset) {
  acc[acc_offset.offset[0] + ur_cts_gid(0) - ur_cts_offset(0)]++;
}
