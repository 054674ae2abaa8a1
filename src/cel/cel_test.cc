#include "cel/cel.h"

#include <string>

#include "cel/internal/a100_test_device.h"
#include "gtest/gtest.h"

namespace draplane::cel {
namespace {

using internal::A100TestDevice;

class SelectorTest : public ::testing::Test {
 protected:
  absl::StatusOr<bool> Match(std::string_view expr) {
    auto program = Compiler::Default().CompileSelector(expr);
    if (!program.ok()) return program.status();
    auto device = Device::Create("gpu.nvidia.com", A100TestDevice());
    if (!device.ok()) return device.status();
    return (*program)->Matches(*device);
  }
};

TEST_F(SelectorTest, SeedSelectorsMatch) {
  EXPECT_EQ(*Match("device.driver == 'gpu.nvidia.com' && "
                   "device.attributes['gpu.nvidia.com'].productName == "
                   "'NVIDIA A100 80GB PCIe'"),
            true);
  EXPECT_EQ(*Match("device.capacity['gpu.nvidia.com'].memory.compareTo("
                   "quantity('40Gi')) >= 0"),
            true);
  EXPECT_EQ(*Match("device.attributes['gpu.nvidia.com'].cudaComputeCapability"
                   ".isGreaterThan(semver('9.0.0'))"),
            false);
  // Bare and qualified names land in the driver's domain alike.
  EXPECT_EQ(*Match("device.attributes['gpu.nvidia.com'].type == 'gpu'"), true);
  EXPECT_EQ(*Match("device.attributes['other.com'].x"), true);
  EXPECT_EQ(*Match("device.allowMultipleAllocations"), false);
}

TEST_F(SelectorTest, UnknownDomainIsEmptyMapButNotMember) {
  EXPECT_EQ(*Match("\"a\" in device.attributes"), false);
  EXPECT_EQ(*Match("'gpu.nvidia.com' in device.attributes"), true);
  EXPECT_EQ(*Match("size(device.attributes['nope']) == 0"), true);
  // Upstream's lookup default makes a presence test on the outer map true.
  EXPECT_EQ(*Match("has(device.attributes.x)"), true);
  EXPECT_EQ(*Match("device.attributes['gpu.nvidia.com'].?nope.orValue(7) == 7"),
            true);
  EXPECT_EQ(*Match("has(device.attributes['gpu.nvidia.com'].nope)"), false);
}

TEST_F(SelectorTest, MissingAttributeIsAnErrorWithUpstreamHint) {
  absl::StatusOr<bool> r = Match("device.attributes[\"x\"].y");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "no such key: y. consider using CEL optional chaining (.? followed "
            "by orValue()) or guarding the check with has() for optional "
            "fields");
}

TEST_F(SelectorTest, NonBoolResultsAreErrors) {
  absl::StatusOr<bool> r = Match("device.attributes['gpu.nvidia.com'].index");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "CEL result of type int could not be converted to bool: "
            "unsupported type conversion from 'int' to bool");
  r = Match("device.attributes['gpu.nvidia.com'].cudaComputeCapability");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "CEL result of type kubernetes.Semver could not be converted to "
            "bool: type conversion error from 'Semver' to 'bool'");
}

TEST_F(SelectorTest, SyntaxErrorsCarryPositionAndCaret) {
  absl::StatusOr<bool> r = Match("device.driver ==");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "compilation failed: ERROR: <input>:1:17: Syntax error: mismatched "
            "input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', "
            "'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, "
            "IDENTIFIER}\n | device.driver ==\n | ................^");
}

TEST_F(SelectorTest, CostLimitStopsEvaluation) {
  auto program = Compiler::Default().CompileSelector(
      "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, "
      "[1,2,3,4,5,6,7,8,9,10].all(c, a + b + c > 0)))");
  ASSERT_TRUE(program.ok()) << program.status();
  auto device = Device::Create("gpu.nvidia.com", A100TestDevice());
  ASSERT_TRUE(device.ok());
  EXPECT_EQ(*(*program)->Matches(*device), true);
  absl::StatusOr<bool> r = (*program)->Matches(*device, /*cost_limit=*/100);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "operation cancelled: actual cost limit exceeded");
}

// Kubernetes plans with cel-go's OptOptimize: constant literals are built
// once and cost nothing, `in` a constant list is a free set lookup, and a
// constant conversion that fails is a compile error (checked with draref).
TEST_F(SelectorTest, OptimizedPlansCostWhatKubernetesCharges) {
  auto device = Device::Create("gpu.nvidia.com", A100TestDevice());
  ASSERT_TRUE(device.ok());
  auto cost = [&](std::string_view expr) {
    auto program = Compiler::Default().CompileSelector(expr);
    EXPECT_TRUE(program.ok()) << program.status();
    return (*program)->Evaluate(*device).cost;
  };
  EXPECT_EQ(cost("device.driver in ['a', 'gpu.nvidia.com']"), 2u);
  EXPECT_EQ(cost("{'a': 1}.a == 1"), 2u);
  EXPECT_EQ(cost("int('5') == 5"), 1u);
  EXPECT_EQ(*Match("dyn(1/0) in []"), false);
  absl::StatusOr<bool> bad_regex = Match("device.driver.find('[') == ''");
  ASSERT_FALSE(bad_regex.ok());
  EXPECT_EQ(std::string(bad_regex.status().message()),
            "program instantiation failed: error parsing regexp: missing "
            "closing ]: `[`");
  absl::StatusOr<bool> r = Match("int('x') == 1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(std::string(r.status().message()),
            "program instantiation failed: type conversion error from "
            "'string' to 'int'");
}

