// Shared pieces of the HIP adapter's unit tests, built once per adapter build:
// the adapter opened with dlopen (as the dispatch layer does) and called through
// its function table, and a device fixture that skips without a HIP device.
#pragma once

#include "../../test_support/loaded_adapter.h"

#include <dglink/pi.h>

#include <gtest/gtest.h>

#include <string>

namespace dglink::hip::test {

// The adapter library, opened once.
using LoadedAdapter = dglink::test::LoadedAdapter;
const LoadedAdapter &adapter();
inline const pi_plugin_functions &pi() { return adapter().Plugin.PiFunctionTable; }

// The adapter's last-error message.
std::string lastError();

// Number of platforms the adapter reports (0 without a device).
pi_uint32 platformCount();

// Why device tests skip: names the platform and what is missing.
std::string noDeviceReason();

// A string-valued device info query.
std::string deviceString(pi_device Device, pi_device_info Name);

// A context and queue on the first device of the adapter; skips without one.
class HipDeviceTest : public ::testing::Test {
protected:
  void SetUp() override;
  void TearDown() override;

  pi_platform Platform = nullptr;
  pi_device Device = nullptr;
  pi_context Context = nullptr;
  pi_queue Queue = nullptr;
};

} // namespace dglink::hip::test

#define ASSERT_PI(Call) ASSERT_EQ(PI_SUCCESS, (Call)) << ::dglink::hip::test::lastError()
#define EXPECT_PI(Call) EXPECT_EQ(PI_SUCCESS, (Call)) << ::dglink::hip::test::lastError()
