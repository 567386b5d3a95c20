// The conformance fixtures, in the Unified Runtime style: each level sets up one
// more PI object (device -> context -> queue -> program format), is parameterised
// over the selected devices, and skips with a reason where a device lacks what
// the level needs. Also the assertions of the error contract.
#pragma once

#include "devices.h"
#include "handles.h"
#include "images.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dglink::conformance {

// ---- assertions ----

// The message piPluginGetLastError gives now ("" if none).
std::string lastErrorMessage();
bool containsIgnoringCase(const std::string &Text, const std::string &Word);

// Predicate formatters (gtest's EXPECT_PRED_FORMATn), so that a failure reads as
// one sentence: the call, what it returned, what was expected, the last error.
// Call returned PI_SUCCESS.
::testing::AssertionResult succeeded(const char *CallText, pi_result Actual);
// Call returned Expected with a non-empty last-error message that contains
// Argument (case-insensitively) when Argument is not null.
::testing::AssertionResult failedWith(const char *CallText, const char *, const char *,
                                      pi_result Actual, pi_result Expected, const char *Argument);
// Every element I of Values equals Expected(I); a failure lists the first mismatches.
::testing::AssertionResult matchesEveryElement(const char *, const char *,
                                               const std::vector<int32_t> &Values,
                                               const std::function<int32_t(size_t)> &Expected);

#define ASSERT_PI_SUCCESS(Call) ASSERT_PRED_FORMAT1(::dglink::conformance::succeeded, Call)
#define EXPECT_PI_SUCCESS(Call) EXPECT_PRED_FORMAT1(::dglink::conformance::succeeded, Call)
// The exact code and a non-empty message.
#define EXPECT_PI_ERROR(Expected, Call)                                                            \
  EXPECT_PRED_FORMAT3(::dglink::conformance::failedWith, Call, Expected,                           \
                      static_cast<const char *>(nullptr))
// The exact code and a message that names Argument (DESIGN.md's error contract).
#define EXPECT_PI_ERROR_NAMING(Expected, Argument, Call)                                           \
  EXPECT_PRED_FORMAT3(::dglink::conformance::failedWith, Call, Expected, Argument)
#define EXPECT_EVERY_ELEMENT(Values, Expected)                                                     \
  EXPECT_PRED_FORMAT2(::dglink::conformance::matchesEveryElement, Values, Expected)

// ---- fixtures ----

// One device of the dispatch layer, and what it says about itself.
class DeviceTest : public ::testing::TestWithParam<DeviceParam> {
protected:
  void SetUp() override;

  // An info string of the device; a failing query fails the test.
  std::string deviceString(pi_device_info Name);
  std::vector<std::string> linkFormats();
  std::vector<std::string> imageFormats();
  bool hasExtension(const std::string &Extension);
  pi_device_global_mechanism deviceGlobalMechanism();
  pi_usm_mechanism usmMechanism();
  // False for test drivers that accept programs but run nothing.
  bool executesKernels();
  // Another device of the device's platform (for two-device scenarios), or null; a
  // failing query fails the test.
  pi_device otherDeviceOfPlatform();
  // A context of the device and another device of its platform (Both[0] is the device);
  // call under ASSERT_NO_FATAL_FAILURE, then return if IsSkipped(): it skips naming why
  // there is none (no second device; an adapter whose contexts hold one device, Level
  // Zero's).
  void twoDeviceContext(pi_device (&Both)[2], ContextHandle &Out);
  // Whether Result is the OpenCL adapter's refusal of USM in a context of several NVIDIA
  // GPUs, whose SVM does not work there (docs/opencl.md), and no other failure.
  static bool noUsmInSeveralGpus(pi_result Result);

  pi_platform Platform = nullptr;
  pi_device Device = nullptr;
};

// A context on the device.
class ContextTest : public DeviceTest {
protected:
  void SetUp() override;
  ContextHandle Context;
};

