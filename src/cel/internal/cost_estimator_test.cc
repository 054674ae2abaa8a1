#include "cel/internal/cost_estimator.h"

#include <limits>

#include "cel/internal/checker.h"
#include "cel/internal/checker_declarations.h"
#include "cel/internal/checker_test_support.h"
#include "cel/internal/parser.h"
#include "gtest/gtest.h"

namespace draplane::cel::internal {
namespace {

struct CostCase {
  const char* expr;
  uint64_t max_cost;
};

// The worst-case estimates of k8s.io/dynamic-resource-allocation v0.37.2
// cel/compile_test.go (TestCEL expectCost), as Kubernetes computes them
// when validating a DRA selector.
constexpr CostCase kKubernetesTestFigures[] = {
    {R"(device.driver == "dra.example.com")", 4},
    {R"(device.attributes["dra.example.com"].name)", 4},
    {R"(cel.bind(dra, device.attributes["dra.example.com"], dra.name))", 15},
    {R"(device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1")))",
     6},
    {R"(device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))",
     6},
    {R"(device.attributes.exists_one(x, x == "dra.example.com"))", 164},
    {R"(device.attributes["dra.example.com"].services.matches("[^a]?sym"))",
     18},
    {R"(device.attributes["dra.example.com"].name.includes("fish"))", 4 + 64},
    {R"(device.attributes["dra.example.com"].name.exists(x, x > 0))",
     5 + (3 + 3) * 64},
    // Seven nested `all` over 10-element lists: rejected (limit 1,000,000).
    {R"([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100))))))))",
     85555551},
};

