// `dglink bench`: device-global copy latency on every device (or the chosen ones)
// through the dispatch layer, beside the same adapter's plain host<->device copy of
// the same size, as a table of medians and ratios (and CSV / JSON).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace dglink::tools {

struct BenchOptions {
  std::string Adapter;        // backend name, empty: every adapter
  std::string Device;         // substring of the device id, empty: every device
  std::vector<size_t> Sizes;  // bytes per copy; empty: 4, 64, 4 KiB, 64 KiB, 1 MiB
  int Iterations = 0;         // calls timed per case; 0: 2000 (200 for 1 MiB)
  std::string Csv;            // write the table as CSV here
  std::string Json;           // write the table as JSON here
};

// Returns the process exit code: 0 unless a measurement failed.
int runBench(const BenchOptions &Options);

} // namespace dglink::tools
