// OpenCL C's integer, relational and geometric builtins, scalar and vector: the PTX
// translation defines each one (device_code_unit, ptx_translation_test.cpp).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define INTEGER(T)                                                                             \
  kernel void integer_##T(global T *out, global const T *in) {                                \
    size_t i = get_global_id(0);                                                               \
    T x = in[i], y = in[i + 1], z = in[i + 2];                                                 \
    out[i] = as_##T(abs(x)) + as_##T(abs_diff(x, y)) + add_sat(x, y) + sub_sat(x, y) + hadd(x, y) +      \
             rhadd(x, y) + max(x, y) + min(x, y) + clamp(x, y, z) + clz(x) + ctz(x) +          \
             popcount(x) + mul_hi(x, y) + mad_hi(x, y, z) + mad_sat(x, y, z) + rotate(x, y) +  \
             max(x, (T)3) + rotate(x, (T)5);                                                   \
  }
#define INTEGERS(S)                                                                            \
  INTEGER(S) INTEGER(S##2) INTEGER(S##3) INTEGER(S##4) INTEGER(S##8) INTEGER(S##16)
INTEGERS(char)
INTEGERS(uchar)
INTEGERS(short)
INTEGERS(ushort)
INTEGERS(int)
INTEGERS(uint)
INTEGERS(long)
INTEGERS(ulong)

kernel void narrow(global int *out, global const int *in, global const uint *u,
                   global long *wide, global const short *s, global const uchar *b) {
  size_t i = get_global_id(0);
  out[i] = mul24(in[i], in[i + 1]) + mad24(in[i], in[i + 1], in[i + 2]) +
           (int)mul24(u[i], u[i + 1]) + upsample(s[i], (ushort)s[i + 1]);
  wide[i] = upsample(in[i], u[i]) + upsample((char)b[i], b[i + 1]);
}

#define RELATIONAL(T, IT, ST)                                                                      \
  kernel void relational_##T(global IT *out, global const T *in, global T *pick) {            \
    size_t i = get_global_id(0);                                                               \
    T x = in[i], y = in[i + 1];                                                                \
    IT r = isequal(x, y) + isnotequal(x, y) + isgreater(x, y) + isgreaterequal(x, y) +         \
           isless(x, y) + islessequal(x, y) + islessgreater(x, y) + isfinite(x) + isinf(x) +   \
           isnan(x) + isnormal(x) + isordered(x, y) + isunordered(x, y) + signbit(x);          \
    out[i] = r;                                                                                \
    pick[i] = select(x, y, (ST)r) + bitselect(x, y, in[i + 2]);                                    \
  }
RELATIONAL(float, int, int)
RELATIONAL(float2, int2, int2)
RELATIONAL(float3, int3, int3)
RELATIONAL(float4, int4, int4)
RELATIONAL(float8, int8, int8)
RELATIONAL(float16, int16, int16)
RELATIONAL(double, int, long)
RELATIONAL(double4, long4, long4)

kernel void any_all(global int *out, global const int4 *v, global const long2 *l,
                    global const char16 *c, global const int *s) {
  size_t i = get_global_id(0);
  out[i] = any(v[i]) + all(v[i]) + any(l[i]) + all(c[i]) + any(s[i]) + all(s[i]);
}

#define GEOMETRIC(T, S)                                                                        \
  kernel void geometric_##T(global T *out, global S *length_out, global const T *in) {        \
    size_t i = get_global_id(0);                                                               \
    T x = in[i], y = in[i + 1];                                                                \
    length_out[i] = dot(x, y) + length(x) + distance(x, y);                                    \
    out[i] = normalize(x);                                                                     \
  }
GEOMETRIC(float, float)
GEOMETRIC(float2, float)
GEOMETRIC(float3, float)
GEOMETRIC(float4, float)
GEOMETRIC(double, double)
GEOMETRIC(double3, double)
GEOMETRIC(double4, double)

kernel void fast_geometric(global float4 *out, global float *length_out,
                           global const float4 *in, global const float3 *in3,
                           global float3 *out3, global double4 *d) {
  size_t i = get_global_id(0);
  length_out[i] = fast_length(in[i]) + fast_distance(in[i], in[i + 1]);
  out[i] = fast_normalize(in[i]) + cross(in[i], in[i + 1]);
  out3[i] = cross(in3[i], in3[i + 1]);
  d[i] = cross(d[i + 1], d[i + 2]);
}