// More estimates from the same compiler (CompileCELExpression(expr,
// Options{}).MaxCost with the DRAConsumableCapacity and
// DRAListTypeAttributes features, stored-expressions environment),
// covering the standard library, the Kubernetes and cel-go extension
// libraries, comprehensions, literals and optionals.
constexpr CostCase kKubernetesEstimates[] = {
    {R"(true)", 0},
    {R"(device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0")))",
     6},
    {R"(device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0")))",
     6},
    {R"("no-such-domain" in device.attributes)", 3},
    {R"(device.driver == "")", 2},
    {R"(device.driver == "dra.example.com")", 4},
    {R"(device.attributes["dra.example.com"].name)", 4},
    {R"(device.attributes["dra.example.com"]["name"])", 4},
    {R"(cel.bind(dra, device.attributes["dra.example.com"], dra.name))", 15},
    {R"(device.attributes["dra.example.com"].name > 0)", 5},
    {R"(device.attributes["dra.example.com"].name == "fish")", 5},
    {R"(device.attributes["dra.example.com"].name.exists(x, x > 0))", 389},
    {R"(device.attributes["dra.example.com"].name.includes("fish"))", 68},
    {R"(device.attributes["dra.example.com"].names.size() == 2)", 6},
    {R"(device.attributes["dra.example.com"].names.all(x, x != ""))", 261},
    {R"(device.attributes["dra.example.com"].names.all(x, x.isGreaterThan(semver("0.0.1"))))",
     389},
    {R"(device.attributes["dra.example.com"].name.includes(semver("1.0.0")))",
     69},
    {R"(1 in device.attributes["dra.example.com"].names)", 68},
    {R"(device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1")))",
     6},
    {R"(device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true))",
     7},
    {R"(device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))",
     6},
    {R"("name" in device.capacity["dra.example.com"] && device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))",
     10},
    {R"(!("name" in device.capacity["dra.example.com"]) || device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))",
     11},
    {R"(device.attributes["dra.example.com"].a && device.attributes["dra.example.com"].b && device.attributes["dra.example.com"].c)",
     12},
    {R"(device.attributes.exists_one(x, x == "dra.example.com"))", 164},
    {R"(device.attributes["dra.example.com"].exists_one(x, x == "services"))",
     133},
    {R"(device.attributes["dra.example.com"].services.split("example").size() >= 2)",
     19},
    {R"(device.attributes["dra.example.com"].services.matches("[^a]?sym"))",
     18},
    {R"(device.capacity.exists_one(x, x == "dra.example.com"))", 164},
    {R"(device.capacity["dra.example.com"].exists_one(x, x == "memory"))", 133},
    {R"([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100))))))))",
     85555551},
    {R"([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.substring(0)) < 100))))))))",
     75555551},
    {R"(device.allowMultipleAllocations == true)", 3},
    {R"(device.allowMultipleAllocations == false)", 3},
    {R"(device.driver.startsWith("gpu"))", 3},
    {R"(device.driver.endsWith("gpu"))", 3},
    {R"(device.driver.contains("gpu"))", 9},
    {R"(device.driver.matches("^gpu.*$"))", 16},
    {R"(matches(device.driver, "^gpu.*$"))", 16},
    {R"(device.driver + "x" == "y")", 10},
    {R"(device.driver < "x")", 3},
    {R"(device.driver.size() > 3)", 4},
    {R"(size(device.driver) > 3)", 4},
    {R"(device.driver in ["a", "b", "c"])", 15},
    {R"(device.driver in {"a": 1})", 33},
    {R"(device.attributes["a"].b in ["x", "y"])", 16},
    {R"(device.attributes["a"].b in device.attributes["a"].c)", 72},
    {R"([1, 2, 3].exists(x, x == 2))", 29},
    {R"([1, 2, 3].map(x, x * 2).size() == 3)", 65},
    {R"([1, 2, 3].filter(x, x > 1).size() == 2)", 68},
    {R"([1, 2, 3].map(x, x > 1, x * 2).size() == 2)", 71},
    {R"(["a", "b"].all(x, x.startsWith(device.driver)))", 37},
    {R"(device.attributes.all(d, device.attributes[d].all(n, n.size() > 1)))",
     6403},
    {R"(device.attributes.all(d, device.attributes[d].all(n, device.attributes[d][n] == "x")))",
     10499},
    {R"(device.attributes.all(d, v, v.all(n, w, w == "x")))", 5283},
    {R"(device.attributes.exists(d, v, d.startsWith("gpu") && v.size() > 0))",
     291},
    {R"(device.capacity.all(d, v, v.all(n, q, q.isGreaterThan(quantity("1")))))",
     6307},
    {R"({"a": 1}.all(k, v, v > 0))", 36},
    {R"([1, 2].all(i, v, i < v))", 23},
    {R"([1, 2].transformList(i, v, v * 2).size() == 2)", 51},
    {R"({"a": 1}.transformMap(k, v, v * 2).size() == 1)", 68},
    {R"(device.attributes["a"].?b.orValue("x") == "y")", 6},
    {R"(device.attributes[?"a"].hasValue())", 4},
    {R"(optional.of(device.driver).orValue("x") == "y")", 5},
    {R"(device.driver == "a" ? true : false)", 3},
    {R"((device.driver == "a" ? device.attributes["x"].y : device.attributes["z"].w) == 1)",
     8},
    {R"((true ? [1, 2] : [3]).size() == 2)", 12},
    {R"((true ? "abc" : device.driver).size() == 2)", 4},
    {R"([device.driver, "x"].exists(s, s == "y"))", 25},
    {R"([device.driver, "x"].exists(s, s.contains("y")))", 37},
    {R"({"k": device.driver}.exists(k, {"k": device.driver}[k].contains("y")))",
     78},
    {R"(device.driver.lowerAscii() == "x")", 10},
    {R"(device.driver.upperAscii() == "x")", 10},
    {R"(device.driver.substring(1) == "x")", 10},
    {R"(device.driver.trim() == "x")", 10},
    {R"(device.driver.replace("a", "b") == "x")", 16},
    {R"(device.driver.replace("a", "bc") == "x")", 16},
    {R"(device.driver.replace("", "b") == "x")", 16},
    {R"(device.driver.split(".").size() > 1)", 17},
    {R"(device.driver.split(".", 2).size() > 1)", 17},
    {R"(device.driver.split(".").join("-") == "x")", 1844674407370955280},
    {R"(["a", "b"].join(",") == "a,b")", 1844674407370955275},
    {R"(device.driver.charAt(1) == "x")", 4},
    {R"(device.driver.indexOf("x") > 0)", 10},
    {R"(device.driver.lastIndexOf("x") > 0)", 10},
    {R"(strings.quote(device.driver) == "x")", 10},
    {R"(bytes(device.driver).size() > 0)", 11},
    {R"(string(bytes(device.driver)) == "x")", 36},
    {R"(device.driver.find("[a-z]+") == "x")", 17},
    {R"(device.driver.findAll("[a-z]+").size() > 0)", 18},
    {R"(device.driver.findAll("[a-z]+", 2).size() > 0)", 18},
    {R"(isQuantity(device.driver))", 9},
    {R"(quantity(device.driver).isInteger())", 10},
    {R"(semver(device.driver).major() > 0)", 11},
    {R"(isSemver(device.driver))", 9},
    {R"(url(device.driver).getHost() == "x")", 11},
    {R"(isURL(device.driver))", 3},
    {R"(ip(device.driver).family() == 4)", 11},
    {R"(isIP(device.driver))", 9},
    {R"(cidr(device.driver).containsIP("1.2.3.4"))", 14},
    {R"(cidr(device.driver).containsIP(ip("1.2.3.4")))", 14},
    {R"(cidr(device.driver).containsCIDR("1.2.3.0/24"))", 17},
    {R"(cidr(device.driver).containsCIDR(cidr("1.2.3.0/24")))", 17},
    {R"(ip.isCanonical(device.driver))", 15},
    {R"(cidr("1.2.3.0/24").ip().isLoopback())", 3},
    {R"(ip("1.2.3.4") == ip("1.2.3.5"))", 3},
    {R"(cidr("1.2.3.0/24") == cidr("1.2.3.0/24"))", 3},
    {R"(url("http://a") == url("http://b"))", 3},
    {R"(quantity("1") == quantity("2"))", 3},
    {R"(semver("1.0.0") == semver("1.0.1"))", 3},
    {R"(format.named("dns1123Label").hasValue())", 2},
    {R"(format.dns1123Label().validate(device.driver).hasValue())", 228},
    {R"(format.dns1123Label() == format.dns1123Label())", 9},
    {R"([1, 2, 3].isSorted())", 13},
    {R"(["a", "b"].isSorted())", 3689348814741910540},
    {R"([1, 2, 3].sum() == 6)", 14},
    {R"([1, 2, 3].max() == 3)", 14},
    {R"([1, 2, 3].indexOf(2) == 1)", 14},
    {R"(["a"].indexOf("a") == 0)", 1844674407370955276},
    {R"([1, 2].slice(0, 1).size() == 1)", 24},
    {R"([[1], [2]].flatten().size() == 2)", 45},
    {R"([[1], [2]].flatten(1).size() == 2)", 45},
    {R"(lists.range(10).size() == 10)", 23},
    {R"(lists.range(10).exists(x, x == 5))", 82},
    {R"([1, 2].reverse().size() == 2)", 25},
    {R"([1, 2, 2].distinct().size() == 2)", 41},
    {R"([3, 1].sort().size() == 2)", 31},
    {R"(["b", "a"].sort().size() == 2)", 32},
    {R"(sets.contains([1, 2], [1]))", 23},
    {R"(sets.intersects([1, 2], [1]))", 23},
    {R"(sets.equivalent([1, 2], [1, 2]))", 29},
    {R"(sets.contains(device.attributes["a"].b, [1]))", 79},
    {R"([1].includes(1))", 11},
    {R"(device.attributes["a"].b.includes(1))", 68},
    {R"(device.attributes["a"].b.isSorted())", 11},
    {R"(device.attributes["a"].b.sum() == 1)", 12},
    {R"([device.attributes["a"].b].isSorted())", 15},
    {R"(has(device.attributes.a))", 2},
    {R"(has(device.attributes.a.b))", 3},
    {R"(dyn(device.driver) == "x")", 4},
    {R"(dyn(device).driver == "x")", 3},
    {R"(type(device.driver) == string)", 1844674407370955268},
    {R"(int(device.attributes["a"].b) > 1)", 6},
    {R"(double(device.attributes["a"].b) > 1.0)", 6},
    {R"(string(device.attributes["a"].b) == "x")", 12},
    {R"(timestamp(device.driver) > timestamp(0))", 5},
    {R"(duration(device.driver) > duration("1s"))", 5},
    {R"([1, 2] + [3] == [1, 2, 3])", 32},
    {R"(([1, 2] + [3]).exists(x, x == 3))", 40},
    {R"((device.driver + device.driver).size() > 1)", 19},
    {R"(device.attributes["a"].b + device.attributes["a"].c == "x")", 22},
    {R"(device.attributes.map(d, d).size() > 0)", 431},
    {R"(device.attributes.map(d, d + "x").exists(s, s == "y"))", 846},
    {R"(device.attributes.filter(d, d.size() > 1).exists(s, s == "y"))", 718},
    {R"(cel.bind(x, device.driver, x + x == "y"))", 28},
    {R"(cel.bind(x, [device.driver], x.exists(y, y == "a")))", 30},
    {R"(cel.bind(x, device.attributes, x.exists(y, y == "a")))", 206},
    {R"(cel.bind(x, {"a": device.driver}, x.a == "y"))", 45},
    {R"({"a": device.driver}.a == "y")", 34},
    {R"({"a": device.driver}["a"] == "y")", 34},
    {R"([device.driver][0] == "y")", 14},
    {R"([device.driver, "abc"][0].contains("y"))", 20},
    {R"({"a": [1, 2]}["a"].exists(x, x == 1))", 54},
    {R"(optional.of([1, 2]).value().exists(x, x == 1))", 18446744073709551615u},
    {R"([[1, 2], [3]].exists(l, l.exists(x, x == 1)))", 67},
    {R"([[1, 2], [3]].map(l, l.size()).exists(x, x == 1))", 82},
    {R"(device.attributes["a"].b.exists(x, x == 1))", 389},
    {R"(device.attributes["a"].b.map(x, x).size() > 0)", 849},
    {R"(device.attributes["a"].b.size() > 0 && device.attributes["a"].b[0] == 1)",
     12},
    {R"(device.attributes["a"].b[0] == "x")", 6},
    {R"(device.capacity["a"]["b"] == quantity("1"))", 6},
    {R"(device.capacity["a"]["b"].compareTo(quantity("1")) > 0)", 7},
    {R"(device.capacity["a"].b.add(quantity("1")).isInteger())", 7},
    {R"(device.capacity["a"].b.sub(1).isInteger())", 6},
    {R"(device.capacity["a"].b.asApproximateFloat() > 1.0)", 6},
    {R"(device.capacity["a"].b.asInteger() > 1)", 6},
    {R"(sign(device.capacity["a"].b) > 0)", 6},
    {R"(device.attributes["a"].b.compareTo(semver("1.0.0")) > 0)", 7},
    {R"(device.attributes["a"].b.major() > 0)", 6},
    {R"(!device.allowMultipleAllocations)", 3},
    {R"(-device.attributes["a"].b < 0)", 6},
    {R"(device.attributes["a"].b % 2 == 0)", 6},
    {R"(1.0 / device.attributes["a"].b > 0.0)", 6},
    {R"("%s".format([device.driver]) == "x")", 14},
};

