// Tests for Quantity. Most tables are ported from upstream
// k8s.io/apimachinery/pkg/api/resource/quantity_test.go and
// quantity_golden_test.go; the test names say which upstream test a table
// comes from.
#include "common/quantity.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/str_cat.h"
#include "gtest/gtest.h"

namespace draplane {
namespace {

using Format = Quantity::Format;

constexpr int64_t kMostPositive = std::numeric_limits<int64_t>::max();
constexpr int64_t kMostNegative = std::numeric_limits<int64_t>::min();

constexpr std::string_view kErrFormatWrong =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kErrNumeric =
    "unable to parse numeric part of quantity";
constexpr std::string_view kErrSuffix = "unable to parse quantity's suffix";

Quantity MustParse(std::string_view s) {
  absl::StatusOr<Quantity> q = Quantity::Parse(s);
  EXPECT_TRUE(q.ok()) << s << ": " << q.status();
  return q.ok() ? *q : Quantity();
}

// Upstream's decQuantity(i, exponent, format).
Quantity Dec(int64_t value, int32_t exponent, Format format) {
  return Quantity::FromScaled(value, exponent, format);
}

Quantity Negated(Quantity q) {
  q.Neg();
  return q;
}

// --- Parsing -----------------------------------------------------------------

struct ParseCase {
  std::string_view input;
  Quantity expect;
  Format format;
};

// Upstream TestQuantityParse.
std::vector<ParseCase> ParseCases() {
  const Format kDSI = Format::kDecimalSI;
  const Format kBSI = Format::kBinarySI;
  const Format kDE = Format::kDecimalExponent;
  const int64_t ki = 1024;
  return {
      {"0", Dec(0, 0, kDSI), kDSI},
      {"0n", Dec(0, 0, kDSI), kDSI},
      {"0u", Dec(0, 0, kDSI), kDSI},
      {"0m", Dec(0, 0, kDSI), kDSI},
      {"0Ki", Dec(0, 0, kBSI), kBSI},
      {"0k", Dec(0, 0, kDSI), kDSI},
      {"0Mi", Dec(0, 0, kBSI), kBSI},
      {"0M", Dec(0, 0, kDSI), kDSI},
      {"0Gi", Dec(0, 0, kBSI), kBSI},
      {"0G", Dec(0, 0, kDSI), kDSI},
      {"0Ti", Dec(0, 0, kBSI), kBSI},
      {"0T", Dec(0, 0, kDSI), kDSI},
      // Quantity less numbers are allowed
      {"1", Dec(1, 0, kDSI), kDSI},
      // Binary suffixes
      {"1Ki", Dec(ki, 0, kBSI), kBSI},
      {"8Ki", Dec(8 * ki, 0, kBSI), kBSI},
      {"7Mi", Dec(7 * ki * ki, 0, kBSI), kBSI},
      {"6Gi", Dec(6 * ki * ki * ki, 0, kBSI), kBSI},
      {"5Ti", Dec(5 * ki * ki * ki * ki, 0, kBSI), kBSI},
      {"4Pi", Dec(4 * ki * ki * ki * ki * ki, 0, kBSI), kBSI},
      {"3Ei", Dec(3 * ki * ki * ki * ki * ki * ki, 0, kBSI), kBSI},
      {"10Ti", Dec(10 * ki * ki * ki * ki, 0, kBSI), kBSI},
      {"100Ti", Dec(100 * ki * ki * ki * ki, 0, kBSI), kBSI},
      // Decimal suffixes
      {"5n", Dec(5, -9, kDSI), kDSI},
      {"4u", Dec(4, -6, kDSI), kDSI},
      {"3m", Dec(3, -3, kDSI), kDSI},
      {"9", Dec(9, 0, kDSI), kDSI},
      {"8k", Dec(8, 3, kDSI), kDSI},
      {"50k", Dec(5, 4, kDSI), kDSI},
      {"7M", Dec(7, 6, kDSI), kDSI},
      {"6G", Dec(6, 9, kDSI), kDSI},
      {"5T", Dec(5, 12, kDSI), kDSI},
      {"40T", Dec(4, 13, kDSI), kDSI},
      {"300T", Dec(3, 14, kDSI), kDSI},
      {"2P", Dec(2, 15, kDSI), kDSI},
      {"1E", Dec(1, 18, kDSI), kDSI},
      // Decimal exponents
      {"1E-3", Dec(1, -3, kDE), kDE},
      {"1e3", Dec(1, 3, kDE), kDE},
      {"1E6", Dec(1, 6, kDE), kDE},
      {"1e9", Dec(1, 9, kDE), kDE},
      {"1E12", Dec(1, 12, kDE), kDE},
      {"1e15", Dec(1, 15, kDE), kDE},
      {"1E18", Dec(1, 18, kDE), kDE},
      // Nonstandard but still parsable
      {"1e14", Dec(1, 14, kDE), kDE},
      {"1e13", Dec(1, 13, kDE), kDE},
      {"100.035k", Dec(100035, 0, kDSI), kDSI},
      // Things that look like floating point
      {"0.001", Dec(1, -3, kDSI), kDSI},
      {"0.0005k", Dec(5, -1, kDSI), kDSI},
      {"0.005", Dec(5, -3, kDSI), kDSI},
      {"0.05", Dec(5, -2, kDSI), kDSI},
      {"0.5", Dec(5, -1, kDSI), kDSI},
      {"0.00050k", Dec(5, -1, kDSI), kDSI},
      {"0.00500", Dec(5, -3, kDSI), kDSI},
      {"0.05000", Dec(5, -2, kDSI), kDSI},
      {"0.50000", Dec(5, -1, kDSI), kDSI},
      {"0.5e0", Dec(5, -1, kDE), kDE},
      {"0.5e-1", Dec(5, -2, kDE), kDE},
      {"0.5e-2", Dec(5, -3, kDE), kDE},
      {"10.035M", Dec(10035, 3, kDSI), kDSI},
      {"1.2e3", Dec(12, 2, kDE), kDE},
      {"1.3E+6", Dec(13, 5, kDE), kDE},
      {"1.40e9", Dec(14, 8, kDE), kDE},
      {"1.53E12", Dec(153, 10, kDE), kDE},
      {"1.6e15", Dec(16, 14, kDE), kDE},
      {"1.7E18", Dec(17, 17, kDE), kDE},
      {"9.01", Dec(901, -2, kDSI), kDSI},
      {"8.1k", Dec(81, 2, kDSI), kDSI},
      {"7.123456M", Dec(7123456, 0, kDSI), kDSI},
      {"6.987654321G", Dec(6987654321, 0, kDSI), kDSI},
      {"5.444T", Dec(5444, 9, kDSI), kDSI},
      {"40.1T", Dec(401, 11, kDSI), kDSI},
      {"300.2T", Dec(3002, 11, kDSI), kDSI},
      {"2.5P", Dec(25, 14, kDSI), kDSI},
      {"1.01E", Dec(101, 16, kDSI), kDSI},
      // Things that saturate/round
      {"3.001n", Dec(4, -9, kDSI), kDSI},
      {"1.1E-9", Dec(2, -9, kDE), kDE},
      {"0.0000000001", Dec(1, -9, kDSI), kDSI},
      {"0.0000000005", Dec(1, -9, kDSI), kDSI},
      {"0.00000000050", Dec(1, -9, kDSI), kDSI},
      {"0.5e-9", Dec(1, -9, kDE), kDE},
      {"0.9n", Dec(1, -9, kDSI), kDSI},
      {"0.00000012345", Dec(124, -9, kDSI), kDSI},
      {"0.00000012354", Dec(124, -9, kDSI), kDSI},
      {"9Ei", Dec(kMostPositive, 0, kBSI), kBSI},
      {"9223372036854775807Ki", Dec(kMostPositive, 0, kBSI), kBSI},
      {"12E", Dec(12, 18, kDSI), kDSI},
      // We'll accept fractional binary stuff, too.
      {"100.035Ki", Dec(10243584, -2, kBSI), kBSI},
      {"0.5Mi", Dec(512 * ki, 0, kBSI), kBSI},
      {"0.05Gi", Dec(536870912, -1, kBSI), kBSI},
      {"0.025Ti", Dec(274877906944, -1, kBSI), kBSI},
      // Things written by trolls
      {"0.000000000001Ki", Dec(2, -9, kDSI),
       kDSI},  // rounds up, changes format
      {".001", Dec(1, -3, kDSI), kDSI},
      {".0001k", Dec(100, -3, kDSI), kDSI},
      {"1.", Dec(1, 0, kDSI), kDSI},
      {"1.G", Dec(1, 9, kDSI), kDSI},
  };
}

TEST(QuantityParseTest, UpstreamTable) {
  for (const ParseCase& c : ParseCases()) {
    SCOPED_TRACE(c.input);
    absl::StatusOr<Quantity> got = Quantity::Parse(c.input);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->Compare(c.expect), 0)
        << "got " << *got << ", want " << c.expect;
    EXPECT_EQ(got->format(), c.format);
  }
}

TEST(QuantityParseTest, UpstreamTableNegated) {
  for (const ParseCase& c : ParseCases()) {
    SCOPED_TRACE(c.input);
    absl::StatusOr<Quantity> got = Quantity::Parse(StrCat("-", c.input));
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->Compare(Negated(c.expect)), 0)
        << "got " << *got << ", want -" << c.expect;
    EXPECT_EQ(got->format(), c.format);
    EXPECT_EQ(got->Sign(), -c.expect.Sign());
  }
}