// Compiler::Shared hands out one compiler per feature set for the process,
// with that feature set's environment.
TEST(CompilerTest, SharedIsOnePerFeatureSet) {
  const DeviceFeatures lists{.consumable_capacity = true,
                             .list_type_attributes = true};
  const DeviceFeatures plain{.consumable_capacity = false,
                             .list_type_attributes = false};
  EXPECT_EQ(&Compiler::Shared(lists), &Compiler::Shared(lists));
  EXPECT_EQ(&Compiler::Shared(plain), &Compiler::Shared(plain));
  EXPECT_NE(&Compiler::Shared(lists), &Compiler::Shared(plain));
  EXPECT_TRUE(
      Compiler::Shared(lists).CompileSelector("[1].includes(1)", true).ok());
  EXPECT_FALSE(Compiler::Shared(plain)
                   .CompileSelector("device.allowMultipleAllocations", true)
                   .ok());
}

// API validation compiles new selectors in upstream's NewExpressions
// environment (compatibility version 1.36, feature gates honoured); the
// scheduler in StoredExpressions (everything ever introduced).
TEST(CompilerTest, ValidationAndSchedulingEnvironmentsDiffer) {
  const Compiler& c = Compiler::Default();
  EXPECT_TRUE(c.CompileSelector("[1].includes(1)").ok());
  absl::StatusOr<std::shared_ptr<const Program>> p =
      c.CompileSelector("[1].includes(1)", /*for_validation=*/true);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(std::string(p.status().message())
                .find("undeclared reference to 'includes'"),
            std::string::npos)
      << p.status();
  EXPECT_TRUE(Compiler(DeviceFeatures{.consumable_capacity = true,
                                      .list_type_attributes = true})
                  .CompileSelector("[1].includes(1)", true)
                  .ok());
  Compiler no_consumable(DeviceFeatures{.consumable_capacity = false});
  p = no_consumable.CompileSelector("device.allowMultipleAllocations", true);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(std::string(p.status().message())
                .find("undefined field 'allowMultipleAllocations'"),
            std::string::npos)
      << p.status();
  EXPECT_TRUE(
      no_consumable.CompileSelector("device.allowMultipleAllocations").ok());
  // Cost estimation only for validation.
  p = c.CompileSelector("device.driver == 'dra.example.com'", true);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->estimated_max_cost(), 4u);  // compile_test.go
  p = c.CompileSelector(
      "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, "
      "[1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, "
      "[1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, "
      "[1,2,3,4,5,6,7,8,9,10].all(g, a+b+c+d+e+f+g > 0)))))))",
      true);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(p.status().message(), "too complex, exceeds cost limit");
}

TEST(DeviceTest, InvalidVersionAttributeIsRejectedLikeUpstream) {
  api::Device d;
  d.attributes["v"] = api::DeviceAttribute::Version("1.0");
  absl::StatusOr<Device> device = Device::Create("x.example.com", d);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.status().message(),
            "attribute v: parse semantic version: No Major.Minor.Patch "
            "elements found");
}

TEST(EvaluateTest, RendersValuesAsJson) {
  auto eval = [](std::string_view expr,
                 std::map<std::string, api::Json> vars = {}) {
    std::vector<std::string> names;
    for (const auto& [name, _] : vars) names.push_back(name);
    auto program = Compiler::Default().CompileExpression(expr, names);
    EXPECT_TRUE(program.ok()) << program.status();
    return (*program)->Evaluate(vars);
  };
  Evaluation e = eval("quantity('1.5Gi').add(1)");
  EXPECT_EQ(e.type, "kubernetes.Quantity");
  EXPECT_EQ(e.value, "1610612737");
  e = eval(
      "[dyn(1), dyn(2u), dyn(2.5), dyn(b'ab'), dyn(duration('90s')), "
      "dyn(timestamp(0)), dyn(semver('1.2.3'))]");
  EXPECT_EQ(e.type, "list");
  EXPECT_EQ(e.value.dump(),
            R"([1,2,2.5,"YWI=","90s","1970-01-01T00:00:00Z","1.2.3"])");
  e = eval("n + 1", {{"n", api::Json(41)}});
  EXPECT_EQ(e.type, "int");
  EXPECT_EQ(e.value, 42);
  e = eval("m.a.size()", {{"m", api::Json::parse(R"({"a":[1,2]})")}});
  EXPECT_EQ(e.value, 2);
  e = eval("1 / 0");
  ASSERT_TRUE(e.error.has_value());
  EXPECT_EQ(*e.error, "division by zero");
  e = eval("optional.none()");
  EXPECT_EQ(e.type, "optional_type");
  EXPECT_TRUE(e.value.is_null());
}

}  // namespace
}  // namespace draplane::cel
