// The per-program cache of device-global lookups: name -> address, size and
// host access, filled by zeModuleGetGlobalPointer on a name's first access.
#pragma once

#include <dglink/support/image.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

namespace dglink::level_zero {

// The property set mapping a device global's unique id to its symbol in the
// module (STRING values). Without it the unique id is the symbol name.
inline constexpr const char *DeviceGlobalSymbolsSet = "SYCL/device global symbols";

struct DeviceGlobalEntry {
  std::string Name; // as callers name it (the unique id)
  void *Address = nullptr;
  size_t Size = 0;
  HostAccess Access = HostAccess::ReadWrite;
  const DeviceGlobalEntry *Next = nullptr;
};

// Readers walk an append-only list without a lock; the first lookup of a
// name takes the mutex so that the driver is asked once per program and name.
class DeviceGlobalCache {
public:
  DeviceGlobalCache() = default;
  DeviceGlobalCache(const DeviceGlobalCache &) = delete;
  DeviceGlobalCache &operator=(const DeviceGlobalCache &) = delete;
  ~DeviceGlobalCache();

  const DeviceGlobalEntry *find(const char *Name) const {
    for (const DeviceGlobalEntry *Entry = Head.load(std::memory_order_acquire); Entry != nullptr;
         Entry = Entry->Next)
      if (Entry->Name == Name)
        return Entry;
    return nullptr;
  }
  // Publishes Entry; call with insertMutex() held.
  const DeviceGlobalEntry *insert(std::unique_ptr<DeviceGlobalEntry> Entry) {
    Entry->Next = Head.load(std::memory_order_relaxed);
    const DeviceGlobalEntry *Published = Entry.release();
    Head.store(Published, std::memory_order_release);
    return Published;
  }
  std::mutex &insertMutex() { return Mutex; }

private:
  std::atomic<const DeviceGlobalEntry *> Head{nullptr};
  std::mutex Mutex;
};

} // namespace dglink::level_zero
