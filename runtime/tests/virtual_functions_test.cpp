// Virtual functions across device images, per device (docs/virtual-functions.md): the
// seed's two examples from device_code/virtual_functions.clcpp — objects constructed by
// one kernel, their virtual functions called by others — with the real set images where
// the device has the sets' aspects and the dummy ones where it does not (also with
// DGLINK_FORCE_ASPECTS_OFF, the test hook, which is reported as forced), a kernel that
// needs a missing aspect refused before anything is built, and real and dummy builds
// kept apart in the caches. device_code/virtual_functions_fp16.clcpp's set computes in
// half: its dummy runs, with no hook, on devices that truly lack cl_khr_fp16 (PoCL 3.1).
#include "runtime_fixture.h"

#include <dglink/compiler/bundle.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace dglink::runtime {
namespace {

constexpr uint32_t Fp16 = 5;
constexpr uint32_t Fp64 = 6;

// The runtime tests' virtual_functions bundle with Edit applied to every image whose name
// is Image (one per target), as bytes to register.
std::vector<uint8_t> editedBundle(const std::string &Image,
                                  const std::function<void(BundleImage &)> &Edit) {
  Bundle Edited;
  if (readBundleFile(testing::testBundlePath("virtual_functions"), Edited) != PI_SUCCESS)
    return {};
  for (BundleImage &Each : Edited.Images)
    if (Each.Name == Image)
      Edit(Each);
  return writeBundle(Edited);
}

// Sets property Name of set SetName of Image to Value (adding the set or the property).
void setProperty(BundleImage &Image, const std::string &SetName, BundleProperty Value) {
  auto Set = std::find_if(Image.PropertySets.begin(), Image.PropertySets.end(),
                          [&](const BundlePropertySet &S) { return S.Name == SetName; });
  if (Set == Image.PropertySets.end())
    Set = Image.PropertySets.insert(Image.PropertySets.end(), BundlePropertySet{SetName, {}});
  auto Property = std::find_if(Set->Properties.begin(), Set->Properties.end(),
                               [&](const BundleProperty &P) { return P.Name == Value.Name; });
  if (Property == Set->Properties.end())
    Set->Properties.push_back(std::move(Value));
  else
    *Property = std::move(Value);
}

// Sets DGLINK_FORCE_ASPECTS_OFF for its lifetime (a Runtime reads it when it first asks
// a device for its traits).
class ForceAspectsOff {
public:
  explicit ForceAspectsOff(const char *Value) { setenv("DGLINK_FORCE_ASPECTS_OFF", Value, 1); }
  ~ForceAspectsOff() { unsetenv("DGLINK_FORCE_ASPECTS_OFF"); }
  ForceAspectsOff(const ForceAspectsOff &) = delete;
  ForceAspectsOff &operator=(const ForceAspectsOff &) = delete;
};

class RuntimeVirtualFunctions : public RuntimeDeviceTest {
protected:
  void SetUp() override {
    RuntimeDeviceTest::SetUp();
    if (HasFatalFailure() || IsSkipped())
      return;
    if (Format == "amdgcn")
      GTEST_SKIP() << "the virtual-functions bundle has no amdgcn images (not built for it)";
    if (const int Major = poclMajorVersion(); Major >= 4)
      GTEST_SKIP() << "PoCL " << Major
                   << " initializes program-scope variables in a kernel of its own "
                      "(pocl.gvar.init) built without the functions a vtable's initializer "
                      "points at, so the program fails to load (undefined virtual function; "
                      "PoCL aborts the process): docs/virtual-functions.md";
  }

  // The PoCL major version of the device's platform ("OpenCL 3.0 PoCL 5.0+debian ..."),
  // or 0 for other platforms.
  int poclMajorVersion() {
    char Version[256] = {};
    if (piPlatformGetInfo(Platform, PI_PLATFORM_INFO_VERSION, sizeof(Version) - 1, Version,
                          nullptr) != PI_SUCCESS)
      return 0;
    const char *At = std::strstr(Version, "PoCL ");
    return At == nullptr ? 0 : std::atoi(At + 5);
  }

  bool deviceHasFp64() {
    pi_bitfield Double = 0;
    return piDeviceGetInfo(Device, PI_DEVICE_INFO_DOUBLE_FP_CONFIG, sizeof(Double), &Double,
                           nullptr) == PI_SUCCESS &&
           Double != 0;
  }

