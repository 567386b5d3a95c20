// dglink::runtime::Runtime: registration, link planning and the program cache over
// one PI function table (the dispatch layer's, or a layer around it).
#include "link_plan.h"
#include "persistent_cache.h"
#include "program_builder.h"
#include "program_cache.h"
#include "registry.h"

#include <dglink/runtime.h>
#include <dglink/support/error.h>
#include <dglink/support/log.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <new>
#include <optional>
#include <unordered_map>

namespace dglink::runtime {

namespace detail {
struct Access {
  static Program program(std::shared_ptr<const BuiltProgram> Built) {
    return Program(std::move(Built));
  }
  static Kernel kernel(Program Owner, pi_kernel Handle, pi_result (*Release)(pi_kernel)) {
    return Kernel(std::move(Owner), Handle, Release);
  }
};
} // namespace detail

namespace {

pi_plugin_functions dispatchTable() {
  pi_plugin_functions Table{};
#define DGLINK_RUNTIME_TABLE_ENTRY(Name, Ret, Params) Table.Name = &::Name;
  PI_ENTRY_POINTS(DGLINK_RUNTIME_TABLE_ENTRY)
#undef DGLINK_RUNTIME_TABLE_ENTRY
  return Table;
}

// No exception leaves the API: it becomes a Status.
template <typename Body> auto guarded(const char *Function, Body &&Run) -> decltype(Run()) {
  try {
    return Run();
  } catch (const std::bad_alloc &) {
    return Status{PI_ERROR_OUT_OF_HOST_MEMORY, std::string(Function) + ": out of host memory"};
  } catch (const std::exception &Exception) {
    return Status{PI_ERROR_UNKNOWN, std::string(Function) + ": " + Exception.what()};
  } catch (...) {
    return Status{PI_ERROR_UNKNOWN, std::string(Function) + ": unknown exception"};
  }
}

std::string baseName(const std::string &Path) {
  const size_t Slash = Path.find_last_of('/');
  return Slash == std::string::npos ? Path : Path.substr(Slash + 1);
}

} // namespace

struct Runtime::Impl {
  Impl(const pi_plugin_functions &Functions, PersistentCacheSettings Settings)
      : Table(Functions), Persistent(std::move(Settings)) {}

  pi_plugin_functions Table;
  detail::PersistentCache Persistent;
  detail::ImageRegistry Registry;
  detail::ProgramCache Cache;
  std::mutex TraitsMutex;
  std::unordered_map<pi_device, std::shared_ptr<const detail::DeviceTraits>> Traits;
  std::atomic<uint64_t> Hits{0}, Builds{0}, Links{0}, Waits{0}, Failures{0};
  std::atomic<uint64_t> PersistentHits{0}, PersistentStores{0}, PersistentRejected{0};

  // A device's traits, queried once.
  Expected<std::shared_ptr<const detail::DeviceTraits>> traits(pi_device Device) {
    {
      std::lock_guard<std::mutex> Lock(TraitsMutex);
      auto It = Traits.find(Device);
      if (It != Traits.end())
        return It->second;
    }
    Expected<detail::DeviceTraits> Queried = detail::queryDeviceTraits(Table, Device);
    if (!Queried)
      return Queried.status();
    auto Shared = std::make_shared<const detail::DeviceTraits>(std::move(*Queried));
    std::lock_guard<std::mutex> Lock(TraitsMutex);
    return Traits.emplace(Device, std::move(Shared)).first->second;
  }

  Expected<ModuleId> add(std::shared_ptr<detail::Module> Module) {
    return Registry.add(std::move(Module));
  }

