// Stands in for UR's test/conformance/device_code/mean.cpp: `parallel_for_work_group<class
// mean>` over 16 groups of 4: each group copies its 4 inputs to local memory, then writes
// their mean to out[group]. Arguments in capture order: the local accessor (a local
// pointer), in (pointer, offset), out (pointer, offset). Hierarchical parallelism becomes
// an nd-range kernel: the work-item loop is each item's copy, the group-scope code runs
// in local item 0 after a barrier.
#include "ur_cts.h"

#define WG_SIZE 4

kernel void UR_CTS_CGH_KERNEL(4mean)(local uint *local_mem, global const uint *in,
                                     ur_cts_id1 in_offset, global uint *out,
                                     ur_cts_id1 out_offset) {
  const size_t group_id = ur_cts_group(0);
  const size_t local_id = ur_cts_lid(0);
  local_mem[local_id] = in[in_offset.offset[0] + group_id * WG_SIZE + local_id];
  ur_cts_local_barrier();
  if (local_id == 0) {
    uint total = 0;
    for (int i = 0; i < WG_SIZE; i++)
      total += local_mem[i];
    out[out_offset.offset[0] + group_id] = total / WG_SIZE;
  }
}
