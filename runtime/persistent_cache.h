// The persistent program cache: built programs' binaries on disk, keyed by the sorted
// set of images that went into the link, the device, its driver version, the options
// and the spec constants, so that a second process gets its program without compiling
// or linking. Every entry is checked before it is trusted (size, magic, version,
// checksum, the full key); a bad one is removed and rebuilt. Writers write a temporary
// file and rename it, so a reader never sees half an entry; the directory is kept under
// a size limit by removing the least recently used entries.
#pragma once

#include "link_plan.h"

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace dglink::runtime::detail {

// FNV-1a, 64 bits: the entries' checksum and the images' fingerprint.
uint64_t fnv1a(const void *Data, size_t Size, uint64_t Seed = 0xcbf29ce484222325ULL);

// What an entry file holds (docs/runtime.md has the layout).
inline constexpr char PersistentEntryMagic[8] = {'D', 'G', 'L', 'C', 'A', 'C', 'H', 'E'};
inline constexpr uint32_t PersistentEntryVersion = 1;
inline constexpr size_t PersistentHeaderSize = 40;
inline constexpr const char *PersistentEntrySuffix = ".dglc";

// The key of a program, as text: readable in `dglink cache list`, compared in full.
std::string persistentKey(const DeviceTraits &Traits, const std::string &Options,
                          const std::vector<uint8_t> &SpecConstants,
                          const std::vector<const RegisteredImage *> &Images);

class PersistentCache {
public:
  explicit PersistentCache(PersistentCacheSettings Settings);
  bool enabled() const { return Settings.Enabled; }
  const PersistentCacheSettings &settings() const { return Settings; }

  // The binary stored under Key, or nothing: absent, or bad (then removed; Why says
  // what was wrong). A hit marks the entry as used now.
  std::optional<std::vector<uint8_t>> load(const std::string &Key, std::string &Why);
  // Writes the entry (temporary file + rename), then evicts down to the size limit.
  Status store(const std::string &Key, const std::vector<uint8_t> &Binary);

  // `dglink cache`: every entry with its state; remove all.
  std::vector<PersistentEntry> list() const;
  Status clear();

  // The file an entry of Key lives in.
  std::string pathOf(const std::string &Key) const;

private:
  void evict();
  PersistentCacheSettings Settings;
  std::mutex EvictionMutex;
};

// Reads and checks an entry file. Empty Why: good (Key and Binary filled).
void readEntry(const std::string &Path, std::string &Key, std::vector<uint8_t> &Binary,
               std::string &Why);

} // namespace dglink::runtime::detail
