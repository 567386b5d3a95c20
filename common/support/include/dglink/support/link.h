// Link resolution shared by every adapter: which imports no input exports and
// which symbols two inputs export, computed from the images' symbol tables
// before the driver is asked, so the build log can name them on every backend.
#pragma once

#include <dglink/support/api.h>
#include <dglink/support/image.h>

#include <string>
#include <vector>

namespace dglink {

struct LinkProblems {
  std::vector<std::string> Unresolved; // "symbol (imported by input N)"
  std::vector<std::string> Duplicates; // "symbol (exported by inputs N and M)"
  bool ok() const { return Unresolved.empty() && Duplicates.empty(); }
  // A build-log text that lists every problem, one per line.
  DGLINK_SUPPORT_API std::string describe() const;
};

// Inputs without symbol tables are skipped (the driver still checks them).
DGLINK_SUPPORT_API LinkProblems resolveImports(const std::vector<const ImageMetadata *> &Inputs);

} // namespace dglink
