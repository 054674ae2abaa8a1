#include "cel/internal/kubernetes_library.h"

#include "cel/internal/parser.h"
#include "cel/internal/standard_library.h"
#include "gtest/gtest.h"

namespace draplane::cel::internal {
namespace {

class KubernetesLibraryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(RegisterStandardFunctions(&registry_).ok());
    ASSERT_TRUE(RegisterQuantityFunctions(&registry_).ok());
    ASSERT_TRUE(RegisterSemverFunctions(&registry_).ok());
  }

  Value Eval(std::string_view expr) {
    auto parsed = Parse(expr);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    if (!parsed.ok()) return Value::Error("parse");
    auto program = Plan(*parsed->root, registry_);
    EXPECT_TRUE(program.ok()) << program.status();
    if (!program.ok()) return Value::Error("plan");
    return (*program)->Evaluate(MapActivation()).value;
  }
  uint64_t Cost(std::string_view expr) {
    auto parsed = Parse(expr);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    auto program = Plan(*parsed->root, registry_);
    EXPECT_TRUE(program.ok()) << program.status();
    return (*program)->Evaluate(MapActivation()).actual_cost;
  }

  FunctionRegistry registry_;
};

TEST_F(KubernetesLibraryTest, QuantityFunctions) {
  EXPECT_TRUE(
      Eval("quantity('80Gi').isGreaterThan(quantity('40Gi'))").IsTrue());
  EXPECT_TRUE(Eval("quantity('500m').isLessThan(quantity('1'))").IsTrue());
  EXPECT_EQ(
      Eval("quantity('1Gi').compareTo(quantity('1073741824'))").int_value(), 0);
  EXPECT_TRUE(Eval("quantity('200M') == quantity('0.2G')").IsTrue());
  EXPECT_TRUE(Eval("quantity('1Gi') != quantity('1G')").IsTrue());
  EXPECT_EQ(Eval("quantity('5').asInteger()").int_value(), 5);
  EXPECT_EQ(Eval("quantity('1.5').asInteger()").error_message(),
            "cannot convert value to integer");
  EXPECT_TRUE(Eval("quantity('1.5').isInteger()").IsFalse());
  EXPECT_DOUBLE_EQ(Eval("quantity('1.5').asApproximateFloat()").double_value(),
                   1.5);
  EXPECT_EQ(Eval("sign(quantity('-3'))").int_value(), -1);
  EXPECT_TRUE(
      Eval("quantity('1Gi').add(quantity('1Gi')) == quantity('2Gi')").IsTrue());
  EXPECT_TRUE(Eval("quantity('10').sub(3) == quantity('7')").IsTrue());
  EXPECT_TRUE(Eval("isQuantity('80Gi') && !isQuantity('200K')").IsTrue());
  Value bad = Eval("quantity('200K')");
  ASSERT_TRUE(bad.is_error());
  EXPECT_EQ(bad.error_message(), "unable to parse quantity's suffix");
}

TEST_F(KubernetesLibraryTest, SemverFunctions) {
  EXPECT_TRUE(Eval("semver('1.2.3').isLessThan(semver('1.10.0'))").IsTrue());
  EXPECT_TRUE(
      Eval("semver('1.0.0-rc.1').isLessThan(semver('1.0.0'))").IsTrue());
  EXPECT_TRUE(Eval("semver('1.0.0+a') == semver('1.0.0+b')").IsTrue());
  // add/sub results are *cel.Quantity upstream: not a right operand of ==
  // (draref: "no such overload"), fine on the left.
  EXPECT_TRUE(Eval("quantity('1') == quantity('1').add(0)").is_error());
  EXPECT_TRUE(Eval("quantity('1').add(0) == quantity('1').add(0)").is_error());
  EXPECT_TRUE(Eval("quantity('1').add(0) == quantity('1')").IsTrue());
  EXPECT_TRUE(Eval("quantity('1') != quantity('1').add(0)").IsTrue());
  EXPECT_EQ(Eval("quantity('1').compareTo(quantity('1').add(0))").int_value(),
            0);
  EXPECT_EQ(Eval("semver('12.4.7').major()").int_value(), 12);
  EXPECT_EQ(Eval("semver('12.4.7').minor()").int_value(), 4);
  EXPECT_EQ(Eval("semver('12.4.7').patch()").int_value(), 7);
  EXPECT_EQ(Eval("semver('2.0.0').compareTo(semver('1.9.9'))").int_value(), 1);
  EXPECT_TRUE(Eval("isSemver('1.2.3') && !isSemver('v1.2')").IsTrue());
  EXPECT_TRUE(Eval("isSemver('v1.2', true)").IsTrue());
  EXPECT_TRUE(Eval("semver('v01.2', true) == semver('1.2.0')").IsTrue());
  EXPECT_TRUE(Eval("semver('1.2')").is_error());
}

