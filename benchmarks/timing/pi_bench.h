// What the benchmark programs ask of the PI face alike.
#pragma once

#include <dglink/pi.h>

#include <string>

namespace dglink::bench {

// The platform's backend ("cuda", "level_zero", ...: PI_EXT_PLATFORM_INFO_BACKEND), or
// "" where the platform does not say.
inline std::string platformBackend(pi_platform Platform) {
  char Name[64] = {};
  if (piPlatformGetInfo(Platform, PI_EXT_PLATFORM_INFO_BACKEND, sizeof(Name), Name, nullptr) !=
      PI_SUCCESS)
    return {};
  return Name;
}

} // namespace dglink::bench
