#include "protobuf/internal/go_json.h"

#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "protobuf/internal/go_time.h"

namespace draplane::protobuf::internal {
namespace {

TEST(ValidUtf8LikeGoTest, ReplacesEachInvalidByte) {
  EXPECT_EQ(ValidUtf8LikeGo(""), "");
  EXPECT_EQ(ValidUtf8LikeGo("plain ascii"), "plain ascii");
  EXPECT_EQ(ValidUtf8LikeGo("caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80"),
            "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80");
  // Go's utf8.DecodeRuneInString returns width 1 for every invalid start, so
  // each byte of a bad sequence becomes its own U+FFFD.
  EXPECT_EQ(ValidUtf8LikeGo("a\xffz"), "a\xef\xbf\xbdz");
  EXPECT_EQ(ValidUtf8LikeGo("\xc3"), "\xef\xbf\xbd");  // truncated
  EXPECT_EQ(ValidUtf8LikeGo("\xc0\xaf"),
            "\xef\xbf\xbd\xef\xbf\xbd");      // overlong
  EXPECT_EQ(ValidUtf8LikeGo("\xed\xa0\x80"),  // surrogate U+D800
            "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(ValidUtf8LikeGo("\xf4\x90\x80\x80"),  // above U+10FFFF
            "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(ValidUtf8LikeGo("\xef\xbf\xbd"), "\xef\xbf\xbd");
  EXPECT_EQ(ValidUtf8LikeGo(std::string("a\0b", 3)), std::string("a\0b", 3));
}

std::string Format(int64_t seconds, int32_t nanos, TimePrecision precision) {
  absl::StatusOr<std::optional<std::string>> text =
      FormatGoTime(seconds, nanos, precision);
  if (!text.ok()) return "error: " + std::string(text.status().message());
  return text->value_or("null");
}

TEST(FormatGoTimeTest, Seconds) {
  constexpr auto kS = TimePrecision::kSeconds;
  EXPECT_EQ(Format(0, 0, kS), "1970-01-01T00:00:00Z");
  EXPECT_EQ(Format(1740830400, 0, kS), "2025-03-01T12:00:00Z");
  EXPECT_EQ(Format(1740830400, 999999999, kS), "2025-03-01T12:00:00Z");
  EXPECT_EQ(Format(951782400, 0, kS), "2000-02-29T00:00:00Z");  // leap day
  EXPECT_EQ(Format(-1, 0, kS), "1969-12-31T23:59:59Z");
  EXPECT_EQ(Format(-62167219200, 0, kS), "0000-01-01T00:00:00Z");
  EXPECT_EQ(Format(253402300799, 0, kS), "9999-12-31T23:59:59Z");
  EXPECT_EQ(Format(-62135596800, 0, kS), "null");  // Go's zero time
  EXPECT_EQ(Format(-62135596799, 0, kS), "0001-01-01T00:00:01Z");
  EXPECT_EQ(Format(-62167219201, 0, kS),
            "error: time -62167219201s since the epoch is outside years "
            "0-9999");
  EXPECT_EQ(Format(253402300800, 0, kS),
            "error: time 253402300800s since the epoch is outside years "
            "0-9999");
  EXPECT_EQ(Format(INT64_MAX, 0, kS).substr(0, 6), "error:");
  EXPECT_EQ(Format(INT64_MIN, 0, kS).substr(0, 6), "error:");
}

TEST(FormatGoTimeTest, Micros) {
  constexpr auto kM = TimePrecision::kMicros;
  EXPECT_EQ(Format(1740830400, 0, kM), "2025-03-01T12:00:00.000000Z");
  EXPECT_EQ(Format(1740830400, 123456789, kM), "2025-03-01T12:00:00.123456Z");
  EXPECT_EQ(Format(1740830400, 999, kM), "2025-03-01T12:00:00.000000Z");
  // Nanos outside [0, 1e9) carry into the seconds like time.Unix; negative
  // nanos truncate toward zero first (Duration.Truncate).
  EXPECT_EQ(Format(1740830400, 1500000000, kM), "2025-03-01T12:00:01.500000Z");
  EXPECT_EQ(Format(1740830400, -1500, kM), "2025-03-01T11:59:59.999999Z");
  EXPECT_EQ(Format(1740830400, -999, kM), "2025-03-01T12:00:00.000000Z");
  EXPECT_EQ(Format(-62135596800, 0, kM), "null");
  EXPECT_EQ(Format(-62135596800, 999, kM), "null");
  EXPECT_EQ(Format(-62135596800, 1000, kM), "0001-01-01T00:00:00.000001Z");
  EXPECT_EQ(Format(-62135596801, 1000000000, kM), "null");
  EXPECT_EQ(Format(253402300799, 999999999, kM), "9999-12-31T23:59:59.999999Z");
  EXPECT_EQ(Format(253402300799, 1000000000, kM).substr(0, 6), "error:");
  EXPECT_EQ(Format(INT64_MAX, INT32_MAX, kM).substr(0, 6), "error:");
  EXPECT_EQ(Format(INT64_MIN, INT32_MIN, kM).substr(0, 6), "error:");
}

}  // namespace
}  // namespace draplane::protobuf::internal
