#include "logging/log.h"

#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace draplane::logging {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::SizeIs;

// 2024-12-04 19:11:26.123456 UTC.
absl::Time FixedTime() {
  return absl::FromCivil(absl::CivilSecond(2024, 12, 4, 19, 11, 26),
                         absl::UTCTimeZone()) +
         absl::Microseconds(123456);
}

// Restores the process's options after a test changes them.
class LogTest : public ::testing::Test {
 protected:
  void SetUp() override { saved_ = CurrentOptions(); }
  void TearDown() override { Configure(saved_); }
  Options saved_;
};

TEST_F(LogTest, TextRecordIsKlogStructuredText) {
  Message message("Heartbeat failed");
  std::string line = FormatRecord(
      Format::kText, Severity::kError, 0, FixedTime(), 12345, message,
      {{"node", "gpu-1"},
       {"err", absl::UnavailableError("connection refused")},
       {"attempt", 3},
       {"ready", false}});
  const std::string file_line =
      "log_test.cc:" + std::to_string(message.line) + "] ";
  EXPECT_EQ(line, "E1204 19:11:26.123456   12345 " + file_line +
                      "\"Heartbeat failed\" node=\"gpu-1\" "
                      "err=\"UNAVAILABLE: connection refused\" attempt=3 "
                      "ready=false");
}

TEST_F(LogTest, TextValuesAreQuotedAsGo) {
  std::string line =
      FormatRecord(Format::kText, Severity::kInfo, 0, FixedTime(), 1,
                   Message("two\nlines"), {{"path", "a\"b\\c\td"}});
  EXPECT_THAT(line, HasSubstr("] \"two\\nlines\" path=\"a\\\"b\\\\c\\td\""));
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_THAT(line, MatchesRegex("I1204 19:11:26\\.123456       1 .*"));
}

TEST_F(LogTest, JsonRecordIsComponentBaseShape) {
  Message message("Published ResourceSlices");
  std::string line = FormatRecord(
      Format::kJson, Severity::kInfo, 2, FixedTime(), 7, message,
      {{"node", "gpu-1"}, {"count", 4}, {"took", absl::Milliseconds(1500)}});
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(line);
  EXPECT_EQ(j.dump(),
            nlohmann::ordered_json::parse(
                R"({"ts":1733339486.123456,"caller":"logging/log_test.cc:)" +
                std::to_string(message.line) +
                R"(","msg":"Published ResourceSlices","v":2,"node":"gpu-1",)"
                R"("count":4,"took":"1.5s"})")
                .dump());
}

TEST_F(LogTest, JsonErrorsCarryNoVerbosity) {
  std::string line = FormatRecord(Format::kJson, Severity::kError, 0,
                                  FixedTime(), 7, Message("x\u0001\"y"),
                                  {{"err", absl::NotFoundError("gone")}});
  nlohmann::json j = nlohmann::json::parse(line);
  EXPECT_FALSE(j.contains("v"));
  EXPECT_EQ(j["msg"], "x\u0001\"y");
  EXPECT_EQ(j["err"], "NOT_FOUND: gone");
}

TEST_F(LogTest, VerbosityFiltersVerboseRecords) {
  ScopedCapture capture;
  Configure({Format::kText, 2});
  EXPECT_TRUE(V(2));
  EXPECT_FALSE(V(3));
  V(2).Info("shown");
  V(3).Info("hidden");
  Info("always");
  Warning("warned");
  std::vector<std::string> lines = capture.Lines();
  ASSERT_THAT(lines, SizeIs(3));
  EXPECT_THAT(lines[0], HasSubstr("] \"shown\""));
  EXPECT_EQ(lines[0][0], 'I');
  EXPECT_THAT(lines[1], HasSubstr("] \"always\""));
  EXPECT_EQ(lines[2][0], 'W');
}

TEST_F(LogTest, ConfiguredFormatApplies) {
  ScopedCapture capture;
  Configure({Format::kJson, 0});
  Info("as json", {{"k", "v"}});
  ASSERT_THAT(capture.Lines(), SizeIs(1));
  nlohmann::json j = nlohmann::json::parse(capture.Lines()[0]);
  EXPECT_EQ(j["msg"], "as json");
  EXPECT_EQ(j["k"], "v");
  EXPECT_EQ(j["v"], 0);
}

TEST_F(LogTest, ParseFormat) {
  EXPECT_EQ(*ParseFormat("text"), Format::kText);
  EXPECT_EQ(*ParseFormat("json"), Format::kJson);
  absl::StatusOr<Format> bad = ParseFormat("xml");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr("the formats are \"text\" and \"json\""));
}

TEST_F(LogTest, ConcurrentRecordsStayWhole) {
  ScopedCapture capture;
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 200; ++i) Info("record", {{"t", t}, {"i", i}});
    });
  }
  for (std::thread& th : threads) th.join();
  std::vector<std::string> lines = capture.Lines();
  ASSERT_THAT(lines, SizeIs(800));
  for (const std::string& line : lines) {
    EXPECT_THAT(line, MatchesRegex(".*\"record\" t=[0-3] i=[0-9]+"));
  }
}

TEST_F(LogTest, NestedCapturesRestore) {
  ScopedCapture outer;
  {
    ScopedCapture inner;
    Info("inner");
    EXPECT_THAT(inner.Lines(), SizeIs(1));
  }
  Info("outer");
  ASSERT_THAT(outer.Lines(), SizeIs(1));
  EXPECT_THAT(outer.Lines()[0], HasSubstr("\"outer\""));
}

TEST(LogDeathTest, FatalLogsAndAborts) {
  EXPECT_DEATH(Fatal("impossible state", {{"key", "k"}}),
               "F[0-9]{4} .*log_test.cc:[0-9]+\\] \"impossible state\" "
               "key=\"k\"");
}

}  // namespace
}  // namespace draplane::logging
