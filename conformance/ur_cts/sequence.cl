// Stands in for UR's test/conformance/device_code/sequence.cpp: two single tasks over a
// read-write 1-D buffer accessor (pointer, offset), named by namespace-scope classes Add
// (_ZTS3Add: adds 1 a thousand times) and Mul (_ZTS3Mul: doubles twice), each step
// through a volatile read as in the original.
#include "ur_cts.h"

kernel void _ZTS3Add(global uint *acc, ur_cts_id1 acc_offset) {
  global uint *value = acc + acc_offset.offset[0];
  for (uint i = 0; i < 1000; i++) {
    volatile uint tmp = *value;
    *value = tmp + 1;
  }
}

kernel void _ZTS3Mul(global uint *acc, ur_cts_id1 acc_offset) {
  global uint *value = acc + acc_offset.offset[0];
  for (uint i = 0; i < 2; i++) {
    volatile uint tmp = *value;
    *value = tmp * 2;
  }
}
