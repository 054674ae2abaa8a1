#include "cel/internal/checker.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "absl/strings/str_split.h"
#include "absl/types/span.h"
#include "api/meta_types.h"
#include "cel/internal/checker_declarations.h"
#include "cel/internal/checker_test_support.h"
#include "cel/internal/kubernetes_library.h"
#include "cel/internal/parser.h"
#include "cel/internal/standard_library.h"
#include "cel/internal/strings_library.h"
#include "cel/testing/text_proto.h"
#include "common/str_cat.h"
#include "gtest/gtest.h"
#include "testing/shared_test_data.h"

namespace draplane::cel::internal {
namespace {

namespace fs = std::filesystem;
using testing::TextProtoField;
using testing::TextProtoMessage;

enum Expect { kType, kError };

// One expression and what cel-go reports for it in Kubernetes' DRA selector
// environment: the compile error text, or the output type (ToString form).
struct Case {
  const char* expr;
  Expect expect;
  const char* want;
};

// The DRA environment's cases (testdata/checker_dra_cases.json: "expr",
// "expect" ("type" or "error") and "want"). Expected values come from the
// oracle, `draref cel eval --expr EXPR --device-json dev.json --driver
// gpu.nvidia.com` (cel-go v0.29.2 through k8s.io/dynamic-resource-allocation
// v0.37.2, Kubernetes 1.37 default features): compile errors are its
// "compilation failed: " text; output types come from its "must evaluate to
// bool or the unknown type, not T" error, or for expressions that evaluate,
// from compiling `[EXPR]`. Parse errors (has(device)) are the parser's own.
struct OwnedCase {
  std::string expr;
  Expect expect;
  std::string want;
};

std::vector<OwnedCase> LoadDraCases() {
  const fs::path path = fs::path(DRAPLANE_SOURCE_DIR) / "src" / "cel" /
                        "internal" / "testdata" / "checker_dra_cases.json";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream text;
  text << in.rdbuf();
  std::vector<OwnedCase> cases;
  const api::Json doc = api::Json::parse(text.str(), nullptr, false);
  EXPECT_TRUE(doc.is_array()) << path;
  if (!doc.is_array()) return cases;
  for (const api::Json& c : doc) {
    cases.push_back({c.at("expr").get<std::string>(),
                     c.at("expect") == "type" ? kType : kError,
                     c.at("want").get<std::string>()});
  }
  return cases;
}

// Cases that need libraries draplane does not implement yet (IP, CIDR, URL,
// regex, lists, sets, format, ...); checked against a registry where every
// declared overload exists (DeclaredEverythingRegistry below).
constexpr Case kLibraryCases[] = {
    {R"(ip("1.2.3.4").foo == 1)", kError,
     R"(ERROR: <input>:1:14: type 'net.IP' does not support field selection
 | ip("1.2.3.4").foo == 1
 | .............^)"},
    {R"(ip("1.2.3.4").family() == 4)", kType, R"(bool)"},
    {R"(ip("1.2.3.4") == ip("1.2.3.4"))", kType, R"(bool)"},
    {R"(ip("1.2.3.4") == cidr("1.2.3.0/24"))", kError,
     R"(ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(net.IP, net.CIDR)'
 | ip("1.2.3.4") == cidr("1.2.3.0/24")
 | ..............^)"},
    {R"(ip("1.2.3.4") < ip("1.2.3.5"))", kError,
     R"(ERROR: <input>:1:15: found no matching overload for '_<_' applied to '(net.IP, net.IP)'
 | ip("1.2.3.4") < ip("1.2.3.5")
 | ..............^)"},
    {R"(string(ip("1.2.3.4")) == "1.2.3.4")", kType, R"(bool)"},
    {R"(cidr("1.2.3.0/24").containsIP("1.2.3.4"))", kType, R"(bool)"},
    {R"(cidr("1.2.3.0/24").containsIP(ip("1.2.3.4")))", kType, R"(bool)"},
    {R"(cidr("1.2.3.0/24").containsIP(1))", kError,
     R"(ERROR: <input>:1:30: found no matching overload for 'containsIP' applied to 'net.CIDR.(int)'
 | cidr("1.2.3.0/24").containsIP(1)
 | .............................^)"},
    {R"(cidr("1.2.3.0/24").ip().isLoopback())", kType, R"(bool)"},
    {R"(cidr("1.2.3.0/24").masked().prefixLength() == 24)", kType, R"(bool)"},
    {R"(isIP("1.2.3.4") && isCIDR("1.2.3.0/24") && ip.isCanonical("1.2.3.4"))",
     kType, R"(bool)"},
    {R"(type(ip("1.2.3.4")) == net.IP)", kType, R"(bool)"},
    {R"(net.CIDR == type(cidr("1.2.3.0/24")))", kType, R"(bool)"},
    {R"(url("http://a").getHost() == "a")", kType, R"(bool)"},
    {R"(url("http://a").getQuery() == {"a": ["b"]})", kType, R"(bool)"},
    {R"(url("http://a").getQuery()["a"][0] == "b")", kType, R"(bool)"},
    {R"(isURL("http://a"))", kType, R"(bool)"},
    {R"("a".find("a") == "a")", kType, R"(bool)"},
    {R"("a".findAll("a") == ["a"])", kType, R"(bool)"},
    {R"("a".findAll("a", 1).size() == 1)", kType, R"(bool)"},
    {R"("a".find(1) == "a")", kError,
     R"(ERROR: <input>:1:9: found no matching overload for 'find' applied to 'string.(int)'
 | "a".find(1) == "a"
 | ........^)"},
    {R"(format.dns1123Label().validate("a").hasValue())", kType, R"(bool)"},
    {R"(format.named("dns1123Label").hasValue())", kType, R"(bool)"},
    {R"(format.named("x").value().validate("a").orValue([]).size() == 0)",
     kType, R"(bool)"},
    {R"("%d".format([1]) == "1")", kType, R"(bool)"},
    {R"("a".reverse() == "a")", kError,
     R"(ERROR: <input>:1:12: found no matching overload for 'reverse' applied to 'string.()'
 | "a".reverse() == "a"
 | ...........^)"},
    {R"([1].includes(1))", kType, R"(bool)"},
    {R"(1.includes(1))", kType, R"(bool)"},
    {R"(device.attributes["a"].b.includes(1))", kType, R"(bool)"},
    {R"(optional.unwrap([optional.of(1)]) == [1])", kType, R"(bool)"},
    {R"([optional.of(1)].unwrapOpt() == [1])", kType, R"(bool)"},
    {R"([1].unwrapOpt() == [1])", kError,
     R"(ERROR: <input>:1:14: found no matching overload for 'unwrapOpt' applied to 'list(int).()'
 | [1].unwrapOpt() == [1]
 | .............^)"},
    {R"(sets.contains([1], [2]))", kType, R"(bool)"},
    {R"(sets.contains([1], ["a"]))", kError,
     R"(ERROR: <input>:1:14: found no matching overload for 'sets.contains' applied to '(list(int), list(string))'
 | sets.contains([1], ["a"])
 | .............^)"},
    {R"(sets.equivalent([1], [1u]))", kError,
     R"(ERROR: <input>:1:16: found no matching overload for 'sets.equivalent' applied to '(list(int), list(uint))'
 | sets.equivalent([1], [1u])
 | ...............^)"},
    {R"(sets.intersects([dyn(1)], ["a"]))", kType, R"(bool)"},
    {R"(lists.range(3) == [0, 1, 2])", kType, R"(bool)"},
    {R"(lists.range("a") == [0])", kError,
     R"(ERROR: <input>:1:12: found no matching overload for 'lists.range' applied to '(string)'
 | lists.range("a") == [0]
 | ...........^)"},
    {R"([1,2].slice(0, 1) == [1])", kType, R"(bool)"},
    {R"([3,1].sort() == [1, 3])", kType, R"(bool)"},
    {R"(["b","a"].sort() == ["a", "b"])", kType, R"(bool)"},
    {R"([[1]].sort() == [])", kError,
     R"(ERROR: <input>:1:11: found no matching overload for 'sort' applied to 'list(list(int)).()'
 | [[1]].sort() == []
 | ..........^)"},
    {R"([[1]].flatten() == [1])", kType, R"(bool)"},
    {R"([1].flatten() == [1])", kError,
     R"(ERROR: <input>:1:12: found no matching overload for 'flatten' applied to 'list(int).()'
 | [1].flatten() == [1]
 | ...........^)"},
    {R"([[1], [2]].flatten(1) == [1, 2])", kType, R"(bool)"},
    {R"([1].distinct() == [1])", kType, R"(bool)"},
    {R"([1].reverse() == [1])", kType, R"(bool)"},
    {R"([1].first().orValue(0) == 1)", kType, R"(bool)"},
    {R"([1].last().hasValue())", kType, R"(bool)"},
    {R"([1].isSorted())", kType, R"(bool)"},
    {R"(["a"].isSorted())", kType, R"(bool)"},
    {R"([[1]].isSorted())", kError,
     R"(ERROR: <input>:1:15: found no matching overload for 'isSorted' applied to 'list(list(int)).()'
 | [[1]].isSorted()
 | ..............^)"},
    {R"([1].sum() == 1)", kType, R"(bool)"},
    {R"([1.0].sum() == 1.0)", kType, R"(bool)"},
    {R"(["a"].sum() == "a")", kError,
     R"(ERROR: <input>:1:10: found no matching overload for 'sum' applied to 'list(string).()'
 | ["a"].sum() == "a"
 | .........^)"},
    {R"([1].min() == 1)", kType, R"(bool)"},
    {R"([1].max() == 1)", kType, R"(bool)"},
    {R"([1].indexOf(1) == 0)", kType, R"(bool)"},
    {R"([1].lastIndexOf(1) == 0)", kType, R"(bool)"},
    {R"([1].indexOf("a") == 0)", kError,
     R"(ERROR: <input>:1:12: found no matching overload for 'indexOf' applied to 'list(int).(string)'
 | [1].indexOf("a") == 0
 | ...........^)"},
    {R"("abc".indexOf("b") == 1)", kType, R"(bool)"},
    {R"([duration("1s")].sum() == duration("1s"))", kType, R"(bool)"},
    {R"([timestamp(1)].max() == timestamp(1))", kType, R"(bool)"},
    {R"(int(duration("1s")) == 1000000000)", kType, R"(bool)"},
    {R"(quantity("1").isGreaterThan(semver("1.0.0")))", kError,
     R"(ERROR: <input>:1:28: found no matching overload for 'isGreaterThan' applied to 'kubernetes.Quantity.(kubernetes.Semver)'
 | quantity("1").isGreaterThan(semver("1.0.0"))
 | ...........................^)"},
    {R"(semver("1.0.0").compareTo(semver("1.0.0")) == 0)", kType, R"(bool)"},
    {R"(semver("1.0.0").isLessThan(quantity("1")))", kError,
     R"(ERROR: <input>:1:27: found no matching overload for 'isLessThan' applied to 'kubernetes.Semver.(kubernetes.Quantity)'
 | semver("1.0.0").isLessThan(quantity("1"))
 | ..........................^)"},
};

class CheckerTest : public ::testing::Test {
 protected:
  void SetUp() override { RegisterProductionLibraries(&registry_); }

  CheckerEnvironment DraEnvironment(const FunctionRegistry& registry) const {
    CheckerEnvironment env;
    env.functions = &registry;
    env.variables.push_back({"device", DraDeviceType()});
    return env;
  }

  // "type T" or "error: ..." for `expr`.
  std::string Outcome(std::string_view expr, const CheckerEnvironment& env) {
    auto parsed = Parse(expr);
    if (!parsed.ok()) return StrCat("error: ", parsed.status().message());
    auto checked = Check(*parsed->root, parsed->source, env);
    if (!checked.ok()) return StrCat("error: ", checked.status().message());
    return StrCat("type ", checked->output_type.ToString());
  }

  template <typename C>
  void RunCases(absl::Span<const C> cases, const CheckerEnvironment& env) {
    for (const C& c : cases) {
      std::string want =
          StrCat(c.expect == kType ? "type " : "error: ", c.want);
      EXPECT_EQ(Outcome(c.expr, env), want) << c.expr;
    }
  }

  FunctionRegistry registry_;
};

TEST_F(CheckerTest, MatchesCelGoInTheDraEnvironment) {
  const std::vector<OwnedCase> cases = LoadDraCases();
  ASSERT_EQ(cases.size(), 448u) << "testdata/checker_dra_cases.json";
  RunCases(absl::MakeConstSpan(cases), DraEnvironment(registry_));
}

TEST_F(CheckerTest, MatchesCelGoForLibrariesNotYetImplemented) {
  FunctionRegistry everything;
  RegisterProductionLibraries(&everything);
  AddStandInsForDeclaredOverloads(&everything);
  RunCases(absl::MakeConstSpan(kLibraryCases), DraEnvironment(everything));
}

TEST_F(CheckerTest, ReportsTypesOfEveryNode) {
  auto parsed = Parse("device.attributes['a'].exists(k, k.size() > 1)");
  ASSERT_TRUE(parsed.ok());
  auto checked =
      Check(*parsed->root, parsed->source, DraEnvironment(registry_));
  ASSERT_TRUE(checked.ok()) << checked.status();
  EXPECT_EQ(checked->output_type.ToString(), "bool");
  // Every node has a type and no free type variable survives.
  std::set<std::string> types;
  for (const auto& [id, t] : checked->types) types.insert(t.ToString());
  EXPECT_EQ(types.count("map(string, dyn)"), 1) << "device.attributes['a']";
  for (const std::string& t : types) {
    EXPECT_EQ(t.find('<'), std::string::npos) << t;
  }
  EXPECT_EQ(checked->references.size(), 1);  // `device`
  bool saw_size = false;
  for (const auto& [id, ids] : checked->overload_ids) {
    if (ids == std::vector<std::string>{"string_size"}) saw_size = true;
  }
  EXPECT_TRUE(saw_size);
}

TEST_F(CheckerTest, NamespacedFunctionsAreRecorded) {
  auto parsed = Parse("optional.of(1).hasValue()");
  ASSERT_TRUE(parsed.ok());
  auto checked =
      Check(*parsed->root, parsed->source, DraEnvironment(registry_));
  ASSERT_TRUE(checked.ok()) << checked.status();
  ASSERT_EQ(checked->namespaced_functions.size(), 1);
  EXPECT_EQ(checked->namespaced_functions.begin()->second, "optional.of");
}

TEST_F(CheckerTest, CrossTypeNumericComparisonsCanBeDisabled) {
  CheckerEnvironment env = DraEnvironment(registry_);
  EXPECT_EQ(Outcome("1 < 1.5", env), "type bool");
  env.cross_type_numeric_comparisons = false;
  EXPECT_EQ(Outcome("1 < 1.5", env),
            "error: ERROR: <input>:1:3: found no matching overload for '_<_' "
            "applied to '(int, double)'\n | 1 < 1.5\n | ..^");
}

TEST_F(CheckerTest, HeterogeneousLiteralsAreDynWithoutTheValidator) {
  CheckerEnvironment env = DraEnvironment(registry_);
  env.homogeneous_aggregate_literals = false;
  EXPECT_EQ(Outcome("[1, 'a']", env), "type list(dyn)");
  EXPECT_EQ(Outcome("{1: 'a', 'b': 2}", env), "type map(dyn, dyn)");
}

TEST_F(CheckerTest, LiteralArgumentValidationCanBeDisabled) {
  CheckerEnvironment env = DraEnvironment(registry_);
  env.validate_literal_arguments = false;
  EXPECT_EQ(Outcome("duration('1x')", env), "type google.protobuf.Duration");
  EXPECT_EQ(Outcome("'a'.matches('[')", env), "type bool");
}

TEST_F(CheckerTest, DeviceTypeVariants) {
  CheckerEnvironment env = DraEnvironment(registry_);
  env.variables.push_back(
      {"device", DraDeviceType({.consumable_capacity = false,
                                .list_type_attributes = false})});
  // The later declaration wins.
  EXPECT_EQ(Outcome("device.attributes['a'].b", env),
            "type google.protobuf.Any");
  // cel-go (NewExpressions environment without DRAListTypeAttributes).
  EXPECT_EQ(Outcome("device.attributes[\"a\"].b.exists(x, x == 1)", env),
            "error: ERROR: <input>:1:23: expression of type 'any' cannot be "
            "range of a comprehension (must be list, map, or dynamic)\n | "
            "device.attributes[\"a\"].b.exists(x, x == 1)\n | "
            "......................^");
  EXPECT_EQ(Outcome("device.attributes['a'].b == 1", env), "type bool");
  // Selecting from `any` gives dyn.
  EXPECT_EQ(Outcome("device.attributes['a'].b.c.d", env), "type dyn");
  EXPECT_EQ(Outcome("device.allowMultipleAllocations", env),
            "error: ERROR: <input>:1:7: undefined field "
            "'allowMultipleAllocations'\n | device.allowMultipleAllocations\n"
            " | ......^");
}

TEST_F(CheckerTest, OnlyRegisteredFunctionsAreDeclared) {
  CheckerEnvironment env;
  EXPECT_EQ(Outcome("1 == 1", env), "type bool");
  EXPECT_EQ(Outcome("1 + 1", env),
            "error: ERROR: <input>:1:3: undeclared reference to '_+_' (in "
            "container '')\n | 1 + 1\n | ..^");
}

TEST_F(CheckerTest, UndeclaredOverloadsAreCheckedLeniently) {
  FunctionOverload o;
  o.function = "future";
  o.overload_id = "string_future_int";
  o.receiver_style = true;
  o.params = {ArgType::Of(ValueKind::kString), ArgType::Of(ValueKind::kInt)};
  o.impl = [](absl::Span<const Value>) { return Value::Int(1); };
  ASSERT_TRUE(registry_.Register(std::move(o)).ok());
  CheckerEnvironment env = DraEnvironment(registry_);
  EXPECT_EQ(Outcome("'a'.future(1)", env), "type dyn");
  EXPECT_EQ(Outcome("1.future('x') == 2", env), "type bool");
  EXPECT_EQ(Outcome("'a'.future()", env),
            "error: ERROR: <input>:1:11: found no matching overload for "
            "'future' applied to 'string.()'\n | 'a'.future()\n | "
            "..........^");
}

TEST_F(CheckerTest, ErrorsBeyondOneHundredAreCounted) {
  std::string expr = "x0";
  for (int i = 1; i < 103; ++i) expr += StrCat(" + x", i);
  std::string out = Outcome(expr, DraEnvironment(registry_));
  EXPECT_EQ(std::count(out.begin(), out.end(), '^'), 100);
  EXPECT_NE(out.find("\n3 more errors were truncated"), std::string::npos);
}

// Every overload the runtime registers has a static declaration, except
// those that cel-go hides from its checker. A new library whose overload
// ids are not in checker_declarations.cc shows up here (it is still
// usable: such overloads are checked leniently).
TEST_F(CheckerTest, RegisteredOverloadsWithoutDeclarations) {
  std::vector<std::string> undeclared, runtime_only;
  for (const std::string& name : registry_.FunctionNames()) {
    for (const FunctionOverload* o : registry_.Overloads(name)) {
      if (IsRuntimeOnlyOverload(name, o->overload_id)) {
        runtime_only.push_back(StrCat(name, " ", o->overload_id));
      } else if (FindOverloadDecl(name, o->overload_id) == nullptr) {
        undeclared.push_back(StrCat(name, " ", o->overload_id));
      }
    }
  }
  EXPECT_EQ(undeclared, std::vector<std::string>{});
  EXPECT_EQ(runtime_only,
            (std::vector<std::string>{
                "_<=_ less_equals_opaque", "_<_ less_opaque",
                "_>=_ greater_equals_opaque", "_>_ greater_opaque",
                "__not_strictly_false__ not_strictly_false"}));
}

// --- Conformance expressions ---

fs::path ConformanceDir() {
  return draplane::testing::SharedDataDir() / "conformance" / "cel-spec";
}

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// "file/section/test | reason" patterns, `*` matching a whole component.
std::vector<std::vector<std::string>> LoadPatterns(const fs::path& p) {
  std::vector<std::vector<std::string>> out;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::string pattern = line.substr(0, line.find(" | "));
    out.push_back(absl::StrSplit(pattern, absl::MaxSplits('/', 2)));
  }
  return out;
}

bool Matches(const std::vector<std::vector<std::string>>& patterns,
             const std::string& file, const std::string& section,
             const std::string& test) {
  const std::string parts[3] = {file, section, test};
  for (const auto& p : patterns) {
    if (p.size() != 3) continue;
    bool ok = true;
    for (int k = 0; k < 3 && ok; ++k) ok = p[k] == "*" || p[k] == parts[k];
    if (ok) return true;
  }
  return false;
}

// A cel.expr.Type message as a Type; nullopt for protobuf message,
// wrapper and function types.
std::optional<Type> ToType(const TextProtoMessage& m) {
  if (m.fields.empty()) return std::nullopt;
  const TextProtoField& f = m.fields[0];
  if (f.name == "dyn") return Type::Dyn();
  if (f.name == "null") return Type::Null();
  if (f.name == "error") return Type::Error();
  if (f.name == "type_param") return Type::Param(f.text);
  if (f.name == "primitive") {
    if (f.text == "BOOL") return Type::Bool();
    if (f.text == "INT64") return Type::Int();
    if (f.text == "UINT64") return Type::Uint();
    if (f.text == "DOUBLE") return Type::Double();
    if (f.text == "STRING") return Type::String();
    if (f.text == "BYTES") return Type::Bytes();
    return std::nullopt;
  }
  if (f.name == "well_known") {
    if (f.text == "TIMESTAMP") return Type::Timestamp();
    if (f.text == "DURATION") return Type::Duration();
    if (f.text == "ANY") return Type::Any();
    return std::nullopt;
  }
  if (f.message == nullptr) return std::nullopt;
  if (f.name == "list_type") {
    auto e = ToType(*f.message->Message("elem_type"));
    if (!e) return std::nullopt;
    return Type::List(*e);
  }
  if (f.name == "map_type") {
    auto k = ToType(*f.message->Message("key_type"));
    auto v = ToType(*f.message->Message("value_type"));
    if (!k || !v) return std::nullopt;
    return Type::Map(*k, *v);
  }
  if (f.name == "type") {
    if (f.message->fields.empty()) return Type::TypeType();
    auto t = ToType(*f.message);
    if (!t) return std::nullopt;
    return Type::TypeOf(*t);
  }
  if (f.name == "abstract_type") {
    std::vector<Type> params;
    for (const TextProtoField* p : f.message->FindAll("parameter_types")) {
      auto t = ToType(*p->message);
      if (!t) return std::nullopt;
      params.push_back(*t);
    }
    std::string name = f.message->Scalar("name").value_or("");
    if (name == "optional_type" && params.size() == 1) {
      return Type::Optional(params[0]);
    }
    return Type::Opaque(name, std::move(params));
  }
  return std::nullopt;
}

// Runs the checker over every cel-spec conformance expression that cel-go
// type-checks (all tests without disable_check) and that draplane runs
// (not skipped, not a known failure), in cel-go's conformance environment
// (no homogeneous literal validator, no cross-type numeric comparisons):
// none may be rejected, and where the test states the deduced type
// (typed_result) the output type must be it. type_deduction, which the
// runtime suite skips, is run here too, except for tests that need protobuf
// messages or declared functions.
TEST(CheckerConformanceTest, AcceptsEveryCheckedConformanceExpression) {
  fs::path dir = ConformanceDir();
  DRAPLANE_REQUIRE_SHARED_DATA(dir);
  fs::path here = fs::path(DRAPLANE_SOURCE_DIR) / "src" / "cel";
  auto skips = LoadPatterns(here / "conformance_skips.txt");
  FunctionRegistry registry;
  RegisterProductionLibraries(&registry);
  AddStandInsForDeclaredOverloads(&registry);

  int checked = 0, typed = 0, not_representable = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".textproto") continue;
    std::string file = entry.path().stem().string();
    auto doc = testing::ParseTextProto(ReadFile(entry.path()));
    ASSERT_TRUE(doc.ok()) << entry.path() << ": " << doc.status();
    for (const TextProtoField* s : doc->FindAll("section")) {
      std::string section = s->message->Scalar("name").value_or("");
      for (const TextProtoField* t : s->message->FindAll("test")) {
        const TextProtoMessage& test = *t->message;
        std::string name = test.Scalar("name").value_or("");
        if (test.Scalar("disable_check") == "true") continue;
        // cel-go's network extension is not Kubernetes' IP library.
        if (file == "network_ext") continue;
        // String `reverse` is ext.Strings version 3; Kubernetes uses version
        // 2 and rejects these expressions at compile time too.
        if (file == "string_ext" && section == "reverse") continue;
        // cel-go v0.29.2 itself deduces null_type here (the join of
        // optional_type(int) and null is null); the cel-spec expectation is
        // ahead of it.
        if (name == "null_assignable_to_abstract_parameter_candidate") continue;
        if (file != "type_deduction" && Matches(skips, file, section, name)) {
          continue;
        }
        if (!test.Scalar("container").value_or("").empty()) continue;
        CheckerEnvironment env;
        env.functions = &registry;
        env.homogeneous_aggregate_literals = false;
        env.cross_type_numeric_comparisons = false;
        env.validate_literal_arguments = false;
        bool representable = true;
        for (const TextProtoField* d : test.FindAll("type_env")) {
          const TextProtoMessage* ident = d->message->Message("ident");
          const TextProtoMessage* type_message =
              ident != nullptr ? ident->Message("type") : nullptr;
          std::optional<Type> type =
              type_message != nullptr ? ToType(*type_message) : std::nullopt;
          if (!type) {
            representable = false;
            break;
          }
          env.variables.push_back(
              {d->message->Scalar("name").value_or(""), *type});
        }
        std::optional<Type> want;
        if (const TextProtoMessage* r = test.Message("typed_result")) {
          const TextProtoMessage* deduced = r->Message("deduced_type");
          if (deduced != nullptr) want = ToType(*deduced);
          if (!want) representable = false;
        }
        if (!representable) {
          ++not_representable;
          continue;
        }
        std::string full = StrCat(file, "/", section, "/", name);
        std::string expr = test.Scalar("expr").value_or("");
        ParserOptions options;
        options.enable_macros = test.Scalar("disable_macros") != "true";
        auto parsed = Parse(expr, options);
        if (!parsed.ok()) continue;  // the runtime suite reports these
        auto result = Check(*parsed->root, parsed->source, env);
        ++checked;
        if (!result.ok()) {
          if (file == "type_deduction" &&
              expr.find("TestAllTypes") != std::string::npos) {
            continue;  // protobuf messages
          }
          ADD_FAILURE() << full << " (" << expr << "): " << result.status();
          continue;
        }
        if (want) {
          ++typed;
          EXPECT_TRUE(result->output_type.IsExact(*want))
              << full << " (" << expr << "): got "
              << result->output_type.ToString() << ", want "
              << want->ToString();
        }
      }
    }
  }
  std::cout << "checker over conformance expressions: " << checked
            << " checked, " << typed << " with a deduced type, "
            << not_representable
            << " needing protobuf types or declared functions\n";
  EXPECT_GT(checked, 1000);
}

}  // namespace
}  // namespace draplane::cel::internal
