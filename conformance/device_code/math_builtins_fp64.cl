// OpenCL C's math builtins on double over an input array, for MathBuiltins.Double
// (conformance/scenarios/math_builtins.cpp).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#include "device.h"

#define DOUBLE_RESULTS 8

kernel void math_double(global const double *X, global const double *Y, global double *Out) {
  size_t I = dglinkGlobalId();
  double x = X[I], y = Y[I], a = fabs(x);
  global double *R = Out + I * DOUBLE_RESULTS;
  R[0] = sqrt(a);
  R[1] = sin(x);
  R[2] = exp(x);
  R[3] = log(a);
  R[4] = pow(a, y);
  R[5] = atan2(x, y);
  R[6] = fma(x, y, x);
  R[7] = cbrt(x);
}
