// Single-image kernels for the memory and event scenarios: a known pattern
// written into USM or a buffer, and an in-place increment to order after it.
#include "device.h"

kernel void fill_pattern(global int *Out) {
  size_t I = dglinkGlobalId();
  Out[I] = (int)I * 3 + 1;
}

kernel void increment(global int *Data) {
  size_t I = dglinkGlobalId();
  Data[I] += 1;
}
