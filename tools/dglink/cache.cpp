// `dglink cache list | verify | clear` over the runtime's persistent-cache functions.
#include "cache.h"

#include <dglink/runtime.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <string>

namespace dglink::tools {
namespace {

std::string when(int64_t Seconds) {
  const std::time_t Time = static_cast<std::time_t>(Seconds);
  std::tm Utc{};
  gmtime_r(&Time, &Utc);
  char Text[32];
  std::strftime(Text, sizeof(Text), "%Y-%m-%d %H:%M:%S UTC", &Utc);
  return Text;
}

// The key's readable lines, indented.
std::string indentedKey(const std::string &Key) {
  std::string Text = "    ";
  for (const char C : Key) {
    Text += C;
    if (C == '\n')
      Text += "    ";
  }
  return Text.substr(0, Text.size() - 4);
}

int fail(const std::string &Action, const runtime::Status &Failure) {
  std::fprintf(stderr, "dglink cache %s: %s\n", Action.c_str(), Failure.Message.c_str());
  return 2;
}

} // namespace

int runCache(const CacheOptions &Options) {
  const std::string Directory = Options.Directory.empty()
                                    ? runtime::PersistentCacheSettings::fromEnvironment().Directory
                                    : Options.Directory;
  if (Directory.empty()) {
    std::fprintf(stderr,
                 "dglink cache: no directory: give --dir, or set DGLINK_CACHE_DIR or HOME\n");
    return 2;
  }
  if (Options.Action == "clear") {
    std::error_code Error;
    if (!std::filesystem::exists(Directory, Error)) {
      std::cout << Directory << ": no cache there, nothing to clear\n";
      return 0;
    }
    if (runtime::Status Cleared = runtime::clearPersistentCache(Directory); !Cleared.ok())
      return fail(Options.Action, Cleared);
    std::cout << Directory << ": cleared\n";
    return 0;
  }
  runtime::Expected<std::vector<runtime::PersistentEntry>> Entries =
      runtime::listPersistentCache(Directory);
  if (!Entries)
    return fail(Options.Action, Entries.status());
  size_t Bad = 0;
  uint64_t Bytes = 0;
  for (const runtime::PersistentEntry &Entry : *Entries) {
    Bad += Entry.Valid ? 0 : 1;
    Bytes += Entry.Size;
  }
  if (Options.Json) {
    nlohmann::json List = nlohmann::json::array();
    for (const runtime::PersistentEntry &Entry : *Entries)
      List.push_back({{"path", Entry.Path},
                      {"size", Entry.Size},
                      {"last_used", Entry.LastUsed},
                      {"valid", Entry.Valid},
                      {"problem", Entry.Problem},
                      {"key", Entry.Key}});
    std::cout << nlohmann::json{{"directory", Directory}, {"bytes", Bytes}, {"entries", List}}.dump(
                     2)
              << "\n";
  } else {
    std::cout << Directory << ": " << Entries->size()
              << (Entries->size() == 1 ? " entry, " : " entries, ") << Bytes << " bytes, " << Bad
              << " not valid\n";
    for (const runtime::PersistentEntry &Entry : *Entries) {
      std::cout << "\n"
                << std::filesystem::path(Entry.Path).filename().string() << "  " << Entry.Size
                << " bytes, last used " << when(Entry.LastUsed) << ", "
                << (Entry.Valid ? "valid" : "NOT VALID: " + Entry.Problem) << "\n";
      if (Options.Action == "list" && Entry.Valid)
        std::cout << indentedKey(Entry.Key);
    }
  }
  if (Options.Action != "verify")
    return 0;
  if (Options.RemoveBad && Bad != 0) {
    for (const runtime::PersistentEntry &Entry : *Entries)
      if (!Entry.Valid) {
        std::error_code Error;
        std::filesystem::remove(Entry.Path, Error);
      }
    std::cout << "removed " << Bad << (Bad == 1 ? " entry that was" : " entries that were")
              << " not valid\n";
    return 0;
  }
  return Bad == 0 ? 0 : 1;
}

} // namespace dglink::tools
