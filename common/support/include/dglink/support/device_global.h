// What every adapter that looks device globals up in its driver shares: the mapping
// from a variable's unique id to the module symbol, the checks against what the image
// declares, and the per-program cache of lookups (the first access asks the driver,
// later ones do not).
#pragma once

#include <dglink/support/api.h>
#include <dglink/support/image.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace dglink {

// The property set mapping a device global's unique id to its symbol in the module
// (STRING values). Without an entry the unique id is the symbol name.
inline constexpr const char *DeviceGlobalSymbolsSet = "SYCL/device global symbols";

// The module symbol of the device global Name (its unique id): UR's
// "<id>@global_id_mapping" program metadata where the image has it (as UR's CUDA and
// HIP adapters resolve it), else the image's symbol set or, for flat metadata,
// "<set>/<id>" in the program-metadata set; else Name itself.
DGLINK_SUPPORT_API std::string deviceGlobalSymbol(const ImageMetadata &Metadata, const char *Name);

// Where the image lists its device globals, a name it does not list is not one
// (a kernel's helper variable is not the caller's to write): PI_ERROR_INVALID_VALUE
// naming the variable and Program. Images without the list accept any name.
DGLINK_SUPPORT_API pi_result checkDeclaredDeviceGlobal(const char *Function,
                                                       const ImageMetadata &Metadata,
                                                       const char *Name, const void *Program);

// The bound and host access of a variable the driver found with ModuleBytes bytes:
// the smaller of the declared and the real size, the declared access (read_write
// where the image says nothing). A disagreement on the size is logged, except for a
// variable without device_image_scope whose instance is a pointer (usmptr: the declared
// size is the value's), bound by its instance.
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

// Readers probe an open-addressing hash table without taking a lock, so a warm access
// costs one hash and one compare however many variables the program has; the first
// lookup of a name takes the mutex so that the driver is asked once per program and
// name. A table that fills up is replaced by one twice its size and kept until the
// cache goes (readers may still be probing it): tables take at most twice what the
// last one does. The caller's name pointer is not trusted: a caller may reuse a buffer
// for another name.
template <typename DeviceAddress> class DeviceGlobalCache {
public:
  using Entry = DeviceGlobalEntry<DeviceAddress>;

  DeviceGlobalCache() = default;
  DeviceGlobalCache(const DeviceGlobalCache &) = delete;
  DeviceGlobalCache &operator=(const DeviceGlobalCache &) = delete;
  ~DeviceGlobalCache() {
    const Entry *Current = Head;
    while (Current != nullptr) {
      const Entry *Next = Current->Next;
      delete Current;
      Current = Next;
    }
  }

  const Entry *find(const char *Name, const void *Device = nullptr) const {
    const Table *Slots = Published.load(std::memory_order_acquire);
    if (Slots == nullptr)
      return nullptr;
    for (size_t I = hashOf(Name, Device) & Slots->Mask;; I = (I + 1) & Slots->Mask) {
      const Entry *Current = Slots->Slots[I].load(std::memory_order_acquire);
      if (Current == nullptr)
        return nullptr;
      if (Current->Device == Device && Current->Name == Name)
        return Current;
    }
  }

  // Publishes NewEntry; call with insertMutex() held.
  const Entry *insert(std::unique_ptr<Entry> NewEntry) {
    NewEntry->Next = Head;
    const Entry *Added = NewEntry.release();
    Head = Added;
    ++Count;
    Table *Slots = Tables.empty() ? nullptr : Tables.back().get();
    if (Slots == nullptr || Count * 2 > Slots->Mask + 1) {
      // Grow: a fresh table with every entry, published whole.
      size_t Capacity = 16;
      while (Capacity < Count * 4)
        Capacity *= 2;
      auto Grown = std::make_unique<Table>(Capacity);
      for (const Entry *E = Head; E != nullptr; E = E->Next)
        place(*Grown, E);
      Tables.push_back(std::move(Grown));
      Published.store(Tables.back().get(), std::memory_order_release);
    } else {
      place(*Slots, Added);
    }
    return Added;
  }

  // Entries cached.
  size_t size() const { return Count; }
  // Heap bytes the cache holds: entries, their strings, every table.
  size_t memoryBytes() const {
    size_t Bytes = 0;
    auto OnHeap = [](const std::string &Text) {
      const auto *Inside = reinterpret_cast<const char *>(&Text);
      return Text.data() < Inside || Text.data() >= Inside + sizeof(Text);
    };
    for (const Entry *E = Head; E != nullptr; E = E->Next) {
      Bytes += sizeof(Entry);
      if (OnHeap(E->Name))
        Bytes += E->Name.capacity() + 1;
      if (OnHeap(E->Symbol))
        Bytes += E->Symbol.capacity() + 1;
    }
    for (const auto &Slots : Tables)
      Bytes += sizeof(Table) + (Slots->Mask + 1) * sizeof(std::atomic<const Entry *>);
    return Bytes;
  }

  std::mutex &insertMutex() { return Mutex; }

private:
  struct Table {
    explicit Table(size_t Capacity)
        : Mask(Capacity - 1), Slots(new std::atomic<const Entry *>[Capacity]) {
      for (size_t I = 0; I < Capacity; ++I)
        Slots[I].store(nullptr, std::memory_order_relaxed);
    }
    size_t Mask;
    std::unique_ptr<std::atomic<const Entry *>[]> Slots;
  };
  static size_t hashOf(const char *Name, const void *Device) {
    const size_t Hash = std::hash<std::string_view>{}(std::string_view(Name));
    return Hash ^ (reinterpret_cast<uintptr_t>(Device) * 0x9E3779B97F4A7C15ULL >> 7);
  }
  static void place(Table &Slots, const Entry *E) {
    size_t I = hashOf(E->Name.c_str(), E->Device) & Slots.Mask;
    while (Slots.Slots[I].load(std::memory_order_relaxed) != nullptr)
      I = (I + 1) & Slots.Mask;
    Slots.Slots[I].store(E, std::memory_order_release);
  }

  std::atomic<const Table *> Published{nullptr};
  std::vector<std::unique_ptr<Table>> Tables; // the last one is published
  const Entry *Head = nullptr;                // every entry, for the destructor
  size_t Count = 0;
  std::mutex Mutex;
};

} // namespace dglink
