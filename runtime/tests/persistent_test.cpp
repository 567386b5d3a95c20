// The persistent program cache, per device: a second runtime and a second process get
// the program without compiling or linking; truncated, corrupt, foreign-version and
// concurrently written entries are detected and rebuilt; a full cache evicts the least
// recently used entries. Skipped where the backend gives no program binary back.
#include "runtime_fixture.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include <sys/wait.h>

namespace dglink::runtime {
namespace {

namespace fs = std::filesystem;

// Set in the environment of the child process SecondProcessLoadsWithoutCompiling starts.
constexpr const char *ChildDirectoryVariable = "DGLINK_RUNTIME_TEST_CHILD_CACHE_DIR";

std::vector<uint8_t> readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  return {std::istreambuf_iterator<char>(In), std::istreambuf_iterator<char>()};
}

void writeFile(const std::string &Path, const std::vector<uint8_t> &Bytes) {
  std::ofstream Out(Path, std::ios::binary | std::ios::trunc);
  Out.write(reinterpret_cast<const char *>(Bytes.data()),
            static_cast<std::streamsize>(Bytes.size()));
}

int32_t callerValue(size_t I) { return int32_t(I) * 7 + 5; }

class RuntimePersistent : public RuntimeDeviceTest {
protected:
  void SetUp() override {
    RuntimeDeviceTest::SetUp();
    if (HasFatalFailure() || IsSkipped())
      return;
    std::string Template = ::testing::TempDir() + "dglink_runtime_cache_XXXXXX";
    ASSERT_NE(mkdtemp(Template.data()), nullptr) << Template;
    Directory = Template;
  }
  void TearDown() override {
    RuntimeDeviceTest::TearDown();
    std::error_code Ignored;
    if (!Directory.empty())
      fs::remove_all(Directory, Ignored);
  }

  std::unique_ptr<Runtime> cachedRuntime(uint64_t MaxBytes = uint64_t(1) << 30) {
    PersistentCacheSettings Settings;
    Settings.Enabled = true;
    Settings.Directory = Directory;
    Settings.MaxBytes = MaxBytes;
    return std::make_unique<Runtime>(testing::countingTable(), Settings);
  }

  // The link pair registered in Target, and link_caller's kernel made.
  void registerLinkPair(Runtime &Target) {
    for (const char *Name : {"link_caller", "link_callee"}) {
      const testing::BundleBytes Bytes = testing::conformanceBundle(Name);
      ASSERT_NE(Bytes.Data, nullptr);
      ASSERT_TRUE(
          Target.registerBundle(Bytes.Data, Bytes.Size, std::string(Name) + ".bundle").ok());
    }
  }

  // Builds link_caller once with the cache on; skips where no binary comes back.
  void fillCache() {
    std::unique_ptr<Runtime> First = cachedRuntime();
    ASSERT_NO_FATAL_FAILURE(registerLinkPair(*First));
    Expected<Program> Built = First->getOrBuildProgram(request("link_caller"));
    ASSERT_TRUE(Built.ok()) << Built.status().Message;
    if (First->cacheStats().PersistentStores == 0)
      GTEST_SKIP() << "the backend gives no program binary back (PI_PROGRAM_INFO_BINARIES), "
                      "so there is nothing to keep on disk";
    ASSERT_EQ(entries().size(), 1u);
  }

  std::vector<PersistentEntry> entries() {
    Expected<std::vector<PersistentEntry>> Listed = listPersistentCache(Directory);
    EXPECT_TRUE(Listed.ok()) << Listed.status().Message;
    return Listed.ok() ? *Listed : std::vector<PersistentEntry>{};
  }

