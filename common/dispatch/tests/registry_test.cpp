// Unit tests of adapter discovery (AdapterRegistry) on the test-only adapter folders.
#include "fake_adapters.h"

#include <dglink/support/error.h>

#include <gtest/gtest.h>

#include <filesystem>

namespace dglink::dispatch {
namespace {

using test::fakeFolder;
using test::findRecord;

DiscoveryOptions folders(std::vector<std::string> Directories,
                         std::vector<std::string> Names = {}) {
  DiscoveryOptions Options;
  Options.Directories = std::move(Directories);
  Options.Names = std::move(Names);
  return Options;
}

std::vector<std::string> namesOf(const AdapterRegistry &Registry) {
  std::vector<std::string> Names;
  for (const AdapterRecord &Record : Registry.adapters())
    Names.push_back(Record.Name);
  return Names;
}

pi_uint32 platformCount(const AdapterRegistry &Registry) {
  pi_uint32 Count = ~0u;
  EXPECT_EQ(Registry.getPlatforms(0, nullptr, &Count), PI_SUCCESS);
  return Count;
}

std::string canonical(const std::string &Path) { return std::filesystem::canonical(Path).string(); }

TEST(DiscoveryOptions, ReadsPathAndFilter) {
  DiscoveryOptions Options =
      DiscoveryOptions::fromEnvironment("/own", "/a::/b: ", " opencl, level_zero ,,");
  EXPECT_EQ(Options.Directories, (std::vector<std::string>{"/own", "/a", "/b"}));
  EXPECT_EQ(Options.Names, (std::vector<std::string>{"opencl", "level_zero"}));
}

TEST(DiscoveryOptions, UnsetVariablesMeanOwnFolderAndEveryName) {
  DiscoveryOptions Options = DiscoveryOptions::fromEnvironment("/own", nullptr, nullptr);
  EXPECT_EQ(Options.Directories, std::vector<std::string>{"/own"});
  EXPECT_TRUE(Options.Names.empty());
  EXPECT_TRUE(DiscoveryOptions::fromEnvironment("/own", "", " , ").Names.empty());
  EXPECT_TRUE(DiscoveryOptions::fromEnvironment("", "", nullptr).Directories.empty());
}

TEST(AdapterRegistry, EmptyFolderGivesNoAdaptersAndNoPlatforms) {
  AdapterRegistry Registry(folders({fakeFolder("empty")}));
  EXPECT_TRUE(Registry.adapters().empty());
  EXPECT_EQ(platformCount(Registry), 0u);
  pi_platform Platform = nullptr;
  pi_uint32 Count = ~0u;
  EXPECT_EQ(Registry.getPlatforms(1, &Platform, &Count), PI_SUCCESS);
  EXPECT_EQ(Count, 0u);
  EXPECT_EQ(Platform, nullptr);
}

TEST(AdapterRegistry, MissingFolderAndNoFoldersAreHarmless) {
  AdapterRegistry Missing(folders({fakeFolder("no_such_folder")}));
  EXPECT_TRUE(Missing.adapters().empty());
  EXPECT_EQ(platformCount(Missing), 0u);
  AdapterRegistry None(folders({}));
  EXPECT_TRUE(None.adapters().empty());
  EXPECT_EQ(platformCount(None), 0u);
}

TEST(AdapterRegistry, ConsidersOnlyFilesNamedLikeAdapters) {
  AdapterRegistry Registry(folders({fakeFolder("good")}));
  // Not libdglink_adapter_.so, the decoys ending in .so.<major>.0 and .so.<major + 1>,
  // libtestfake.so, nor the folder named *.so.
  EXPECT_EQ(namesOf(Registry), (std::vector<std::string>{"testfake", "testfake_other"}));
}

TEST(AdapterRegistry, VersionedAdapterIsConsideredOnceByItsSoname) {
  // .so -> .so.<major> -> .so.<major>.<minor>.<patch>, as a build tree has dglink's own.
  AdapterRegistry Registry(folders({fakeFolder("versioned")}));
  ASSERT_EQ(namesOf(Registry), std::vector<std::string>{"testfake"});
  const AdapterRecord &Record = Registry.adapters()[0];
  EXPECT_TRUE(Record.Loaded) << Record.SkipReason;
  EXPECT_EQ(Record.Path, canonical(fakeFolder("versioned")) + "/libdglink_adapter_testfake" +
                             AdapterFileVersionedSuffix);
  EXPECT_EQ(platformCount(Registry), 1u);
}

TEST(AdapterRegistry, SonameAloneIsFoundAsAnInstalledTreeHasIt) {
  // An installed lib/ holds the .so.<major> link and the file it names, no plain .so.
  namespace fs = std::filesystem;
  const fs::path Folder = fs::path(::testing::TempDir()) / "dglink_installed_adapters";
  fs::remove_all(Folder);
  fs::create_directories(Folder);
  const std::string Soname = std::string("libdglink_adapter_testfake") + AdapterFileVersionedSuffix;
  const fs::path Target = fs::canonical(fakeFolder("versioned") + "/" + Soname);
  fs::copy_file(Target, Folder / Target.filename());
  fs::create_symlink(Target.filename(), Folder / Soname);
  {
    AdapterRegistry Registry(folders({Folder.string()}));
    ASSERT_EQ(namesOf(Registry), std::vector<std::string>{"testfake"});
    EXPECT_TRUE(Registry.adapters()[0].Loaded) << Registry.adapters()[0].SkipReason;
    EXPECT_EQ(Registry.adapters()[0].Path, (fs::canonical(Folder) / Soname).string());
  }
  fs::remove_all(Folder);
}

TEST(AdapterRegistry, LoadsAdaptersAndMergesTheirPlatforms) {
  AdapterRegistry Registry(folders({fakeFolder("good")}));
  ASSERT_EQ(Registry.adapters().size(), 2u);
  for (const AdapterRecord &Record : Registry.adapters()) {
    EXPECT_TRUE(Record.Loaded) << Record.Name << ": " << Record.SkipReason;
    EXPECT_TRUE(Record.SkipReason.empty());
    EXPECT_EQ(Record.Path,
              canonical(fakeFolder("good")) + "/libdglink_adapter_" + Record.Name + ".so");
    EXPECT_STREQ(Record.Plugin.Targets, Record.Name.c_str());
    EXPECT_STREQ(Record.Plugin.PluginVersion, PI_VERSION_STRING);
    ASSERT_EQ(Record.Platforms.size(), 1u);
    EXPECT_NE(Record.Library, nullptr);
  }
  EXPECT_EQ(Registry.findLoaded("testfake"), &Registry.adapters()[0]);
  EXPECT_EQ(Registry.findLoaded("nothing"), nullptr);

  ASSERT_EQ(platformCount(Registry), 2u);
  pi_platform Platforms[3] = {nullptr, nullptr, nullptr};
  pi_uint32 Count = 0;
  ASSERT_EQ(Registry.getPlatforms(3, Platforms, &Count), PI_SUCCESS);
  EXPECT_EQ(Count, 2u);
  EXPECT_EQ(Platforms[0], Registry.adapters()[0].Platforms[0]);
  EXPECT_EQ(Platforms[1], Registry.adapters()[1].Platforms[0]);
  EXPECT_EQ(Platforms[2], nullptr);
  // Each platform carries its own adapter's table, and the two adapters differ.
  const auto TableOf = [](pi_platform P) {
    return reinterpret_cast<const pi_handle_header *>(P)->Dispatch;
  };
  EXPECT_NE(TableOf(Platforms[0]), TableOf(Platforms[1]));

  // Fewer entries than platforms: the first ones, and the full count.
  pi_platform First = nullptr;
  ASSERT_EQ(Registry.getPlatforms(1, &First, &Count), PI_SUCCESS);
  EXPECT_EQ(First, Platforms[0]);
  EXPECT_EQ(Count, 2u);
  EXPECT_EQ(Registry.getPlatforms(1, &First, nullptr), PI_SUCCESS);
}

TEST(AdapterRegistry, PlatformsGetRejectsInvalidArguments) {
  AdapterRegistry Registry(folders({fakeFolder("good")}));
  pi_platform Platform = nullptr;
  pi_uint32 Count = 0;
  EXPECT_EQ(Registry.getPlatforms(0, &Platform, &Count), PI_ERROR_INVALID_VALUE);
  EXPECT_NE(lastErrorMessage().find("'NumEntries'"), std::string::npos) << lastErrorMessage();
  EXPECT_EQ(Registry.getPlatforms(0, nullptr, nullptr), PI_ERROR_INVALID_VALUE);
  EXPECT_NE(lastErrorMessage().find("'NumPlatforms'"), std::string::npos) << lastErrorMessage();
  EXPECT_EQ(Registry.getPlatforms(5, nullptr, nullptr), PI_ERROR_INVALID_VALUE);
}

// Every broken kind sits in broken/; each is skipped with its reason, none loads.
class BrokenAdapters : public ::testing::Test {
protected:
  AdapterRegistry Registry{folders({fakeFolder("broken")})};

