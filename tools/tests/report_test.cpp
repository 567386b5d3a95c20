// Unit tests of `dglink conform`'s report: the matrix's per-device totals, the tests
// that run once (not per device) and the summary must add up.
#include "report.h"

#include <gtest/gtest.h>

#include <sstream>

namespace dglink::tools {
namespace {

TestRecord record(const char *Scenario, const char *Device, Outcome Result) {
  TestRecord T;
  T.Scenario = Scenario;
  T.Device = Device;
  T.Result = Result;
  if (Result == Outcome::Skipped)
    T.SkipReason = "no image built for target amdgcn";
  if (Result == Outcome::Failed)
    T.Failures.push_back("conformance/scenarios/linking.cpp:10: expected 42");
  return T;
}

// Two scenarios of the dispatch layer, three per device on two devices: 8 tests.
ConformResults results() {
  ConformResults R;
  R.Tests = {record("Discovery.FindsAdapters", "", Outcome::Passed),
             record("Discovery.Filter", "", Outcome::Skipped),
             record("Linking.Pair", "opencl_0_cpu", Outcome::Passed),
             record("Linking.Pair", "cuda_0_gpu", Outcome::Passed),
             record("Linking.Chain", "opencl_0_cpu", Outcome::Failed),
             record("Linking.Chain", "cuda_0_gpu", Outcome::Passed),
             record("DeviceGlobals.Read", "opencl_0_cpu", Outcome::Passed),
             record("DeviceGlobals.Read", "cuda_0_gpu", Outcome::Skipped)};
  R.Seconds = 1.5;
  return R;
}

std::string report(const ConformResults &R) {
  std::ostringstream Out;
  printMatrix(R, Out, /*Color=*/false);
  return Out.str();
}

TEST(ConformReport, SummaryCountsEveryTestOnceAndSaysWhichArePerDevice) {
  const std::string Text = report(results());
  EXPECT_NE(Text.find("FAILED 8 tests on 2 devices in 1.5 s: 5 passed, 1 failed, 2 skipped\n"
                      "  per device (3 scenarios x 2 devices, the matrix's totals): 6 tests: "
                      "4 passed, 1 failed, 1 skipped\n"
                      "  not per device (2 scenarios of the dispatch layer): 2 tests: 1 passed, "
                      "0 failed, 1 skipped\n"),
            std::string::npos)
      << Text;
}

TEST(ConformReport, MatrixTotalsArePerDeviceAndTheDispatchTestsAreApart) {
  const std::string Text = report(results());
  EXPECT_NE(Text.find("Dispatch layer (not per device: each runs once)\n"), std::string::npos)
      << Text;
  // opencl: 2 pass 1 FAIL; cuda: 2 pass 1 skip; 4 + 1 + 1 = 6, the per-device line above.
  EXPECT_NE(Text.find("Totals per device"), std::string::npos) << Text;
  EXPECT_NE(Text.find("2 pass, 1 FAIL, 0 skip"), std::string::npos) << Text;
  EXPECT_NE(Text.find("2 pass, 0 FAIL, 1 skip"), std::string::npos) << Text;
}

TEST(ConformReport, OnlyDispatchTestsGiveNoMatrix) {
  ConformResults R;
  R.Tests = {record("Discovery.FindsAdapters", "", Outcome::Passed)};
  const std::string Text = report(R);
  EXPECT_EQ(Text.find("Totals per device"), std::string::npos) << Text;
  EXPECT_NE(Text.find("PASSED 1 tests on 0 devices"), std::string::npos) << Text;
  EXPECT_NE(Text.find("  per device (0 scenarios x 0 devices, the matrix's totals): 0 tests: "
                      "0 passed, 0 failed, 0 skipped\n"),
            std::string::npos)
      << Text;
}

} // namespace
} // namespace dglink::tools