TEST(QuantityParseTest, UpstreamTableExplicitPlus) {
  for (const ParseCase& c : ParseCases()) {
    SCOPED_TRACE(c.input);
    absl::StatusOr<Quantity> got = Quantity::Parse(StrCat("+", c.input));
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->Compare(c.expect), 0);
    EXPECT_EQ(got->format(), c.format);
  }
}

// Upstream TestQuantityParse "invalid" list, plus the error texts of
// ErrFormatWrong / ErrSuffix / ErrNumeric.
TEST(QuantityParseTest, InvalidInputsAndMessages) {
  const std::vector<std::pair<std::string_view, std::string_view>> cases = {
      {"", kErrFormatWrong},
      {"1.1.M", kErrFormatWrong},
      {"1+1.0M", kErrFormatWrong},
      {"0.1mi", kErrSuffix},
      {"0.1am", kErrFormatWrong},
      {"aoeu", kErrFormatWrong},
      {".5i", kErrSuffix},
      {"1i", kErrSuffix},
      {"-3.01i", kErrSuffix},
      {"-3.01e-", kErrSuffix},
      // trailing whitespace is forbidden
      {" 1", kErrFormatWrong},
      {"1 ", kErrFormatWrong},
      // Not in upstream's table; results of its algorithm.
      {"Non-Numeric", kErrFormatWrong},
      {"1K", kErrSuffix},  // suffixes are case sensitive
      {"1e", kErrSuffix},
      {"1ee5", kErrSuffix},
      {"1e3e4", kErrFormatWrong},
      {"1e99999999999999999999", kErrSuffix},  // int64 overflow
      {"e-10", kErrNumeric},  // no digits, below nano: inf.Dec path
      {"Pi", kErrNumeric},    // no digits, Pi/Ei always take inf.Dec path
      {"-Ei", kErrNumeric},
      {"1.5\xC2\xA0", kErrFormatWrong},
  };
  for (const auto& [input, message] : cases) {
    SCOPED_TRACE(input);
    absl::StatusOr<Quantity> got = Quantity::Parse(input);
    ASSERT_FALSE(got.ok()) << *got;
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(ToStd(got.status().message()), message);
  }
}

// Upstream's scanner accepts a few degenerate spellings of zero and one.
TEST(QuantityParseTest, DegenerateInputsParseLikeUpstream) {
  const std::vector<std::pair<std::string_view, int64_t>> cases = {
      {".", 0},  {"-.", 0}, {"-", 0},  {"+", 0},  {"k", 0},  {"Ki", 0},
      {"e5", 0}, {"00", 0}, {"-0", 0}, {"1.", 1}, {"01", 1}, {"1e-0", 1},
  };
  for (const auto& [input, value] : cases) {
    SCOPED_TRACE(input);
    Quantity q = MustParse(input);
    EXPECT_EQ(q.AsInt64(), value);
  }
  EXPECT_EQ(MustParse("Ki").format(), Format::kBinarySI);
  EXPECT_EQ(MustParse("-0").Sign(), 0);
}

TEST(QuantityParseTest, ExponentIsTruncatedToInt32LikeUpstream) {
  // int32(4294967296) == 0 and int32(4294967299) == 3.
  EXPECT_EQ(MustParse("1e4294967296"), MustParse("1"));
  EXPECT_EQ(MustParse("1e4294967299"), MustParse("1k"));
}

TEST(QuantityParseTest, ParseTrimmedMatchesUpstreamUnmarshalJSON) {
  // Upstream TestJSONWhitespace, after the JSON quotes are removed.
  const std::vector<std::pair<std::string_view, std::string_view>> cases = {
      {" 1", "1"},
      {"1 ", "1"},
      {"1", "1"},
      {" 1", "1"},
      {"1 ", "1"},
      {"10", "10"},
      {"-1", "-1"},
      {" -1", "-1"},
      {"\t\n1M\r ", "1M"},  // upstream TestQuantityUnmarshalCBOR whitespace
      {"\xC2\xA0"
       "2Ki\xE3\x80\x80",
       "2Ki"},  // Unicode White_Space
  };
  for (const auto& [input, want] : cases) {
    SCOPED_TRACE(input);
    absl::StatusOr<Quantity> q = Quantity::ParseTrimmed(input);
    ASSERT_TRUE(q.ok()) << q.status();
    EXPECT_EQ(q->ToString(), want);
  }
  EXPECT_EQ(ToStd(Quantity::ParseTrimmed(" \t").status().message()),
            kErrFormatWrong);
}

// --- String forms ------------------------------------------------------------

struct StringCase {
  Quantity in;
  std::string_view expect;
  std::string_view alternate;
};

