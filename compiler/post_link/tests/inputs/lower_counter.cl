// The OpenCL lowering end to end (lowering_end_to_end_test.cpp): device globals with and
// without initial values, a read-only one, an exported function that reaches a device
// global (it takes the storage, so another image that calls it must be lowered too), and a
// kernel that touches no device global (it takes the storage all the same).
#include <dglink/device_global.h>

DGLINK_DEVICE_GLOBAL("lw_counter_uid") global int lw_counter;
DGLINK_DEVICE_GLOBAL("lw_seeded") global int lw_seeded[4] = {11, 22, 33, 44};
DGLINK_DEVICE_GLOBAL_PROPERTIES("lw_read_only", 0, read) global int lw_read_only = 7;
DGLINK_DEVICE_GLOBAL("lw_pointer") global int *lw_pointer;

int lw_bump(int By) {
  lw_counter += By;
  return lw_counter;
}

kernel void lw_increment(void) { lw_bump(1); }

kernel void lw_read(global int *Out) {
  Out[0] = lw_counter;
  for (int I = 0; I < 4; ++I)
    Out[1 + I] = lw_seeded[I];
  Out[5] = lw_read_only;
}

// A pointer into the storage, kept by one launch and followed by the next.
kernel void lw_keep_address(void) { lw_pointer = &lw_seeded[2]; }
kernel void lw_follow_address(global int *Out) {
  Out[0] = *lw_pointer;
  *lw_pointer += 100;
}

kernel void lw_fill(global int *Out, int Value) { Out[get_global_id(0)] = Value; }