  // Decided here, apart from the runtime (which reads PI_DEVICE_INFO_HALF_FP_CONFIG):
  // cl_khr_fp16 in the extensions, or a CUDA or HIP backend (whose adapters list no
  // OpenCL extensions and whose GPUs all have fp16).
  bool deviceHasFp16() {
    const std::string &Backend = GetParam().Backend;
    return Backend.rfind("cuda", 0) == 0 || Backend.rfind("hip", 0) == 0 ||
           hasExtension("cl_khr_fp16");
  }
  // Says, in the test's record and on stdout for CI's log, that What ran on this device
  // because it lacks fp16 (no DGLINK_FORCE_ASPECTS_OFF).
  void reportRealFp16Dummy(const std::string &What) {
    RecordProperty("dummy_path_without_fp16", GetParam().Name);
    std::cout << "[ DUMMY    ] " << What << " on device '" << GetParam().Name << "' ("
              << GetParam().Backend
              << "), which lacks fp16 (no cl_khr_fp16): the hardware, not "
                 "DGLINK_FORCE_ASPECTS_OFF\n";
  }

  // A buffer for one object (its vtable pointer) and one for 256 results.
  void makeBuffers() {
    ASSERT_PI_SUCCESS(
        piMemBufferCreate(Context.get(), PI_MEM_FLAGS_ACCESS_RW, 64, nullptr, Object.out()));
    ASSERT_PI_SUCCESS(piMemBufferCreate(Context.get(), PI_MEM_FLAGS_ACCESS_RW,
                                        256 * sizeof(int32_t), nullptr, Out.out()));
  }
  void construct(Runtime &R, const std::string &Kernel) {
    Expected<dglink::runtime::Kernel> K = R.createKernel(request(Kernel));
    ASSERT_TRUE(K.ok()) << K.status().Message;
    const pi_mem Mem = Object.get();
    ASSERT_PI_SUCCESS(piextKernelSetArgMemObj(K->get(), 0, &Mem));
    const size_t One = 1;
    ASSERT_PI_SUCCESS(piEnqueueKernelLaunch(Queue.get(), K->get(), 1, nullptr, &One, nullptr, 0,
                                            nullptr, nullptr));
    ASSERT_PI_SUCCESS(piQueueFinish(Queue.get()));
    Programs.push_back(K->program().get());
  }
  void callAndCompare(Runtime &R, const std::string &Kernel,
                      const std::function<int32_t(size_t)> &Expected) {
    dglink::runtime::Expected<dglink::runtime::Kernel> K = R.createKernel(request(Kernel));
    ASSERT_TRUE(K.ok()) << K.status().Message;
    const pi_mem Objects = Object.get();
    const pi_mem Results = Out.get();
    ASSERT_PI_SUCCESS(piextKernelSetArgMemObj(K->get(), 0, &Objects));
    ASSERT_PI_SUCCESS(piextKernelSetArgMemObj(K->get(), 1, &Results));
    const size_t Global = 256;
    ASSERT_PI_SUCCESS(piEnqueueKernelLaunch(Queue.get(), K->get(), 1, nullptr, &Global, nullptr, 0,
                                            nullptr, nullptr));
    std::vector<int32_t> Values(256, -1);
    ASSERT_PI_SUCCESS(piEnqueueMemBufferRead(Queue.get(), Results, PI_TRUE, 0,
                                             256 * sizeof(int32_t), Values.data(), 0, nullptr,
                                             nullptr));
    EXPECT_EVERY_ELEMENT(Values, Expected);
    Programs.push_back(K->program().get());
  }

  // The set images of a plan: set name -> dummy or not.
  static std::map<std::string, bool> setsOf(const LinkPlan &Plan) {
    std::map<std::string, bool> Result;
    for (const ImageInfo &Image : Plan.Images)
      if (!Image.VirtualFunctionSet.empty())
        Result[Image.VirtualFunctionSet] = Image.DummyImage;
    return Result;
  }

