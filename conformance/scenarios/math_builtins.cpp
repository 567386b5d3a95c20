// OpenCL C's builtins computed on the device and compared with the host's libm within
// OpenCL's ULP bounds (OpenCL 1.2, 7.4, full profile). On NVIDIA's OpenCL a SPIR-V image
// reaches the driver as PTX in which the adapter defined every builtin (docs/opencl.md,
// "SPIR-V into PTX"); on PoCL the driver defines them. A native PTX image of the same
// source is skipped: clang's nvcl PTX leaves them external, and NVIDIA's OpenCL does not
// resolve them.
#include "fixtures.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace dglink::conformance {
namespace {

constexpr size_t Items = 256;

class MathBuiltins : public ProgramTest {
protected:
  void SetUp() override {
    ProgramTest::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    if (Format == "nvptx64") {
      GTEST_SKIP() << "clang's nvcl PTX (format nvptx64) leaves OpenCL's math builtins "
                      "external, which NVIDIA's OpenCL does not resolve; run with "
                      "DGLINK_CONFORMANCE_FORMAT=spirv64, where the adapter defines them";
    }
  }

  // A buffer of Values' bytes (Values empty: Bytes of output).
  template <typename T> void buffer(const std::vector<T> &Values, size_t Bytes, MemHandle &Out) {
    ASSERT_PI_SUCCESS(
        piMemBufferCreate(Context.get(), PI_MEM_FLAGS_ACCESS_RW, Bytes, nullptr, Out.out()));
    if (!Values.empty()) {
      ASSERT_PI_SUCCESS(piEnqueueMemBufferWrite(Queue.get(), Out.get(), PI_TRUE, 0, Bytes,
                                                Values.data(), 0, nullptr, nullptr));
    }
  }
  // Runs kernel Name of program Source over Items work-items with Buffers as its arguments.
  void run(const char *Source, const char *Name, const std::vector<pi_mem> &Buffers) {
    ASSERT_NO_FATAL_FAILURE(buildProgram(Source, Program));
    KernelHandle Kernel;
    ASSERT_NO_FATAL_FAILURE(createKernel(Program.get(), Name, Kernel));
    for (size_t I = 0; I < Buffers.size(); ++I)
      ASSERT_PI_SUCCESS(
          piextKernelSetArgMemObj(Kernel.get(), static_cast<pi_uint32>(I), &Buffers[I]));
    const size_t Global = Items;
    ASSERT_PI_SUCCESS(piEnqueueKernelLaunch(Queue.get(), Kernel.get(), 1, nullptr, &Global, nullptr,
                                            0, nullptr, nullptr));
  }
  template <typename T> std::vector<T> read(const MemHandle &Buffer, size_t Count) {
    std::vector<T> Values(Count);
    EXPECT_PI_SUCCESS(piEnqueueMemBufferRead(Queue.get(), Buffer.get(), PI_TRUE, 0,
                                             Count * sizeof(T), Values.data(), 0, nullptr,
                                             nullptr));
    return Values;
  }

