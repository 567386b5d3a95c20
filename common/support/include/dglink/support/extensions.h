// dglink's extension strings: the pi_ext_<target>_linking name of an image
// format and the merge with a backend's native list (docs/extension-strings.md).
#pragma once

#include <dglink/support/api.h>
#include <dglink/support/image.h>

#include <string>
#include <vector>

namespace dglink {

// The short link-format name used by PI_EXT_DEVICE_INFO_LINK_FORMATS
// ("spirv64", "spir64", "nvptx64", "amdgcn") and its extension string.
DGLINK_SUPPORT_API std::string linkingExtension(const std::string &LinkFormat);

// Native list + one pi_ext_<f>_linking per link format + the device-global
// string when supported, space separated, without duplicates.
DGLINK_SUPPORT_API std::string buildExtensionString(const std::string &Native,
                                                    const std::vector<std::string> &LinkFormats,
                                                    bool DeviceGlobalAccess);

} // namespace dglink
