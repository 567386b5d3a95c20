// dglink::runtime::Runtime: registration, link planning and the program cache over
// one PI function table (the dispatch layer's, or a layer around it).
#include "device_global_db.h"
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
#include <cstring>
#include <exception>
#include <filesystem>
#include <mutex>
#include <new>
#include <optional>
#include <unordered_map>

namespace dglink::runtime {

namespace detail {
struct Access {
  static Program program(std::shared_ptr<const BuiltProgram> Built) {
    return Program(std::move(Built));
  }
  static const std::shared_ptr<const BuiltProgram> &built(const Program &From) {
    return From.Built;
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
  detail::DeviceGlobalDatabase Globals{Table};
  detail::PersistentCache Persistent;
  detail::ImageRegistry Registry;
  detail::ProgramCache Cache;
  std::mutex TraitsMutex;
  // Held by a build of a kernel whose image uses virtual-function sets (getOrBuild).
  std::mutex SetBuildsMutex;
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

  // Whether the image of Kernel (in Module, 0: any) uses virtual-function sets. Never
  // throws: the caller owns a pending build that must be completed.
  static bool usesVirtualFunctionSets(const detail::RegistrySnapshot &Snapshot,
                                      const detail::DeviceTraits &DeviceTraits,
                                      const std::string &Kernel, ModuleId Module) noexcept {
    try {
      Expected<detail::KernelImage> Holder =
          detail::findKernelImage(Snapshot, DeviceTraits, Kernel, Module);
      return Holder && !Holder->Image->Info.UsesVirtualFunctionSets.empty();
    } catch (...) {
      return false; // the build reports what is wrong
    }
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
    Built->Context = Request.Context;
    Built->Device = Request.Device;
    for (const detail::RegisteredImage *Image : Collected->Images) {
      Built->Globals.insert(Image->Globals.begin(), Image->Globals.end());
      Built->Images.push_back(Image->Info);
      // Kernels needing aspects the device lacks are not entered: a request for one must
      // reach the collection, which refuses it.
      for (const std::string &Entry : Image->Info.Entries)
        if (detail::kernelRunsOn(Image->Info, Entry, DeviceTraits))
          Built->Kernels.push_back(Entry);
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

  Expected<std::shared_ptr<const detail::BuiltProgram>>
  holderOf(detail::DeviceGlobalRecord &Record, pi_context Context, pi_device Device);
  Status copy(const char *Function, pi_queue Queue, const void *HostAddress, void *Data,
              size_t Count, size_t Offset, bool ToDevice);

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
    // Kernels that share virtual-function sets share one program: an object constructed
    // by one kernel holds vtable addresses into its program. So their builds take turns,
    // and one whose kernel a program made meanwhile holds (another kernel's build, which
    // collected this kernel's image too) takes that program instead of making a second.
    std::unique_lock<std::mutex> SharingSets(SetBuildsMutex, std::defer_lock);
    if (usesVirtualFunctionSets(*Snapshot, **DeviceTraits, Request.Kernel, Key.Module)) {
      SharingSets.lock();
      if (std::shared_ptr<const detail::BuiltProgram> Taken = Cache.built(Request.Kernel, Key)) {
        ++Hits;
        Cache.complete(Request.Kernel, Key, Found.Pending, Taken, Status{});
        return detail::Access::program(std::move(Taken));
      }
    }
    // This thread builds; whatever happens, the waiters must hear of it.
    Expected<std::shared_ptr<const detail::BuiltProgram>> Built =
        guarded("getOrBuildProgram", [&] { return build(Request, *Snapshot, **DeviceTraits); });
    {
      // The usmptr of every shared device global the database knows, before anyone gets
      // the program; a variable added meanwhile waits, then finds it in the cache.
      std::shared_lock<std::shared_mutex> Patching(Globals.patchLock());
      if (Built) {
        Status Patched =
            guarded("getOrBuildProgram", [&] { return Globals.patch(**Built, **DeviceTraits); });
        if (!Patched.ok())
          Built = std::move(Patched); // the program goes with the last reference
      }
      if (!Built)
        ++Failures;
      Cache.complete(Request.Kernel, Key, Found.Pending, Built ? *Built : nullptr, Built.status());
    }
    if (!Built)
      return Built.status();
    return detail::Access::program(std::move(*Built));
  }
};

// ---- The device-global database's copies ----

namespace {

std::string named(const detail::DeviceGlobalRecord &Record) {
  return "device global '" + Record.UniqueId + "'";
}

} // namespace

Expected<std::shared_ptr<const detail::BuiltProgram>>
Runtime::Impl::holderOf(detail::DeviceGlobalRecord &Record, pi_context Context, pi_device Device) {
  const uint64_t Generation = Cache.generation();
  {
    std::lock_guard<std::mutex> Lock(Record.HoldersMutex);
    for (const auto &Holder : Record.Holders)
      if (Holder.Context == Context && Holder.Device == Device && Holder.Generation == Generation)
        if (auto Program = Holder.Program.lock())
          return Program;
  }
  Expected<std::shared_ptr<const detail::DeviceTraits>> Queried = traits(Device);
  if (!Queried)
    return Queried.status();
  const detail::DeviceTraits &DeviceTraits = **Queried;
  // Remembers Program once its declaration agrees with what the host added, so that a warm
  // copy checks nothing more.
  auto Remember = [&](const std::shared_ptr<const detail::BuiltProgram> &Program)
      -> Expected<std::shared_ptr<const detail::BuiltProgram>> {
    const DeviceGlobalInfo &Declared = Program->Globals.find(Record.UniqueId)->second;
    if (!Declared.DeviceImageScope || Declared.Size != Record.Size)
      return Status{PI_ERROR_INVALID_OPERATION,
                    named(Record) + " was added as image scope of " + std::to_string(Record.Size) +
                        " bytes, but its program declares " +
                        (Declared.DeviceImageScope ? "image scope" : "no image scope") + " of " +
                        std::to_string(Declared.Size) + " bytes"};
    std::lock_guard<std::mutex> Lock(Record.HoldersMutex);
    Record.Holders.erase(std::remove_if(Record.Holders.begin(), Record.Holders.end(),
                                        [&](const auto &Holder) {
                                          return Holder.Context == Context &&
                                                 Holder.Device == Device;
                                        }),
                         Record.Holders.end());
    Record.Holders.push_back({Context, Device, Generation, Program});
    return Program;
  };
  std::vector<std::shared_ptr<const detail::BuiltProgram>> Holding;
  for (auto &Program : Cache.programsOn(Context, Device))
    if (Program->Globals.count(Record.UniqueId) != 0)
      Holding.push_back(std::move(Program));
  if (Holding.size() > 1) {
    std::string Images;
    for (const auto &Program : Holding)
      for (const ImageInfo &Image : Program->Images)
        if (std::find(Image.DeviceGlobals.begin(), Image.DeviceGlobals.end(), Record.UniqueId) !=
            Image.DeviceGlobals.end())
          Images += (Images.empty() ? "" : ", ") + Image.Name;
    return Status{PI_ERROR_INVALID_OPERATION,
                  named(Record) + " has device_image_scope and is in " +
                      std::to_string(Holding.size()) + " programs on device '" + DeviceTraits.Name +
                      "' (images " + Images +
                      "): a copy by host address cannot choose one (invalid)"};
  }
  if (Holding.size() == 1)
    return Remember(Holding.front());
  // None yet: build the program of the first registered image that has the variable in a
  // format the device takes (through one of its kernels).
  std::shared_ptr<const detail::RegistrySnapshot> Snapshot = Registry.snapshot();
  Status LastFailure;
  bool InSomeImage = false;
  for (const auto &M : Snapshot->Modules)
    for (const detail::RegisteredImage &Image : M->Images) {
      if (Image.Globals.count(Record.UniqueId) == 0)
        continue;
      InSomeImage = true;
      const bool Takes =
          std::find(DeviceTraits.LinkFormats.begin(), DeviceTraits.LinkFormats.end(),
                    Image.Info.LinkFormat) != DeviceTraits.LinkFormats.end() ||
          std::find(DeviceTraits.ImageFormats.begin(), DeviceTraits.ImageFormats.end(),
                    Image.Info.LinkFormat) != DeviceTraits.ImageFormats.end();
      if (!Takes || Image.Info.Entries.empty())
        continue;
      ProgramRequest Request;
      Request.Context = Context;
      Request.Device = Device;
      Request.Kernel = Image.Info.Entries.front();
      Request.Module = M->Id;
      Expected<Program> Built = getOrBuild(Request);
      if (!Built) {
        LastFailure = Built.status();
        continue;
      }
      auto Made = detail::Access::built(*Built);
      if (Made->Globals.count(Record.UniqueId) != 0)
        return Remember(Made);
    }
  if (!InSomeImage)
    return std::shared_ptr<const detail::BuiltProgram>(); // the host instance
  if (!LastFailure.ok())
    return Status{LastFailure.Code, named(Record) +
                                        ": building the program that holds it on "
                                        "device '" +
                                        DeviceTraits.Name + "' failed: " + LastFailure.Message};
  return Status{PI_ERROR_INVALID_OPERATION,
                named(Record) + " is in registered images, but in none that device '" +
                    DeviceTraits.Name + "' takes and that has a kernel to build it by"};
}

Status Runtime::Impl::copy(const char *Function, pi_queue Queue, const void *HostAddress,
                           void *Data, size_t Count, size_t Offset, bool ToDevice) {
  // Messages are made on the way out only: a warm copy allocates nothing.
  auto Prefix = [Function] { return std::string(Function) + ": "; };
  if (Queue == nullptr)
    return {PI_ERROR_INVALID_QUEUE, Prefix() + "the queue is null"};
  if (HostAddress == nullptr)
    return {PI_ERROR_INVALID_VALUE, Prefix() + "the device global's host address is null"};
  std::shared_ptr<detail::DeviceGlobalRecord> Record = Globals.find(HostAddress);
  if (Record == nullptr)
    return {PI_ERROR_INVALID_VALUE, Prefix() + "no device global was added at host address " +
                                        detail::hostAddressText(HostAddress)};
  if (Data == nullptr)
    return {PI_ERROR_INVALID_VALUE, Prefix() + named(*Record) + ": the " +
                                        (ToDevice ? "source" : "destination") + " is null"};
  if (Offset > Record->Size || Count > Record->Size - Offset)
    return {PI_ERROR_INVALID_VALUE, Prefix() + named(*Record) + ": offset " +
                                        std::to_string(Offset) + " + " + std::to_string(Count) +
                                        " bytes is past its " + std::to_string(Record->Size) +
                                        " bytes"};
  if (Count == 0)
    return {};
  pi_context Context = nullptr;
  pi_device Device = nullptr;
  if (const pi_result Result =
          Table.piQueueGetInfo(Queue, PI_QUEUE_INFO_CONTEXT, sizeof(pi_context), &Context, nullptr);
      Result != PI_SUCCESS)
    return {Result, Prefix() + "piQueueGetInfo(PI_QUEUE_INFO_CONTEXT) failed"};
  if (const pi_result Result =
          Table.piQueueGetInfo(Queue, PI_QUEUE_INFO_DEVICE, sizeof(pi_device), &Device, nullptr);
      Result != PI_SUCCESS)
    return {Result, Prefix() + "piQueueGetInfo(PI_QUEUE_INFO_DEVICE) failed"};
  auto Failed = [&](pi_result Result, const std::string &What) -> Status {
    char *Message = nullptr;
    Table.piPluginGetLastError(&Message);
    return {Result, Prefix() + named(*Record) + ": " + What +
                        " failed: " + (Message == nullptr ? "" : Message)};
  };
  if (!Record->ImageScope) {
    void *Usm = nullptr;
    {
      // Warm: the buffer is there.
      std::shared_lock<std::shared_mutex> Lock(Record->InstancesMutex);
      for (const auto &Existing : Record->Instances)
        if (Existing.Context == Context && Existing.Device == Device)
          Usm = Existing.Usm;
    }
    if (Usm == nullptr) {
      Expected<std::shared_ptr<const detail::DeviceTraits>> DeviceTraits = traits(Device);
      if (!DeviceTraits)
        return DeviceTraits.status();
      Expected<void *> Made = Globals.instance(*Record, Context, Device, **DeviceTraits);
      if (!Made)
        return {Made.status().Code, Prefix() + Made.status().Message};
      Usm = *Made;
    }
    char *At = static_cast<char *>(Usm) + Offset;
    if (const pi_result Result =
            ToDevice
                ? Table.piextUSMEnqueueMemcpy(Queue, PI_TRUE, At, Data, Count, 0, nullptr, nullptr)
                : Table.piextUSMEnqueueMemcpy(Queue, PI_TRUE, Data, At, Count, 0, nullptr, nullptr);
        Result != PI_SUCCESS)
      return Failed(Result, "piextUSMEnqueueMemcpy");
    return {};
  }
  Expected<std::shared_ptr<const detail::BuiltProgram>> Holder = holderOf(*Record, Context, Device);
  if (!Holder)
    return {Holder.status().Code, Prefix() + Holder.status().Message};
  if (*Holder == nullptr) {
    // In no image at all: the host instance holds the value.
    char *At = static_cast<char *>(const_cast<void *>(HostAddress)) + Offset;
    if (ToDevice)
      std::memmove(At, Data, Count);
    else
      std::memmove(Data, At, Count);
    return {};
  }
  const pi_program Program = (*Holder)->Handle;
  const pi_result Result =
      ToDevice
          ? Table.piextEnqueueDeviceGlobalVariableWrite(Queue, Program, Record->UniqueId.c_str(),
                                                        PI_TRUE, Count, Offset, Data, 0, nullptr,
                                                        nullptr)
          : Table.piextEnqueueDeviceGlobalVariableRead(Queue, Program, Record->UniqueId.c_str(),
                                                       PI_TRUE, Count, Offset, Data, 0, nullptr,
                                                       nullptr);
  if (Result != PI_SUCCESS)
    return Failed(Result, ToDevice ? "piextEnqueueDeviceGlobalVariableWrite"
                                   : "piextEnqueueDeviceGlobalVariableRead");
  return {};
}

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
    Expected<std::shared_ptr<detail::Module>> Made =
        detail::moduleFromBundle(Input, baseName(Path));
    if (!Made)
      return Made.status();
    return Self->add(std::move(*Made));
  });
}

Expected<ModuleId> Runtime::registerBundle(const void *Data, size_t Size, const std::string &Name) {
  return guarded("registerBundle", [&]() -> Expected<ModuleId> {
    if (Data == nullptr)
      return Status{PI_ERROR_INVALID_VALUE, "registerBundle: " + Name + ": the data is null"};
    Bundle Input;
    if (readBundle(static_cast<const uint8_t *>(Data), Size, Input) != PI_SUCCESS)
      return Status{lastErrorCode(), Name + ": " + lastErrorMessage()};
    Expected<std::shared_ptr<detail::Module>> Made = detail::moduleFromBundle(Input, Name);
    if (!Made)
      return Made.status();
    return Self->add(std::move(*Made));
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
    // The module's device globals, their USM buffers, and every program that points at
    // one of those buffers.
    const std::vector<std::string> Variables = Self->Globals.removeOwnedBy(Module);
    if (!Variables.empty())
      Self->Cache.forgetDeclaring(Variables);
    return {};
  });
}

void Runtime::forgetContext(pi_context Context) {
  try {
    Self->Cache.forgetContext(Context); // released here unless still held elsewhere
    Self->Globals.forgetContext(Context);
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
    for (uint32_t Aspect : (*Traits)->ForcedOff)
      Plan.ForcedOffAspects.push_back(aspectName(Aspect));
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

Status Runtime::addDeviceGlobal(const void *HostAddress, const std::string &UniqueId, size_t Size,
                                bool DeviceImageScope, ModuleId Owner) {
  return guarded("addDeviceGlobal", [&]() -> Status {
    if (Owner != 0 && Self->Registry.snapshot()->find(Owner) == nullptr)
      return {PI_ERROR_INVALID_VALUE, "addDeviceGlobal: module " + std::to_string(Owner) +
                                          " (the owner of device global '" + UniqueId +
                                          "') is not registered"};
    // Builds wait; programs cached before now get the variable's usmptr here.
    std::unique_lock<std::shared_mutex> Patching(Self->Globals.patchLock());
    Expected<std::shared_ptr<detail::DeviceGlobalRecord>> Added =
        Self->Globals.add(HostAddress, UniqueId, Size, DeviceImageScope, Owner);
    if (!Added)
      return Added.status();
    for (const auto &Program : Self->Cache.programsOn(nullptr, nullptr)) {
      if (Program->Globals.count(UniqueId) == 0)
        continue;
      Expected<std::shared_ptr<const detail::DeviceTraits>> Traits = Self->traits(Program->Device);
      Status Patched = Traits ? Self->Globals.patch(*Program, **Traits, UniqueId) : Traits.status();
      if (!Patched.ok()) {
        Self->Globals.remove(*Added); // nothing changes
        return {Patched.Code, "addDeviceGlobal: " + Patched.Message};
      }
    }
    return {};
  });
}

Status Runtime::copyToDeviceGlobal(pi_queue Queue, const void *HostAddress, const void *Src,
                                   size_t Count, size_t Offset) {
  return guarded("copyToDeviceGlobal", [&] {
    return Self->copy("copyToDeviceGlobal", Queue, HostAddress, const_cast<void *>(Src), Count,
                      Offset, true);
  });
}

Status Runtime::copyFromDeviceGlobal(pi_queue Queue, const void *HostAddress, void *Dst,
                                     size_t Count, size_t Offset) {
  return guarded("copyFromDeviceGlobal", [&] {
    return Self->copy("copyFromDeviceGlobal", Queue, HostAddress, Dst, Count, Offset, false);
  });
}

Expected<void *> Runtime::deviceGlobalAddress(pi_context Context, pi_device Device,
                                              const void *HostAddress) {
  return guarded("deviceGlobalAddress", [&]() -> Expected<void *> {
    if (Context == nullptr || Device == nullptr)
      return Status{PI_ERROR_INVALID_VALUE, std::string("deviceGlobalAddress: the ") +
                                                (Context == nullptr ? "context" : "device") +
                                                " is null"};
    std::shared_ptr<detail::DeviceGlobalRecord> Record = Self->Globals.find(HostAddress);
    if (Record == nullptr)
      return Status{PI_ERROR_INVALID_VALUE,
                    "deviceGlobalAddress: no device global was added at host address " +
                        detail::hostAddressText(HostAddress)};
    if (Record->ImageScope)
      return Status{PI_ERROR_INVALID_OPERATION,
                    "deviceGlobalAddress: " + named(*Record) +
                        " has device_image_scope: its value is in a program, not in USM"};
    Expected<std::shared_ptr<const detail::DeviceTraits>> Traits = Self->traits(Device);
    if (!Traits)
      return Traits.status();
    return Self->Globals.instance(*Record, Context, Device, **Traits);
  });
}

DeviceGlobalStats Runtime::deviceGlobalStats() const {
  DeviceGlobalStats Stats;
  Stats.Variables = Self->Globals.size();
  Stats.UsmAllocations = Self->Globals.allocations();
  Stats.UsmFrees = Self->Globals.frees();
  Stats.Patches = Self->Globals.patches();
  return Stats;
}

} // namespace dglink::runtime
