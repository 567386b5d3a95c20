// A counting layer around the dispatch layer's PI table: the runtime under test calls
// through it, so a test can say how many programs were created, compiled, built,
// linked and released, on the real adapters.
#pragma once

#include <dglink/pi.h>
#include <dglink/runtime.h>

#include <atomic>
#include <string>

namespace dglink::runtime::testing {

struct PiCallCounts {
  std::atomic<int> Creates{0};        // piextProgramCreateWithImage
  std::atomic<int> Compiles{0};       // piProgramCompile
  std::atomic<int> Builds{0};         // piProgramBuild
  std::atomic<int> Links{0};          // piProgramLink
  std::atomic<int> Releases{0};       // piProgramRelease
  std::atomic<int> UsmAllocations{0}; // piextUSMDeviceAlloc that succeeded
  std::atomic<int> UsmFrees{0};       // piextUSMFree
  void reset();
};

// The counts of every runtime made with countingTable(), process-wide.
PiCallCounts &piCalls();
// The dispatch layer's entry points, with the program calls above counted.
const pi_plugin_functions &countingTable();

// The bundle file of the runtime tests' own device code ("app", "library", ...): in the
// build tree, or in $DGLINK_RUNTIME_TEST_BUNDLES where the bundles were carried to
// another host; and why there is none where the shim was not built ("" when there is).
std::string testBundlePath(const std::string &Name);
std::string testBundlesMissingReason();

// The bytes of one of the conformance suite's embedded bundles ("chain_0", ...), or null.
struct BundleBytes {
  const unsigned char *Data = nullptr;
  size_t Size = 0;
};
BundleBytes conformanceBundle(const std::string &Name);

} // namespace dglink::runtime::testing
