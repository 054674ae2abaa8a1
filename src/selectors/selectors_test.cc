// Tests for label and field selectors. The parse, requirement, match and
// metav1 tables were produced by running the same inputs through upstream's
// k8s.io/apimachinery@v0.37.2 (labels.Parse, labels.NewRequirement,
// Selector.Matches, fields.ParseSelector, metav1.LabelSelectorAsSelector);
// they include the cases of upstream's labels/selector_test.go and
// fields/selector_test.go.
#include "selectors/selectors.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"

namespace draplane::selectors {
namespace {

using namespace std::string_view_literals;

using Labels = std::map<std::string, std::string>;

std::string Msg(const absl::Status& s) { return std::string(s.message()); }

api::Json J(std::string_view text) {
  return api::Json::parse(text.begin(), text.end());
}

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

// ------------------------------------------------------------ field parse

struct FieldParseCase {
  std::string_view input;
  bool ok;
  std::string_view want;  // String() or the error
};

constexpr FieldParseCase kFieldParseCases[] = {
    {"x=a,y=b,z=c"sv, true, "x=a,y=b,z=c"sv},
    {""sv, true, ""sv},
    {"x!=a,y=b"sv, true, "x!=a,y=b"sv},
    {"x=a||y\\=b"sv, true, "x=a||y\\=b"sv},
    {"x=a\\=\\=b"sv, true, "x=a\\=\\=b"sv},
    {"x=a||y=b"sv, false,
     "invalid field selector: unescaped character in value: 61"sv},
    {"x==a==b"sv, false,
     "invalid field selector: unescaped character in value: 61"sv},
    {"x=a,b"sv, false, "invalid selector: 'x=a,b'; can't understand 'b'"sv},
    {"x in (a)"sv, false,
     "invalid selector: 'x in (a)'; can't understand 'x in (a)'"sv},
    {"x in (a,b,c)"sv, false,
     "invalid selector: 'x in (a,b,c)'; can't understand 'b'"sv},
    {"x"sv, false, "invalid selector: 'x'; can't understand 'x'"sv},
    {"k=\\,,k2=v2"sv, true, "k2=v2,k=\\,"sv},
    {"k=\\\\,k2=v2"sv, true, "k2=v2,k=\\\\"sv},
    {"k=\\\\\\,,k2=v2"sv, true, "k2=v2,k=\\\\\\,"sv},
    {"k=\\a\\b\\"sv, false,
     "invalid field selector: invalid escape sequence: \\a"sv},
    {"k=\\"sv, false, "invalid field selector: invalid escape sequence: \\"sv},
    {"\xed"
     "\x95"
     "\xa8"
     "=\xec"
     "\x88"
     "\x98"
     ",\xeb"
     "\xaa"
     "\xa9"
     "=\xeb"
     "\xa1"
     "\x9d"
     ""sv,
     true,
     "\xeb"
     "\xaa"
     "\xa9"
     "=\xeb"
     "\xa1"
     "\x9d"
     ",\xed"
     "\x95"
     "\xa8"
     "=\xec"
     "\x88"
     "\x98"
     ""sv},
    {"x=a,a=x"sv, true, "a=x,x=a"sv},
    {"a=x,x=a"sv, true, "a=x,x=a"sv},
    {"b==1,b=2"sv, true, "b=2,b=1"sv},
    {"="sv, true, ""sv},
    {"=x"sv, true, "=x"sv},
    {"a=b,="sv, true, "a=b"sv},
    {",a=b,"sv, true, "a=b"sv},
    {",,"sv, true, ""sv},
    {"a!="sv, true, "a!="sv},
    {"a=="sv, true, "a="sv},
    {"a="sv, true, "a="sv},
    {"a!==b"sv, false,
     "invalid field selector: unescaped character in value: 61"sv},
    {"a=!b"sv, true, "a=!b"sv},
    {"a=\\=b"sv, true, "a=\\=b"sv},
    {"a=\\\\\\="sv, true, "a=\\\\\\="sv},
    {"a=\\\xff"
     ",b=\xff"
     ""sv,
     false,
     "invalid field selector: invalid escape sequence: \\\xef"
     "\xbf"
     "\xbd"
     ""sv},
    {"a=\\\xc3"
     "\xa9"
     ""sv,
     false,
     "invalid field selector: invalid escape sequence: \\\xc3"
     "\xa9"
     ""sv},
    {"spec.nodeName=node1,status.phase!=Running"sv, true,
     "spec.nodeName=node1,status.phase!=Running"sv},
    {"metadata.name=a\\,b"sv, true, "metadata.name=a\\,b"sv},
    {"x=a\\"sv, false, "invalid field selector: invalid escape sequence: \\"sv},
    {"x=,y="sv, true, "x=,y="sv},
    {"!=a"sv, true, "!=a"sv},
    {"a!b=c"sv, true, "a!b=c"sv},
};

TEST(ParseFieldSelector, MatchesUpstreamStringAndErrors) {
  for (const FieldParseCase& c : kFieldParseCases) {
    SCOPED_TRACE(std::string(c.input));
    absl::StatusOr<FieldSelector> sel = ParseFieldSelector(c.input);
    if (c.ok) {
      ASSERT_TRUE(sel.ok()) << sel.status();
      EXPECT_EQ(sel->String(), c.want);
      // String() parses back; the text may re-sort once ("b==1,b=2" prints
      // "b=2,b=1", which sorts as "b=1,b=2"), then it is stable.
      absl::StatusOr<FieldSelector> again = ParseFieldSelector(sel->String());
      ASSERT_TRUE(again.ok()) << again.status();
      EXPECT_EQ(ParseFieldSelector(again->String())->String(), again->String());
    } else {
      ASSERT_FALSE(sel.ok()) << sel->String();
      EXPECT_EQ(sel.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_EQ(Msg(sel.status()), c.want);
    }
  }
}

TEST(ParseFieldSelector, Requirements) {
  absl::StatusOr<FieldSelector> sel = ParseFieldSelector(
      R"(status.phase!=Running,spec.nodeName==node1,metadata.name=a\,b\=c\\)");
  ASSERT_TRUE(sel.ok()) << sel.status();
  const std::vector<FieldRequirement>& r = sel->Requirements();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].field, "metadata.name");
  EXPECT_EQ(r[0].op, FieldOperator::kEquals);
  EXPECT_EQ(r[0].value, R"(a,b=c\)");
  EXPECT_EQ(r[1].field, "spec.nodeName");
  EXPECT_EQ(r[1].op, FieldOperator::kEquals);
  EXPECT_EQ(r[1].value, "node1");
  EXPECT_EQ(r[2].field, "status.phase");
  EXPECT_EQ(r[2].op, FieldOperator::kNotEquals);
  EXPECT_EQ(r[2].value, "Running");
  EXPECT_EQ(
      sel->String(),
      R"(metadata.name=a\,b\=c\\,spec.nodeName=node1,status.phase!=Running)");
  EXPECT_EQ(sel->RequiresExactMatch("spec.nodeName"), "node1");
  EXPECT_EQ(sel->RequiresExactMatch("status.phase"), std::nullopt);
  EXPECT_TRUE(ParseFieldSelector("")->Empty());
  EXPECT_TRUE(ParseFieldSelector("=,")->Empty());
  EXPECT_FALSE(sel->Empty());
}

TEST(FieldValueEscaping, RoundTripsLikeUpstream) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"", ""},       {"a", "a"},        {"=", R"(\=)"},
      {",", R"(\,)"}, {R"(\)", R"(\\)"}, {R"(\=\,\)", R"(\\\=\\\,\\)"},
  };
  for (const auto& [raw, escaped] : cases) {
    EXPECT_EQ(EscapeFieldValue(raw), escaped);
    absl::StatusOr<std::string> back = UnescapeFieldValue(escaped);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, raw);
  }
  EXPECT_EQ(Msg(UnescapeFieldValue(R"(\)").status()),
            R"(invalid field selector: invalid escape sequence: \)");
  EXPECT_EQ(Msg(UnescapeFieldValue(R"(\\\)").status()),
            R"(invalid field selector: invalid escape sequence: \)");
  EXPECT_EQ(Msg(UnescapeFieldValue(R"(\a)").status()),
            R"(invalid field selector: invalid escape sequence: \a)");
  EXPECT_EQ(Msg(UnescapeFieldValue("a,b").status()),
            "invalid field selector: unescaped character in value: 44");
  // Without a special character the value is returned as is, invalid UTF-8
  // included; with one, Go rewrites invalid bytes as U+FFFD.
  EXPECT_EQ(*UnescapeFieldValue("\xff"), "\xff");
  EXPECT_EQ(*UnescapeFieldValue("\xff\\="), "\xEF\xBF\xBD=");
}

