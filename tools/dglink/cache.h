// `dglink cache`: the persistent program cache of the runtime (docs/runtime.md):
// list its entries, verify them as a load would, clear it.
#pragma once

#include <string>

namespace dglink::tools {

struct CacheOptions {
  std::string Action;    // list, verify, clear
  std::string Directory; // empty: DGLINK_CACHE_DIR or its default
  bool Json = false;
  bool RemoveBad = false; // verify: also remove the entries that are not valid
};

// Prints to stdout; returns the process exit code (verify: 1 when an entry is bad).
int runCache(const CacheOptions &Options);

} // namespace dglink::tools
