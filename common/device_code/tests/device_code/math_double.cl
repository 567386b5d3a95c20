// OpenCL C's floating-point builtins on double and half, scalar and vector: the PTX
// translation defines each one (device_code_unit, ptx_translation_test.cpp).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define EXACT(T, IT, UT)                                                                        \
  kernel void exact_##T(global T *out, global const T *in, global const UT *bits) {           \
    size_t i = get_global_id(0);                                                               \
    T x = in[i], y = in[i + 1], z = in[i + 2];                                                 \
    T f;                                                                                       \
    out[i] = sqrt(x) + fabs(x) + floor(x) + ceil(x) + trunc(x) + rint(x) + round(x) +          \
             copysign(x, y) + fmin(x, y) + fmax(x, y) + fma(x, y, z) + fdim(x, y) +            \
             maxmag(x, y) + minmag(x, y) + fract(x, &f) + f + degrees(x) + mix(x, y, z) +      \
             step(x, y) + smoothstep(x, y, z) + sign(x) + clamp(x, y, z) + nan(bits[i]);       \
  }
// libdevice's functions are inlined lane by lane: few widths keep the test quick.
#define TRANSCENDENTAL(T, IT)                                                                  \
  kernel void transcendental_##T(global T *out, global const T *in, global IT *iout) {        \
    size_t i = get_global_id(0);                                                               \
    T x = in[i], y = in[i + 1];                                                                \
    T c, m;                                                                                    \
    IT e, q;                                                                                   \
    out[i] = acos(x) + acosh(x) + acospi(x) + asin(x) + asinh(x) + asinpi(x) + atan(x) +       \
             atan2(x, y) + atanh(x) + atanpi(x) + atan2pi(x, y) + cbrt(x) + cos(x) + cosh(x) + \
             cospi(x) + erfc(x) + erf(x) + exp(x) + exp2(x) + exp10(x) + expm1(x) +            \
             fmod(x, y) + hypot(x, y) + lgamma(x) + log(x) + log2(x) + log10(x) + log1p(x) +   \
             logb(x) + nextafter(x, y) + pow(x, y) + pown(x, iout[i]) + powr(x, y) +           \
             remainder(x, y) + rsqrt(x) + sin(x) + sinh(x) + sinpi(x) + tan(x) + tanh(x) +     \
             tanpi(x) + tgamma(x) + ldexp(x, iout[i]) + frexp(x, &e) + remquo(x, y, &q) +      \
             modf(x, &m) + m + sincos(x, &c) + c;                                              \
    iout[i] = ilogb(x) + e + q;                                                                \
  }

EXACT(double, int, ulong)
EXACT(double2, int2, ulong2)
EXACT(double3, int3, ulong3)
EXACT(double4, int4, ulong4)
EXACT(double8, int8, ulong8)
EXACT(double16, int16, ulong16)
EXACT(half, int, ushort)
EXACT(half4, int4, ushort4)
EXACT(half16, int16, ushort16)
TRANSCENDENTAL(double, int)
TRANSCENDENTAL(double2, int2)
TRANSCENDENTAL(half, int)

kernel void rootn_half(global half *out, global const half *in, global const int *n) {
  size_t i = get_global_id(0);
  out[i] = rootn(in[i], n[i]);
}