  // A fresh runtime over the cache gets link_caller; Expect says from where.
  enum class From { Disk, Build };
  void acquireAgain(From Expect, const std::string &Trace) {
    SCOPED_TRACE(Trace);
    std::unique_ptr<Runtime> Fresh = cachedRuntime();
    ASSERT_NO_FATAL_FAILURE(registerLinkPair(*Fresh));
    testing::piCalls().reset();
    Expected<Kernel> K = Fresh->createKernel(request("link_caller"));
    ASSERT_TRUE(K.ok()) << K.status().Message;
    const CacheStats Stats = Fresh->cacheStats();
    if (Expect == From::Disk) {
      EXPECT_EQ(Stats.PersistentHits, 1u);
      EXPECT_EQ(testing::piCalls().Creates.load(), 1) << "the cached binary, as one image";
      EXPECT_EQ(testing::piCalls().Builds.load(), 1);
      EXPECT_EQ(testing::piCalls().Compiles.load(), 0);
      EXPECT_EQ(testing::piCalls().Links.load(), 0);
    } else {
      EXPECT_EQ(Stats.PersistentHits, 0u);
      EXPECT_EQ(Stats.PersistentRejected, 1u);
      EXPECT_EQ(testing::piCalls().Links.load(), 1);
      EXPECT_EQ(Stats.PersistentStores, 1u) << "the bad entry is replaced";
    }
    if (executesKernels())
      runAndCompare(*K, callerValue);
  }

