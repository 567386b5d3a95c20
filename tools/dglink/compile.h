// `dglink compile`: device code -> bundle, by running the shim's program
// (dglink-post-link, beside dglink) so that dglink itself does not link LLVM.
#pragma once

#include <string>
#include <vector>

namespace dglink::tools {

struct CompileOptions {
  std::vector<std::string> Inputs;
  std::vector<std::string> Targets;
  std::string Split = "per-input";
  std::string Output;
  std::string NvptxArch;
  std::string AmdgcnArch;
  std::string RocmDeviceLibs;
  std::string Clang;
  std::string OpenClStd;
  std::vector<std::string> IncludeDirs;
  std::vector<std::string> Defines;
  std::string Embed;
  std::string EmbedSymbol;
  bool LowerDeviceGlobals = false; // also the OpenCL-lowered images (docs/opencl-lowering.md)
};

// Returns the process exit code (the shim's own, or 2 when it cannot run).
int runCompile(const CompileOptions &Options);

} // namespace dglink::tools
