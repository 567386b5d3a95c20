// The device-global database of the device-global design (shared/seeds/
// device-global-design.md, "Changes to the DPC++ runtime"): every variable the
// application added (host address, unique id, size of its value, device_image_scope),
// and for each shared one (no device_image_scope) its zero-filled USM buffer per
// context and device, allocated on first use. The runtime writes that buffer's address
// into the variable's usmptr in every program that contains it (patch), so all
// programs on a device share one value; copies by host address go to the buffer, or,
// for image-scope variables, to the one program that holds the variable.
#pragma once

#include "link_plan.h"
#include "program_cache.h"

#include <dglink/runtime.h>

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace dglink::runtime::detail {

struct DeviceGlobalRecord {
  const void *HostAddress = nullptr;
  std::string UniqueId;
  size_t Size = 0; // of the value (sizeof(T)), what every copy is checked against
  bool ImageScope = false;
  ModuleId Owner = 0; // unregistering it removes the variable; 0: the runtime's lifetime

  // Shared variables: the USM buffer per context and device.
  struct Instance {
    pi_context Context = nullptr;
    pi_device Device = nullptr;
    void *Usm = nullptr;
  };
  mutable std::shared_mutex InstancesMutex; // readers: copies; writer: first use, freeing
  std::vector<Instance> Instances;
  std::mutex AllocationMutex; // one allocation per context and device

  // Image-scope variables: the program found to hold it, valid while the program
  // cache's generation stays the same.
  struct Holder {
    pi_context Context = nullptr;
    pi_device Device = nullptr;
    uint64_t Generation = 0;
    std::weak_ptr<const BuiltProgram> Program;
  };
  std::mutex HoldersMutex;
  std::vector<Holder> Holders;
};

// A host address as messages print it ("0x7ffd...").
std::string hostAddressText(const void *Pointer);

class DeviceGlobalDatabase {
public:
  explicit DeviceGlobalDatabase(const pi_plugin_functions &Functions) : Table(Functions) {}
  DeviceGlobalDatabase(const DeviceGlobalDatabase &) = delete;
  DeviceGlobalDatabase &operator=(const DeviceGlobalDatabase &) = delete;
  ~DeviceGlobalDatabase(); // frees every USM buffer and releases its queues

  // PI_ERROR_INVALID_VALUE for a null address, an empty id, size 0, or an address or id
  // that is taken (naming both variables).
  Expected<std::shared_ptr<DeviceGlobalRecord>> add(const void *HostAddress,
                                                    const std::string &UniqueId, size_t Size,
                                                    bool ImageScope, ModuleId Owner);
  std::shared_ptr<DeviceGlobalRecord> find(const void *HostAddress) const;
  std::shared_ptr<DeviceGlobalRecord> findId(const std::string &UniqueId) const;

  // The shared variable's USM buffer on Device in Context: allocated (zero-filled) on
  // first use. PI_ERROR_INVALID_OPERATION where the device has no USM.
  Expected<void *> instance(DeviceGlobalRecord &Record, pi_context Context, pi_device Device,
                            const DeviceTraits &Traits);

  // Writes the USM address of every shared variable the database knows into Program's
  // usmptr (only OnlyId's where it is not empty), after checking that the program's
  // device instance is a pointer and the scopes agree. Callers hold patchLock() shared.
  Status patch(const BuiltProgram &Program, const DeviceTraits &Traits,
               const std::string &OnlyId = "");

  // Removes one variable and frees its buffers.
  void remove(const std::shared_ptr<DeviceGlobalRecord> &Record);
  size_t size() const;
  // Removes the variables Owner added, frees their buffers; returns their unique ids.
  std::vector<std::string> removeOwnedBy(ModuleId Owner);
  // Frees the buffers and the queue of Context.
  void forgetContext(pi_context Context);

  // Builds (patch + entering the cache) take it shared; adding a variable exclusive, so
  // that a new variable either finds a program in the cache or the build sees it.
  std::shared_mutex &patchLock() { return PatchMutex; }

  uint64_t allocations() const { return Allocations.load(); }
  uint64_t frees() const { return Frees.load(); }
  uint64_t patches() const { return Patches.load(); }

private:
  Expected<pi_queue> queue(pi_context Context, pi_device Device);
  void freeInstances(DeviceGlobalRecord &Record, pi_context OnlyContext);
  std::string lastError() const;

  const pi_plugin_functions &Table;
  mutable std::shared_mutex Mutex; // guards ByHost, ById
  std::unordered_map<const void *, std::shared_ptr<DeviceGlobalRecord>> ByHost;
  std::unordered_map<std::string, std::shared_ptr<DeviceGlobalRecord>> ById;
  std::shared_mutex PatchMutex;
  std::mutex QueuesMutex;
  std::map<std::pair<pi_context, pi_device>, pi_queue> Queues; // the runtime's own
  std::atomic<uint64_t> Allocations{0}, Frees{0}, Patches{0};
};

} // namespace dglink::runtime::detail
