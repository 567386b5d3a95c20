// Helpers shared by the dispatch tests: where the test-only adapters are built and
// how to read the call counters of a loaded one.
#pragma once

#include "adapter_registry.h"

#include <dlfcn.h>

#include <string>

namespace dglink::dispatch::test {

// fake_adapters/<Folder> in the build tree (see tests/CMakeLists.txt).
inline std::string fakeFolder(const char *Folder) {
  return std::string(DGLINK_TEST_FAKE_ROOT) + "/" + Folder;
}

// The call counters of a loaded test adapter.
class FakeCounters {
public:
  explicit FakeCounters(void *Library)
      : CallCount(reinterpret_cast<unsigned (*)(const char *)>(
            dlsym(Library, "dglinkTestFakeCallCount"))),
        Reset(reinterpret_cast<void (*)()>(dlsym(Library, "dglinkTestFakeResetCallCounts"))) {}

  bool valid() const { return CallCount != nullptr && Reset != nullptr; }
  unsigned operator[](const char *EntryPoint) const { return CallCount(EntryPoint); }
  void reset() const { Reset(); }

private:
  unsigned (*CallCount)(const char *);
  void (*Reset)();
};

// The record named Name among Registry's adapters, or null.
inline const AdapterRecord *findRecord(const AdapterRegistry &Registry, const std::string &Name,
                                       size_t Skip = 0) {
  for (const AdapterRecord &Record : Registry.adapters())
    if (Record.Name == Name && Skip-- == 0)
      return &Record;
  return nullptr;
}

} // namespace dglink::dispatch::test
