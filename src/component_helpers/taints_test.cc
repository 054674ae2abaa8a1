// Cases follow upstream's own tests: k8s.io/api core/v1/toleration_test.go
// (TestTolerationToleratesTaint, TestCompareNumericValues).
#include "component_helpers/taints.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace draplane::component_helpers {
namespace {

api::Taint Taint(std::string key, std::string value, std::string effect) {
  api::Taint t;
  t.key = std::move(key);
  t.value = std::move(value);
  t.effect = std::move(effect);
  return t;
}

api::Toleration Toleration(std::string key, std::string op, std::string value,
                           std::string effect) {
  api::Toleration t;
  t.key = std::move(key);
  t.operator_ = std::move(op);
  t.value = std::move(value);
  t.effect = std::move(effect);
  return t;
}

struct TolerationCase {
  const char* name;
  api::Toleration toleration;
  api::Taint taint;
  bool comparison_operators;
  bool tolerated;
};

TEST(ToleratesTaintTest, UpstreamTable) {
  const std::vector<TolerationCase> cases = {
      {"exists, same key and effect, taint without value",
       Toleration("foo", "Exists", "", "NoSchedule"),
       Taint("foo", "", "NoSchedule"), false, true},
      {"exists, same key and effect, taint with value",
       Toleration("foo", "Exists", "", "NoSchedule"),
       Taint("foo", "bar", "NoSchedule"), false, true},
      {"empty key + Exists matches all keys",
       Toleration("", "Exists", "", "NoSchedule"),
       Taint("foo", "bar", "NoSchedule"), false, true},
      {"equal key, value, effect",
       Toleration("foo", "Equal", "bar", "NoSchedule"),
       Taint("foo", "bar", "NoSchedule"), false, true},
      {"empty operator means Equal", Toleration("foo", "", "bar", "NoSchedule"),
       Taint("foo", "bar", "NoSchedule"), false, true},
      {"different values", Toleration("foo", "Equal", "value1", "NoSchedule"),
       Taint("foo", "value2", "NoSchedule"), false, false},
      {"different effects", Toleration("foo", "Equal", "bar", "NoSchedule"),
       Taint("foo", "bar", "NoExecute"), false, false},
      {"empty effect matches all effects",
       Toleration("foo", "Equal", "bar", ""), Taint("foo", "bar", "NoExecute"),
       false, true},
      {"different keys", Toleration("foo", "Exists", "", ""),
       Taint("bar", "", "NoSchedule"), false, false},
      {"unknown operator", Toleration("foo", "In", "bar", ""),
       Taint("foo", "bar", "NoSchedule"), false, false},
      {"Gt, taint < toleration",
       Toleration("node.kubernetes.io/sla", "Gt", "950", "NoSchedule"),
       Taint("node.kubernetes.io/sla", "800", "NoSchedule"), true, false},
      {"Gt, taint > toleration",
       Toleration("node.kubernetes.io/sla", "Gt", "750", "NoSchedule"),
       Taint("node.kubernetes.io/sla", "950", "NoSchedule"), true, true},
      {"Gt disabled by feature gate",
       Toleration("node.kubernetes.io/sla", "Gt", "750", "NoSchedule"),
       Taint("node.kubernetes.io/sla", "950", "NoSchedule"), false, false},
      {"Lt, taint > toleration",
       Toleration("node.kubernetes.io/sla", "Lt", "800", "NoSchedule"),
       Taint("node.kubernetes.io/sla", "950", "NoSchedule"), true, false},
      {"Lt, taint < toleration",
       Toleration("node.kubernetes.io/sla", "Lt", "950", "NoSchedule"),
       Taint("node.kubernetes.io/sla", "800", "NoSchedule"), true, true},
      {"Gt, equal values",
       Toleration("node.kubernetes.io/sla", "Gt", "950", "NoSchedule"),
       Taint("node.kubernetes.io/sla", "950", "NoSchedule"), true, false},
      {"Gt, non-numeric taint",
       Toleration("node.kubernetes.io/sla", "Gt", "950", "NoSchedule"),
       Taint("node.kubernetes.io/sla", "high", "NoSchedule"), true, false},
      {"Gt, negative, taint below",
       Toleration("test-key", "Gt", "-100", "NoSchedule"),
       Taint("test-key", "-200", "NoSchedule"), true, false},
      {"Gt, large int64",
       Toleration("test-key", "Gt", "9223372036854775806", "NoSchedule"),
       Taint("test-key", "100", "NoSchedule"), true, false},
  };
  for (const TolerationCase& c : cases) {
    TolerationOptions options;
    options.enable_comparison_operators = c.comparison_operators;
    EXPECT_EQ(ToleratesTaint(c.toleration, c.taint, options), c.tolerated)
        << c.name;
  }
}

// TestCompareNumericValues: toleration value, taint value, operator.
TEST(ToleratesTaintTest, NumericComparison) {
  struct Case {
    const char* op;
    const char* toleration;
    const char* taint;
    bool want;
  };
  const std::vector<Case> cases = {
      {"Gt", "100", "200", true},
      {"Gt", "200", "100", false},
      {"Gt", "100", "100", false},
      {"Gt", "-100", "-50", true},
      {"Gt", "-50", "-100", false},
      {"Gt", "0", "1", true},
      {"Gt", "9223372036854775806", "9223372036854775807", true},
      {"Lt", "200", "100", true},
      {"Lt", "100", "200", false},
      {"Lt", "100", "100", false},
      {"Lt", "-50", "-100", true},
      {"Lt", "-100", "-50", false},
      {"Lt", "0", "-1", true},
      {"Gt", "abc", "100", false},
      {"Gt", "", "100", false},
      {"Gt", "0100", "200", false},
      {"Gt", "+100", "200", false},
      {"Gt", "100.5", "200", false},
      {"Gt", "-", "100", false},
      {"Gt", "100", "xyz", false},
      {"Gt", "100", "", false},
      {"Gt", "100", "0200", false},
      {"Lt", "100", "+200", false},
      {"Lt", "100", " 200 ", false},
      {"Gt", "0", "0", false},
      {"Lt", "0", "0", false},
      {"Gt", "0", "9223372036854775807", true},
      {"Gt", "-0", "5", false},
      {"Gt", "1", "9223372036854775808", false},  // out of int64 range
  };
  TolerationOptions options;
  options.enable_comparison_operators = true;
  for (const Case& c : cases) {
    EXPECT_EQ(ToleratesTaint(Toleration("k", c.op, c.toleration, ""),
                             Taint("k", c.taint, "NoSchedule"), options),
              c.want)
        << c.op << " toleration=" << c.toleration << " taint=" << c.taint;
  }
}

TEST(TolerationsTolerateTaintTest, AnyTolerationSuffices) {
  const api::Taint taint = Taint("gpu", "a100", "NoSchedule");
  EXPECT_FALSE(TolerationsTolerateTaint({}, taint));
  EXPECT_FALSE(TolerationsTolerateTaint(
      {Toleration("gpu", "Equal", "h100", "NoSchedule")}, taint));
  EXPECT_TRUE(TolerationsTolerateTaint(
      {Toleration("gpu", "Equal", "h100", "NoSchedule"),
       Toleration("gpu", "Exists", "", "")},
      taint));
}

}  // namespace
}  // namespace draplane::component_helpers
