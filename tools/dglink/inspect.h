// `dglink inspect`: a bundle's images (target, format, size, options, entries) and
// every property set, as text in the manner of sycl-post-link's property files, or
// as JSON.
#pragma once

#include <string>

namespace dglink::tools {

struct InspectOptions {
  std::string Bundle;
  bool Json = false;
};

// Prints to stdout; returns the process exit code (1 for an unreadable bundle).
int runInspect(const InspectOptions &Options);

} // namespace dglink::tools
