// Device-image collection and linking from the registry, per device: the chain of four
// found in any registration order, images of another format never picked, a missing
// library named with its importer, and a plain build where nothing is imported.
#include "runtime_fixture.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace dglink::runtime {
namespace {

class RuntimeLinking : public RuntimeDeviceTest {};
DGLINK_INSTANTIATE_FOR_DEVICES(RuntimeLinking);

int32_t chainValue(size_t I) { return int32_t(I) << 16 | 0xDCBA; }

// The module a plan's image came from, by the name it was registered under.
std::string moduleOf(const ImageInfo &Image) { return Image.Name.substr(0, Image.Name.find('#')); }

TEST_P(RuntimeLinking, ChainOfFourIsFoundInAnyRegistrationOrder) {
  std::array<std::string, 4> Order = {"chain_0", "chain_1", "chain_2", "chain_3"};
  int Orders = 0;
  do {
    SCOPED_TRACE("registered in the order " + Order[0] + " " + Order[1] + " " + Order[2] + " " +
                 Order[3]);
    Runtime Fresh(testing::countingTable());
    for (const std::string &Name : Order) {
      const testing::BundleBytes Bytes = testing::conformanceBundle(Name);
      ASSERT_TRUE(Fresh.registerBundle(Bytes.Data, Bytes.Size, Name + ".bundle").ok());
    }
    Expected<LinkPlan> Plan = Fresh.planLink(Device, "chain_start");
    ASSERT_TRUE(Plan.ok()) << Plan.status().Message;
    EXPECT_EQ(Plan->LinkFormat, Format);
    // The imports decide the order: the kernel's image, then each callee as it is met.
    ASSERT_EQ(Plan->Images.size(), 4u);
    for (size_t I = 0; I < 4; ++I) {
      EXPECT_EQ(moduleOf(Plan->Images[I]), "chain_" + std::to_string(I) + ".bundle");
      EXPECT_EQ(Plan->Images[I].LinkFormat, Format);
    }
    EXPECT_EQ(Plan->Images[0].Entries, std::vector<std::string>{"chain_start"});
    ++Orders;
  } while (std::next_permutation(Order.begin(), Order.end()));
  EXPECT_EQ(Orders, 24);
  // Planning builds nothing.
  EXPECT_EQ(testing::piCalls().Creates.load(), 0);
}

TEST_P(RuntimeLinking, ChainOfFourLinksAndRunsFromTheRegistry) {
  // Registered backwards: the kernel's module last.
  for (const char *Name : {"chain_3", "chain_2", "chain_1", "chain_0"}) {
    ModuleId Id = 0;
    ASSERT_NO_FATAL_FAILURE(registerConformance(Name, Id));
  }
  Expected<Kernel> K = Rt->createKernel(request("chain_start"));
  ASSERT_TRUE(K.ok()) << K.status().Message;
  EXPECT_EQ(K->program().images().size(), 4u);
  EXPECT_EQ(testing::piCalls().Creates.load(), 4);
  EXPECT_EQ(testing::piCalls().Compiles.load(), 4);
  EXPECT_EQ(testing::piCalls().Links.load(), 1);
  EXPECT_EQ(testing::piCalls().Builds.load(), 0);
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  runAndCompare(*K, chainValue);
}

TEST_P(RuntimeLinking, ImagesOfAnotherFormatAreNeverPicked) {
  ModuleId App = 0;
  DGLINK_REGISTER_TEST_BUNDLE("app", App);
  // A library whose only images are in formats other than the one the device gets.
  std::string Foreign;
  for (const char *Candidate : {"spir64", "spirv64", "nvptx64"})
    if (Candidate != Format) {
      Foreign = Candidate;
      break;
    }
  ModuleId Other = 0;
  DGLINK_REGISTER_TEST_BUNDLE("library_" + Foreign, Other);
  const std::vector<ImageInfo> Images = Rt->images();
  ASSERT_TRUE(std::any_of(Images.begin(), Images.end(),
                          [&](const ImageInfo &Image) {
                            return Image.Module == Other && Image.LinkFormat == Foreign &&
                                   std::count(Image.Exports.begin(), Image.Exports.end(),
                                              "lib_scale") == 1;
                          }))
      << "library_" << Foreign << " exports lib_scale";

  EXPECT_STATUS(PI_ERROR_LINK_PROGRAM_FAILURE, "lib_scale (imported by app.bundle#",
                Rt->planLink(Device, "app_kernel").status());
  EXPECT_STATUS(PI_ERROR_LINK_PROGRAM_FAILURE, "(" + Format + "): 1 unresolved symbol",
                Rt->createKernel(request("app_kernel")).status());
  EXPECT_EQ(testing::piCalls().Creates.load(), 0) << "nothing is built when a symbol is unresolved";

  // The library in the device's format, registered after the foreign one, is the one used.
  ModuleId Library = 0;
  DGLINK_REGISTER_TEST_BUNDLE("library_" + Format, Library);
  Expected<LinkPlan> Plan = Rt->planLink(Device, "app_kernel");
  ASSERT_TRUE(Plan.ok()) << Plan.status().Message;
  ASSERT_EQ(Plan->Images.size(), 2u);
  EXPECT_EQ(Plan->Images[0].Module, App);
  EXPECT_EQ(Plan->Images[1].Module, Library);
  EXPECT_EQ(Plan->Images[1].LinkFormat, Format);
  Expected<Kernel> K = Rt->createKernel(request("app_kernel"));
  ASSERT_TRUE(K.ok()) << K.status().Message;
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  runAndCompare(*K, [](size_t I) { return int32_t(I) * 3 + 1; });
}

TEST_P(RuntimeLinking, MissingLibraryIsNamedWithItsImporterAndNothingIsBuilt) {
  ModuleId Id = 0;
  ASSERT_NO_FATAL_FAILURE(registerConformance("unresolved", Id));
  EXPECT_STATUS(PI_ERROR_LINK_PROGRAM_FAILURE,
                "kernel 'uses_missing' on device '" + GetParam().Name + "' (" + Format +
                    "): 1 unresolved symbol no registered image of that format exports, nothing "
                    "was built: dglink_missing_symbol (imported by unresolved.bundle#",
                Rt->createKernel(request("uses_missing")).status());
  EXPECT_EQ(testing::piCalls().Creates.load(), 0);
  EXPECT_EQ(testing::piCalls().Links.load(), 0);
  EXPECT_EQ(Rt->cacheStats().Failures, 1u);
  EXPECT_EQ(Rt->cacheStats().Programs, 0u);
}

TEST_P(RuntimeLinking, MissingLinkInTheMiddleOfAChainIsNamed) {
  for (const char *Name : {"chain_0", "chain_1", "chain_3"}) {
    ModuleId Id = 0;
    ASSERT_NO_FATAL_FAILURE(registerConformance(Name, Id));
  }
  EXPECT_STATUS(PI_ERROR_LINK_PROGRAM_FAILURE, "chain_2 (imported by chain_1.bundle#",
                Rt->planLink(Device, "chain_start").status());
  ModuleId Id = 0;
  ASSERT_NO_FATAL_FAILURE(registerConformance("chain_2", Id));
  EXPECT_TRUE(Rt->planLink(Device, "chain_start").ok());
}

// Registrations and unregistrations while other threads plan: every plan sees a whole
// registry (the chain complete, or an import named as unresolved), never a torn one.
TEST_P(RuntimeLinking, PlansStayWholeWhileModulesComeAndGo) {
  ModuleId Start = 0;
  ASSERT_NO_FATAL_FAILURE(registerConformance("chain_0", Start));
  std::atomic<bool> Stop{false};
  std::atomic<int> Whole{0};
  std::atomic<int> Unresolved{0};
  std::atomic<int> Other{0};
  std::vector<std::thread> Planners;
  for (int I = 0; I < 3; ++I)
    Planners.emplace_back([&] {
      while (!Stop) {
        Expected<LinkPlan> Plan = Rt->planLink(Device, "chain_start");
        if (Plan.ok() && Plan->Images.size() == 4)
          ++Whole;
        else if (!Plan.ok() && Plan.status().Code == PI_ERROR_LINK_PROGRAM_FAILURE)
          ++Unresolved;
        else
          ++Other;
      }
    });
  // In a lambda, so that a failed assertion still stops and joins the planners.
  auto Churn = [&] {
    for (int Round = 0; Round < 100; ++Round) {
      std::vector<ModuleId> Ids;
      for (const char *Name : {"chain_1", "chain_2", "chain_3"}) {
        const testing::BundleBytes Bytes = testing::conformanceBundle(Name);
        Expected<ModuleId> Id = Rt->registerBundle(Bytes.Data, Bytes.Size, Name);
        ASSERT_TRUE(Id.ok()) << Id.status().Message;
        Ids.push_back(*Id);
      }
      for (const ModuleId Id : Ids)
        ASSERT_TRUE(Rt->unregisterModule(Id).ok());
    }
  };
  Churn();
  Stop = true;
  for (std::thread &Planner : Planners)
    Planner.join();
  EXPECT_EQ(Other.load(), 0) << "a plan that was neither whole nor an unresolved import";
  EXPECT_GT(Whole.load() + Unresolved.load(), 0);
  for (const ImageInfo &Image : Rt->images())
    EXPECT_EQ(Image.Module, Start) << Image.Name << " is still registered";
}

TEST_P(RuntimeLinking, UnknownKernelIsAnInvalidKernelName) {
  ModuleId Id = 0;
  ASSERT_NO_FATAL_FAILURE(registerConformance("link_caller", Id));
  EXPECT_STATUS(PI_ERROR_INVALID_KERNEL_NAME, "no registered image has kernel 'no_such_kernel'",
                Rt->createKernel(request("no_such_kernel")).status());
  EXPECT_STATUS(PI_ERROR_INVALID_VALUE, "module 999 is not registered",
                Rt->createKernel(request("link_caller", 999)).status());
  ProgramRequest NoDevice = request("link_caller");
  NoDevice.Device = nullptr;
  EXPECT_STATUS(PI_ERROR_INVALID_VALUE, "the device is null",
                Rt->getOrBuildProgram(NoDevice).status());
}

TEST_P(RuntimeLinking, ImageWithoutImportsIsBuiltNotLinked) {
  ModuleId Id = 0;
  DGLINK_REGISTER_TEST_BUNDLE("library", Id);
  Expected<Kernel> K = Rt->createKernel(request("lib_kernel"));
  ASSERT_TRUE(K.ok()) << K.status().Message;
  EXPECT_EQ(testing::piCalls().Builds.load(), 1);
  EXPECT_EQ(testing::piCalls().Compiles.load(), 0);
  EXPECT_EQ(testing::piCalls().Links.load(), 0);
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  runAndCompare(*K, [](size_t I) { return int32_t(I) * 3 + 2; });
}

} // namespace
} // namespace dglink::runtime