// The same compiler without the two features, for new expressions
// (Options{EnvType: NewExpressions}): attribute values are
// google.protobuf.Any.
constexpr CostCase kKubernetesEstimatesWithoutFeatures[] = {
    {R"(device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0")))",
     6},
    {R"(device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0")))",
     6},
    {R"("no-such-domain" in device.attributes)", 3},
    {R"(device.attributes["dra.example.com"].name)", 4},
    {R"(device.attributes["dra.example.com"]["name"])", 4},
    {R"(cel.bind(dra, device.attributes["dra.example.com"], dra.name))", 15},
    {R"(device.attributes["dra.example.com"].name > 0)", 5},
    {R"(device.attributes["dra.example.com"].name == "fish")", 5},
    {R"(device.attributes["dra.example.com"].names.size() == 2)", 6},
    {R"(1 in device.attributes["dra.example.com"].names)", 68},
    {R"(device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1")))",
     6},
    {R"(device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true))",
     7},
    {R"(device.attributes["dra.example.com"].a && device.attributes["dra.example.com"].b && device.attributes["dra.example.com"].c)",
     12},
    {R"(device.attributes.exists_one(x, x == "dra.example.com"))", 164},
    {R"(device.attributes["dra.example.com"].exists_one(x, x == "services"))",
     133},
    {R"(device.attributes["dra.example.com"].services.split("example").size() >= 2)",
     19},
    {R"(device.attributes["dra.example.com"].services.matches("[^a]?sym"))",
     18},
    {R"(device.attributes["a"].b in ["x", "y"])", 16},
    {R"(device.attributes["a"].b in device.attributes["a"].c)", 72},
    {R"(device.attributes.all(d, device.attributes[d].all(n, n.size() > 1)))",
     6403},
    {R"(device.attributes.all(d, device.attributes[d].all(n, device.attributes[d][n] == "x")))",
     10499},
    {R"(device.attributes.all(d, v, v.all(n, w, w == "x")))", 5283},
    {R"(device.attributes.exists(d, v, d.startsWith("gpu") && v.size() > 0))",
     291},
    {R"(device.attributes["a"].?b.orValue("x") == "y")", 6},
    {R"(device.attributes[?"a"].hasValue())", 4},
    {R"((device.driver == "a" ? device.attributes["x"].y : device.attributes["z"].w) == 1)",
     8},
    {R"(sets.contains(device.attributes["a"].b, [1]))", 79},
    {R"(device.attributes["a"].b.isSorted())", 11},
    {R"(device.attributes["a"].b.sum() == 1)", 12},
    {R"([device.attributes["a"].b].isSorted())", 15},
    {R"(has(device.attributes.a))", 2},
    {R"(has(device.attributes.a.b))", 3},
    {R"(int(device.attributes["a"].b) > 1)", 6},
    {R"(double(device.attributes["a"].b) > 1.0)", 6},
    {R"(string(device.attributes["a"].b) == "x")", 12},
    {R"(device.attributes["a"].b + device.attributes["a"].c == "x")", 22},
    {R"(device.attributes.map(d, d).size() > 0)", 431},
    {R"(device.attributes.map(d, d + "x").exists(s, s == "y"))", 846},
    {R"(device.attributes.filter(d, d.size() > 1).exists(s, s == "y"))", 718},
    {R"(cel.bind(x, device.attributes, x.exists(y, y == "a")))", 206},
    {R"(device.attributes["a"].b.size() > 0 && device.attributes["a"].b[0] == 1)",
     12},
    {R"(device.attributes["a"].b[0] == "x")", 6},
    {R"(device.attributes["a"].b.compareTo(semver("1.0.0")) > 0)", 7},
    {R"(device.attributes["a"].b.major() > 0)", 6},
    {R"(-device.attributes["a"].b < 0)", 6},
    {R"(device.attributes["a"].b % 2 == 0)", 6},
    {R"(1.0 / device.attributes["a"].b > 0.0)", 6},
};

class CostEstimatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterProductionLibraries(&registry_);
    AddStandInsForDeclaredOverloads(&registry_);
  }

  // The maximum estimated cost of `expr` as a DRA selector.
  absl::StatusOr<CostEstimate> Estimate(std::string_view expr,
                                        const DraDeviceTypeOptions& device = {},
                                        bool with_sizes = true,
                                        bool presence_test_has_cost = false) {
    auto parsed = Parse(expr);
    if (!parsed.ok()) return parsed.status();
    CheckerEnvironment env;
    env.functions = &registry_;
    env.variables.push_back({"device", DraDeviceType(device)});
    auto checked = Check(*parsed->root, parsed->source, env);
    if (!checked.ok()) return checked.status();
    auto sizes = NewDraDeviceSizeEstimator(device);
    CostOptions options;
    options.sizes = with_sizes ? sizes.get() : nullptr;
    options.presence_test_has_cost = presence_test_has_cost;
    return EstimateCost(*parsed->root, *checked, options);
  }

  void ExpectMaxCosts(absl::Span<const CostCase> cases,
                      const DraDeviceTypeOptions& device) {
    for (const CostCase& c : cases) {
      auto cost = Estimate(c.expr, device);
      ASSERT_TRUE(cost.ok()) << c.expr << ": " << cost.status();
      EXPECT_EQ(cost->max, c.max_cost) << c.expr;
      EXPECT_LE(cost->min, cost->max) << c.expr;
    }
  }

  FunctionRegistry registry_;
};

