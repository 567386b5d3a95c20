// piPluginInit's shared body.
#include <dglink/support/plugin.h>

#include <cstddef>
#include <cstdio>
#include <cstring>

namespace dglink {

// A caller of an older minor version has a shorter function table (a newer minor only
// appends entries, pi.h): it ends where the first entry of the next minor begins, and
// nothing past it is the caller's to write.
size_t functionTableBytes(int Minor) {
  static_assert(PI_MINOR_VERSION == 2, "a new minor version: say where its entries begin");
  if (Minor <= 0)
    return offsetof(pi_plugin_functions, piMemBufferPartition); // the first of PI 1.1
  if (Minor == 1)
    return offsetof(pi_plugin_functions, piextUSMGetMemAllocInfo); // the first of PI 1.2
  return sizeof(pi_plugin_functions);
}

bool parsePiVersion(const char *Text, int &Major, int &Minor) {
  if (Text == nullptr)
    return false;
  int ParsedMajor = 0, ParsedMinor = 0, Consumed = 0;
  const size_t Length = strnlen(Text, sizeof(pi_plugin::PiVersion));
  if (Length == sizeof(pi_plugin::PiVersion))
    return false; // not terminated within the field
  if (std::sscanf(Text, "%d.%d%n", &ParsedMajor, &ParsedMinor, &Consumed) == 2 &&
      static_cast<size_t>(Consumed) == Length) {
  } else if (std::sscanf(Text, "%d%n", &ParsedMajor, &Consumed) == 1 &&
             static_cast<size_t>(Consumed) == Length) {
    ParsedMinor = 0;
  } else {
    return false;
  }
  if (ParsedMajor < 0 || ParsedMinor < 0)
    return false;
  Major = ParsedMajor;
  Minor = ParsedMinor;
  return true;
}

pi_result initPlugin(pi_plugin *Plugin, const char *Name, const pi_plugin_functions &Table) {
  if (Plugin == nullptr)
    return fail(PI_ERROR_INVALID_VALUE, "piPluginInit({}): argument 'PluginInfo' is null", Name);
  int Major = 0, Minor = 0;
  if (!parsePiVersion(Plugin->PiVersion, Major, Minor))
    return fail(PI_ERROR_INVALID_VALUE,
                "piPluginInit({}): PiVersion is not a \"MAJOR.MINOR\" version string", Name);
  if (Major != PI_MAJOR_VERSION)
    return fail(PI_ERROR_INVALID_OPERATION,
                "piPluginInit({}): caller speaks PI {}.{}, this adapter implements PI {}; "
                "major versions must match",
                Name, Major, Minor, PI_VERSION_STRING);
  std::snprintf(Plugin->PluginVersion, sizeof(Plugin->PluginVersion), "%s", PI_VERSION_STRING);
  Plugin->Targets = Name;
  // Only the entries of the caller's minor version: an older caller's pi_plugin ends
  // with its shorter table.
  std::memcpy(&Plugin->PiFunctionTable, &Table, functionTableBytes(Minor));
  return PI_SUCCESS;
}

} // namespace dglink
