// Turns collected images into one program on one device: create and build a lone image
// with no imports, else create and compile each image and link them with piProgramLink.
#pragma once

#include "link_plan.h"

#include <cstdint>
#include <vector>

namespace dglink::runtime::detail {

struct BuiltHandle {
  pi_program Program = nullptr; // one reference, the caller's
  bool Linked = false;          // made by piProgramLink
};

// Failures carry the driver's code and message and the build log of the program that
// failed; nothing is left behind (every intermediate program is released).
Expected<BuiltHandle> buildProgram(const pi_plugin_functions &Table, pi_context Context,
                                   pi_device Device, const CollectedImages &Images,
                                   const std::string &Options);

// The driver's binary of a built program for Device (PI_PROGRAM_INFO_BINARIES); empty
// where the backend gives none back.
std::vector<uint8_t> programBinary(const pi_plugin_functions &Table, pi_program Program);

// A program from a binary programBinary gave for the same images: created with
// piProgramCreateWithBinary and the images' property sets as flat metadata (their
// imports left out: the binary has them resolved), then built.
Expected<BuiltHandle> buildFromBinary(const pi_plugin_functions &Table, pi_context Context,
                                      pi_device Device, const std::vector<uint8_t> &Binary,
                                      const CollectedImages &Images, const std::string &Options);

} // namespace dglink::runtime::detail
