// The process-wide registry: options from the environment, discovery once, on demand.
#include "process_registry.h"

#include <dglink/support/error.h>

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <new>
#include <system_error>

namespace dglink::dispatch {
namespace {

std::once_flag DiscoveryOnce;
// Never destroyed: adapters may be called from other libraries' exit handlers.
std::atomic<const AdapterRegistry *> Instance{nullptr};
// Set while this thread runs discovery, to refuse re-entry instead of deadlocking.
thread_local bool DiscoveringOnThisThread = false;

// The folder libdglink_pi.so was loaded from ("" if unknown).
std::string ownDirectory() {
  Dl_info Info{};
  if (dladdr(reinterpret_cast<void *>(&ownDirectory), &Info) == 0 || Info.dli_fname == nullptr)
    return {};
  std::error_code Error;
  std::filesystem::path Library = std::filesystem::canonical(Info.dli_fname, Error);
  if (Error)
    Library = Info.dli_fname;
  return Library.parent_path().string();
}

void discover() {
  DiscoveringOnThisThread = true;
  struct Reset {
    ~Reset() { DiscoveringOnThisThread = false; }
  } ResetOnExit;
  // Loading records the adapters' own failures as last errors; the caller's last
  // error should not change because its call happened to start discovery.
  const pi_result SavedCode = lastErrorCode();
  std::string SavedMessage = lastErrorMessage();
  DiscoveryOptions Options = DiscoveryOptions::fromEnvironment(
      ownDirectory(), std::getenv("DGLINK_ADAPTER_PATH"), std::getenv("DGLINK_ADAPTERS"));
  Instance.store(new AdapterRegistry(std::move(Options)), std::memory_order_release);
  setLastError(SavedCode, std::move(SavedMessage));
}

} // namespace

const AdapterRegistry *processRegistry() {
  if (const AdapterRegistry *Registry = Instance.load(std::memory_order_acquire))
    return Registry;
  if (DiscoveringOnThisThread) {
    fail(PI_ERROR_INVALID_OPERATION,
         "the dispatch layer was called while it was loading the adapters (does an adapter "
         "call PI entry points by name without being linked with -Bsymbolic?)");
    return nullptr;
  }
  try {
    std::call_once(DiscoveryOnce, discover);
  } catch (const std::bad_alloc &) {
    fail(PI_ERROR_OUT_OF_HOST_MEMORY, "out of host memory while loading the adapters");
    return nullptr;
  } catch (const std::exception &Error) {
    fail(PI_ERROR_UNKNOWN, "loading the adapters failed: {}", Error.what());
    return nullptr;
  }
  return Instance.load(std::memory_order_acquire);
}

const AdapterRegistry *processRegistryIfDiscovered() {
  return Instance.load(std::memory_order_acquire);
}

} // namespace dglink::dispatch
