// `dglink bench --plot`: an SVG from the copy benchmark's JSON, and clear errors for
// input it cannot draw.
#include "plot.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace {

using dglink::tools::plotBenchmarks;
using dglink::tools::PlotInput;

std::string sample() {
  std::ifstream In(DGLINK_PLOT_SAMPLE);
  std::ostringstream Text;
  Text << In.rdbuf();
  return Text.str();
}

size_t count(const std::string &Text, const std::string &What) {
  size_t Count = 0;
  for (size_t At = Text.find(What); At != std::string::npos; At = Text.find(What, At + 1))
    ++Count;
  return Count;
}

TEST(Plot, DrawsEveryImplementationPerOperation) {
  const std::string Json = sample();
  ASSERT_FALSE(Json.empty()) << DGLINK_PLOT_SAMPLE;
  std::string Svg;
  std::string Error;
  ASSERT_TRUE(plotBenchmarks({{"sample.json", Json}}, Svg, Error)) << Error;
  EXPECT_EQ(Svg.rfind("<svg", 0), 0U);
  EXPECT_NE(Svg.find("</svg>"), std::string::npos);
  // Write and read, three lines each, six sizes per line.
  EXPECT_EQ(count(Svg, "<polyline"), 6U);
  EXPECT_EQ(count(Svg, "<circle"), 36U);
  EXPECT_NE(Svg.find("NVIDIA H100 80GB HBM3 (sample numbers) (cuda): write"), std::string::npos);
  EXPECT_NE(Svg.find("raw_pinned"), std::string::npos);
  EXPECT_NE(Svg.find("4 MiB"), std::string::npos);
  // The median aggregate, not a repetition: 1 MiB write of dglink is 40 * 1.01.
  EXPECT_NE(Svg.find("dglink 1 MiB: 40.40 us"), std::string::npos);
}

// Google Benchmark writes a counter it cannot compute as NaN (a rate of 0 bytes): the
// file is still read, and a "NaN" inside a string stays text.
TEST(Plot, ReadsGoogleBenchmarksNaNCounters) {
  std::string Json = sample();
  ASSERT_FALSE(Json.empty()) << DGLINK_PLOT_SAMPLE;
  const size_t At = Json.find("\"benchmarks\"");
  ASSERT_NE(At, std::string::npos);
  Json.insert(Json.find('[', At) + 1,
              "{\"name\": \"Lookup/NaN/0\", \"run_name\": \"Lookup/NaN/0\", "
              "\"bytes_per_second\": NaN, \"other\": -inf},");
  std::string Svg;
  std::string Error;
  ASSERT_TRUE(plotBenchmarks({{"nan.json", Json}}, Svg, Error)) << Error;
  EXPECT_EQ(count(Svg, "<polyline"), 6U);
}

TEST(Plot, RunWritesTheFile) {
  const std::string Output = std::string(DGLINK_PLOT_OUTPUT_DIR) + "/plot_test.svg";
  ASSERT_EQ(dglink::tools::runPlot({DGLINK_PLOT_SAMPLE}, Output), 0);
  std::ifstream In(Output);
  std::string First;
  std::getline(In, First);
  EXPECT_EQ(First.rfind("<svg", 0), 0U) << First;
}

TEST(Plot, BadInputGetsAClearError) {
  std::string Svg;
  std::string Error;
  EXPECT_FALSE(plotBenchmarks({{"broken.json", "{\"benchmarks\": [ {"}}, Svg, Error));
  EXPECT_NE(Error.find("'broken.json' is not JSON"), std::string::npos) << Error;
  EXPECT_FALSE(plotBenchmarks({{"other.json", "{\"benchmarks\": [{\"name\": \"BM_x/8\", "
                                              "\"median_us\": 1}]}"}},
                              Svg, Error));
  EXPECT_NE(Error.find("'other.json' has no Write/Read rows"), std::string::npos) << Error;
  EXPECT_FALSE(plotBenchmarks({{"list.json", "[1, 2]"}}, Svg, Error));
  EXPECT_NE(Error.find("no \"benchmarks\" array"), std::string::npos) << Error;
  EXPECT_FALSE(plotBenchmarks({}, Svg, Error));
  EXPECT_NE(Error.find("--from"), std::string::npos) << Error;
  EXPECT_EQ(dglink::tools::runPlot({"no-such-file.json"},
                                   std::string(DGLINK_PLOT_OUTPUT_DIR) + "/never.svg"),
            1);
}

} // namespace
