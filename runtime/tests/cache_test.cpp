// The in-memory program cache, per device: the seed's double-compilation example built
// once (counted piProgramLink calls), its nested keys, 16 threads racing for one kernel,
// and unregistering a module while its programs are cached or held.
#include "runtime_fixture.h"

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace dglink::runtime {
namespace {

class RuntimeCache : public RuntimeDeviceTest {
protected:
  pi_uint32 referenceCount(pi_program Program) {
    pi_uint32 Count = 0;
    EXPECT_EQ(
        piProgramGetInfo(Program, PI_PROGRAM_INFO_REFERENCE_COUNT, sizeof(Count), &Count, nullptr),
        PI_SUCCESS);
    return Count;
  }
};
DGLINK_INSTANTIATE_FOR_DEVICES(RuntimeCache);

int32_t appValue(size_t I) { return int32_t(I) * 3 + 1; }
int32_t libraryValue(size_t I) { return int32_t(I) * 3 + 2; }
int32_t callerValue(size_t I) { return int32_t(I) * 7 + 5; }

// The seed's example: the application's kernel calls the library, so the library's code
// is linked with it; the library's own kernel then runs from that same program.
TEST_P(RuntimeCache, LibraryKernelReusesTheApplicationsLink) {
  ModuleId App = 0;
  ModuleId Library = 0;
  DGLINK_REGISTER_TEST_BUNDLE("app", App);
  DGLINK_REGISTER_TEST_BUNDLE("library", Library);

  Expected<Kernel> AppKernel = Rt->createKernel(request("app_kernel"));
  ASSERT_TRUE(AppKernel.ok()) << AppKernel.status().Message;
  Expected<Kernel> LibraryKernel = Rt->createKernel(request("lib_kernel"));
  ASSERT_TRUE(LibraryKernel.ok()) << LibraryKernel.status().Message;

  EXPECT_EQ(testing::piCalls().Links.load(), 1);
  EXPECT_EQ(testing::piCalls().Compiles.load(), 2);
  EXPECT_EQ(testing::piCalls().Creates.load(), 2);
  EXPECT_EQ(testing::piCalls().Builds.load(), 0);
  EXPECT_EQ(AppKernel->program().get(), LibraryKernel->program().get());
  EXPECT_EQ(AppKernel->program().modules(), (std::vector<ModuleId>{App, Library}));
  const CacheStats Stats = Rt->cacheStats();
  EXPECT_EQ(Stats.Builds, 1u);
  EXPECT_EQ(Stats.Links, 1u);
  EXPECT_EQ(Stats.Hits, 1u);
  EXPECT_EQ(Stats.Programs, 1u);

  // The nested key: each kernel of the link is entered under both modules.
  for (const ModuleId From : {App, Library})
    for (const char *Name : {"app_kernel", "lib_kernel"}) {
      Expected<Program> Again = Rt->getOrBuildProgram(request(Name, From));
      ASSERT_TRUE(Again.ok()) << Again.status().Message;
      EXPECT_EQ(Again->get(), AppKernel->program().get()) << Name << " from module " << From;
    }
  EXPECT_EQ(testing::piCalls().Links.load(), 1);

  DGLINK_REQUIRE_KERNEL_EXECUTION();
  runAndCompare(*AppKernel, appValue);
  runAndCompare(*LibraryKernel, libraryValue);
}

// The order the seed says still compiles the library twice: its kernel first builds the
// library alone, the application's kernel then links it again.
TEST_P(RuntimeCache, LibraryKernelFirstBuildsTheLibraryAlone) {
  ModuleId App = 0;
  ModuleId Library = 0;
  DGLINK_REGISTER_TEST_BUNDLE("app", App);
  DGLINK_REGISTER_TEST_BUNDLE("library", Library);
  Expected<Program> Alone = Rt->getOrBuildProgram(request("lib_kernel"));
  ASSERT_TRUE(Alone.ok()) << Alone.status().Message;
  Expected<Program> Linked = Rt->getOrBuildProgram(request("app_kernel"));
  ASSERT_TRUE(Linked.ok()) << Linked.status().Message;
  EXPECT_NE(Alone->get(), Linked->get());
  EXPECT_EQ(testing::piCalls().Builds.load(), 1);
  EXPECT_EQ(testing::piCalls().Links.load(), 1);
  // The entry made first stays: the library kernel keeps its own program.
  Expected<Program> Again = Rt->getOrBuildProgram(request("lib_kernel"));
  ASSERT_TRUE(Again.ok());
  EXPECT_EQ(Again->get(), Alone->get());
  EXPECT_EQ(Rt->cacheStats().Programs, 2u);
}

TEST_P(RuntimeCache, SpecConstantsAndContextArePartOfTheKey) {
  ModuleId Id = 0;
  DGLINK_REGISTER_TEST_BUNDLE("library", Id);
  Expected<Program> Plain = Rt->getOrBuildProgram(request("lib_kernel"));
  ASSERT_TRUE(Plain.ok()) << Plain.status().Message;
  ProgramRequest Specialised = request("lib_kernel");
  Specialised.SpecConstants = {1, 2, 3, 4};
  Expected<Program> WithSpec = Rt->getOrBuildProgram(Specialised);
  ASSERT_TRUE(WithSpec.ok()) << WithSpec.status().Message;
  EXPECT_NE(WithSpec->get(), Plain->get());
  Expected<Program> WithSpecAgain = Rt->getOrBuildProgram(Specialised);
  ASSERT_TRUE(WithSpecAgain.ok());
  EXPECT_EQ(WithSpecAgain->get(), WithSpec->get());

  conformance::ContextHandle Other;
  ASSERT_EQ(piContextCreate(nullptr, 1, &Device, Other.out()), PI_SUCCESS);
  ProgramRequest InOther = request("lib_kernel");
  InOther.Context = Other.get();
  {
    Expected<Program> OtherProgram = Rt->getOrBuildProgram(InOther);
    ASSERT_TRUE(OtherProgram.ok()) << OtherProgram.status().Message;
    EXPECT_NE(OtherProgram->get(), Plain->get());
  }
  EXPECT_EQ(testing::piCalls().Builds.load(), 3);
  EXPECT_EQ(Rt->cacheStats().Programs, 3u);
  // The other context's program goes before the context does.
  const int Released = testing::piCalls().Releases.load();
  Rt->forgetContext(Other.get());
  EXPECT_EQ(testing::piCalls().Releases.load(), Released + 1);
  EXPECT_EQ(Rt->cacheStats().Programs, 2u);
}

TEST_P(RuntimeCache, SixteenThreadsRacingForOneKernelBuildOnce) {
  ModuleId Caller = 0;
  ModuleId Callee = 0;
  ASSERT_NO_FATAL_FAILURE(registerConformance("link_caller", Caller));
  ASSERT_NO_FATAL_FAILURE(registerConformance("link_callee", Callee));
  constexpr int Threads = 16;
  std::vector<std::optional<Expected<Kernel>>> Kernels(Threads);
  std::mutex Mutex;
  std::condition_variable Start;
  bool Go = false;
  std::vector<std::thread> Workers;
  for (int I = 0; I < Threads; ++I)
    Workers.emplace_back([&, I] {
      {
        std::unique_lock<std::mutex> Lock(Mutex);
        Start.wait(Lock, [&] { return Go; });
      }
      Kernels[I].emplace(Rt->createKernel(request("link_caller")));
    });
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Go = true;
  }
  Start.notify_all();
  for (std::thread &Worker : Workers)
    Worker.join();
  for (int I = 0; I < Threads; ++I) {
    ASSERT_TRUE(Kernels[I].has_value() && Kernels[I]->ok())
        << "thread " << I << ": " << (Kernels[I] ? Kernels[I]->status().Message : "no result");
    EXPECT_EQ((*Kernels[I])->program().get(), (*Kernels[0])->program().get()) << "thread " << I;
  }
  EXPECT_EQ(testing::piCalls().Links.load(), 1);
  EXPECT_EQ(testing::piCalls().Compiles.load(), 2);
  const CacheStats Stats = Rt->cacheStats();
  EXPECT_EQ(Stats.Builds, 1u);
  EXPECT_EQ(Stats.Hits + Stats.Waits, uint64_t(Threads - 1));
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  runAndCompare(**Kernels[Threads - 1], callerValue);
}

TEST_P(RuntimeCache, UnregisteringReleasesTheCachedProgram) {
  ModuleId Caller = 0;
  ModuleId Callee = 0;
  ASSERT_NO_FATAL_FAILURE(registerConformance("link_caller", Caller));
  ASSERT_NO_FATAL_FAILURE(registerConformance("link_callee", Callee));
  {
    Expected<Program> Built = Rt->getOrBuildProgram(request("link_caller"));
    ASSERT_TRUE(Built.ok()) << Built.status().Message;
    EXPECT_EQ(referenceCount(Built->get()), 1u) << "the cache holds the one reference";
  }
  EXPECT_EQ(Rt->cacheStats().Programs, 1u);
  const int Released = testing::piCalls().Releases; // the two link inputs
  ASSERT_TRUE(Rt->unregisterModule(Callee).ok());
  EXPECT_EQ(testing::piCalls().Releases.load(), Released + 1);
  EXPECT_EQ(Rt->cacheStats().Programs, 0u);

  // The library is gone: the kernel no longer links.
  EXPECT_STATUS(PI_ERROR_LINK_PROGRAM_FAILURE, "link_callee (imported by link_caller.bundle#",
                Rt->getOrBuildProgram(request("link_caller")).status());
  // Back again: linked anew.
  ASSERT_NO_FATAL_FAILURE(registerConformance("link_callee", Callee));
  Expected<Kernel> K = Rt->createKernel(request("link_caller"));
  ASSERT_TRUE(K.ok()) << K.status().Message;
  EXPECT_EQ(testing::piCalls().Links.load(), 2);
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  runAndCompare(*K, callerValue);
}

TEST_P(RuntimeCache, AProgramHeldWhileItsModulesGoStaysUsable) {
  ModuleId Caller = 0;
  ModuleId Callee = 0;
  ASSERT_NO_FATAL_FAILURE(registerConformance("link_caller", Caller));
  ASSERT_NO_FATAL_FAILURE(registerConformance("link_callee", Callee));
  Expected<Kernel> K = Rt->createKernel(request("link_caller"));
  ASSERT_TRUE(K.ok()) << K.status().Message;
  const int Released = testing::piCalls().Releases;
  ASSERT_TRUE(Rt->unregisterModule(Caller).ok());
  ASSERT_TRUE(Rt->unregisterModule(Callee).ok());
  EXPECT_EQ(Rt->cacheStats().Programs, 0u);
  EXPECT_TRUE(Rt->images().empty());
  EXPECT_EQ(testing::piCalls().Releases.load(), Released) << "the kernel still holds the program";
  if (executesKernels())
    runAndCompare(*K, callerValue);
  *K = Kernel();
  EXPECT_EQ(testing::piCalls().Releases.load(), Released + 1);
}

} // namespace
} // namespace dglink::runtime