// ------------------------------------------------------------ field match

TEST(FieldSelectorMatches, UpstreamCases) {
  auto match = [](std::string_view sel, const Labels& fields) {
    absl::StatusOr<FieldSelector> s = ParseFieldSelector(sel);
    EXPECT_TRUE(s.ok()) << sel << ": " << s.status();
    return s->Matches(fields);
  };
  EXPECT_TRUE(match("", {{"x", "y"}}));
  EXPECT_TRUE(match("x=y", {{"x", "y"}}));
  EXPECT_TRUE(match("x=y,z=w", {{"x", "y"}, {"z", "w"}}));
  EXPECT_TRUE(match("x!=y,z!=w", {{"x", "z"}, {"z", "a"}}));
  EXPECT_TRUE(match("notin=in", {{"notin", "in"}}));
  EXPECT_FALSE(match("x=y", {{"x", "z"}}));
  EXPECT_FALSE(match("x=y,z=w", {{"x", "w"}, {"z", "w"}}));
  EXPECT_FALSE(match("x!=y,z!=w", {{"x", "z"}, {"z", "w"}}));
  const Labels fieldset = {
      {"foo", "bar"}, {"baz", "blah"}, {"complex", R"(=value\,\)"}};
  EXPECT_TRUE(match("foo=bar", fieldset));
  EXPECT_TRUE(match("baz=blah", fieldset));
  EXPECT_TRUE(match("foo=bar,baz=blah", fieldset));
  EXPECT_TRUE(match(R"(foo=bar,baz=blah,complex=\=value\\\,\\)", fieldset));
  EXPECT_FALSE(match("foo=blah", fieldset));
  EXPECT_FALSE(match("baz=bar", fieldset));
  EXPECT_FALSE(match("foo=bar,foobar=bar,baz=blah", fieldset));
  // A missing field has the value "".
  EXPECT_TRUE(match("missing=", {}));
  EXPECT_FALSE(match("missing!=", {}));
  EXPECT_TRUE(match("missing!=x", {}));
}

