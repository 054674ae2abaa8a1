// Tests for label selectors (field selectors: field_selectors_test.cc).
// The parse, requirement, match and metav1 tables were produced by running the
// same inputs through upstream's k8s.io/apimachinery@v0.37.2 (labels.Parse,
// labels.NewRequirement, Selector.Matches, fields.ParseSelector,
// metav1.LabelSelectorAsSelector); they include the cases of upstream's
// labels/selector_test.go and fields/selector_test.go.
#include "selectors/selectors.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "selectors/selectors_test_util.h"

namespace draplane::selectors {
namespace {

using namespace std::string_view_literals;

using selectors_test::J;
using selectors_test::Labels;
using selectors_test::Msg;

// ------------------------------------------------------------ label parse

struct LabelParseCase {
  std::string_view input;
  bool ok;
  // String() of the parsed selector, or the error message.
  std::string_view want;
};

constexpr LabelParseCase kLabelParseCases[] = {
    {"x=a,y=b,z=c"sv, true, "x=a,y=b,z=c"sv},
    {""sv, true, ""sv},
    {"x!=a,y=b"sv, true, "x!=a,y=b"sv},
    {"x="sv, true, "x="sv},
    {"x= "sv, true, "x="sv},
    {"x=,z= "sv, true, "x=,z="sv},
    {"x= ,z= "sv, true, "x=,z="sv},
    {"!x"sv, true, "!x"sv},
    {"x>1"sv, true, "x>1"sv},
    {"x>1,z<5"sv, true, "x>1,z<5"sv},
    {"x=a||y=b"sv, false,
     "unable to parse requirement: values[0][x]: Invalid value: \"a||y\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"sv},
    {"x==a==b"sv, false, "found '==', expected: ',' or 'end of string'"sv},
    {"!x=a"sv, false, "found '=', expected: ',' or 'end of string'"sv},
    {"x<a"sv, false,
     "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer"sv},
    {"\rx"sv, true, "x"sv},
    {"this-is-a-dns.domain.com/key-with-dash"sv, true,
     "this-is-a-dns.domain.com/key-with-dash"sv},
    {"this-is-another-dns.domain.com/key-with-dash in (so,what)"sv, true,
     "this-is-another-dns.domain.com/key-with-dash in (so,what)"sv},
    {"0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)"sv, true,
     "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)"sv},
    {"foo  in\t (abc)"sv, true, "foo in (abc)"sv},
    {"x notin\n (abc)"sv, true, "x notin (abc)"sv},
    {"x  notin\t\t\t(abc,def)"sv, true, "x notin (abc,def)"sv},
    {"x in (abc,def)"sv, true, "x in (abc,def)"sv},
    {"x in (abc,)"sv, true, "x in (,abc)"sv},
    {"x in (abc,abc)"sv, true, "x in (abc)"sv},
    {"x in ()"sv, true, "x in ()"sv},
    {"x in (a,,)"sv, true, "x in (,a)"sv},
    {"x in (a,,,)"sv, true, "x in (,a)"sv},
    {"x in (a,,,,,,)"sv, true, "x in (,a)"sv},
    {"x in (a,,a,,a,,a,,)"sv, true, "x in (,a)"sv},
    {"x notin (abc,,def),bar,z in (),w"sv, true,
     "bar,w,x notin (,abc,def),z in ()"sv},
    {"x,y in (a)"sv, true, "x,y in (a)"sv},
    {"x=a"sv, true, "x=a"sv},
    {"x>1"sv, true, "x>1"sv},
    {"x<7"sv, true, "x<7"sv},
    {"x=a,y!=b"sv, true, "x=a,y!=b"sv},
    {"x=a,y!=b,z in (h,i,j)"sv, true, "x=a,y!=b,z in (h,i,j)"sv},
    {"x,,y"sv, false, "found ',', expected: identifier after ','"sv},
    {",x,y"sv, false,
     "found ',', expected: !, identifier, or 'end of string'"sv},
    {"x nott in (y)"sv, false,
     "unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt"sv},
    {"x notin ( )"sv, true, "x notin ()"sv},
    {"x notin (, a)"sv, true, "x notin (,a)"sv},
    {"a in (xyz),"sv, false, "found '', expected: identifier after ','"sv},
    {"a in (xyz)b notin ()"sv, false,
     "found 'b', expected: ',' or 'end of string'"sv},
    {"a "sv, true, "a"sv},
    {"a in (x,y,notin, z,in)"sv, true, "a in (in,notin,x,y,z)"sv},
    {"a in (xyz abc)"sv, false,
     "unable to parse requirement: found 'abc', expected: ',' or ')'"sv},
    {"a notin("sv, false,
     "unable to parse requirement: found '', expected: ',', ')' or identifier"sv},
    {"a ("sv, false,
     "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"sv},
    {"("sv, false, "found '(', expected: !, identifier, or 'end of string'"sv},
    {"x=a,a=x"sv, true, "a=x,x=a"sv},
    {"a=x,x=a"sv, true, "a=x,x=a"sv},
    {"a b"sv, false,
     "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"sv},
    {"-x"sv, false,
     "unable to parse requirement: <nil>: Invalid value: \"-x\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"sv},
    {"a/b/c"sv, false,
     "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"sv},
    {"/a"sv, false,
     "unable to parse requirement: <nil>: Invalid value: \"/a\": prefix part must be non-empty"sv},
    {"a/"sv, false,
     "unable to parse requirement: <nil>: Invalid value: \"a/\": name part must be non-empty; name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"sv},
    {"Example.com/a"sv, false,
     "unable to parse requirement: <nil>: Invalid value: \"Example.com/a\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"sv},
    {"example.com/a=b"sv, true, "example.com/a=b"sv},
    {"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"sv, true,
     "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"sv},
    {"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"sv,
     false,
     "unable to parse requirement: <nil>: Invalid value: \"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\": name part must be no more than 63 bytes"sv},
    {"pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp/k"sv,
     false,
     "unable to parse requirement: <nil>: Invalid value: \"pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp/k\": prefix part must be no more than 253 bytes"sv},
    {"x=vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"sv,
     true,
     "x=vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"sv},
    {"x=vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"sv,
     false,
     "unable to parse requirement: values[0][x]: Invalid value: \"vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv\": must be no more than 63 bytes"sv},
    {"x>a_"sv, false,
     "unable to parse requirement: [values[0]: Invalid value: \"a_\": for 'Gt', 'Lt' operators, the value must be an integer, values[0][x]: Invalid value: \"a_\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]"sv},
    {"x>"sv, false,
     "unable to parse requirement: values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the value must be an integer"sv},
    {"x<-1"sv, false,
     "unable to parse requirement: values[0][x]: Invalid value: \"-1\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"sv},
    {"x>+1"sv, false,
     "unable to parse requirement: values[0][x]: Invalid value: \"+1\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"sv},
    {"x>01"sv, true, "x>01"sv},
    {"x>9223372036854775807"sv, true, "x>9223372036854775807"sv},
    {"x>9223372036854775808"sv, false,
     "unable to parse requirement: values[0]: Invalid value: \"9223372036854775808\": for 'Gt', 'Lt' operators, the value must be an integer"sv},
    {"a\x00"
     "b"sv,
     false,
     "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"sv},
    {"\x00"
     "a"sv,
     true, ""sv},
    {"a\x00"
     ""sv,
     true, "a"sv},
    {"x=("sv, false,
     "unable to parse requirement: found '(', expected: identifier"sv},
    {"x in a"sv, false,
     "unable to parse requirement: found 'a' expected: '('"sv},
    {"x in (a"sv, false,
     "unable to parse requirement: found '', expected: ',' or ')'"sv},
    {"x in (a,=)"sv, false,
     "unable to parse requirement: found '=', expected: ',', or identifier"sv},
    {"!"sv, false,
     "unable to parse requirement: found '', expected: identifier"sv},
    {"x!"sv, false,
     "unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt"sv},
    {"x>=1"sv, false,
     "unable to parse requirement: found '=', expected: identifier"sv},
    {"x in (a),in"sv, true, "in,x in (a)"sv},
    {"in"sv, true, "in"sv},
    {"notin=in"sv, true, "notin=in"sv},
    {"x==y"sv, true, "x==y"sv},
    {"x  ==  y"sv, true, "x==y"sv},
    {" x = y , z "sv, true, "x=y,z"sv},
    {"x in(a)"sv, true, "x in (a)"sv},
    {"x notin(a,b)"sv, true, "x notin (a,b)"sv},
    {"!x,!y"sv, true, "!x,!y"sv},
    {"x=a,x=b"sv, true, "x=a,x=b"sv},
    {"x=b,x=a"sv, true, "x=b,x=a"sv},
    {"b,a,c"sv, true, "a,b,c"sv},
    {"x=a b"sv, false, "found 'b', expected: ',' or 'end of string'"sv},
    {"x=-"sv, false,
     "unable to parse requirement: values[0][x]: Invalid value: \"-\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"sv},
    {"x=a,"sv, false, "found '', expected: identifier after ','"sv},
    {","sv, false, "found ',', expected: !, identifier, or 'end of string'"sv},
    {"x=="sv, true, "x=="sv},
    {"x!="sv, true, "x!="sv},
    {"x in (a)("sv, false, "found '(', expected: ',' or 'end of string'"sv},
    {"x in (("sv, false,
     "unable to parse requirement: found '(', expected: ',', ')' or identifier"sv},
    {"x=a=b"sv, false, "found '=', expected: ',' or 'end of string'"sv},
    {"x!==a"sv, false,
     "unable to parse requirement: found '=', expected: identifier"sv},
    {"x=!a"sv, false,
     "unable to parse requirement: found '!', expected: identifier"sv},
    {"x<>1"sv, false,
     "unable to parse requirement: found '>', expected: identifier"sv},
    {"x=<"sv, false,
     "unable to parse requirement: found '<', expected: identifier"sv},
    {"x)"sv, false,
     "unable to parse requirement: found ')', expected: in, notin, =, ==, !=, gt, lt"sv},
    {"=="sv, false,
     "found '==', expected: !, identifier, or 'end of string'"sv},
    {"x=\xc3"
     "\xa9"
     ""sv,
     false,
     "unable to parse requirement: values[0][x]: Invalid value: \"\xc3"
     "\xa9"
     "\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"sv},
    {"\xc3"
     "\xa9"
     ""sv,
     false,
     "unable to parse requirement: <nil>: Invalid value: \"\xc3"
     "\xa9"
     "\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"sv},
    {"x in (a,b"sv, false,
     "unable to parse requirement: found '', expected: ',' or ')'"sv},
    {"x notin"sv, false,
     "unable to parse requirement: found '' expected: '('"sv},
    {"x in"sv, false, "unable to parse requirement: found '' expected: '('"sv},
    {"x=\ta"sv, true, "x=a"sv},
    {"x\n=\na"sv, true, "x=a"sv},
    {"!!x"sv, false,
     "unable to parse requirement: found '!', expected: identifier"sv},
    {"! x"sv, true, "!x"sv},
    {"x,!y=z"sv, false, "found '=', expected: ',' or 'end of string'"sv},
    {"k8s.io/app=web,tier notin (db, cache),!legacy,version>2"sv, true,
     "k8s.io/app=web,!legacy,tier notin (cache,db),version>2"sv},
};

TEST(ParseLabelSelector, MatchesUpstreamStringAndErrors) {
  for (const LabelParseCase& c : kLabelParseCases) {
    SCOPED_TRACE(std::string(c.input));
    absl::StatusOr<LabelSelector> sel = ParseLabelSelector(c.input);
    if (c.ok) {
      ASSERT_TRUE(sel.ok()) << sel.status();
      EXPECT_EQ(sel->String(), c.want);
      // The canonical form parses back to itself.
      absl::StatusOr<LabelSelector> again = ParseLabelSelector(sel->String());
      ASSERT_TRUE(again.ok()) << again.status();
      EXPECT_EQ(again->String(), c.want);
    } else {
      ASSERT_FALSE(sel.ok()) << sel->String();
      EXPECT_EQ(sel.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_EQ(Msg(sel.status()), c.want);
    }
  }
}

TEST(ParseLabelSelector, RequirementsAreSortedByKeyWithValuesAsASet) {
  absl::StatusOr<LabelSelector> sel =
      ParseLabelSelector("x notin (abc,,def),bar,z in (b,a,b),!w");
  ASSERT_TRUE(sel.ok()) << sel.status();
  const std::vector<LabelRequirement>& r = sel->Requirements();
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].key, "bar");
  EXPECT_EQ(r[0].op, LabelOperator::kExists);
  EXPECT_TRUE(r[0].values.empty());
  EXPECT_EQ(r[1].key, "w");
  EXPECT_EQ(r[1].op, LabelOperator::kDoesNotExist);
  EXPECT_EQ(r[2].key, "x");
  EXPECT_EQ(r[2].op, LabelOperator::kNotIn);
  EXPECT_EQ(r[2].values, (std::vector<std::string>{"", "abc", "def"}));
  EXPECT_EQ(r[3].key, "z");
  EXPECT_EQ(r[3].op, LabelOperator::kIn);
  EXPECT_EQ(r[3].values, (std::vector<std::string>{"a", "b"}));
}

TEST(ParseLabelSelector, DeterministicOrder) {
  EXPECT_EQ(ParseLabelSelector("x=a,a=x")->String(),
            ParseLabelSelector("a=x,x=a")->String());
  // Requirements on one key keep their order (stable sort).
  EXPECT_EQ(ParseLabelSelector("x=b,a,x=a")->String(), "a,x=b,x=a");
}

TEST(ParseLabelSelector, OperatorsKeepTheirSpelling) {
  absl::StatusOr<LabelSelector> sel = ParseLabelSelector("a==1,b=2,c!=3");
  ASSERT_TRUE(sel.ok());
  EXPECT_EQ(sel->Requirements()[0].op, LabelOperator::kDoubleEquals);
  EXPECT_EQ(sel->Requirements()[1].op, LabelOperator::kEquals);
  EXPECT_EQ(sel->Requirements()[2].op, LabelOperator::kNotEquals);
  EXPECT_EQ(sel->String(), "a==1,b=2,c!=3");
}

// ------------------------------------------------------------ requirements

struct RequirementCase {
  std::string_view key;
  LabelOperator op;
  std::vector<std::string> values;
  bool ok;
  std::string_view want;  // String() or the error
};

const RequirementCase
    kRequirementCases[] =
        {
            {"x1"sv,
             LabelOperator::kIn,
             {},
             false,
             "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty"sv},
            {"x2"sv,
             LabelOperator::kNotIn,
             {},
             false,
             "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty"sv},
            {"x3"sv, LabelOperator::kIn, {"foo"}, true, "x3 in (foo)"sv},
            {"x5"sv,
             LabelOperator::kEquals,
             {"bar", "foo"},
             false,
             "values: Invalid value: [\"bar\",\"foo\"]: exact-match compatibility requires one single value"sv},
            {"x6"sv, LabelOperator::kExists, {}, true, "x6"sv},
            {"x8"sv,
             LabelOperator::kExists,
             {"foo"},
             false,
             "values: Invalid value: [\"foo\"]: values set must be empty for exists and does not exist"sv},
            {"x11"sv, LabelOperator::kGreaterThan, {"1"}, true, "x11>1"sv},
            {"x13"sv,
             LabelOperator::kGreaterThan,
             {},
             false,
             "values: Invalid value: []: for 'Gt', 'Lt' operators, exactly one value is required"sv},
            {"x14"sv,
             LabelOperator::kGreaterThan,
             {"bar"},
             false,
             "values[0]: Invalid value: \"bar\": for 'Gt', 'Lt' operators, the value must be an integer"sv},
            {"x15"sv,
             LabelOperator::kLessThan,
             {"bar"},
             false,
             "values[0]: Invalid value: \"bar\": for 'Gt', 'Lt' operators, the value must be an integer"sv},
            {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"sv,
             LabelOperator::kExists,
             {},
             false,
             "key: Invalid value: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\": name part must be no more than 63 bytes"sv},
            {"x16"sv,
             LabelOperator::kEquals,
             {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
              "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
              "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
              "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
             false,
             "values[0][x16]: Invalid value: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\": must be no more than 63 bytes"sv},
            {"x17"sv,
             LabelOperator::kEquals,
             {"a b"},
             false,
             "values[0][x17]: Invalid value: \"a b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"sv},
            {"x18"sv,
             LabelOperator::kGreaterThan,
             {"1", "2"},
             false,
             "values: Invalid value: [\"1\",\"2\"]: for 'Gt', 'Lt' operators, exactly one value is required"sv},
            {"-k"sv,
             LabelOperator::kEquals,
             {"-v"},
             false,
             "[key: Invalid value: \"-k\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), values[0][-k]: Invalid value: \"-v\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]"sv},
            {"k"sv,
             LabelOperator::kIn,
             {"-v", "-v"},
             false,
             "[values[0][k]: Invalid value: \"-v\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), values[1][k]: Invalid value: \"-v\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]"sv},
            {"k"sv,
             LabelOperator::kNotEquals,
             {"a\nb"},
             false,
             "values[0][k]: Invalid value: \"a\\nb\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"sv},
};

TEST(NewLabelRequirement, MatchesUpstreamConstructor) {
  for (const RequirementCase& c : kRequirementCases) {
    SCOPED_TRACE(std::string(c.key));
    absl::StatusOr<LabelRequirement> r =
        NewLabelRequirement(std::string(c.key), c.op, c.values);
    if (c.ok) {
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_EQ(r->String(), c.want);
    } else {
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(Msg(r.status()), c.want);
    }
  }
}

TEST(LabelRequirement, StringOfEachOperator) {
  auto str = [](LabelOperator op, std::vector<std::string> values) {
    return NewLabelRequirement("k", op, std::move(values))->String();
  };
  EXPECT_EQ(str(LabelOperator::kIn, {"b", "a"}), "k in (a,b)");
  EXPECT_EQ(str(LabelOperator::kNotIn, {""}), "k notin ()");
  EXPECT_EQ(str(LabelOperator::kEquals, {"v"}), "k=v");
  EXPECT_EQ(str(LabelOperator::kDoubleEquals, {"v"}), "k==v");
  EXPECT_EQ(str(LabelOperator::kNotEquals, {""}), "k!=");
  EXPECT_EQ(str(LabelOperator::kExists, {}), "k");
  EXPECT_EQ(str(LabelOperator::kDoesNotExist, {}), "!k");
  EXPECT_EQ(str(LabelOperator::kGreaterThan, {"2"}), "k>2");
  EXPECT_EQ(str(LabelOperator::kLessThan, {"8"}), "k<8");
}

TEST(MakeLabelSelector, ValidatesAndSorts) {
  absl::StatusOr<LabelSelector> sel = MakeLabelSelector(
      {{"z", LabelOperator::kExists, {}}, {"a", LabelOperator::kIn, {"x"}}});
  ASSERT_TRUE(sel.ok()) << sel.status();
  EXPECT_EQ(sel->String(), "a in (x),z");
  absl::StatusOr<LabelSelector> bad =
      MakeLabelSelector({{"a", LabelOperator::kExists, {"x"}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(Msg(bad.status()),
            "values: Invalid value: [\"x\"]: values set must be empty for "
            "exists and does not exist");
}

// ------------------------------------------------------------ label match

// The label sets of the match table, in the order of the bits below.
const std::vector<Labels>& MatchSets() {
  static const auto* sets = new std::vector<Labels>{
      {},
      {{"x", "y"}},
      {{"x", "z"}},
      {{"x", "y"}, {"z", "w"}},
      {{"x", "w"}, {"z", "w"}},
      {{"x", "z"}, {"z", "a"}},
      {{"notin", "in"}},
      {{"y", "z"}},
      {{"x", "2"}},
      {{"x", "0"}},
      {{"x", "-5"}},
      {{"x", "v2"}},
      {{"x", ""}},
      {{"y", ""}},
      {{"foo", "bar"}, {"baz", "blah"}},
      {{"x", "9223372036854775807"}},
      {{"x", "01"}},
      {{"x", "+3"}},
  };
  return *sets;
}

struct MatchCase {
  std::string_view selector;
  // '1' where the selector matches MatchSets()[i], as upstream decided.
  std::string_view bits;
};

constexpr MatchCase kMatchCases[] = {
    {""sv, "111111111111111111"},
    {"x=y"sv, "010100000000000000"},
    {"x=y,z=w"sv, "000100000000000000"},
    {"x!=y,z!=w"sv, "101001111111111111"},
    {"notin=in"sv, "000000100000000000"},
    {"x"sv, "011111001111100111"},
    {"!x"sv, "100000110000011000"},
    {"x>1"sv, "000000001000000101"},
    {"x<1"sv, "000000000110000000"},
    {"x=z"sv, "001001000000000000"},
    {"foo=bar"sv, "000000000000001000"},
    {"baz=blah"sv, "000000000000001000"},
    {"foo=bar,baz=blah"sv, "000000000000001000"},
    {"foo=blah"sv, "000000000000000000"},
    {"baz=bar"sv, "000000000000000000"},
    {"foo=bar,foobar=bar,baz=blah"sv, "000000000000000000"},
    {"x in (y,z)"sv, "011101000000000000"},
    {"x notin (y,z)"sv, "100010111111111111"},
    {"x notin ()"sv, "111111111111011111"},
    {"x in ()"sv, "000000000000100000"},
    {"x="sv, "000000000000100000"},
    {"x!="sv, "111111111111011111"},
    {"x==y"sv, "010100000000000000"},
    {"x>01"sv, "000000001000000101"},
    {"x<9223372036854775807"sv, "000000001110000011"},
    {"x>0,x<3"sv, "000000001000000010"},
    {"y,!x"sv, "000000010000010000"},
};

TEST(LabelSelectorMatches, MatchesUpstream) {
  const std::vector<Labels>& sets = MatchSets();
  for (const MatchCase& c : kMatchCases) {
    absl::StatusOr<LabelSelector> sel = ParseLabelSelector(c.selector);
    ASSERT_TRUE(sel.ok()) << c.selector << ": " << sel.status();
    ASSERT_EQ(c.bits.size(), sets.size());
    for (size_t i = 0; i < sets.size(); ++i) {
      EXPECT_EQ(sel->Matches(sets[i]), c.bits[i] == '1')
          << "selector '" << c.selector << "' on set " << i;
    }
  }
}

TEST(LabelSelectorMatches, GreaterAndLessThanCompareInt64) {
  auto matches = [](std::string_view sel, std::string value) {
    return ParseLabelSelector(sel)->Matches({{"n", value}});
  };
  EXPECT_TRUE(matches("n>9", "10"));  // numerically, not as text
  EXPECT_FALSE(matches("n<9", "10"));
  EXPECT_TRUE(matches("n<0", "-9223372036854775808"));
  EXPECT_FALSE(matches("n<0", "-9223372036854775809"));  // out of range
  EXPECT_FALSE(matches("n>0", "1.5"));
  EXPECT_FALSE(matches("n>0", "0x10"));
  EXPECT_FALSE(matches("n>0", "1_000"));
  EXPECT_FALSE(matches("n>0", ""));
  EXPECT_FALSE(matches("n>0", "+"));
  EXPECT_TRUE(matches("n>0", "+1"));
}

TEST(LabelSelector, EverythingNothingEmpty) {
  EXPECT_TRUE(LabelSelector::Everything().Empty());
  EXPECT_TRUE(LabelSelector::Everything().Matches({{"x", "y"}}));
  EXPECT_FALSE(LabelSelector::Everything().MatchesNothing());
  EXPECT_FALSE(LabelSelector::Nothing().Empty());
  EXPECT_TRUE(LabelSelector::Nothing().MatchesNothing());
  EXPECT_FALSE(LabelSelector::Nothing().Matches({}));
  EXPECT_EQ(LabelSelector::Nothing().String(), "");
  EXPECT_TRUE(ParseLabelSelector("")->Empty());
  EXPECT_TRUE(ParseLabelSelector(" \t\r\n")->Empty());
  EXPECT_FALSE(ParseLabelSelector("a,!a")->Empty());
  EXPECT_FALSE(ParseLabelSelector("a,!a")->MatchesNothing());
}

TEST(LabelSelector, RequiresExactMatch) {
  auto exact = [](std::string_view sel, std::string_view key) {
    return ParseLabelSelector(sel)->RequiresExactMatch(key);
  };
  EXPECT_EQ(exact("key in (value)", "key"), "value");
  EXPECT_EQ(exact("key in (value,value2)", "key"), std::nullopt);
  EXPECT_EQ(exact("key in (value,value1),key2 in (value2)", "key2"), "value2");
  EXPECT_EQ(exact("key=value", "key"), "value");
  EXPECT_EQ(exact("key==value", "key"), "value");
  EXPECT_EQ(exact("key!=value", "key"), std::nullopt);
  EXPECT_EQ(exact("key=", "key"), "");
  EXPECT_EQ(exact("key=value", "other"), std::nullopt);
  // Only the first requirement on the key counts.
  EXPECT_EQ(exact("key,key=value", "key"), std::nullopt);
}

// ------------------------------------------------------------ metav1 JSON

struct JsonCase {
  std::string_view json;
  bool ok;
  std::string_view want;  // String() or the error
  bool empty;
  bool nothing;
};

constexpr JsonCase
    kJsonCases
        [] =
            {
                {"null"sv, true, ""sv, false, true},
                {"{}"sv, true, ""sv, true, false},
                {"{\"matchLabels\":{}}"sv, true, ""sv, true, false},
                {"{\"matchLabels\":{\"app\":\"web\"}}"sv, true, "app=web"sv,
                 false, false},
                {"{\"matchLabels\":{\"z\":\"1\",\"a\":\"2\"},\"matchExpressions\":[{\"key\":\"env\",\"operator\":\"In\",\"values\":[\"prod\",\"dev\"]},{\"key\":\"gone\",\"operator\":\"DoesNotExist\"}]}"sv,
                 true, "a=2,env in (dev,prod),!gone,z=1"sv, false, false},
                {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Gt\",\"values\":[\"1\"]}]}"sv,
                 false, "\"Gt\" is not a valid label selector operator"sv,
                 false, false},
                {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\"}]}"sv,
                 false,
                 "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"sv,
                 false, false},
                {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[]}]}"sv,
                 false,
                 "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"sv,
                 false, false},
                {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"NotIn\",\"values\":[]}]}"sv,
                 false,
                 "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"sv,
                 false, false},
                {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Exists\",\"values\":[\"x\"]}]}"sv,
                 false,
                 "values: Invalid value: [\"x\"]: values set must be empty for exists and does not exist"sv,
                 false, false},
                {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"DoesNotExist\",\"values\":[\"x\",\"<y>\"]}]}"sv,
                 false,
                 "[values: Invalid value: [\"x\",\"\\u003cy\\u003e\"]: values set must be empty for exists and does not exist, values[1][a]: Invalid value: \"<y>\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]"sv,
                 false, false},
                {"{\"matchExpressions\":[{\"key\":\"a b\",\"operator\":\"Exists\"}]}"sv,
                 false,
                 "key: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"sv,
                 false, false},
                {"{\"matchExpressions\":[{\"operator\":\"Exists\"}]}"sv, false,
                 "key: Invalid value: \"\": name part must be non-empty; name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"sv,
                 false, false},
                {"{\"matchExpressions\":[{\"key\":\"a\"}]}"sv, false,
                 "\"\" is not a valid label selector operator"sv, false, false},
                {"{\"matchLabels\":{\"k\":\"a b\"}}"sv, false,
                 "values[0][k]: Invalid value: \"a b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"sv,
                 false, false},
                {"{\"matchLabels\":{\"a b\":\"v\"}}"sv, false,
                 "key: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"sv,
                 false, false},
                {"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[\"b\",\"a\",\"b\"]}]}"sv,
                 true, "a in (a,b,b)"sv, false, false},
                {"{\"matchExpressions\":[{\"key\":\"-a\",\"operator\":\"In\",\"values\":[\"-b\"]}]}"sv,
                 false,
                 "[key: Invalid value: \"-a\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), values[0][-a]: Invalid value: \"-b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]"sv,
                 false, false},
                {"{\"matchLabels\":{\"a\":\"1\"},\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"NotIn\",\"values\":[\"2\"]}]}"sv,
                 true, "a=1,a notin (2)"sv, false, false},
};

TEST(LabelSelectorFromJson, MatchesLabelSelectorAsSelector) {
  for (const JsonCase& c : kJsonCases) {
    SCOPED_TRACE(std::string(c.json));
    absl::StatusOr<LabelSelector> sel = LabelSelectorFromJson(J(c.json));
    if (c.ok) {
      ASSERT_TRUE(sel.ok()) << sel.status();
      EXPECT_EQ(sel->String(), c.want);
      EXPECT_EQ(sel->Empty(), c.empty);
      EXPECT_EQ(sel->MatchesNothing(), c.nothing);
    } else {
      ASSERT_FALSE(sel.ok()) << sel->String();
      EXPECT_EQ(sel.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_EQ(Msg(sel.status()), c.want);
    }
  }
}

TEST(LabelSelectorFromJson, KeepsValuesInDocumentOrderAndMatches) {
  absl::StatusOr<LabelSelector> sel = LabelSelectorFromJson(
      J(R"({"matchLabels":{"app":"web"},"matchExpressions":[
            {"key":"tier","operator":"NotIn","values":["db","cache"]},
            {"key":"canary","operator":"DoesNotExist"}]})"));
  ASSERT_TRUE(sel.ok()) << sel.status();
  EXPECT_EQ(sel->String(), "app=web,!canary,tier notin (cache,db)");
  EXPECT_EQ(sel->Requirements()[2].values,
            (std::vector<std::string>{"db", "cache"}));
  EXPECT_TRUE(sel->Matches({{"app", "web"}}));
  EXPECT_TRUE(sel->Matches({{"app", "web"}, {"tier", "front"}}));
  EXPECT_FALSE(sel->Matches({{"app", "web"}, {"tier", "db"}}));
  EXPECT_FALSE(sel->Matches({{"app", "web"}, {"canary", ""}}));
  EXPECT_FALSE(sel->Matches({{"app", "api"}}));
}

TEST(LabelSelectorFromJson, MatchLabelsAreCheckedInKeyOrder) {
  // Upstream iterates a Go map (random order); draplane reports the
  // smallest invalid key.
  absl::StatusOr<LabelSelector> sel =
      LabelSelectorFromJson(J(R"({"matchLabels":{"z":"-","b":"-"}})"));
  ASSERT_FALSE(sel.ok());
  EXPECT_EQ(Msg(sel.status()).rfind("values[0][b]: Invalid value: \"-\": ", 0),
            0u)
      << sel.status();
}

TEST(LabelSelectorFromJson, WrongJsonTypes) {
  auto err = [](std::string_view json) {
    return Msg(LabelSelectorFromJson(J(json)).status());
  };
  EXPECT_EQ(err("[]"), "invalid label selector: must be an object");
  EXPECT_EQ(err(R"({"matchLabels":[]})"),
            "invalid label selector: matchLabels must be an object");
  EXPECT_EQ(err(R"({"matchLabels":{"a":1}})"),
            "invalid label selector: matchLabels[a] must be a string");
  EXPECT_EQ(err(R"({"matchExpressions":{}})"),
            "invalid label selector: matchExpressions must be a list");
  EXPECT_EQ(err(R"({"matchExpressions":[1]})"),
            "invalid label selector: matchExpressions[0] must be an object");
  EXPECT_EQ(err(R"({"matchExpressions":[{"key":1}]})"),
            "invalid label selector: matchExpressions[0].key must be a string");
  EXPECT_EQ(
      err(R"({"matchExpressions":[{"key":"a","values":"b"}]})"),
      "invalid label selector: matchExpressions[0].values must be a list");
  EXPECT_EQ(
      err(R"({"matchExpressions":[{"key":"a","values":[1]}]})"),
      "invalid label selector: matchExpressions[0].values must be a list of "
      "strings");
  // null members are Go zero values.
  EXPECT_TRUE(LabelSelectorFromJson(
                  J(R"({"matchLabels":null,"matchExpressions":null})"))
                  ->Empty());
}

}  // namespace
}  // namespace draplane::selectors
