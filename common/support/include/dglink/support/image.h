// Device images as adapters see them: the format of a binary, and the metadata a
// dglink image carries in its property sets (symbols, device globals), read with
// every size checked because images are untrusted input.
#pragma once

#include <dglink/pi.h>
#include <dglink/support/api.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dglink {

enum class ImageFormat { Unknown, SpirV, LlvmBitcode, Ptx, Elf };

DGLINK_SUPPORT_API const char *formatName(ImageFormat Format);

// Recognises a binary by its first bytes (SPIR-V magic, LLVM bitcode magic or
// wrapper, ELF, PTX text).
DGLINK_SUPPORT_API ImageFormat detectFormat(const void *Data, size_t Size);

// host_access of a device global (the values of DPC++'s sycl-host-access).
enum class HostAccess : uint32_t { Read = 0, Write = 1, ReadWrite = 2, None = 3 };
DGLINK_SUPPORT_API const char *hostAccessName(HostAccess Access);

struct DeviceGlobalInfo {
  std::string UniqueId;
  uint32_t Size = 0;
  bool DeviceImageScope = false;
  HostAccess Access = HostAccess::ReadWrite;
};

// What linking and device-global lookup need from an image's property sets.
struct ImageMetadata {
  std::vector<std::string> Exported;
  std::vector<std::string> Imported;
  std::map<std::string, DeviceGlobalInfo> DeviceGlobals;
  // Every property set of the image, kept by name for adapter-specific metadata.
  std::map<std::string, std::map<std::string, std::vector<uint8_t>>> RawSets;
  bool HasSymbolTables = false; // the image said what it exports and imports
};

// Reads the property sets of Image. A malformed set, property or value gives
// PI_ERROR_INVALID_BINARY with a message naming it, and Out is left untouched.
DGLINK_SUPPORT_API pi_result readImageMetadata(const _pi_device_binary_struct &Image,
                                               ImageMetadata &Out);

// The same from a flat metadata list (piProgramCreateWithBinary); property names
// may be qualified as "<set name>/<property>" with the set names of pi.h.
DGLINK_SUPPORT_API pi_result readFlatMetadata(size_t NumEntries,
                                              const pi_device_binary_property *Entries,
                                              ImageMetadata &Out);

// Value encoding of a "SYCL/device globals" property: 8 bytes
// {uint32 size; uint32 device_image_scope}, optionally followed by uint32
// host_access (12 bytes); all little-endian; see docs/property-sets.md.
DGLINK_SUPPORT_API std::vector<uint8_t> encodeDeviceGlobalValue(const DeviceGlobalInfo &Info);

} // namespace dglink
