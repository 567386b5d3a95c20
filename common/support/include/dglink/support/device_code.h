// The one rule for what a device takes: an image's target and format name a kind of
// device code ("spir64", "spirv64", "nvptx64", "amdgcn"), the words devices list in
// PI_EXT_DEVICE_INFO_IMAGE_FORMATS and PI_EXT_DEVICE_INFO_LINK_FORMATS.
#pragma once

#include <dglink/pi.h>
#include <dglink/support/api.h>
#include <dglink/support/image.h>

#include <string_view>

namespace dglink {

// dglink's words: target spir64 is one target in two formats, SPIR 1.2 bitcode
// ("spir64") and SPIR-V ("spirv64"); native images are named after their target.
enum class DeviceCode { Unknown, Spir, SpirV, Ptx, AmdCodeObject };

// The kind of an image of Target (PI_DEVICE_BINARY_TARGET_*) in Format; Unknown for a
// pair no device takes (a SPIR-V image for nvptx64, a target dglink does not know, an
// image whose format says "the bytes tell").
DGLINK_SUPPORT_API DeviceCode deviceCodeOf(std::string_view Target, pi_device_binary_format Format);
// The kind the bytes themselves show (detectFormat's answer); an ELF file is taken for an
// AMD code object, the only ELF device code dglink makes.
DGLINK_SUPPORT_API DeviceCode deviceCodeOf(ImageFormat Format);

// The word of a kind ("" for Unknown), and the kind of a word (Unknown if none).
DGLINK_SUPPORT_API const char *deviceCodeName(DeviceCode Code);
DGLINK_SUPPORT_API DeviceCode deviceCodeNamed(std::string_view Name);

// The image target and format a kind is made as (the inverse of deviceCodeOf);
// PI_DEVICE_BINARY_TARGET_UNKNOWN and PI_DEVICE_BINARY_TYPE_NONE for Unknown.
DGLINK_SUPPORT_API const char *targetOf(DeviceCode Code);
DGLINK_SUPPORT_API pi_device_binary_format formatOf(DeviceCode Code);

} // namespace dglink
