// The HIP adapter (AMD build) as a runtime finds it: through libdglink_pi.so,
// which loads libdglink_adapter_hip.so from beside itself. Run with
// DGLINK_ADAPTERS=hip and DGLINK_LOG_LEVEL=info (ctest sets both).
#include <dglink/dispatch.h>
#include <dglink/pi.h>

#include <gtest/gtest.h>

#include <string>

namespace {

TEST(HipDispatch, LoadsAndSaysWhyItHasNoPlatforms) {
  // Discovery runs on the first call; the adapter logs why it has no platforms.
  ::testing::internal::CaptureStderr();
  pi_uint32 Count = 99;
  const pi_result Result = piPlatformsGet(0, nullptr, &Count);
  const std::string Log = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(Result, PI_SUCCESS);

  bool Found = false;
  for (pi_uint32 I = 0; I < dglinkDispatchAdapterCount(); ++I) {
    dglink_adapter_info Info{};
    ASSERT_EQ(PI_SUCCESS, dglinkDispatchAdapterInfo(I, &Info));
    if (std::string(Info.Name) != "hip")
      continue;
    Found = true;
    EXPECT_EQ(Info.Loaded, PI_TRUE) << Info.SkipReason;
    EXPECT_STREQ(Info.SkipReason, "");
    EXPECT_EQ(Info.NumPlatforms, Count);
  }
  ASSERT_TRUE(Found) << "libdglink_adapter_hip.so was not considered; log:\n" << Log;
  if (Count != 0)
    GTEST_SKIP() << "an AMD GPU is present: nothing to explain";
  // Either libamdhip64 is missing or it finds no AMD GPU (hipErrorNoDevice).
  EXPECT_NE(Log.find("hip: no "), std::string::npos) << Log;
  EXPECT_NE(Log.find("zero platforms"), std::string::npos) << Log;
  EXPECT_NE(Log.find("adapter 'hip' loaded"), std::string::npos) << Log;
}

} // namespace
