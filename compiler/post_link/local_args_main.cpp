// dglink-local-args: LLVM IR in, the same in DPC++'s CUDA/HIP form out: the
// "<kernel>_with_offset" entry points of kernels that read the global offset
// (shim::addGlobalOffsetEntries), then local-memory kernel arguments as offsets
// (shim::lowerLocalArguments); for device code that reaches PTX or AMD code objects
// without the shim (the UR CTS stand-in, conformance/ur_cts).
#include <dglink/compiler/post_link.h>

#include <CLI/CLI.hpp>

#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdio>
#include <string>

int main(int Argc, char **Argv) {
  CLI::App App{"dglink-local-args: NVPTX and AMDGPU kernels in DPC++'s form: an entry point "
               "<kernel>_with_offset for each kernel that reads the global offset "
               "(__dglink_global_offset), and local (address space 3) pointer parameters -> "
               "i32 offsets into one dynamic shared-memory array"};
  std::string Input;
  std::string Output;
  bool Text = false;
  App.add_option("input", Input, "LLVM IR (.bc or .ll)")->required();
  App.add_option("-o,--output", Output, "The bitcode (or with -S, text) to write")->required();
  App.add_flag("-S", Text, "Write LLVM IR text instead of bitcode");
  CLI11_PARSE(App, Argc, Argv);

  llvm::LLVMContext Context;
  llvm::SMDiagnostic Diagnostic;
  std::unique_ptr<llvm::Module> M = llvm::parseIRFile(Input, Diagnostic, Context);
  if (!M) {
    std::string Message;
    llvm::raw_string_ostream Stream(Message);
    Diagnostic.print("dglink-local-args", Stream);
    std::fprintf(stderr, "%s", Stream.str().c_str());
    return 1;
  }
  llvm::Expected<unsigned> Entries = dglink::shim::addGlobalOffsetEntries(*M);
  if (!Entries) {
    std::fprintf(stderr, "dglink-local-args: '%s': %s\n", Input.c_str(),
                 llvm::toString(Entries.takeError()).c_str());
    return 1;
  }
  const unsigned Changed = dglink::shim::lowerLocalArguments(*M);
  std::string Broken;
  llvm::raw_string_ostream Why(Broken);
  if (llvm::verifyModule(*M, &Why)) {
    std::fprintf(stderr, "dglink-local-args: the rewritten module of '%s' is invalid: %s\n",
                 Input.c_str(), Why.str().c_str());
    return 1;
  }
  std::error_code Code;
  llvm::raw_fd_ostream Stream(Output, Code);
  if (Code) {
    std::fprintf(stderr, "dglink-local-args: cannot write '%s': %s\n", Output.c_str(),
                 Code.message().c_str());
    return 1;
  }
  if (Text)
    M->print(Stream, nullptr);
  else
    llvm::WriteBitcodeToFile(*M, Stream);
  Stream.close();
  if (Stream.has_error()) {
    std::fprintf(stderr, "dglink-local-args: cannot write '%s'\n", Output.c_str());
    return 1;
  }
  std::fprintf(stderr,
               "dglink-local-args: %u kernel(s) rewritten, %u offset entry point(s) added\n",
               Changed, *Entries);
  return 0;
}
