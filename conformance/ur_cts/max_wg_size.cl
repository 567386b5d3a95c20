// Stands in for UR's test/conformance/device_code/max_wg_size.cpp: an empty functor
// kernel named `class MaxWgSize`, no arguments. The original's max_work_group_size<8,
// 4, 2> and max_linear_work_group_size<64> have no OpenCL C spelling in clang 15 (DPC++
// emits SPV_INTEL_kernel_attributes' MaxWorkgroupSizeINTEL): this port has no
// work-group limit, so urKernelGetGroupInfo's COMPILE_MAX_* queries find none.
#include "ur_cts.h"

kernel void UR_CTS_CGH_KERNEL(9MaxWgSize)(void) {}