  std::string reasonOf(const char *Name) {
    const AdapterRecord *Record = findRecord(Registry, Name);
    if (Record == nullptr) {
      ADD_FAILURE() << Name << " was not considered";
      return {};
    }
    EXPECT_FALSE(Record->Loaded) << Name;
    EXPECT_TRUE(Record->Platforms.empty()) << Name;
    return Record->SkipReason;
  }
};

TEST_F(BrokenAdapters, NoneLoadsAndNoPlatformsAppear) {
  EXPECT_EQ(namesOf(Registry), (std::vector<std::string>{
                                   "testfake_badversion", "testfake_garbage", "testfake_incomplete",
                                   "testfake_notanadapter", "testfake_refuses"}));
  for (const AdapterRecord &Record : Registry.adapters())
    EXPECT_FALSE(Record.Loaded) << Record.Name;
  EXPECT_EQ(platformCount(Registry), 0u);
}

TEST_F(BrokenAdapters, LibraryWithoutPiPluginInitIsNotAnAdapter) {
  EXPECT_EQ(reasonOf("testfake_notanadapter"), "not an adapter: it has no piPluginInit");
}

TEST_F(BrokenAdapters, FileThatIsNotALibraryFailsToOpen) {
  const std::string Reason = reasonOf("testfake_garbage");
  EXPECT_EQ(Reason.rfind("dlopen failed: ", 0), 0u) << Reason;
  EXPECT_NE(Reason.find("libdglink_adapter_testfake_garbage.so"), std::string::npos) << Reason;
}

TEST_F(BrokenAdapters, OtherPluginVersionIsAMismatch) {
  const std::string Reason = reasonOf("testfake_badversion");
  EXPECT_EQ(Reason, "version mismatch: the adapter implements PI 2.0, the dispatch layer "
                    "speaks PI " PI_VERSION_STRING "; major versions must match");
  EXPECT_STREQ(findRecord(Registry, "testfake_badversion")->Plugin.PluginVersion, "2.0");
}

TEST_F(BrokenAdapters, RefusedInitGivesTheAdaptersMessage) {
  const std::string Reason = reasonOf("testfake_refuses");
  EXPECT_EQ(Reason, "piPluginInit failed: PI_ERROR_INVALID_OPERATION: "
                    "piPluginInit(testfake_refuses): caller speaks PI " PI_VERSION_STRING
                    ", this adapter implements PI 2.0; major versions must match");
  EXPECT_STREQ(findRecord(Registry, "testfake_refuses")->Plugin.PluginVersion, "");
}

TEST_F(BrokenAdapters, IncompleteTableNamesTheMissingEntry) {
  EXPECT_EQ(reasonOf("testfake_incomplete"), "incomplete function table: no piQueueFinish");
}

TEST(AdapterRegistry, FirstAdapterOfANameWinsOverADuplicate) {
  AdapterRegistry Registry(folders({fakeFolder("second"), fakeFolder("good")}));
  const AdapterRecord *First = findRecord(Registry, "testfake");
  const AdapterRecord *Second = findRecord(Registry, "testfake", 1);
  ASSERT_NE(First, nullptr);
  ASSERT_NE(Second, nullptr);
  EXPECT_TRUE(First->Loaded);
  EXPECT_EQ(First->Path, canonical(fakeFolder("second")) + "/libdglink_adapter_testfake.so");
  EXPECT_FALSE(Second->Loaded);
  EXPECT_EQ(Second->Path, canonical(fakeFolder("good")) + "/libdglink_adapter_testfake.so");
  EXPECT_EQ(Second->SkipReason, "duplicate: adapter 'testfake' already loaded from " + First->Path);
  EXPECT_EQ(Registry.findLoaded("testfake"), First);
  // Only the winner's platform (and testfake_other's) is served.
  EXPECT_EQ(platformCount(Registry), 2u);
}

TEST(AdapterRegistry, SameFolderTwiceIsSearchedOnce) {
  AdapterRegistry Registry(
      folders({fakeFolder("good"), fakeFolder("good") + "/.", fakeFolder("empty") + "/../good"}));
  EXPECT_EQ(Registry.directories(), std::vector<std::string>{canonical(fakeFolder("good"))});
  EXPECT_EQ(namesOf(Registry), (std::vector<std::string>{"testfake", "testfake_other"}));
}

TEST(AdapterRegistry, FilterLoadsOnlyTheNamedAdapters) {
  AdapterRegistry Registry(
      folders({fakeFolder("good"), fakeFolder("broken")}, {"testfake_other", "level_zero"}));
  const AdapterRecord *Other = findRecord(Registry, "testfake_other");
  ASSERT_NE(Other, nullptr);
  EXPECT_TRUE(Other->Loaded);
  const AdapterRecord *Fake = findRecord(Registry, "testfake");
  ASSERT_NE(Fake, nullptr);
  EXPECT_FALSE(Fake->Loaded);
  EXPECT_EQ(Fake->SkipReason, "not named in DGLINK_ADAPTERS (testfake_other,level_zero)");
  // Filtered-out libraries are not even opened, broken ones included.
  EXPECT_EQ(Fake->Library, nullptr);
  for (const AdapterRecord &Record : Registry.adapters())
    if (Record.Name != "testfake_other") {
      EXPECT_EQ(Record.SkipReason.rfind("not named in DGLINK_ADAPTERS", 0), 0u) << Record.Name;
    }
  EXPECT_EQ(platformCount(Registry), 1u);
}

TEST(AdapterRegistry, TearDownReachesEveryLoadedAdapter) {
  AdapterRegistry Registry(folders({fakeFolder("good"), fakeFolder("broken")}));
  std::vector<test::FakeCounters> Counters;
  for (const char *Name : {"testfake", "testfake_other"}) {
    const AdapterRecord *Record = Registry.findLoaded(Name);
    ASSERT_NE(Record, nullptr) << Name;
    Counters.emplace_back(Record->Library.get());
    ASSERT_TRUE(Counters.back().valid());
    Counters.back().reset();
  }
  EXPECT_EQ(Registry.tearDown(nullptr), PI_SUCCESS);
  for (const test::FakeCounters &Count : Counters)
    EXPECT_EQ(Count["piTearDown"], 1u);
}

} // namespace
} // namespace dglink::dispatch
