// piPluginInit's shared body.
#include <dglink/support/plugin.h>

#include <cstdio>
#include <cstring>

namespace dglink {

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
  Plugin->PiFunctionTable = Table;
  return PI_SUCCESS;
}

} // namespace dglink
