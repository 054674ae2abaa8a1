// DeviceClass validation against upstream Kubernetes 1.37.
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

// ===================================================== DeviceClass

TEST(ValidateDeviceClassTest, Create) {
  std::vector<Case<DeviceClass>> cases = {
      {"missing-name",
       [](DeviceClass& c) { c.metadata.name = ""; },
       {"metadata.name: Required value: name or generateName is required"}},
      {"bad-name",
       [](DeviceClass& c) { c.metadata.name = kBadName; },
       {"metadata.name: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg}},
      {"namespace-forbidden",
       [](DeviceClass& c) { c.metadata.namespace_ = "ns"; },
       {"metadata.namespace: Forbidden: not allowed on this type"}},
      {"no-selectors-no-config",
       [](DeviceClass& c) {
         c.spec.selectors.clear();
         c.spec.config.clear();
       },
       {}},
      {"max-selectors",
       [](DeviceClass& c) { c.spec.selectors.assign(32, Cel("true")); },
       {}},
      {"too-many-selectors",
       [](DeviceClass& c) { c.spec.selectors.assign(33, Cel("true")); },
       {"spec.selectors: Too many: 33: must have at most 32 items"}},
      {"selector-without-cel",
       [](DeviceClass& c) { c.spec.selectors.push_back(DeviceSelector{}); },
       {"spec.selectors[1].cel: Required value"}},
      {"cel-too-long",
       [](DeviceClass& c) {
         c.spec.selectors[0] = Cel(CelOfLength(10 * 1024 + 1));
       },
       {"spec.selectors[0].cel.expression: Too long: may not be more than "
        "10240 "
        "bytes"}},
      {"max-config",
       [](DeviceClass& c) {
         DeviceClassConfiguration first = c.spec.config[0];
         c.spec.config.assign(32, first);
       },
       {}},
      {"too-many-config",
       [](DeviceClass& c) {
         DeviceClassConfiguration first = c.spec.config[0];
         c.spec.config.assign(33, first);
       },
       {"spec.config: Too many: 33: must have at most 32 items"}},
      {"config-errors",
       [](DeviceClass& c) {
         c.spec.config.push_back(DeviceClassConfiguration{});
         DeviceClassConfiguration bad;
         bad.opaque = Opaque(kBadName);
         bad.opaque->parameters = Json(42);
         c.spec.config.push_back(bad);
       },
       {"spec.config[1].opaque: Required value",
        "spec.config[2].opaque.driver: Invalid value: " + kBadNameQ + ": " +
            kSubdomainMsg,
        "spec.config[2].opaque.parameters: Invalid value: \"<value omitted>\": "
        "must be a valid JSON object"}},
      {"extended-resource-name",
       [](DeviceClass& c) {
         c.spec.extended_resource_name = "example.com/gpu";
       },
       {}},
      {"extended-resource-name-native",
       [](DeviceClass& c) { c.spec.extended_resource_name = "gpu"; },
       {"spec.extendedResourceName: Invalid value: \"gpu\": must be a valid "
        "extended resource name"}},
      {"extended-resource-name-kubernetes-io",
       [](DeviceClass& c) {
         c.spec.extended_resource_name = "kubernetes.io/gpu";
       },
       {"spec.extendedResourceName: Invalid value: \"kubernetes.io/gpu\": must "
        "be a valid extended resource name"}},
      {"extended-resource-name-requests-prefix",
       [](DeviceClass& c) {
         c.spec.extended_resource_name = "requests.example.com/gpu";
       },
       {"spec.extendedResourceName: Invalid value: "
        "\"requests.example.com/gpu\": must be a valid extended resource "
        "name"}},
      {"extended-resource-name-bad-format",
       [](DeviceClass& c) {
         c.spec.extended_resource_name = "example.com/g pu";
       },
       {"spec.extendedResourceName: Invalid value: \"example.com/g pu\": must "
        "be a valid extended resource name"}},
  };
  RunCases<DeviceClass>("DeviceClass", "resource.k8s.io/v1", ValidClass(),
                        cases);
}

TEST(ValidateDeviceClassTest, StoredExpressionsAreNotRevalidated) {
  ValidationOptions options;
  int calls = 0;
  options.compile_cel = [&](std::string_view expression) -> absl::Status {
    ++calls;
    if (expression == "bad") return absl::InvalidArgumentError("boom");
    return absl::OkStatus();
  };
  DeviceClass old = ValidClass();
  old.metadata.resource_version = "1";
  old.spec.selectors = {Cel("bad")};
  old.spec.config[0].opaque->parameters = Json{{"str", Repeat('x', 10 * 1024)}};
  // On create both are reported.
  EXPECT_EQ(
      Errors(Obj("DeviceClass", old), options),
      (Want{"spec.selectors[0].cel.expression: Invalid value: \"bad\": boom",
            "spec.config[0].opaque.parameters: Too long: may not be more "
            "than 10240 bytes"}));
  // Unchanged selectors and config count as stored.
  calls = 0;
  DeviceClass updated = old;
  updated.metadata.labels["a"] = "b";
  EXPECT_EQ(Strings(ValidateObjectUpdate(Obj("DeviceClass", updated),
                                         Obj("DeviceClass", old), options)),
            Want{});
  EXPECT_EQ(calls, 0);
  // Any change of the selectors (here: appending one) validates all again.
  updated.spec.selectors.push_back(Cel("true"));
  EXPECT_EQ(Strings(ValidateObjectUpdate(Obj("DeviceClass", updated),
                                         Obj("DeviceClass", old), options)),
            (Want{"spec.selectors[0].cel.expression: Invalid value: \"bad\": "
                  "boom"}));
  // Changing the config re-checks its size.
  updated = old;
  updated.spec.config.push_back(updated.spec.config[0]);
  EXPECT_EQ(Strings(ValidateObjectUpdate(Obj("DeviceClass", updated),
                                         Obj("DeviceClass", old), options)),
            (Want{"spec.config[0].opaque.parameters: Too long: may not be more "
                  "than 10240 bytes",
                  "spec.config[1].opaque.parameters: Too long: may not be more "
                  "than 10240 bytes"}));
}

}  // namespace
}  // namespace draplane::api::validation_test
