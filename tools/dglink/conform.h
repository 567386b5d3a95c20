// `dglink conform`: runs the conformance scenarios on the selected devices and
// prints the scenario x device matrix.
#pragma once

#include <string>
#include <vector>

namespace dglink::tools {

struct ConformOptions {
  std::string Adapter;                // backend name, empty: every adapter
  std::string Device;                 // substring of the device id, empty: every device
  std::string Filter;                 // gtest filter on Fixture.Test
  std::string Junit;                  // JUnit XML output path, empty: none
  bool List = false;                  // list devices and scenarios, run nothing
  std::vector<std::string> GtestArgs; // passed to GoogleTest as they are
};

// Returns the process exit code: 0 iff nothing failed.
int runConform(const char *Program, const ConformOptions &Options);

} // namespace dglink::tools
