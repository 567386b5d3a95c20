// The per-program cache of device-global lookups (dglink::DeviceGlobalCache) with
// this backend's device address type.
#pragma once

#include <dglink/support/device_global.h>

namespace dglink::level_zero {

using DeviceGlobalEntry = dglink::DeviceGlobalEntry<void *>;
using DeviceGlobalCache = dglink::DeviceGlobalCache<void *>;

} // namespace dglink::level_zero
