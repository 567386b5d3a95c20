// Unit tests of piPluginInit's shared body: version parsing and mismatch errors.
#include <dglink/support/plugin.h>

#include <gtest/gtest.h>

#include <cstring>

namespace {

pi_result dummyFinish(pi_queue) { return PI_SUCCESS; }

pi_plugin_functions tableWithFinish() {
  pi_plugin_functions Table{};
  Table.piQueueFinish = dummyFinish;
  return Table;
}

TEST(PluginInit, AcceptsSameMajorAndFillsTable) {
  pi_plugin Plugin{};
  std::strcpy(Plugin.PiVersion, "1.7");
  ASSERT_EQ(dglink::initPlugin(&Plugin, "test", tableWithFinish()), PI_SUCCESS);
  EXPECT_STREQ(Plugin.PluginVersion, PI_VERSION_STRING);
  EXPECT_STREQ(Plugin.Targets, "test");
  EXPECT_EQ(Plugin.PiFunctionTable.piQueueFinish, &dummyFinish);
}

TEST(PluginInit, RejectsOtherMajorWithMessageAndLeavesPluginUnchanged) {
  pi_plugin Plugin{};
  std::strcpy(Plugin.PiVersion, "2.0");
  EXPECT_EQ(dglink::initPlugin(&Plugin, "test", tableWithFinish()), PI_ERROR_INVALID_OPERATION);
  EXPECT_NE(dglink::lastErrorMessage().find("caller speaks PI 2.0"), std::string::npos)
      << dglink::lastErrorMessage();
  EXPECT_EQ(Plugin.PiFunctionTable.piQueueFinish, nullptr);
  EXPECT_EQ(Plugin.PluginVersion[0], '\0');
}

TEST(PluginInit, RejectsMalformedVersionAndNull) {
  pi_plugin Plugin{};
  std::strcpy(Plugin.PiVersion, "one.two");
  EXPECT_EQ(dglink::initPlugin(&Plugin, "test", tableWithFinish()), PI_ERROR_INVALID_VALUE);
  std::memset(Plugin.PiVersion, '1', sizeof(Plugin.PiVersion)); // no terminator
  EXPECT_EQ(dglink::initPlugin(&Plugin, "test", tableWithFinish()), PI_ERROR_INVALID_VALUE);
  EXPECT_EQ(dglink::initPlugin(nullptr, "test", tableWithFinish()), PI_ERROR_INVALID_VALUE);
  char *Message = nullptr;
  EXPECT_EQ(dglink::getLastError(&Message), PI_ERROR_INVALID_VALUE);
  EXPECT_NE(std::strstr(Message, "PluginInfo"), nullptr);
}

// A PI 1.1 caller's pi_plugin ends before the PI 1.2 entries: nothing past it is
// written (the struct here is the newest, with the 1.2 entries as a guard).
TEST(PluginInit, OlderCallerGetsOnlyItsEntries) {
  pi_plugin_functions Table = tableWithFinish();
  auto Succeed = [](auto...) -> pi_result { return PI_SUCCESS; };
  Table.piextUSMGetMemAllocInfo = Succeed;
  Table.piEnqueueMemUnmap = Succeed;
  Table.piEventSetCallback = Succeed;
  pi_plugin Plugin{};
  std::strcpy(Plugin.PiVersion, "1.1");
  ASSERT_EQ(dglink::initPlugin(&Plugin, "test", Table), PI_SUCCESS);
  EXPECT_EQ(Plugin.PiFunctionTable.piQueueFinish, &dummyFinish);
  EXPECT_NE(Plugin.PiFunctionTable.piEventSetCallback, nullptr); // the last of 1.1
  EXPECT_EQ(Plugin.PiFunctionTable.piextUSMGetMemAllocInfo, nullptr);
  EXPECT_EQ(Plugin.PiFunctionTable.piEnqueueMemUnmap, nullptr);
  pi_plugin Oldest{};
  std::strcpy(Oldest.PiVersion, "1.0");
  ASSERT_EQ(dglink::initPlugin(&Oldest, "test", Table), PI_SUCCESS);
  EXPECT_EQ(Oldest.PiFunctionTable.piQueueFinish, &dummyFinish);
  EXPECT_EQ(Oldest.PiFunctionTable.piEventSetCallback, nullptr);
  EXPECT_LT(dglink::functionTableBytes(0), dglink::functionTableBytes(1));
  EXPECT_LT(dglink::functionTableBytes(1), dglink::functionTableBytes(2));
  EXPECT_EQ(dglink::functionTableBytes(PI_MINOR_VERSION), sizeof(pi_plugin_functions));
  EXPECT_EQ(dglink::functionTableBytes(PI_MINOR_VERSION + 5), sizeof(pi_plugin_functions));
}

TEST(PluginInit, ParsesVersions) {
  int Major = -1, Minor = -1;
  EXPECT_TRUE(dglink::parsePiVersion("1", Major, Minor));
  EXPECT_EQ(Major, 1);
  EXPECT_EQ(Minor, 0);
  EXPECT_TRUE(dglink::parsePiVersion("12.34", Major, Minor));
  EXPECT_EQ(Major, 12);
  EXPECT_EQ(Minor, 34);
  EXPECT_FALSE(dglink::parsePiVersion("1.2.3", Major, Minor));
  EXPECT_FALSE(dglink::parsePiVersion("", Major, Minor));
  EXPECT_FALSE(dglink::parsePiVersion("-1.0", Major, Minor));
}

} // namespace
