// The HIP adapter's entry: piPluginInit and the function table every handle's
// first field points at.
#include "handles.h"

#include <dglink/support/plugin.h>

namespace dglink::hip {

const pi_plugin_functions PluginFunctions = {
#define DGLINK_HIP_TABLE_ENTRY(Name, Ret, Params) &::Name,
    PI_ENTRY_POINTS(DGLINK_HIP_TABLE_ENTRY)
#undef DGLINK_HIP_TABLE_ENTRY
};

// The dispatch layer reads the first field of every handle.
static_assert(std::is_standard_layout_v<_pi_platform> && std::is_standard_layout_v<_pi_device> &&
                  std::is_standard_layout_v<_pi_context> && std::is_standard_layout_v<_pi_queue> &&
                  std::is_standard_layout_v<_pi_mem> && std::is_standard_layout_v<_pi_program> &&
                  std::is_standard_layout_v<_pi_kernel> && std::is_standard_layout_v<_pi_event>,
              "handles must start with their dispatch pointer");

} // namespace dglink::hip

extern "C" PI_API_EXPORT pi_result piPluginInit(pi_plugin *PluginInfo) try {
  return dglink::initPlugin(PluginInfo, DGLINK_ADAPTER_NAME, dglink::hip::PluginFunctions);
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piPluginGetLastError(char **Message) try {
  return dglink::getLastError(Message);
}
DGLINK_CATCH_ALL

// Nothing to tear down: the platform and runtime stay loaded for the process,
// and handles still alive are the caller's to release.
extern "C" PI_API_EXPORT pi_result piTearDown(void *PluginParameter) try { return PI_SUCCESS; }
DGLINK_CATCH_ALL
