// The face of a PI adapter: its handles point at the PI function table, which the
// dispatch layer reads from each handle's first field. (handles.h declares both; this
// file keeps to pi.h so that it links beside the core without the core's usage.)
#include <dglink/pi.h>

namespace dglink::core {
extern const pi_plugin_functions DispatchTable;
extern const void *const FaceTable;
const void *const FaceTable = &DispatchTable;
} // namespace dglink::core
