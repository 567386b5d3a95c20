// The device code of SYCL proposal CP027's example ("global device symbols",
// shared/seeds/cp027-global-device-symbols.md), as its CUDA version writes it:
// GV is only read by kernels, MutableGV is written by one, GVArray is filled by
// the host. Program-scope mutable globals need OpenCL C 2.0.
//
// GV is in the global address space, not constant as in the CUDA version: clang
// folds an initialised constant-space variable into its readers, so a kernel would
// never see the host's writes.
#include "device.h"

#include <dglink/device_global.h>

// In the example the host only writes GV.
DGLINK_DEVICE_GLOBAL_PROPERTIES("GV", 0, write) global int GV = 42;
DGLINK_DEVICE_GLOBAL("MutableGV") global int MutableGV = 42;
DGLINK_DEVICE_GLOBAL("cp027::GVArray") global int GVArray[42];

kernel void kernel1(global int *Acc) { *Acc = GV; }

kernel void kernel2(global int *Acc) { *Acc = GV; }

kernel void kernel3(int V2) { MutableGV = V2; }

kernel void sum_gv_array(global int *Out) {
  int Sum = 0;
  for (int I = 0; I < 42; ++I)
    Sum += GVArray[I];
  Out[0] = Sum;
}
