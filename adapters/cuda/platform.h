// The CUDA adapter's single platform.
#pragma once

struct _pi_platform;

namespace dglink::cuda {
// The platform with every usable device, found on first use; null when there is
// no driver or no device.
_pi_platform *thePlatform();
} // namespace dglink::cuda
