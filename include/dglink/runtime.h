// The SYCL-runtime layer over the dispatch layer (libdglink_runtime): what a SYCL
// implementation calls where DPC++ calls its ProgramManager. It keeps the registered
// device-code modules (bundles), finds every image a kernel needs on a device by its
// imports and the other images' exports, builds or links them once, and caches the
// program per kernel; docs/runtime.md describes the algorithm and the cache keys.
//
// Nothing here throws: every failure is a Status (a pi_result and a message) that
// comes back as a value, and bad input (a malformed bundle, an unknown kernel, an
// unresolved import) is an error, never an abort.
#pragma once

#include <dglink/pi.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#define DGLINK_RUNTIME_API __attribute__((visibility("default")))

namespace dglink::runtime {

// The outcome of an operation: PI_SUCCESS, or an error code with a message that
// says what failed and names its inputs (the kernel, the device, the symbols).
struct Status {
  pi_result Code = PI_SUCCESS;
  std::string Message;
  bool ok() const { return Code == PI_SUCCESS; }
};

// A value or the Status that explains why there is none.
template <typename T> class Expected {
public:
  Expected(T Value) : Stored(std::move(Value)) {}  // NOLINT: implicit by design
  Expected(Status Why) : Failure(std::move(Why)) { // NOLINT: implicit by design
    if (Failure.Code == PI_SUCCESS)                // no value is never a success
      Failure.Code = PI_ERROR_UNKNOWN;
  }
  bool ok() const { return Stored.has_value(); }
  explicit operator bool() const { return ok(); }
  T &value() { return *Stored; }
  const T &value() const { return *Stored; }
  T &operator*() { return *Stored; }
  const T &operator*() const { return *Stored; }
  T *operator->() { return &*Stored; }
  const T *operator->() const { return &*Stored; }
  // PI_SUCCESS with an empty message when there is a value.
  const Status &status() const { return Failure; }

private:
  std::optional<T> Stored;
  Status Failure;
};

// A registered module (the seed's OS module: one bundle). 0 is never a module.
using ModuleId = uint64_t;

// One image of a registered module, as the registry indexed it.
struct ImageInfo {
  ModuleId Module = 0;
  size_t Index = 0;       // its place in the module
  std::string Name;       // "<module>#<index> (<image name>)", for messages
  std::string Target;     // DeviceTargetSpec: spir64, nvptx64, ...
  std::string LinkFormat; // as PI_EXT_DEVICE_INFO_LINK_FORMATS names it: spir64, spirv64, ...
  pi_device_binary_format Format = PI_DEVICE_BINARY_TYPE_NONE;
  bool Lowered = false;             // its device globals live in adapter-owned storage (OpenCL)
  std::vector<std::string> Entries; // kernels
  std::vector<std::string> Exports;
  std::vector<std::string> Imports;
  std::vector<std::string> DeviceGlobals; // unique ids
  // Virtual functions (docs/virtual-functions.md): the set this image provides ("" for a
  // kernel image), whether it is the set's dummy twin, the sets its kernels call into or
  // whose vtables they write (SYCL/virtual functions), the aspects it needs (SYCL/device
  // requirements: a set's, or the union of its kernels'), and each kernel's own
  // (DGLINK/kernel aspects). Aspects are sycl::aspect values (fp16 5, fp64 6, atomic64 28).
  std::string VirtualFunctionSet;
  bool DummyImage = false;
  std::vector<std::string> UsesVirtualFunctionSets;
  std::vector<uint32_t> Aspects;
  std::map<std::string, std::vector<uint32_t>> KernelAspects;
};

// The name of a sycl::aspect value dglink knows ("fp16", "fp64", "atomic64"), else its
// number.
DGLINK_RUNTIME_API std::string aspectName(uint32_t Aspect);

// What the runtime would link for a kernel on a device: Images[0] holds the kernel,
// the others follow in the order the import resolution found them.
struct LinkPlan {
  std::string LinkFormat;
  std::vector<ImageInfo> Images;
  // Aspects the device lacks only because DGLINK_FORCE_ASPECTS_OFF turned them off (a
  // test hook), by name; they decide real or dummy set images as a missing aspect would.
  std::vector<std::string> ForcedOffAspects;
};

// A request for the program of a kernel on a device; the fields after Kernel are the
// rest of the cache key.
struct ProgramRequest {
  pi_context Context = nullptr;
  pi_device Device = nullptr;
  std::string Kernel;
  std::string Options;                // build options (compile and link)
  std::vector<uint8_t> SpecConstants; // specialization-constant values: part of the key
  // The module the request comes from (DPC++'s OS module of the caller); 0: the first
  // registered module that has the kernel for the device.
  ModuleId Module = 0;
};

namespace detail {
struct BuiltProgram;
struct Access; // how the runtime makes Programs and Kernels
} // namespace detail

// A built program shared with the cache. It stays valid while any copy lives, even
// after the modules it came from are unregistered (the cache then forgets it).
class DGLINK_RUNTIME_API Program {
public:
  Program() = default;
  pi_program get() const;
  explicit operator bool() const { return Built != nullptr; }
  // The images linked into it (the kernel's image first) and the modules they came from.
  const std::vector<ImageInfo> &images() const;
  std::vector<ModuleId> modules() const;

private:
  friend struct detail::Access;
  explicit Program(std::shared_ptr<const detail::BuiltProgram> From) : Built(std::move(From)) {}
  std::shared_ptr<const detail::BuiltProgram> Built;
};

// A kernel of a cached program; move-only, released (with its hold on the program)
// when destroyed.
class DGLINK_RUNTIME_API Kernel {
public:
  Kernel() = default;
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;
  Kernel(Kernel &&Other) noexcept;
  Kernel &operator=(Kernel &&Other) noexcept;
  ~Kernel();
  pi_kernel get() const { return Handle; }
  const Program &program() const { return Owner; }

private:
  friend struct detail::Access;
  Kernel(Program From, pi_kernel Made, pi_result (*ReleaseKernel)(pi_kernel))
      : Owner(std::move(From)), Handle(Made), Release(ReleaseKernel) {}
  void reset();
  Program Owner;
  pi_kernel Handle = nullptr;
  pi_result (*Release)(pi_kernel) = nullptr;
};

// The persistent program cache (docs/runtime.md): off unless enabled.
struct PersistentCacheSettings {
  bool Enabled = false;
  std::string Directory;                 // created when missing
  uint64_t MaxBytes = uint64_t(1) << 30; // entries beyond it: least recently used go
  // DGLINK_CACHE_PERSISTENT=1 turns it on; DGLINK_CACHE_DIR (default
  // $XDG_CACHE_HOME/dglink, else $HOME/.cache/dglink); DGLINK_CACHE_MAX_SIZE in bytes,
  // with an optional K, M or G suffix. Enabled without a usable directory stays off.
  DGLINK_RUNTIME_API static PersistentCacheSettings fromEnvironment();
};

// One entry of the persistent cache, as `dglink cache list` shows it.
struct PersistentEntry {
  std::string Path;
  uint64_t Size = 0;
  int64_t LastUsed = 0; // seconds since the epoch (the file's modification time)
  bool Valid = false;
  std::string Problem; // why it is not valid
  std::string Key;     // what it was built from (valid entries)
};

// The entries of the cache in Directory, checked as a load would check them; and
// removing them all (the files of entries and unfinished writes, nothing else).
DGLINK_RUNTIME_API Expected<std::vector<PersistentEntry>>
listPersistentCache(const std::string &Directory);
DGLINK_RUNTIME_API Status clearPersistentCache(const std::string &Directory);

// What the in-memory program cache did so far.
struct CacheStats {
  uint64_t Hits = 0;               // requests answered from the cache
  uint64_t Builds = 0;             // programs made (piProgramBuild or piProgramLink)
  uint64_t Links = 0;              // of those, made with piProgramLink
  uint64_t Waits = 0;              // requests that waited for another thread's build
  uint64_t Failures = 0;           // builds that failed (not cached)
  uint64_t PersistentHits = 0;     // programs loaded from the persistent cache
  uint64_t PersistentStores = 0;   // programs written to it
  uint64_t PersistentRejected = 0; // entries found bad (removed and rebuilt)
  size_t Programs = 0;             // programs the cache holds now
};

// What the device-global database did so far (docs/runtime.md).
struct DeviceGlobalStats {
  size_t Variables = 0;        // added and not removed
  uint64_t UsmAllocations = 0; // USM buffers of shared variables (one per context and device)
  uint64_t UsmFrees = 0;
  uint64_t Patches = 0; // usmptr writes into programs
};

class DGLINK_RUNTIME_API Runtime {
public:
  // Over the dispatch layer (libdglink_pi), the persistent cache as the environment says.
  Runtime();
  // Over another PI function table with the dispatch layer's meaning (a tracing or
  // counting layer wrapped around it; the table is copied), the persistent cache as
  // Persistent says (off by default).
  explicit Runtime(const pi_plugin_functions &Table, PersistentCacheSettings Persistent = {});
  ~Runtime(); // releases every cached program it still holds
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;