// Upstream TestQuantityString.
TEST(QuantityStringTest, UpstreamTable) {
  const Format kDSI = Format::kDecimalSI;
  const Format kBSI = Format::kBinarySI;
  const Format kDE = Format::kDecimalExponent;
  const std::vector<StringCase> cases = {
      {Dec(1024 * 1024 * 1024, 0, kBSI), "1Gi", "1024Mi"},
      {Dec(300 * 1024 * 1024, 0, kBSI), "300Mi", "307200Ki"},
      {Dec(6 * 1024, 0, kBSI), "6Ki", ""},
      {Dec(int64_t{1001} * 1024 * 1024 * 1024, 0, kBSI), "1001Gi", "1025024Mi"},
      {Dec(int64_t{1024} * 1024 * 1024 * 1024, 0, kBSI), "1Ti", "1024Gi"},
      {Dec(5, 0, kBSI), "5", "5000m"},
      {Dec(500, -3, kBSI), "500m", "0.5"},
      {Dec(1, 9, kDSI), "1G", "1000M"},
      {Dec(1000, 6, kDSI), "1G", "0.001T"},
      {Dec(1000000, 3, kDSI), "1G", ""},
      {Dec(1000000000, 0, kDSI), "1G", ""},
      {Dec(1, -3, kDSI), "1m", "1000u"},
      {Dec(80, -3, kDSI), "80m", ""},
      {Dec(1080, -3, kDSI), "1080m", "1.08"},
      {Dec(108, -2, kDSI), "1080m", "1080000000n"},
      {Dec(10800, -4, kDSI), "1080m", ""},
      {Dec(300, 6, kDSI), "300M", ""},
      {Dec(1, 12, kDSI), "1T", ""},
      // DecimalSI past "E" falls back to exponent notation (#140459).
      {Dec(1, 18, kDSI), "1E", ""},
      {Dec(1, 21, kDSI), "1e21", "1000E"},
      {Dec(5, 21, kDSI), "5e21", "5000E"},
      {Dec(1, 24, kDSI), "1e24", "1000000E"},
      {Dec(1234567, 6, kDSI), "1234567M", ""},
      {Dec(1234567, -3, kBSI), "1234567m", ""},
      {Dec(3, 3, kDSI), "3k", ""},
      {Dec(1025, 0, kBSI), "1025", ""},
      {Dec(0, 0, kDSI), "0", ""},
      {Dec(0, 0, kBSI), "0", ""},
      {Dec(1, 9, kDE), "1e9", ".001e12"},
      {Dec(1, -3, kDE), "1e-3", "0.001e0"},
      {Dec(1, -9, kDE), "1e-9", "1000e-12"},
      {Dec(80, -3, kDE), "80e-3", ""},
      {Dec(300, 6, kDE), "300e6", ""},
      {Dec(1, 12, kDE), "1e12", ""},
      {Dec(1, 3, kDE), "1e3", ""},
      {Dec(3, 3, kDE), "3e3", ""},
      {Dec(3, 3, kDSI), "3k", ""},
      {Dec(0, 0, kDE), "0", "00"},
      {Dec(1, -9, kDSI), "1n", ""},
      {Dec(80, -9, kDSI), "80n", ""},
      {Dec(1080, -9, kDSI), "1080n", ""},
      {Dec(108, -8, kDSI), "1080n", ""},
      {Dec(10800, -10, kDSI), "1080n", ""},
      {Dec(1, -6, kDSI), "1u", ""},
      {Dec(80, -6, kDSI), "80u", ""},
      {Dec(1080, -6, kDSI), "1080u", ""},
  };
  for (const StringCase& c : cases) {
    SCOPED_TRACE(c.expect);
    EXPECT_EQ(c.in.ToString(), c.expect);
    EXPECT_EQ(c.in.CanonicalString(), c.expect);
    // The canonical form parses back to itself.
    Quantity reparsed = MustParse(c.expect);
    EXPECT_EQ(reparsed.ToString(), c.expect);
    EXPECT_EQ(reparsed, c.in);
    if (!c.alternate.empty()) {
      SCOPED_TRACE(c.alternate);
      Quantity alt = MustParse(c.alternate);
      EXPECT_EQ(alt.ToString(), c.expect);
      EXPECT_EQ(alt, c.in);
    }
    if (!c.in.IsZero()) {
      // Never "-0"; otherwise the negation prints with a leading "-".
      EXPECT_EQ(Negated(c.in).ToString(), StrCat("-", c.expect));
    }
  }
}

// Upstream TestQuantityParseEmit.
TEST(QuantityStringTest, ParseEmit) {
  const std::vector<std::pair<std::string_view, std::string_view>> cases = {
      {"1Ki", "1Ki"},
      {"1Mi", "1Mi"},
      {"1Gi", "1Gi"},
      {"1024Mi", "1Gi"},
      {"1000M", "1G"},
      {".001Ki", "1024m"},
      {".000001Ki", "1024u"},
      {".000000001Ki", "1024n"},
      {".000000000001Ki", "2n"},
  };
  for (const auto& [in, want] : cases) {
    SCOPED_TRACE(in);
    EXPECT_EQ(MustParse(in).ToString(), want);
    EXPECT_EQ(MustParse(StrCat("-", in)).ToString(), StrCat("-", want));
  }
}

// Examples from the brief and quantity.go's doc comment.
TEST(QuantityStringTest, CommonExamples) {
  const std::vector<std::pair<std::string_view, std::string_view>> cases = {
      {"1.5Gi", "1536Mi"},
      {"1000m", "1"},
      {"0.5", "500m"},
      {"1.5", "1500m"},
      {"1.5e3", "1500"},
      {"100Mi", "100Mi"},
      {"1024Ki", "1Mi"},
      {"0", "0"},
      {"-1.5Gi", "-1536Mi"},
      {"1e6", "1e6"},
      {"12e-3", "12e-3"},
      {"0.5Ki", "512"},
      {"1.1Ki", "1126400m"},
      {"1e100", "10e99"},
      {"2048Ei", "9223372036854775807"},
      {"18446744073709551616", "18446744073709551616"},
      {"1.2345", "1234500u"},
  };
  for (const auto& [in, want] : cases) {
    SCOPED_TRACE(in);
    EXPECT_EQ(MustParse(in).ToString(), want);
  }
}