TEST_F(CostEstimatorTest, KubernetesCompileTestFigures) {
  ExpectMaxCosts(kKubernetesTestFigures, {});
}

TEST_F(CostEstimatorTest, MatchesKubernetesEstimates) {
  ExpectMaxCosts(kKubernetesEstimates, {});
}

TEST_F(CostEstimatorTest, MatchesKubernetesEstimatesWithoutFeatures) {
  ExpectMaxCosts(kKubernetesEstimatesWithoutFeatures,
                 {.consumable_capacity = false, .list_type_attributes = false});
}

TEST_F(CostEstimatorTest, MinimumCosts) {
  auto cost = Estimate(R"(device.driver == "a" || device.driver == "b")");
  ASSERT_TRUE(cost.ok());
  // `||` may stop after its left side.
  EXPECT_EQ(*cost, (CostEstimate{3, 6}));
  // Minimum and maximum as cel-go's env.EstimateCost reports them.
  const std::pair<const char*, CostEstimate> cases[] = {
      {"[1, 2, 3].exists(x, x == 2)", {23, 29}},
      {"true || false", {0, 0}},
      {R"("abc" == "abd" || "a".contains("b"))", {1, 2}},
      {"[1,2,3].map(x, x * 2).size() == 3", {65, 65}},
  };
  for (const auto& [expr, want] : cases) {
    cost = Estimate(expr);
    ASSERT_TRUE(cost.ok()) << expr;
    EXPECT_EQ(*cost, want) << expr;
  }
}

