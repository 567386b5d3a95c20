// The one AdapterRegistry of the process, behind libdglink_pi.so's exported functions.
#pragma once

#include "adapter_registry.h"

namespace dglink::dispatch {

// The process's registry, discovering the adapters on the first call (thread-safe;
// concurrent first callers wait for one discovery). Null, with the last error set,
// when discovery cannot run: out of memory, or an adapter calling back into the
// dispatch layer while it is being loaded.
const AdapterRegistry *processRegistry();

// The registry if discovery has already run, else null; never starts discovery.
const AdapterRegistry *processRegistryIfDiscovered();

} // namespace dglink::dispatch
