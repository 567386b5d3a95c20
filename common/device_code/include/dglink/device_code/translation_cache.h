// What translations a process has made, kept so that the same module for the same
// target is translated once: keyed by a hash of the input's bytes and the target, the
// bytes compared on a hit (a hash collision is a miss), bounded in entries and bytes,
// the least recently used entry dropped first. Thread-safe.
#pragma once

#include <dglink/support/device_code.h>

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace dglink::device_code {

using Bytes = std::shared_ptr<const std::vector<uint8_t>>;

class TranslationCache {
public:
  struct Limits {
    size_t Entries = 64;
    size_t Bytes = size_t(64) << 20; // inputs and outputs together
  };
  TranslationCache() : TranslationCache(Limits{}) {}
  explicit TranslationCache(Limits TheLimits) : Bound(TheLimits) {}

  // The translation of Input into To made earlier, or null.
  Bytes find(const void *Input, size_t Size, DeviceCode To);
  // Keeps Output as the translation of Input into To (replacing an older one); an
  // entry larger than the byte bound is not kept.
  void insert(const void *Input, size_t Size, DeviceCode To, Bytes Output);

  struct Counters {
    size_t Entries = 0, Bytes = 0, Hits = 0, Misses = 0, Evictions = 0;
  };
  Counters counters() const;
  void clear();

private:
  struct Entry {
    size_t Hash;
    DeviceCode To;
    std::vector<uint8_t> Input;
    Bytes Output;
    size_t cost() const { return Input.size() + Output->size(); }
  };
  using Order = std::list<Entry>; // most recently used first
  static size_t hashOf(const void *Input, size_t Size, DeviceCode To);
  Order::iterator lookup(size_t Hash, const void *Input, size_t Size, DeviceCode To);
  void evictBeyond(size_t Entries, size_t Bytes);

  const Limits Bound;
  mutable std::mutex Mutex; // guards everything below
  Order Recent;
  std::unordered_multimap<size_t, Order::iterator> ByHash;
  size_t HeldBytes = 0;
  size_t Hits = 0, Misses = 0, Evictions = 0;
};

} // namespace dglink::device_code
