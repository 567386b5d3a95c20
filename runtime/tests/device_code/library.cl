// The library of the seed's double-compilation example: exports lib_scale and has a
// kernel of its own that calls it, so one link serves both kernels.
#include "device.h"

int lib_scale(int X) { return X * 3; }

kernel void lib_kernel(global int *Out) {
  size_t I = dglinkGlobalId();
  Out[I] = lib_scale((int)I) + 2;
}