TEST(FieldSelectorMatches, WithLookup) {
  absl::StatusOr<FieldSelector> sel =
      ParseFieldSelector("spec.nodeName=node1,status.phase!=Failed,gone=");
  ASSERT_TRUE(sel.ok());
  std::vector<std::string> asked;
  FieldLookup lookup =
      [&](std::string_view field) -> std::optional<std::string> {
    asked.emplace_back(field);
    if (field == "spec.nodeName") return "node1";
    if (field == "status.phase") return "Running";
    return std::nullopt;
  };
  EXPECT_TRUE(sel->Matches(lookup));
  EXPECT_EQ(asked, (std::vector<std::string>{"gone", "spec.nodeName",
                                             "status.phase"}));
  FieldLookup failed =
      [](std::string_view field) -> std::optional<std::string> {
    if (field == "spec.nodeName") return "node1";
    if (field == "status.phase") return "Failed";
    return std::nullopt;
  };
  EXPECT_FALSE(sel->Matches(failed));
}

// ------------------------------------------------------------ kinds

std::string CheckError(std::string_view selector, std::string_view group,
                       std::string_view kind, std::string_view version = "") {
  absl::StatusOr<FieldSelector> sel = ParseFieldSelector(selector);
  EXPECT_TRUE(sel.ok()) << sel.status();
  absl::Status st = CheckFieldSelectorSupported(*sel, group, kind, version);
  if (st.ok()) return "OK";
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  return Msg(st);
}

