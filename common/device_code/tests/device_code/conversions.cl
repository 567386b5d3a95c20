// OpenCL C's conversions (every rounding mode, saturation) and vector-data functions
// (vloadN, vstoreN, vload_half, vstore_half): the PTX translation defines each one
// (device_code_unit, ptx_translation_test.cpp).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define FROM_FLOAT(F, I)                                                                       \
  kernel void float_to_##I(global I *out, global const F *in) {                               \
    size_t i = get_global_id(0);                                                               \
    F x = in[i];                                                                               \
    out[i] = convert_##I(x) + convert_##I##_rte(x) + convert_##I##_rtz(x) +                   \
             convert_##I##_rtp(x) + convert_##I##_rtn(x) + convert_##I##_sat(x) +              \
             convert_##I##_sat_rte(x) + convert_##I##_sat_rtz(x) + convert_##I##_sat_rtp(x) +  \
             convert_##I##_sat_rtn(x);                                                         \
  }
FROM_FLOAT(float, int)
FROM_FLOAT(float, uint)
FROM_FLOAT(float, char)
FROM_FLOAT(float, ushort)
FROM_FLOAT(double, long)
FROM_FLOAT(double, ulong)
FROM_FLOAT(float4, int4)
FROM_FLOAT(double2, uchar2)
FROM_FLOAT(float16, short16)

#define TO_FLOAT(I, F)                                                                         \
  kernel void I##_to_##F(global F *out, global const I *in) {                                 \
    size_t i = get_global_id(0);                                                               \
    I x = in[i];                                                                               \
    out[i] = convert_##F(x) + convert_##F##_rte(x) + convert_##F##_rtz(x) +                    \
             convert_##F##_rtp(x) + convert_##F##_rtn(x);                                      \
  }
TO_FLOAT(int, float)
TO_FLOAT(uint, float)
TO_FLOAT(long, float)
TO_FLOAT(ulong, float)
TO_FLOAT(long, double)
TO_FLOAT(ulong, double)
TO_FLOAT(short, float)
TO_FLOAT(int4, float4)
TO_FLOAT(double, float)
TO_FLOAT(double8, float8)
TO_FLOAT(float, double)

#define BETWEEN_INTEGERS(A, B)                                                                 \
  kernel void A##_to_##B(global B *out, global const A *in) {                                 \
    size_t i = get_global_id(0);                                                               \
    out[i] = convert_##B(in[i]) + convert_##B##_sat(in[i]) + convert_##B##_sat_rte(in[i]);     \
  }
BETWEEN_INTEGERS(int, uchar)
BETWEEN_INTEGERS(uint, char)
BETWEEN_INTEGERS(long, uint)
BETWEEN_INTEGERS(ulong, long)
BETWEEN_INTEGERS(char, ulong)
BETWEEN_INTEGERS(short4, uint4)

#define VECTOR_DATA(T, N)                                                                      \
  kernel void vector_data_##T##N(global T *out, global const T *in, constant T *c,             \
                                 local T *scratch) {                                           \
    size_t i = get_global_id(0);                                                               \
    vstore##N(vload##N(i, in) + vload##N(i, c), i, out);                                       \
    vstore##N(vload##N(0, in), 0, scratch);                                                    \
    barrier(CLK_LOCAL_MEM_FENCE);                                                              \
    vstore##N(vload##N(1, scratch), i + 1, out);                                               \
  }
VECTOR_DATA(float, 2)
VECTOR_DATA(float, 3)
VECTOR_DATA(float, 4)
VECTOR_DATA(int, 8)
VECTOR_DATA(uchar, 16)
VECTOR_DATA(double, 3)

kernel void halves(global half *h, global float *f, global float4 *f4, global double *d,
                   global float3 *f3) {
  size_t i = get_global_id(0);
  f[i] = vload_half(i, h);
  f4[i] = vload_half4(i, h) + vloada_half4(i + 1, h);
  f3[i] = vloada_half3(i, h);
  vstore_half(f[i + 1], i, h);
  vstore_half_rte(f[i + 2], i + 1, h);
  vstore_half4(f4[i + 1], i + 2, h);
  vstorea_half3(f3[i + 1], i + 3, h);
  vstore_half(d[i], i + 4, h);
}
