// The Level Zero adapter's platforms: one per Level Zero driver.
#pragma once

#include <vector>

struct _pi_platform;

namespace dglink::level_zero {
// Every driver with at least one device, found on first use; empty when there
// is no loader or no driver.
const std::vector<_pi_platform *> &thePlatforms();
} // namespace dglink::level_zero