TEST(CheckFieldSelectorSupported, CoreKinds) {
  EXPECT_EQ(CheckError("metadata.name=p,metadata.namespace=d,spec.nodeName=n,"
                       "spec.restartPolicy=Always,spec.schedulerName=s,"
                       "spec.serviceAccountName=sa,spec.hostNetwork=true,"
                       "status.phase=Running,status.podIP=1.2.3.4,"
                       "status.podIPs=1.2.3.4,status.nominatedNodeName=n,"
                       "spec.host=n",
                       "", "Pod"),
            "OK");
  EXPECT_EQ(CheckError("spec.foo=1", "", "Pod"),
            "field label not supported: spec.foo");
  EXPECT_EQ(CheckError("metadata.name=n,spec.unschedulable=true", "", "Node"),
            "OK");
  EXPECT_EQ(CheckError("metadata.namespace=", "", "Node"),
            "field label not supported: metadata.namespace");
  EXPECT_EQ(CheckError("metadata.name=n,status.phase=Active", "", "Namespace"),
            "OK");
  EXPECT_EQ(CheckError("name=n", "", "Namespace"),
            "field label not supported: name");
  EXPECT_EQ(CheckError(
                "involvedObject.kind=Pod,involvedObject.namespace=,"
                "involvedObject.name=p,involvedObject.uid=u,"
                "involvedObject.apiVersion=v1,involvedObject.resourceVersion=1,"
                "involvedObject.fieldPath=f,reason=r,reportingComponent=c,"
                "source=s,type=Normal,metadata.namespace=d,metadata.name=e",
                "", "Event"),
            "OK");
  EXPECT_EQ(CheckError("involvedObject.foo=x", "", "Event"),
            "field label not supported: involvedObject.foo");
  // No conversion function upstream: runtime's default.
  EXPECT_EQ(
      CheckError("metadata.name=q,metadata.namespace=d", "", "ResourceQuota"),
      "OK");
  EXPECT_EQ(CheckError("spec.foo=1", "", "ResourceQuota"),
            "\"spec.foo\" is not a known field selector: only "
            "\"metadata.name\", \"metadata.namespace\"");
}

TEST(CheckFieldSelectorSupported, OtherGroups) {
  EXPECT_EQ(CheckError("metadata.name=s,spec.nodeName=,spec.driver=d",
                       "resource.k8s.io", "ResourceSlice"),
            "OK");
  EXPECT_EQ(CheckError("spec.foo=1", "resource.k8s.io", "ResourceSlice"),
            "field label not supported for resource.k8s.io/v1, "
            "Kind=ResourceSlice: spec.foo");
  EXPECT_EQ(CheckError("metadata.namespace=x", "resource.k8s.io",
                       "ResourceSlice", "v1beta1"),
            "field label not supported for resource.k8s.io/v1beta1, "
            "Kind=ResourceSlice: metadata.namespace");
  EXPECT_EQ(CheckError("metadata.name=j,metadata.namespace=d,"
                       "status.successful=1",
                       "batch", "Job"),
            "OK");
  EXPECT_EQ(CheckError("spec.foo=1", "batch", "Job"),
            "field label \"spec.foo\" not supported for Job");
  for (auto [group, kind] : {std::pair{"apps", "Deployment"},
                             {"coordination.k8s.io", "Lease"},
                             {"resource.k8s.io", "DeviceClass"},
                             {"resource.k8s.io", "ResourceClaimTemplate"},
                             {"resource.k8s.io", "DeviceTaintRule"}}) {
    EXPECT_EQ(CheckError("metadata.name=a,metadata.namespace=b", group, kind),
              "OK");
    EXPECT_EQ(CheckError("spec.nodeName=a", group, kind),
              "\"spec.nodeName\" is not a known field selector: only "
              "\"metadata.name\", \"metadata.namespace\"")
        << kind;
  }
}

TEST(CheckFieldSelectorSupported, DraplaneClaimExtensions) {
  EXPECT_EQ(CheckError("status.allocation=,status.reservedFor=true",
                       "resource.k8s.io", "ResourceClaim"),
            "OK");
  EXPECT_EQ(CheckError("status.devices=", "resource.k8s.io", "ResourceClaim"),
            "\"status.devices\" is not a known field selector: only "
            "\"metadata.name\", \"metadata.namespace\"");
  // Only for ResourceClaims.
  EXPECT_EQ(CheckError("status.allocation=", "resource.k8s.io",
                       "ResourceClaimTemplate"),
            "\"status.allocation\" is not a known field selector: only "
            "\"metadata.name\", \"metadata.namespace\"");
}