  // Builds Kernel's images for Request as the owner of Pending.
  Expected<std::shared_ptr<const detail::BuiltProgram>>
  build(const ProgramRequest &Request, const detail::RegistrySnapshot &Snapshot,
        const detail::DeviceTraits &DeviceTraits) {
    Expected<detail::CollectedImages> Collected =
        detail::collectImages(Snapshot, DeviceTraits, Request.Kernel, Request.Module);
    if (!Collected)
      return Collected.status();
    // The persistent cache. A program of lowered images is loaded with their storage
    // layout and the kernels that take it (buildFromBinary).
    const bool Persist = Persistent.enabled();
    std::string Key;
    Expected<detail::BuiltHandle> Handle = Status{PI_ERROR_UNKNOWN, "not built"};
    bool Loaded = false;
    if (Persist) {
      Key = detail::persistentKey(DeviceTraits, Request.Options, Request.SpecConstants,
                                  Collected->Images);
      std::string Why;
      std::optional<std::vector<uint8_t>> Binary = Persistent.load(Key, Why);
      if (!Why.empty()) {
        ++PersistentRejected;
        logger().info("persistent cache: entry for kernel '{}' rejected and rebuilt: {}",
                      Request.Kernel, Why);
      }
      if (Binary) {
        Handle = detail::buildFromBinary(Table, Request.Context, Request.Device, *Binary,
                                         *Collected, Request.Options);
        Loaded = Handle.ok();
        if (Loaded) {
          ++PersistentHits;
        } else {
          // The driver refused what it once gave: never trusted again.
          ++PersistentRejected;
          logger().info("persistent cache: the driver refused the entry for kernel '{}': {}",
                        Request.Kernel, Handle.status().Message);
          std::error_code Ignored;
          std::filesystem::remove(Persistent.pathOf(Key), Ignored);
        }
      }
    }
    if (!Loaded) {
      Handle =
          detail::buildProgram(Table, Request.Context, Request.Device, *Collected, Request.Options);
      if (Handle && Persist) {
        const std::vector<uint8_t> Binary = detail::programBinary(Table, Handle->Program);
        if (!Binary.empty() && Persistent.store(Key, Binary).ok())
          ++PersistentStores;
      }
    }
    if (!Handle)
      return Handle.status();
    auto Built = std::make_shared<detail::BuiltProgram>();
    Built->Handle = Handle->Program;
    Built->Release = Table.piProgramRelease;
    Built->Linked = Handle->Linked;
    for (const detail::RegisteredImage *Image : Collected->Images) {
      Built->Images.push_back(Image->Info);
      Built->Kernels.insert(Built->Kernels.end(), Image->Info.Entries.begin(),
                            Image->Info.Entries.end());
      if (!Built->uses(Image->Info.Module))
        for (const auto &M : Snapshot.Modules)
          if (M->Id == Image->Info.Module)
            Built->Modules.push_back(M);
    }
    if (!Loaded)
      ++Builds;
    if (Built->Linked)
      ++Links;
    return std::shared_ptr<const detail::BuiltProgram>(std::move(Built));
  }

