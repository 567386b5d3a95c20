// Stands in for UR's test/conformance/device_code/subgroup.cpp: a functor kernel named
// `class FixedSgSize` with sub_group_size<8> over a 1-D nd_range; the item with global
// linear id 0 writes its sub-group's size to element 0 of a size_t buffer accessor
// (pointer, offset). sub_group_size<8> is OpenCL's intel_reqd_sub_group_size(8) (SPIR-V
// execution mode SubgroupSize 8). PTX: a warp is the sub-group (32 lanes; DPC++ for
// CUDA has no sub-groups of 8 either).
#include "ur_cts.h"

#ifdef __NVPTX__
#define SUB_GROUP_SIZE() ((size_t)32)
#define REQD_SUB_GROUP_SIZE
#else
#define SUB_GROUP_SIZE() ((size_t)get_sub_group_size())
#define REQD_SUB_GROUP_SIZE __attribute__((intel_reqd_sub_group_size(8)))
#endif

kernel REQD_SUB_GROUP_SIZE void UR_CTS_CGH_KERNEL(11FixedSgSize)(global size_t *acc,
                                                                  ur_cts_id1 acc_offset) {
  if (ur_cts_global_linear_id(1) == 0)
    acc[acc_offset.offset[0]] = SUB_GROUP_SIZE();
}
