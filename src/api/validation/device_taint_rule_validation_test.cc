// DeviceTaintRule validation against upstream Kubernetes 1.37.
// Every table case starts from a valid object (checked to produce no
// errors), breaks one thing and compares the exact rendered errors in order.

#include <string>
#include <vector>

#include "api/validation/validation.h"
#include "api/validation/validation_test_util.h"
#include "common/str_cat.h"
#include "gtest/gtest.h"

namespace draplane::api::validation_test {
namespace {

// ===================================================== DeviceTaintRule

TEST(ValidateDeviceTaintRuleTest, Create) {
  std::vector<Case<DeviceTaintRule>> cases = {
      {"bad-name",
       [](DeviceTaintRule& r) { r.metadata.name = kBadName; },
       {"metadata.name: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg}},
      {"namespace-forbidden",
       [](DeviceTaintRule& r) { r.metadata.namespace_ = "ns"; },
       {"metadata.namespace: Forbidden: not allowed on this type"}},
      {"no-selector",
       [](DeviceTaintRule& r) { r.spec.device_selector.reset(); },
       {}},
      {"empty-selector",
       [](DeviceTaintRule& r) {
         r.spec.device_selector = DeviceTaintSelector{};
       },
       {}},
      {"full-selector",
       [](DeviceTaintRule& r) {
         r.spec.device_selector->pool = "pool/a";
         r.spec.device_selector->device = "dev-0";
       },
       {}},
      {"bad-selector",
       [](DeviceTaintRule& r) {
         r.spec.device_selector->driver = "";
         r.spec.device_selector->pool = kBadName;
         r.spec.device_selector->device = "a.b";
       },
       {"spec.deviceSelector.driver: Required value",
        "spec.deviceSelector.pool: Invalid value: " + kBadNameQ + ": " +
            kSubdomainMsg,
        "spec.deviceSelector.device: Invalid value: \"a.b\": must not contain "
        "dots"}},
      {"empty-taint",
       [](DeviceTaintRule& r) { r.spec.taint = DeviceTaint{}; },
       {"spec.taint.key: Invalid value: \"\": name part must be non-empty",
        "spec.taint.key: Invalid value: \"\": " + kNamePartMsg,
        "spec.taint.effect: Required value"}},
      {"bad-taint",
       [](DeviceTaintRule& r) {
         r.spec.taint = Taint("example.com/" + kBadName, "Evict");
         r.spec.taint.value = kBadName;
       },
       {"spec.taint.key: Invalid value: \"example.com/" + kBadName +
            "\": " + kNamePartMsg,
        "spec.taint.value: Invalid value: " + kBadNameQ + ": " + kLabelValueMsg,
        "spec.taint.effect: Unsupported value: \"Evict\": " + kEffects}},
  };
  RunCases<DeviceTaintRule>("DeviceTaintRule", "resource.k8s.io/v1",
                            ValidTaintRule(), cases);
}

TEST(ValidateDeviceTaintRuleTest, Update) {
  DeviceTaintRule base = ValidTaintRule();
  base.metadata.resource_version = "1";
  std::vector<UpdateCase<DeviceTaintRule>> cases = {
      {"no-op", nullptr, [](DeviceTaintRule&) {}, {}},
      {"stored-unknown-effect",
       [](DeviceTaintRule& r) { r.spec.taint.effect = "Bogus"; },
       [](DeviceTaintRule& r) { r.spec.taint.value = "v"; },
       {}},
      {"changed-unknown-effect",
       [](DeviceTaintRule& r) { r.spec.taint.effect = "Bogus"; },
       [](DeviceTaintRule& r) { r.spec.taint.effect = "Other"; },
       {"spec.taint.effect: Unsupported value: \"Other\": " + kEffects}},
      {"selector-may-change",
       nullptr,
       [](DeviceTaintRule& r) { r.spec.device_selector->device = "dev"; },
       {}},
  };
  RunUpdateCases<DeviceTaintRule>("DeviceTaintRule", base, false, cases);
}

TEST(ValidateDeviceTaintRuleTest, StatusUpdate) {
  DeviceTaintRule base = ValidTaintRule();
  base.metadata.resource_version = "1";
  std::vector<UpdateCase<DeviceTaintRule>> cases = {
      {"max-conditions",
       nullptr,
       [](DeviceTaintRule& r) {
         for (int i = 0; i < 8; ++i) {
           r.status.conditions.push_back(ReadyCondition(StrCat("c", i)));
         }
       },
       {}},
      {"too-many-conditions",
       nullptr,
       [](DeviceTaintRule& r) {
         for (int i = 0; i < 9; ++i) {
           r.status.conditions.push_back(ReadyCondition(StrCat("c", i)));
         }
       },
       {"status.conditions: Too many: 9: must have at most 8 items"}},
      {"bad-condition",
       nullptr,
       [](DeviceTaintRule& r) {
         Condition c = ReadyCondition("EvictionInProgress");
         c.reason = "1bad";
         c.message = Repeat('m', 32 * 1024 + 1);
         r.status.conditions.push_back(c);
       },
       {"status.conditions[0].reason: Invalid value: \"1bad\": a condition "
        "reason must start with alphabetic character, optionally followed by a "
        "string of alphanumeric characters or '_,:', and must end with an "
        "alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or "
        "'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used "
        "for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')",
        "status.conditions[0].message: Too long: may not be more than 32768 "
        "bytes"}},
  };
  RunUpdateCases<DeviceTaintRule>("DeviceTaintRule", base, true, cases);
}

}  // namespace
}  // namespace draplane::api::validation_test
