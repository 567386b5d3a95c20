// The dispatch.h introspection API: what discovery found, for tools like `dglink ls`.
#include "process_registry.h"

#include <dglink/dispatch.h>
#include <dglink/support/error.h>

extern "C" {

pi_uint32 dglinkDispatchAdapterCount(void) {
  const dglink::dispatch::AdapterRegistry *Registry = dglink::dispatch::processRegistry();
  return Registry == nullptr ? 0 : static_cast<pi_uint32>(Registry->adapters().size());
}

pi_result dglinkDispatchAdapterInfo(pi_uint32 Index, dglink_adapter_info *Out) {
  DGLINK_CHECK_NOT_NULL(Out, PI_ERROR_INVALID_VALUE);
  const dglink::dispatch::AdapterRegistry *Registry = dglink::dispatch::processRegistry();
  if (Registry == nullptr)
    return dglink::lastErrorCode();
  const auto &Adapters = Registry->adapters();
  if (Index >= Adapters.size())
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "dglinkDispatchAdapterInfo: argument 'Index' is {}, but {} adapter(s) "
                        "were considered",
                        Index, Adapters.size());
  // The registry is never destroyed, so these strings outlive every caller.
  const dglink::dispatch::AdapterRecord &Record = Adapters[Index];
  Out->Name = Record.Name.c_str();
  Out->Path = Record.Path.c_str();
  Out->PluginVersion = Record.Plugin.PluginVersion;
  Out->SkipReason = Record.SkipReason.c_str();
  Out->Loaded = Record.Loaded ? PI_TRUE : PI_FALSE;
  Out->NumPlatforms = static_cast<pi_uint32>(Record.Platforms.size());
  return PI_SUCCESS;
}

pi_uint32 dglinkDispatchDirectoryCount(void) {
  const dglink::dispatch::AdapterRegistry *Registry = dglink::dispatch::processRegistry();
  return Registry == nullptr ? 0 : static_cast<pi_uint32>(Registry->directories().size());
}

const char *dglinkDispatchDirectory(pi_uint32 Index) {
  const dglink::dispatch::AdapterRegistry *Registry = dglink::dispatch::processRegistry();
  if (Registry == nullptr || Index >= Registry->directories().size())
    return nullptr;
  return Registry->directories()[Index].c_str();
}

} // extern "C"
