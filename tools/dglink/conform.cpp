// `dglink conform`: the conformance scenarios (linked in from the suite's OBJECT
// library) under GoogleTest, reported as a matrix and optionally as JUnit XML.
#include "conform.h"

#include "devices.h"
#include "report.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <memory>

#include <unistd.h>

namespace dglink::tools {
namespace {

std::vector<std::string> split(const std::string &Text, char Separator) {
  std::vector<std::string> Parts;
  size_t Begin = 0;
  while (true) {
    const size_t End = Text.find(Separator, Begin);
    Parts.push_back(Text.substr(Begin, End - Begin));
    if (End == std::string::npos)
      return Parts;
    Begin = End + 1;
  }
}

std::string join(const std::vector<std::string> &Parts, char Separator) {
  std::string Out;
  for (const std::string &Part : Parts)
    Out += (Out.empty() ? "" : std::string(1, Separator)) + Part;
  return Out;
}

// Users filter on Fixture.Test; gtest names a device's test Fixture.Test/<device>.
// Each pattern without a '/' also gets its "/*" form, so "Linking.ChainOfFour"
// selects that scenario on every device.
std::string expandFilter(const std::string &Filter) {
  const size_t Dash = Filter.find('-');
  auto Expand = [](const std::string &Patterns) {
    std::vector<std::string> Out;
    for (const std::string &Pattern : split(Patterns, ':')) {
      if (Pattern.empty())
        continue;
      Out.push_back(Pattern);
      if (Pattern.find('/') == std::string::npos && Pattern.back() != '*')
        Out.push_back(Pattern + "/*");
    }
    return join(Out, ':');
  };
  if (Dash == std::string::npos)
    return Expand(Filter);
  const std::string Positive = Expand(Filter.substr(0, Dash));
  return (Positive.empty() ? "*" : Positive) + "-" + Expand(Filter.substr(Dash + 1));
}

// gtest's pattern language: '*' any text, '?' one character.
bool globMatch(const char *Pattern, const char *Text) {
  if (*Pattern == '\0')
    return *Text == '\0';
  if (*Pattern == '*')
    return globMatch(Pattern + 1, Text) || (*Text != '\0' && globMatch(Pattern, Text + 1));
  return *Text != '\0' && (*Pattern == '?' || *Pattern == *Text) &&
         globMatch(Pattern + 1, Text + 1);
}

bool filterMatches(const std::string &Filter, const std::string &Name) {
  const size_t Dash = Filter.find('-');
  auto Any = [&](const std::string &Patterns) {
    for (const std::string &Pattern : split(Patterns, ':'))
      if (!Pattern.empty() && globMatch(Pattern.c_str(), Name.c_str()))
        return true;
    return false;
  };
  const std::string Positive = Filter.substr(0, Dash);
  if (!Positive.empty() && !Any(Positive))
    return false;
  return Dash == std::string::npos || !Any(Filter.substr(Dash + 1));
}

void printDevices(std::ostream &Out) {
  const std::vector<conformance::DeviceParam> Selected = conformance::selectedDevices();
  const size_t All = conformance::allDevices().size();
  Out << "Devices: " << Selected.size() << " selected";
  if (Selected.size() != All)
    Out << " of " << All << " (" << conformance::deviceSelection().describe() << ")";
  Out << "\n";
  for (const conformance::DeviceParam &Param : Selected)
    Out << "  " << Param.Id << "  (" << Param.Backend << ": " << Param.Name << ")\n";
  if (!conformance::enumerationError().empty())
    Out << "  enumeration error: " << conformance::enumerationError() << "\n";
  if (All == 0)
    Out << "  no devices found by the dispatch layer (see `dglink ls`)\n";
}

int listScenarios(const std::string &Filter) {
  printDevices(std::cout);
  std::vector<std::string> Scenarios;
  const ::testing::UnitTest &Unit = *::testing::UnitTest::GetInstance();
  for (int S = 0; S < Unit.total_test_suite_count(); ++S) {
    const ::testing::TestSuite &Suite = *Unit.GetTestSuite(S);
    for (int T = 0; T < Suite.total_test_count(); ++T) {
      const ::testing::TestInfo &Info = *Suite.GetTestInfo(T);
      if (!Filter.empty() &&
          !filterMatches(Filter, std::string(Info.test_suite_name()) + "." + Info.name()))
        continue;
      std::string Scenario, Device;
      splitTestName(Info.test_suite_name(), Info.name(), Scenario, Device);
      if (std::find(Scenarios.begin(), Scenarios.end(), Scenario) == Scenarios.end())
        Scenarios.push_back(Scenario + (Device.empty() ? "  (once, not per device)" : ""));
    }
  }
  std::cout << "Scenarios: " << Scenarios.size() << "\n";
  for (const std::string &Scenario : Scenarios)
    std::cout << "  " << Scenario << "\n";
  return 0;
}

} // namespace

int runConform(const char *Program, const ConformOptions &Options) {
  conformance::DeviceSelection &Selection = conformance::deviceSelection();
  if (!Options.Adapter.empty())
    Selection.Adapter = Options.Adapter;
  if (!Options.Device.empty())
    Selection.Device = Options.Device;

  // gtest takes its own flags from an argv; device enumeration happens in
  // InitGoogleTest (parameter generators), after the selection above.
  const std::string Filter = Options.Filter.empty() ? "" : expandFilter(Options.Filter);
  std::vector<std::string> Arguments = {Program};
  if (!Filter.empty())
    Arguments.push_back("--gtest_filter=" + Filter);
  Arguments.insert(Arguments.end(), Options.GtestArgs.begin(), Options.GtestArgs.end());
  std::vector<char *> Argv;
  for (std::string &Argument : Arguments)
    Argv.push_back(Argument.data());
  Argv.push_back(nullptr);
  int Argc = static_cast<int>(Arguments.size());
  ::testing::InitGoogleTest(&Argc, Argv.data());

  if (Options.List)
    return listScenarios(Filter);

  ConformResults Results;
  ::testing::TestEventListeners &Listeners = ::testing::UnitTest::GetInstance()->listeners();
  delete Listeners.Release(Listeners.default_result_printer());
  Listeners.Append(new ProgressListener(Results));

  const bool Color = isatty(STDOUT_FILENO) != 0 && std::getenv("NO_COLOR") == nullptr;
  printDevices(std::cout);
  std::cout << "\n" << std::flush;
  const int TestStatus = RUN_ALL_TESTS();
  std::cout << "\n";
  printMatrix(Results, std::cout, Color);
  std::cout << std::flush;

  if (!Options.Junit.empty()) {
    std::string Error;
    if (!writeJunit(Results, Options.Junit, Error)) {
      std::cerr << "dglink conform: " << Error << "\n";
      return 1;
    }
    std::cout << "JUnit XML: " << Options.Junit << "\n";
  }
  const bool Ok = TestStatus == 0 && Results.failed() == 0 && Results.GlobalFailures.empty();
  return Ok ? 0 : 1;
}

} // namespace dglink::tools
