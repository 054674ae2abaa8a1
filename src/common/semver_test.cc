// Tests for Semver. Tables are ported from github.com/blang/semver/v4
// semver_test.go, the semver.org 2.0.0 regular expression examples, and the
// examples of k8s.io/apiserver pkg/cel/library/semverlib.go.
#include "common/semver.h"

#include <cstdint>
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

Semver MustParse(std::string_view s) {
  absl::StatusOr<Semver> v = Semver::Parse(s);
  EXPECT_TRUE(v.ok()) << s << ": " << v.status();
  return v.ok() ? *v : Semver();
}

std::string ErrorOf(const absl::StatusOr<Semver>& v) {
  if (v.ok()) return "ok: " + v->ToString();
  EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
  return StatusMessage(v.status());
}

// blang formatTests: String() of parsed versions round-trips, and the
// components are what the text says.
TEST(SemverTest, BlangFormatTests) {
  struct Case {
    std::string_view text;
    uint64_t major, minor, patch;
    std::vector<std::string> pre;  // ToString of each identifier
    std::vector<std::string> build;
  };
  const std::vector<Case> cases = {
      {"1.2.3", 1, 2, 3, {}, {}},
      {"0.0.1", 0, 0, 1, {}, {}},
      {"0.0.1-alpha.preview+123.456",
       0,
       0,
       1,
       {"alpha", "preview"},
       {"123", "456"}},
      {"1.2.3-alpha.1+123.456", 1, 2, 3, {"alpha", "1"}, {"123", "456"}},
      {"1.2.3-alpha.1", 1, 2, 3, {"alpha", "1"}, {}},
      {"1.2.3+123.456", 1, 2, 3, {}, {"123", "456"}},
      {"1.2.3-alpha.b-eta+123.b-uild",
       1,
       2,
       3,
       {"alpha", "b-eta"},
       {"123", "b-uild"}},
      {"1.2.3+123.b-uild", 1, 2, 3, {}, {"123", "b-uild"}},
      {"1.2.3-alpha.b-eta", 1, 2, 3, {"alpha", "b-eta"}, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    const Semver v = MustParse(c.text);
    EXPECT_EQ(v.ToString(), c.text);
    EXPECT_EQ(v.major(), c.major);
    EXPECT_EQ(v.minor(), c.minor);
    EXPECT_EQ(v.patch(), c.patch);
    std::vector<std::string> pre;
    for (const auto& id : v.prerelease()) pre.push_back(id.ToString());
    EXPECT_EQ(pre, c.pre);
    EXPECT_EQ(v.build(), c.build);
    EXPECT_TRUE(Semver::IsValid(c.text));
  }
  const Semver v = MustParse("1.2.3-alpha.1");
  ASSERT_EQ(v.prerelease().size(), 2u);
  EXPECT_FALSE(v.prerelease()[0].is_numeric);
  EXPECT_EQ(v.prerelease()[0].text, "alpha");
  EXPECT_TRUE(v.prerelease()[1].is_numeric);
  EXPECT_EQ(v.prerelease()[1].number, 1u);
}

// blang compareTests (including the semver.org spec examples #9 and #11).
TEST(SemverTest, BlangCompareTests) {
  const std::vector<std::tuple<std::string_view, std::string_view, int>> cases =
      {
          {"1.0.0", "1.0.0", 0},
          {"2.0.0", "1.0.0", 1},
          {"0.1.0", "0.1.0", 0},
          {"0.2.0", "0.1.0", 1},
          {"0.0.1", "0.0.1", 0},
          {"0.0.2", "0.0.1", 1},
          {"1.2.3", "1.2.3", 0},
          {"2.2.4", "1.2.4", 1},
          {"1.3.3", "1.2.3", 1},
          {"1.2.4", "1.2.3", 1},
          // Spec Examples #11
          {"1.0.0", "2.0.0", -1},
          {"2.0.0", "2.1.0", -1},
          {"2.1.0", "2.1.1", -1},
          // Spec Examples #9
          {"1.0.0", "1.0.0-alpha", 1},
          {"1.0.0-alpha", "1.0.0-alpha.1", -1},
          {"1.0.0-alpha.1", "1.0.0-alpha.beta", -1},
          {"1.0.0-alpha.beta", "1.0.0-beta", -1},
          {"1.0.0-beta", "1.0.0-beta.2", -1},
          {"1.0.0-beta.2", "1.0.0-beta.11", -1},
          {"1.0.0-beta.11", "1.0.0-rc.1", -1},
          {"1.0.0-rc.1", "1.0.0", -1},
          // Ignore Build metadata
          {"1.0.0+1.2.3", "1.0.0", 0},
          {"1.0.0-rc.1+a", "1.0.0-rc.1+b", 0},
          // Not in blang's table.
          {"18446744073709551615.0.0", "18446744073709551614.9.9", 1},
          {"1.0.0-B", "1.0.0-a", -1},  // ASCII order
          {"1.0.0-1a", "1.0.0-2", 1},  // alphanumeric > numeric
          {"1.0.0-a.b.c", "1.0.0-a.b", 1},
      };
  for (const auto& [a, b, want] : cases) {
    SCOPED_TRACE(StrCat(a, " vs ", b));
    const Semver va = MustParse(a);
    const Semver vb = MustParse(b);
    EXPECT_EQ(va.Compare(vb), want);
    EXPECT_EQ(vb.Compare(va), -want);
    EXPECT_EQ(va == vb, want == 0);
    EXPECT_EQ(va < vb, want < 0);
    EXPECT_EQ(va > vb, want > 0);
  }
}

// blang wrongformatTests, with blang's error texts.
TEST(SemverTest, BlangWrongFormatTests) {
  const std::vector<std::pair<std::string_view, std::string_view>> cases = {
      {"", "Version string empty"},
      {".", "No Major.Minor.Patch elements found"},
      {"1.", "No Major.Minor.Patch elements found"},
      {".1", "No Major.Minor.Patch elements found"},
      {"a.b.c", R"(Invalid character(s) found in major number "a")"},
      {"1.a.b", R"(Invalid character(s) found in minor number "a")"},
      {"1.1.a", R"(Invalid character(s) found in patch number "a")"},
      {"1.a.1", R"(Invalid character(s) found in minor number "a")"},
      {"a.1.1", R"(Invalid character(s) found in major number "a")"},
      {"..", R"(strconv.ParseUint: parsing "": invalid syntax)"},
      {"1..", R"(strconv.ParseUint: parsing "": invalid syntax)"},
      {"1.1.", R"(strconv.ParseUint: parsing "": invalid syntax)"},
      {"1..1", R"(strconv.ParseUint: parsing "": invalid syntax)"},
      {"1.1.+123", R"(strconv.ParseUint: parsing "": invalid syntax)"},
      {"1.1.-beta", R"(strconv.ParseUint: parsing "": invalid syntax)"},
      {"-1.1.1", R"(Invalid character(s) found in major number "-1")"},
      {"1.-1.1", R"(Invalid character(s) found in minor number "-1")"},
      {"1.1.-1", R"(strconv.ParseUint: parsing "": invalid syntax)"},
      // giant numbers
      {"20000000000000000000.1.1",
       R"(strconv.ParseUint: parsing "20000000000000000000": value out of range)"},
      {"1.20000000000000000000.1",
       R"(strconv.ParseUint: parsing "20000000000000000000": value out of range)"},
      {"1.1.20000000000000000000",
       R"(strconv.ParseUint: parsing "20000000000000000000": value out of range)"},
      {"1.1.1-20000000000000000000",
       R"(strconv.ParseUint: parsing "20000000000000000000": value out of range)"},
      // Leading zeroes
      {"01.1.1", R"(Major number must not contain leading zeroes "01")"},
      {"001.1.1", R"(Major number must not contain leading zeroes "001")"},
      {"1.01.1", R"(Minor number must not contain leading zeroes "01")"},
      {"1.001.1", R"(Minor number must not contain leading zeroes "001")"},
      {"1.1.01", R"(Patch number must not contain leading zeroes "01")"},
      {"1.1.001", R"(Patch number must not contain leading zeroes "001")"},
      {"1.1.1-01",
       R"(Numeric PreRelease version must not contain leading zeroes "01")"},
      {"1.1.1-001",
       R"(Numeric PreRelease version must not contain leading zeroes "001")"},
      {"1.1.1-beta.01",
       R"(Numeric PreRelease version must not contain leading zeroes "01")"},
      {"1.1.1-beta.001",
       R"(Numeric PreRelease version must not contain leading zeroes "001")"},
      {"0.0.0-!", R"(Invalid character(s) found in prerelease "!")"},
      {"0.0.0+!", R"(Invalid character(s) found in build meta data "!")"},
      // empty prversion
      {"0.0.0-.alpha", "Prerelease is empty"},
      // empty build meta data
      {"0.0.0-alpha+", "Build meta data is empty"},
      {"0.0.0-alpha+test.", "Build meta data is empty"},
      // Not in blang's table: Go %q quoting of the offending text.
      {"1.2.3-a\"b", R"(Invalid character(s) found in prerelease "a\"b")"},
      {"1.2.3-a\\b", R"(Invalid character(s) found in prerelease "a\\b")"},
      {"1.2.3-\x01", R"(Invalid character(s) found in prerelease "\x01")"},
      {"1.2.3-\xff", R"(Invalid character(s) found in prerelease "\xff")"},
      {"1.2.3-\xC2\xA0",
       R"(Invalid character(s) found in prerelease "\u00a0")"},
      {"1.2.3-\xC3\xA9",
       "Invalid character(s) found in prerelease \"\xC3\xA9\""},
      {"v1.2.3", R"(Invalid character(s) found in major number "v1")"},
      {" 1.2.3", R"(Invalid character(s) found in major number " 1")"},
  };
  for (const auto& [text, message] : cases) {
    SCOPED_TRACE(text);
    EXPECT_EQ(ErrorOf(Semver::Parse(text)), message);
  }
}

// k8s normalizeAndParse (semverlib.go doc examples and blang's
// tolerantFormatTests, minus whitespace trimming, which k8s does not do).
TEST(SemverTest, ParseNormalized) {
  const std::vector<std::pair<std::string_view, std::string_view>> ok = {
      {"v1.0.0", "1.0.0"},
      {"1.0", "1.0.0"},
      {"01.01.01", "1.1.1"},
      {"v1.2.3", "1.2.3"},
      {"1.2.0-alpha", "1.2.0-alpha"},
      {"1.2.00", "1.2.0"},
      {"00.0.03", "0.0.3"},
      {"000.0.03", "0.0.3"},
      {"1.2", "1.2.0"},
      {"1", "1.0.0"},
      {"v01.002", "1.2.0"},
      {"1.2.3-alpha", "1.2.3-alpha"},
      {"1.2.00-rc.1+b", "1.2.0-rc.1+b"},
  };
  for (const auto& [in, want] : ok) {
    SCOPED_TRACE(in);
    absl::StatusOr<Semver> v = Semver::ParseNormalized(in);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(v->ToString(), want);
  }
  const std::vector<std::pair<std::string_view, std::string_view>> bad = {
      {"1.0+abc", "short version cannot contain PreRelease/Build meta data"},
      {"1.0-rc.1", R"(Invalid character(s) found in minor number "0-rc")"},
      {"1-rc", "short version cannot contain PreRelease/Build meta data"},
      // Only the start of each part is trimmed; "-01" is left to Parse.
      {"1.2.00-01",
       R"(Numeric PreRelease version must not contain leading zeroes "01")"},
      // No white space trimming; a non-digit part start gets a "0" prefix.
      {"\t1.2.3 ", R"(Invalid character(s) found in major number "0\t1")"},
      {"V1.2.3", R"(Invalid character(s) found in major number "0V1")"},
      {"vv1.2.3", R"(Invalid character(s) found in major number "0v1")"},
      {"", R"(strconv.ParseUint: parsing "": invalid syntax)"},
      {"v", R"(strconv.ParseUint: parsing "": invalid syntax)"},
      {"alpha", R"(Invalid character(s) found in major number "0alpha")"},
      {"-1.0.3-gamma+b7718",
       R"(Invalid character(s) found in major number "0-1")"},
  };
  for (const auto& [in, message] : bad) {
    SCOPED_TRACE(in);
    EXPECT_EQ(ErrorOf(Semver::ParseNormalized(in)), message);
  }
}

// The semver.org 2.0.0 regular expression examples: the ones DRA accepts
// and rejects as a device's version attribute.
TEST(SemverTest, IsValidSemverOrgExamples) {
  const std::vector<std::string_view> valid = {
      "0.0.4",
      "1.2.3",
      "10.20.30",
      "1.1.2-prerelease+meta",
      "1.1.2+meta",
      "1.1.2+meta-valid",
      "1.0.0-alpha",
      "1.0.0-beta",
      "1.0.0-alpha.beta",
      "1.0.0-alpha.beta.1",
      "1.0.0-alpha.1",
      "1.0.0-alpha0.valid",
      "1.0.0-alpha.0valid",
      "1.0.0-alpha-a.b-c-somethinglong+build.1-aef.1-its-okay",
      "1.0.0-rc.1+build.1",
      "2.0.0-rc.1+build.123",
      "1.2.3-beta",
      "10.2.3-DEV-SNAPSHOT",
      "1.2.3-SNAPSHOT-123",
      "1.0.0",
      "2.0.0",
      "1.1.7",
      "2.0.0+build.1848",
      "2.0.1-alpha.1227",
      "1.0.0-alpha+beta",
      "1.2.3----RC-SNAPSHOT.12.9.1--.12+788",
      "1.2.3----R-S.12.9.1--.12+meta",
      "1.2.3----RC-SNAPSHOT.12.9.1--.12",
      "1.0.0+0.build.1-rc.10000aaa-kk-0.1",
      "99999999999999999999999.999999999999999999.99999999999999999",
      "1.0.0-0A.is.legal",
      // Not in the list; same grammar.
      "1.2.3--",
      "1.2.3-0",
      "1.2.3-00-alpha",
      "1.2.3-1.2+3.4",
      "1.2.3+001",
  };
  for (std::string_view s : valid) {
    EXPECT_TRUE(Semver::IsValid(s)) << s;
  }
  const std::vector<std::string_view> invalid = {
      "1", "1.2", "1.2.3-0123", "1.2.3-0123.0123", "1.1.2+.123", "+invalid",
      "-invalid", "-invalid+invalid", "-invalid.01", "alpha", "alpha.beta",
      "alpha.beta.1", "alpha.1", "alpha+beta", "alpha_beta", "alpha.",
      "alpha..", "beta", "1.0.0-alpha_beta", "-alpha.", "1.0.0-alpha..",
      "1.0.0-alpha..1", "1.0.0-alpha...1", "1.0.0-alpha....1",
      "1.0.0-alpha.....1", "1.0.0-alpha......1", "1.0.0-alpha.......1",
      "01.1.1", "1.01.1", "1.1.01", "1.2.3.DEV", "1.2-SNAPSHOT",
      "1.2.31.2.3----RC-SNAPSHOT.12.09.1--..12+788", "1.2-RC-SNAPSHOT",
      "-1.0.3-gamma+b7718", "+justmeta", "9.8.7+meta+meta",
      "9.8.7-whatever+meta+meta",
      "99999999999999999999999.999999999999999999.99999999999999999----RC-"
      "SNAPSHOT.12.09.1--------------------------------..12",
      // Not in the list.
      "", "v1.2.3", " 1.2.3", "1.2.3 ", "1.2.3-", "1.2.3+", "1.2.3-a.",
      "1.2.3-00", "1.2.3-\xC3\xA9",
      "\xEF\xBC\x91.2.3",  // fullwidth digit one
  };
  for (std::string_view s : invalid) {
    EXPECT_FALSE(Semver::IsValid(s)) << s;
  }
}

// IsValid accepts exactly what Parse accepts, except numbers past uint64.
TEST(SemverTest, IsValidAgreesWithParseBelowUint64) {
  for (std::string_view s :
       {"1.2.3", "1.2.3-a.1+b", "01.2.3", "1.2", "1.2.3-01", "1.2.3+",
        "18446744073709551615.0.0", "1.0.0-18446744073709551615"}) {
    EXPECT_EQ(Semver::IsValid(s), Semver::Parse(s).ok()) << s;
  }
  EXPECT_TRUE(Semver::IsValid("18446744073709551616.0.0"));
  EXPECT_FALSE(Semver::Parse("18446744073709551616.0.0").ok());
  EXPECT_TRUE(Semver::IsValid("1.0.0-18446744073709551616"));
  EXPECT_FALSE(Semver::Parse("1.0.0-18446744073709551616").ok());
}

TEST(SemverTest, ConstructionAndPrinting) {
  const Semver v(1, 2, 3);
  EXPECT_EQ(v.ToString(), "1.2.3");
  EXPECT_EQ(v, MustParse("1.2.3+build"));
  EXPECT_EQ(Semver().ToString(), "0.0.0");
  std::ostringstream os;
  os << MustParse("1.0.0-rc.1+x");
  EXPECT_EQ(os.str(), "1.0.0-rc.1+x");
  EXPECT_EQ(kSemverValidationDetail,
            "must be a string compatible with semver.org spec 2.0.0");
}

TEST(SemverTest, PrereleaseIdentifierCompare) {
  const auto pr = [](std::string_view s) {
    return MustParse(StrCat("1.0.0-", s)).prerelease()[0];
  };
  EXPECT_EQ(pr("1").Compare(pr("2")), -1);
  EXPECT_EQ(pr("10").Compare(pr("9")), 1);  // numeric, not lexical
  EXPECT_EQ(pr("9").Compare(pr("a")), -1);
  EXPECT_EQ(pr("a").Compare(pr("9")), 1);
  EXPECT_EQ(pr("a").Compare(pr("b")), -1);
  EXPECT_EQ(pr("Z").Compare(pr("a")), -1);
  EXPECT_EQ(pr("alpha").Compare(pr("alpha")), 0);
  EXPECT_TRUE(pr("7") == pr("7"));
}

}  // namespace
}  // namespace draplane