  conformance::MemHandle Object, Out;
  std::vector<pi_program> Programs;
};
DGLINK_INSTANTIATE_FOR_DEVICES(RuntimeVirtualFunctions);

int32_t fooValue(size_t I) { return int32_t(I) * 7 + 5; }
int32_t barValue(size_t I) { return int32_t(double(I) * 2.5 + 0.5) + 1000; }
int32_t fp64SetValue(size_t I) { return int32_t(double(I) * 0.5 * 4.0) + 2000; }
int32_t regularSetValue(size_t I) { return int32_t(I) * 3 + 3000; }
int32_t plainValue(size_t I) { return int32_t(I) * 5 + 9; }
int32_t doubledValue(size_t I) { return int32_t(I) * 2 + 4000; } // exact in half below 1024

TEST_P(RuntimeVirtualFunctions, PlanLinksEverySetImageRealWhereTheDeviceHasTheAspects) {
  ModuleId Id = 0;
  DGLINK_REGISTER_TEST_BUNDLE("virtual_functions", Id);
  Expected<LinkPlan> Plan = Rt->planLink(Device, "vf_construct");
  ASSERT_TRUE(Plan.ok()) << Plan.status().Message;
  EXPECT_TRUE(Plan->ForcedOffAspects.empty());
  // The kernel image first, then one image per set: the objects' vtables point into all
  // four sets, so constructing needs them all (real or dummy).
  EXPECT_TRUE(Plan->Images[0].VirtualFunctionSet.empty());
  EXPECT_EQ(Plan->Images[0].UsesVirtualFunctionSets,
            (std::vector<std::string>{"_ZTSv", "fp64_set", "regular_set", "set_fp64"}));
  const bool Fp64Here = deviceHasFp64();
  EXPECT_EQ(setsOf(*Plan), (std::map<std::string, bool>{{"_ZTSv", false},
                                                        {"fp64_set", !Fp64Here},
                                                        {"regular_set", false},
                                                        {"set_fp64", !Fp64Here}}));
  EXPECT_EQ(Plan->Images.size(), 5u);
  // Aspects: the calling kernels carry their sets' fp64, the constructors nothing.
  EXPECT_EQ(Plan->Images[0].KernelAspects.count("vf_construct"), 0u);
  EXPECT_EQ(Plan->Images[0].KernelAspects.count("vf_use"), 0u);
  EXPECT_EQ(Plan->Images[0].KernelAspects.at("vf_use_fp64"), std::vector<uint32_t>{Fp64});
  EXPECT_EQ(Plan->Images[0].KernelAspects.at("vf2_call_fp64"), std::vector<uint32_t>{Fp64});
  EXPECT_EQ(Plan->Images[0].KernelAspects.count("vf2_call_regular"), 0u);
  EXPECT_EQ(testing::piCalls().Creates.load(), 0); // planning builds nothing
}

TEST_P(RuntimeVirtualFunctions, ConstructInOneKernelCallFooAndBarInOthers) {
  ModuleId Id = 0;
  DGLINK_REGISTER_TEST_BUNDLE("virtual_functions", Id);
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ASSERT_NO_FATAL_FAILURE(makeBuffers());
  ASSERT_NO_FATAL_FAILURE(construct(*Rt, "vf_construct"));
  ASSERT_NO_FATAL_FAILURE(callAndCompare(*Rt, "vf_use", fooValue));
  if (deviceHasFp64()) {
    ASSERT_NO_FATAL_FAILURE(callAndCompare(*Rt, "vf_use_fp64", barValue));
  } else {
    EXPECT_STATUS(PI_ERROR_INVALID_OPERATION, "kernel 'vf_use_fp64' requires aspect fp64",
                  Rt->createKernel(request("vf_use_fp64")).status());
  }
  // One program: constructing and calling share the vtables.
  for (pi_program Program : Programs)
    EXPECT_EQ(Program, Programs.front());
  EXPECT_EQ(testing::piCalls().Links.load(), 1);
}

TEST_P(RuntimeVirtualFunctions, Fp64ForcedOffLinksTheDummyAndRefusesTheFp64Caller) {
  ModuleId Id = 0;
  DGLINK_REGISTER_TEST_BUNDLE("virtual_functions", Id);
  const bool Fp64Here = deviceHasFp64();
  ForceAspectsOff Off("fp64");
  Runtime Forced(testing::countingTable());
  ASSERT_TRUE(Forced.registerBundleFile(testing::testBundlePath("virtual_functions")).ok());
  Expected<LinkPlan> Plan = Forced.planLink(Device, "vf_use");
  ASSERT_TRUE(Plan.ok()) << Plan.status().Message;
  // Reported as forced only where the device really has fp64.
  EXPECT_EQ(Plan->ForcedOffAspects,
            Fp64Here ? std::vector<std::string>{"fp64"} : std::vector<std::string>{});
  EXPECT_EQ(setsOf(*Plan),
            (std::map<std::string, bool>{
                {"_ZTSv", false}, {"fp64_set", true}, {"regular_set", false}, {"set_fp64", true}}));
  // Refused before anything is built, naming the aspect (as forced) and the kernel.
  testing::piCalls().reset();
  const Status Refused = Forced.createKernel(request("vf_use_fp64")).status();
  EXPECT_STATUS(PI_ERROR_INVALID_OPERATION, "kernel 'vf_use_fp64' requires aspect fp64", Refused);
  if (Fp64Here) {
    EXPECT_STATUS(PI_ERROR_INVALID_OPERATION, "fp64 (forced off by DGLINK_FORCE_ASPECTS_OFF)",
                  Refused);
  }
  EXPECT_EQ(testing::piCalls().Creates.load(), 0);
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ASSERT_NO_FATAL_FAILURE(makeBuffers());
  ASSERT_NO_FATAL_FAILURE(construct(Forced, "vf_construct"));
  ASSERT_NO_FATAL_FAILURE(callAndCompare(Forced, "vf_use", fooValue));
  // The program holds vf_use_fp64's code, but it is not handed out from the cache either.
  EXPECT_STATUS(PI_ERROR_INVALID_OPERATION, "kernel 'vf_use_fp64' requires aspect fp64",
                Forced.createKernel(request("vf_use_fp64")).status());
}

TEST_P(RuntimeVirtualFunctions, TwoSetsWhereOnlyOneMayRun) {
  ModuleId Id = 0;
  DGLINK_REGISTER_TEST_BUNDLE("virtual_functions", Id);
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ASSERT_NO_FATAL_FAILURE(makeBuffers());
  ASSERT_NO_FATAL_FAILURE(construct(*Rt, "vf2_construct"));
  if (deviceHasFp64()) {
    ASSERT_NO_FATAL_FAILURE(callAndCompare(*Rt, "vf2_call_fp64", fp64SetValue));
  }
  ASSERT_NO_FATAL_FAILURE(callAndCompare(*Rt, "vf2_call_regular", regularSetValue));
}

TEST_P(RuntimeVirtualFunctions, ObjectBuiltWithoutTheAspectStillServesTheOtherSet) {
  ModuleId Id = 0;
  DGLINK_REGISTER_TEST_BUNDLE("virtual_functions", Id);
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ForceAspectsOff Off("fp64");
  Runtime Forced(testing::countingTable());
  ASSERT_TRUE(Forced.registerBundleFile(testing::testBundlePath("virtual_functions")).ok());
  ASSERT_NO_FATAL_FAILURE(makeBuffers());
  // The vtable of Foo points at the dummy foo() of fp64_set and the real bar().
  ASSERT_NO_FATAL_FAILURE(construct(Forced, "vf2_construct"));
  ASSERT_NO_FATAL_FAILURE(callAndCompare(Forced, "vf2_call_regular", regularSetValue));
  EXPECT_STATUS(PI_ERROR_INVALID_OPERATION, "kernel 'vf2_call_fp64' requires aspect fp64",
                Forced.createKernel(request("vf2_call_fp64")).status());
}

TEST_P(RuntimeVirtualFunctions, PersistentCacheKeepsRealAndDummyBuildsApart) {
  ModuleId Id = 0;
  DGLINK_REGISTER_TEST_BUNDLE("virtual_functions", Id);
  const std::filesystem::path Dir =
      std::filesystem::temp_directory_path() /
      ("dglink-vf-cache-" + std::to_string(::getpid()) + "-" + Format);
  std::filesystem::remove_all(Dir);
  PersistentCacheSettings Settings;
  Settings.Enabled = true;
  Settings.Directory = Dir.string();
  auto entries = [&Dir] {
    size_t Count = 0;
    for (const auto &Entry : std::filesystem::directory_iterator(Dir))
      Count += Entry.path().extension() == ".dglc" ? 1 : 0;
    return Count;
  };
  {
    Runtime Plain(testing::countingTable(), Settings);
    ASSERT_TRUE(Plain.registerBundleFile(testing::testBundlePath("virtual_functions")).ok());
    Expected<Program> P = Plain.getOrBuildProgram(request("vf_use"));
    ASSERT_TRUE(P.ok()) << P.status().Message;
  }
  const size_t AfterReal = entries();
  {
    ForceAspectsOff Off("fp64");
    Runtime Forced(testing::countingTable(), Settings);
    ASSERT_TRUE(Forced.registerBundleFile(testing::testBundlePath("virtual_functions")).ok());
    Expected<Program> P = Forced.getOrBuildProgram(request("vf_use"));
    ASSERT_TRUE(P.ok()) << P.status().Message;
    bool HasDummy = false;
    for (const ImageInfo &Image : P->images())
      HasDummy = HasDummy || Image.DummyImage;
    EXPECT_TRUE(HasDummy);
  }
  const size_t AfterDummy = entries();
  std::filesystem::remove_all(Dir);
  if (AfterReal == 0)
    GTEST_SKIP() << "the device gives no program binary back, so nothing is stored";
  EXPECT_EQ(AfterReal, 1u);
  if (deviceHasFp64()) {
    EXPECT_EQ(AfterDummy, 2u) << "the dummy build must not reuse the real build's entry";
  }
}

TEST_P(RuntimeVirtualFunctions, KernelsSharingSetsRacingForTheirFirstProgramGetOneProgram) {
  ModuleId Id = 0;
  DGLINK_REGISTER_TEST_BUNDLE("virtual_functions", Id);
  // Every kernel of the bundle at once, each first request of its kernel: objects built
  // by one kernel hold vtable addresses into its program, so all must get the same one.
  const std::vector<std::string> Names = {"vf_construct",     "vf_use",       "vf2_construct",
                                          "vf2_call_regular", "vf_construct", "vf_use"};
  for (int Round = 0; Round < 3; ++Round) {
    Runtime Fresh(testing::countingTable());
    ASSERT_TRUE(Fresh.registerBundleFile(testing::testBundlePath("virtual_functions")).ok());
    std::vector<std::optional<Expected<Kernel>>> Kernels(Names.size());
    std::mutex Mutex;
    std::condition_variable Start;
    bool Go = false;
    std::vector<std::thread> Workers;
    for (size_t I = 0; I < Names.size(); ++I)
      Workers.emplace_back([&, I] {
        {
          std::unique_lock<std::mutex> Lock(Mutex);
          Start.wait(Lock, [&] { return Go; });
        }
        Kernels[I].emplace(Fresh.createKernel(request(Names[I])));
      });
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      Go = true;
    }
    Start.notify_all();
    for (std::thread &Worker : Workers)
      Worker.join();
    for (size_t I = 0; I < Names.size(); ++I) {
      ASSERT_TRUE(Kernels[I].has_value() && Kernels[I]->ok())
          << Names[I] << ": " << (Kernels[I] ? Kernels[I]->status().Message : "no result");
      EXPECT_EQ((*Kernels[I])->program().get(), (*Kernels[0])->program().get())
          << "round " << Round << ": " << Names[I] << " got a program of its own";
    }
    EXPECT_EQ(Fresh.cacheStats().Builds, 1u) << "round " << Round;
    EXPECT_EQ(Fresh.cacheStats().Programs, 1u) << "round " << Round;
  }
}