TEST(CheckFieldSelectorSupported, FirstUnsupportedInSortedOrder) {
  // Terms are sorted as text before the check, like upstream.
  EXPECT_EQ(CheckError("spec.foo=1,metadata.bar=2", "", "Pod"),
            "field label not supported: metadata.bar");
}

TEST(ConvertFieldSelector, PodSpecHostIsSpecNodeName) {
  absl::StatusOr<FieldSelector> sel =
      ParseFieldSelector("spec.host=node1,status.phase!=Failed");
  ASSERT_TRUE(sel.ok());
  absl::StatusOr<FieldSelector> converted =
      ConvertFieldSelector(*sel, "", "Pod");
  ASSERT_TRUE(converted.ok()) << converted.status();
  EXPECT_EQ(converted->String(), "spec.nodeName=node1,status.phase!=Failed");
  absl::StatusOr<FieldSelector> node =
      ConvertFieldSelector(*ParseFieldSelector("spec.host=n"), "", "Node");
  EXPECT_EQ(Msg(node.status()), "field label not supported: spec.host");
}

// ------------------------------------------------------------ values

using Fields = std::map<std::string, std::string>;

TEST(SelectableFields, Pod) {
  api::Json pod = J(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "p1", "namespace": "default", "labels": {"a": "b"}},
    "spec": {"nodeName": "node1", "restartPolicy": "Always",
             "schedulerName": "default-scheduler", "serviceAccount": "old",
             "hostNetwork": true, "containers": [{"name": "c"}]},
    "status": {"phase": "Running", "podIPs": [{"ip": "10.0.0.5"}, {"ip": "fd00::5"}],
               "nominatedNodeName": "node2"}})");
  EXPECT_EQ(SelectableFields(pod, "", "Pod"),
            (Fields{{"metadata.name", "p1"},
                    {"metadata.namespace", "default"},
                    {"spec.hostNetwork", "true"},
                    {"spec.nodeName", "node1"},
                    {"spec.restartPolicy", "Always"},
                    {"spec.schedulerName", "default-scheduler"},
                    {"spec.serviceAccountName", "old"},
                    {"status.nominatedNodeName", "node2"},
                    {"status.phase", "Running"},
                    {"status.podIP", "10.0.0.5"}}));

  api::Json bare = J(R"({"metadata": {"name": "p2", "namespace": "ns"},
                         "spec": {"serviceAccountName": "sa",
                                  "serviceAccount": "old"},
                         "status": {"podIP": "10.0.0.9",
                                    "podIPs": [{"ip": "10.0.0.5"}]}})");
  EXPECT_EQ(SelectableFields(bare, "", "Pod"),
            (Fields{{"metadata.name", "p2"},
                    {"metadata.namespace", "ns"},
                    {"spec.hostNetwork", "false"},
                    {"spec.nodeName", ""},
                    {"spec.restartPolicy", ""},
                    {"spec.schedulerName", ""},
                    {"spec.serviceAccountName", "sa"},
                    {"status.nominatedNodeName", ""},
                    {"status.phase", ""},
                    {"status.podIP", "10.0.0.9"}}));

  // End to end: what `kubectl get pods --field-selector` does.
  absl::StatusOr<FieldSelector> sel = ConvertFieldSelector(
      *ParseFieldSelector("spec.host=node1,status.phase!=Succeeded"), "",
      "Pod");
  ASSERT_TRUE(sel.ok());
  EXPECT_TRUE(sel->Matches(SelectableFields(pod, "", "Pod")));
  EXPECT_FALSE(sel->Matches(SelectableFields(bare, "", "Pod")));
  // status.podIPs is accepted but has no value upstream.
  EXPECT_TRUE(ParseFieldSelector("status.podIPs=")
                  ->Matches(SelectableFields(pod, "", "Pod")));
}

