// OpenCL C's math, integer, relational and conversion builtins over input arrays, for the
// MathBuiltins scenarios (conformance/scenarios/math_builtins.cpp), which compare each
// result with the host's libm within OpenCL's ULP bounds. The order of the results is the
// scenario's table.
#include "device.h"

#define FLOAT_RESULTS 24

kernel void math_float(global const float *X, global const float *Y, global float *Out) {
  size_t I = dglinkGlobalId();
  float x = X[I], y = Y[I], a = fabs(x);
  global float *R = Out + I * FLOAT_RESULTS;
  R[0] = sqrt(a);
  R[1] = sin(x);
  R[2] = cos(x);
  R[3] = tan(x);
  R[4] = exp(x);
  R[5] = exp2(x);
  R[6] = exp10(x);
  R[7] = log(a);
  R[8] = log2(a);
  R[9] = log10(a);
  R[10] = pow(a, y);
  R[11] = atan2(x, y);
  R[12] = erf(x);
  R[13] = tgamma(a + 0.5f);
  R[14] = cbrt(x);
  R[15] = hypot(x, y);
  R[16] = fma(x, y, x);
  R[17] = floor(x);
  R[18] = fmin(x, y);
  R[19] = rsqrt(a);
  R[20] = asin(x / 4.0f);
  R[21] = native_exp(x);
  R[22] = native_sqrt(a);
  R[23] = length((float4)(x, y, x, y));
}

kernel void math_float4(global const float *X, global float *Sines, global float *Roots) {
  size_t I = dglinkGlobalId();
  float4 V = vload4(I, X);
  vstore4(sin(V), I, Sines);
  vstore4(sqrt(fabs(V)), I, Roots);
}

#define INT_RESULTS 8

kernel void math_int(global const int *A, global const int *B, global const float *X,
                     global int *Out) {
  size_t I = dglinkGlobalId();
  int a = A[I], b = B[I];
  global int *R = Out + I * INT_RESULTS;
  R[0] = (int)clz(a);
  R[1] = (int)popcount(a);
  R[2] = mul_hi(a, b);
  R[3] = rotate(a, b);
  R[4] = add_sat(a, b);
  R[5] = (int)abs(a);
  R[6] = convert_int_sat_rte(X[I] * 1000.0f);
  R[7] = isnan(sqrt(X[I])) + 2 * isinf(X[I] / 0.0f);
}
