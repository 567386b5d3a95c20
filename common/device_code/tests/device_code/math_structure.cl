// One builtin per kernel, so that the test can read which PTX instruction each became
// (ptx_translation_test.cpp, PtxMath).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define ONE(Name, T, Expression)                                                               \
  kernel void Name(global T *out, global const T *in) {                                       \
    size_t i = get_global_id(0);                                                               \
    T x = in[i], y = in[i + 1], z = in[i + 2];                                                 \
    out[i] = Expression;                                                                       \
  }
ONE(sqrt_float, float, sqrt(x))
ONE(sqrt_double, double, sqrt(x))
ONE(sqrt_float4, float4, sqrt(x))
ONE(fma_float, float, fma(x, y, z))
ONE(fma_double, double, fma(x, y, z))
ONE(fmin_float, float, fmin(x, y))
ONE(floor_float, float, floor(x))
ONE(rint_double, double, rint(x))
ONE(native_exp2_float, float, native_exp2(x))
ONE(native_sin_float, float, native_sin(x))
ONE(native_rsqrt_float, float, native_rsqrt(x))
ONE(half_divide_float, float, half_divide(x, y))
ONE(native_log_float, float, native_log(x))
ONE(sin_float, float, sin(x))
ONE(exp_double, double, exp(x))
ONE(isnan_float, int, isnan(as_float(x)))
ONE(clz_uint, uint, clz(x))
ONE(popcount_ulong, ulong, popcount(x))
ONE(mul_hi_int, int, mul_hi(x, y))
ONE(add_sat_uchar, uchar, add_sat(x, y))
ONE(convert_int_rte_float, int, convert_int_rte(as_float(x)))
ONE(convert_float_rtz_int, float, convert_float_rtz(as_int(x)))
ONE(convert_float_rtp_double, float, convert_float_rtp(as_double((ulong)x)))
ONE(length_float4, float, length((float4)(x, y, z, x)))
ONE(rotate_int, int, rotate(x, y))
