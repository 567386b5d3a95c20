// Image kernels for the UR face's image scenarios (conformance/ur_face/images.cpp): each
// work-item (x, y) copies one pixel of a 2-D RGBA float image into another, read through
// the sampler argument (unnormalized, clamping, nearest), and a second kernel adds 1 to
// each channel. PTX and amdgcn images have no OpenCL image built-ins here (clang 15 has
// none for those targets): their kernels take the three handles and do nothing, and the
// scenario runs on OpenCL devices only (where images are served).
#include "device.h"

#if defined(__NVPTX__) || defined(__AMDGCN__)
kernel void copy_image(ulong Out, ulong In, ulong Sampler) {}
kernel void increment_image(ulong Out, ulong In, ulong Sampler) {}
#else
kernel void copy_image(write_only image2d_t Out, read_only image2d_t In, sampler_t Sampler) {
  const int2 At = (int2)((int)get_global_id(0), (int)get_global_id(1));
  write_imagef(Out, At, read_imagef(In, Sampler, At));
}

kernel void increment_image(write_only image2d_t Out, read_only image2d_t In,
                            sampler_t Sampler) {
  const int2 At = (int2)((int)get_global_id(0), (int)get_global_id(1));
  write_imagef(Out, At, read_imagef(In, Sampler, At) + (float4)(1.0f));
}
#endif
