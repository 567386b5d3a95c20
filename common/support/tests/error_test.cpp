// Unit tests of the last-error storage and the range check in validate.h.
#include <dglink/support/error.h>
#include <dglink/support/info.h>
#include <dglink/support/validate.h>

#include <gtest/gtest.h>

#include <cstring>
#include <thread>

namespace {

TEST(LastError, IsPerThread) {
  dglink::fail(PI_ERROR_INVALID_QUEUE, "queue {} is bad", 7);
  std::thread Other([] {
    dglink::fail(PI_ERROR_INVALID_VALUE, "other thread");
    EXPECT_EQ(dglink::lastErrorMessage(), "other thread");
  });
  Other.join();
  char *Message = nullptr;
  EXPECT_EQ(dglink::getLastError(&Message), PI_ERROR_INVALID_QUEUE);
  EXPECT_STREQ(Message, "queue 7 is bad");
  EXPECT_STREQ(dglink::resultName(PI_ERROR_LINK_PROGRAM_FAILURE), "PI_ERROR_LINK_PROGRAM_FAILURE");
}

pi_result takesPointer(const void *Ptr) {
  DGLINK_CHECK_NOT_NULL(Ptr, PI_ERROR_INVALID_VALUE);
  return PI_SUCCESS;
}

TEST(LastError, NullCheckNamesFunctionAndArgument) {
  EXPECT_EQ(takesPointer(nullptr), PI_ERROR_INVALID_VALUE);
  EXPECT_EQ(dglink::lastErrorMessage(), "takesPointer: argument 'Ptr' is null");
}

TEST(Validate, DeviceGlobalRangeHandlesOverflow) {
  EXPECT_EQ(dglink::checkDeviceGlobalRange("v", 0, 16, 16), PI_SUCCESS);
  EXPECT_EQ(dglink::checkDeviceGlobalRange("v", 16, 0, 16), PI_SUCCESS);
  EXPECT_EQ(dglink::checkDeviceGlobalRange("v", 12, 8, 16), PI_ERROR_INVALID_VALUE);
  EXPECT_EQ(dglink::lastErrorMessage(),
            "device global 'v': offset 12 + count 8 is past its size of 16 bytes");
  EXPECT_EQ(dglink::checkDeviceGlobalRange("v", 8, SIZE_MAX, 16), PI_ERROR_INVALID_VALUE);
  EXPECT_EQ(dglink::checkDeviceGlobalRange("v", SIZE_MAX, 1, 16), PI_ERROR_INVALID_VALUE);
}

TEST(Info, ReportsSizeAndRefusesSmallBuffers) {
  size_t Needed = 0;
  EXPECT_EQ(dglink::returnInfoString("abc", 0, nullptr, &Needed), PI_SUCCESS);
  EXPECT_EQ(Needed, 4u);
  char Small[2];
  EXPECT_EQ(dglink::returnInfoString("abc", sizeof(Small), Small, nullptr), PI_ERROR_INVALID_VALUE);
  char Fits[4];
  EXPECT_EQ(dglink::returnInfoString("abc", sizeof(Fits), Fits, nullptr), PI_SUCCESS);
  EXPECT_STREQ(Fits, "abc");
  pi_uint32 Value = 0;
  EXPECT_EQ(dglink::returnInfo(pi_uint32{42}, sizeof(Value), &Value, nullptr), PI_SUCCESS);
  EXPECT_EQ(Value, 42u);
}

} // namespace