// Upstream quantity_golden_test.go: String() and the canonical form with the
// cached string dropped.
TEST(QuantityStringTest, UpstreamGolden) {
  struct Case {
    std::string_view name;
    Quantity q;
    std::string_view want_string;
    std::string_view want_canonical;
  };
  const std::vector<Case> cases = {
      {"zero-value", Quantity(), "0", "0"},
      {"one", MustParse("1"), "1", "1"},
      {"negative-one", MustParse("-1"), "-1", "-1"},
      {"binary-1Ki", MustParse("1Ki"), "1Ki", "1Ki"},
      {"binary-1024Mi", MustParse("1024Mi"), "1Gi", "1Gi"},
      {"decimal-1000M", MustParse("1000M"), "1G", "1G"},
      {"decimal-exponent", MustParse("1e3"), "1e3", "1e3"},
      {"milli-from-fraction", MustParse("0.1"), "100m", "100m"},
      {"milli-constructed", Quantity::FromMilli(1441), "1441m", "1441m"},
      {"nano-from-sub-milli", MustParse("0.000000000000001"), "1n", "1n"},
      // #138165: 3n fractional digits keep their input form.
      {"three-fractional-digits", MustParse("1.441"), "1.441", "1441m"},
      {"six-fractional-digits", MustParse("1.000001"), "1.000001", "1000001u"},
      {"nine-fractional-digits", MustParse("1.000000001"), "1.000000001",
       "1000000001n"},
      {"one-fractional-digit", MustParse("1.5"), "1500m", "1500m"},
      {"int64-max-parsed", MustParse("9223372036854775807"),
       "9223372036854775807", "9223372036854775807"},
      {"int64-min-constructed", Quantity::FromInt64(kMostNegative),
       "-9223372036854775808", "-9223372036854775808"},
      {"two-to-63", MustParse("9223372036854775808"), "9223372036854775808",
       "9223372036854775808"},
      {"two-to-64", MustParse("18446744073709551616"), "18446744073709551616",
       "18446744073709551616"},
      {"scaled-max-times-ten", Quantity::FromScaled(kMostPositive, 1),
       "92233720368547758070", "92233720368547758070"},
      {"ten-to-18", MustParse("1E"), "1E", "1E"},
      {"ten-to-20", MustParse("100E"), "100E", "100E"},
      {"ten-to-21", MustParse("1000E"), "1e21", "1e21"},
      {"ten-to-100", MustParse("1e100"), "10e99", "10e99"},
      {"scaled-ten-to-21", Quantity::FromScaled(1, 21), "1e21", "1e21"},
      {"binary-8Ei-caps", MustParse("8Ei"), "9223372036854775807",
       "9223372036854775807"},
      {"binary-negative-20Ei-caps", MustParse("-20Ei"), "-9223372036854775807",
       "-9223372036854775807"},
      {"negative-9_5Gi", MustParse("-9.5Gi"), "-9728Mi", "-9728Mi"},
      {"negative-9_5000000001Gi", MustParse("-9.5000000001Gi"),
       "-10200547328107374183n", "-10200547328107374183n"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.q.ToString(), c.want_string);
    EXPECT_EQ(c.q.CanonicalString(), c.want_canonical);
    // Add(0) drops the cached input text (upstream
    // TestQuantitySerializationSurvivesNoOpArithmetic).
    Quantity after = c.q;
    ASSERT_TRUE(after.Add(Quantity()).ok());
    EXPECT_EQ(after.ToString(), c.want_canonical);
    // Re-parsing the output is byte stable.
    EXPECT_EQ(MustParse(c.want_string).ToString(), c.want_string);
  }
}

// Upstream's fast path keeps any "canonical looking" input verbatim.
TEST(QuantityStringTest, ParseKeepsInputTextLikeUpstream) {
  const std::vector<std::tuple<std::string_view, std::string_view>> cases = {
      {"1.050", "1050m"}, {"+1", "1"},          {"01", "1"},
      {"1E3", "1e3"},     {"1e+3", "1e3"},      {"100.035k", "100035"},
      {"1.", "1"},        {"1.G", "1G"},        {"+1Ki", "1Ki"},
      {"01Ki", "1Ki"},    {"-1.441", "-1441m"},
  };
  for (const auto& [in, canonical] : cases) {
    SCOPED_TRACE(in);
    Quantity q = MustParse(in);
    EXPECT_EQ(q.ToString(), in);
    EXPECT_EQ(q.CanonicalString(), canonical);
    Quantity neg = q;
    neg.Neg();
    neg.Neg();
    EXPECT_EQ(neg.ToString(), canonical);
  }
  // Not kept: trailing "000", a leading zero digit, a scale that is not a
  // multiple of three, a BinarySI value divisible by 8, the inf.Dec path.
  for (std::string_view in : {"1000", "0.5", "1.5", "1024Ki", "8Ki", "1.0Ki",
                              "1234567890123456789"}) {
    SCOPED_TRACE(in);
    Quantity q = MustParse(in);
    EXPECT_EQ(q.ToString(), q.CanonicalString());
  }
  EXPECT_EQ(MustParse("1000").ToString(), "1k");
  EXPECT_EQ(MustParse("8Ki").ToString(), "8Ki");
}

