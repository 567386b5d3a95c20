// The adapter loader shared by the CUDA and HIP unit tests: the adapter opened with
// dlopen (as the dispatch layer does) and its function table filled by piPluginInit.
// Header only, included by each test program's test_support.cpp.
#pragma once

#include <dglink/pi.h>

#include <dlfcn.h>

#include <cstring>
#include <string>

namespace dglink::test {

// The adapter library; Error says why it could not be opened or initialised.
struct LoadedAdapter {
  void *Library = nullptr;
  pi_plugin Plugin{};
  std::string Error;
};

// Opens SoName first (the test's run path finds it beside the other libraries, in
// the build tree and in a packaged tree), then File (where the build put it).
inline LoadedAdapter loadAdapter(const char *SoName, const char *File) {
  LoadedAdapter Result;
  Result.Library = dlopen(SoName, RTLD_NOW | RTLD_LOCAL);
  if (Result.Library == nullptr)
    Result.Library = dlopen(File, RTLD_NOW | RTLD_LOCAL);
  if (Result.Library == nullptr) {
    const char *Error = dlerror();
    Result.Error = Error ? Error : "dlopen failed";
    return Result;
  }
  void *Init = dlsym(Result.Library, "piPluginInit");
  if (Init == nullptr) {
    Result.Error = "no piPluginInit";
    return Result;
  }
  pi_result (*PluginInit)(pi_plugin *) = nullptr;
  std::memcpy(&PluginInit, &Init, sizeof(Init));
  std::strcpy(Result.Plugin.PiVersion, PI_VERSION_STRING);
  if (PluginInit(&Result.Plugin) != PI_SUCCESS)
    Result.Error = "piPluginInit failed";
  return Result;
}

// The adapter's last-error message (or why the adapter is not loaded).
inline std::string lastErrorOf(const LoadedAdapter &Adapter) {
  if (Adapter.Plugin.PiFunctionTable.piPluginGetLastError == nullptr)
    return "(adapter not loaded: " + Adapter.Error + ")";
  char *Message = nullptr;
  Adapter.Plugin.PiFunctionTable.piPluginGetLastError(&Message);
  return Message != nullptr ? Message : "";
}

} // namespace dglink::test