// No DGLINK_FORCE_ASPECTS_OFF in the fp16 scenarios: the device's own fp16 decides.
TEST_P(RuntimeVirtualFunctions, Fp16PlanLinksTheDummyExactlyWhereTheDeviceLacksFp16) {
  ModuleId Id = 0;
  DGLINK_REGISTER_TEST_BUNDLE("virtual_functions_fp16", Id);
  Expected<LinkPlan> Plan = Rt->planLink(Device, "vf16_construct");
  ASSERT_TRUE(Plan.ok()) << Plan.status().Message;
  EXPECT_TRUE(Plan->ForcedOffAspects.empty());
  EXPECT_TRUE(Plan->Images[0].VirtualFunctionSet.empty());
  EXPECT_EQ(Plan->Images[0].UsesVirtualFunctionSets,
            (std::vector<std::string>{"_ZTSv", "set_fp16"}));
  EXPECT_EQ(setsOf(*Plan),
            (std::map<std::string, bool>{{"_ZTSv", false}, {"set_fp16", !deviceHasFp16()}}));
  EXPECT_EQ(Plan->Images.size(), 3u);
  // The caller carries its set's fp16, the constructor (whose vtable points at it) nothing.
  EXPECT_EQ(Plan->Images[0].KernelAspects.at("vf16_use_fp16"), std::vector<uint32_t>{Fp16});
  EXPECT_EQ(Plan->Images[0].KernelAspects.count("vf16_construct"), 0u);
  EXPECT_EQ(Plan->Images[0].KernelAspects.count("vf16_use"), 0u);
  EXPECT_EQ(testing::piCalls().Creates.load(), 0);
}

