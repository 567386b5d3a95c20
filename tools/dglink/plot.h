// `dglink bench --plot FILE.svg --from RESULT.json`: latency against size, log-log,
// per device, dglink beside the raw pageable and raw pinned copies, drawn from the
// Google Benchmark JSON of dglink_bench_device_global (one file per device/adapter).
// The SVG is written by this code; no plotting library.
#pragma once

#include <string>
#include <vector>

namespace dglink::tools {

// One input: its name (for messages) and its text.
struct PlotInput {
  std::string Name;
  std::string Json;
};

// Draws the inputs into Svg; false with Error naming the input and the problem (not
// JSON, no benchmark rows the plot can use).
bool plotBenchmarks(const std::vector<PlotInput> &Inputs, std::string &Svg, std::string &Error);

// Reads the files, draws them, writes Output; the exit code (0, or 1 with the error
// on stderr).
int runPlot(const std::vector<std::string> &Files, const std::string &Output);

} // namespace dglink::tools
