// The per-program cache of device-global lookups (dglink::DeviceGlobalCache) with
// this backend's device address type.
#pragma once

#include <dglink/support/device_global.h>

#include <cuda.h>

namespace dglink::cuda {

using DeviceGlobalEntry = dglink::DeviceGlobalEntry<CUdeviceptr>;
using DeviceGlobalCache = dglink::DeviceGlobalCache<CUdeviceptr>;

} // namespace dglink::cuda
