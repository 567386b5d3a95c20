// The `dglink` command: `ls` shows what the dispatch layer finds, `conform` runs
// the conformance suite on it, `bench` measures device-global copies, `compile`
// turns device code into a bundle, `inspect` shows a bundle (and what the runtime would
// link from it) and `cache` looks after the runtime's persistent program cache.
#include "bench.h"
#include "plot.h"
#include "cache.h"
#include "compile.h"
#include "conform.h"
#include "inspect.h"
#include "ls.h"
#include "version.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>

int main(int Argc, char **Argv) {
  // PoCL reads this when it is loaded, which is before the first test: its kernel
  // cache can let one program see another's state (FACTS.md). A user's own
  // setting wins.
  setenv("POCL_KERNEL_CACHE", "0", /*overwrite=*/0);

  CLI::App App{"dglink: PI adapters for device-global access and device-code linking"};
  App.set_version_flag("--version", dglink::tools::versionText,
                       "Print the version, the source revision, and each adapter's version and "
                       "driver, then exit");
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
  std::string PlotOutput;
  std::vector<std::string> PlotInputs;
  BenchCommand->add_option("--plot", PlotOutput,
                           "Measure nothing: draw latency against size (log-log, SVG) from "
                           "dglink_bench_device_global's JSON (--from)");
  BenchCommand->add_option("--from", PlotInputs,
                           "With --plot: Google Benchmark JSON files (--benchmark_out), one per "
                           "device or adapter");

  dglink::tools::CompileOptions Compile;
  CLI::App *CompileCommand = App.add_subcommand(
      "compile", "Compile device code into a bundle of device images with property sets");
  CompileCommand
      ->add_option("inputs", Compile.Inputs,
                   "OpenCL C (.cl), C++ for OpenCL (.clcpp), LLVM IR (.ll, .bc)")
      ->required();
  CompileCommand
      ->add_option("--targets", Compile.Targets,
                   "spirv64 (SPIR-V), spir64 (LLVM bitcode), nvptx64 (PTX), "
                   "amdgcn (code object)")
      ->delimiter(',')
      ->required();
  CompileCommand->add_option("--split", Compile.Split,
                             "per-input (default), per-kernel or all-in-one");
  CompileCommand->add_option("-o,--output", Compile.Output, "The bundle file to write")->required();
  CompileCommand->add_option("--nvptx-arch", Compile.NvptxArch, "PTX target, e.g. sm_75");
  CompileCommand->add_option("--amdgcn-arch", Compile.AmdgcnArch, "AMD GPU (default gfx90a)");
  CompileCommand->add_option("--rocm-device-libs", Compile.RocmDeviceLibs,
                             "ROCm device libraries' bitcode folder for amdgcn (default: the one "
                             "found when dglink was built; none: do not link them)");
  CompileCommand->add_option("--clang", Compile.Clang, "The clang that compiles device sources");
  CompileCommand->add_option("--cl-std", Compile.OpenClStd,
                             "OpenCL C version of .cl inputs (default CL2.0)");
  CompileCommand->add_option("-I", Compile.IncludeDirs, "Include directory for device sources");
  CompileCommand->add_option("-D", Compile.Defines, "Macro definition for device sources");
  CompileCommand->add_option("--embed", Compile.Embed,
                             "Also write C++ source that registers the bundle as "
                             "pi_device_binaries at start-up");
  CompileCommand->add_option("--embed-symbol", Compile.EmbedSymbol,
                             "Name of that source's accessor (default dglink_device_binaries)");
  CompileCommand->add_flag("--lower-device-globals", Compile.LowerDeviceGlobals,
                           "Also emit spir64/spirv64/nvptx64 images with device globals lowered "
                           "into adapter-owned storage, for OpenCL devices");

  dglink::tools::InspectOptions Inspect;
  CLI::App *InspectCommand = App.add_subcommand(
      "inspect", "Show a bundle's images, targets, formats, sizes, entries and property sets");
  InspectCommand->add_option("bundle", Inspect.Bundle, "The bundle file")->required();
  InspectCommand->add_flag("--json", Inspect.Json, "Print JSON instead of text");
  InspectCommand->add_option("--kernel", Inspect.Kernel,
                             "Show what the runtime would link for this kernel on each device");
  InspectCommand->add_option("--with", Inspect.With,
                             "With --kernel: more bundles registered after the first");
  InspectCommand->add_option("--device", Inspect.Device,
                             "With --kernel: only devices whose id contains this text");

  dglink::tools::CacheOptions Cache;
  CLI::App *CacheCommand =
      App.add_subcommand("cache", "List, verify or clear the runtime's persistent program cache");
  CacheCommand->add_option("action", Cache.Action, "list, verify or clear")
      ->required()
      ->check(CLI::IsMember({"list", "verify", "clear"}));
  CacheCommand->add_option("--dir", Cache.Directory,
                           "The cache directory (default: DGLINK_CACHE_DIR, else "
                           "$XDG_CACHE_HOME/dglink or $HOME/.cache/dglink)");
  CacheCommand->add_flag("--json", Cache.Json, "Print JSON instead of text");
  CacheCommand->add_flag("--remove-bad", Cache.RemoveBad,
                         "verify: remove the entries that are not valid");

  CLI11_PARSE(App, Argc, Argv);

  if (CompileCommand->parsed())
    return dglink::tools::runCompile(Compile);
  if (InspectCommand->parsed())
    return dglink::tools::runInspect(Inspect);
  if (CacheCommand->parsed())
    return dglink::tools::runCache(Cache);

  if (LsCommand->parsed())
    return dglink::tools::runLs(Ls);
  if (BenchCommand->parsed() && (!PlotOutput.empty() || !PlotInputs.empty())) {
    if (PlotOutput.empty()) {
      std::fprintf(stderr, "dglink bench: --from needs --plot FILE.svg\n");
      return 2;
    }
    return dglink::tools::runPlot(PlotInputs, PlotOutput);
  }
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