  ProgramHandle Program;
};
DGLINK_INSTANTIATE_FOR_DEVICES(MathBuiltins);

// The distance between Got and the exact Reference in units in the last place of T at
// Reference (denormals: the smallest one).
template <typename T> double ulps(T Got, long double Reference) {
  if (std::isnan(Reference))
    return std::isnan(Got) ? 0 : std::numeric_limits<double>::infinity();
  if (std::isinf(Reference) || std::isinf(Got))
    return static_cast<long double>(Got) == Reference ? 0 : std::numeric_limits<double>::infinity();
  int Exponent = 0;
  std::frexp(static_cast<double>(static_cast<T>(Reference)), &Exponent);
  const int Digits = std::numeric_limits<T>::digits;
  const int Least = std::numeric_limits<T>::min_exponent - Digits;
  const long double Ulp = std::ldexp(1.0L, std::max(Exponent - Digits, Least));
  return static_cast<double>(std::fabs(static_cast<long double>(Got) - Reference) / Ulp);
}

float inputX(size_t I) { return -4.0f + 8.0f * (static_cast<float>(I) + 0.5f) / Items; }
float inputY(size_t I) { return 0.1f + 2.9f * static_cast<float>(I) / Items; }

TEST_P(MathBuiltins, FloatWithinOpenClUlpBounds) {
  std::vector<float> X(Items), Y(Items);
  for (size_t I = 0; I < Items; ++I) {
    X[I] = inputX(I);
    Y[I] = inputY(I);
  }
  constexpr size_t Results = 24;
  MemHandle XBuffer, YBuffer, Out;
  ASSERT_NO_FATAL_FAILURE(buffer(X, Items * sizeof(float), XBuffer));
  ASSERT_NO_FATAL_FAILURE(buffer(Y, Items * sizeof(float), YBuffer));
  ASSERT_NO_FATAL_FAILURE(buffer(std::vector<float>(), Items * Results * sizeof(float), Out));
  ASSERT_NO_FATAL_FAILURE(
      run("math_builtins", "math_float", {XBuffer.get(), YBuffer.get(), Out.get()}));
  const std::vector<float> Got = read<float>(Out, Items * Results);
  // Each result: its name, OpenCL's bound in ulps, the reference in long double.
  const struct {
    const char *Name;
    double Bound;
    long double (*Reference)(long double X, long double Y);
  } Table[Results] = {
      {"sqrt", 3, [](long double A, long double) { return std::sqrt(std::fabs(A)); }},
      {"sin", 4, [](long double A, long double) { return std::sin(A); }},
      {"cos", 4, [](long double A, long double) { return std::cos(A); }},
      {"tan", 5, [](long double A, long double) { return std::tan(A); }},
      {"exp", 3, [](long double A, long double) { return std::exp(A); }},
      {"exp2", 3, [](long double A, long double) { return std::exp2(A); }},
      {"exp10", 3, [](long double A, long double) { return std::pow(10.0L, A); }},
      {"log", 3, [](long double A, long double) { return std::log(std::fabs(A)); }},
      {"log2", 3, [](long double A, long double) { return std::log2(std::fabs(A)); }},
      {"log10", 3, [](long double A, long double) { return std::log10(std::fabs(A)); }},
      {"pow", 16, [](long double A, long double B) { return std::pow(std::fabs(A), B); }},
      {"atan2", 6, [](long double A, long double B) { return std::atan2(A, B); }},
      {"erf", 16, [](long double A, long double) { return std::erf(A); }},
      {"tgamma", 16,
       [](long double A, long double) {
         return std::tgamma(static_cast<long double>(std::fabs(static_cast<float>(A)) + 0.5f));
       }},
      {"cbrt", 2, [](long double A, long double) { return std::cbrt(A); }},
      {"hypot", 4, [](long double A, long double B) { return std::hypot(A, B); }},
      {"fma", 0,
       [](long double A, long double B) {
         return static_cast<long double>(
             std::fma(static_cast<float>(A), static_cast<float>(B), static_cast<float>(A)));
       }},
      {"floor", 0, [](long double A, long double) { return std::floor(A); }},
      {"fmin", 0, [](long double A, long double B) { return std::fmin(A, B); }},
      {"rsqrt", 2, [](long double A, long double) { return 1.0L / std::sqrt(std::fabs(A)); }},
      {"asin", 4,
       [](long double A, long double) {
         return std::asin(static_cast<long double>(static_cast<float>(A) / 4.0f));
       }},
      // native_*: accuracy is the implementation's; a relative 2^-10 catches a wrong scale.
      // (PoCL 3.1 has no half_* functions at all.)
      {"native_exp", 8192, [](long double A, long double) { return std::exp(A); }},
      {"native_sqrt", 8192, [](long double A, long double) { return std::sqrt(std::fabs(A)); }},
      {"length", 4, [](long double A, long double B) { return std::sqrt(2 * A * A + 2 * B * B); }},
  };
  for (size_t K = 0; K < Results; ++K) {
    double Worst = 0;
    size_t At = 0;
    for (size_t I = 0; I < Items; ++I) {
      const long double Reference = Table[K].Reference(X[I], Y[I]);
      const double Error = std::string(Table[K].Name).rfind("native_", 0) == 0
                               ? static_cast<double>(std::fabs(Got[I * Results + K] - Reference) /
                                                     std::fabs(Reference) * 8192 * 1024)
                               : ulps(Got[I * Results + K], Reference);
      if (Error > Worst || std::isnan(Error)) {
        Worst = Error;
        At = I;
      }
    }
    EXPECT_LE(Worst, Table[K].Bound)
        << Table[K].Name << "(" << X[At] << ", " << Y[At] << ") = " << Got[At * Results + K]
        << ", libm: " << static_cast<double>(Table[K].Reference(X[At], Y[At]));
  }
}

TEST_P(MathBuiltins, FloatVectorsLaneByLane) {
  std::vector<float> X(Items * 4);
  for (size_t I = 0; I < X.size(); ++I)
    X[I] = -20.0f + 40.0f * static_cast<float>(I) / static_cast<float>(X.size());
  MemHandle XBuffer, Sines, Roots;
  ASSERT_NO_FATAL_FAILURE(buffer(X, X.size() * sizeof(float), XBuffer));
  ASSERT_NO_FATAL_FAILURE(buffer(std::vector<float>(), X.size() * sizeof(float), Sines));
  ASSERT_NO_FATAL_FAILURE(buffer(std::vector<float>(), X.size() * sizeof(float), Roots));
  ASSERT_NO_FATAL_FAILURE(
      run("math_builtins", "math_float4", {XBuffer.get(), Sines.get(), Roots.get()}));
  const std::vector<float> GotSines = read<float>(Sines, X.size());
  const std::vector<float> GotRoots = read<float>(Roots, X.size());
  for (size_t I = 0; I < X.size(); ++I) {
    EXPECT_LE(ulps(GotSines[I], std::sin(static_cast<long double>(X[I]))), 4) << "sin " << X[I];
    EXPECT_LE(ulps(GotRoots[I], std::sqrt(std::fabs(static_cast<long double>(X[I])))), 3)
        << "sqrt " << X[I];
  }
}

TEST_P(MathBuiltins, IntegerRelationalAndConversionsExact) {
  std::vector<int32_t> A(Items), B(Items);
  std::vector<float> X(Items);
  for (size_t I = 0; I < Items; ++I) {
    A[I] = static_cast<int32_t>(static_cast<uint32_t>(I) * 2654435761u);
    B[I] = static_cast<int32_t>(static_cast<uint32_t>(I) * 40503u) - 20000;
    X[I] = inputX(I) * 1e7f;
  }
  A[0] = 0;
  A[1] = std::numeric_limits<int32_t>::min();
  A[2] = std::numeric_limits<int32_t>::max();
  B[2] = 5;
  constexpr size_t Results = 8;
  MemHandle ABuffer, BBuffer, XBuffer, Out;
  ASSERT_NO_FATAL_FAILURE(buffer(A, Items * sizeof(int32_t), ABuffer));
  ASSERT_NO_FATAL_FAILURE(buffer(B, Items * sizeof(int32_t), BBuffer));
  ASSERT_NO_FATAL_FAILURE(buffer(X, Items * sizeof(float), XBuffer));
  ASSERT_NO_FATAL_FAILURE(buffer(std::vector<int32_t>(), Items * Results * sizeof(int32_t), Out));
  ASSERT_NO_FATAL_FAILURE(
      run("math_builtins", "math_int", {ABuffer.get(), BBuffer.get(), XBuffer.get(), Out.get()}));
  const std::vector<int32_t> Got = read<int32_t>(Out, Items * Results);
  for (size_t I = 0; I < Items; ++I) {
    const int32_t a = A[I], b = B[I];
    const auto u = static_cast<uint32_t>(a);
    const unsigned Shift = static_cast<uint32_t>(b) % 32;
    const float Scaled = X[I] * 1000.0f;
    const double Rounded = std::nearbyint(static_cast<double>(Scaled));
    const int64_t Sum = int64_t{a} + b;
    const int32_t Expected[Results] = {
        a == 0 ? 32 : __builtin_clz(u),
        __builtin_popcount(u),
        static_cast<int32_t>((int64_t{a} * b) >> 32),
        static_cast<int32_t>(Shift == 0 ? u : (u << Shift) | (u >> (32 - Shift))),
        static_cast<int32_t>(std::min<int64_t>(std::max<int64_t>(Sum, INT32_MIN), INT32_MAX)),
        static_cast<int32_t>(a < 0 ? 0u - u : u),
        static_cast<int32_t>(std::min(std::max(Rounded, -2147483648.0), 2147483647.0)),
        (X[I] < 0 ? 1 : 0) + 2};
    const char *Names[Results] = {"clz",
                                  "popcount",
                                  "mul_hi",
                                  "rotate",
                                  "add_sat",
                                  "abs",
                                  "convert_int_sat_rte",
                                  "isnan + 2 * isinf"};
    for (size_t K = 0; K < Results; ++K)
      EXPECT_EQ(Got[I * Results + K], Expected[K])
          << Names[K] << " of " << a << ", " << b << ", " << X[I];
  }
}

TEST_P(MathBuiltins, DoubleWithinOpenClUlpBounds) {
  pi_bitfield Fp64 = 0;
  ASSERT_PI_SUCCESS(
      piDeviceGetInfo(Device, PI_DEVICE_INFO_DOUBLE_FP_CONFIG, sizeof(Fp64), &Fp64, nullptr));
  if (Fp64 == 0)
    GTEST_SKIP() << "device has no fp64 (PI_DEVICE_INFO_DOUBLE_FP_CONFIG is 0)";
  std::vector<double> X(Items), Y(Items);
  for (size_t I = 0; I < Items; ++I) {
    X[I] = -4.0 + 8.0 * (static_cast<double>(I) + 0.37) / Items;
    Y[I] = 0.1 + 2.9 * static_cast<double>(I) / Items;
  }
  constexpr size_t Results = 8;
  MemHandle XBuffer, YBuffer, Out;
  ASSERT_NO_FATAL_FAILURE(buffer(X, Items * sizeof(double), XBuffer));
  ASSERT_NO_FATAL_FAILURE(buffer(Y, Items * sizeof(double), YBuffer));
  ASSERT_NO_FATAL_FAILURE(buffer(std::vector<double>(), Items * Results * sizeof(double), Out));
  ASSERT_NO_FATAL_FAILURE(
      run("math_builtins_fp64", "math_double", {XBuffer.get(), YBuffer.get(), Out.get()}));
  const std::vector<double> Got = read<double>(Out, Items * Results);
  const struct {
    const char *Name;
    double Bound;
    long double (*Reference)(long double X, long double Y);
  } Table[Results] = {
      {"sqrt", 0, [](long double A, long double) { return std::sqrt(std::fabs(A)); }},
      {"sin", 4, [](long double A, long double) { return std::sin(A); }},
      {"exp", 3, [](long double A, long double) { return std::exp(A); }},
      {"log", 3, [](long double A, long double) { return std::log(std::fabs(A)); }},
      {"pow", 16, [](long double A, long double B) { return std::pow(std::fabs(A), B); }},
      {"atan2", 6, [](long double A, long double B) { return std::atan2(A, B); }},
      {"fma", 0, [](long double A, long double B) { return std::fma(A, B, A); }},
      {"cbrt", 2, [](long double A, long double) { return std::cbrt(A); }},
  };
  for (size_t K = 0; K < Results; ++K) {
    double Worst = 0;
    size_t At = 0;
    for (size_t I = 0; I < Items; ++I) {
      const double Error = ulps(Got[I * Results + K], Table[K].Reference(X[I], Y[I]));
      if (Error > Worst || std::isnan(Error)) {
        Worst = Error;
        At = I;
      }
    }
    // The reference is long double (64-bit significand): +0.5 ulp for its own rounding of
    // what the correctly rounded result is.
    EXPECT_LE(Worst, Table[K].Bound + 0.5)
        << Table[K].Name << "(" << X[At] << ", " << Y[At] << ") = " << Got[At * Results + K];
  }
}

} // namespace
} // namespace dglink::conformance
