// Image kernels for the UR face's image scenarios (conformance/ur_face/images.cpp): each
// work-item (x, y) copies one pixel of a 2-D RGBA float image into another, read through
// the sampler argument (unnormalized, clamping, nearest), and a second kernel adds 1 to
// each channel. clang 15 has no OpenCL image built-ins for PTX and amdgcn. The PTX
// kernels take what dglink's CUDA adapter and HIP's NVIDIA platform pass, as DPC++'s CUDA
// code expects it: each image a surface object (a 64-bit handle), the sampler DPC++'s
// 32-bit word; they load and store the pixel with PTX's surface instructions (x in
// bytes), the sampler unused (at a pixel's integer coordinates, unnormalized, nearest and
// clamped, it reads that pixel). The amdgcn kernels take the three handles and do
// nothing: HIP on AMD serves no images.
#include "device.h"

#if defined(__NVPTX__)
static float4 loadPixel(ulong Image, int X, int Y) {
  uint R, G, B, A;
  __asm__ volatile("suld.b.2d.v4.b32.trap {%0, %1, %2, %3}, [%4, {%5, %6}];"
                   : "=r"(R), "=r"(G), "=r"(B), "=r"(A)
                   : "l"(Image), "r"(X * 16), "r"(Y));
  return (float4)(as_float(R), as_float(G), as_float(B), as_float(A));
}

static void storePixel(ulong Image, int X, int Y, float4 Value) {
  __asm__ volatile("sust.b.2d.v4.b32.trap [%0, {%1, %2}], {%3, %4, %5, %6};"
                   :
                   : "l"(Image), "r"(X * 16), "r"(Y), "r"(as_uint(Value.x)), "r"(as_uint(Value.y)),
                     "r"(as_uint(Value.z)), "r"(as_uint(Value.w))
                   : "memory");
}

static int2 pixelOfThread(void) {
  return (int2)((int)(__nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() +
                      __nvvm_read_ptx_sreg_tid_x()),
                (int)(__nvvm_read_ptx_sreg_ctaid_y() * __nvvm_read_ptx_sreg_ntid_y() +
                      __nvvm_read_ptx_sreg_tid_y()));
}

kernel void copy_image(ulong Out, ulong In, uint Sampler) {
  const int2 At = pixelOfThread();
  storePixel(Out, At.x, At.y, loadPixel(In, At.x, At.y));
}

kernel void increment_image(ulong Out, ulong In, uint Sampler) {
  const int2 At = pixelOfThread();
  storePixel(Out, At.x, At.y, loadPixel(In, At.x, At.y) + (float4)(1.0f));
}
#elif defined(__AMDGCN__)
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