TEST_P(RuntimeVirtualFunctions, Fp16SetRunsWhereTheDeviceHasFp16AndItsCallerIsRefusedWhereNot) {
  ModuleId Id = 0;
  DGLINK_REGISTER_TEST_BUNDLE("virtual_functions_fp16", Id);
  const bool Fp16Here = deviceHasFp16();
  if (!Fp16Here) {
    // Refused before anything is built, naming the kernel and the aspect, as missing
    // hardware (nothing is forced off).
    testing::piCalls().reset();
    const Status Refused = Rt->createKernel(request("vf16_use_fp16")).status();
    EXPECT_STATUS(PI_ERROR_INVALID_OPERATION, "kernel 'vf16_use_fp16' requires aspect fp16",
                  Refused);
    EXPECT_EQ(Refused.Message.find("forced off"), std::string::npos) << Refused.Message;
    EXPECT_EQ(testing::piCalls().Creates.load(), 0);
  }
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  ASSERT_NO_FATAL_FAILURE(makeBuffers());
  ASSERT_NO_FATAL_FAILURE(construct(*Rt, "vf16_construct"));
  ASSERT_NO_FATAL_FAILURE(callAndCompare(*Rt, "vf16_use", plainValue));
  if (Fp16Here) {
    ASSERT_NO_FATAL_FAILURE(callAndCompare(*Rt, "vf16_use_fp16", doubledValue));
  } else {
    // The program built holds vf16_use_fp16's code; the cache does not hand it out.
    EXPECT_STATUS(PI_ERROR_INVALID_OPERATION, "kernel 'vf16_use_fp16' requires aspect fp16",
                  Rt->createKernel(request("vf16_use_fp16")).status());
    reportRealFp16Dummy("an object whose vtable points at set_fp16's dummy served vf16_use "
                        "(256 results right), and vf16_use_fp16 was refused");
  }
  for (pi_program Program : Programs)
    EXPECT_EQ(Program, Programs.front());
  EXPECT_EQ(testing::piCalls().Links.load(), 1);
}

