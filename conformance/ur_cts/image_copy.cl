// Stands in for UR's test/conformance/device_code/image_copy.cpp: `parallel_for<class
// image_copy>` over an 8x8 nd_range copies each texel of an rgba/fp32 2-D image to
// another (read with an unnormalized, clamping, nearest sampler). Arguments in capture
// order: the write image, the read image, the sampler. No CTS test launches it (the CTS
// only loads it to test programs). PTX: clang 15 has no OpenCL image builtins for the
// CUDA driver (no libclc here): the PTX kernel takes the three handles and traps.
#include "ur_cts.h"

#ifdef __NVPTX__
kernel void UR_CTS_CGH_KERNEL(10image_copy)(ulong out_image, ulong in_image, ulong smpl) {
  __builtin_trap();
}
#else
kernel void UR_CTS_CGH_KERNEL(10image_copy)(write_only image2d_t out_image,
                                            read_only image2d_t in_image, sampler_t smpl) {
  const int2 coords = (int2)((int)ur_cts_gid(1), (int)ur_cts_gid(0));
  write_imagef(out_image, coords, read_imagef(in_image, smpl, coords));
}
#endif
