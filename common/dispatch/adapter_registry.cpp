// Adapter discovery: scanning folders, loading and checking each adapter library.
#include "adapter_registry.h"

#include <dglink/support/error.h>
#include <dglink/support/log.h>
#include <dglink/support/plugin.h>

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <tuple>

namespace dglink::dispatch {
namespace {

std::string_view trim(std::string_view Text) {
  const auto IsSpace = [](char C) { return C == ' ' || C == '\t' || C == '\n' || C == '\r'; };
  while (!Text.empty() && IsSpace(Text.front()))
    Text.remove_prefix(1);
  while (!Text.empty() && IsSpace(Text.back()))
    Text.remove_suffix(1);
  return Text;
}

// The non-empty, trimmed items of a Separator-separated list; null gives none.
std::vector<std::string> splitList(const char *Text, char Separator) {
  std::vector<std::string> Items;
  if (Text == nullptr)
    return Items;
  std::string_view Rest(Text);
  while (true) {
    const size_t End = Rest.find(Separator);
    const std::string_view Item = trim(Rest.substr(0, End));
    if (!Item.empty())
      Items.emplace_back(Item);
    if (End == std::string_view::npos)
      break;
    Rest.remove_prefix(End + 1);
  }
  return Items;
}

// The adapter name in FileName, or "" when FileName is not an adapter's; Versioned
// tells which of the two suffixes it has.
std::string adapterNameOf(std::string_view FileName, bool &Versioned) {
  const std::string_view Prefix(AdapterFilePrefix);
  for (const std::string_view Suffix : {AdapterFileSuffix, AdapterFileVersionedSuffix}) {
    if (FileName.size() <= Prefix.size() + Suffix.size() ||
        FileName.substr(0, Prefix.size()) != Prefix ||
        FileName.substr(FileName.size() - Suffix.size()) != Suffix)
      continue;
    Versioned = Suffix != AdapterFileSuffix;
    return std::string(
        FileName.substr(Prefix.size(), FileName.size() - Prefix.size() - Suffix.size()));
  }
  return {};
}

std::string joined(const std::vector<std::string> &Items, const char *Separator) {
  std::string Text;
  for (const std::string &Item : Items)
    Text += (Text.empty() ? "" : Separator) + Item;
  return Text;
}

// The dynamic object this code was linked into (libdglink_pi.so, or a test
// program), so that discovery never loads the dispatch layer as its own adapter.
const link_map *ownObject() {
  static const link_map *Own = [] {
    Dl_info Info{};
    link_map *Map = nullptr;
    if (dladdr1(reinterpret_cast<void *>(&ownObject), &Info, reinterpret_cast<void **>(&Map),
                RTLD_DL_LINKMAP) == 0)
      return static_cast<link_map *>(nullptr);
    return Map;
  }();
  return Own;
}

// The message of the last dl* error, or Fallback when there is none.
std::string dlError(const char *Fallback) {
  const char *Message = dlerror();
  return Message != nullptr ? Message : Fallback;
}

// What an adapter's failing call left: "<code>: <message>".
std::string describeFailure(pi_result Code) {
  const std::string &Message = lastErrorMessage();
  return std::string(resultName(Code)) + ": " + (Message.empty() ? "(no message)" : Message);
}

} // namespace

void LibraryCloser::operator()(void *Library) const {
  if (Library != nullptr)
    dlclose(Library);
}

DiscoveryOptions DiscoveryOptions::fromEnvironment(const std::string &OwnDirectory,
                                                   const char *AdapterPath, const char *Adapters) {
  DiscoveryOptions Options;
  if (!OwnDirectory.empty())
    Options.Directories.push_back(OwnDirectory);
  for (std::string &Directory : splitList(AdapterPath, ':'))
    Options.Directories.push_back(std::move(Directory));
  Options.Names = splitList(Adapters, ',');
  return Options;
}

AdapterRegistry::AdapterRegistry(DiscoveryOptions Options) : Names(std::move(Options.Names)) {
  // The same folder named twice (own folder also on DGLINK_ADAPTER_PATH) would turn
  // every adapter in it into its own duplicate.
  for (const std::string &Directory : Options.Directories) {
    std::error_code Error;
    std::filesystem::path Canonical = std::filesystem::canonical(Directory, Error);
    std::string Key =
        Error ? std::filesystem::path(Directory).lexically_normal().string() : Canonical.string();
    if (std::find(Directories.begin(), Directories.end(), Key) == Directories.end())
      Directories.push_back(std::move(Key));
  }

  for (const std::string &Directory : Directories)
    scanDirectory(Directory);

  for (const std::string &Name : Names) {
    const bool Found =
        std::any_of(Adapters.begin(), Adapters.end(),
                    [&](const AdapterRecord &Record) { return Record.Name == Name; });
    if (!Found)
      logger().warn("DGLINK_ADAPTERS names '{}', but no {}{}{} (or {}) is in any of: {}", Name,
                    AdapterFilePrefix, Name, AdapterFileSuffix, AdapterFileVersionedSuffix,
                    joined(Directories, ", "));
  }

  for (const AdapterRecord &Record : Adapters)
    AllPlatforms.insert(AllPlatforms.end(), Record.Platforms.begin(), Record.Platforms.end());
}

AdapterRegistry::~AdapterRegistry() = default;

const AdapterRecord *AdapterRegistry::findLoaded(const std::string &Name) const {
  for (const AdapterRecord &Record : Adapters)
    if (Record.Loaded && Record.Name == Name)
      return &Record;
  return nullptr;
}

bool AdapterRegistry::accepts(const std::string &Name) const {
  return Names.empty() || std::find(Names.begin(), Names.end(), Name) != Names.end();
}

void AdapterRegistry::scanDirectory(const std::string &Directory) {
  std::error_code Error;
  std::filesystem::directory_iterator Iterator(Directory, Error);
  if (Error) {
    logger().debug("adapter folder {} not searched: {}", Directory, Error.message());
    return;
  }
  struct FoundFile {
    std::string Name;
    bool Unversioned; // sorts the SONAME (.so.<major>) before the plain .so of a name
    std::string Path;
    bool operator<(const FoundFile &Other) const {
      return std::tie(Name, Unversioned, Path) <
             std::tie(Other.Name, Other.Unversioned, Other.Path);
    }
  };
  // Sorted, because directory order is arbitrary and the first adapter of a name wins.
  std::vector<FoundFile> Found;
  for (; !Error && Iterator != std::filesystem::directory_iterator(); Iterator.increment(Error)) {
    bool Versioned = false;
    std::string Name = adapterNameOf(Iterator->path().filename().string(), Versioned);
    std::error_code TypeError;
    if (!Name.empty() && Iterator->is_regular_file(TypeError))
      Found.push_back({std::move(Name), !Versioned, Iterator->path().string()});
  }
  if (Error)
    logger().warn("adapter folder {}: listing stopped early: {}", Directory, Error.message());
  std::sort(Found.begin(), Found.end());
  // libdglink_adapter_<name>.so -> .so.<major> -> .so.<major>.<minor>.<patch> in a build
  // tree: one library under two names, considered once, by its SONAME.
  std::string LastName, LastFile;
  for (FoundFile &File : Found) {
    std::error_code CanonicalError;
    std::string Canonical = std::filesystem::canonical(File.Path, CanonicalError).string();
    if (!CanonicalError && File.Name == LastName && Canonical == LastFile) {
      logger().debug("adapter file {} is {} again: considered once", File.Path, Canonical);
      continue;
    }
    LastName = File.Name;
    LastFile = CanonicalError ? std::string() : std::move(Canonical);
    consider(std::move(File.Name), std::move(File.Path));
  }
}

void AdapterRegistry::consider(std::string Name, std::string Path) {
  AdapterRecord Record;
  Record.Name = std::move(Name);
  Record.Path = std::move(Path);
  if (!accepts(Record.Name)) {
    Record.SkipReason = "not named in DGLINK_ADAPTERS (" + joined(Names, ",") + ")";
    logger().info("adapter '{}' ({}) skipped: {}", Record.Name, Record.Path, Record.SkipReason);
  } else if (const AdapterRecord *First = findLoaded(Record.Name)) {
    Record.SkipReason =
        "duplicate: adapter '" + Record.Name + "' already loaded from " + First->Path;
    logger().warn("adapter '{}' ({}) skipped: {}", Record.Name, Record.Path, Record.SkipReason);
  } else {
    Record.SkipReason = load(Record);
    Record.Loaded = Record.SkipReason.empty();
    if (Record.Loaded)
      logger().info("adapter '{}' loaded from {}: {} platform(s)", Record.Name, Record.Path,
                    Record.Platforms.size());
    else
      logger().warn("adapter '{}' ({}) skipped: {}", Record.Name, Record.Path, Record.SkipReason);
  }
  Adapters.push_back(std::move(Record));
}

std::string AdapterRegistry::load(AdapterRecord &Record) {
  dlerror(); // forget an older error, so the messages below are this library's
  LibraryHandle Library(dlopen(Record.Path.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!Library)
    return "dlopen failed: " + dlError("unknown error");

  link_map *Map = nullptr;
  if (dlinfo(Library.get(), RTLD_DI_LINKMAP, &Map) != 0)
    return "dlinfo failed: " + dlError("unknown error");
  if (Map == ownObject())
    return "this is the dispatch layer itself, not an adapter";

  void *Init = dlsym(Library.get(), "piPluginInit");
  if (Init == nullptr)
    return "not an adapter: it has no piPluginInit";
  // dlsym also searches the library's dependencies: a library that merely links an
  // adapter (or libdglink_pi) is not itself one.
  Dl_info InitInfo{};
  link_map *InitMap = nullptr;
  if (dladdr1(Init, &InitInfo, reinterpret_cast<void **>(&InitMap), RTLD_DL_LINKMAP) == 0 ||
      InitMap != Map)
    return std::string("not an adapter: its piPluginInit comes from ") +
           (InitInfo.dli_fname != nullptr ? InitInfo.dli_fname : "another library");

  pi_plugin &Plugin = Record.Plugin;
  Plugin = pi_plugin{};
  std::snprintf(Plugin.PiVersion, sizeof(Plugin.PiVersion), "%s", PI_VERSION_STRING);
  setLastError(PI_SUCCESS, {});
  const pi_result InitResult = reinterpret_cast<decltype(&piPluginInit)>(Init)(&Plugin);
  if (InitResult != PI_SUCCESS) {
    Plugin = pi_plugin{};
    return "piPluginInit failed: " + describeFailure(InitResult);
  }
  // From here on the adapter's code has run and may have started threads or opened
  // drivers: keep it mapped even if it is skipped.
  Record.Library = std::move(Library);

  Plugin.PluginVersion[sizeof(Plugin.PluginVersion) - 1] = '\0';
  int Major = 0, Minor = 0;
  if (!parsePiVersion(Plugin.PluginVersion, Major, Minor))
    return std::string("piPluginInit reported PluginVersion \"") + Plugin.PluginVersion +
           "\", which is not a \"MAJOR.MINOR\" version";
  if (Major != PI_MAJOR_VERSION)
    return std::string("version mismatch: the adapter implements PI ") + Plugin.PluginVersion +
           ", the dispatch layer speaks PI " + PI_VERSION_STRING + "; major versions must match";

  std::vector<std::string> Missing;
#define DGLINK_CHECK_ENTRY(Name, Ret, Params)                                                      \
  if (Plugin.PiFunctionTable.Name == nullptr)                                                      \
    Missing.emplace_back(#Name);
  PI_ENTRY_POINTS(DGLINK_CHECK_ENTRY)
#undef DGLINK_CHECK_ENTRY
  if (!Missing.empty())
    return "incomplete function table: no " + joined(Missing, ", ");

  const auto PlatformsGet = Plugin.PiFunctionTable.piPlatformsGet;
  pi_uint32 Count = 0;
  setLastError(PI_SUCCESS, {});
  if (pi_result Result = PlatformsGet(0, nullptr, &Count); Result != PI_SUCCESS)
    return "piPlatformsGet failed: " + describeFailure(Result);
  std::vector<pi_platform> Platforms(Count);
  if (Count != 0) {
    pi_uint32 Written = 0;
    if (pi_result Result = PlatformsGet(Count, Platforms.data(), &Written); Result != PI_SUCCESS)
      return "piPlatformsGet failed: " + describeFailure(Result);
    Platforms.resize(std::min(Count, Written));
  }
  // A platform without a function table would crash the first call routed through it.
  for (size_t I = 0; I < Platforms.size(); ++I)
    if (Platforms[I] == nullptr ||
        reinterpret_cast<const pi_handle_header *>(Platforms[I])->Dispatch == nullptr)
      return "piPlatformsGet returned platform " + std::to_string(I) +
             (Platforms[I] == nullptr ? " as null" : " without a function table");
  Record.Platforms = std::move(Platforms);
  return {};
}

pi_result AdapterRegistry::getPlatforms(pi_uint32 NumEntries, pi_platform *Platforms,
                                        pi_uint32 *NumPlatforms) const {
  if (Platforms != nullptr && NumEntries == 0)
    return fail(PI_ERROR_INVALID_VALUE,
                "piPlatformsGet: argument 'NumEntries' is 0 but 'Platforms' is not null");
  if (Platforms == nullptr && NumPlatforms == nullptr)
    return fail(PI_ERROR_INVALID_VALUE,
                "piPlatformsGet: arguments 'Platforms' and 'NumPlatforms' are both null");
  if (Platforms != nullptr) {
    const size_t Count = std::min<size_t>(NumEntries, AllPlatforms.size());
    std::copy_n(AllPlatforms.begin(), Count, Platforms);
  }
  if (NumPlatforms != nullptr)
    *NumPlatforms = static_cast<pi_uint32>(AllPlatforms.size());
  return PI_SUCCESS;
}

pi_result AdapterRegistry::tearDown(void *PluginParameter) const {
  pi_result First = PI_SUCCESS;
  std::string FirstMessage;
  for (const AdapterRecord &Record : Adapters) {
    if (!Record.Loaded)
      continue;
    const pi_result Result = Record.Plugin.PiFunctionTable.piTearDown(PluginParameter);
    if (Result != PI_SUCCESS) {
      logger().warn("adapter '{}': piTearDown failed: {}", Record.Name, describeFailure(Result));
      if (First == PI_SUCCESS) {
        First = Result;
        FirstMessage = "adapter '" + Record.Name + "': " + lastErrorMessage();
      }
    }
  }
  // The returned code and the last-error message must describe the same failure.
  return First == PI_SUCCESS ? First : setLastError(First, std::move(FirstMessage));
}

} // namespace dglink::dispatch
