// The image registry: the registered modules (bundles), each image indexed by its
// target, format, entries, exports, imports and device globals, published as
// immutable snapshots so that lookups never wait for a registration.
#pragma once

#include <dglink/compiler/bundle.h>
#include <dglink/runtime.h>
#include <dglink/support/image.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace dglink::runtime::detail {

struct RegisteredImage {
  ImageInfo Info;
  const _pi_device_binary_struct *Binary = nullptr;
  // The image's defined symbols (entries and exports), sorted and joined: the order of
  // images in a persistent-cache key (the seed sorts images by their defined symbols).
  std::string DefinedSymbols;
  // Its "SYCL/device globals": size of the device instance, scope, host access.
  std::map<std::string, DeviceGlobalInfo> Globals;
};

// One registered bundle. Immutable once registered, except for the flag that says it
// still is; programs built from it hold it so that their images outlive the registry.
struct Module {
  ModuleId Id = 0;
  std::string Name;
  std::unique_ptr<DeviceBinaries> Owned; // null when the images are borrowed
  std::vector<RegisteredImage> Images;
  mutable std::atomic<bool> Registered{true};
};

// Every registered module at one moment, with the indexes lookups use. Images are
// listed in registration order (module by module, image by image): that order is
// "first match wins".
struct RegistrySnapshot {
  std::vector<std::shared_ptr<const Module>> Modules;
  std::unordered_map<std::string, std::vector<const RegisteredImage *>> ByEntry;
  std::unordered_map<std::string, std::vector<const RegisteredImage *>> ByExport;
  // Virtual-function set -> the images that provide it (real and dummy), and the
  // kernel images that use it.
  std::unordered_map<std::string, std::vector<const RegisteredImage *>> BySet;
  std::unordered_map<std::string, std::vector<const RegisteredImage *>> ByUsedSet;
  const Module *find(ModuleId Id) const;
};

class ImageRegistry {
public:
  ImageRegistry();
  // Gives Image its id and publishes it.
  ModuleId add(std::shared_ptr<Module> Image);
  // Unpublishes Id and returns it, or null if it is not registered.
  std::shared_ptr<const Module> remove(ModuleId Id);
  std::shared_ptr<const RegistrySnapshot> snapshot() const;

private:
  void publish(std::vector<std::shared_ptr<const Module>> Modules);
  std::mutex WriterMutex;   // one registration or unregistration at a time
  mutable std::mutex Mutex; // guards Current
  std::shared_ptr<const RegistrySnapshot> Current;
  ModuleId NextId = 1;
};

// A module from a bundle the reader accepted (the module owns a copy of its bytes);
// PI_ERROR_INVALID_BINARY for malformed virtual-function or aspect properties.
Expected<std::shared_ptr<Module>> moduleFromBundle(const Bundle &Input, const std::string &Name);
// A module over images in DPC++'s layout, borrowed; every image is validated first.
Expected<std::shared_ptr<Module>> moduleFromBinaries(pi_device_binaries Binaries,
                                                     const std::string &Name);

// The link-format name (PI_EXT_DEVICE_INFO_LINK_FORMATS) of an image's target and format.
std::string linkFormatOf(const std::string &Target, pi_device_binary_format Format);

} // namespace dglink::runtime::detail
