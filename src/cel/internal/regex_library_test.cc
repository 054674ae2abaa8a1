#include "cel/internal/regex_library.h"

#include <string>
#include <string_view>

#include "cel/internal/parser.h"
#include "cel/internal/standard_library.h"
#include "cel/testing/oracle_json.h"
#include "gtest/gtest.h"

namespace draplane::cel::internal {
namespace {

// An expression with the result the reference (cel-go in the Kubernetes
// 1.37 environment, `draref cel eval --plain --env k8s`) gives: a value in
// its JSON form with its type name, or an error message. `p`, when set, is
// bound to the string variable p (a pattern that is not a constant).
struct OracleCase {
  const char* expr;
  const char* json;  // nullptr: an error is expected
  const char* type;
  const char* error;
  const char* p = nullptr;
};

class RegexLibraryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    registry_ = new FunctionRegistry;
    ASSERT_TRUE(RegisterStandardFunctions(registry_).ok());
    ASSERT_TRUE(RegisterRegexFunctions(registry_).ok());
  }

  static EvalResult Run(std::string_view expr, const char* p = nullptr) {
    auto parsed = Parse(expr);
    EXPECT_TRUE(parsed.ok()) << expr << ": " << parsed.status();
    if (!parsed.ok()) return {Value::Error("parse"), 0};
    auto program = Plan(*parsed->root, *registry_);
    EXPECT_TRUE(program.ok()) << expr << ": " << program.status();
    if (!program.ok()) return {Value::Error("plan"), 0};
    MapActivation activation;
    if (p != nullptr) activation.Insert("p", Value::String(p));
    return (*program)->Evaluate(activation);
  }

  static FunctionRegistry* registry_;
};

FunctionRegistry* RegexLibraryTest::registry_ = nullptr;

