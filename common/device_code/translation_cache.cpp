// The process's translations, kept once per module and target (translation_cache.h).
#include <dglink/device_code/translation_cache.h>

#include <cstring>
#include <iterator>
#include <string_view>

namespace dglink::device_code {

size_t TranslationCache::hashOf(const void *Input, size_t Size, DeviceCode To) {
  const size_t Hashed =
      std::hash<std::string_view>{}(std::string_view(static_cast<const char *>(Input), Size));
  return Hashed ^ (static_cast<size_t>(To) * 0x9E3779B97F4A7C15ull);
}

TranslationCache::Order::iterator TranslationCache::lookup(size_t Hash, const void *Input,
                                                           size_t Size, DeviceCode To) {
  auto [First, Last] = ByHash.equal_range(Hash);
  for (auto It = First; It != Last; ++It) {
    const Entry &Candidate = *It->second;
    if (Candidate.To == To && Candidate.Input.size() == Size &&
        std::memcmp(Candidate.Input.data(), Input, Size) == 0)
      return It->second;
  }
  return Recent.end();
}

Bytes TranslationCache::find(const void *Input, size_t Size, DeviceCode To) {
  const size_t Hash = hashOf(Input, Size, To);
  std::lock_guard<std::mutex> Lock(Mutex);
  const auto It = lookup(Hash, Input, Size, To);
  if (It == Recent.end()) {
    ++Misses;
    return nullptr;
  }
  ++Hits;
  Recent.splice(Recent.begin(), Recent, It);
  return It->Output;
}

void TranslationCache::insert(const void *Input, size_t Size, DeviceCode To, Bytes Output) {
  if (Output == nullptr || Size + Output->size() > Bound.Bytes || Bound.Entries == 0)
    return;
  const size_t Hash = hashOf(Input, Size, To);
  const auto *Begin = static_cast<const uint8_t *>(Input);
  std::lock_guard<std::mutex> Lock(Mutex);
  if (const auto Old = lookup(Hash, Input, Size, To); Old != Recent.end()) {
    HeldBytes -= Old->cost();
    Old->Output = std::move(Output);
    HeldBytes += Old->cost();
    Recent.splice(Recent.begin(), Recent, Old);
  } else {
    Recent.push_front(
        Entry{Hash, To, std::vector<uint8_t>(Begin, Begin + Size), std::move(Output)});
    ByHash.emplace(Hash, Recent.begin());
    HeldBytes += Recent.front().cost();
  }
  evictBeyond(Bound.Entries, Bound.Bytes);
}

void TranslationCache::evictBeyond(size_t Entries, size_t MaxBytes) {
  while (!Recent.empty() && (Recent.size() > Entries || HeldBytes > MaxBytes)) {
    const auto Oldest = std::prev(Recent.end());
    auto [First, Last] = ByHash.equal_range(Oldest->Hash);
    for (auto It = First; It != Last; ++It)
      if (It->second == Oldest) {
        ByHash.erase(It);
        break;
      }
    HeldBytes -= Oldest->cost();
    Recent.erase(Oldest);
    ++Evictions;
  }
}

TranslationCache::Counters TranslationCache::counters() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return {Recent.size(), HeldBytes, Hits, Misses, Evictions};
}

void TranslationCache::clear() {
  std::lock_guard<std::mutex> Lock(Mutex);
  Recent.clear();
  ByHash.clear();
  HeldBytes = 0;
}

} // namespace dglink::device_code
