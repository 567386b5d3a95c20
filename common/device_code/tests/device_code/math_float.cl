// OpenCL C's floating-point builtins on float, scalar and every vector width: the PTX
// translation defines each one (device_code_unit, ptx_translation_test.cpp).
#define WIDTHS(M)                                                                              \
  M(float, int, uint) M(float2, int2, uint2) M(float3, int3, uint3) M(float4, int4, uint4)     \
      M(float8, int8, uint8) M(float16, int16, uint16)

#define EXACT(T, IT, UT)                                                                       \
  kernel void exact_##T(global T *out, global const T *in, global const UT *bits) {           \
    size_t i = get_global_id(0);                                                               \
    T x = in[i], y = in[i + 1], z = in[i + 2];                                                 \
    T f;                                                                                       \
    out[i] = sqrt(x) + fabs(x) + floor(x) + ceil(x) + trunc(x) + rint(x) + round(x) +          \
             copysign(x, y) + fmin(x, y) + fmax(x, y) + fma(x, y, z) + mad(x, y, z) +          \
             fdim(x, y) + maxmag(x, y) + minmag(x, y) + fract(x, &f) + f + degrees(x) +        \
             radians(x) + mix(x, y, z) + step(x, y) + smoothstep(x, y, z) + sign(x) +          \
             clamp(x, y, z) + max(x, y) + min(x, y) + fmin(x, 1.0f) + clamp(x, 0.0f, 1.0f) +   \
             nan(bits[i]);                                                                     \
  }                                                                                            \
  kernel void approximate_##T(global T *out, global const T *in) {                            \
    size_t i = get_global_id(0);                                                               \
    T x = in[i], y = in[i + 1];                                                                \
    out[i] = native_exp(x) + native_exp2(x) + native_exp10(x) + native_log(x) +                \
             native_log2(x) + native_log10(x) + native_sin(x) + native_cos(x) +                \
             native_tan(x) + native_sqrt(x) + native_rsqrt(x) + native_recip(x) +              \
             native_divide(x, y) + native_powr(x, y) + half_exp(x) + half_exp2(x) +            \
             half_exp10(x) + half_log(x) + half_log2(x) + half_log10(x) + half_sin(x) +        \
             half_cos(x) + half_tan(x) + half_sqrt(x) + half_rsqrt(x) + half_recip(x) +        \
             half_divide(x, y) + half_powr(x, y);                                              \
  }

// libdevice's functions are inlined lane by lane: two widths keep the test quick.
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
             remainder(x, y) + rootn(x, iout[i]) + rsqrt(x) + sin(x) + sinh(x) + sinpi(x) +    \
             tan(x) + tanh(x) + tanpi(x) + tgamma(x) + ldexp(x, iout[i]) + ldexp(x, 3) +       \
             frexp(x, &e) + remquo(x, y, &q) + modf(x, &m) + m + sincos(x, &c) + c;            \
    iout[i] = ilogb(x) + e + q;                                                                \
  }

WIDTHS(EXACT)
TRANSCENDENTAL(float, int)
TRANSCENDENTAL(float3, int3)
