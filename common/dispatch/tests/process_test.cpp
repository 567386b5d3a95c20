// End-to-end tests of libdglink_pi.so's own discovery, driven by DGLINK_ADAPTER_PATH
// and DGLINK_ADAPTERS (set by the dispatch_process ctest entry).
#include "fake_adapters.h"

#include <dglink/dispatch.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <thread>
#include <vector>

namespace dglink::dispatch {
namespace {

using test::fakeFolder;

class DispatchProcess : public ::testing::Test {
protected:
  void SetUp() override {
    // Without the test's environment, discovery would load whatever real adapters
    // sit beside libdglink_pi.so.
    const char *Path = std::getenv("DGLINK_ADAPTER_PATH");
    const char *Names = std::getenv("DGLINK_ADAPTERS");
    if (Path == nullptr || Path != fakeFolder("good") || Names == nullptr ||
        std::string(Names) != "testfake")
      GTEST_SKIP() << "needs DGLINK_ADAPTER_PATH=" << fakeFolder("good")
                   << " DGLINK_ADAPTERS=testfake (run through ctest -R dispatch_process)";
  }

  // The dispatch.h record of Name, or an empty one.
  static dglink_adapter_info infoOf(const std::string &Name) {
    for (pi_uint32 I = 0; I < dglinkDispatchAdapterCount(); ++I) {
      dglink_adapter_info Info{};
      EXPECT_EQ(dglinkDispatchAdapterInfo(I, &Info), PI_SUCCESS);
      if (Info.Name == Name)
        return Info;
    }
    ADD_FAILURE() << Name << " was not considered";
    return dglink_adapter_info{"", "", "", "", PI_FALSE, 0};
  }

  // The call counters of the copy of testfake that libdglink_pi.so loaded.
  static test::FakeCounters fakeCounters() {
    const std::string Path =
        std::filesystem::canonical(fakeFolder("good")).string() + "/libdglink_adapter_testfake.so";
    void *Library = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    EXPECT_NE(Library, nullptr) << Path << " is not loaded";
    test::FakeCounters Counters(Library);
    dlclose(Library); // only dropped the reference RTLD_NOLOAD took
    return Counters;
  }
};

// First in this file, so that (run in order) the threads race to start discovery.
TEST_F(DispatchProcess, ConcurrentFirstCallsShareOneDiscovery) {
  std::vector<std::thread> Threads;
  std::vector<pi_platform> Seen(8, nullptr);
  std::vector<pi_uint32> Counts(8, 0);
  for (size_t I = 0; I < Seen.size(); ++I)
    Threads.emplace_back([&, I] {
      Counts[I] = dglinkDispatchAdapterCount();
      EXPECT_EQ(::piPlatformsGet(1, &Seen[I], nullptr), PI_SUCCESS);
    });
  for (std::thread &Thread : Threads)
    Thread.join();
  for (size_t I = 0; I < Seen.size(); ++I) {
    EXPECT_NE(Seen[I], nullptr);
    EXPECT_EQ(Seen[I], Seen[0]);
    EXPECT_EQ(Counts[I], Counts[0]);
  }
}

TEST_F(DispatchProcess, PlatformsComeFromTheNamedAdapterOnly) {
  pi_uint32 Count = 0;
  ASSERT_EQ(::piPlatformsGet(0, nullptr, &Count), PI_SUCCESS);
  ASSERT_EQ(Count, 1u);
  pi_platform Platform = nullptr;
  ASSERT_EQ(::piPlatformsGet(1, &Platform, nullptr), PI_SUCCESS);

  test::FakeCounters Counts = fakeCounters();
  ASSERT_TRUE(Counts.valid());
  Counts.reset();
  pi_device Device = nullptr;
  ASSERT_EQ(::piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 1, &Device, nullptr), PI_SUCCESS);
  EXPECT_NE(Device, nullptr);
  EXPECT_EQ(Counts["piDevicesGet"], 1u);

  EXPECT_EQ(::piPlatformsGet(0, &Platform, nullptr), PI_ERROR_INVALID_VALUE);
}

TEST_F(DispatchProcess, IntrospectionListsLoadedAndSkippedAdapters) {
  const dglink_adapter_info Fake = infoOf("testfake");
  EXPECT_EQ(Fake.Loaded, PI_TRUE);
  EXPECT_EQ(Fake.NumPlatforms, 1u);
  EXPECT_STREQ(Fake.SkipReason, "");
  EXPECT_STREQ(Fake.PluginVersion, PI_VERSION_STRING);
  EXPECT_EQ(std::string(Fake.Path), std::filesystem::canonical(fakeFolder("good")).string() +
                                        "/libdglink_adapter_testfake.so");

  const dglink_adapter_info Other = infoOf("testfake_other");
  EXPECT_EQ(Other.Loaded, PI_FALSE);
  EXPECT_EQ(Other.NumPlatforms, 0u);
  EXPECT_STREQ(Other.SkipReason, "not named in DGLINK_ADAPTERS (testfake)");
  EXPECT_STREQ(Other.PluginVersion, "");

  dglink_adapter_info Info{};
  EXPECT_EQ(dglinkDispatchAdapterInfo(dglinkDispatchAdapterCount(), &Info), PI_ERROR_INVALID_VALUE);
  EXPECT_EQ(dglinkDispatchAdapterInfo(0, nullptr), PI_ERROR_INVALID_VALUE);
}

TEST_F(DispatchProcess, SearchesItsOwnFolderThenTheAdapterPath) {
  Dl_info Info{};
  ASSERT_NE(dladdr(reinterpret_cast<void *>(&::piPlatformsGet), &Info), 0);
  const std::string OwnFolder = std::filesystem::canonical(Info.dli_fname).parent_path().string();
  ASSERT_EQ(dglinkDispatchDirectoryCount(), 2u);
  EXPECT_EQ(std::string(dglinkDispatchDirectory(0)), OwnFolder);
  EXPECT_EQ(std::string(dglinkDispatchDirectory(1)),
            std::filesystem::canonical(fakeFolder("good")).string());
  EXPECT_EQ(dglinkDispatchDirectory(2), nullptr);
}

TEST_F(DispatchProcess, TearDownReachesTheLoadedAdapters) {
  pi_uint32 Count = 0;
  ASSERT_EQ(::piPlatformsGet(0, nullptr, &Count), PI_SUCCESS); // discovery has run
  test::FakeCounters Counts = fakeCounters();
  ASSERT_TRUE(Counts.valid());
  Counts.reset();
  EXPECT_EQ(::piTearDown(nullptr), PI_SUCCESS);
  EXPECT_EQ(Counts["piTearDown"], 1u);
}

} // namespace
} // namespace dglink::dispatch
