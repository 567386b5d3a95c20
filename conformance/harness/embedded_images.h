// The device images compiled into the conformance suite at build time (the
// generated source comes from conformance/device_code), with their symbol tables.
#pragma once

#include <cstddef>

namespace dglink::conformance {

struct EmbeddedImage {
  const char *Name;       // the source it came from: "link_caller", "chain_2", ...
  const char *LinkFormat; // "spir64" (SPIR bitcode), "spirv64" (SPIR-V), "nvptx64" (PTX)
  const unsigned char *Bytes;
  size_t Size;
  const char *Kernels; // space-separated kernel names
  const char *Exports; // space-separated symbols defined for other images
  const char *Imports; // space-separated symbols another image must define
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
