// The adapter loader and device fixture of the HIP unit tests.
#include "test_support.h"

#include <cstring>

namespace dglink::hip::test {

const LoadedAdapter &adapter() {
  static const LoadedAdapter Loaded = dglink::test::loadAdapter(
      "libdglink_adapter_" DGLINK_TEST_ADAPTER_NAME ".so", DGLINK_TEST_ADAPTER_FILE);
  return Loaded;
}

std::string lastError() { return dglink::test::lastErrorOf(adapter()); }

pi_uint32 platformCount() {
  pi_uint32 Count = 0;
  if (pi().piPlatformsGet == nullptr || pi().piPlatformsGet(0, nullptr, &Count) != PI_SUCCESS)
    return 0;
  return Count;
}

std::string noDeviceReason() {
#if DGLINK_TEST_HIP_NVIDIA
  return "no device on HIP's NVIDIA platform (no libcuda.so.1 or no NVIDIA GPU; "
         "DGLINK_LOG_LEVEL=info says which)";
#else
  return "no device on HIP's AMD platform (no libamdhip64 or no AMD GPU; "
         "DGLINK_LOG_LEVEL=info says which)";
#endif
}

std::string deviceString(pi_device Device, pi_device_info Name) {
  size_t Size = 0;
  EXPECT_PI(pi().piDeviceGetInfo(Device, Name, 0, nullptr, &Size));
  std::string Text(Size, '\0');
  EXPECT_PI(pi().piDeviceGetInfo(Device, Name, Size, Text.data(), nullptr));
  Text.resize(Size ? Size - 1 : 0);
  return Text;
}

void HipDeviceTest::SetUp() {
  ASSERT_NE(adapter().Library, nullptr) << adapter().Error;
  if (platformCount() == 0)
    GTEST_SKIP() << noDeviceReason();
  ASSERT_PI(pi().piPlatformsGet(1, &Platform, nullptr));
  ASSERT_PI(pi().piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 1, &Device, nullptr));
  ASSERT_PI(pi().piContextCreate(nullptr, 1, &Device, &Context));
  ASSERT_PI(pi().piQueueCreate(Context, Device, 0, &Queue));
}

void HipDeviceTest::TearDown() {
  if (Queue != nullptr) {
    EXPECT_PI(pi().piQueueRelease(Queue));
  }
  if (Context != nullptr) {
    EXPECT_PI(pi().piContextRelease(Context));
  }
}

} // namespace dglink::hip::test