TEST_P(RuntimeVirtualFunctions, ProgramBuiltWithoutFp16HoldsTheDummySetImage) {
  ModuleId Id = 0;
  DGLINK_REGISTER_TEST_BUNDLE("virtual_functions_fp16", Id);
  const bool Fp16Here = deviceHasFp16();
  Expected<Program> Built = Rt->getOrBuildProgram(request("vf16_construct"));
  ASSERT_TRUE(Built.ok()) << Built.status().Message;
  std::vector<const ImageInfo *> Fp16Set;
  for (const ImageInfo &Image : Built->images())
    if (Image.VirtualFunctionSet == "set_fp16")
      Fp16Set.push_back(&Image);
  ASSERT_EQ(Fp16Set.size(), 1u) << "set_fp16 must be linked once, real or dummy";
  EXPECT_EQ(Fp16Set[0]->DummyImage, !Fp16Here) << Fp16Set[0]->Name;
  EXPECT_EQ(Fp16Set[0]->Name.find(", dummy]") != std::string::npos, !Fp16Here) << Fp16Set[0]->Name;
  // The real image needs fp16; the dummy needs nothing.
  EXPECT_EQ(Fp16Set[0]->Aspects, Fp16Here ? std::vector<uint32_t>{Fp16} : std::vector<uint32_t>{});
  if (!Fp16Here && executesKernels())
    reportRealFp16Dummy("the program built for vf16_construct holds " + Fp16Set[0]->Name);
}