// Upstream TestParseQuantity (int64 boundaries). AsInt64 here answers by
// value; upstream answers false for the rows it marks "should be".
TEST(QuantityStringTest, UpstreamInt64Boundaries) {
  struct Case {
    std::string_view input;
    std::string_view value;      // plain decimal, exact
    std::string_view canonical;  // "" means the input itself
  };
  const std::vector<Case> cases = {
      {"-999999999999999999", "-999999999999999999", ""},
      {"999999999999999999", "999999999999999999", ""},
      {"-999999999999999999.0", "-999999999999999999", "-999999999999999999"},
      {"999999999999999999.0", "999999999999999999", "999999999999999999"},
      {"-999999999999999999.1", "-999999999999999999.1",
       "-999999999999999999100m"},
      {"999999999999999999.1", "999999999999999999.1",
       "999999999999999999100m"},
      {"-9999999999999999999", "-9999999999999999999", ""},
      {"9999999999999999999", "9999999999999999999", ""},
      {"-1E", "-1000000000000000000", ""},
      {"1E", "1000000000000000000", ""},
      {"-1000000000000000000", "-1000000000000000000", "-1E"},
      {"1000000000000000000", "1000000000000000000", "1E"},
      {"-9999999999999999999.0", "-9999999999999999999",
       "-9999999999999999999"},
      {"9999999999999999999.0", "9999999999999999999", "9999999999999999999"},
      {"-1.0E", "-1000000000000000000", "-1E"},
      {"1.0E", "1000000000000000000", "1E"},
      {"-1000000000000000000.0", "-1000000000000000000", "-1E"},
      {"1000000000000000000.0", "1000000000000000000", "1E"},
      {"-9999999999999999999000m", "-9999999999999999999",
       "-9999999999999999999"},
      {"9999999999999999999000m", "9999999999999999999", "9999999999999999999"},
      {"-9999999999999999999.1", "-9999999999999999999.1",
       "-9999999999999999999100m"},
      {"9999999999999999999.1", "9999999999999999999.1",
       "9999999999999999999100m"},
      {"-1.0000000000000000001E", "-1000000000000000000.1",
       "-1000000000000000000100m"},
      {"1.0000000000000000001E", "1000000000000000000.1",
       "1000000000000000000100m"},
      {"-1000000000000000000.1", "-1000000000000000000.1",
       "-1000000000000000000100m"},
      {"1000000000000000000.1", "1000000000000000000.1",
       "1000000000000000000100m"},
      {"-1.000000000000000001E", "-1000000000000000001",
       "-1000000000000000001"},
      {"1.000000000000000001E", "1000000000000000001", "1000000000000000001"},
      {"-1000000000000000001", "-1000000000000000001", ""},
      {"1000000000000000001", "1000000000000000001", ""},
      {"-10E", "-10000000000000000000", ""},
      {"10E", "10000000000000000000", ""},
      {"-10000000000000000000", "-10000000000000000000", "-10E"},
      {"10000000000000000000", "10000000000000000000", "10E"},
      {"-10.0E", "-10000000000000000000", "-10E"},
      {"10.0E", "10000000000000000000", "10E"},
      {"-10000000000000000000.0", "-10000000000000000000", "-10E"},
      {"10000000000000000000.0", "10000000000000000000", "10E"},
      {"-10000000000000000000000m", "-10000000000000000000", "-10E"},
      {"10000000000000000000000m", "10000000000000000000", "10E"},
      {"-10.0000000000000000001E", "-10000000000000000000.1",
       "-10000000000000000000100m"},
      {"10.0000000000000000001E", "10000000000000000000.1",
       "10000000000000000000100m"},
      {"-10000000000000000000.1", "-10000000000000000000.1",
       "-10000000000000000000100m"},
      {"10000000000000000000.1", "10000000000000000000.1",
       "10000000000000000000100m"},
      {"-10.000000000000000001E", "-10000000000000000001",
       "-10000000000000000001"},
      {"10.000000000000000001E", "10000000000000000001",
       "10000000000000000001"},
      {"-10000000000000000001", "-10000000000000000001", ""},
      {"10000000000000000001", "10000000000000000001", ""},
      {"-9223372036854775809", "-9223372036854775809", ""},
      {"9223372036854775806", "9223372036854775806", ""},
      {"-9223372036854775809.0", "-9223372036854775809",
       "-9223372036854775809"},
      {"9223372036854775806.0", "9223372036854775806", "9223372036854775806"},
      {"-9223372036854775809000m", "-9223372036854775809",
       "-9223372036854775809"},
      {"9223372036854775806000m", "9223372036854775806", "9223372036854775806"},
      {"-9223372036854775809.1", "-9223372036854775809.1",
       "-9223372036854775809100m"},
      {"9223372036854775806.1", "9223372036854775806.1",
       "9223372036854775806100m"},
      {"-9223372036854775808", "-9223372036854775808", ""},
      {"9223372036854775807", "9223372036854775807", ""},
      {"-9223372036854775808.0", "-9223372036854775808",
       "-9223372036854775808"},
      {"9223372036854775807.0", "9223372036854775807", "9223372036854775807"},
      {"-9223372036854775808000m", "-9223372036854775808",
       "-9223372036854775808"},
      {"9223372036854775807000m", "9223372036854775807", "9223372036854775807"},
      {"-9223372036854775808.1", "-9223372036854775808.1",
       "-9223372036854775808100m"},
      {"9223372036854775807.1", "9223372036854775807.1",
       "9223372036854775807100m"},
      {"-9223372036854775807", "-9223372036854775807", ""},
      {"9223372036854775808", "9223372036854775808", ""},
      {"-9223372036854775807.0", "-9223372036854775807",
       "-9223372036854775807"},
      {"9223372036854775808.0", "9223372036854775808", "9223372036854775808"},
      {"-9223372036854775807000m", "-9223372036854775807",
       "-9223372036854775807"},
      {"9223372036854775808000m", "9223372036854775808", "9223372036854775808"},
      {"-9223372036854775807.1", "-9223372036854775807.1",
       "-9223372036854775807100m"},
      {"9223372036854775808.1", "9223372036854775808.1",
       "9223372036854775808100m"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.input);
    Quantity q = MustParse(c.input);
    Quantity value = MustParse(c.value);
    EXPECT_EQ(q, value);
    EXPECT_EQ(q.ToString(), c.canonical.empty() ? c.input : c.canonical);
    // AsInt64 by value: present iff a whole number in int64 range.
    const bool whole = c.value.find('.') == std::string_view::npos;
    const bool fits = q >= Quantity::FromInt64(kMostNegative) &&
                      q <= Quantity::FromInt64(kMostPositive);
    EXPECT_EQ(q.AsInt64().has_value(), whole && fits);
  }
  EXPECT_EQ(MustParse("-9223372036854775808").AsInt64(), kMostNegative);
  EXPECT_EQ(MustParse("9223372036854775807").AsInt64(), kMostPositive);
  EXPECT_EQ(MustParse("1000m").AsInt64(), 1);
  EXPECT_EQ(MustParse("1E").AsInt64(), 1000000000000000000);
  EXPECT_EQ(MustParse("1500m").AsInt64(), std::nullopt);
}

// --- Comparison
// ----------------------------------------------------------------

// Upstream TestQuantityCmp.
TEST(QuantityCompareTest, UpstreamCmp) {
  const std::vector<std::tuple<std::string_view, std::string_view, int>> cases =
      {
          {"0", "0", 0},
          {"100m", "50m", 1},
          {"50m", "100m", -1},
          {"10000T", "100Gi", 1},
          // Not upstream: equal values in different spellings and formats.
          {"1Ki", "1024", 0},
          {"1Ki", "1.024k", 0},
          {"1e3", "1k", 0},
          {"0.5", "500m", 0},
          {"-1", "1", -1},
          {"-2", "-1", -1},
          {"1e100", "1e99", 1},
          {"1e2147483647", "9Ei", 1},
          {"1n", "0", 1},
          {"-1n", "0", -1},
      };
  for (const auto& [x, y, want] : cases) {
    SCOPED_TRACE(StrCat(x, " vs ", y));
    EXPECT_EQ(MustParse(x).Compare(MustParse(y)), want);
    EXPECT_EQ(MustParse(y).Compare(MustParse(x)), -want);
  }
}

// Upstream TestQuantityCmpInt64AndDec.
TEST(QuantityCompareTest, UpstreamCmpInt64AndDec) {
  const int64_t e18 = 1000000000000000000;
  const Format kDSI = Format::kDecimalSI;
  const std::vector<std::tuple<Quantity, Quantity, int>> cases = {
      {Dec(901, -2, kDSI), Dec(901, -2, kDSI), 0},
      {Dec(90, -1, kDSI), Dec(901, -2, kDSI), -1},
      {Dec(901, -2, kDSI), Dec(900, -2, kDSI), 1},
      {Dec(0, 0, kDSI), Dec(0, 0, kDSI), 0},
      {Dec(0, 1, kDSI), Dec(0, -1, kDSI), 0},
      {Dec(0, -1, kDSI), Dec(0, 1, kDSI), 0},
      {Dec(800, -3, kDSI), Dec(1, 0, kDSI), -1},
      {Dec(800, -3, kDSI), Dec(79, -2, kDSI), 1},
      {Dec(kMostPositive, 0, kDSI), Dec(1, -1, kDSI), 1},
      {Dec(kMostPositive, 1, kDSI), Dec(1, 0, kDSI), 1},
      {Dec(kMostPositive, 1, kDSI), Dec(1, 1, kDSI), 1},
      {Dec(kMostPositive, 1, kDSI), Dec(0, 1, kDSI), 1},
      {Dec(kMostPositive, -16, kDSI), Dec(1, 3, kDSI), -1},
      {Dec(kMostNegative, 0, kDSI), Dec(0, 0, kDSI), -1},
      {Dec(kMostNegative, -18, kDSI), Dec(-1, 0, kDSI), -1},
      {Dec(kMostNegative, -19, kDSI), Dec(-1, 0, kDSI), 1},
      {Dec(e18, -17, kDSI), Dec(1, 1, kDSI), 0},
      {Dec(e18, -17, kDSI), Dec(-10, 0, kDSI), 1},
      {Dec(-e18, -17, kDSI), Dec(-10, 0, kDSI), 0},
      {Dec(e18, -17, kDSI), Dec(1, 0, kDSI), 1},
      {Dec(e18 + 1, -17, kDSI), Dec(1, 1, kDSI), 1},
      {Dec(e18 - 1, -17, kDSI), Dec(1, 1, kDSI), -1},
  };
  for (const auto& [a, b, want] : cases) {
    SCOPED_TRACE(StrCat(a.ToString(), " vs ", b.ToString()));
    EXPECT_EQ(a.Compare(b), want);
    EXPECT_EQ(b.Compare(a), -want);
  }
}

