// The body of every piPluginInit: version check and function-table fill.
#pragma once

#include <dglink/support/error.h>

namespace dglink {

// Parses "MAJOR.MINOR" (MINOR optional); false if Text is not a version.
DGLINK_SUPPORT_API bool parsePiVersion(const char *Text, int &Major, int &Minor);

// Checks that Plugin->PiVersion has this ABI's major version, then writes the
// adapter's PluginVersion, Targets (Name) and function table: as many entries as the
// caller's minor version has (an older caller's table is shorter, and its pi_plugin
// ends with it; a newer caller's extra entries stay as it set them). A mismatch is
// PI_ERROR_INVALID_OPERATION with a message naming both versions; Plugin is then
// left unchanged.
DGLINK_SUPPORT_API pi_result initPlugin(pi_plugin *Plugin, const char *Name,
                                        const pi_plugin_functions &Table);

// The bytes of the function table of PI minor version Minor (of this major).
DGLINK_SUPPORT_API size_t functionTableBytes(int Minor);

} // namespace dglink
