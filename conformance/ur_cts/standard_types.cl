// Stands in for UR's test/conformance/device_code/standard_types.cpp: `parallel_for<class
// Foo>` writes 100 + (b ? 1 : 0) * u8 * u32 * u64 * s.a * (uint32_t)f to a read-write 1-D
// buffer accessor; arguments in capture order: the accessor (pointer, offset), bool,
// uint8_t, uint32_t, uint64_t, struct {uint32_t a, b;}, float. OpenCL C allows no bool
// kernel argument: the bool is a uchar (the same one byte, as the CTS sets it).
#include "ur_cts.h"

typedef struct {
  uint a;
  uint b;
} Struct;

kernel void UR_CTS_CGH_KERNEL(3Foo)(global uint *acc, ur_cts_id1 acc_offset, uchar test_bool,
                                    uchar test_u8, uint test_u32, ulong test_u64,
                                    Struct test_struct, float test_float) {
  acc[acc_offset.offset[0] + ur_cts_gid(0) - ur_cts_offset(0)] =
      (uint)(100 + (test_bool ? 1 : 0) * test_u8 * test_u32 * test_u64 * test_struct.a *
                       (uint)test_float);
}
