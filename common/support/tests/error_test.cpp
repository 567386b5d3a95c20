// Unit tests of the last-error storage and the argument checks in validate.h.
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

TEST(Validate, WaitLists) {
  pi_plugin_functions Table{};
  pi_plugin_functions OtherTable{};
  pi_handle_header Mine{&Table};
  pi_handle_header Foreign{&OtherTable};
  pi_event Events[2] = {reinterpret_cast<pi_event>(&Mine), reinterpret_cast<pi_event>(&Mine)};
  EXPECT_EQ(dglink::checkWaitList(0, nullptr, &Table), PI_SUCCESS);
  EXPECT_EQ(dglink::checkWaitList(2, Events, &Table), PI_SUCCESS);
  EXPECT_EQ(dglink::checkWaitList(1, nullptr, &Table), PI_ERROR_INVALID_EVENT_WAIT_LIST);
  EXPECT_EQ(dglink::checkWaitList(0, Events, &Table), PI_ERROR_INVALID_EVENT_WAIT_LIST);
  Events[1] = nullptr;
  EXPECT_EQ(dglink::checkWaitList(2, Events, &Table), PI_ERROR_INVALID_EVENT_WAIT_LIST);
  EXPECT_EQ(dglink::lastErrorMessage(), "event wait list: entry 1 is null");
  Events[1] = reinterpret_cast<pi_event>(&Foreign);
  EXPECT_EQ(dglink::checkWaitList(2, Events, &Table), PI_ERROR_INVALID_EVENT_WAIT_LIST);
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
  EXPECT_EQ(dglink::returnInfoString("abc", sizeof(Small), Small, nullptr),
            PI_ERROR_INVALID_VALUE);
  char Fits[4];
  EXPECT_EQ(dglink::returnInfoString("abc", sizeof(Fits), Fits, nullptr), PI_SUCCESS);
  EXPECT_STREQ(Fits, "abc");
  pi_uint32 Value = 0;
  EXPECT_EQ(dglink::returnInfo(pi_uint32{42}, sizeof(Value), &Value, nullptr), PI_SUCCESS);
  EXPECT_EQ(Value, 42u);
}

} // namespace
