// Stands in for UR's test/conformance/device_code/fixed_wg_size.cpp: an empty functor
// kernel named `class FixedWgSize` with work_group_size<8, 4, 2>, no arguments. SYCL's
// last dimension is UR's first, so the required size is reqd_work_group_size(2, 4, 8)
// (SPIR-V execution mode LocalSize 2 4 8), as the CTS expects.
#include "ur_cts.h"

kernel __attribute__((reqd_work_group_size(2, 4, 8))) void UR_CTS_CGH_KERNEL(11FixedWgSize)(void) {}