TEST_F(KubernetesLibraryTest, OpaqueValuesHaveNoOperatorsOfTheirOwn) {
  // Upstream declares no `<` or `+` on Quantity: cel-go's checker rejects
  // them ("found no matching overload for '_<_' applied to
  // '(kubernetes.Quantity, kubernetes.Quantity)'", checked with draref);
  // without a checker they are runtime errors here.
  EXPECT_TRUE(Eval("quantity('1') < quantity('2')").is_error());
  EXPECT_TRUE(Eval("quantity('1') + quantity('2')").is_error());
  // cel-go's texts on dyn operands: the types lack the comparer trait
  // (draref: dyn(semver('1.0.0')) < dyn(semver('2.0.0'))).
  EXPECT_EQ(Eval("semver('1.0.0') < semver('2.0.0')").error_message(),
            "no such overload: _<_");
  EXPECT_EQ(Eval("quantity('1') >= quantity('2')").error_message(),
            "no such overload: _>=_");
}

// Constant arguments are parsed once when planning; every evaluation
// still gives the same value (and still pays the parse cost, above).
TEST_F(KubernetesLibraryTest, ConstantParsesArePrecomputed) {
  EXPECT_TRUE(Eval("quantity('40Gi') == quantity('40Gi')").IsTrue());
  EXPECT_TRUE(Eval("[1, 2].all(i, quantity('1Gi').isGreaterThan("
                   "quantity('1Mi')))")
                  .IsTrue());
  EXPECT_EQ(Eval("quantity('bad')").error_message(),
            Eval("quantity(dyn('bad'))").error_message());
  EXPECT_EQ(Eval("semver('8.0.0').major()").int_value(), 8);
}

// Kubernetes equality (library/cost.go, the Equal methods of cel.Quantity
// and cel.Semver): `==` with another type is "no such overload" (checked
// with draref: quantity('1') == dyn('1')), and costs 1.
TEST_F(KubernetesLibraryTest, EqualityWithOtherTypesIsAnError) {
  EXPECT_TRUE(Eval("quantity('1') == dyn('1')").is_error());
  EXPECT_TRUE(Eval("semver('1.0.0') == dyn('1.0.0')").is_error());
  EXPECT_TRUE(Eval("quantity('1') != dyn('1')").IsTrue());
  EXPECT_TRUE(Eval("semver('1.0.0+a') == semver('1.0.0+b')").IsTrue());
  // add/sub results are *cel.Quantity upstream: not a right operand of ==
  // (draref: "no such overload"), fine on the left.
  EXPECT_TRUE(Eval("quantity('1') == quantity('1').add(0)").is_error());
  EXPECT_TRUE(Eval("quantity('1').add(0) == quantity('1').add(0)").is_error());
  EXPECT_TRUE(Eval("quantity('1').add(0) == quantity('1')").IsTrue());
  EXPECT_TRUE(Eval("quantity('1') != quantity('1').add(0)").IsTrue());
  EXPECT_EQ(Eval("quantity('1').compareTo(quantity('1').add(0))").int_value(),
            0);
}

// Parsing costs a traversal of the string: ceil(0.1 * size).
TEST_F(KubernetesLibraryTest, ParseCostsFollowTheStringSize) {
  EXPECT_EQ(Cost("quantity('1')"), 1u);
  EXPECT_EQ(Cost("quantity('12345678901')"), 2u);
  EXPECT_EQ(Cost("isQuantity('123456789012345678901')"), 3u);
  EXPECT_EQ(Cost("semver('1.2.3-alpha.1')"), 2u);
  EXPECT_EQ(Cost("isSemver('')"), 0u);
  EXPECT_EQ(Cost("quantity('1') == quantity('2')"), 3u);
}

}  // namespace
}  // namespace draplane::cel::internal