TEST(SelectableFields, Node) {
  api::Json node = J(R"({"apiVersion": "v1", "kind": "Node",
      "metadata": {"name": "node1", "labels": {"kubernetes.io/hostname": "node1"}},
      "spec": {"unschedulable": true, "taints": []}})");
  EXPECT_EQ(
      SelectableFields(node, "", "Node"),
      (Fields{{"metadata.name", "node1"}, {"spec.unschedulable", "true"}}));
  api::Json schedulable = J(R"({"metadata": {"name": "node2"}})");
  EXPECT_EQ(
      SelectableFields(schedulable, "", "Node"),
      (Fields{{"metadata.name", "node2"}, {"spec.unschedulable", "false"}}));
}

TEST(SelectableFields, Event) {
  api::Json event = J(R"({"apiVersion": "v1", "kind": "Event",
      "metadata": {"name": "claim1.17a", "namespace": "default"},
      "involvedObject": {"kind": "ResourceClaim", "namespace": "default",
                         "name": "claim1", "uid": "u-1",
                         "apiVersion": "resource.k8s.io/v1",
                         "resourceVersion": "42"},
      "reason": "Allocated", "message": "m", "type": "Normal",
      "reportingComponent": "draplane-scheduler", "source": {}})");
  const Fields want = {
      {"involvedObject.apiVersion", "resource.k8s.io/v1"},
      {"involvedObject.fieldPath", ""},
      {"involvedObject.kind", "ResourceClaim"},
      {"involvedObject.name", "claim1"},
      {"involvedObject.namespace", "default"},
      {"involvedObject.resourceVersion", "42"},
      {"involvedObject.uid", "u-1"},
      {"metadata.name", "claim1.17a"},
      {"metadata.namespace", "default"},
      {"reason", "Allocated"},
      {"reportingComponent", "draplane-scheduler"},
      {"source", "draplane-scheduler"},  // falls back to reportingComponent
      {"type", "Normal"}};
  EXPECT_EQ(SelectableFields(event, "", "Event"), want);
  event["source"] = J(R"({"component": "kubelet", "host": "node1"})");
  EXPECT_EQ(SelectableFields(event, "", "Event").at("source"), "kubelet");

  // kubectl describe's event query for a cluster-scoped object.
  absl::StatusOr<FieldSelector> sel = ParseFieldSelector(
      "involvedObject.name=claim1,involvedObject.namespace=default,"
      "involvedObject.kind=ResourceClaim,involvedObject.uid=u-1");
  ASSERT_TRUE(sel.ok());
  ASSERT_TRUE(CheckFieldSelectorSupported(*sel, "", "Event").ok());
  EXPECT_TRUE(sel->Matches(SelectableFields(event, "", "Event")));
  EXPECT_FALSE(ParseFieldSelector("involvedObject.namespace=")
                   ->Matches(SelectableFields(event, "", "Event")));
}

TEST(SelectableFields, ResourceSlice) {
  api::Json slice = J(R"({"apiVersion": "resource.k8s.io/v1",
      "kind": "ResourceSlice", "metadata": {"name": "node1-gpu"},
      "spec": {"driver": "gpu.example.com", "nodeName": "node1",
               "pool": {"name": "node1", "generation": 1,
                        "resourceSliceCount": 1},
               "devices": [{"name": "gpu-0"}]}})");
  EXPECT_EQ(SelectableFields(slice, "resource.k8s.io", "ResourceSlice"),
            (Fields{{"metadata.name", "node1-gpu"},
                    {"spec.driver", "gpu.example.com"},
                    {"spec.nodeName", "node1"}}));
  api::Json network = J(R"({"metadata": {"name": "fabric"},
      "spec": {"driver": "net.example.com", "allNodes": true}})");
  const Fields values =
      SelectableFields(network, "resource.k8s.io", "ResourceSlice");
  EXPECT_EQ(values, (Fields{{"metadata.name", "fabric"},
                            {"spec.driver", "net.example.com"},
                            {"spec.nodeName", ""}}));
  EXPECT_TRUE(ParseFieldSelector("spec.nodeName=")->Matches(values));
  EXPECT_TRUE(
      ParseFieldSelector("spec.driver=net.example.com")->Matches(values));
}

