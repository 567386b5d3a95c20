// The image `dglink bench` measures device-global copies on (tools/dglink/bench.cpp):
// one 1 MiB variable, and a kernel so that every backend accepts the program.
// Program-scope mutable globals need OpenCL C 2.0.
#include "device.h"

#include <dglink/device_global.h>

DGLINK_DEVICE_GLOBAL("dg_bench_data") global uchar dg_bench_data[1048576];

kernel void dg_bench_touch(global uchar *Out) { Out[0] = dg_bench_data[0]; }