TEST(QuantityCompareTest, OperatorsAreNumeric) {
  const Quantity one_ki = MustParse("1Ki");
  const Quantity k1024 = MustParse("1024");
  EXPECT_TRUE(one_ki == k1024);
  EXPECT_FALSE(one_ki != k1024);
  EXPECT_NE(one_ki.ToString(), k1024.ToString());
  EXPECT_TRUE(MustParse("999m") < MustParse("1"));
  EXPECT_TRUE(MustParse("1") <= MustParse("1000m"));
  EXPECT_TRUE(MustParse("2") > MustParse("1999m"));
  EXPECT_TRUE(MustParse("-1Mi") < MustParse("-1Ki"));
  EXPECT_EQ(MustParse("1Ki").CompareInt64(1024), 0);
  EXPECT_EQ(MustParse("1023").CompareInt64(1024), -1);
  EXPECT_EQ(MustParse("-1n").CompareInt64(0), -1);
}

// A fake absl hash state: records what AbslHashValue combines.
struct RecordingHashState {
  std::string record;
  template <typename... Ts>
  static RecordingHashState combine(RecordingHashState s, const Ts&... vs) {
    ((s.record += StrCat(vs, "|")), ...);
    return s;
  }
};

TEST(QuantityCompareTest, HashFollowsEquality) {
  auto hash = [](const Quantity& q) {
    return AbslHashValue(RecordingHashState{}, q).record;
  };
  EXPECT_EQ(hash(MustParse("1Ki")), hash(MustParse("1024")));
  EXPECT_EQ(hash(MustParse("1.5")), hash(MustParse("1500m")));
  EXPECT_NE(hash(MustParse("1")), hash(MustParse("-1")));
  EXPECT_NE(hash(MustParse("1")), hash(MustParse("10")));
}

// --- Arithmetic
// ----------------------------------------------------------------

// Upstream TestAdd.
TEST(QuantityArithmeticTest, UpstreamAdd) {
  const Format kDSI = Format::kDecimalSI;
  const Format kBSI = Format::kBinarySI;
  const std::vector<std::tuple<Quantity, Quantity, Quantity, Format>> cases = {
      {Dec(10, 0, kDSI), Dec(1, 1, kDSI), Dec(20, 0, kDSI), kDSI},
      {Dec(10, 0, kDSI), Dec(1, 0, kBSI), Dec(11, 0, kDSI), kDSI},
      {Dec(10, 0, kBSI), Dec(1, 0, kDSI), Dec(11, 0, kBSI), kBSI},
      {Quantity(), Dec(50, 0, kDSI), Dec(50, 0, kDSI), kDSI},
      {Dec(50, 0, kDSI), Quantity(), Dec(50, 0, kDSI), kDSI},
      {Quantity(), Quantity(), Dec(0, 0, kDSI), kDSI},
      {Dec(0, 0, kDSI), Dec(3, 0, kBSI), Dec(3, 0, kDSI), kBSI},
  };
  for (auto [a, b, want, format] : cases) {
    SCOPED_TRACE(StrCat(a.ToString(), " + ", b.ToString()));
    ASSERT_TRUE(a.Add(b).ok());
    EXPECT_EQ(a, want);
    EXPECT_EQ(a.format(), format);
  }
}

// Upstream TestSub.
TEST(QuantityArithmeticTest, UpstreamSub) {
  const Format kDSI = Format::kDecimalSI;
  const Format kBSI = Format::kBinarySI;
  const std::vector<std::tuple<Quantity, Quantity, Quantity, Format>> cases = {
      {Dec(10, 0, kDSI), Dec(1, 1, kDSI), Dec(0, 0, kDSI), kDSI},
      {Dec(10, 0, kDSI), Dec(1, 0, kBSI), Dec(9, 0, kDSI), kDSI},
      {Dec(10, 0, kBSI), Dec(1, 0, kDSI), Dec(9, 0, kBSI), kBSI},
      {Quantity(), Dec(50, 0, kDSI), Dec(-50, 0, kDSI), kDSI},
      {Dec(50, 0, kDSI), Quantity(), Dec(50, 0, kDSI), kDSI},
      {Quantity(), Quantity(), Dec(0, 0, kDSI), kDSI},
  };
  for (auto [a, b, want, format] : cases) {
    SCOPED_TRACE(StrCat(a.ToString(), " - ", b.ToString()));
    ASSERT_TRUE(a.Sub(b).ok());
    EXPECT_EQ(a, want);
    EXPECT_EQ(a.format(), format);
  }
}

// Upstream TestQuantityAddZeroPreservesSuffix / SubZeroPreservesSuffix.
TEST(QuantityArithmeticTest, ZeroPreservesSuffix) {
  for (std::string_view s : {"100m", "1Gi"}) {
    SCOPED_TRACE(s);
    const Quantity value = MustParse(s);
    const Quantity zero = MustParse("0");
    Quantity v1 = value;
    ASSERT_TRUE(v1.Add(zero).ok());
    EXPECT_EQ(v1.ToString(), s);
    Quantity v2 = zero;
    ASSERT_TRUE(v2.Add(value).ok());
    EXPECT_EQ(v2.ToString(), s);
    Quantity v3 = value;
    ASSERT_TRUE(v3.Sub(zero).ok());
    EXPECT_EQ(v3.ToString(), s);
    Quantity v4 = zero;
    ASSERT_TRUE(v4.Sub(value).ok());
    EXPECT_EQ(v4.ToString(), Negated(value).ToString());
    EXPECT_EQ(v4.ToString(), StrCat("-", s));
  }
}

// Upstream TestQuantityNeg / TestNeg.
TEST(QuantityArithmeticTest, Neg) {
  EXPECT_EQ(Negated(Dec(901, -2, Format::kDecimalSI)).ToString(), "-9010m");
  EXPECT_EQ(Negated(Quantity()).ToString(), "0");
  Quantity ten = Dec(10, 0, Format::kBinarySI);
  EXPECT_EQ(Negated(ten), Dec(-10, 0, Format::kBinarySI));
  EXPECT_EQ(Negated(ten).format(), Format::kBinarySI);
  EXPECT_EQ(Negated(Negated(ten)), ten);
}

