// Stands in for UR's test/conformance/device_code/fixed_sg_size.cpp: an empty functor
// kernel named `class FixedSgSize` with sub_group_size<8> (OpenCL's
// intel_reqd_sub_group_size(8), SPIR-V execution mode SubgroupSize 8), no arguments.
// PTX: no sub-group size attribute (warps are 32 lanes).
#include "ur_cts.h"

#ifdef __NVPTX__
#define REQD_SUB_GROUP_SIZE
#else
#define REQD_SUB_GROUP_SIZE __attribute__((intel_reqd_sub_group_size(8)))
#endif

kernel REQD_SUB_GROUP_SIZE void UR_CTS_CGH_KERNEL(11FixedSgSize)(void) {}