// On the Level Zero TEST DRIVER, what the device computes is DGLINK_ZE_TEST_MODULE_FLAGS
// (its zeDeviceGetModuleProperties flags; unset: fp64 and int64 atomics), and ctest runs
// these scenarios with and without fp16 and fp64. Decided here from the driver's flags,
// not from the extension names the adapter makes of them: the plan takes each set's
// real image exactly where the flag is on and its dummy where it is off, and refuses a
// caller of a set whose aspect is off.
TEST_P(RuntimeVirtualFunctions, LevelZeroTestDriverAspectsFollowItsModuleFlags) {
  if (GetParam().Backend != "level_zero" ||
      GetParam().Name.find("dglink Level Zero test driver") == std::string::npos)
    GTEST_SKIP() << "only the Level Zero test driver takes DGLINK_ZE_TEST_MODULE_FLAGS";
  const char *Flags = std::getenv("DGLINK_ZE_TEST_MODULE_FLAGS");
  std::vector<std::string> Words;
  std::string Word;
  for (const char C : std::string(Flags != nullptr ? Flags : "fp64,int64_atomics") + ",") {
    if (C == ',') {
      Words.push_back(Word);
      Word.clear();
    } else if (C != ' ') {
      Word += C;
    }
  }
  auto flagged = [&Words](const char *Name) {
    return std::find(Words.begin(), Words.end(), Name) != Words.end();
  };
  const bool Fp16Flag = flagged("fp16");
  const bool Fp64Flag = flagged("fp64");
  EXPECT_EQ(deviceHasFp16(), Fp16Flag);
  EXPECT_EQ(deviceHasFp64(), Fp64Flag);

  ModuleId Id = 0;
  DGLINK_REGISTER_TEST_BUNDLE("virtual_functions_fp16", Id);
  Expected<LinkPlan> Plan = Rt->planLink(Device, "vf16_construct");
  ASSERT_TRUE(Plan.ok()) << Plan.status().Message;
  EXPECT_TRUE(Plan->ForcedOffAspects.empty());
  EXPECT_EQ(setsOf(*Plan),
            (std::map<std::string, bool>{{"_ZTSv", false}, {"set_fp16", !Fp16Flag}}));
  const Status Caller = Rt->planLink(Device, "vf16_use_fp16").status();
  if (Fp16Flag) {
    EXPECT_TRUE(Caller.ok()) << Caller.Message;
  } else {
    EXPECT_STATUS(PI_ERROR_INVALID_OPERATION, "kernel 'vf16_use_fp16' requires aspect fp16",
                  Caller);
  }

  // The seed's bundle in a Runtime of its own (both bundles provide the default set).
  Runtime Seed(testing::countingTable());
  ASSERT_TRUE(Seed.registerBundleFile(testing::testBundlePath("virtual_functions")).ok());
  Expected<LinkPlan> Fp64Plan = Seed.planLink(Device, "vf_construct");
  ASSERT_TRUE(Fp64Plan.ok()) << Fp64Plan.status().Message;
  EXPECT_EQ(setsOf(*Fp64Plan), (std::map<std::string, bool>{{"_ZTSv", false},
                                                            {"fp64_set", !Fp64Flag},
                                                            {"regular_set", false},
                                                            {"set_fp64", !Fp64Flag}}));
  EXPECT_EQ(testing::piCalls().Creates.load(), 0);
}

TEST_P(RuntimeVirtualFunctions, UnknownForcedOffAspectIsAnErrorNamingIt) {
  ModuleId Id = 0;
  DGLINK_REGISTER_TEST_BUNDLE("virtual_functions", Id);
  ForceAspectsOff Off("fp64,fp63");
  Runtime Forced(testing::countingTable());
  ASSERT_TRUE(Forced.registerBundleFile(testing::testBundlePath("virtual_functions")).ok());
  // A typo must not leave every aspect on and the test passing for the wrong reason.
  EXPECT_STATUS(PI_ERROR_INVALID_VALUE,
                "DGLINK_FORCE_ASPECTS_OFF='fp64,fp63': unknown aspect 'fp63' (known: fp16, "
                "fp64, atomic64)",
                Forced.planLink(Device, "vf_use").status());
  EXPECT_STATUS(PI_ERROR_INVALID_VALUE, "unknown aspect 'fp63'",
                Forced.createKernel(request("vf_use")).status());
}

