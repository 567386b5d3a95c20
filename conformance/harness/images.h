// Device images for the scenarios: the link formats the suite knows, and lookup of
// the images of the embedded bundles (conformance/device_code), each read with the
// bundle reader and presented as the _pi_device_binary_struct (entries and the
// shim's property sets) that piextProgramCreateWithImage takes.
#pragma once

#include "embedded_images.h"

#include <dglink/pi.h>

#include <string>
#include <vector>

namespace dglink::conformance {

// A link format as PI_EXT_DEVICE_INFO_LINK_FORMATS names it (the target and format of
// its images follow from the name: dglink/support/device_code.h).
struct LinkFormat {
  const char *Name; // "spir64", "spirv64", "nvptx64", "amdgcn"
  // Words an error message about this format may use to name it.
  std::vector<std::string> MessageNames;
};

const std::vector<LinkFormat> &knownLinkFormats();
const LinkFormat *findLinkFormat(const std::string &Name); // null if unknown

// The property set the shim gives an image whose device globals it lowered out of
// program scope (for OpenCL devices without cl_intel_global_variable_access).
inline constexpr const char *DeviceGlobalStorageSet = "DGLINK/device global storage";

// The property set that maps a device global's unique id to its symbol (STRING
// values) where the two differ; without a property the unique id is the symbol.
inline constexpr const char *DeviceGlobalSymbolsSet = "SYCL/device global symbols";

// One image of an embedded bundle, as the bundle reader and DeviceBinaries give it.
struct EmbeddedImage {
  std::string Name;       // the source it came from: "link_caller", "chain_2", ...
  std::string LinkFormat; // "spir64" (SPIR bitcode), "spirv64" (SPIR-V), "nvptx64" (PTX)
  bool Lowered = false;   // it has DeviceGlobalStorageSet
  const _pi_device_binary_struct *Binary = nullptr; // lives as long as the process
};

// Every image of the embedded bundles.
const std::vector<EmbeddedImage> &embeddedImages();

// The image of source Name for link format Format, or null: with Lowered, only an
// image that has DeviceGlobalStorageSet; without, only one that has not.
const EmbeddedImage *findImage(const std::string &Name, const std::string &Format,
                               bool Lowered = false);
// Whether the suite was built with images of Format, and if not, why (for a skip).
bool hasImages(const std::string &Format);
std::string missingImagesReason(const std::string &Format);

// The image a program is created from: the shim's _pi_device_binary_struct,
// exactly as DeviceBinaries presents it. It is neither copied nor moved, so that
// a program may keep pointers into what get() returns.
class DeviceImage {
public:
  DeviceImage(const EmbeddedImage &Image, const LinkFormat &Format);
  DeviceImage(const DeviceImage &) = delete;
  DeviceImage &operator=(const DeviceImage &) = delete;

  const _pi_device_binary_struct *get() const { return Source.Binary; }
  const EmbeddedImage &source() const { return Source; }
  const LinkFormat &format() const { return Link; }

private:
  const EmbeddedImage &Source;
  const LinkFormat &Link;
};

} // namespace dglink::conformance
