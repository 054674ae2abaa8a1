#include "cel/internal/interpreter.h"

#include <string>
#include <thread>
#include <vector>

#include "cel/internal/parser.h"
#include "cel/internal/standard_library.h"
#include "gtest/gtest.h"

namespace draplane::cel::internal {
namespace {

const FunctionRegistry& Registry() {
  static const FunctionRegistry* registry = [] {
    auto* r = new FunctionRegistry;
    absl::Status s = RegisterStandardFunctions(r);
    if (!s.ok()) std::abort();
    return r;
  }();
  return *registry;
}

std::unique_ptr<Program> MustPlan(std::string_view source) {
  absl::StatusOr<ParsedExpr> parsed = Parse(source);
  EXPECT_TRUE(parsed.ok()) << source << ": " << parsed.status();
  if (!parsed.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<Program>> program =
      Plan(*parsed->root, Registry());
  EXPECT_TRUE(program.ok()) << source << ": " << program.status();
  if (!program.ok()) return nullptr;
  return std::move(*program);
}

EvalResult RunExpr(std::string_view source, const Activation& activation,
                   const EvalOptions& options = {}) {
  std::unique_ptr<Program> program = MustPlan(source);
  if (program == nullptr) return {Value::Error("plan failed"), 0};
  return program->Evaluate(activation, options);
}

EvalResult RunExpr(std::string_view source) {
  MapActivation empty;
  return RunExpr(source, empty);
}

// The result rendered with Value::DebugString ("error: msg" for errors).
std::string Eval(std::string_view source) {
  return RunExpr(source).value.DebugString();
}
std::string Eval(std::string_view source, const Activation& activation) {
  return RunExpr(source, activation).value.DebugString();
}

uint64_t Cost(std::string_view source, const Activation& activation,
              const EvalOptions& options = {}) {
  return RunExpr(source, activation, options).actual_cost;
}

std::string Letters(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s.push_back(static_cast<char>('a' + i % 26));
  return s;
}

// --- Values ---

TEST(ValueTest, CopyIsCheapAndShared) {
  Value s = Value::String("héllo");
  Value t = s;
  EXPECT_EQ(s.string_value().data(), t.string_value().data());
  EXPECT_EQ(s.string_size(), 5u);
  EXPECT_EQ(sizeof(Value), 16u);
}

TEST(ValueTest, MapHeterogeneousKeys) {
  std::vector<std::pair<Value, Value>> entries;
  for (int i = 0; i < 20; ++i) {
    entries.emplace_back(Value::Uint(i), Value::Int(i * 10));
  }
  entries.emplace_back(Value::String("k"), Value::Bool(true));
  Value m = Value::Map(std::move(entries));
  ASSERT_EQ(m.kind(), ValueKind::kMap);
  ASSERT_NE(m.map().Find(Value::Int(7)), nullptr);
  EXPECT_EQ(m.map().Find(Value::Int(7))->int_value(), 70);
  EXPECT_NE(m.map().Find(Value::Double(19.0)), nullptr);
  EXPECT_EQ(m.map().Find(Value::Double(3.5)), nullptr);
  EXPECT_EQ(m.map().Find(Value::Int(-1)), nullptr);
  EXPECT_NE(m.map().FindString("k"), nullptr);
  Value dup = Value::Map(
      {{Value::Int(0), Value::Int(1)}, {Value::Uint(0), Value::Int(2)}});
  EXPECT_TRUE(dup.is_error());
  Value bad = Value::Map({{Value::Double(1.0), Value::Int(1)}});
  EXPECT_TRUE(bad.is_error());
}

TEST(ValueTest, FormatDouble) {
  EXPECT_EQ(FormatDouble(1.0), "1");
  EXPECT_EQ(FormatDouble(123.456), "123.456");
  EXPECT_EQ(FormatDouble(-4.5e-3), "-0.0045");
  EXPECT_EQ(FormatDouble(1e6), "1e+06");
  EXPECT_EQ(FormatDouble(1e-5), "1e-05");
  EXPECT_EQ(FormatDouble(0.0001), "0.0001");
  EXPECT_EQ(FormatDouble(123456.0), "123456");
  EXPECT_EQ(FormatDouble(1.5e300), "1.5e+300");
}

// --- Arithmetic ---

TEST(InterpreterTest, Arithmetic) {
  EXPECT_EQ(Eval("1 + 2 * 3 - 4 / 2"), "5");
  EXPECT_EQ(Eval("-3 % 5"), "-3");
  EXPECT_EQ(Eval("43 % -5"), "3");
  EXPECT_EQ(Eval("-42 % -5"), "-2");
  EXPECT_EQ(Eval("7u / 2u"), "3u");
  EXPECT_EQ(Eval("1.5 * 2.0"), "3.0");
  EXPECT_EQ(Eval("1.0 / 0.0 > 1e308"), "true");
  EXPECT_EQ(Eval("'ab' + 'cd'"), "\"abcd\"");
  EXPECT_EQ(Eval("b'ab' + b'c'"), "b\"abc\"");
  EXPECT_EQ(Eval("[1] + [2, 3]"), "[1, 2, 3]");
}

TEST(InterpreterTest, ArithmeticErrors) {
  EXPECT_EQ(Eval("9223372036854775807 + 1"), "error: integer overflow");
  EXPECT_EQ(Eval("-9223372036854775808 - 1"), "error: integer overflow");
  EXPECT_EQ(Eval("-(-9223372036854775808)"), "error: integer overflow");
  EXPECT_EQ(Eval("-9223372036854775808 * -1"), "error: integer overflow");
  EXPECT_EQ(Eval("-9223372036854775808 / -1"), "error: integer overflow");
  EXPECT_EQ(Eval("0u - 1u"), "error: unsigned integer overflow");
  EXPECT_EQ(Eval("18446744073709551615u + 1u"),
            "error: unsigned integer overflow");
  EXPECT_EQ(Eval("1 / 0"), "error: division by zero");
  EXPECT_EQ(Eval("1 % 0"), "error: modulus by zero");
  EXPECT_EQ(Eval("1u / 0u"), "error: division by zero");
  EXPECT_EQ(Eval("1u % 0u"), "error: modulus by zero");
  // cel-go's texts: Int has the adder trait, whose method rejects a uint;
  // Uint lacks the negator trait.
  EXPECT_EQ(Eval("1 + 1u"), "error: no such overload");
  EXPECT_EQ(Eval("-(5u)"), "error: no such overload: -_");
}

// --- Equality and ordering ---

TEST(InterpreterTest, HeterogeneousEquality) {
  EXPECT_EQ(Eval("dyn(1) == 1u"), "true");
  EXPECT_EQ(Eval("dyn(1) == 1.0"), "true");
  EXPECT_EQ(Eval("dyn(1u) == 1.0"), "true");
  EXPECT_EQ(Eval("dyn(-1) == 18446744073709551615u"), "false");
  EXPECT_EQ(Eval("1 == 'a'"), "false");
  EXPECT_EQ(Eval("null == null"), "true");
  EXPECT_EQ(Eval("1 != null"), "true");
  EXPECT_EQ(Eval("[1, 2.0] == [1u, 2]"), "true");
  EXPECT_EQ(Eval("{1: 'a'} == {1u: 'a'}"), "true");
  EXPECT_EQ(Eval("{'a': 1} == {'a': 2}"), "false");
  EXPECT_EQ(Eval("double('NaN') == double('NaN')"), "false");
  EXPECT_EQ(Eval("type(1) == int"), "true");
  EXPECT_EQ(Eval("type(int) == type"), "true");
  EXPECT_EQ(Eval("type('a') == string && type(null) == null_type"), "true");
  EXPECT_EQ(Eval("1 == 1/0"), "error: division by zero");
}

TEST(InterpreterTest, Ordering) {
  EXPECT_EQ(Eval("1 < 2u"), "true");
  EXPECT_EQ(Eval("-1 < 0u"), "true");
  EXPECT_EQ(Eval("2.5 > 2"), "true");
  EXPECT_EQ(Eval("3u >= 3.0"), "true");
  EXPECT_EQ(Eval("dyn(9223372036854775807) < 9223372036854775808.0"), "false");
  EXPECT_EQ(Eval("'a' < 'b'"), "true");
  EXPECT_EQ(Eval("b'\\x01' > b'\\x00'"), "true");
  EXPECT_EQ(Eval("false < true"), "true");
  EXPECT_EQ(Eval("double('NaN') < 1.0"), "error: NaN values cannot be ordered");
  EXPECT_TRUE(RunExpr("[1] < [2]").value.is_error());
  EXPECT_TRUE(RunExpr("null < null").value.is_error());
}

// --- Logic ---

TEST(InterpreterTest, LogicalErrorAbsorption) {
  EXPECT_EQ(Eval("false && 1/0 == 1"), "false");
  EXPECT_EQ(Eval("1/0 == 1 && false"), "false");
  EXPECT_EQ(Eval("true || 1/0 == 1"), "true");
  EXPECT_EQ(Eval("1/0 == 1 || true"), "true");
  EXPECT_EQ(Eval("true && 1/0 == 1"), "error: division by zero");
  EXPECT_EQ(Eval("1/0 == 1 && true"), "error: division by zero");
  EXPECT_EQ(Eval("false || 1/0 == 1"), "error: division by zero");
  EXPECT_EQ(Eval("1 % 0 == 1 || 1/0 == 1"), "error: modulus by zero");
  EXPECT_EQ(Eval("false && 32"), "false");
  EXPECT_EQ(Eval("'horses' && false"), "false");
  EXPECT_TRUE(RunExpr("'a' && 'b'").value.is_error());
  EXPECT_TRUE(RunExpr("!0").value.is_error());
  EXPECT_EQ(Eval("!false"), "true");
}

TEST(InterpreterTest, Conditional) {
  EXPECT_EQ(Eval("true ? 1 : 1/0"), "1");
  EXPECT_EQ(Eval("false ? 1/0 : 'b'"), "\"b\"");
  EXPECT_EQ(Eval("1/0 == 0 ? 1 : 2"), "error: division by zero");
  EXPECT_TRUE(RunExpr("1 ? 2 : 3").value.is_error());
}

TEST(InterpreterTest, In) {
  EXPECT_EQ(Eval("2 in [1, 2, 3]"), "true");
  EXPECT_EQ(Eval("2u in [1, 2.0, 3]"), "true");
  EXPECT_EQ(Eval("4 in [1, 2, 3]"), "false");
  EXPECT_EQ(Eval("'a' in {'a': 1}"), "true");
  EXPECT_EQ(Eval("2u in {1: 1, 2: 2}"), "true");
  EXPECT_EQ(Eval("2.5 in {1: 1, 2: 2}"), "false");
  EXPECT_EQ(Eval("'b' in {'a': 1}"), "false");
}

// --- Indexing and selection ---

TEST(InterpreterTest, Indexing) {
  EXPECT_EQ(Eval("[1, 2, 3][1]"), "2");
  EXPECT_EQ(Eval("[1, 2, 3][2u]"), "3");
  EXPECT_EQ(Eval("[1, 2, 3][0.0]"), "1");
  EXPECT_EQ(Eval("[1, 2, 3][3]"), "error: index out of bounds: 3");
  EXPECT_EQ(Eval("[1, 2, 3][-1]"), "error: index out of bounds: -1");
  EXPECT_TRUE(RunExpr("[1, 2, 3][1.5]").value.is_error());
  EXPECT_TRUE(RunExpr("[1, 2, 3]['a']").value.is_error());
  EXPECT_EQ(Eval("{'a': 1}['a']"), "1");
  EXPECT_EQ(Eval("{'a': 1}['b']"), "error: no such key: b");
  EXPECT_EQ(Eval("{1u: 'a'}[1]"), "\"a\"");
  EXPECT_EQ(Eval("{3u: 3}[3.0]"), "3");
  EXPECT_EQ(Eval("{3u: 3}[3.1]"), "error: no such key: 3.1");
  EXPECT_EQ(Eval("{1: 2}[5]"), "error: no such key: 5");
}

TEST(InterpreterTest, MapSelectAndHas) {
  MapActivation act;
  act.Insert("m", Value::Map({{Value::String("a"), Value::Int(1)},
                              {Value::String("n"), Value::Null()}}));
  EXPECT_EQ(Eval("m.a", act), "1");
  EXPECT_EQ(Eval("m.x", act), "error: no such key: x");
  EXPECT_EQ(Eval("has(m.a)", act), "true");
  EXPECT_EQ(Eval("has(m.n)", act), "true");
  EXPECT_EQ(Eval("has(m.x)", act), "false");
  // cel-go: a value without fields has none set.
  EXPECT_EQ(Eval("has(m.a.b)", act), "false");
  EXPECT_EQ(Eval("x", act), "error: no such attribute(s): x");
}

TEST(InterpreterTest, QualifiedNames) {
  MapActivation act;
  act.Insert("a.b.c", Value::Int(1));
  act.Insert("a",
             Value::Map({{Value::String("b"),
                          Value::Map({{Value::String("c"), Value::Int(2)},
                                      {Value::String("d"), Value::Int(3)}})}}));
  EXPECT_EQ(Eval("a.b.c", act), "1");  // longest name wins
  EXPECT_EQ(Eval("a.b.d", act), "3");
  EXPECT_EQ(Eval(".a.b.d", act), "3");
  // A comprehension variable shadows the global.
  EXPECT_EQ(Eval("[{'b': {'c': 7}}].map(a, a.b.c)", act), "[7]");
}

TEST(InterpreterTest, Optionals) {
  MapActivation act;
  act.Insert("m",
             Value::Map({{Value::String("a"),
                          Value::Map({{Value::String("b"), Value::Int(1)}})}}));
  EXPECT_EQ(Eval("m.?a", act), "optional.of({\"b\": 1})");
  EXPECT_EQ(Eval("m.?x", act), "optional.none()");
  EXPECT_EQ(Eval("m.?x.b", act), "optional.none()");
  EXPECT_EQ(Eval("m.?a.b", act), "optional.of(1)");
  EXPECT_EQ(Eval("m.?a.?c.orValue(5)", act), "5");
  EXPECT_EQ(Eval("m.?a.b.orValue(5)", act), "1");
  EXPECT_EQ(Eval("m[?'a'][?'b'].value()", act), "1");
  EXPECT_EQ(Eval("[1, 2][?5].hasValue()", act), "false");
  EXPECT_EQ(Eval("[1, 2][?1]", act), "optional.of(2)");
  EXPECT_EQ(Eval("optional.of(1).orValue(1/0)", act), "1");
  EXPECT_EQ(Eval("optional.none().orValue(2)", act), "2");
  EXPECT_EQ(Eval("optional.none().or(optional.of(3)).value()", act), "3");
  EXPECT_EQ(Eval("optional.none().value()", act),
            "error: optional.none() dereference");
  EXPECT_EQ(Eval("optional.ofNonZeroValue(0).hasValue()", act), "false");
  EXPECT_EQ(Eval("optional.ofNonZeroValue('a').hasValue()", act), "true");
  EXPECT_EQ(Eval("[?optional.none(), ?optional.of(1), 2]", act), "[1, 2]");
  EXPECT_EQ(Eval("{?'a': optional.none(), ?'b': optional.of(1)}", act),
            "{\"b\": 1}");
  EXPECT_EQ(Eval("type(optional.none()) == optional_type", act), "true");
}

// --- Comprehensions ---

TEST(InterpreterTest, Macros) {
  EXPECT_EQ(Eval("[1, 2, 3].all(x, x > 0)"), "true");
  EXPECT_EQ(Eval("[1, 2, 3].all(e, 6 / (2 - e) == 6)"), "false");
  EXPECT_EQ(Eval("[1, 2, 3].all(e, e / 0 != 17)"), "error: division by zero");
  EXPECT_EQ(Eval("[1, 2, 3].exists(x, x == 2)"), "true");
  EXPECT_EQ(Eval("[0, 1].exists(x, 1 / x == 1)"), "true");
  EXPECT_EQ(Eval("[1, 2, 3].exists_one(x, x > 2)"), "true");
  EXPECT_EQ(Eval("[1, 2, 3].exists_one(x, x > 1)"), "false");
  EXPECT_EQ(Eval("[1, 2, 3].map(x, x * 2)"), "[2, 4, 6]");
  EXPECT_EQ(Eval("[1, 2, 3].map(x, x > 1, x * 2)"), "[4, 6]");
  EXPECT_EQ(Eval("[1, 2, 3].filter(x, x != 2)"), "[1, 3]");
  EXPECT_EQ(Eval("{'a': 1, 'b': 2}.map(k, k)"), "[\"a\", \"b\"]");
  EXPECT_EQ(Eval("{'a': 1}.all(k, k == 'a')"), "true");
  EXPECT_EQ(Eval("[[1], [2, 3]].map(l, l.map(x, x + 1))"), "[[2], [3, 4]]");
  EXPECT_EQ(Eval("cel.bind(x, 2, x * x)"), "4");
  EXPECT_EQ(Eval("[10, 20].all(i, v, v == (i + 1) * 10)"), "true");
  EXPECT_EQ(Eval("{'a': 1}.exists(k, v, k == 'a' && v == 1)"), "true");
  EXPECT_EQ(Eval("1.all(x, true)"),
            "error: got 'types.Int', expected iterable type");
  // The accumulator built in place must not leak into the constant [].
  auto program = MustPlan("[1, 2].map(x, x)");
  MapActivation empty;
  EXPECT_EQ(program->Evaluate(empty).value.DebugString(), "[1, 2]");
  EXPECT_EQ(program->Evaluate(empty).value.DebugString(), "[1, 2]");
}

// A comprehension built by hand, as the parser expands `.exists`.
ExprPtr Node(int64_t id, decltype(Expr::kind) kind) {
  auto e = std::make_unique<Expr>();
  e->id = id;
  e->kind = std::move(kind);
  return e;
}
ExprPtr Ident(int64_t id, std::string name) {
  return Node(id, IdentExpr{std::move(name)});
}
ExprPtr Const(int64_t id, Constant c) {
  return Node(id, ConstExpr{std::move(c)});
}
ExprPtr Call(int64_t id, std::string fn, std::vector<ExprPtr> args) {
  CallExpr call;
  call.function = std::move(fn);
  call.args = std::move(args);
  return Node(id, std::move(call));
}
template <class... T>
std::vector<ExprPtr> Vec(T... items) {
  std::vector<ExprPtr> v;
  (v.push_back(std::move(items)), ...);
  return v;
}

TEST(InterpreterTest, HandBuiltComprehension) {
  ComprehensionExpr c;
  c.iter_var = "x";
  c.iter_range = Ident(1, "xs");
  c.accu_var = kAccumulatorName;
  c.accu_init = Const(2, false);
  c.loop_condition =
      Call(3, op::kNotStrictlyFalse,
           Vec(Call(4, op::kLogicalNot, Vec(Ident(5, kAccumulatorName)))));
  c.loop_step = Call(
      6, op::kLogicalOr,
      Vec(Ident(7, kAccumulatorName),
          Call(8, op::kEquals, Vec(Ident(9, "x"), Const(10, int64_t{3})))));
  c.result = Ident(11, kAccumulatorName);
  ExprPtr root = Node(12, std::move(c));
  auto program = Plan(*root, Registry());
  ASSERT_TRUE(program.ok()) << program.status();
  MapActivation act;
  act.Insert("xs", Value::List({Value::Int(1), Value::Int(3), Value::Int(5)}));
  EvalResult r = (*program)->Evaluate(act);
  EXPECT_EQ(r.value.DebugString(), "true");
  // xs 1; two full iterations: cond (@result 1, !_ 1, @not_strictly_false
  // 1) and step (@result 1, x 1, == 1); the third stops at the condition
  // (3); result 1.
  EXPECT_EQ(r.actual_cost, 1u + 2 * 6 + 3 + 1);
}

TEST(InterpreterTest, PlanErrors) {
  absl::StatusOr<ParsedExpr> parsed = Parse("nope(1)");
  ASSERT_TRUE(parsed.ok());
  auto p = Plan(*parsed->root, Registry());
  EXPECT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  parsed = Parse("'a'.contains()");
  ASSERT_TRUE(parsed.ok());
  EXPECT_FALSE(Plan(*parsed->root, Registry()).ok());
}

// --- Strings ---

TEST(InterpreterTest, StringFunctions) {
  EXPECT_EQ(Eval("size('héllo')"), "5");
  EXPECT_EQ(Eval("'héllo'.size()"), "5");
  EXPECT_EQ(Eval("size(b'h\\xc3\\xa9')"), "3");
  EXPECT_EQ(Eval("size([1, 2])"), "2");
  EXPECT_EQ(Eval("size({'a': 1})"), "1");
  EXPECT_EQ(Eval("'hello'.contains('ell')"), "true");
  EXPECT_EQ(Eval("'hello'.contains('')"), "true");
  EXPECT_EQ(Eval("'hello'.startsWith('he')"), "true");
  EXPECT_EQ(Eval("'hello'.endsWith('lo')"), "true");
  EXPECT_EQ(Eval("'hello'.endsWith('hello!')"), "false");
  EXPECT_EQ(Eval("'hello'.matches('l+')"), "true");
  EXPECT_EQ(Eval("'hello'.matches('^l+$')"), "false");
  EXPECT_EQ(Eval("matches('abc', '^a.c$')"), "true");
  EXPECT_TRUE(RunExpr("'a'.matches('(')").value.is_error());
  MapActivation act;
  act.Insert("re", Value::String("[0-9]+"));
  EXPECT_EQ(Eval("'ab12'.matches(re)", act), "true");
}

// --- Conversions ---

TEST(InterpreterTest, Conversions) {
  EXPECT_EQ(Eval("int('42')"), "42");
  EXPECT_EQ(Eval("int('-42')"), "-42");
  EXPECT_TRUE(RunExpr("int('x')").value.is_error());
  EXPECT_TRUE(RunExpr("int('')").value.is_error());
  EXPECT_EQ(Eval("int(1e20)"), "error: integer overflow");
  EXPECT_EQ(Eval("int(-9223372036854775808.0)"), "error: integer overflow");
  EXPECT_EQ(Eval("int(-1.9)"), "-1");
  EXPECT_EQ(Eval("int(18446744073709551615u)"), "error: integer overflow");
  EXPECT_EQ(Eval("uint(-1)"), "error: unsigned integer overflow");
  EXPECT_EQ(Eval("uint(6.022e23)"), "error: unsigned integer overflow");
  EXPECT_EQ(Eval("uint('42')"), "42u");
  EXPECT_TRUE(RunExpr("uint('-1')").value.is_error());
  EXPECT_EQ(Eval("double('1.5e3')"), "1500.0");
  EXPECT_EQ(Eval("double(3)"), "3.0");
  EXPECT_EQ(Eval("string(9876u)"), "\"9876\"");
  EXPECT_EQ(Eval("string(123.456)"), "\"123.456\"");
  EXPECT_EQ(Eval("string(-4.5e-3)"), "\"-0.0045\"");
  EXPECT_EQ(Eval("string(true)"), "\"true\"");
  EXPECT_EQ(Eval("string(b'abc')"), "\"abc\"");
  EXPECT_TRUE(RunExpr("string(b'\\xff')").value.is_error());
  EXPECT_EQ(Eval("bytes('ÿ')"), "b\"\\xc3\\xbf\"");
  EXPECT_EQ(Eval("bool('true')"), "true");
  EXPECT_EQ(Eval("bool('f')"), "false");
  EXPECT_TRUE(RunExpr("bool('TrUe')").value.is_error());
  EXPECT_EQ(Eval("dyn([1])"), "[1]");
  EXPECT_EQ(Eval("type(1u)"), "uint");
  EXPECT_EQ(Eval("type(type(1))"), "type");
  EXPECT_EQ(Eval("type(duration('1s'))"), "google.protobuf.Duration");
  EXPECT_EQ(Eval("type(timestamp(0)) == google.protobuf.Timestamp"), "true");
}

// --- Time ---

TEST(InterpreterTest, Timestamps) {
  EXPECT_EQ(Eval("string(timestamp('2009-02-13T23:31:30Z'))"),
            "\"2009-02-13T23:31:30Z\"");
  EXPECT_EQ(Eval("int(timestamp('2009-02-13T23:31:30Z'))"), "1234567890");
  EXPECT_EQ(Eval("string(timestamp(1234567890))"), "\"2009-02-13T23:31:30Z\"");
  EXPECT_EQ(Eval("string(timestamp('2009-02-13T23:31:30.120+01:00'))"),
            "\"2009-02-13T22:31:30.12Z\"");
  EXPECT_TRUE(RunExpr("timestamp('bad')").value.is_error());
  EXPECT_TRUE(RunExpr("timestamp('10000-01-01T00:00:00Z')").value.is_error());
  EXPECT_EQ(Eval("string(timestamp('0001-01-01T00:00:00Z'))"),
            "\"0001-01-01T00:00:00Z\"");
  EXPECT_TRUE(RunExpr("timestamp('0001-01-01T00:00:00Z') - duration('1s')")
                  .value.is_error());
  const std::string ts = "timestamp('2009-02-13T23:31:30.123Z')";
  EXPECT_EQ(Eval(ts + ".getFullYear()"), "2009");
  EXPECT_EQ(Eval(ts + ".getMonth()"), "1");
  EXPECT_EQ(Eval(ts + ".getDate()"), "13");
  EXPECT_EQ(Eval(ts + ".getDayOfMonth()"), "12");
  EXPECT_EQ(Eval(ts + ".getDayOfWeek()"), "5");
  EXPECT_EQ(Eval(ts + ".getDayOfYear()"), "43");
  EXPECT_EQ(Eval(ts + ".getHours()"), "23");
  EXPECT_EQ(Eval(ts + ".getMinutes()"), "31");
  EXPECT_EQ(Eval(ts + ".getSeconds()"), "30");
  EXPECT_EQ(Eval(ts + ".getMilliseconds()"), "123");
  EXPECT_EQ(Eval(ts + ".getHours('+01:00')"), "0");
  EXPECT_EQ(Eval(ts + ".getDate('+01:00')"), "14");
  EXPECT_EQ(Eval(ts + ".getHours('-02:30')"), "21");
  EXPECT_EQ(Eval(ts + ".getMinutes('-02:30')"), "1");
  EXPECT_EQ(Eval(ts + ".getHours('02:00')"), "1");
  EXPECT_EQ(Eval(ts + ".getHours('America/Los_Angeles')"), "15");
  EXPECT_EQ(Eval(ts + ".getHours('UTC')"), "23");
  EXPECT_TRUE(RunExpr(ts + ".getHours('Mars/Base')").value.is_error());
  EXPECT_EQ(Eval("timestamp('2009-02-13T23:31:30Z') < "
                 "timestamp('2009-02-13T23:31:31Z')"),
            "true");
}

TEST(InterpreterTest, Durations) {
  EXPECT_EQ(Eval("string(duration('1h30m'))"), "\"5400s\"");
  EXPECT_EQ(Eval("string(duration('60.001s'))"), "\"60.001s\"");
  EXPECT_EQ(Eval("string(duration('-1.5h'))"), "\"-5400s\"");
  EXPECT_EQ(Eval("string(duration('0'))"), "\"0s\"");
  EXPECT_EQ(Eval("string(duration('1ms') + duration('1us'))"), "\"0.001001s\"");
  EXPECT_TRUE(RunExpr("duration('1d')").value.is_error());
  EXPECT_TRUE(RunExpr("duration('320000000000s')").value.is_error());
  EXPECT_EQ(Eval("duration('3h').getHours()"), "3");
  EXPECT_EQ(Eval("duration('3h').getMinutes()"), "180");
  EXPECT_EQ(Eval("duration('1.5s').getSeconds()"), "1");
  EXPECT_EQ(Eval("duration('1.5s').getMilliseconds()"), "1500");
  EXPECT_EQ(Eval("string(timestamp('2009-02-13T23:31:30Z') + duration('1h'))"),
            "\"2009-02-14T00:31:30Z\"");
  EXPECT_EQ(Eval("string(timestamp('2009-02-13T23:31:30Z') - "
                 "timestamp('2009-02-13T23:31:00Z'))"),
            "\"30s\"");
  EXPECT_EQ(Eval("duration('1m') > duration('59s')"), "true");
  EXPECT_TRUE(RunExpr("duration('9223372036s') + duration('9223372036s')")
                  .value.is_error());
}

// --- Cost (expected numbers from cel-go interpreter/runtimecost_test.go) ---

TEST(CostTest, MatchesCelGo) {
  MapActivation act;
  act.Insert("input_list", Value::List({Value::String("v")}));
  act.Insert("input_map",
             Value::Map({{Value::String("key"), Value::String("v")}}));
  act.Insert("empty", Value::List({}));
  act.Insert("t", Value::Bool(true));
  act.Insert("f", Value::Bool(false));
  act.Insert("x", Value::Int(1));
  act.Insert("input1", Value::List({Value::Int(1)}));
  act.Insert("input2", Value::List({Value::Int(2)}));
  act.Insert("s500", Value::String(Letters(500)));
  act.Insert("b500", Value::Bytes(Letters(500)));
  act.Insert("idc", Value::String("idc"));
  act.Insert("s3", Value::String("500"));
  act.Insert("str1", Value::String("val1"));
  act.Insert("str2", Value::String("val2222222"));
  act.Insert("nested", Value::Map({{Value::String("val"),
                                    Value::Map({{Value::String("single_int32"),
                                                 Value::Int(0)}})}}));
  EXPECT_EQ(Cost("\"Hello World!\"", act), 0u);
  EXPECT_EQ(Cost("input_list", act), 1u);
  EXPECT_EQ(Cost("input_map['key']", act), 2u);
  EXPECT_EQ(Cost("input_list[0]", act), 2u);
  EXPECT_EQ(Cost("input_map['ke' + 'y']", act), 3u);
  EXPECT_EQ(Cost("input_list[3-3]", act), 3u);
  EXPECT_EQ(Cost("[1, 2, 3]", act), 10u);
  EXPECT_EQ(Cost("{\"a\": 1, \"b\": 2, \"c\": 3}", act), 30u);
  EXPECT_EQ(Cost("empty.all(x, true)", act), 2u);
  EXPECT_EQ(Cost("[1, 2, 3].all(x, true)", act), 20u);
  EXPECT_EQ(Cost("s500.matches('[0-9]')", act), 103u);
  EXPECT_EQ(Cost("'123'.matches('[0-9]')", act), 2u);
  EXPECT_EQ(Cost("false || false", act), 0u);
  EXPECT_EQ(Cost("true || false", act), 0u);
  EXPECT_EQ(Cost("f || f || f || f", act), 4u);
  EXPECT_EQ(Cost("t && t && t && t", act), 4u);
  EXPECT_EQ(Cost("1 < 2", act), 1u);
  EXPECT_EQ(Cost("1 == 2", act), 1u);
  EXPECT_EQ(Cost("2 in [1, 2, 3]", act), 13u);
  EXPECT_EQ(Cost("1 + 1", act), 1u);
  EXPECT_EQ(Cost("true ? 1 : 2", act), 0u);
  EXPECT_EQ(Cost("size(\"123\")", act), 1u);
  EXPECT_EQ(
      Cost("'12345678901234567890' == '123456789012345678901234567890'", act),
      2u);
  EXPECT_EQ(Cost("string(b500)", act), 51u);
  EXPECT_EQ(Cost("bytes(s500)", act), 51u);
  EXPECT_EQ(Cost("string(1)", act), 1u);
  EXPECT_EQ(Cost("s500.contains(s500)", act), 2502u);
  EXPECT_EQ(Cost("idc.startsWith(s500)", act), 3u);
  EXPECT_EQ(Cost("idc.endsWith(s500)", act), 3u);
  EXPECT_EQ(Cost("s3.size()", act), 2u);
  EXPECT_EQ(Cost("size(s3)", act), 2u);
  EXPECT_EQ(Cost("(x > 2 ? input1 : input2).all(y, true)", act), 6u);
  EXPECT_EQ(Cost("true ? false : 1 > 3", act), 0u);
  EXPECT_EQ(Cost("false ? false : 1 > 3", act), 1u);
  EXPECT_EQ(Cost("nested.all(k, nested[k].single_int32 > 3)", act), 9u);
  EXPECT_EQ(Cost("(empty + empty).all(x, true)", act), 4u);
  EXPECT_EQ(Cost("\"abcdefg\".contains(str1 + str2)", act), 6u);
  EXPECT_EQ(Cost("(1 > 2 ? 5 : 3) > 1", act), 2u);
  EXPECT_EQ(Cost("(1 > 2 || 2 > 1) == true", act), 3u);
  EXPECT_EQ(Cost("[{'k1': 1}, {'k2': 2}].all(x, true)", act), 77u);
  // has(): 1 by default, 0 with PresenceTestHasCost(false).
  EXPECT_EQ(Cost("has(nested.val.single_int32)", act), 3u);
  EvalOptions no_presence;
  no_presence.presence_test_has_cost = false;
  EXPECT_EQ(Cost("has(nested.val.single_int32)", act, no_presence), 2u);
  // Equality: ceil(0.1 * min(size)) on top of the two identifiers.
  act.Insert("s70", Value::String(Letters(70)));
  EXPECT_EQ(Cost("s70 == s70", act), 2u + 7u);
  EXPECT_EQ(Cost("'' == ''", act), 0u);
  // A type name is a constant, as in a checked cel-go program.
  EXPECT_EQ(Cost("int", act), 0u);
}

TEST(CostTest, Limit) {
  MapActivation act;
  act.Insert("str1", Value::String("val1"));
  act.Insert("str2", Value::String("val2222222"));
  EvalOptions at_limit;
  at_limit.cost_limit = 6;
  EvalResult ok = RunExpr("\"abcdefg\".contains(str1 + str2)", act, at_limit);
  EXPECT_EQ(ok.value.DebugString(), "false");
  EvalOptions below;
  below.cost_limit = 5;
  EvalResult over = RunExpr("\"abcdefg\".contains(str1 + str2)", act, below);
  ASSERT_TRUE(over.value.is_error());
  EXPECT_EQ(over.value.error_message(),
            "operation cancelled: actual cost limit exceeded");

  std::vector<Value> big;
  for (int i = 0; i < 1000; ++i) big.push_back(Value::Int(i));
  act.Insert("big", Value::List(std::move(big)));
  EvalOptions small;
  small.cost_limit = 100;
  // The error is not absorbed by || true.
  EvalResult r = RunExpr("big.map(x, x * 2).size() > 0 || true", act, small);
  ASSERT_TRUE(r.value.is_error());
  EXPECT_EQ(r.value.error_message(), kCostLimitExceededMessage);
  // big 1, accumulator init [] 10, then 14 per element (see below): the
  // 7th element's list literal crosses 100.
  EXPECT_EQ(r.actual_cost, 108u);
  EvalResult unlimited = RunExpr("big.map(x, x * 2).size()", act);
  EXPECT_EQ(unlimited.value.DebugString(), "1000");
  // big 1; accumulator init [] 10; per element: @result 1 + x 1 + * 1 +
  // list literal 10 + _+_ 1; result 1; size 1.
  EXPECT_EQ(unlimited.actual_cost, 1u + 10 + 1000 * 14 + 1 + 1);
}

// --- Extension points ---

// Counts lookups, to show plan-time resolution of declared names.
class CountingActivation final : public Activation {
 public:
  std::optional<Value> Find(std::string_view name) const override {
    ++lookups;
    return inner.Find(name);
  }
  MapActivation inner;
  mutable int lookups = 0;
};

TEST(InterpreterTest, DeclaredVariablesResolveAtPlanTime) {
  absl::StatusOr<ParsedExpr> parsed = Parse("device.driver == 'x'");
  ASSERT_TRUE(parsed.ok());
  PlanOptions options;
  options.is_declared_variable = [](std::string_view n) {
    return n == "device";
  };
  auto program = Plan(*parsed->root, Registry(), options);
  ASSERT_TRUE(program.ok());
  CountingActivation act;
  act.inner.Insert("device",
                   Value::Map({{Value::String("driver"), Value::String("x")}}));
  EvalResult r = (*program)->Evaluate(act);
  EXPECT_EQ(r.value.DebugString(), "true");
  EXPECT_EQ(act.lookups, 1);
  EXPECT_EQ(r.actual_cost, 3u);  // device 1, .driver 1, == ceil(0.1) 1
  auto unresolved = Plan(*parsed->root, Registry());
  ASSERT_TRUE(unresolved.ok());
  act.lookups = 0;
  EXPECT_EQ((*unresolved)->Evaluate(act).value.DebugString(), "true");
  EXPECT_EQ(act.lookups, 2);  // "device.driver", then "device"
}

class TestVersion final : public OpaqueValue {
 public:
  explicit TestVersion(int v) : v_(v) {}
  std::string_view TypeName() const override { return "test.Version"; }
  bool Equals(const OpaqueValue& other) const override {
    return v_ == static_cast<const TestVersion&>(other).v_;
  }
  std::optional<int> Compare(const OpaqueValue& other) const override {
    int o = static_cast<const TestVersion&>(other).v_;
    return v_ < o ? -1 : (v_ > o ? 1 : 0);
  }
  std::string DebugString() const override {
    return "version(" + std::to_string(v_) + ")";
  }
  int v() const { return v_; }

 private:
  int v_;
};

TEST(InterpreterTest, OpaqueValues) {
  FunctionRegistry registry;
  ASSERT_TRUE(RegisterStandardFunctions(&registry).ok());
  FunctionOverload make;
  make.function = "version";
  make.overload_id = "string_to_version";
  make.params = {ArgType::Of(ValueKind::kInt)};
  make.impl = [](absl::Span<const Value> a) {
    return Value::Opaque(new TestVersion(static_cast<int>(a[0].int_value())));
  };
  ASSERT_TRUE(registry.Register(make).ok());
  EXPECT_EQ(registry.Register(make).code(), absl::StatusCode::kAlreadyExists);
  FunctionOverload major;
  major.function = "major";
  major.overload_id = "version_major";
  major.receiver_style = true;
  major.params = {ArgType::Opaque("test.Version")};
  major.impl = [](absl::Span<const Value> a) {
    return Value::Int(static_cast<const TestVersion&>(a[0].opaque()).v());
  };
  ASSERT_TRUE(registry.Register(major).ok());
  auto eval = [&](std::string_view src) {
    absl::StatusOr<ParsedExpr> parsed = Parse(src);
    EXPECT_TRUE(parsed.ok());
    auto program = Plan(*parsed->root, registry);
    EXPECT_TRUE(program.ok()) << program.status();
    MapActivation empty;
    return (*program)->Evaluate(empty).value.DebugString();
  };
  EXPECT_EQ(eval("version(1) == version(1)"), "true");
  EXPECT_EQ(eval("version(1) != version(2)"), "true");
  EXPECT_EQ(eval("version(1) < version(2)"), "true");
  EXPECT_EQ(eval("version(3).major()"), "3");
  EXPECT_EQ(eval("type(version(3))"), "test.Version");
  EXPECT_EQ(eval("version(1) == 1"), "false");
  EXPECT_EQ(eval("version(1) in [version(0), version(1)]"), "true");
}

// --- Concurrency ---

// Runtime type errors carry cel-go's texts, which depend on how cel-go
// binds the function and on the operand's traits (see NoMatchingOverload).
// Expected values from `draref cel eval --plain --env k8s` (cel-go
// v0.29.2); they also show up in DRA selectors on dyn attributes.
TEST(InterpreterTest, RuntimeTypeErrorsUseCelGoTexts) {
  const std::pair<const char*, const char*> cases[] = {
      // Operand has the operator's trait (or is a receiver): plain text.
      {"dyn(1) > 'a'", "error: no such overload"},
      {"dyn('a') % 1", "error: no such overload"},
      {"dyn([1]) + 1", "error: no such overload"},
      {"-dyn(true)", "error: no such overload"},
      // Operand lacks it: the function is named.
      {"dyn([1]) % 1", "error: no such overload: _%_"},
      {"-dyn([1])", "error: no such overload: -_"},
      {"dyn(true) + 1", "error: no such overload: _+_"},
      {"dyn({}) + 1", "error: no such overload: _+_"},
      {"size(dyn(1))", "error: no such overload: size"},
      {"dyn(1).size()", "error: no such overload: size"},
      // Bindings that never name the function.
      {"!dyn(1)", "error: no such overload"},
      {"dyn(1) in dyn(1)", "error: no such overload"},
      {"dyn(1).startsWith('a')", "error: no such overload"},
      {"dyn(1).matches('a')", "error: no such overload"},
      {"dyn(1) && true", "error: no such overload"},
      {"true && dyn(1)", "error: no such overload"},
      {"dyn(1) || false", "error: no such overload"},
      {"dyn(1) ? 1 : 2", "error: no such overload"},
      // Per-overload bindings keep the signature.
      {"int(dyn([1]))", "error: no such overload: int(list)"},
      // Qualifying a value without keys.
      {"dyn(1)[0]", "error: no such key: 0"},
      {"dyn(1).x", "error: no such key: x"},
      {"dyn(1.5)[1.5]", "error: no such key: 1.5"},
      {"dyn(true)[true]", "error: no such key: true"},
      {"dyn(1).?x.hasValue()", "false"},
      {"has(dyn(1).x)", "false"},
      {"has(dyn([1]).x)", "error: unsupported index type 'string' in list"},
      {"dyn([1])[1e30]", "error: unsupported index value 1e+30 in list"},
      {"dyn([1])[18446744073709551615u]",
       "error: unsupported index value 18446744073709551615 in list"},
      // Comprehension ranges.
      {"dyn(1).exists(x, true)",
       "error: got 'types.Int', expected iterable type"},
      {"dyn(null).all(x, true)",
       "error: got 'types.Null', expected iterable type"},
      {"dyn(true).exists(i, v, true)",
       "error: unsupported comprehension range type: types.Bool"},
      // String conversions.
      {"int('x')", "error: type conversion error from 'string' to 'int'"},
      {"int('9223372036854775808')",
       "error: type conversion error from 'string' to 'int'"},
      {"uint('-1')", "error: type conversion error from 'string' to 'uint'"},
      {"double('1e400')",
       "error: type conversion error from 'string' to 'double'"},
      {"bool('x')", "error: type conversion error from 'string' to 'bool'"},
  };
  for (const auto& [expr, want] : cases) {
    EXPECT_EQ(Eval(expr), want) << expr;
  }
}

TEST(InterpreterTest, ProgramIsThreadSafe) {
  std::unique_ptr<Program> program = MustPlan(
      "device.driver == 'gpu.example.com' && "
      "device.attributes['gpu.example.com'].model.startsWith('A1') && "
      "device.ids.filter(i, i % 2 == 0).size() == 50");
  ASSERT_NE(program, nullptr);
  std::vector<Value> ids;
  for (int i = 0; i < 100; ++i) ids.push_back(Value::Int(i));
  MapActivation act;
  act.Insert(
      "device",
      Value::Map({{Value::String("driver"), Value::String("gpu.example.com")},
                  {Value::String("ids"), Value::List(std::move(ids))},
                  {Value::String("attributes"),
                   Value::Map({{Value::String("gpu.example.com"),
                                Value::Map({{Value::String("model"),
                                             Value::String("A100")}})}})}}));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        EvalResult r = program->Evaluate(act);
        if (!r.value.IsTrue()) failures.fetch_add(1);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace draplane::cel::internal
