// The in-memory program cache with the dynamic-linking seed's nested key:
//   {kernel name} -> {context, module, spec-constant bytes, build options, device} -> program
// A program linked from images of several modules is entered under every kernel it
// holds and every module that went into it, so that a library kernel finds the program
// its caller's link already made. A build in progress has an entry too: the threads
// that ask for its key meanwhile wait for it instead of building again.
#pragma once

#include "registry.h"

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace dglink::runtime::detail {

// A program and what it was made from; releases its handle when the last holder goes.
struct BuiltProgram {
  pi_program Handle = nullptr;
  pi_result (*Release)(pi_program) = nullptr;
  pi_context Context = nullptr;
  pi_device Device = nullptr;
  bool Linked = false;
  // The modules of its images: held so that the images outlive the program.
  std::vector<std::shared_ptr<const Module>> Modules;
  std::vector<ImageInfo> Images; // the kernel's image first
  std::vector<std::string> Kernels;
  // The device globals its images declare (the first image's entry where two do).
  std::map<std::string, DeviceGlobalInfo> Globals;

  BuiltProgram() = default;
  BuiltProgram(const BuiltProgram &) = delete;
  BuiltProgram &operator=(const BuiltProgram &) = delete;
  ~BuiltProgram() {
    if (Handle != nullptr && Release != nullptr)
      Release(Handle);
  }
  bool uses(ModuleId Id) const;
};

struct ProgramKey {
  pi_context Context = nullptr;
  ModuleId Module = 0;
  std::vector<uint8_t> SpecConstants;
  std::string Options;
  pi_device Device = nullptr;
  bool operator==(const ProgramKey &Other) const {
    return Context == Other.Context && Module == Other.Module && Device == Other.Device &&
           SpecConstants == Other.SpecConstants && Options == Other.Options;
  }
};

// One build in progress; its waiters block in wait().
class PendingBuild {
public:
  void finish(std::shared_ptr<const BuiltProgram> Program, Status Failure);
  Expected<std::shared_ptr<const BuiltProgram>> wait();

private:
  std::mutex Mutex;
  std::condition_variable Finished;
  bool Done = false;
  std::shared_ptr<const BuiltProgram> Program;
  Status Failure;
};

class ProgramCache {
public:
  // Either the cached Program, or a Pending build: someone else's to wait for
  // (Owner false), or this caller's to do and complete() (Owner true).
  struct Lookup {
    std::shared_ptr<const BuiltProgram> Program;
    std::shared_ptr<PendingBuild> Pending;
    bool Owner = false;
  };
  Lookup acquire(const std::string &Kernel, const ProgramKey &Key);
  // The program entered under Kernel/Key, if one is (builds in progress do not count).
  std::shared_ptr<const BuiltProgram> built(const std::string &Kernel, const ProgramKey &Key) const;

  // The owner's end of a build: on success the program is entered under Kernel/Key and
  // under every kernel and module of it (none that holds a program already; a key with a
  // build in progress gets the program beside it, and lookups prefer the program) unless
  // one of its modules was unregistered meanwhile; then the waiters wake with the
  // outcome.
  void complete(const std::string &Kernel, const ProgramKey &Key,
                const std::shared_ptr<PendingBuild> &Pending,
                const std::shared_ptr<const BuiltProgram> &Program, const Status &Failure);

  // Drops every entry of a program built from Module and returns those programs, for
  // the caller to let go outside the cache's lock.
  std::vector<std::shared_ptr<const BuiltProgram>> forgetModule(ModuleId Module);
  // The same for every program built in Context.
  std::vector<std::shared_ptr<const BuiltProgram>> forgetContext(pi_context Context);
  std::vector<std::shared_ptr<const BuiltProgram>> clear();
  size_t programCount() const;
  // Drops every program whose images declare one of Ids (as forgetModule).
  std::vector<std::shared_ptr<const BuiltProgram>>
  forgetDeclaring(const std::vector<std::string> &Ids);
  // The distinct programs cached for Device in Context (null: any).
  std::vector<std::shared_ptr<const BuiltProgram>> programsOn(pi_context Context,
                                                              pi_device Device) const;
  // Changes whenever a program enters or leaves the cache.
  uint64_t generation() const { return Generation.load(std::memory_order_acquire); }

private:
  struct Entry;
  template <typename Predicate>
  std::vector<std::shared_ptr<const BuiltProgram>> dropIf(Predicate &&Drop);
  struct Entry {
    ProgramKey Key;
    std::shared_ptr<const BuiltProgram> Program; // null while Pending
    std::shared_ptr<PendingBuild> Pending;
  };
  mutable std::mutex Mutex;
  std::unordered_map<std::string, std::vector<Entry>> ByKernel;
  std::atomic<uint64_t> Generation{0};
};

} // namespace dglink::runtime::detail