  // Registers a bundle (a file of `dglink compile`, or its bytes, copied) after the
  // bundle reader validated it; a malformed one is PI_ERROR_INVALID_BINARY with the
  // reader's message, a missing file PI_ERROR_INVALID_VALUE, and nothing is registered.
  Expected<ModuleId> registerBundleFile(const std::string &Path);
  Expected<ModuleId> registerBundle(const void *Data, size_t Size, const std::string &Name);
  // Registers images in DPC++'s layout, as __sycl_register_lib gets them; they are
  // borrowed and must stay valid until unregisterModule. Each image's properties are
  // validated as the adapters read them.
  Expected<ModuleId> registerDeviceBinaries(pi_device_binaries Binaries, const std::string &Name);
  // Forgets Module and the cached programs any of its images went into (programs still
  // held by a Program or Kernel live on until those go). PI_ERROR_INVALID_VALUE for an
  // unknown module.
  Status unregisterModule(ModuleId Module);
  // Forgets every cached program of Context. A cached program holds its context, so
  // a runtime that outlives a context calls this before the context's last release.
  void forgetContext(pi_context Context);
  // Every registered image, in registration order.
  std::vector<ImageInfo> images() const;

  // The images a kernel needs on Device, without building anything: the seed's
  // collection (docs/runtime.md). PI_ERROR_INVALID_KERNEL_NAME when no registered image
  // has the kernel in a format the device takes; PI_ERROR_LINK_PROGRAM_FAILURE naming
  // every unresolved symbol and the image that imports it.
  Expected<LinkPlan> planLink(pi_device Device, const std::string &Kernel,
                              ModuleId Module = 0) const;