  std::string Directory;
};
DGLINK_INSTANTIATE_FOR_DEVICES(RuntimePersistent);

TEST_P(RuntimePersistent, SecondRuntimeLoadsWithoutCompiling) {
  ASSERT_NO_FATAL_FAILURE(fillCache());
  if (IsSkipped())
    return;
  const std::vector<PersistentEntry> Listed = entries();
  ASSERT_EQ(Listed.size(), 1u);
  EXPECT_TRUE(Listed[0].Valid) << Listed[0].Problem;
  EXPECT_NE(Listed[0].Key.find("backend: " + GetParam().Backend + "\ndevice: " + GetParam().Name),
            std::string::npos)
      << Listed[0].Key;
  EXPECT_NE(Listed[0].Key.find("image: link_caller"), std::string::npos) << Listed[0].Key;
  acquireAgain(From::Disk, "second runtime");
}

TEST_P(RuntimePersistent, SecondProcessLoadsWithoutCompiling) {
  ASSERT_NO_FATAL_FAILURE(fillCache());
  if (IsSkipped())
    return;
  const std::string Marker = Directory + "/child.ok";
  const std::string Command =
      std::string(ChildDirectoryVariable) + "=" + Directory + " '" +
      fs::read_symlink("/proc/self/exe").string() +
      "' --gtest_also_run_disabled_tests "
      "--gtest_filter='*RuntimePersistent.DISABLED_ChildProcessLoadsFromTheCache/" +
      GetParam().Id + "' > " + Directory + "/child.log 2>&1";
  const int Status = std::system(Command.c_str());
  const std::vector<uint8_t> Log = readFile(Directory + "/child.log");
  ASSERT_TRUE(WIFEXITED(Status) && WEXITSTATUS(Status) == 0) << "the child process failed:\n"
                                                             << std::string(Log.begin(), Log.end());
  EXPECT_TRUE(fs::exists(Marker)) << "the child did not run the scenario";
}

// The child of SecondProcessLoadsWithoutCompiling (disabled: only that test runs it).
TEST_P(RuntimePersistent, DISABLED_ChildProcessLoadsFromTheCache) {
  const char *Parent = std::getenv(ChildDirectoryVariable);
  if (Parent == nullptr)
    GTEST_SKIP() << "runs only as the child process of SecondProcessLoadsWithoutCompiling";
  std::error_code Ignored;
  fs::remove_all(Directory, Ignored);
  Directory = Parent;
  acquireAgain(From::Disk, "second process");
  if (!HasFailure())
    writeFile(Directory + "/child.ok", {});
  Directory.clear(); // the parent's to remove
}

// Device globals in a program that comes from disk: the initializers are there, a value
// the host writes reaches a kernel and comes back. On a device whose device globals are
// lowered (PoCL), the program keeps its storage layout and the kernels that take it
// (docs/runtime.md, "The persistent program cache").
TEST_P(RuntimePersistent, DeviceGlobalsWorkInAProgramFromTheCache) {
  for (int Round = 0; Round < 2; ++Round) {
    SCOPED_TRACE(Round == 0 ? "built and stored" : "loaded from disk");
    std::unique_ptr<Runtime> R = cachedRuntime();
    const testing::BundleBytes Bytes = testing::conformanceBundle("device_globals");
    ASSERT_NE(Bytes.Data, nullptr);
    ASSERT_TRUE(R->registerBundle(Bytes.Data, Bytes.Size, "device_globals.bundle").ok());
    testing::piCalls().reset();
    Expected<Kernel> Initialized = R->createKernel(request("dg_copy_initialized"));
    ASSERT_TRUE(Initialized.ok()) << Initialized.status().Message;
    const CacheStats Stats = R->cacheStats();
    if (Round == 0) {
      if (Stats.PersistentStores == 0)
        GTEST_SKIP() << "the backend gives no program binary back (PI_PROGRAM_INFO_BINARIES), "
                        "so there is nothing to keep on disk";
      if (Initialized->program().images().front().Lowered)
        RecordProperty("lowered", "yes");
    } else {
      EXPECT_EQ(Stats.PersistentHits, 1u);
      EXPECT_EQ(testing::piCalls().Compiles.load(), 0);
      EXPECT_EQ(testing::piCalls().Links.load(), 0);
    }
    const pi_program Program = Initialized->program().get();
    const int32_t Written = 41 + Round;
    ASSERT_PI_SUCCESS(piextEnqueueDeviceGlobalVariableWrite(Queue.get(), Program, "dg_counter_uid",
                                                            PI_TRUE, sizeof(Written), 0, &Written,
                                                            0, nullptr, nullptr));
    if (!executesKernels())
      continue;
    std::vector<int32_t> Values;
    ASSERT_NO_FATAL_FAILURE(runOnBuffer(Initialized->get(), 5, Values));
    EXPECT_EQ(Values, (std::vector<int32_t>{0x1234ABCD, 0x11, 0x2222, 0x333333, 0x44444444}));
    Expected<Kernel> Increment = R->createKernel(request("dg_increment_counter"));
    ASSERT_TRUE(Increment.ok()) << Increment.status().Message;
    EXPECT_EQ(Increment->program().get(), Program) << "one program for the image's kernels";
    const size_t One = 1;
    ASSERT_PI_SUCCESS(piEnqueueKernelLaunch(Queue.get(), Increment->get(), 1, nullptr, &One,
                                            nullptr, 0, nullptr, nullptr));
    Expected<Kernel> Read = R->createKernel(request("dg_read_counter"));
    ASSERT_TRUE(Read.ok()) << Read.status().Message;
    ASSERT_NO_FATAL_FAILURE(runOnBuffer(Read->get(), 1, Values));
    EXPECT_EQ(Values, std::vector<int32_t>{Written + 1});
    int32_t Back = 0;
    ASSERT_PI_SUCCESS(piextEnqueueDeviceGlobalVariableRead(Queue.get(), Program, "dg_counter_uid",
                                                           PI_TRUE, sizeof(Back), 0, &Back, 0,
                                                           nullptr, nullptr));
    EXPECT_EQ(Back, Written + 1);
  }
}

TEST_P(RuntimePersistent, BadEntriesAreDetectedAndRebuilt) {
  ASSERT_NO_FATAL_FAILURE(fillCache());
  if (IsSkipped())
    return;
  const PersistentEntry Original = entries()[0];
  const std::string Path = Original.Path;
  const std::vector<uint8_t> Good = readFile(Path);
  ASSERT_GT(Good.size(), 64u);
  struct Damage {
    const char *What;
    std::vector<uint8_t> Bytes;
  };
  std::vector<Damage> Damages;
  Damages.push_back({"truncated to half", {Good.begin(), Good.begin() + Good.size() / 2}});
  Damages.push_back({"truncated inside the header", {Good.begin(), Good.begin() + 10}});
  Damages.push_back({"empty", {}});
  std::vector<uint8_t> Flipped = Good;
  Flipped[Good.size() - 5] ^= 0x40; // in the binary
  Damages.push_back({"a flipped byte in the binary", Flipped});
  Flipped = Good;
  Flipped[45] ^= 0x01; // in the key
  Damages.push_back({"a flipped byte in the key", Flipped});
  std::vector<uint8_t> Version = Good;
  Version[8] = 99; // the version field
  Damages.push_back({"another version", Version});
  std::vector<uint8_t> Magic = Good;
  Magic[0] = 'X';
  Damages.push_back({"wrong magic", Magic});
  std::vector<uint8_t> Padded = Good;
  Padded.push_back(0);
  Damages.push_back({"a byte appended", Padded});
  for (const Damage &Case : Damages) {
    writeFile(Path, Case.Bytes);
    const std::vector<PersistentEntry> Listed = entries();
    ASSERT_EQ(Listed.size(), 1u);
    EXPECT_FALSE(Listed[0].Valid) << Case.What;
    EXPECT_FALSE(Listed[0].Problem.empty()) << Case.What;
    ASSERT_NO_FATAL_FAILURE(acquireAgain(From::Build, Case.What));
    // Rebuilt and written again: valid, with the same key (a driver's binary need not be
    // the same bytes twice).
    const std::vector<PersistentEntry> Rebuilt = entries();
    ASSERT_EQ(Rebuilt.size(), 1u) << Case.What;
    EXPECT_TRUE(Rebuilt[0].Valid) << Case.What << ": " << Rebuilt[0].Problem;
    EXPECT_EQ(Rebuilt[0].Key, Original.Key) << Case.What;
  }
}

TEST_P(RuntimePersistent, TwoWritersAtOnceLeaveOneGoodEntry) {
  constexpr int Writers = 4;
  std::vector<std::unique_ptr<Runtime>> Runtimes;
  for (int I = 0; I < Writers; ++I) {
    Runtimes.push_back(cachedRuntime());
    ASSERT_NO_FATAL_FAILURE(registerLinkPair(*Runtimes.back()));
  }
  std::vector<std::thread> Threads;
  std::vector<Status> Results(Writers);
  for (int I = 0; I < Writers; ++I)
    Threads.emplace_back(
        [&, I] { Results[I] = Runtimes[I]->getOrBuildProgram(request("link_caller")).status(); });
  for (std::thread &Thread : Threads)
    Thread.join();
  for (const Status &Result : Results)
    ASSERT_TRUE(Result.ok()) << Result.Message;
  uint64_t Stores = 0;
  for (const auto &Writer : Runtimes)
    Stores += Writer->cacheStats().PersistentStores + Writer->cacheStats().PersistentHits;
  if (Stores == 0)
    GTEST_SKIP() << "the backend gives no program binary back (PI_PROGRAM_INFO_BINARIES)";
  const std::vector<PersistentEntry> Listed = entries();
  ASSERT_EQ(Listed.size(), 1u) << "one entry, no unfinished write left";
  EXPECT_TRUE(Listed[0].Valid) << Listed[0].Problem;
  acquireAgain(From::Disk, "after the writers");
}

TEST_P(RuntimePersistent, FullCacheEvictsTheLeastRecentlyUsed) {
  ASSERT_NO_FATAL_FAILURE(fillCache());
  if (IsSkipped())
    return;
  const uint64_t EntrySize = entries()[0].Size;
  ASSERT_TRUE(clearPersistentCache(Directory).ok());
  // Room for two entries of this size (spec constants of one byte keep the size).
  std::unique_ptr<Runtime> Cache = cachedRuntime(2 * EntrySize + EntrySize / 2);
  ASSERT_NO_FATAL_FAILURE(registerLinkPair(*Cache));
  auto Build = [&](uint8_t Spec) {
    ProgramRequest Request = request("link_caller");
    Request.SpecConstants = {Spec};
    Expected<Program> Built = Cache->getOrBuildProgram(Request);
    ASSERT_TRUE(Built.ok()) << Built.status().Message;
  };
  auto Has = [&](const char *Spec) {
    for (const PersistentEntry &Entry : entries())
      if (Entry.Key.find(std::string("spec constants: ") + Spec + "\n") != std::string::npos)
        return true;
    return false;
  };
  ASSERT_NO_FATAL_FAILURE(Build(1));
  ASSERT_NO_FATAL_FAILURE(Build(2));
  ASSERT_TRUE(Has("01") && Has("02"));
  // Entry 1 used again (from disk, by another runtime), so 2 is now the oldest.
  {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::unique_ptr<Runtime> Reader = cachedRuntime(2 * EntrySize + EntrySize / 2);
    ASSERT_NO_FATAL_FAILURE(registerLinkPair(*Reader));
    ProgramRequest Request = request("link_caller");
    Request.SpecConstants = {1};
    ASSERT_TRUE(Reader->getOrBuildProgram(Request).ok());
    EXPECT_EQ(Reader->cacheStats().PersistentHits, 1u);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_NO_FATAL_FAILURE(Build(3));
  EXPECT_EQ(entries().size(), 2u);
  EXPECT_TRUE(Has("01"));
  EXPECT_FALSE(Has("02")) << "the least recently used entry goes";
  EXPECT_TRUE(Has("03"));
}

} // namespace
} // namespace dglink::runtime
