// The device code compiled into the conformance suite at build time: one bundle per
// source, made by the compiler shim (dglink-post-link, docs/shim.md) and embedded as
// the bytes of the bundle file by conformance/device_code; harness/images.h reads
// them.
#pragma once

#include <cstddef>

namespace dglink::conformance {

// The bundle of one source ("link_caller", "chain_2", ...): an image per target.
struct EmbeddedBundle {
  const char *Name;
  const unsigned char *Bytes;
  size_t Size;
};

// A link format for which no image was built, and why.
struct DisabledImageTarget {
  const char *LinkFormat;
  const char *Reason;
};

extern const EmbeddedBundle EmbeddedBundles[];
extern const size_t NumEmbeddedBundles;
extern const DisabledImageTarget DisabledImageTargets[];
extern const size_t NumDisabledImageTargets;

} // namespace dglink::conformance