TEST(SelectableFields, OtherKinds) {
  EXPECT_EQ(SelectableFields(J(R"({"metadata": {"name": "ns1"},
                                   "status": {"phase": "Active"}})"),
                             "", "Namespace"),
            (Fields{{"metadata.name", "ns1"},
                    {"name", "ns1"},
                    {"status.phase", "Active"}}));
  EXPECT_EQ(SelectableFields(J(R"({"metadata": {"name": "j", "namespace": "d"},
                                   "status": {"succeeded": 3}})"),
                             "batch", "Job"),
            (Fields{{"metadata.name", "j"},
                    {"metadata.namespace", "d"},
                    {"status.successful", "3"}}));
  EXPECT_EQ(
      SelectableFields(J(R"({"metadata": {"name": "j", "namespace": "d"}})"),
                       "batch", "Job")
          .at("status.successful"),
      "0");
  EXPECT_EQ(SelectableFields(J(R"({"metadata": {"name": "d1", "namespace": "d"},
                                   "spec": {"replicas": 2}})"),
                             "apps", "Deployment"),
            (Fields{{"metadata.name", "d1"}, {"metadata.namespace", "d"}}));
  EXPECT_EQ(SelectableFields(J(R"({"metadata": {"name": "gpu.example.com"}})"),
                             "resource.k8s.io", "DeviceClass"),
            (Fields{{"metadata.name", "gpu.example.com"}}));
  EXPECT_EQ(SelectableFields(J(R"({"metadata": {"name": "node1",
                                                "namespace": "kube-node-lease"}})"),
                             "coordination.k8s.io", "Lease"),
            (Fields{{"metadata.name", "node1"},
                    {"metadata.namespace", "kube-node-lease"}}));
  // Not a JSON object at all: zero values, no exception.
  EXPECT_EQ(SelectableFields(J("[1]"), "", "Node"),
            (Fields{{"metadata.name", ""}, {"spec.unschedulable", "false"}}));
  EXPECT_EQ(SelectableFields(J(R"({"metadata": {"name": 5}})"), "", "Node"),
            (Fields{{"metadata.name", ""}, {"spec.unschedulable", "false"}}));
}

TEST(SelectableFields, DraplaneClaimExtensions) {
  api::Json pending = J(R"({"metadata": {"name": "c1", "namespace": "d"},
                            "spec": {"devices": {"requests": []}}})");
  api::Json allocated = J(R"({"metadata": {"name": "c2", "namespace": "d"},
      "status": {"allocation": {"devices": {"results": []}},
                 "reservedFor": [{"resource": "pods", "name": "p", "uid": "u"}]}})");
  api::Json unreserved = J(R"({"metadata": {"name": "c3", "namespace": "d"},
      "status": {"allocation": {}, "reservedFor": []}})");
  const std::string_view g = "resource.k8s.io";
  EXPECT_EQ(SelectableFields(pending, g, "ResourceClaim"),
            (Fields{{"metadata.name", "c1"},
                    {"metadata.namespace", "d"},
                    {"status.allocation", ""},
                    {"status.reservedFor", ""}}));
  EXPECT_EQ(SelectableFields(allocated, g, "ResourceClaim"),
            (Fields{{"metadata.name", "c2"},
                    {"metadata.namespace", "d"},
                    {"status.allocation", "true"},
                    {"status.reservedFor", "true"}}));
  EXPECT_EQ(SelectableFields(unreserved, g, "ResourceClaim"),
            (Fields{{"metadata.name", "c3"},
                    {"metadata.namespace", "d"},
                    {"status.allocation", "true"},
                    {"status.reservedFor", ""}}));
  // `kubectl get resourceclaims --field-selector status.allocation=`
  absl::StatusOr<FieldSelector> sel = ParseFieldSelector("status.allocation=");
  ASSERT_TRUE(sel.ok());
  ASSERT_TRUE(CheckFieldSelectorSupported(*sel, g, "ResourceClaim").ok());
  EXPECT_TRUE(sel->Matches(SelectableFields(pending, g, "ResourceClaim")));
  EXPECT_FALSE(sel->Matches(SelectableFields(allocated, g, "ResourceClaim")));
}

}  // namespace
}  // namespace draplane::selectors
