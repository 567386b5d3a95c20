// The device images compiled into the conformance suite at build time (the
// generated source comes from conformance/device_code), with their symbol tables
// and device globals.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dglink::conformance {

// A device global an image defines, as its .globals declaration gives it.
struct EmbeddedDeviceGlobal {
  const char *UniqueId;      // the name piextEnqueueDeviceGlobalVariable* takes
  const char *Symbol;        // the variable's name in the device code
  uint32_t Size;             // bytes
  uint32_t DeviceImageScope; // 0 or 1
  uint32_t HostAccess;       // DPC++'s sycl-host-access: 0 read, 1 write, 2 read_write, 3 none
};

struct EmbeddedImage {
  const char *Name;       // the source it came from: "link_caller", "chain_2", ...
  const char *LinkFormat; // "spir64" (SPIR bitcode), "spirv64" (SPIR-V), "nvptx64" (PTX)
  const unsigned char *Bytes;
  size_t Size;
  const char *Kernels; // space-separated kernel names
  const char *Exports; // space-separated symbols defined for other images
  const char *Imports; // space-separated symbols another image must define
  // The variables of its .globals declaration; null when NumDeviceGlobals is 0.
  const EmbeddedDeviceGlobal *DeviceGlobals;
  size_t NumDeviceGlobals;
};

// A link format for which no image was built, and why.
struct DisabledImageTarget {
  const char *LinkFormat;
  const char *Reason;
};

extern const EmbeddedImage EmbeddedImages[];
extern const size_t NumEmbeddedImages;
extern const DisabledImageTarget DisabledImageTargets[];
extern const size_t NumDisabledImageTargets;

} // namespace dglink::conformance
