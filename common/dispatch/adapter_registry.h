// Adapter discovery: finds libdglink_adapter_<name>.so[.<major>] files, loads and
// checks them, and keeps what it found (loaded adapters with their platforms, skipped
// ones with the reason).
#pragma once

#include <dglink/pi.h>

#include <memory>
#include <string>
#include <vector>

namespace dglink::dispatch {

// File names are <AdapterFilePrefix><name><AdapterFileSuffix>, or end in
// AdapterFileVersionedSuffix: the SONAME of dglink's own adapters (an installed tree
// has only that name; a build tree has both, for the same file, and it is loaded once).
// Other major versions (.so.2) are not this dispatch layer's adapters.
inline constexpr const char *AdapterFilePrefix = "libdglink_adapter_";
inline constexpr const char *AdapterFileSuffix = ".so";
// ".so.<major>", from the project version (common/dispatch/CMakeLists.txt).
inline constexpr const char *AdapterFileVersionedSuffix = DGLINK_ADAPTER_SONAME_SUFFIX;

// Where to look for adapters and which names to accept.
struct DiscoveryOptions {
  // Searched in order; the first adapter loaded under a name wins.
  std::vector<std::string> Directories;
  // Adapter names to load; empty accepts every name.
  std::vector<std::string> Names;

  // The process-wide options: OwnDirectory (where the dispatch library lives), then
  // the ':'-separated AdapterPath; Adapters is the ','-separated name filter. Either
  // string may be null (unset). Empty path entries are dropped rather than read as
  // the current directory, so no library is loaded from wherever the process runs.
  static DiscoveryOptions fromEnvironment(const std::string &OwnDirectory, const char *AdapterPath,
                                          const char *Adapters);
};

// Closes a dlopen handle.
struct LibraryCloser {
  void operator()(void *Library) const;
};
using LibraryHandle = std::unique_ptr<void, LibraryCloser>;

// One adapter file that discovery considered.
struct AdapterRecord {
  std::string Name; // from the file name
  std::string Path;
  bool Loaded = false;
  std::string SkipReason; // empty when Loaded
  pi_plugin Plugin{};     // what piPluginInit filled in (valid when Loaded)
  std::vector<pi_platform> Platforms;
  LibraryHandle Library; // kept open once the adapter's code has run
};

class AdapterRegistry {
public:
  // Discovers the adapters now. Never fails: problems are logged and recorded.
  explicit AdapterRegistry(DiscoveryOptions Options);
  // Closes the adapter libraries, so call tearDown first if they were used.
  ~AdapterRegistry();
  AdapterRegistry(const AdapterRegistry &) = delete;
  AdapterRegistry &operator=(const AdapterRegistry &) = delete;

  // Every adapter considered, in discovery order.
  const std::vector<AdapterRecord> &adapters() const { return Adapters; }
  // The directories searched, canonical and without repeats.
  const std::vector<std::string> &directories() const { return Directories; }
  // The record of the loaded adapter Name, or null.
  const AdapterRecord *findLoaded(const std::string &Name) const;

  // piPlatformsGet over the platforms of every loaded adapter, in discovery order.
  pi_result getPlatforms(pi_uint32 NumEntries, pi_platform *Platforms,
                         pi_uint32 *NumPlatforms) const;
  // Calls every loaded adapter's piTearDown; the first failure is returned, but
  // every adapter is still torn down.
  pi_result tearDown(void *PluginParameter) const;

private:
  void scanDirectory(const std::string &Directory);
  void consider(std::string Name, std::string Path);
  // Loads Record's library; on failure returns the reason and leaves it unloaded.
  std::string load(AdapterRecord &Record);
  bool accepts(const std::string &Name) const;

  std::vector<std::string> Directories;
  std::vector<std::string> Names;
  std::vector<AdapterRecord> Adapters;
  std::vector<pi_platform> AllPlatforms;
};

} // namespace dglink::dispatch
