// Device images for the scenarios: the link formats the suite knows, lookup of the
// embedded images, and the _pi_device_binary_struct (with its symbol property
// sets) that piextProgramCreateWithImage takes.
#pragma once

#include "embedded_images.h"

#include <dglink/pi.h>

#include <deque>
#include <string>
#include <vector>

namespace dglink::conformance {

// A link format as PI_EXT_DEVICE_INFO_LINK_FORMATS names it, and the image
// format and target an image of it carries.
struct LinkFormat {
  const char *Name; // "spir64", "spirv64", "nvptx64", "amdgcn"
  pi_device_binary_format Format;
  const char *TargetSpec; // DeviceTargetSpec of its images
  // Words an error message about this format may use to name it.
  std::vector<std::string> MessageNames;
};

const std::vector<LinkFormat> &knownLinkFormats();
const LinkFormat *findLinkFormat(const std::string &Name); // null if unknown

// The embedded image Name for link format Format, or null.
const EmbeddedImage *findImage(const std::string &Name, const std::string &Format);
// Whether the suite was built with images of Format, and if not, why (for a skip).
bool hasImages(const std::string &Format);
std::string missingImagesReason(const std::string &Format);

// The property set that maps a device global's unique id to its symbol (STRING
// values) where the two differ; without a property the unique id is the symbol.
inline constexpr const char *DeviceGlobalSymbolsSet = "SYCL/device global symbols";

// One embedded image as a _pi_device_binary_struct: kernels as offload entries,
// "SYCL/exported symbols" and "SYCL/imported symbols" as UINT32 1 properties, and
// for an image with device globals "SYCL/device globals" (12-byte values of
// docs/property-sets.md) and DeviceGlobalSymbolsSet.
// It points into itself, so it is neither copied nor moved.
class DeviceImage {
public:
  DeviceImage(const EmbeddedImage &Image, const LinkFormat &Format);
  DeviceImage(const DeviceImage &) = delete;
  DeviceImage &operator=(const DeviceImage &) = delete;

  const _pi_device_binary_struct *get() const { return &Binary; }
  const EmbeddedImage &source() const { return Source; }

private:
  char *keep(const std::string &Text); // a stable, writable copy
  void addSymbols(const char *Symbols, std::vector<_pi_device_binary_property_struct> &Set);
  void addDeviceGlobals(const EmbeddedImage &Image);

  const EmbeddedImage &Source;
  std::deque<std::string> Strings; // a deque never moves what it holds
  std::vector<_pi_offload_entry_struct> Entries;
  std::vector<_pi_device_binary_property_struct> Exported;
  std::vector<_pi_device_binary_property_struct> Imported;
  std::vector<_pi_device_binary_property_struct> DeviceGlobals;
  std::vector<_pi_device_binary_property_struct> DeviceGlobalSymbols;
  std::vector<_pi_device_binary_property_set_struct> Sets;
  _pi_device_binary_struct Binary{};
};

} // namespace dglink::conformance