TEST_F(CostEstimatorTest, PresenceTestCostIsAnOption) {
  auto free = Estimate("has(device.attributes.a)");
  auto charged = Estimate("has(device.attributes.a)", {}, true,
                          /*presence_test_has_cost=*/true);
  ASSERT_TRUE(free.ok() && charged.ok());
  EXPECT_EQ(charged->max, free->max + 1);
}

TEST_F(CostEstimatorTest, UnknownSizesSaturate) {
  // Without the device's declared sizes, iterating its maps has no bound.
  auto cost = Estimate("device.attributes.exists(d, d == 'x')", {},
                       /*with_sizes=*/false);
  ASSERT_TRUE(cost.ok());
  EXPECT_EQ(cost->max, std::numeric_limits<uint64_t>::max());
}

TEST_F(CostEstimatorTest, RejectsACheckedExpressionOfAnotherTree) {
  auto a = Parse("1 + 1");
  auto b = Parse("[1, 2].size()");
  ASSERT_TRUE(a.ok() && b.ok());
  CheckerEnvironment env;
  env.functions = &registry_;
  auto checked = Check(*a->root, a->source, env);
  ASSERT_TRUE(checked.ok());
  // Node ids of `b` are not described by `checked`'s root.
  CheckedExpr empty;
  EXPECT_FALSE(EstimateCost(*b->root, empty).ok());
  EXPECT_TRUE(EstimateCost(*a->root, *checked).ok());
}

}  // namespace
}  // namespace draplane::cel::internal