// Upstream TestNegAndSubAtMostNegative / TestSubMostNegativeCrossScale /
// TestZeroSubMostNegativeInheritsFormat.
TEST(QuantityArithmeticTest, MostNegative) {
  Quantity neg = Quantity::FromInt64(kMostNegative);
  neg.Neg();
  EXPECT_EQ(neg.AsInt64(), std::nullopt);
  EXPECT_EQ(neg.Sign(), 1);
  EXPECT_EQ(neg.ToString(), "9223372036854775808");

  Quantity sub;
  ASSERT_TRUE(sub.Sub(Quantity::FromInt64(kMostNegative)).ok());
  EXPECT_EQ(sub.ToString(), "9223372036854775808");
  EXPECT_EQ(sub, MustParse("9223372036854775808"));

  Quantity one = Quantity::FromInt64(1);
  ASSERT_TRUE(one.Sub(Quantity::FromInt64(kMostNegative)).ok());
  EXPECT_EQ(one.AsInt64(), std::nullopt);
  EXPECT_EQ(one.ToString(), "9223372036854775809");

  Quantity neighbor = Quantity::FromInt64(kMostNegative + 1);
  neighbor.Neg();
  EXPECT_EQ(neighbor.AsInt64(), kMostPositive);

  Quantity scaled = Quantity::FromScaled(kMostNegative, -3);
  scaled.Neg();
  EXPECT_EQ(scaled.ToString(), "9223372036854775808m");

  Quantity scaled_sub = Quantity::FromScaled(1, -3);
  ASSERT_TRUE(scaled_sub.Sub(Quantity::FromScaled(kMostNegative, -3)).ok());
  EXPECT_EQ(scaled_sub.ToString(), "9223372036854775809m");

  Quantity ten = Quantity::FromScaled(1, 1);
  ASSERT_TRUE(ten.Sub(Quantity::FromInt64(kMostNegative)).ok());
  EXPECT_EQ(ten.ToString(), "9223372036854775818");

  Quantity binary;
  ASSERT_TRUE(
      binary.Sub(Quantity::FromInt64(kMostNegative, Format::kBinarySI)).ok());
  EXPECT_EQ(binary.format(), Format::kBinarySI);
  EXPECT_EQ(binary.ToString(), "8Ei");
  EXPECT_EQ(binary, MustParse("9223372036854775808"));
}

// Upstream TestAddSubRoundTrip / TestAddSubRoundTripAcrossScales, with a
// fixed pseudo-random sequence.
TEST(QuantityArithmeticTest, AddSubRoundTrip) {
  uint64_t state = 0x9E3779B97F4A7C15u;
  auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<int64_t>(state >> 1);
  };
  for (int k = -10; k <= 10; ++k) {
    Quantity q;
    std::vector<int64_t> order;
    for (int i = 0; i < 100; ++i) {
      order.push_back(next());
      ASSERT_TRUE(q.Add(Quantity::FromScaled(order.back(), k)).ok());
    }
    for (int64_t j : order) ASSERT_TRUE(q.Sub(Quantity::FromScaled(j, k)).ok());
    EXPECT_TRUE(q.IsZero()) << q;
  }
  Quantity q;
  std::vector<int64_t> order;
  for (int i = 0; i < 100; ++i) {
    order.push_back(next());
    const int32_t scale = static_cast<int32_t>(order.back() % 20 - 10);
    ASSERT_TRUE(q.Add(Quantity::FromScaled(order.back(), scale)).ok());
  }
  for (int64_t j : order) {
    const int32_t scale = static_cast<int32_t>(j % 20 - 10);
    ASSERT_TRUE(q.Sub(Quantity::FromScaled(j, scale)).ok());
  }
  EXPECT_TRUE(q.IsZero()) << q;
}

TEST(QuantityArithmeticTest, ExactAcrossMagnitudes) {
  Quantity q = MustParse("1E");
  ASSERT_TRUE(q.Add(MustParse("1n")).ok());
  EXPECT_EQ(q.ToString(), "1000000000000000000000000001n");
  ASSERT_TRUE(q.Sub(MustParse("1E")).ok());
  EXPECT_EQ(q.ToString(), "1n");
  Quantity big = MustParse("1e100");
  ASSERT_TRUE(big.Add(MustParse("1")).ok());
  EXPECT_EQ(big.ToString(), StrCat("1", std::string(99, '0'), "1"));
  Quantity mixed = MustParse("1.5Gi");
  ASSERT_TRUE(mixed.Sub(MustParse("512Mi")).ok());
  EXPECT_EQ(mixed.ToString(), "1Gi");
  ASSERT_TRUE(mixed.Sub(MustParse("2Gi")).ok());
  EXPECT_EQ(mixed.ToString(), "-1Gi");
}

TEST(QuantityArithmeticTest, RefusesHugeAlignment) {
  Quantity q = MustParse("1e5000");
  const Quantity before = q;
  absl::Status s = q.Add(MustParse("1"));
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(StatusMessage(s).find("100e4998 + 1"), std::string::npos) << s;
  EXPECT_EQ(q, before);
  EXPECT_EQ(q.ToString(), "100e4998");  // unchanged
  EXPECT_EQ(q.Sub(MustParse("1")).code(), absl::StatusCode::kOutOfRange);
  // Same magnitude, or a zero operand: fine.
  EXPECT_TRUE(q.Add(MustParse("2e5000")).ok());
  EXPECT_EQ(q.ToString(), "300e4998");
  EXPECT_TRUE(q.Add(Quantity()).ok());
  Quantity zero;
  EXPECT_TRUE(zero.Add(MustParse("1e2147483647")).ok());
  EXPECT_EQ(zero.ToString(), "10e2147483646");
}

// --- Conversions
// -----------------------------------------------------------------

// Upstream TestScaledValue.
TEST(QuantityValueTest, UpstreamScaledValue) {
  const std::vector<std::tuple<int32_t, int32_t, int64_t>> cases = {
      {-9, -9, 1},
      {-9, -6, 1},
      {-9, -3, 1},
      {-9, 0, 1},
      {-6, -9, 1000},
      {-6, -6, 1},
      {-6, -3, 1},
      {-6, 0, 1},
      {-3, -9, 1000 * 1000},
      {-3, -6, 1000},
      {-3, -3, 1},
      {-3, 0, 1},
      {0, -9, 1000 * 1000 * 1000},
      {0, -6, 1000 * 1000},
      {0, -3, 1000},
      {0, 0, 1},
      {2, -2, 100 * 100},
  };
  for (const auto& [from, to, want] : cases) {
    SCOPED_TRACE(StrCat(from, " -> ", to));
    EXPECT_EQ(Quantity::FromScaled(1, from).ScaledValue(to), want);
  }
}

// Upstream TestNewScaledSet.
TEST(QuantityValueTest, UpstreamNewScaledSet) {
  const std::vector<std::tuple<int64_t, int32_t, std::string_view>> cases = {
      {1, -9, "1n"}, {1000, -9, "1u"}, {1, -6, "1u"}, {1000, -6, "1m"},
      {1, -3, "1m"}, {1000, -3, "1"},  {1, 0, "1"},   {0, -9, "0"},
      {0, -6, "0"},  {0, -3, "0"},     {0, 0, "0"},
  };
  for (const auto& [value, scale, want] : cases) {
    SCOPED_TRACE(want);
    const Quantity q = Quantity::FromScaled(value, scale);
    EXPECT_EQ(q.ToString(), want);
    EXPECT_EQ(MustParse(q.ToString()).ScaledValue(scale), value);
  }
}

// Upstream TestMilliNewSet.
TEST(QuantityValueTest, UpstreamMilliNewSet) {
  const std::vector<std::tuple<int64_t, Format, std::string_view, bool>> cases =
      {
          {1, Format::kDecimalSI, "1m", true},
          {1000, Format::kDecimalSI, "1", true},
          {1234000, Format::kDecimalSI, "1234", true},
          {1024, Format::kBinarySI, "1024m", false},  // Format changes
          {1000000, Format::kDecimalExponent, "1e3", true},
          {1024 * 1024, Format::kBinarySI, "1048576m", false},
      };
  for (const auto& [value, format, want, exact] : cases) {
    SCOPED_TRACE(want);
    const Quantity q = Quantity::FromMilli(value, format);
    EXPECT_EQ(q.ToString(), want);
    if (exact) {
      EXPECT_EQ(MustParse(q.ToString()).MilliValue(), value);
    }
  }
}