  // The program that holds Request.Kernel, built for Request.Device: from the cache, or
  // compiled and linked now (once, however many threads ask at the same time).
  Expected<Program> getOrBuildProgram(const ProgramRequest &Request);
  // A new kernel object of that program (kernel objects carry arguments: one per user).
  Expected<Kernel> createKernel(const ProgramRequest &Request);

  CacheStats cacheStats() const;

  // ---- The device-global database (the device-global design's device_global_map) ----
  // What the integration footer's device_global_map::add() tells the runtime about a
  // device global: its host address, unique id, the size of its value (sizeof(T)) and
  // device_image_scope. A variable without device_image_scope holds a usmptr on the
  // device (dglink/device_global.h): the runtime gives it one zero-filled USM buffer per
  // context and device and writes the buffer's address into every program that contains
  // it, right after the program is built (programs already cached are patched now).
  // Owner: the module whose unregisterModule removes the variable and frees its buffers
  // (0: the runtime's lifetime). PI_ERROR_INVALID_VALUE for a null address, an empty id,
  // size 0, or an address or id already added.
  Status addDeviceGlobal(const void *HostAddress, const std::string &UniqueId, size_t Size,
                         bool DeviceImageScope, ModuleId Owner = 0);
  // queue.memcpy to and from a device global, by host address: Count bytes at Offset,
  // blocking. Shared variables: the USM buffer of the queue's device (allocated on first
  // use). Image-scope ones: the one cached program of the queue's device that holds the
  // variable (built now from the registered images when there is none; the host
  // instance at HostAddress when no image has the variable). Errors name the variable:
  // PI_ERROR_INVALID_VALUE for an address never added, a null pointer, Offset + Count past
  // the size; PI_ERROR_INVALID_OPERATION for an image-scope variable in more than one
  // program of the device (the design's errc::invalid), or shared on a device without USM.
  Status copyToDeviceGlobal(pi_queue Queue, const void *HostAddress, const void *Src, size_t Count,
                            size_t Offset = 0);
  Status copyFromDeviceGlobal(pi_queue Queue, const void *HostAddress, void *Dst, size_t Count,
                              size_t Offset = 0);
  // The USM buffer of a shared variable on Device in Context (allocated on first use).
  Expected<void *> deviceGlobalAddress(pi_context Context, pi_device Device,
                                       const void *HostAddress);
  DeviceGlobalStats deviceGlobalStats() const;

private:
  struct Impl;
  std::unique_ptr<Impl> Self;
};

} // namespace dglink::runtime