  Expected<Program> getOrBuild(const ProgramRequest &Request) {
    if (Request.Context == nullptr || Request.Device == nullptr || Request.Kernel.empty())
      return Status{PI_ERROR_INVALID_VALUE,
                    std::string("getOrBuildProgram: ") +
                        (Request.Context == nullptr  ? "the context is null"
                         : Request.Device == nullptr ? "the device is null"
                                                     : "the kernel name is empty")};
    std::shared_ptr<const detail::RegistrySnapshot> Snapshot = Registry.snapshot();
    Expected<std::shared_ptr<const detail::DeviceTraits>> DeviceTraits = traits(Request.Device);
    if (!DeviceTraits)
      return DeviceTraits.status();
    detail::ProgramKey Key{Request.Context, Request.Module, Request.SpecConstants, Request.Options,
                           Request.Device};
    if (Request.Module != 0) {
      if (Snapshot->find(Request.Module) == nullptr)
        return Status{PI_ERROR_INVALID_VALUE, "getOrBuildProgram: module " +
                                                  std::to_string(Request.Module) +
                                                  " is not registered"};
    } else {
      // The module of the request: the first that has the kernel for this device.
      Expected<detail::KernelImage> Holder =
          detail::findKernelImage(*Snapshot, **DeviceTraits, Request.Kernel, 0);
      if (!Holder)
        return Holder.status();
      Key.Module = Holder->Image->Info.Module;
    }
    detail::ProgramCache::Lookup Found = Cache.acquire(Request.Kernel, Key);
    if (Found.Program != nullptr) {
      ++Hits;
      return detail::Access::program(std::move(Found.Program));
    }
    if (!Found.Owner) {
      ++Waits;
      Expected<std::shared_ptr<const detail::BuiltProgram>> Waited = Found.Pending->wait();
      if (!Waited)
        return Waited.status();
      return detail::Access::program(std::move(*Waited));
    }
    // This thread builds; whatever happens, the waiters must hear of it.
    Expected<std::shared_ptr<const detail::BuiltProgram>> Built =
        guarded("getOrBuildProgram", [&] { return build(Request, *Snapshot, **DeviceTraits); });
    if (!Built)
      ++Failures;
    Cache.complete(Request.Kernel, Key, Found.Pending, Built ? *Built : nullptr, Built.status());
    if (!Built)
      return Built.status();
    return detail::Access::program(std::move(*Built));
  }
};

// ---- Program, Kernel ----

pi_program Program::get() const { return Built == nullptr ? nullptr : Built->Handle; }

const std::vector<ImageInfo> &Program::images() const {
  static const std::vector<ImageInfo> None;
  return Built == nullptr ? None : Built->Images;
}

std::vector<ModuleId> Program::modules() const {
  std::vector<ModuleId> Ids;
  if (Built != nullptr)
    for (const auto &M : Built->Modules)
      Ids.push_back(M->Id);
  return Ids;
}

Kernel::Kernel(Kernel &&Other) noexcept
    : Owner(std::move(Other.Owner)), Handle(std::exchange(Other.Handle, nullptr)),
      Release(Other.Release) {}

Kernel &Kernel::operator=(Kernel &&Other) noexcept {
  if (this != &Other) {
    reset();
    Owner = std::move(Other.Owner);
    Handle = std::exchange(Other.Handle, nullptr);
    Release = Other.Release;
  }
  return *this;
}

Kernel::~Kernel() { reset(); }

void Kernel::reset() {
  if (Handle != nullptr && Release != nullptr)
    Release(std::exchange(Handle, nullptr));
  Owner = Program();
}

// ---- Runtime ----

Runtime::Runtime() : Runtime(dispatchTable(), PersistentCacheSettings::fromEnvironment()) {}

Runtime::Runtime(const pi_plugin_functions &Table, PersistentCacheSettings Persistent)
    : Self(std::make_unique<Impl>(Table, std::move(Persistent))) {}

Runtime::~Runtime() {
  // Programs still held by a Program or Kernel are released when those go.
  Self->Cache.clear();
}

Expected<ModuleId> Runtime::registerBundleFile(const std::string &Path) {
  return guarded("registerBundleFile", [&]() -> Expected<ModuleId> {
    Bundle Input;
    if (readBundleFile(Path, Input) != PI_SUCCESS)
      return Status{lastErrorCode(), lastErrorMessage()};
    return Self->add(detail::moduleFromBundle(Input, baseName(Path)));
  });
}

Expected<ModuleId> Runtime::registerBundle(const void *Data, size_t Size, const std::string &Name) {
  return guarded("registerBundle", [&]() -> Expected<ModuleId> {
    if (Data == nullptr)
      return Status{PI_ERROR_INVALID_VALUE, "registerBundle: " + Name + ": the data is null"};
    Bundle Input;
    if (readBundle(static_cast<const uint8_t *>(Data), Size, Input) != PI_SUCCESS)
      return Status{lastErrorCode(), Name + ": " + lastErrorMessage()};
    return Self->add(detail::moduleFromBundle(Input, Name));
  });
}

Expected<ModuleId> Runtime::registerDeviceBinaries(pi_device_binaries Binaries,
                                                   const std::string &Name) {
  return guarded("registerDeviceBinaries", [&]() -> Expected<ModuleId> {
    Expected<std::shared_ptr<detail::Module>> Module = detail::moduleFromBinaries(Binaries, Name);
    if (!Module)
      return Module.status();
    return Self->add(std::move(*Module));
  });
}

Status Runtime::unregisterModule(ModuleId Module) {
  return guarded("unregisterModule", [&]() -> Status {
    std::shared_ptr<const detail::Module> Removed = Self->Registry.remove(Module);
    if (Removed == nullptr)
      return {PI_ERROR_INVALID_VALUE,
              "unregisterModule: module " + std::to_string(Module) + " is not registered"};
    // Released here, outside the cache's lock, unless a Program or Kernel still holds one.
    Self->Cache.forgetModule(Module);
    return {};
  });
}

void Runtime::forgetContext(pi_context Context) {
  try {
    Self->Cache.forgetContext(Context); // released here unless still held elsewhere
  } catch (...) { // NOLINT(bugprone-empty-catch): out of memory while collecting: nothing dropped
  }
}

std::vector<ImageInfo> Runtime::images() const {
  std::vector<ImageInfo> All;
  try {
    for (const auto &M : Self->Registry.snapshot()->Modules)
      for (const detail::RegisteredImage &Image : M->Images)
        All.push_back(Image.Info);
  } catch (...) {
    All.clear();
  }
  return All;
}

Expected<LinkPlan> Runtime::planLink(pi_device Device, const std::string &Kernel,
                                     ModuleId Module) const {
  return guarded("planLink", [&]() -> Expected<LinkPlan> {
    if (Device == nullptr)
      return Status{PI_ERROR_INVALID_VALUE, "planLink: the device is null"};
    Expected<std::shared_ptr<const detail::DeviceTraits>> Traits = Self->traits(Device);
    if (!Traits)
      return Traits.status();
    std::shared_ptr<const detail::RegistrySnapshot> Snapshot = Self->Registry.snapshot();
    Expected<detail::CollectedImages> Collected =
        detail::collectImages(*Snapshot, **Traits, Kernel, Module);
    if (!Collected)
      return Collected.status();
    LinkPlan Plan;
    Plan.LinkFormat = Collected->LinkFormat;
    for (const detail::RegisteredImage *Image : Collected->Images)
      Plan.Images.push_back(Image->Info);
    return Plan;
  });
}

Expected<Program> Runtime::getOrBuildProgram(const ProgramRequest &Request) {
  return guarded("getOrBuildProgram", [&] { return Self->getOrBuild(Request); });
}

Expected<Kernel> Runtime::createKernel(const ProgramRequest &Request) {
  return guarded("createKernel", [&]() -> Expected<Kernel> {
    Expected<Program> Built = Self->getOrBuild(Request);
    if (!Built)
      return Built.status();
    pi_kernel Handle = nullptr;
    if (const pi_result Result =
            Self->Table.piKernelCreate(Built->get(), Request.Kernel.c_str(), &Handle);
        Result != PI_SUCCESS) {
      char *Message = nullptr;
      Self->Table.piPluginGetLastError(&Message);
      return Status{Result, "piKernelCreate of '" + Request.Kernel +
                                "' failed: " + (Message == nullptr ? "" : Message)};
    }
    return detail::Access::kernel(std::move(*Built), Handle, Self->Table.piKernelRelease);
  });
}

CacheStats Runtime::cacheStats() const {
  CacheStats Stats;
  Stats.Hits = Self->Hits.load();
  Stats.Builds = Self->Builds.load();
  Stats.Links = Self->Links.load();
  Stats.Waits = Self->Waits.load();
  Stats.Failures = Self->Failures.load();
  Stats.PersistentHits = Self->PersistentHits.load();
  Stats.PersistentStores = Self->PersistentStores.load();
  Stats.PersistentRejected = Self->PersistentRejected.load();
  Stats.Programs = Self->Cache.programCount();
  return Stats;
}

} // namespace dglink::runtime
