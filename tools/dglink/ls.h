// `dglink ls`: the adapters the dispatch layer considered, and every platform and
// device it serves with what they can do.
#pragma once

namespace dglink::tools {

struct LsOptions {
  bool Json = false;
};

// Prints the listing to stdout; returns the process exit code.
int runLs(const LsOptions &Options);

} // namespace dglink::tools
