// `dglink inspect`: a bundle's images (target, format, size, options, entries) and
// every property set, as text in the manner of sycl-post-link's property files, or
// as JSON. With --kernel: what the runtime would link for that kernel on each device
// (the bundle and the --with bundles registered, in that order).
#pragma once

#include <string>
#include <vector>

namespace dglink::tools {

struct InspectOptions {
  std::string Bundle;
  bool Json = false;
  std::string Kernel;            // show the link plan of this kernel
  std::vector<std::string> With; // more bundles registered after Bundle
  std::string Device;            // only devices whose id contains this text
};

// Prints to stdout; returns the process exit code (1 for an unreadable bundle).
int runInspect(const InspectOptions &Options);

} // namespace dglink::tools
