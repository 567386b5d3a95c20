// What `dglink conform` collects while GoogleTest runs the scenarios (a listener
// that replaces gtest's own printer with one progress line), and the reports made
// from it: the scenario x device matrix and JUnit XML.
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

namespace dglink::tools {

enum class Outcome { Passed, Failed, Skipped };

// One test: one scenario on one device (Device is empty for the tests that run
// once, against the dispatch layer).
struct TestRecord {
  std::string Scenario; // Fixture.Test
  std::string Device;   // the device id (gtest parameter name)
  Outcome Result = Outcome::Passed;
  std::string SkipReason;
  std::vector<std::string> Failures; // "file:line: message"
  double Seconds = 0;
};

struct ConformResults {
  std::vector<TestRecord> Tests;
  std::vector<std::string> GlobalFailures; // failures outside any test
  double Seconds = 0;
  size_t failed() const;
  size_t skipped() const;
  size_t passed() const;
};

// Replaces gtest's printer: a progress line on stderr per test (overwritten in
// place on a terminal) and each failure as it happens.
class ProgressListener : public ::testing::EmptyTestEventListener {
public:
  explicit ProgressListener(ConformResults &Results);

  void OnTestIterationStart(const ::testing::UnitTest &Unit, int Iteration) override;
  void OnTestStart(const ::testing::TestInfo &Info) override;
  void OnTestPartResult(const ::testing::TestPartResult &Part) override;
  void OnTestEnd(const ::testing::TestInfo &Info) override;
  void OnTestIterationEnd(const ::testing::UnitTest &Unit, int Iteration) override;

private:
  void clearLine();

  ConformResults &Results;
  TestRecord *Current = nullptr;
  int Total = 0;
  int Index = 0;
  bool Terminal = false;
  size_t LineLength = 0;
};

// Splits a gtest full name ("Linking", "ChainOfFour/opencl_0_cpu") into the
// scenario ("Linking.ChainOfFour") and the device id ("opencl_0_cpu", or "").
void splitTestName(const std::string &Suite, const std::string &Name, std::string &Scenario,
                   std::string &Device);

// The matrix (rows: scenarios, columns: devices), failures and totals.
void printMatrix(const ConformResults &Results, std::ostream &Out, bool Color);

// JUnit XML: one <testsuite> per device, plus one for the dispatch-level tests.
bool writeJunit(const ConformResults &Results, const std::string &Path, std::string &Error);

} // namespace dglink::tools
