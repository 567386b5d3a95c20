// The application of the seed's double-compilation example: its kernel calls
// lib_scale, which only the library (library.cl) defines.
#include "device.h"

int lib_scale(int X);

kernel void app_kernel(global int *Out) {
  size_t I = dglinkGlobalId();
  Out[I] = lib_scale((int)I) + 1;
}