TEST_P(RuntimeVirtualFunctions, KernelNeedingAnAspectDglinkDoesNotKnowIsRefusedNamingIt) {
  if (!testing::testBundlesMissingReason().empty())
    GTEST_SKIP() << testing::testBundlesMissingReason();
  const std::vector<uint8_t> Bytes = editedBundle("virtual_functions", [](BundleImage &Image) {
    setProperty(Image, "DGLINK/kernel aspects", BundleProperty::byteArray("vf_use", {99, 0, 0, 0}));
  });
  ASSERT_FALSE(Bytes.empty());
  ASSERT_TRUE(Rt->registerBundle(Bytes.data(), Bytes.size(), "edited.bundle").ok());
  testing::piCalls().reset();
  EXPECT_STATUS(PI_ERROR_INVALID_OPERATION,
                "kernel 'vf_use' requires aspect 99 (a sycl::aspect dglink does not know, so no "
                "device has it), which device '",
                Rt->createKernel(request("vf_use")).status());
  EXPECT_EQ(testing::piCalls().Creates.load(), 0);
}

TEST(RuntimeVirtualFunctionsRegistry, MalformedPropertiesAreRefusedNamingTheImageAndProperty) {
  if (!testing::testBundlesMissingReason().empty())
    GTEST_SKIP() << testing::testBundlesMissingReason();
  struct Case {
    std::string Image;
    std::string Set;
    BundleProperty Property;
    std::string Expected;
  };
  const std::string SetImage = "virtual_functions [virtual functions set_fp64]";
  const std::vector<Case> Cases = {
      {SetImage, "SYCL/virtual functions", BundleProperty::string("virtual-functions-set", ""),
       "property 'virtual-functions-set' is empty"},
      {SetImage, "SYCL/virtual functions",
       BundleProperty::string("virtual-functions-set", "set_fp64,other"),
       "property 'virtual-functions-set' ('set_fp64,other') names more than one set"},
      {SetImage, "SYCL/device requirements", BundleProperty::byteArray("aspects", {6, 0, 0}),
       "property set 'SYCL/device requirements', property 'aspects' is 3 bytes, not a list of "
       "uint32 aspects"},
      {"virtual_functions", "DGLINK/kernel aspects",
       BundleProperty::byteArray("vf_use_fp64", {6, 0, 0, 0, 1}),
       "property set 'DGLINK/kernel aspects', property 'vf_use_fp64' is 5 bytes"},
      {"virtual_functions", "SYCL/virtual functions",
       BundleProperty::string("uses-virtual-functions-set", "_ZTSv,,set_fp64"),
       "property 'uses-virtual-functions-set' ('_ZTSv,,set_fp64') lists an empty set name"},
      {"virtual_functions", "SYCL/virtual functions",
       BundleProperty::string("uses-virtual-functions-set", "_ZTSv,"), "lists an empty set name"},
  };
  for (const Case &C : Cases) {
    const std::vector<uint8_t> Bytes =
        editedBundle(C.Image, [&C](BundleImage &Image) { setProperty(Image, C.Set, C.Property); });
    ASSERT_FALSE(Bytes.empty());
    Runtime Rt(testing::countingTable());
    Expected<ModuleId> Id = Rt.registerBundle(Bytes.data(), Bytes.size(), "edited.bundle");
    ASSERT_FALSE(Id.ok()) << C.Expected;
    EXPECT_STATUS(PI_ERROR_INVALID_BINARY, "edited.bundle: image ", Id.status());
    EXPECT_STATUS(PI_ERROR_INVALID_BINARY, "('" + C.Image + "')", Id.status());
    EXPECT_STATUS(PI_ERROR_INVALID_BINARY, C.Expected, Id.status());
    EXPECT_TRUE(Rt.images().empty());
  }
}

} // namespace
} // namespace dglink::runtime
