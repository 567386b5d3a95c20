// The per-device fixture of the runtime tests: a conformance LinkTest (a context and
// queue on the device, Format = a link format it advertises that the suite has images
// of; skipped with the reason where there is none) plus a Runtime over the counting
// layer, and helpers that register bundles and run kernels.
#pragma once

#include "counting_table.h"
#include "fixtures.h"

#include <dglink/runtime.h>

#include <functional>
#include <memory>
#include <string>

namespace dglink::runtime {

// Base: conformance::LinkTest (the device links a format the suite has images of), or
// conformance::BuiltProgramTest (it builds one).
template <typename Base> class RuntimeTestOn : public Base {
protected:
  using Base::Context;
  using Base::Device;
  using Base::runOnBuffer;
  void SetUp() override {
    Base::SetUp();
    if (this->HasFatalFailure() || this->IsSkipped())
      return;
    if (testing::conformanceBundle("link_caller").Data == nullptr)
      GTEST_SKIP() << "the conformance suite was built without device code (no shim), so "
                      "there is no bundle to register";
    testing::piCalls().reset();
    Rt = std::make_unique<Runtime>(testing::countingTable());
  }
  void TearDown() override {
    Rt.reset(); // its programs go before the context does
    Base::TearDown();
  }

  // One of the conformance suite's embedded bundles, registered from its bytes.
  void registerConformance(const std::string &Name, ModuleId &Out) {
    const testing::BundleBytes Bytes = testing::conformanceBundle(Name);
    ASSERT_NE(Bytes.Data, nullptr) << "no embedded bundle " << Name;
    Expected<ModuleId> Id = Rt->registerBundle(Bytes.Data, Bytes.Size, Name + ".bundle");
    ASSERT_TRUE(Id.ok()) << Id.status().Message;
    Out = *Id;
  }
  // One of the runtime tests' own bundles, registered from its file (the test skips
  // when the shim was not built).
  void registerTestBundle(const std::string &Name, ModuleId &Out) {
    if (!testing::testBundlesMissingReason().empty())
      GTEST_SKIP() << testing::testBundlesMissingReason();
    Expected<ModuleId> Id = Rt->registerBundleFile(testing::testBundlePath(Name));
    ASSERT_TRUE(Id.ok()) << Id.status().Message;
    Out = *Id;
  }

  ProgramRequest request(const std::string &Kernel, ModuleId Module = 0) const {
    ProgramRequest Request;
    Request.Context = Context.get();
    Request.Device = Device;
    Request.Kernel = Kernel;
    Request.Module = Module;
    return Request;
  }

  // Kernel over 256 elements, every one compared with Expected. Callers check
  // executesKernels() first.
  void runAndCompare(const Kernel &K, const std::function<int32_t(size_t)> &Expected) {
    std::vector<int32_t> Values;
    ASSERT_NO_FATAL_FAILURE(runOnBuffer(K.get(), 256, Values));
    EXPECT_EVERY_ELEMENT(Values, Expected);
  }

  std::unique_ptr<Runtime> Rt;
};

// Scenarios that link (the runtime's collection and caches).
class RuntimeDeviceTest : public RuntimeTestOn<conformance::LinkTest> {};
// Scenarios that only build (the device-global database).
class RuntimeBuildTest : public RuntimeTestOn<conformance::BuiltProgramTest> {};

// registerTestBundle in a test body, returning from the test where it skipped.
#define DGLINK_REGISTER_TEST_BUNDLE(Name, Out)                                                     \
  do {                                                                                             \
    ASSERT_NO_FATAL_FAILURE(registerTestBundle(Name, Out));                                        \
    if (IsSkipped())                                                                               \
      return;                                                                                      \
  } while (0)

// A Status with the exact code and a message that contains Text.
#define EXPECT_STATUS(ExpectedCode, Text, Actual)                                                  \
  do {                                                                                             \
    const ::dglink::runtime::Status DglinkStatus_ = (Actual);                                      \
    EXPECT_EQ(DglinkStatus_.Code, ExpectedCode) << DglinkStatus_.Message;                          \
    EXPECT_NE(DglinkStatus_.Message.find(Text), std::string::npos)                                 \
        << "message: " << DglinkStatus_.Message << "\nexpected to contain: " << (Text);            \
  } while (0)

} // namespace dglink::runtime
