// `dglink compile`: finds dglink-post-link beside this program and runs it with the
// options given, so that its diagnostics and exit status are the command's own.
#include "compile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace dglink::tools {

int runCompile(const CompileOptions &Options) {
#ifndef DGLINK_HAVE_SHIM
  (void)Options;
  std::fprintf(stderr, "dglink compile: the compiler shim was not built (LLVM 15 and "
                       "LLVMSPIRVLib were not found when dglink was built: apt-get install "
                       "llvm-15-dev libllvmspirvlib-15-dev, then rebuild)\n");
  return 2;
#else
  std::string Self(4096, '\0');
  const ssize_t Length = readlink("/proc/self/exe", Self.data(), Self.size() - 1);
  if (Length <= 0) {
    std::fprintf(stderr, "dglink compile: cannot find this program's folder: %s\n",
                 std::strerror(errno));
    return 2;
  }
  Self.resize(static_cast<size_t>(Length));
  const std::string Shim = Self.substr(0, Self.rfind('/') + 1) + "dglink-post-link";

  std::vector<std::string> Arguments = {Shim};
  Arguments.insert(Arguments.end(), Options.Inputs.begin(), Options.Inputs.end());
  auto Add = [&Arguments](const char *Flag, const std::string &Value) {
    if (!Value.empty())
      Arguments.insert(Arguments.end(), {Flag, Value});
  };
  std::string Targets;
  for (const std::string &Target : Options.Targets)
    Targets += (Targets.empty() ? "" : ",") + Target;
  Add("--targets", Targets);
  Add("--split", Options.Split);
  Add("-o", Options.Output);
  Add("--nvptx-arch", Options.NvptxArch);
  Add("--amdgcn-arch", Options.AmdgcnArch);
  Add("--rocm-device-libs", Options.RocmDeviceLibs);
  Add("--clang", Options.Clang);
  Add("--cl-std", Options.OpenClStd);
  Add("--embed", Options.Embed);
  Add("--embed-symbol", Options.EmbedSymbol);
  if (Options.LowerDeviceGlobals)
    Arguments.push_back("--lower-device-globals");
  for (const std::string &Directory : Options.IncludeDirs)
    Add("-I", Directory);
  for (const std::string &Define : Options.Defines)
    Add("-D", Define);
  std::vector<char *> Argv;
  for (std::string &Argument : Arguments)
    Argv.push_back(Argument.data());
  Argv.push_back(nullptr);

  const pid_t Child = fork();
  if (Child < 0) {
    std::fprintf(stderr, "dglink compile: fork failed: %s\n", std::strerror(errno));
    return 2;
  }
  if (Child == 0) {
    execv(Shim.c_str(), Argv.data());
    std::fprintf(stderr,
                 "dglink compile: cannot run %s: %s (the compiler shim is built with "
                 "dglink; is it installed beside it?)\n",
                 Shim.c_str(), std::strerror(errno));
    _exit(2);
  }
  int Status = 0;
  while (waitpid(Child, &Status, 0) < 0) {
    if (errno != EINTR) {
      std::fprintf(stderr, "dglink compile: waitpid failed: %s\n", std::strerror(errno));
      return 2;
    }
  }
  return WIFEXITED(Status) ? WEXITSTATUS(Status) : 2;
#endif
}

} // namespace dglink::tools
