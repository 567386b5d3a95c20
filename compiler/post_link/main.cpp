// dglink-post-link: the shim as a program (what `dglink compile` runs), so that the
// dglink command itself never links LLVM.
#include <dglink/compiler/post_link.h>
#include <dglink/support/error.h>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>

int main(int Argc, char **Argv) {
  CLI::App App{"dglink-post-link: device code -> device images with property sets -> bundle"};
  dglink::shim::CompileOptions Options;
  std::string Split = "per-input";
  std::string Output;
  App.add_option("inputs", Options.Inputs,
                 "OpenCL C (.cl), C++ for OpenCL (.clcpp), LLVM IR (.ll, .bc)")
      ->required();
  App.add_option("--targets", Options.Targets, "spirv64, spir64 (bitcode), nvptx64, amdgcn")
      ->delimiter(',')
      ->required();
  App.add_option("--split", Split, "per-input (default), per-kernel or all-in-one");
  App.add_option("-o,--output", Output, "The bundle file to write")->required();
  App.add_option("--nvptx-arch", Options.NvptxArch, "PTX target, e.g. sm_75 (default: backend's)");
  App.add_option("--amdgcn-arch", Options.AmdgcnArch, "AMD GPU, e.g. gfx90a (the default)");
  App.add_option("--rocm-device-libs", Options.RocmDeviceLibs,
                 "ROCm device libraries' bitcode folder for amdgcn (default: the one found "
                 "when dglink was built; none: do not link them)");
  App.add_option("--clang", Options.Clang, "The clang that compiles device sources");
  App.add_option("--cl-std", Options.OpenClStd, "OpenCL C version of .cl inputs (default CL2.0)");
  App.add_option("-I", Options.IncludeDirs, "Include directory for device sources");
  App.add_option("-D", Options.Defines, "Macro definition for device sources");
  App.add_flag("--lower-device-globals", Options.LowerForOpenCl,
               "Also emit spir64/spirv64/nvptx64 images with device globals lowered into "
               "adapter-owned storage, for OpenCL devices (docs/opencl-lowering.md)");
  App.add_flag("--local-args-as-offsets", Options.LocalArgumentOffsets,
               "nvptx64 and amdgcn images take local-memory kernel arguments as offsets into "
               "one dynamic shared-memory array, DPC++'s form for CUDA and HIP (which the CUDA "
               "and HIP adapters expect; NVIDIA's OpenCL cannot run such PTX)");
  std::string Embed;
  std::string EmbedSymbol = "dglink_device_binaries";
  App.add_option("--embed", Embed,
                 "Also write C++ source registering the bundle as pi_device_binaries");
  App.add_option("--embed-symbol", EmbedSymbol,
                 "Name of the embedded source's accessor (default dglink_device_binaries)");
  CLI11_PARSE(App, Argc, Argv);

  llvm::Expected<dglink::shim::SplitMode> Mode = dglink::shim::parseSplitMode(Split);
  if (!Mode) {
    std::fprintf(stderr, "dglink compile: %s\n", llvm::toString(Mode.takeError()).c_str());
    return 2;
  }
  Options.Split = *Mode;
  llvm::Expected<dglink::Bundle> Result = dglink::shim::compile(Options);
  if (!Result) {
    std::fprintf(stderr, "dglink compile: error: %s\n", llvm::toString(Result.takeError()).c_str());
    return 1;
  }
  if (dglink::writeBundleFile(Output, *Result) != PI_SUCCESS) {
    std::fprintf(stderr, "dglink compile: %s\n", dglink::lastErrorMessage().c_str());
    return 1;
  }
  if (!Embed.empty()) {
    std::ofstream Source(Embed, std::ios::trunc);
    Source << dglink::writeEmbeddedSource(*Result, EmbedSymbol);
    Source.close();
    if (!Source) {
      std::fprintf(stderr, "dglink compile: cannot write '%s'\n", Embed.c_str());
      return 1;
    }
  }
  std::printf("dglink compile: wrote %s (%zu images)\n", Output.c_str(), Result->Images.size());
  return 0;
}