// An in-order queue on the device.
class QueueTest : public ContextTest {
protected:
  void SetUp() override;
  QueueHandle Queue;

  // Helpers that assert; call them under ASSERT_NO_FATAL_FAILURE.
  // A program from the embedded image Name in Format (the image outlives it): on a device
  // with the "lowered" device-global mechanism, the image lowered for it where there is
  // one, unless AllowLowered is false.
  void createProgram(const std::string &Name, const std::string &Format, ProgramHandle &Out,
                     bool AllowLowered = true);
  void compileProgram(pi_program Program);
  // Create and compile each image, then link them into Out.
  void linkImages(const std::vector<std::string> &Names, const std::string &Format,
                  ProgramHandle &Out);
  // Create Name in Format and build it.
  void buildProgram(const std::string &Name, const std::string &Format, ProgramHandle &Out,
                    bool AllowLowered = true);
  void createKernel(pi_program Program, const char *Name, KernelHandle &Out);
  // A buffer of Count ints as argument 0 of Kernel, one work-item per element,
  // read back into Values.
  void runOnBuffer(pi_kernel Kernel, size_t Count, std::vector<int32_t> &Values);
  // The build log of Program on the device.
  std::string buildLog(pi_program Program);
  // The format scenarios use on this device: the first link format it advertises
  // that the suite has images of, or (unless ForLinking) else the first format it
  // builds; false with the reason (for a skip) if there is none.
  bool chooseFormat(std::string &Format, std::string &WhyNot, bool ForLinking = false);

private:
  std::vector<std::unique_ptr<DeviceImage>> OwnedImages; // live as long as their programs
};

// Scenarios that build programs in Format (chooseFormat) and use them from the
// host (device-global copies, kernel creation, linking) without running a
// kernel; the test skips if there is no format. This level also runs on
// devices that do not execute kernels (a test driver); a scenario that goes on
// to run a kernel says so with DGLINK_REQUIRE_KERNEL_EXECUTION() first.
class BuiltProgramTest : public QueueTest {
protected:
  void SetUp() override;
  void buildProgram(const std::string &Name, ProgramHandle &Out) {
    QueueTest::buildProgram(Name, Format, Out);
  }

  std::string Format;
  bool ForLinking = false;
};

// Scenarios that build and run device code: BuiltProgramTest, skipped as a
// whole on a device that does not execute kernels.
class ProgramTest : public BuiltProgramTest {
protected:
  void SetUp() override;
};

// Scenarios that compile and link: Format is a link format the device
// advertises. Linking needs no kernel to run; running the result does.
class LinkTest : public BuiltProgramTest {
protected:
  LinkTest() { ForLinking = true; }
};

// The reason every kernel-running scenario gives on a device that runs none.
#define DGLINK_NO_KERNEL_EXECUTION_REASON                                                          \
  "device does not execute kernels (PI_EXT_DEVICE_INFO_EXECUTES_KERNELS is false)"

// In a test body (a fixture member function): skip the rest of the scenario
// where the device does not execute kernels; what ran before stands.
#define DGLINK_REQUIRE_KERNEL_EXECUTION()                                                          \
  do {                                                                                             \
    if (!executesKernels())                                                                        \
      GTEST_SKIP() << DGLINK_NO_KERNEL_EXECUTION_REASON;                                           \
  } while (0)

// Instantiates a fixture's tests for every selected device, named by device id.
// No device is not an error: Discovery.DevicesFound skips with the reason.
#define DGLINK_INSTANTIATE_FOR_DEVICES(Fixture)                                                    \
  INSTANTIATE_TEST_SUITE_P(                                                                        \
      , Fixture, ::testing::ValuesIn(::dglink::conformance::selectedDevices()),                    \
      [](const ::testing::TestParamInfo<::dglink::conformance::DeviceParam> &Info) {               \
        return Info.param.Id;                                                                      \
      });                                                                                          \
  GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Fixture)

} // namespace dglink::conformance