// Generated with draref from the expressions; see OracleCase.
const OracleCase kOracleCases[] = {
    {R"x("abc".find("b"))x", R"x("b")x", "string", nullptr},
    {R"x("abc".find("x"))x", R"x("")x", "string", nullptr},
    {R"x("abc 123".find("[0-9]+"))x", R"x("123")x", "string", nullptr},
    {R"x("abc".find(""))x", R"x("")x", "string", nullptr},
    {R"x("".find("a*"))x", R"x("")x", "string", nullptr},
    {R"x("abcabc".findAll("b"))x", R"x(["b","b"])x", "list", nullptr},
    {R"x("abcabc".findAll("b", 1))x", R"x(["b"])x", "list", nullptr},
    {R"x("abcabc".findAll("b", 0))x", R"x([])x", "list", nullptr},
    {R"x("abcabc".findAll("b", -5))x", R"x(["b","b"])x", "list", nullptr},
    {R"x("abc".findAll(""))x", R"x(["","","",""])x", "list", nullptr},
    {R"x("aXbX".findAll("X*"))x", R"x(["","X","X"])x", "list", nullptr},
    {R"x("héllo".findAll(""))x", R"x(["","","","","",""])x", "list", nullptr},
    {R"x("héllo".findAll("."))x", R"x(["h","é","l","l","o"])x", "list",
     nullptr},
    {R"x("abc".findAll("a|"))x", R"x(["a","",""])x", "list", nullptr},
    {R"x("abab".findAll("a*"))x", R"x(["a","a",""])x", "list", nullptr},
    {R"x("aaa".findAll("a*?"))x", R"x(["","","",""])x", "list", nullptr},
    {R"x("ab\nab".findAll("(?m)^a"))x", R"x(["a","a"])x", "list", nullptr},
    {R"x("abab".findAll("^a"))x", R"x(["a"])x", "list", nullptr},
    {R"x("ab ab".findAll("\\bab"))x", R"x(["ab","ab"])x", "list", nullptr},
    {R"x("xyz".findAll("$"))x", R"x([""])x", "list", nullptr},
    {R"x("abc".find("(?i)B"))x", R"x("b")x", "string", nullptr},
    {R"x("a.c".find(r"\Qa.c\E"))x", R"x("a.c")x", "string", nullptr},
    {R"x("abc".find(r"\pL+"))x", R"x("abc")x", "string", nullptr},
    {R"x("abc".find(r"(?P<n>a)(?P<n>b)"))x", R"x("ab")x", "string", nullptr},
    {R"x("abc".find(r"(?<n>a)b"))x", R"x("ab")x", "string", nullptr},
    {R"x("abc".find(r"[(?<n>]+"))x", R"x("")x", "string", nullptr},
    {R"x("abc".find(r"[\d-z]"))x", R"x("")x", "string", nullptr},
    {R"x("ab]c".find(r"[]a]+"))x", R"x("a")x", "string", nullptr},
    {R"x("ab]c".find(r"[^]a]+"))x", R"x("b")x", "string", nullptr},
    {R"x("ab:c".find(r"[[:alpha:]]+"))x", R"x("ab")x", "string", nullptr},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: missing closing ): `(`)x",
     R"x(()x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: missing closing ]: `[a`)x",
     R"x([a)x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: invalid nested repetition operator: `**`)x",
     R"x(a**)x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: invalid repeat count: `{2,1}`)x",
     R"x(x{2,1})x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: invalid repeat count: `{1001}`)x",
     R"x(a{1001})x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: invalid character class range: `z-a`)x",
     R"x([z-a])x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: unexpected ): `)`)x", R"x())x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: missing argument to repetition operator: `*`)x",
     R"x(*)x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: invalid or unsupported Perl syntax: `(?i`)x",
     R"x((?i)x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: invalid or unsupported Perl syntax: `(?z`)x",
     R"x((?z))x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: trailing backslash at end of expression: ``)x",
     R"x(\)x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: invalid escape sequence: `\8`)x",
     R"x(\8)x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: invalid escape sequence: `\C`)x",
     R"x(\C)x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: invalid escape sequence: `\C`)x",
     R"x([\C])x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: invalid escape sequence: `\Z`)x",
     R"x(\Z)x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: invalid character class range: `\p{Foo}`)x",
     R"x(\p{Foo})x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: invalid character class range: `[:foo:]`)x",
     R"x([[:foo:]])x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: invalid named capture: `(?P<>`)x",
     R"x((?P<>a))x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: invalid named capture: `(?P<n`)x",
     R"x((?P<n)x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: invalid named capture: `(?<n!>`)x",
     R"x((?<n!>a))x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: invalid named capture: `(?<b`)x",
     R"x((?P<a>x)(?<b)x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: invalid repeat count: `{2,1001}`)x",
     R"x(a{2,1001})x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: missing closing ): `((a)`)x",
     R"x(((a))x"},
    {R"x("abc".findAll(p, 2))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: missing closing ): `((`)x",
     R"x((()x"},
    {R"x("abc".find(p))x", R"x("")x", "string", nullptr, R"x(\Qa(\E)x"},
    {R"x("a(c".find(p))x", R"x("a(")x", "string", nullptr, R"x(\Qa(\E)x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: invalid or unsupported Perl syntax: `(?P`)x",
     R"x((?P>a))x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: invalid nested repetition operator: `++`)x",
     R"x(x++)x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: invalid or unsupported Perl syntax: `(?P`)x",
     R"x((?P=n))x"},
    {R"x("abc".find(p))x", nullptr, nullptr,
     R"x(Illegal regex: error parsing regexp: invalid character class range: `a-\\`)x",
     R"x([a-\\d])x"},
    {R"x("aaa".find("(?U)a+"))x", R"x("a")x", "string", nullptr},
    {R"x("a\nb".find("(?s)a.b"))x", R"x("a\nb")x", "string", nullptr},
    {R"x("a\nb".find("a.b"))x", R"x("")x", "string", nullptr},
    {R"x("x٣y".find(r"\d"))x", R"x("")x", "string", nullptr},
    {R"x("x٣y".find(r"\pN"))x", R"x("٣")x", "string", nullptr},
    {R"x("héllo wörld".findAll(r"\w+"))x", R"x(["h","llo","w","rld"])x", "list",
     nullptr},
    {R"x("\u212a".find("(?i)k"))x", R"x("K")x", "string", nullptr},
    {R"x("ǅ".find("(?i)ǆ"))x", R"x("ǅ")x", "string", nullptr},
    {R"x("abc".find(r"[[:^alpha:]]"))x", R"x("")x", "string", nullptr},
    {R"x("a1".find(r"[[:^alpha:]]"))x", R"x("1")x", "string", nullptr},
    {R"x("aaa".findAll("a", 2))x", R"x(["a","a"])x", "list", nullptr},
    {R"x("aaaa".findAll("aa"))x", R"x(["aa","aa"])x", "list", nullptr},
    {R"x("abcabc".findAll("(a)(b)"))x", R"x(["ab","ab"])x", "list", nullptr},
    {R"x("one two  three".findAll(r"\S+"))x", R"x(["one","two","three"])x",
     "list", nullptr},
    {R"x("line1\nline2".findAll("(?m)^line.$"))x", R"x(["line1","line2"])x",
     "list", nullptr},
    {R"x("αβγ".findAll(""))x", R"x(["","","",""])x", "list", nullptr},
    {R"x("ab".findAll(r"\b"))x", R"x(["",""])x", "list", nullptr},
    {R"x("foo.bar@example.com".find(r"[a-z.]+@[a-z]+\.[a-z]{2,}"))x",
     R"x("foo.bar@example.com")x", "string", nullptr},
    {R"x("x".findAll("x|", -1))x", R"x(["x"])x", "list", nullptr},
    {R"x("xyz".find("(?i)XYZ"))x", R"x("xyz")x", "string", nullptr},
    {R"x("a+b".find(r"a\+b"))x", R"x("a+b")x", "string", nullptr},
    {R"x("tab\there".find(r"\t"))x", R"x("\t")x", "string", nullptr},
    {R"x("caféx".find(r"\x{e9}"))x", R"x("é")x", "string", nullptr},
    {R"x("ab".find(r"\Aa"))x", R"x("a")x", "string", nullptr},
    {R"x("ab".find(r"b\z"))x", R"x("b")x", "string", nullptr},
};

TEST_F(RegexLibraryTest, MatchesTheReference) {
  for (const OracleCase& c : kOracleCases) {
    SCOPED_TRACE(c.expr + std::string(c.p ? " with p = " : "") +
                 (c.p ? c.p : ""));
    Value v = Run(c.expr, c.p).value;
    if (c.json == nullptr) {
      ASSERT_TRUE(v.is_error()) << v.DebugString();
      EXPECT_EQ(v.error_message(), c.error);
      continue;
    }
    ASSERT_FALSE(v.is_error()) << v.error_message();
    EXPECT_EQ(testing::OracleJson(v), nlohmann::json::parse(c.json));
    EXPECT_EQ(v.TypeName(), c.type);
  }
}

TEST_F(RegexLibraryTest, ConstantPatternsAreCompiledOnceAndReportedAtRuntime) {
  // The reference rejects an invalid constant pattern when the program is
  // built ("error parsing regexp: missing closing ): `(`"); here the
  // planned call yields that error, with the runtime prefix.
  Value v = Run("'abc'.find('(')").value;
  ASSERT_TRUE(v.is_error());
  EXPECT_EQ(v.error_message(),
            "Illegal regex: error parsing regexp: missing closing ): `(`");
  EXPECT_EQ(Run("'x1y22'.findAll('[0-9]+', 5)").value.DebugString(),
            "[\"1\", \"22\"]");
}

TEST_F(RegexLibraryTest, GoRegexpErrorText) {
  EXPECT_EQ(GoRegexpError("a+"), "");
  EXPECT_EQ(GoRegexpError("(?P<n>a)(?P<n>b)"), "");
  EXPECT_EQ(GoRegexpError(R"(\Q\C\E)"), "");
  EXPECT_EQ(GoRegexpError("[a"),
            "error parsing regexp: missing closing ]: `[a`");
  EXPECT_EQ(GoRegexpError("(?P<x"),
            "error parsing regexp: invalid named capture: `(?P<x`");
}

// Runtime costs the reference charges (measured with its cost limit).
struct CostCase {
  const char* expr;
  uint64_t cost;
};
const CostCase kCostCases[] = {
    {R"x("abcdefghijklmnopqrstuvwxyz".find("[a-z]+"))x", 6},
    {R"x("abcdefghijklmnopqrstuvwxyz".findAll("[a-z]"))x", 6},
    {R"x("abcdefghijklmnopqrstuvwxyz".findAll("[a-z]", 2))x", 6},
    {R"x("".find(""))x", 0},
    {R"x("é".find("é+"))x", 1},
};

TEST_F(RegexLibraryTest, CostsMatchTheReference) {
  for (const CostCase& c : kCostCases) {
    EXPECT_EQ(Run(c.expr).actual_cost, c.cost) << c.expr;
  }
}

}  // namespace
}  // namespace draplane::cel::internal
