// What every adapter that looks device globals up in its driver shares: the mapping
// from a variable's unique id to the module symbol, the checks against what the image
// declares, and the per-program cache of lookups (the first access asks the driver,
// later ones do not).
#pragma once

#include <dglink/support/api.h>
#include <dglink/support/image.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

namespace dglink {

// The property set mapping a device global's unique id to its symbol in the module
// (STRING values). Without an entry the unique id is the symbol name.
inline constexpr const char *DeviceGlobalSymbolsSet = "SYCL/device global symbols";

// The module symbol of the device global Name (its unique id), from the image's
// symbol set or, for flat metadata, "<set>/<id>" in the program-metadata set.
DGLINK_SUPPORT_API std::string deviceGlobalSymbol(const ImageMetadata &Metadata, const char *Name);

// Where the image lists its device globals, a name it does not list is not one
// (a kernel's helper variable is not the caller's to write): PI_ERROR_INVALID_VALUE
// naming the variable and Program. Images without the list accept any name.
DGLINK_SUPPORT_API pi_result checkDeclaredDeviceGlobal(const char *Function,
                                                       const ImageMetadata &Metadata,
                                                       const char *Name, const void *Program);

// The bound and host access of a variable the driver found with ModuleBytes bytes:
// the smaller of the declared and the real size, the declared access (read_write
// where the image says nothing). A disagreement on the size is logged.
DGLINK_SUPPORT_API void applyDeclaredDeviceGlobal(const ImageMetadata &Metadata, const char *Name,
                                                  size_t ModuleBytes, size_t &Size,
                                                  HostAccess &Access);

// The pointer checks of piextEnqueueDeviceGlobalVariableRead/Write: a null Name or host
// pointer (called HostPointerName in the message) is PI_ERROR_INVALID_VALUE.
DGLINK_SUPPORT_API pi_result checkDeviceGlobalPointers(const char *Function, const char *Name,
                                                       const void *HostPointer,
                                                       const char *HostPointerName);

// PI_ERROR_INVALID_VALUE for a variable the driver did not find in Program's module,
// naming the module symbol too where it differs from Name.
DGLINK_SUPPORT_API pi_result missingDeviceGlobal(const char *Function, const char *Name,
                                                 const std::string &Symbol, const void *Program);

// PI_ERROR_INVALID_OPERATION where Access forbids the copy, naming variable and mode.
DGLINK_SUPPORT_API pi_result checkHostAccess(const char *Function, const char *Name,
                                             HostAccess Access, bool IsWrite);

// One looked-up variable; DeviceAddress is the backend's device address type.
template <typename DeviceAddress> struct DeviceGlobalEntry {
  std::string Name;             // as callers name it (the unique id)
  std::string Symbol;           // the module symbol it was found under
  const void *Device = nullptr; // where a program has several devices
  DeviceAddress Address{};
  size_t Size = 0;
  HostAccess Access = HostAccess::ReadWrite;
  const DeviceGlobalEntry *Next = nullptr;
};

// Readers walk an append-only list without taking a lock (a warm access is a few
// string compares); the first lookup of a name takes the mutex so that the driver is
// asked once per program and name. The caller's name pointer is not trusted: a caller
// may reuse a buffer for another name.
template <typename DeviceAddress> class DeviceGlobalCache {
public:
  using Entry = DeviceGlobalEntry<DeviceAddress>;

  DeviceGlobalCache() = default;
  DeviceGlobalCache(const DeviceGlobalCache &) = delete;
  DeviceGlobalCache &operator=(const DeviceGlobalCache &) = delete;
  ~DeviceGlobalCache() {
    const Entry *Current = Head.load(std::memory_order_acquire);
    while (Current != nullptr) {
      const Entry *Next = Current->Next;
      delete Current;
      Current = Next;
    }
  }

  const Entry *find(const char *Name, const void *Device = nullptr) const {
    for (const Entry *Current = Head.load(std::memory_order_acquire); Current != nullptr;
         Current = Current->Next)
      if (Current->Device == Device && Current->Name == Name)
        return Current;
    return nullptr;
  }

  // Publishes NewEntry; call with insertMutex() held.
  const Entry *insert(std::unique_ptr<Entry> NewEntry) {
    NewEntry->Next = Head.load(std::memory_order_relaxed);
    const Entry *Published = NewEntry.release();
    Head.store(Published, std::memory_order_release);
    return Published;
  }

  std::mutex &insertMutex() { return Mutex; }

private:
  std::atomic<const Entry *> Head{nullptr};
  std::mutex Mutex;
};

} // namespace dglink
