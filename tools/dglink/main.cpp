// The `dglink` command: `ls` shows what the dispatch layer finds, `conform` runs
// the conformance suite on it, `bench` measures device-global copies.
#include "bench.h"
#include "conform.h"
#include "ls.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>

int main(int Argc, char **Argv) {
  // PoCL reads this when it is loaded, which is before the first test: its kernel
  // cache can let one program see another's state (FACTS.md). A user's own
  // setting wins.
  setenv("POCL_KERNEL_CACHE", "0", /*overwrite=*/0);

  CLI::App App{"dglink: PI adapters for device-global access and device-code linking"};
  App.set_version_flag("--version", DGLINK_VERSION);
  App.require_subcommand(1);

  dglink::tools::LsOptions Ls;
  CLI::App *LsCommand =
      App.add_subcommand("ls", "List the adapters, platforms and devices the dispatch layer finds");
  LsCommand->add_flag("--json", Ls.Json, "Print JSON instead of text");

  dglink::tools::ConformOptions Conform;
  CLI::App *ConformCommand = App.add_subcommand(
      "conform", "Run the conformance scenarios on every device (or the chosen ones)");
  ConformCommand->add_option("--adapter", Conform.Adapter,
                             "Only devices of this backend (opencl, cuda, hip, level_zero)");
  ConformCommand->add_option("--device", Conform.Device,
                             "Only devices whose id contains this text (see --list)");
  ConformCommand->add_option("--filter", Conform.Filter,
                             "GoogleTest filter on Fixture.Test, e.g. 'Linking.*:-*.Amdgcn'");
  ConformCommand->add_option("--junit", Conform.Junit, "Also write JUnit XML to this file");
  ConformCommand->add_flag("--list", Conform.List, "List the devices and scenarios, run nothing");
  ConformCommand->add_option("gtest-args", Conform.GtestArgs,
                             "After --: flags passed to GoogleTest as they are");
  ConformCommand->footer("Environment: DGLINK_CONFORMANCE_ADAPTER and DGLINK_CONFORMANCE_DEVICE "
                         "select like --adapter and --device.");

  dglink::tools::BenchOptions Bench;
  CLI::App *BenchCommand = App.add_subcommand(
      "bench", "Measure device-global read/write latency on every device (or the chosen ones)");
  BenchCommand->add_option("--adapter", Bench.Adapter, "Only devices of this backend");
  BenchCommand->add_option("--device", Bench.Device, "Only devices whose id contains this text");
  BenchCommand->add_option("--sizes", Bench.Sizes, "Bytes per copy (default 4 64 4096 65536 1048576)")
      ->delimiter(',');
  BenchCommand->add_option("--iterations", Bench.Iterations,
                           "Calls timed per case (default 2000, 200 for 1 MiB)")
      ->check(CLI::NonNegativeNumber);
  BenchCommand->add_option("--csv", Bench.Csv, "Also write the table as CSV to this file");
  BenchCommand->add_option("--json", Bench.Json, "Also write the table as JSON to this file");

  CLI11_PARSE(App, Argc, Argv);

  if (LsCommand->parsed())
    return dglink::tools::runLs(Ls);
  if (BenchCommand->parsed()) {
#if DGLINK_HAVE_BENCH
    return dglink::tools::runBench(Bench);
#else
    std::fprintf(stderr, "dglink bench: this dglink was built without Google Benchmark "
                         "(apt-get install libbenchmark-dev, then rebuild)\n");
    return 2;
#endif
  }
  return dglink::tools::runConform(Argv[0], Conform);
}