// Upstream TestNewSet.
TEST(QuantityValueTest, UpstreamNewSet) {
  const std::vector<std::tuple<int64_t, Format, std::string_view>> cases = {
      {1, Format::kDecimalSI, "1"},
      {1000, Format::kDecimalSI, "1k"},
      {1234000, Format::kDecimalSI, "1234k"},
      {1024, Format::kBinarySI, "1Ki"},
      {1000000, Format::kDecimalExponent, "1e6"},
      {1024 * 1024, Format::kBinarySI, "1Mi"},
  };
  for (const auto& [value, format, want] : cases) {
    SCOPED_TRACE(want);
    const Quantity q = Quantity::FromInt64(value, format);
    EXPECT_EQ(q.ToString(), want);
    EXPECT_EQ(MustParse(q.ToString()).Value(), value);
  }
}

TEST(QuantityValueTest, RoundsAwayFromZeroAndSaturates) {
  const std::vector<std::tuple<std::string_view, int64_t, int64_t>> cases = {
      // input, Value(), MilliValue()
      {"0", 0, 0},
      {"1", 1, 1000},
      {"1.1", 2, 1100},
      {"-1.1", -2, -1100},
      {"1.0001", 2, 1001},
      {"-1.0001", -2, -1001},
      {"1n", 1, 1},
      {"-1n", -1, -1},
      {"-1.5", -2, -1500},
      {"100m", 1, 100},
      {"1Ki", 1024, 1024000},
      {"1.5Gi", 1610612736, 1610612736000},
      // Upstream #138510: small negative values round to -1, not +1.
      {"-.484785E-7466", -1, -1},
      // Saturation.
      {"9223372036854775807", kMostPositive, kMostPositive},
      {"9223372036854775808", kMostPositive, kMostPositive},
      {"-9223372036854775808", kMostNegative, kMostNegative},
      {"-9223372036854775809", kMostNegative, kMostNegative},
      {"9223372036854775.807", 9223372036854776, kMostPositive},
      {"-9223372036854775.808", -9223372036854776, kMostNegative},
      {"-9223372036854775.809", -9223372036854776, kMostNegative},
      {"1e100", kMostPositive, kMostPositive},
      {"-1e100", kMostNegative, kMostNegative},
      {"8Ei", kMostPositive, kMostPositive},
  };
  for (const auto& [input, value, milli] : cases) {
    SCOPED_TRACE(input);
    const Quantity q = MustParse(input);
    EXPECT_EQ(q.Value(), value);
    EXPECT_EQ(q.MilliValue(), milli);
  }
  EXPECT_EQ(MustParse("9223372036854775.807").MilliValue(), kMostPositive);
  EXPECT_EQ(MustParse("-9223372036854775.808").MilliValue(), kMostNegative);
  // Upstream AsScaledInt64 doc: (1e-6).ScaledValue(0) is 1.
  EXPECT_EQ(Quantity::FromScaled(1, -6).ScaledValue(0), 1);
  EXPECT_EQ(Quantity::FromScaled(1, 20).ScaledValue(1), kMostPositive);
  EXPECT_EQ(Quantity::FromScaled(1, 20).ScaledValue(2), 1000000000000000000);
}

TEST(QuantityValueTest, IsIntegerAndAsInt64) {
  EXPECT_TRUE(MustParse("0").IsInteger());
  EXPECT_TRUE(MustParse("1k").IsInteger());
  EXPECT_TRUE(MustParse("1000m").IsInteger());
  EXPECT_FALSE(MustParse("1001m").IsInteger());
  EXPECT_TRUE(MustParse("1e100").IsInteger());
  EXPECT_EQ(MustParse("1e100").AsInt64(), std::nullopt);
  EXPECT_EQ(MustParse("-5Ki").AsInt64(), -5120);
  EXPECT_EQ(MustParse("1001m").AsInt64(), std::nullopt);
  EXPECT_EQ(MustParse("0").AsInt64(), 0);
}

// Upstream TestQuantityAsFloat64Slow (the exact variant) and
// TestStringQuantityAsApproximateFloat64.
TEST(QuantityValueTest, Float64) {
  const Format kDSI = Format::kDecimalSI;
  const Format kBSI = Format::kBinarySI;
  const Format kDE = Format::kDecimalExponent;
  const double m7 = 7 * 1024 * 1024;
  std::vector<std::pair<Quantity, double>> cases = {
      {Dec(0, 0, kDSI), 0.0},
      {Dec(0, 0, kDE), 0.0},
      {Dec(0, 0, kBSI), 0.0},
      {Dec(1, 0, kDSI), 1},
      {Dec(12, 18, kDSI), 1.2e19},
      {Dec(kMostPositive, 0, kDSI), static_cast<double>(kMostPositive)},
      {Dec(kMostPositive, 0, kBSI), static_cast<double>(kMostPositive)},
      {Dec(12, 500, kDSI), HUGE_VAL},
      {Dec(-12, 500, kDSI), -HUGE_VAL},
      {MustParse("2Ki"), 2048},
      {MustParse("1.1Ki"), 1126.4e+0},
      {MustParse("1Mi"), 1.048576e+06},
      {MustParse("2Gi"), 2.147483648e+09},
      {MustParse("-1.5"), -1.5},
      {MustParse("1n"), 1e-9},
  };
  for (Format f : {kDSI, kBSI, kDE}) {
    cases.push_back({Dec(1024, 0, f), 1024});
    cases.push_back({Dec(8 * 1024, 0, f), 8 * 1024});
    cases.push_back({Dec(7 * 1024 * 1024, 0, f), m7});
    cases.push_back({Dec(7 * 1024 * 1024, 1, f), m7 * 10});
    cases.push_back({Dec(7 * 1024 * 1024, 4, f), m7 * 10000});
    cases.push_back({Dec(7 * 1024 * 1024, 8, f), m7 * 100000000});
    cases.push_back({Dec(7 * 1024 * 1024, -1, f), m7 / 10});
    cases.push_back({Dec(7 * 1024 * 1024, -8, f), m7 / 100000000});
  }
  for (const auto& [q, want] : cases) {
    SCOPED_TRACE(q.ToString());
    EXPECT_EQ(q.AsApproximateFloat64(), want);
  }
}

TEST(QuantityMiscTest, FormatNamesAndStreaming) {
  EXPECT_EQ(Quantity::FormatName(Format::kDecimalSI), "DecimalSI");
  EXPECT_EQ(Quantity::FormatName(Format::kBinarySI), "BinarySI");
  EXPECT_EQ(Quantity::FormatName(Format::kDecimalExponent), "DecimalExponent");
  std::ostringstream os;
  os << MustParse("1.5Gi") << " " << Quantity();
  EXPECT_EQ(os.str(), "1536Mi 0");
  EXPECT_EQ(Quantity().format(), Format::kDecimalSI);
}

}  // namespace
}  // namespace draplane
