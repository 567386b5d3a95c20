// The device global the OpenCL benchmark copies (compiled with --lower-device-globals):
// 4 MiB, so every measured size fits; a kernel touches it so that it is a real variable
// of the program.
#include <dglink/device_global.h>

DGLINK_DEVICE_GLOBAL("bench_global") global uchar bench_global[1 << 22];

kernel void bench_touch(global uchar *Out) { Out[0] = bench_global[0]; }
