#include "cel/internal/parser.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cel/internal/ast.h"
#include "cel/internal/lexer.h"
#include "cel/testing/text_proto.h"
#include "gtest/gtest.h"
#include "testing/shared_test_data.h"

namespace draplane::cel::internal {
namespace {

// The debug rendering of `source`'s AST, or the error message.
std::string P(std::string_view source, const ParserOptions& options = {},
              bool with_positions = false) {
  absl::StatusOr<ParsedExpr> parsed = Parse(source, options);
  if (!parsed.ok()) return std::string(parsed.status().message());
  return DebugString(*parsed->root, with_positions);
}

std::string Err(std::string_view source, const ParserOptions& options = {}) {
  absl::StatusOr<ParsedExpr> parsed = Parse(source, options);
  if (parsed.ok()) return "OK: " + DebugString(*parsed->root);
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(parsed.status().message());
}

constexpr char kExpectExpr[] =
    "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, "
    "NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

// ---------------------------------------------------------------------------
// (b) Exact trees. Ids and positions follow cel-go's parser (see parser.h).

TEST(ParserTreeTest, Literals) {
  EXPECT_EQ(P("42"), "42#1");
  EXPECT_EQ(P("0u"), "0u#1");
  EXPECT_EQ(P("0xFFu"), "255u#1");
  EXPECT_EQ(P("0x7fffffffffffffff"), "9223372036854775807#1");
  EXPECT_EQ(P("-0x8000000000000000"), "-9223372036854775808#1");
  EXPECT_EQ(P("-9223372036854775808"), "-9223372036854775808#1");
  EXPECT_EQ(P("18446744073709551615u"), "18446744073709551615u#1");
  EXPECT_EQ(P("23.39"), "23.39#1");
  EXPECT_EQ(P(".5"), "0.5#1");
  EXPECT_EQ(P("5e3"), "5000.0#1");
  EXPECT_EQ(P("1.5e-3"), "0.0015#1");
  EXPECT_EQ(P("2E+2"), "200.0#1");
  EXPECT_EQ(P("-4.1"), "-4.1#1");
  EXPECT_EQ(P("true"), "true#1");
  EXPECT_EQ(P("false"), "false#1");
  EXPECT_EQ(P("null"), "null#1");
  EXPECT_EQ(P("\"A\""), "\"A\"#1");
  EXPECT_EQ(P("b\"abc\" + B\"def\""), "(_+_ b\"abc\"#1 b\"def\"#3)#2");
}

TEST(ParserTreeTest, NumberLexing) {
  // "1." is int 1 followed by '.', so a selection is expected.
  EXPECT_EQ(P("1.u"), "1#1.u#2");
  // "0x" with no hex digit is int 0 followed by identifier x.
  EXPECT_EQ(Err("0x"),
            "ERROR: <input>:1:2: Syntax error: extraneous input 'x' expecting "
            "<EOF>\n | 0x\n | .^");
  // '.' directly followed by a digit starts a double (ANTLR longest match).
  EXPECT_EQ(Err("a.5"),
            "ERROR: <input>:1:2: Syntax error: extraneous input '.5' expecting "
            "<EOF>\n | a.5\n | .^");
}

TEST(ParserTreeTest, StringEscapes) {
  EXPECT_EQ(P(R"('\a\b\f\n\r\t\v\\\?\"\'\`\x41\X42\u00e9\U0001F600\101\377')"),
            "\"\\x07\\x08\\x0c\\n\\r\\t\\x0b\\\\?\\\"'`ABé😀Aÿ\"#1");
  // In bytes, \x and octal escapes are octets, \u is UTF-8, other
  // characters contribute their UTF-8 encoding.
  EXPECT_EQ(P(R"(b'\xff\377\u00e9ÿ\000')"),
            "b\"\\xff\\xff\\xc3\\xa9\\xc3\\xbf\\x00\"#1");
  EXPECT_EQ(P(R"(r'\n' + R"\t")"), "(_+_ \"\\\\n\"#1 \"\\\\t\"#3)#2");
  EXPECT_EQ(P(R"(br'\x' + bR"\n")"), "(_+_ b\"\\\\x\"#1 b\"\\\\n\"#3)#2");
  EXPECT_EQ(P("'''a\nb''' + \"\"\"c\"'d\"\"\""),
            "(_+_ \"a\\nb\"#1 \"c\\\"'d\"#3)#2");
  // Newlines in literals are normalized to \n (cel-go unescape.go).
  EXPECT_EQ(P("'''a\r\nb\rc'''"), "\"a\\nb\\nc\"#1");
  EXPECT_EQ(P("r'''a\r\nb'''"), "\"a\\nb\"#1");
  // Invalid UTF-8 in the source reads as U+FFFD, one per bad byte.
  EXPECT_EQ(P("'\xff\xfe'"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\"#1");
}

TEST(ParserTreeTest, PrecedenceAndAssociativity) {
  EXPECT_EQ(P("a + b * c - d"), "(_-_ (_+_ a#1 (_*_ b#3 c#5)#4)#2 d#7)#6");
  EXPECT_EQ(P("a % b / c * d"), "(_*_ (_/_ (_%_ a#1 b#3)#2 c#5)#4 d#7)#6");
  EXPECT_EQ(P("1 + 2 * 3 - 1 / 2 == 6 % 1"),
            "(_==_ (_-_ (_+_ 1#1 (_*_ 2#3 3#5)#4)#2 (_/_ 1#7 2#9)#8)#6 "
            "(_%_ 6#11 1#13)#12)#10");
  EXPECT_EQ(P("1 < 2 <= 3 > 4 >= 5 == 6 != 7"),
            "(_!=_ (_==_ (_>=_ (_>_ (_<=_ (_<_ 1#1 2#3)#2 3#5)#4 4#7)#6 "
            "5#9)#8 6#11)#10 7#13)#12");
  EXPECT_EQ(P("a in b"), "(@in a#1 b#3)#2");
  EXPECT_EQ(P("false && !true || false ? 2 : 3"),
            "(_?_:_ (_||_ (_&&_ false#1 (!_ true#3)#2)#4 false#5)#6 2#8 "
            "3#9)#7");
  // ?: is right-associative; its true branch is a conditionalOr.
  EXPECT_EQ(P("a ? b : c ? d : e"), "(_?_:_ a#1 b#3 (_?_:_ c#4 d#6 e#7)#5)#2");
  EXPECT_EQ(P("a && b || c && d"),
            "(_||_ (_&&_ a#1 b#2)#3 (_&&_ c#4 d#5)#6)#7");
}

TEST(ParserTreeTest, LogicalChainsAreBalanced) {
  // cel-go parser_test.go expectations.
  EXPECT_EQ(P("a || b || c || d || e || f"),
            "(_||_ (_||_ (_||_ a#1 b#2)#3 c#4)#5 "
            "(_||_ (_||_ d#6 e#8)#9 f#10)#11)#7");
  EXPECT_EQ(P("a && b && c && d && e && f && g"),
            "(_&&_ (_&&_ (_&&_ a#1 b#2)#3 (_&&_ c#4 d#6)#7)#5 "
            "(_&&_ (_&&_ e#8 f#10)#11 g#12)#13)#9");
}

TEST(ParserTreeTest, Unary) {
  EXPECT_EQ(P("!a"), "(!_ a#2)#1");
  EXPECT_EQ(P("!!a"), "a#1");
  EXPECT_EQ(P("!!!a"), "(!_ a#2)#1");
  EXPECT_EQ(P("-a"), "(-_ a#2)#1");
  EXPECT_EQ(P("--a"), "a#1");
  EXPECT_EQ(P("-1"), "-1#1");
  EXPECT_EQ(P("--1"), "1#1");
  EXPECT_EQ(P("---1"), "(-_ 1#2)#1");
  EXPECT_EQ(P("4--4"), "(_-_ 4#1 -4#3)#2");
  EXPECT_EQ(P("!-1"), "(!_ -1#2)#1");
  EXPECT_EQ(P("-1.size()"), "-1#1.(size)#2");
  EXPECT_EQ(P("-x.size()"), "(-_ x#2.(size)#3)#1");
  // The grammar has no `!` directly before `-x` or vice versa.
  EXPECT_EQ(
      Err("!-x"),
      "ERROR: <input>:1:2: Syntax error: mismatched input '-' expecting " +
          std::string(kExpectExpr) + "\n | !-x\n | .^");
}

TEST(ParserTreeTest, MemberSelectCallIndex) {
  EXPECT_EQ(P("a.b.c"), "a#1.b#2.c#3");
  EXPECT_EQ(P("a.b(c, d)"), "a#1.(b c#3 d#4)#2");
  EXPECT_EQ(P("f()"), "(f)#1");
  EXPECT_EQ(P("f(x, y)"), "(f x#2 y#3)#1");
  EXPECT_EQ(P("size(x) == x.size()"), "(_==_ (size x#2)#1 x#4.(size)#5)#3");
  EXPECT_EQ(P("a[b][c]"), "(_[_] (_[_] a#1 b#3)#2 c#5)#4");
  EXPECT_EQ(P("x[\"a\"].single_int32 == 23"),
            "(_==_ (_[_] x#1 \"a\"#3)#2.single_int32#4 23#6)#5");
  // Reserved words are fine as selectors and receiver function names.
  EXPECT_EQ(P("x.package() + y.as"), "(_+_ x#1.(package)#2 y#4.as#5)#3");
  EXPECT_EQ(P("{'if': 1}.if"), "{\"if\"#3:1#4@2}#1.if#5");
}

TEST(ParserTreeTest, LeadingDot) {
  EXPECT_EQ(P(".a.b"), ".a#1.b#2");
  EXPECT_EQ(P(".f(x)"), "(.f x#2)#1");
  EXPECT_EQ(P(".a", {}, true), ".a#1@1");
}

TEST(ParserTreeTest, Aggregates) {
  EXPECT_EQ(P("[]"), "[]#1");
  EXPECT_EQ(P("[] + [1,2,3,] + [4]"),
            "(_+_ (_+_ []#1 [1#4 2#5 3#6]#3)#2 [4#9]#8)#7");
  EXPECT_EQ(P("[1,2,3,]"), "[1#2 2#3 3#4]#1");
  EXPECT_EQ(P("{}"), "{}#1");
  EXPECT_EQ(P("{a:b, c:d,}"), "{a#3:b#4@2 c#6:d#7@5}#1");
  EXPECT_EQ(P("{1:2u, 2:3u}"), "{1#3:2u#4@2 2#6:3u#7@5}#1");
  // A qualified name followed by '{' is a message construction.
  EXPECT_EQ(P("TestAllTypes{single_int32: 1, single_int64: 2,}"),
            "TestAllTypes{single_int32:1#3@2 single_int64:2#5@4}#1");
  EXPECT_EQ(P("pkg.Msg{}"), "pkg.Msg{}#1");
  EXPECT_EQ(P(".pkg.Msg{f: 1}.f"), ".pkg.Msg{f:1#3@2}#1.f#4");
  EXPECT_EQ(P("Msg{as: true, break: false}"),
            "Msg{as:true#3@2 break:false#5@4}#1");
  EXPECT_EQ(
      P("[ . cel. expr .conformance. proto3. TestAllTypes { single_int64 : 1 "
        "} ]"),
      "[.cel.expr.conformance.proto3.TestAllTypes{single_int64:1#4@3}#2]#1");
}

TEST(ParserTreeTest, Positions) {
  // Operators at the operator token, calls at '(', selections at '.',
  // aggregates at their bracket, entries at ':'.
  EXPECT_EQ(P("a + b.c(d)[0]", {}, true),
            "(_+_ a#1@0 (_[_] b#3@4.(c d#5@8)#4@7 0#7@11)#6@10)#2@2");
  EXPECT_EQ(P("{k: [v]}", {}, true), "{k#3@1:[v#5@5]#4@4@2@2}#1@0");
  EXPECT_EQ(P("M{f: -1}", {}, true), "M{f:-1#3@5@2@3}#1@1");
  // Code points, not bytes.
  EXPECT_EQ(P("'é' + x", {}, true), "(_+_ \"é\"#1@0 x#3@6)#2@4");
  EXPECT_EQ(P("a\n  .b", {}, true), "a#1@0.b#2@4");
}

TEST(ParserTreeTest, OptionalSyntax) {
  EXPECT_EQ(P("a.?b"), "(_?._ a#1 \"b\"#2)#3");
  EXPECT_EQ(P("a.?b", {}, true), "(_?._ a#1@0 \"b\"#2@3)#3@1");
  EXPECT_EQ(P("a[?b]"), "(_[?_] a#1 b#3)#2");
  EXPECT_EQ(P("[1, ?x, 3, ?y]"), "[1#2 ?x#3 3#4 ?y#5]#1");
  EXPECT_EQ(P("{a: 1, ?b: 2}"), "{a#3:1#4@2 ?b#6:2#7@5}#1");
  EXPECT_EQ(P("Msg{?f: 1}"), "Msg{?f:1#3@2}#1");
  EXPECT_EQ(P("a.?b.c.?d[?0].orValue(1)"),
            "(_[?_] (_?._ (_?._ a#1 \"b\"#2)#3.c#4 \"d\"#5)#6 "
            "0#8)#7.(orValue 1#10)#9");
  ParserOptions no_opt;
  no_opt.enable_optional_syntax = false;
  EXPECT_EQ(Err("a.?b", no_opt),
            "ERROR: <input>:1:2: unsupported syntax '.?'\n | a.?b\n | .^");
  EXPECT_EQ(Err("a[?b]", no_opt),
            "ERROR: <input>:1:2: unsupported syntax '[?'\n | a[?b]\n | .^");
  EXPECT_EQ(Err("[?b]", no_opt),
            "ERROR: <input>:1:2: unsupported syntax '?'\n | [?b]\n | .^");
  EXPECT_EQ(Err("{?b: 1}", no_opt),
            "ERROR: <input>:1:2: unsupported syntax '?'\n | {?b: 1}\n | .^");
}

TEST(ParserTreeTest, QuotedIdentifiers) {
  ParserOptions quoted;
  quoted.enable_quoted_identifiers = true;
  EXPECT_EQ(P("a.`content-type`", quoted), "a#1.content-type#2");
  EXPECT_EQ(P("a.?`b.c/d e`", quoted), "(_?._ a#1 \"b.c/d e\"#2)#3");
  EXPECT_EQ(P("Msg{`a-b`: 2}", quoted), "Msg{a-b:2#3@2}#1");
  EXPECT_EQ(Err("a.`b`"),
            "ERROR: <input>:1:3: unsupported syntax '`'\n | a.`b`\n | ..^");
  // Not a receiver function name.
  EXPECT_EQ(Err("a.`b`()", quoted),
            "ERROR: <input>:1:6: Syntax error: mismatched input '(' "
            "expecting <EOF>\n | a.`b`()\n | .....^");
}

TEST(ParserTreeTest, HasMacro) {
  EXPECT_EQ(P("has(m.f)"), "has(m#2.f)#4");
  EXPECT_EQ(P("has(m.f)", {}, true), "has(m#2@4.f)#4@3");
  EXPECT_EQ(P("has(a.b.c)"), "has(a#2.b#3.c)#5");
}

TEST(ParserTreeTest, ComprehensionMacros) {
  EXPECT_EQ(P("m.all(x, x > 0)"),
            "(fold x m#1 @result true#7 (@not_strictly_false @result#8)#9 "
            "(_&&_ @result#10 (_>_ x#4 0#6)#5)#11 @result#12)#13");
  EXPECT_EQ(P("m.exists(x, p)"),
            "(fold x m#1 @result false#5 (@not_strictly_false (!_ "
            "@result#6)#7)#8 (_||_ @result#9 p#4)#10 @result#11)#12");
  const std::string exists_one =
      "(fold v m#1 @result 0#5 true#6 (_?_:_ f#4 (_+_ @result#7 1#8)#9 "
      "@result#10)#11 (_==_ @result#12 1#13)#14)#15";
  EXPECT_EQ(P("m.exists_one(v, f)"), exists_one);
  EXPECT_EQ(P("m.existsOne(v, f)"), exists_one);
  EXPECT_EQ(P("m.map(v, f)"),
            "(fold v m#1 @result []#5 true#6 (_+_ @result#7 [f#4]#8)#9 "
            "@result#10)#11");
  EXPECT_EQ(P("m.map(v, p, f)"),
            "(fold v m#1 @result []#6 true#7 (_?_:_ p#4 (_+_ @result#8 "
            "[f#5]#9)#10 @result#11)#12 @result#13)#14");
  EXPECT_EQ(P("m.filter(v, p)"),
            "(fold v m#1 @result []#5 true#6 (_?_:_ p#4 (_+_ @result#7 "
            "[v#3]#8)#9 @result#10)#11 @result#12)#13");
  // Macro nodes take the position of the call's '('.
  EXPECT_EQ(P("m.all(x, p)", {}, true),
            "(fold x m#1@0 @result true#5@5 (@not_strictly_false "
            "@result#6@5)#7@5 (_&&_ @result#8@5 p#4@9)#9@5 @result#10@5)#11@5");
  // Nested macros expand inside out.
  EXPECT_EQ(P("[[1]].all(l, l.exists(e, e == 1))"),
            "(fold l [[1#3]#2]#1 @result true#20 (@not_strictly_false "
            "@result#21)#22 (_&&_ @result#23 (fold e l#6 @result false#12 "
            "(@not_strictly_false (!_ @result#13)#14)#15 (_||_ @result#16 "
            "(_==_ e#9 1#11)#10)#17 @result#18)#19)#24 @result#25)#26");
}

TEST(ParserTreeTest, BindMacro) {
  EXPECT_EQ(P("cel.bind(x, 1, x + 1)"),
            "(fold #unused []#8 x 1#4 false#9 x#10 (_+_ x#5 1#7)#6)#11");
  // Only the `cel` namespace triggers the macro.
  EXPECT_EQ(P("foo.bind(x, 1, x)"), "foo#1.(bind x#3 1#4 x#5)#2");
  EXPECT_EQ(P(".cel.bind(x, 1, x)"), ".cel#1.(bind x#3 1#4 x#5)#2");
  ParserOptions no_bind;
  no_bind.enable_bind_macro = false;
  EXPECT_EQ(P("cel.bind(x, 1, x)", no_bind), "cel#1.(bind x#3 1#4 x#5)#2");
}

TEST(ParserTreeTest, TwoVariableComprehensions) {
  EXPECT_EQ(P("m.all(k, v, p)"),
            "(fold k,v m#1 @result true#6 (@not_strictly_false @result#7)#8 "
            "(_&&_ @result#9 p#5)#10 @result#11)#12");
  EXPECT_EQ(P("m.exists(k, v, p)"),
            "(fold k,v m#1 @result false#6 (@not_strictly_false (!_ "
            "@result#7)#8)#9 (_||_ @result#10 p#5)#11 @result#12)#13");
  EXPECT_EQ(P("m.existsOne(k, v, p)"),
            "(fold k,v m#1 @result 0#6 true#7 (_?_:_ p#5 (_+_ @result#8 "
            "1#9)#10 @result#11)#12 (_==_ @result#13 1#14)#15)#16");
  EXPECT_EQ(P("m.transformList(i, v, t)"),
            "(fold i,v m#1 @result []#9 true#10 (_+_ @result#6 [t#5]#7)#8 "
            "@result#11)#12");
  EXPECT_EQ(P("m.transformList(i, v, p, t)"),
            "(fold i,v m#1 @result []#12 true#13 (_?_:_ p#5 (_+_ @result#7 "
            "[t#6]#8)#9 @result#10)#11 @result#14)#15");
  EXPECT_EQ(P("m.transformMap(k, v, t)"),
            "(fold k,v m#1 @result {}#9 true#10 (cel.@mapInsert @result#6 "
            "k#7 t#5)#8 @result#11)#12");
  EXPECT_EQ(P("m.transformMapEntry(k, v, {k: v})"),
            "(fold k,v m#1 @result {}#11 true#12 (cel.@mapInsert @result#9 "
            "{k#7:v#8@6}#5)#10 @result#13)#14");
  ParserOptions no_two_var;
  no_two_var.enable_two_var_comprehensions = false;
  EXPECT_EQ(P("m.all(k, v, p)", no_two_var), "m#1.(all k#3 v#4 p#5)#2");
}

TEST(ParserTreeTest, MacrosDisabledOrNotMatching) {
  ParserOptions no_macros;
  no_macros.enable_macros = false;
  EXPECT_EQ(P("has(m.f)", no_macros), "(has m#2.f#3)#1");
  EXPECT_EQ(P("m.all(x, p)", no_macros), "m#1.(all x#3 p#4)#2");
  EXPECT_EQ(P("cel.bind(x, 1, x)", no_macros), "cel#1.(bind x#3 1#4 x#5)#2");
  // Wrong arity or style: ordinary calls.
  EXPECT_EQ(P("has(a.b, c)"), "(has a#2.b#3 c#4)#1");
  EXPECT_EQ(P("all(x, p)"), "(all x#2 p#3)#1");
  EXPECT_EQ(P("m.filter(x)"), "m#1.(filter x#3)#2");
  EXPECT_EQ(P("m.has(x.y)"), "m#1.(has x#3.y#4)#2");
}

// ---------------------------------------------------------------------------
// (c) Errors: exact messages and positions.

TEST(ParserErrorTest, CelGoShapes) {
  EXPECT_EQ(
      Err("a + + "),
      "ERROR: <input>:1:5: Syntax error: mismatched input '+' expecting " +
          std::string(kExpectExpr) + "\n | a + + \n | ....^");
  // The next three are cel-go parser_test.go expectations verbatim.
  EXPECT_EQ(Err("1 + $"),
            "ERROR: <input>:1:5: Syntax error: token recognition error at: "
            "'$'\n | 1 + $\n | ....^\n"
            "ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' "
            "expecting " +
                std::string(kExpectExpr) + "\n | 1 + $\n | .....^");
  EXPECT_EQ(Err("a | b"),
            "ERROR: <input>:1:3: Syntax error: token recognition error at: "
            "'| '\n | a | b\n | ..^\n"
            "ERROR: <input>:1:5: Syntax error: extraneous input 'b' expecting "
            "<EOF>\n | a | b\n | ....^");
  EXPECT_EQ(Err("1 + 2\n3 +"),
            "ERROR: <input>:2:1: Syntax error: mismatched input '3' expecting "
            "<EOF>\n | 3 +\n | ^");
  EXPECT_EQ(Err("1.all(2, 3)"),
            "ERROR: <input>:1:7: argument must be a simple name\n"
            " | 1.all(2, 3)\n | ......^");
}

TEST(ParserErrorTest, Tokens) {
  EXPECT_EQ(Err("(a b)"),
            "ERROR: <input>:1:4: Syntax error: extraneous input 'b' expecting "
            "')'\n | (a b)\n | ...^");
  EXPECT_EQ(Err("{a 1}"),
            "ERROR: <input>:1:4: Syntax error: mismatched input '1' expecting "
            "':'\n | {a 1}\n | ...^");
  EXPECT_EQ(Err("[1 2 3]"),
            "ERROR: <input>:1:4: Syntax error: mismatched input '2' expecting "
            "{',', ']'}\n | [1 2 3]\n | ...^");
  EXPECT_EQ(
      Err("f(a,)"),
      "ERROR: <input>:1:5: Syntax error: mismatched input ')' expecting " +
          std::string(kExpectExpr) + "\n | f(a,)\n | ....^");
  EXPECT_EQ(Err("a.true"),
            "ERROR: <input>:1:3: Syntax error: mismatched input 'true' "
            "expecting IDENTIFIER\n | a.true\n | ..^");
  EXPECT_EQ(Err("a ? b ? c : d : e"),
            "ERROR: <input>:1:7: Syntax error: mismatched input '?' expecting "
            "':'\n | a ? b ? c : d : e\n | ......^");
  EXPECT_EQ(Err("Msg{1: 2}"),
            "ERROR: <input>:1:5: Syntax error: mismatched input '1' expecting "
            "IDENTIFIER\n | Msg{1: 2}\n | ....^");
  EXPECT_EQ(Err(""),
            "ERROR: <input>:1:1: Syntax error: mismatched input '<EOF>' "
            "expecting " +
                std::string(kExpectExpr) + "\n | \n | ^");
  EXPECT_EQ(Err("x & y"),
            "ERROR: <input>:1:3: Syntax error: token recognition error at: "
            "'& '\n | x & y\n | ..^\n"
            "ERROR: <input>:1:5: Syntax error: extraneous input 'y' expecting "
            "<EOF>\n | x & y\n | ....^");
  // Comments run to the end of the line only.
  EXPECT_EQ(P("1 // one\n + 2"), "(_+_ 1#1 2#3)#2");
  // \v is not whitespace in CEL.
  EXPECT_EQ(Err("1\v"),
            "ERROR: <input>:1:2: Syntax error: token recognition error at: "
            "'\v'\n | 1\v\n | .^");
}

TEST(ParserErrorTest, Literals) {
  EXPECT_EQ(Err("9223372036854775808"),
            "ERROR: <input>:1:1: invalid int literal\n"
            " | 9223372036854775808\n | ^");
  EXPECT_EQ(Err("--9223372036854775808"),
            "ERROR: <input>:1:3: invalid int literal\n"
            " | --9223372036854775808\n | ..^");
  EXPECT_EQ(Err("18446744073709551616u"),
            "ERROR: <input>:1:1: invalid uint literal\n"
            " | 18446744073709551616u\n | ^");
  EXPECT_EQ(Err("x + 1e400"),
            "ERROR: <input>:1:5: invalid double literal\n"
            " | x + 1e400\n | ....^");
  EXPECT_EQ(Err(R"("\s" + 1)"),
            "ERROR: <input>:1:1: Syntax error: token recognition error at: "
            "'\"\\s'\n | \"\\s\" + 1\n | ^");
  EXPECT_EQ(Err(R"('\x4g')"),
            "ERROR: <input>:1:1: Syntax error: token recognition error at: "
            "''\\x4g'\n | '\\x4g'\n | ^");
  EXPECT_EQ(Err(R"('\400')"),
            "ERROR: <input>:1:1: Syntax error: token recognition error at: "
            "''\\4'\n | '\\400'\n | ^");
  // Surrogates and values above U+10FFFF, in strings and bytes.
  EXPECT_EQ(Err(R"(x + "\uD800")"),
            "ERROR: <input>:1:5: invalid unicode code point\n"
            " | x + \"\\uD800\"\n | ....^");
  EXPECT_EQ(Err(R"("\uD83D\uDE00")").substr(0, 47),
            "ERROR: <input>:1:1: invalid unicode code point\n");
  EXPECT_EQ(Err(R"(b"\uDFFF")").substr(0, 47),
            "ERROR: <input>:1:1: invalid unicode code point\n");
  EXPECT_EQ(Err(R"("\U00110000")").substr(0, 47),
            "ERROR: <input>:1:1: invalid unicode code point\n");
  EXPECT_EQ(Err("'abc\ndef'"),
            "ERROR: <input>:1:1: Syntax error: token recognition error at: "
            "''abc\\n'\n | 'abc\n | ^\n"
            "ERROR: <input>:2:4: Syntax error: token recognition error at: "
            "'''\n | def'\n | ...^");
}

TEST(ParserErrorTest, IdentifiersAndMacros) {
  EXPECT_EQ(Err("if"),
            "ERROR: <input>:1:1: reserved identifier: if\n | if\n | ^");
  EXPECT_EQ(Err("x + .var(1)"),
            "ERROR: <input>:1:5: reserved identifier: var\n"
            " | x + .var(1)\n | ....^");
  EXPECT_EQ(Err("has(a)"),
            "ERROR: <input>:1:5: invalid argument to has() macro\n"
            " | has(a)\n | ....^");
  // Reported at the argument's node: an index is positioned at '['.
  EXPECT_EQ(Err("has(a[0])"),
            "ERROR: <input>:1:6: invalid argument to has() macro\n"
            " | has(a[0])\n | .....^");
  EXPECT_EQ(Err("x.map(1, y)"),
            "ERROR: <input>:1:7: argument is not an identifier\n"
            " | x.map(1, y)\n | ......^");
  EXPECT_EQ(Err("x.filter(a.b, y)"),
            "ERROR: <input>:1:11: argument is not an identifier\n"
            " | x.filter(a.b, y)\n | ..........^");
  EXPECT_EQ(Err("m.all(__result__, 1)"),
            "ERROR: <input>:1:7: iteration variable overwrites accumulator "
            "variable\n | m.all(__result__, 1)\n | ......^");
  EXPECT_EQ(Err("m.all(k, k, 1)"),
            "ERROR: <input>:1:10: duplicate variable name: k\n"
            " | m.all(k, k, 1)\n | .........^");
  EXPECT_EQ(Err("m.transformMap(k, 1, 1)"),
            "ERROR: <input>:1:19: argument must be a simple name\n"
            " | m.transformMap(k, 1, 1)\n | ..................^");
  EXPECT_EQ(Err("cel.bind(a.b, 1, 2)"),
            "ERROR: <input>:1:11: cel.bind() variable names must be simple "
            "identifiers\n | cel.bind(a.b, 1, 2)\n | ..........^");
  // Several errors are reported, sorted by position.
  EXPECT_EQ(Err("has(a) || if || x.all(1, 2)"),
            "ERROR: <input>:1:5: invalid argument to has() macro\n"
            " | has(a) || if || x.all(1, 2)\n | ....^\n"
            "ERROR: <input>:1:11: reserved identifier: if\n"
            " | has(a) || if || x.all(1, 2)\n | ..........^\n"
            "ERROR: <input>:1:23: argument must be a simple name\n"
            " | has(a) || if || x.all(1, 2)\n | ......................^");
}

TEST(ParserErrorTest, WideCharactersInCaretLine) {
  // Multi-byte code points render as U+FF0E / U+FF3E (cel-go common/error.go).
  EXPECT_EQ(
      Err("'😁' + in"),
      "ERROR: <input>:1:7: Syntax error: mismatched input 'in' expecting " +
          std::string(kExpectExpr) + "\n | '😁' + in\n | .．....^");
  EXPECT_EQ(Err("a + 😁"),
            "ERROR: <input>:1:5: Syntax error: token recognition error at: "
            "'😁'\n | a + 😁\n | ....＾\n"
            "ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' "
            "expecting " +
                std::string(kExpectExpr) + "\n | a + 😁\n | ....．^");
}

TEST(ParserErrorTest, Limits) {
  ParserOptions small;
  small.expression_size_code_point_limit = 5;
  EXPECT_EQ(Err("1 + 2 + 3", small),
            "ERROR: <input>:-1:0: expression code point size exceeds limit: "
            "size: 9, limit 5");
  // Code points, not bytes.
  EXPECT_EQ(P("'ééé'", small), "\"ééé\"#1");

  // Depth: the top-level expression is level 1, each '(' adds one.
  ParserOptions depth;
  depth.max_recursion_depth = 5;
  EXPECT_EQ(P("((((1))))", depth), "1#1");
  EXPECT_EQ(Err("(((((1)))))", depth),
            "ERROR: <input>:1:6: expression recursion limit exceeded: 5\n"
            " | (((((1)))))\n | .....^");
  EXPECT_EQ(P("1 + 2 + 3 + 4 + 5", depth).substr(0, 4), "(_+_");
  EXPECT_EQ(Err("1 + 2 + 3 + 4 + 5 + 6", depth).substr(0, 60),
            "ERROR: <input>:1:19: expression recursion limit exceeded: 5\n");
  EXPECT_EQ(Err("a.b.c.d.e.f", depth).substr(0, 60),
            "ERROR: <input>:1:10: expression recursion limit exceeded: 5\n");
  // Logical chains are balanced trees and do not count per term.
  EXPECT_EQ(P("a || b || c || d || e || f || g || h", depth).substr(0, 5),
            "(_||_");
}

// ---------------------------------------------------------------------------
// (a) cel-spec conformance data: every expression in parse.textproto (and,
// as a smoke test, every other file) parses; literal sections also match
// their expected values.

struct ConformanceCase {
  std::string file, section, name, expr;
  bool expects_error = false;
  bool disable_macros = false;
  bool has_literal_value = false;
  bool literal_is_bytes = false;
  std::string literal_value;
};

// The tests of one cel-spec file, read with the shared text-format reader.
std::vector<ConformanceCase> LoadConformanceFile(const std::string& path,
                                                 const std::string& file) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::vector<ConformanceCase> cases;
  auto doc = testing::ParseTextProto(buffer.str());
  EXPECT_TRUE(doc.ok()) << path << ": " << doc.status();
  if (!doc.ok()) return cases;
  for (const auto* section : doc->FindAll("section")) {
    for (const auto* test : section->message->FindAll("test")) {
      const testing::TextProtoMessage& t = *test->message;
      ConformanceCase c;
      c.file = file;
      c.section = section->message->Scalar("name").value_or("");
      c.name = t.Scalar("name").value_or("");
      c.expr = t.Scalar("expr").value_or("");
      c.expects_error = t.Find("eval_error") != nullptr;
      c.disable_macros = t.Scalar("disable_macros") == "true";
      if (const auto* value = t.Message("value")) {
        for (const char* kind : {"string_value", "bytes_value"}) {
          if (auto v = value->Scalar(kind)) {
            c.has_literal_value = true;
            c.literal_is_bytes = std::string_view(kind) == "bytes_value";
            c.literal_value = *v;
          }
        }
      }
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

// The cel-spec suite in the shared test data.
std::string ConformanceDir() {
  return (draplane::testing::SharedDataDir() / "conformance" / "cel-spec")
      .string();
}

ParserOptions ConformanceOptions(const ConformanceCase& c) {
  // cel-go's conformance environment enables back-quoted identifiers.
  ParserOptions options;
  options.enable_quoted_identifiers = true;
  options.enable_macros = !c.disable_macros;
  return options;
}

TEST(ParserConformanceTest, ParseTextproto) {
  const std::string dir = ConformanceDir();
  DRAPLANE_REQUIRE_SHARED_DATA(dir + "/parse.textproto");
  std::vector<ConformanceCase> cases =
      LoadConformanceFile(dir + "/parse.textproto", "parse");
  ASSERT_GT(cases.size(), 200u);
  int literal_checks = 0;
  for (const ConformanceCase& c : cases) {
    SCOPED_TRACE(c.section + "/" + c.name + ": " + c.expr);
    absl::StatusOr<ParsedExpr> parsed = Parse(c.expr, ConformanceOptions(c));
    // No parse test expects a parse error; eval errors come later.
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    if (c.has_literal_value &&
        (c.section == "string_literals" || c.section == "bytes_literals")) {
      const ConstExpr* literal = parsed->root->As<ConstExpr>();
      ASSERT_NE(literal, nullptr);
      if (c.literal_is_bytes) {
        const auto* bytes = std::get_if<BytesValue>(&literal->value);
        ASSERT_NE(bytes, nullptr);
        EXPECT_EQ(bytes->bytes, c.literal_value);
      } else {
        const auto* str = std::get_if<std::string>(&literal->value);
        ASSERT_NE(str, nullptr);
        EXPECT_EQ(*str, c.literal_value);
      }
      ++literal_checks;
    }
  }
  EXPECT_GT(literal_checks, 140);
}

TEST(ParserConformanceTest, EveryConformanceExpressionParses) {
  const std::string dir = ConformanceDir();
  DRAPLANE_REQUIRE_SHARED_DATA(dir + "/parse.textproto");
  int total = 0;
  std::vector<std::string> failures;
  for (const char* file :
       {"basic",       "bindings_ext", "block_ext",    "comparisons",
        "conversions", "dynamic",      "encoders_ext", "enums",
        "fields",      "fp_math",      "integer_math", "lists",
        "logic",       "macros",       "macros2",      "math_ext",
        "namespace",   "network_ext",  "optionals",    "parse",
        "plumbing",    "proto2",       "proto2_ext",   "proto3",
        "string",      "string_ext",   "timestamps",   "type_deduction",
        "unknowns",    "wrappers"}) {
    for (const ConformanceCase& c :
         LoadConformanceFile(dir + "/" + file + ".textproto", file)) {
      if (c.expr.empty()) continue;
      // block_ext holds pre-optimised ASTs whose macros iterate over
      // `cel.iterVar(i, j)` instead of a simple name; cel-go accepts them
      // only through its cel.block extension, which DRA does not use.
      if (c.file == "block_ext" &&
          c.expr.find(".iterVar(") != std::string::npos) {
        continue;
      }
      ++total;
      absl::StatusOr<ParsedExpr> parsed = Parse(c.expr, ConformanceOptions(c));
      if (!parsed.ok()) {
        failures.push_back(c.file + "/" + c.section + "/" + c.name + ": " +
                           std::string(parsed.status().message()));
      }
    }
  }
  EXPECT_GT(total, 2000);
  // Expressions the suite itself expects to fail at parse time.
  const std::vector<std::string> expected_failures = {};
  EXPECT_EQ(failures, expected_failures);
}

// ---------------------------------------------------------------------------
// (d) Robustness: random and pathological inputs return quickly, without
// crashing (run under ASan/UBSan).

TEST(ParserStressTest, RandomInputs) {
  std::mt19937 rng(20240601);
  static const char* const kFragments[] = {"a",
                                           "b1",
                                           "_x",
                                           "1",
                                           "0x1F",
                                           "2u",
                                           "1.5",
                                           ".5",
                                           "1e3",
                                           "(",
                                           ")",
                                           "[",
                                           "]",
                                           "{",
                                           "}",
                                           ".",
                                           ".?",
                                           "[?",
                                           "?",
                                           ":",
                                           ",",
                                           "+",
                                           "-",
                                           "*",
                                           "/",
                                           "%",
                                           "!",
                                           "&&",
                                           "||",
                                           "==",
                                           "!=",
                                           "<",
                                           "<=",
                                           ">",
                                           ">=",
                                           "in",
                                           "true",
                                           "null",
                                           "'s'",
                                           "\"",
                                           "'''",
                                           "r'",
                                           "b'",
                                           "br\"",
                                           "\\",
                                           "\\u12",
                                           "\\x4",
                                           "`",
                                           "`f-g`",
                                           " ",
                                           "\n",
                                           "//c\n",
                                           "has(",
                                           ".all(",
                                           ".map(x,",
                                           "cel.bind(",
                                           ".exists(k,v,",
                                           "if",
                                           "-9223372036854775808",
                                           "\xff",
                                           "é",
                                           "😁",
                                           "$"};
  const auto start = std::chrono::steady_clock::now();
  int ok = 0;
  for (int i = 0; i < 100000; ++i) {
    std::string input;
    const int len = static_cast<int>(rng() % 48);
    if (i % 2 == 0) {
      for (int k = 0; k < len; ++k) input += static_cast<char>(rng() & 0xFF);
    } else {
      for (int k = 0; k < len; ++k) {
        input += kFragments[rng() % std::size(kFragments)];
      }
    }
    ParserOptions options;
    options.enable_quoted_identifiers = (i % 3 == 0);
    options.enable_optional_syntax = (i % 5 != 0);
    absl::StatusOr<ParsedExpr> parsed = Parse(input, options);
    if (parsed.ok()) {
      ++ok;
      ASSERT_NE(parsed->root, nullptr);
      DebugString(*parsed->root);
    } else {
      ASSERT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
      ASSERT_EQ(std::string(parsed.status().message()).rfind("ERROR: ", 0), 0u);
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_GT(ok, 100);  // the fragment generator does produce valid input
  EXPECT_LT(seconds, 60.0);
}

TEST(ParserStressTest, DeepAndLongInputs) {
  constexpr int kLen = 100000;
  auto repeat = [](std::string_view s, int times) {
    std::string out;
    out.reserve(s.size() * times);
    for (int i = 0; i < times; ++i) out += s;
    return out;
  };
  struct Case {
    std::string input;
    bool ok;
  };
  const std::vector<Case> cases = {
      {repeat("(", kLen), false},
      {repeat("(", kLen / 2) + "1" + repeat(")", kLen / 2 - 1), false},
      {repeat("[", kLen), false},
      {repeat("{", kLen), false},
      {repeat("{1:", kLen / 3), false},
      {repeat("!", kLen), false},
      {repeat("!", kLen - 1) + "x", true},
      {repeat("-", kLen - 1) + "1", true},
      {repeat("-", kLen - 1) + "x", true},
      {"a" + repeat(".b", kLen / 2 - 1), false},
      {"a" + repeat("[0]", kLen / 3 - 1), false},
      {"a" + repeat(".f()", kLen / 4 - 1), false},
      {repeat("f(", kLen / 2) + repeat(")", kLen / 2), false},
      {"1" + repeat("+1", kLen / 2 - 1), false},
      {"1" + repeat("<1", kLen / 2 - 1), false},
      {"a" + repeat("||a", kLen / 3 - 1), true},
      {"a" + repeat("&&a", kLen / 3 - 1), true},
      {repeat("a?a:", kLen / 4 - 1) + "a", false},
      {repeat("x.all(x,", kLen / 8), false},
      {"[" + repeat("1,", kLen / 2 - 1) + "]", true},
      {repeat("$", kLen), false},
      {repeat("'", kLen), false},
      {repeat("\"\"\"", kLen / 3), false},
      {repeat("\xff", kLen), false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.input.substr(0, 20));
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<ParsedExpr> parsed = Parse(c.input);
    EXPECT_EQ(parsed.ok(), c.ok) << parsed.status().message().substr(0, 300);
    if (parsed.ok()) {
      EXPECT_FALSE(DebugString(*parsed->root).empty());
    } else {
      // At most 10 errors are shown.
      std::string message(parsed.status().message());
      EXPECT_LE(std::count(message.begin(), message.end(), '^') +
                    std::count(message.begin(), message.end(), '\xBE'),
                10);
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    EXPECT_LT(seconds, 5.0);
  }
  // Over the size limit.
  EXPECT_FALSE(Parse(repeat("1", kLen + 1)).ok());
}

TEST(ParserStressTest, MaximumDepthOptionIsClampedAndSafe) {
  ParserOptions options;
  options.max_recursion_depth = 1 << 30;  // clamped to 500
  std::string ok_input = std::string(498, '(') + "1" + std::string(498, ')');
  EXPECT_TRUE(Parse(ok_input, options).ok());
  std::string deep = std::string(5000, '(') + "1" + std::string(5000, ')');
  absl::StatusOr<ParsedExpr> parsed = Parse(deep, options);
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find(
                "expression recursion limit exceeded: 500"),
            absl::string_view::npos);
}

// The conformance minimums of cel-spec langdef, well within the default.
TEST(ParserStressTest, SpecMinimums) {
  std::string ors = "a";
  for (int i = 0; i < 32; ++i) ors += " || a";
  EXPECT_TRUE(Parse(ors).ok());
  std::string args = "f(";
  for (int i = 0; i < 32; ++i) args += i ? ", 1" : "1";
  EXPECT_TRUE(Parse(args + ")").ok());
  std::string conds;
  for (int i = 0; i < 24; ++i) conds += "a ? b : ";
  EXPECT_TRUE(Parse(conds + "c").ok());
  std::string adds = "1";
  for (int i = 0; i < 24; ++i) adds += " + 1";
  EXPECT_TRUE(Parse(adds).ok());
  EXPECT_TRUE(Parse(std::string(12, '[') + std::string(12, ']')).ok());
  std::string calls;
  for (int i = 0; i < 12; ++i) calls += "f(";
  EXPECT_TRUE(Parse(calls + "1" + std::string(12, ')')).ok());
}

TEST(ParsedExprTest, SourceAndLineOffsets) {
  absl::StatusOr<ParsedExpr> parsed = Parse("a +\n b\n+ c");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->source, "a +\n b\n+ c");
  EXPECT_EQ(parsed->line_offsets, (std::vector<int32_t>{0, 4, 7}));
  EXPECT_EQ(FormatError(parsed->source, 5, "boom"),
            "ERROR: <input>:2:2: boom\n |  b\n | .^");
  EXPECT_EQ(FormatError(parsed->source, 100, "end"),
            "ERROR: <input>:3:4: end\n | + c\n | ...^");
}

}  // namespace
}  // namespace draplane::cel::internal
