// ResourceClaim and ResourceClaimTemplate validation against upstream
// Kubernetes 1.37
// (pkg/apis/resource/validation/validation_resourceclaim*_test.go). Every table
// case starts from a valid object (checked to produce no errors), breaks one
// thing and compares the exact rendered errors in order.

#include <string>
#include <vector>

#include "api/validation/validation.h"
#include "api/validation/validation_test_util.h"
#include "common/str_cat.h"
#include "gtest/gtest.h"

namespace draplane::api::validation_test {
namespace {

// ===================================================== ResourceClaim

TEST(ValidateResourceClaimTest, CreateMetadata) {
  std::vector<Case<ResourceClaim>> cases = {
      // --- metadata (namespaced kind)
      {"missing-name",
       [](ResourceClaim& c) { c.metadata.name = ""; },
       {"metadata.name: Required value: name or generateName is required"}},
      {"bad-name",
       [](ResourceClaim& c) { c.metadata.name = kBadName; },
       {"metadata.name: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg}},
      {"name-253",
       [](ResourceClaim& c) { c.metadata.name = Repeat('a', 253); },
       {}},
      {"name-254",
       [](ResourceClaim& c) { c.metadata.name = Repeat('a', 254); },
       {"metadata.name: Invalid value: \"" + Repeat('a', 254) +
        "\": must be no more than 253 bytes"}},
      {"missing-namespace",
       [](ResourceClaim& c) { c.metadata.namespace_ = ""; },
       {"metadata.namespace: Required value"}},
      {"bad-namespace",
       [](ResourceClaim& c) { c.metadata.namespace_ = "a.b"; },
       {"metadata.namespace: Invalid value: \"a.b\": must not contain dots"}},
      {"generate-name",
       [](ResourceClaim& c) { c.metadata.generate_name = "pvc-"; },
       {}},
      {"uid-resource-version-generation",
       [](ResourceClaim& c) {
         c.metadata.uid = "ac051fac-2ead-46d9-b8b4-4e0fbeb7455d";
         c.metadata.resource_version = "1";
         c.metadata.generation = 100;
         c.metadata.finalizers = {"example.com/foo"};
         c.metadata.labels = {{"apps.kubernetes.io/name", "test"}};
         c.metadata.annotations = {{"foo", "bar"}};
       },
       {}},
      {"negative-generation",
       [](ResourceClaim& c) { c.metadata.generation = -1; },
       {"metadata.generation: Invalid value: -1: must be greater than or equal "
        "to 0"}},
      {"bad-labels",
       [](ResourceClaim& c) {
         c.metadata.labels = {{"hello-world", "spaces not allowed"}};
       },
       {"metadata.labels: Invalid value: \"spaces not allowed\": " +
        kLabelValueMsg}},
      {"bad-annotations",
       [](ResourceClaim& c) {
         c.metadata.annotations = {{kBadName, "hello world"}};
       },
       {"metadata.annotations: Invalid value: " + kBadNameQ + ": " +
        kNamePartMsg}},
      {"bad-finalizer",
       [](ResourceClaim& c) { c.metadata.finalizers = {"foo"}; },
       {"metadata.finalizers[0]: Invalid value: \"foo\": name is neither a "
        "standard finalizer name nor is it fully qualified"}},

  };
  RunCases<ResourceClaim>("ResourceClaim", "resource.k8s.io/v1", ValidClaim(),
                          cases);
}

TEST(ValidateResourceClaimTest, CreateRequestNamesAndOneOf) {
  const std::string req0 = "spec.devices.requests[0]";

  std::vector<Case<ResourceClaim>> cases = {
      // --- request names and one-of
      {"bad-request-name",
       [](ResourceClaim& c) { c.spec.devices.requests[0].name = kBadName; },
       {req0 + ".name: Invalid value: " + kBadNameQ + ": " + kLabelMsg}},
      {"request-name-with-dots",
       [](ResourceClaim& c) { c.spec.devices.requests[0].name = "a.b"; },
       {req0 + ".name: Invalid value: \"a.b\": must not contain dots"}},
      {"request-name-63",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].name = Repeat('x', 63);
       },
       {}},
      {"request-name-64",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].name = Repeat('x', 64);
       },
       {req0 + ".name: Invalid value: \"" + Repeat('x', 64) +
        "\": must be no more than 63 bytes"}},
      {"request-name-empty",
       [](ResourceClaim& c) { c.spec.devices.requests[0].name = ""; },
       {req0 + ".name: Invalid value: \"\": " + kLabelMsg}},
      {"neither-exactly-nor-first-available",
       [](ResourceClaim& c) { c.spec.devices.requests[0].exactly.reset(); },
       {req0 + ": Required value: exactly one of `exactly` or `firstAvailable` "
               "is required"}},
      {"both-exactly-and-first-available",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].first_available = {SubRequest("sub")};
       },
       {req0 + ": Invalid value: null: exactly one of `exactly` or "
               "`firstAvailable` is required, but multiple fields are set"}},
      {"duplicate-request-name",
       [](ResourceClaim& c) {
         c.spec.devices.requests.push_back(ExactRequest("foo"));
       },
       {"spec.devices.requests[1]: Duplicate value: \"foo\""}},
      {"max-requests",
       [](ResourceClaim& c) {
         for (int i = 1; i < 32; ++i) {
           c.spec.devices.requests.push_back(ExactRequest(StrCat("foo", i)));
         }
       },
       {}},
      {"too-many-requests",
       [](ResourceClaim& c) {
         for (int i = 1; i < 33; ++i) {
           c.spec.devices.requests.push_back(ExactRequest(StrCat("foo", i)));
         }
         // Items are not validated any more once the list is too long.
         c.spec.devices.requests[5].name = kBadName;
       },
       {"spec.devices.requests: Too many: 33: must have at most 32 items"}},

  };
  RunCases<ResourceClaim>("ResourceClaim", "resource.k8s.io/v1", ValidClaim(),
                          cases);
}

TEST(ValidateResourceClaimTest, CreateExactly) {
  const std::string req0 = "spec.devices.requests[0]";
  const std::string ex0 = req0 + ".exactly";

  std::vector<Case<ResourceClaim>> cases = {
      // --- exactly
      {"bad-classname",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->device_class_name = kBadName;
       },
       {ex0 + ".deviceClassName: Invalid value: " + kBadNameQ + ": " +
        kSubdomainMsg}},
      {"missing-classname",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->device_class_name = "";
       },
       {ex0 + ".deviceClassName: Required value"}},
      {"count-zero",
       [](ResourceClaim& c) { c.spec.devices.requests[0].exactly->count = 0; },
       {ex0 + ".count: Invalid value: 0: must be greater than zero"}},
      {"count-negative",
       [](ResourceClaim& c) { c.spec.devices.requests[0].exactly->count = -1; },
       {ex0 + ".count: Invalid value: -1: must be greater than zero"}},
      {"count-large",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->count =
             std::numeric_limits<int64_t>::max();
       },
       {}},
      {"allocation-mode-unsupported",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->allocation_mode = "other";
       },
       {ex0 +
        ".allocationMode: Unsupported value: \"other\": supported values: "
        "\"All\", \"ExactCount\""}},
      {"allocation-mode-empty-not-defaulted",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->allocation_mode = "";
       },
       {ex0 + ".allocationMode: Unsupported value: \"\": supported values: "
              "\"All\", \"ExactCount\""}},
      {"all-with-count",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->allocation_mode = "All";
         c.spec.devices.requests[0].exactly->count = 2;
       },
       {ex0 + ".count: Invalid value: 2: must not be specified when "
              "allocationMode is 'All'"}},
      {"all-without-count",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->allocation_mode = "All";
         c.spec.devices.requests[0].exactly->count = 0;
       },
       {}},
      // adminAccess is not restricted by validation (the namespace label is
      // checked at admission).
      {"admin-access",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->admin_access = true;
       },
       {}},
      {"capacity-requests",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->capacity.emplace();
         c.spec.devices.requests[0].exactly->capacity->requests["memory"] =
             Q("1Gi");
       },
       {}},
      {"max-selectors",
       [](ResourceClaim& c) {
         for (int i = 0; i < 32; ++i) {
           c.spec.devices.requests[0].exactly->selectors.push_back(
               Cel(R"(device.driver == "dra.example.com")"));
         }
       },
       {}},
      {"too-many-selectors",
       [](ResourceClaim& c) {
         for (int i = 0; i < 33; ++i) {
           c.spec.devices.requests[0].exactly->selectors.push_back(
               Cel(R"(device.driver == "dra.example.com")"));
         }
       },
       {ex0 + ".selectors: Too many: 33: must have at most 32 items"}},
      {"selector-without-cel",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->selectors.push_back(
             DeviceSelector{});
       },
       {ex0 + ".selectors[0].cel: Required value"}},
      {"cel-max-length",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->selectors.push_back(
             Cel(CelOfLength(10 * 1024)));
       },
       {}},
      {"cel-too-long",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->selectors.push_back(
             Cel(R"(device.driver == "dra.example.com")"));
         c.spec.devices.requests[0].exactly->selectors.push_back(
             Cel(CelOfLength(10 * 1024 + 1)));
       },
       {ex0 + ".selectors[1].cel.expression: Too long: may not be more than "
              "10240 bytes"}},

  };
  RunCases<ResourceClaim>("ResourceClaim", "resource.k8s.io/v1", ValidClaim(),
                          cases);
}

TEST(ValidateResourceClaimTest, CreateTolerations) {
  const std::string req0 = "spec.devices.requests[0]";
  const std::string ex0 = req0 + ".exactly";

  std::vector<Case<ResourceClaim>> cases = {
      // --- tolerations
      {"tolerations-valid",
       [](ResourceClaim& c) {
         auto& t = c.spec.devices.requests[0].exactly->tolerations;
         t.push_back(Toleration("example.com/taint"));
         t.push_back(Toleration("", "Exists"));
         DeviceToleration eq = Toleration("key", "Equal");
         eq.value = "value";
         eq.effect = "NoSchedule";
         eq.toleration_seconds = 10;
         t.push_back(eq);
       },
       {}},
      {"max-tolerations",
       [](ResourceClaim& c) {
         for (int i = 0; i < 16; ++i) {
           c.spec.devices.requests[0].exactly->tolerations.push_back(
               Toleration(StrCat("key-", i)));
         }
       },
       {}},
      // Upstream documents "at most 16" (DeviceTolerationsMaxLength) but
      // neither the hand-written nor the declarative validation enforces
      // it (no +k8s:maxItems on the field), so 17 are accepted.
      {"tolerations-above-documented-limit",
       [](ResourceClaim& c) {
         for (int i = 0; i < 17; ++i) {
           c.spec.devices.requests[0].exactly->tolerations.push_back(
               Toleration(StrCat("key-", i)));
         }
       },
       {}},
      {"toleration-bad-key-value-effect",
       [](ResourceClaim& c) {
         DeviceToleration t = Toleration("!bad", "Exists");
         t.value = "x";
         t.effect = "Bogus";
         c.spec.devices.requests[0].exactly->tolerations.push_back(t);
       },
       {ex0 + ".tolerations[0].key: Invalid value: \"!bad\": " + kNamePartMsg,
        ex0 + ".tolerations[0].value: Invalid value: \"x\": must be empty for "
              "operator `Exists`",
        ex0 + ".tolerations[0].effect: Unsupported value: \"Bogus\": " +
            kEffects}},
      {"toleration-missing-operator",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->tolerations.push_back(
             Toleration("key", ""));
       },
       {ex0 + ".tolerations[0].operator: Required value"}},
      {"toleration-unsupported-operator",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->tolerations.push_back(
             Toleration("key", "In"));
       },
       {ex0 + ".tolerations[0].operator: Unsupported value: \"In\": supported "
              "values: \"Equal\", \"Exists\""}},
      {"toleration-equal-bad-value",
       [](ResourceClaim& c) {
         DeviceToleration t = Toleration("key", "Equal");
         t.value = kBadName;
         c.spec.devices.requests[0].exactly->tolerations.push_back(t);
       },
       {ex0 + ".tolerations[0].value: Invalid value: " + kBadNameQ + ": " +
        kLabelValueMsg}},

  };
  RunCases<ResourceClaim>("ResourceClaim", "resource.k8s.io/v1", ValidClaim(),
                          cases);
}

TEST(ValidateResourceClaimTest, CreateFirstAvailable) {
  const std::string req0 = "spec.devices.requests[0]";
  const std::string fa0 = req0 + ".firstAvailable";

  std::vector<Case<ResourceClaim>> cases = {
      // --- firstAvailable
      {"first-available-valid",
       [](ResourceClaim& c) { c = ValidFirstAvailableClaim(); },
       {}},
      {"first-available-max",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly.reset();
         for (int i = 0; i < 8; ++i) {
           c.spec.devices.requests[0].first_available.push_back(
               SubRequest(StrCat("subreq-", i)));
         }
       },
       {}},
      {"first-available-too-many",
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly.reset();
         for (int i = 0; i <= 8; ++i) {
           c.spec.devices.requests[0].first_available.push_back(
               SubRequest(StrCat("subreq-", i)));
         }
       },
       {fa0 + ": Too many: 9: must have at most 8 items"}},
      {"first-available-duplicate-name",
       [](ResourceClaim& c) {
         c = ValidFirstAvailableClaim();
         c.spec.devices.requests[0].first_available[1].name = "foo";
       },
       {fa0 + "[1]: Duplicate value: \"foo\""}},
      {"first-available-invalid-nested-request",
       [](ResourceClaim& c) {
         c = ValidFirstAvailableClaim();
         DeviceSubRequest bad;
         bad.name = kBadName;
         c.spec.devices.requests[0].first_available[0] = bad;
       },
       {fa0 + "[0].name: Invalid value: " + kBadNameQ + ": " + kLabelMsg,
        fa0 + "[0].deviceClassName: Required value",
        fa0 + "[0].allocationMode: Unsupported value: \"\": supported values: "
              "\"All\", \"ExactCount\""}},
      {"first-available-all-with-count",
       [](ResourceClaim& c) {
         c = ValidFirstAvailableClaim();
         c.spec.devices.requests[0].first_available[1].allocation_mode = "All";
         c.spec.devices.requests[0].first_available[1].count = 3;
       },
       {fa0 + "[1].count: Invalid value: 3: must not be specified when "
              "allocationMode is 'All'"}},
      {"first-available-too-many-selectors",
       [](ResourceClaim& c) {
         c = ValidFirstAvailableClaim();
         for (int i = 0; i < 33; ++i) {
           c.spec.devices.requests[0].first_available[0].selectors.push_back(
               Cel("true"));
         }
       },
       {fa0 + "[0].selectors: Too many: 33: must have at most 32 items"}},
      {"first-available-bad-toleration",
       [](ResourceClaim& c) {
         c = ValidFirstAvailableClaim();
         c.spec.devices.requests[0].first_available[0].tolerations.push_back(
             Toleration("key", ""));
       },
       {fa0 + "[0].tolerations[0].operator: Required value"}},

  };
  RunCases<ResourceClaim>("ResourceClaim", "resource.k8s.io/v1", ValidClaim(),
                          cases);
}

TEST(ValidateResourceClaimTest, CreateConstraints) {
  std::vector<Case<ResourceClaim>> cases = {
      // --- constraints
      {"max-constraints",
       [](ResourceClaim& c) {
         for (int i = 0; i < 32; ++i) {
           c.spec.devices.constraints.push_back(Match("foo/bar"));
         }
       },
       {}},
      {"too-many-constraints",
       [](ResourceClaim& c) {
         for (int i = 0; i < 33; ++i) {
           c.spec.devices.constraints.push_back(Match("foo/bar"));
         }
       },
       {"spec.devices.constraints: Too many: 33: must have at most 32 items"}},
      {"constraint-requests",
       [](ResourceClaim& c) {
         c.spec.devices.constraints.push_back(
             Match("dra.example.com/numa",
                   {"foo", kBadName, "bar", "foo/foo/foo", "foo"}));
       },
       {"spec.devices.constraints[0].requests[1]: Invalid value: " + kBadNameQ +
            ": " + kLabelMsg,
        "spec.devices.constraints[0].requests[1]: Invalid value: " + kBadNameQ +
            ": " + kRequestRefMsg,
        "spec.devices.constraints[0].requests[2]: Invalid value: \"bar\": " +
            kRequestRefMsg,
        "spec.devices.constraints[0].requests[3]: Invalid value: "
        "\"foo/foo/foo\": " +
            kRequestRefMsg,
        "spec.devices.constraints[0].requests[4]: Duplicate value: \"foo\""}},
      {"constraint-too-many-requests",
       [](ResourceClaim& c) {
         std::vector<std::string> requests(33, "foo");
         c.spec.devices.constraints.push_back(
             Match("dra.example.com/numa", requests));
       },
       {"spec.devices.constraints[0].requests: Too many: 33: must have at most "
        "32 items"}},
      {"constraint-subrequest-of-exact-request",
       [](ResourceClaim& c) {
         c.spec.devices.constraints.push_back(
             Match("dra.example.com/numa", {"foo/bar"}));
       },
       {"spec.devices.constraints[0].requests[0]: Invalid value: "
        "\"foo/bar\": " +
        kRequestRefMsg}},
      {"constraint-subrequest-references",
       [](ResourceClaim& c) {
         c = ValidFirstAvailableClaim();
         c.spec.devices.constraints.push_back(
             Match("dra.example.com/driverVersion", {"foo/bar", "foo"}));
         c.spec.devices.constraints.push_back(
             Match("dra.example.com/driverVersion", {"foo/baz"}));
       },
       {"spec.devices.constraints[1].requests[0]: Invalid value: "
        "\"foo/baz\": " +
        kRequestRefMsg}},
      {"constraint-bad-subrequest-name",
       [](ResourceClaim& c) {
         c = ValidFirstAvailableClaim();
         c.spec.devices.constraints.push_back(
             Match("dra.example.com/numa", {"foo/&^%$"}));
       },
       {"spec.devices.constraints[0].requests[0]: Invalid value: \"&^%$\": " +
            kLabelMsg,
        "spec.devices.constraints[0].requests[0]: Invalid value: "
        "\"foo/&^%$\": " +
            kRequestRefMsg}},
      {"match-attribute-missing-domain",
       [](ResourceClaim& c) {
         c.spec.devices.constraints.push_back(Match("missing-domain"));
       },
       {"spec.devices.constraints[0].matchAttribute: Invalid value: "
        "\"missing-domain\": " +
            kCIdentifierMsg,
        "spec.devices.constraints[0].matchAttribute: Invalid value: "
        "\"missing-domain\": " +
            kFQNMsg}},
      {"match-attribute-no-domain-valid-identifier",
       [](ResourceClaim& c) {
         c.spec.devices.constraints.push_back(Match("model"));
       },
       {"spec.devices.constraints[0].matchAttribute: Invalid value: "
        "\"model\": " +
        kFQNMsg}},
      {"match-attribute-empty",
       [](ResourceClaim& c) {
         c.spec.devices.constraints.push_back(Match(""));
       },
       {"spec.devices.constraints[0].matchAttribute: Invalid value: \"\": " +
            kCIdentifierMsg,
        "spec.devices.constraints[0].matchAttribute: Invalid value: \"\": " +
            kFQNMsg}},
      {"match-attribute-empty-parts",
       [](ResourceClaim& c) {
         c.spec.devices.constraints.push_back(Match("/"));
       },
       {"spec.devices.constraints[0].matchAttribute: Invalid value: \"\": the "
        "domain must not be empty",
        "spec.devices.constraints[0].matchAttribute: Invalid value: \"\": the "
        "name must not be empty"}},
  };
  RunCases<ResourceClaim>("ResourceClaim", "resource.k8s.io/v1", ValidClaim(),
                          cases);
}

TEST(ValidateResourceClaimTest, CreateConstraintsMore) {
  ValidationOptions no_consumable;
  no_consumable.features.consumable_capacity = false;

  std::vector<Case<ResourceClaim>> cases = {
      {"match-attribute-two-slashes",
       [](ResourceClaim& c) {
         c.spec.devices.constraints.push_back(Match("a/b/c"));
       },
       {"spec.devices.constraints[0].matchAttribute: Invalid value: \"a/b/c\": "
        "must not contain more than one slash"}},
      {"match-attribute-bad-domain",
       [](ResourceClaim& c) {
         c.spec.devices.constraints.push_back(Match(kBadName + "/model"));
       },
       {"spec.devices.constraints[0].matchAttribute: Invalid value: " +
        kBadNameQ + ": " + kSubdomainMsg}},
      {"distinct-attribute",
       [](ResourceClaim& c) {
         DeviceConstraint d;
         d.distinct_attribute = "dra.example.com/nic";
         c.spec.devices.constraints.push_back(d);
         DeviceConstraint bad;
         bad.distinct_attribute = "nic";
         c.spec.devices.constraints.push_back(bad);
       },
       {"spec.devices.constraints[1].distinctAttribute: Invalid value: "
        "\"nic\": " +
        kFQNMsg}},
      {"constraint-without-attribute",
       [](ResourceClaim& c) { c.spec.devices.constraints.push_back({}); },
       {"spec.devices.constraints[0]: Required value: exactly one of "
        "\"matchAttribute\" or \"distinctAttribute\" is required, but multiple "
        "fields are set"}},
      {"constraint-without-attribute-no-consumable-capacity",
       [](ResourceClaim& c) { c.spec.devices.constraints.push_back({}); },
       {"spec.devices.constraints[0].matchAttribute: Required value"},
       no_consumable},

  };
  RunCases<ResourceClaim>("ResourceClaim", "resource.k8s.io/v1", ValidClaim(),
                          cases);
}

TEST(ValidateResourceClaimTest, CreateConfig) {
  std::vector<Case<ResourceClaim>> cases = {
      // --- config
      {"max-config",
       [](ResourceClaim& c) {
         for (int i = 0; i < 32; ++i)
           c.spec.devices.config.push_back(ClaimConfig());
       },
       {}},
      {"too-many-config",
       [](ResourceClaim& c) {
         for (int i = 0; i < 33; ++i)
           c.spec.devices.config.push_back(ClaimConfig());
       },
       {"spec.devices.config: Too many: 33: must have at most 32 items"}},
      {"config-requests",
       [](ResourceClaim& c) {
         c.spec.devices.config.push_back(ClaimConfig({"foo", kBadName}));
       },
       {"spec.devices.config[0].requests[1]: Invalid value: " + kBadNameQ +
            ": " + kLabelMsg,
        "spec.devices.config[0].requests[1]: Invalid value: " + kBadNameQ +
            ": " + kRequestRefMsg}},
      {"config-subrequest-references",
       [](ResourceClaim& c) {
         c = ValidFirstAvailableClaim();
         c.spec.devices.config.push_back(ClaimConfig({"foo/bar"}));
         c.spec.devices.config.push_back(ClaimConfig({"foo"}));
         c.spec.devices.config.push_back(ClaimConfig({"foo/baz"}));
       },
       {"spec.devices.config[2].requests[0]: Invalid value: \"foo/baz\": " +
        kRequestRefMsg}},
      {"config-missing-opaque",
       [](ResourceClaim& c) {
         c.spec.devices.config.push_back(DeviceClaimConfiguration{});
       },
       {"spec.devices.config[0].opaque: Required value"}},
      {"config-driver",
       [](ResourceClaim& c) {
         for (const std::string& driver :
              {std::string(""), kBadName, Repeat('a', 63), Repeat('a', 64),
               std::string("DRA.Example.COM")}) {
           DeviceClaimConfiguration config = ClaimConfig();
           config.opaque->driver = driver;
           c.spec.devices.config.push_back(config);
         }
       },
       {"spec.devices.config[0].opaque.driver: Required value",
        "spec.devices.config[1].opaque.driver: Invalid value: " + kBadNameQ +
            ": " + kSubdomainMsg,
        "spec.devices.config[3].opaque.driver: Too long: may not be more than "
        "63 bytes"}},
      {"config-parameters",
       [](ResourceClaim& c) {
         auto add = [&](Json params) {
           DeviceClaimConfiguration config = ClaimConfig();
           config.opaque->parameters = std::move(params);
           c.spec.devices.config.push_back(config);
         };
         add(Json());               // missing / null
         add(Json("hello-world"));  // not an object
         add(Json::array());        // not an object
         // {"str":"x…"}: 8 + n + 2 bytes.
         add(Json{{"str", Repeat('x', 10 * 1024 - 10)}});      // at the limit
         add(Json{{"str", Repeat('x', 10 * 1024 - 10 + 1)}});  // one too many
       },
       {"spec.devices.config[0].opaque.parameters: Required value",
        "spec.devices.config[1].opaque.parameters: Invalid value: \"<value "
        "omitted>\": must be a valid JSON object",
        "spec.devices.config[2].opaque.parameters: Invalid value: \"<value "
        "omitted>\": must be a valid JSON object",
        "spec.devices.config[4].opaque.parameters: Too long: may not be more "
        "than 10240 bytes"}},

      // upstream "invalid-spec": several problems at once, in order.
      {"invalid-spec",
       [](ResourceClaim& c) {
         c.spec.devices.constraints = {
             Match("missing-domain", {"foo", kBadName}), Match(""), {}};
         c.spec.devices.config = {ClaimConfig({"foo", kBadName})};
       },
       {"spec.devices.constraints[0].requests[1]: Invalid value: " + kBadNameQ +
            ": " + kLabelMsg,
        "spec.devices.constraints[0].requests[1]: Invalid value: " + kBadNameQ +
            ": " + kRequestRefMsg,
        "spec.devices.constraints[0].matchAttribute: Invalid value: "
        "\"missing-domain\": " +
            kCIdentifierMsg,
        "spec.devices.constraints[0].matchAttribute: Invalid value: "
        "\"missing-domain\": " +
            kFQNMsg,
        "spec.devices.constraints[1].matchAttribute: Invalid value: \"\": " +
            kCIdentifierMsg,
        "spec.devices.constraints[1].matchAttribute: Invalid value: \"\": " +
            kFQNMsg,
        // NOLINTNEXTLINE(bugprone-suspicious-missing-comma): one message
        "spec.devices.constraints[2]: Required value: exactly one of "
        "\"matchAttribute\" or \"distinctAttribute\" is required, but multiple "
        "fields are set",
        "spec.devices.config[0].requests[1]: Invalid value: " + kBadNameQ +
            ": " + kLabelMsg,
        "spec.devices.config[0].requests[1]: Invalid value: " + kBadNameQ +
            ": " + kRequestRefMsg}},
      // upstream "allocation-mode".
  };
  RunCases<ResourceClaim>("ResourceClaim", "resource.k8s.io/v1", ValidClaim(),
                          cases);
}

TEST(ValidateResourceClaimTest, CreateConfigMore) {
  std::vector<Case<ResourceClaim>> cases = {
      {"allocation-mode",
       [](ResourceClaim& c) {
         DeviceRequest good = c.spec.devices.requests[0];
         DeviceRequest r = good;
         r.name = "foo2";
         r.exactly->allocation_mode = "All";
         r.exactly->count = 0;
         c.spec.devices.requests.push_back(r);
         r = good;
         r.name = "foo3";
         r.exactly->count = -1;
         c.spec.devices.requests.push_back(r);
         r = good;
         r.name = "foo4";
         r.exactly->allocation_mode = "other";
         c.spec.devices.requests.push_back(r);
         r = good;
         r.name = "foo5";
         r.exactly->allocation_mode = "All";
         r.exactly->count = 2;
         c.spec.devices.requests.push_back(r);
         c.spec.devices.requests.push_back(good);
       },
       {"spec.devices.requests[2].exactly.count: Invalid value: -1: must be "
        "greater than zero",
        "spec.devices.requests[3].exactly.allocationMode: Unsupported value: "
        "\"other\": supported values: \"All\", \"ExactCount\"",
        "spec.devices.requests[4].exactly.count: Invalid value: 2: must not be "
        "specified when allocationMode is 'All'",
        "spec.devices.requests[5]: Duplicate value: \"foo\""}},
  };
  RunCases<ResourceClaim>("ResourceClaim", "resource.k8s.io/v1", ValidClaim(),
                          cases);
}

TEST(ValidateResourceClaimTest, CELCompileHook) {
  ValidationOptions options;
  std::vector<std::string> compiled;
  options.compile_cel = [&](std::string_view expression) -> absl::Status {
    compiled.emplace_back(expression);
    if (expression == "device.attributes[true].someBoolean") {
      return absl::InvalidArgumentError(
          "compilation failed: ERROR: <input>:1:18: found no matching "
          "overload for '_[_]' applied to '(map(string, map(string, any)), "
          "bool)'");
    }
    return absl::OkStatus();
  };
  ResourceClaim c = ValidClaim();
  c.spec.devices.requests.push_back(ExactRequest("foo-2"));
  c.spec.devices.requests[1].exactly->selectors = {
      Cel(R"(device.driver == "dra.example.com")"),
      Cel("device.attributes[true].someBoolean"),
      Cel(CelOfLength(10 * 1024 + 1))};
  EXPECT_EQ(
      Errors(Obj("ResourceClaim", c), options),
      (Want{"spec.devices.requests[1].exactly.selectors[1].cel.expression: "
            "Invalid value: \"device.attributes[true].someBoolean\": "
            "compilation failed: ERROR: <input>:1:18: found no matching "
            "overload for '_[_]' applied to '(map(string, map(string, "
            "any)), bool)'",
            "spec.devices.requests[1].exactly.selectors[2].cel.expression: "
            "Too long: may not be more than 10240 bytes"}));
  // Too long expressions are not compiled.
  EXPECT_EQ(compiled,
            (std::vector<std::string>{R"(device.driver == "dra.example.com")",
                                      "device.attributes[true].someBoolean"}));
}

TEST(ValidateResourceClaimTest, Update) {
  ResourceClaim base = ValidClaim();
  base.metadata.resource_version = "1";
  std::vector<UpdateCase<ResourceClaim>> cases = {
      {"no-op", nullptr, [](ResourceClaim&) {}, {}},
      {"labels-may-change",
       nullptr,
       [](ResourceClaim& c) { c.metadata.labels["a"] = "b"; },
       {}},
      {"spec-immutable",
       nullptr,
       [](ResourceClaim& c) {
         c.spec.devices.requests[0].exactly->device_class_name += "2";
       },
       {"spec: Invalid value: "
        R"({"devices":{"requests":[{"name":"foo","exactly":{"deviceClassName":"foo2","allocationMode":"ExactCount","count":1}}]}})"
        ": field is immutable"}},
      {"name-immutable",
       nullptr,
       [](ResourceClaim& c) { c.metadata.name = "bar"; },
       {"metadata.name: Invalid value: \"bar\": field is immutable"}},
      {"namespace-immutable",
       nullptr,
       [](ResourceClaim& c) { c.metadata.namespace_ = "other"; },
       {"metadata.namespace: Invalid value: \"other\": field is immutable"}},
      {"missing-resource-version",
       nullptr,
       [](ResourceClaim& c) { c.metadata.resource_version = ""; },
       {"metadata.resourceVersion: Invalid value: \"\": must be specified for "
        "an update"}},
      {"generation-decremented",
       [](ResourceClaim& c) { c.metadata.generation = 2; },
       [](ResourceClaim& c) { c.metadata.generation = 1; },
       {"metadata.generation: Invalid value: 1: must not be decremented"}},
      // Stored specs are not validated again: a too large parameter stays.
      {"too-large-config-valid-if-stored",
       [](ResourceClaim& c) {
         DeviceClaimConfiguration config = ClaimConfig();
         config.opaque->parameters = Json{{"str", Repeat('x', 10 * 1024)}};
         c.spec.devices.config.push_back(config);
       },
       [](ResourceClaim&) {},
       {}},
      {"no-new-finalizers-while-deleting",
       [](ResourceClaim& c) {
         c.metadata.deletion_timestamp = "2024-01-01T00:00:00Z";
       },
       [](ResourceClaim& c) { c.metadata.finalizers = {"example.com/new"}; },
       {"metadata.finalizers: Forbidden: no new finalizers can be added if the "
        "object is being deleted, found new finalizers "
        "[]string{\"example.com/new\"}"}},
  };
  RunUpdateCases<ResourceClaim>("ResourceClaim", base, /*status=*/false, cases);
}

// ===================================================== ResourceClaimTemplate

TEST(ValidateResourceClaimTemplateTest, Create) {
  std::vector<Case<ResourceClaimTemplate>> cases = {
      {"missing-namespace",
       [](ResourceClaimTemplate& t) { t.metadata.namespace_ = ""; },
       {"metadata.namespace: Required value"}},
      {"bad-name",
       [](ResourceClaimTemplate& t) { t.metadata.name = kBadName; },
       {"metadata.name: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg}},
      {"template-labels-and-annotations",
       [](ResourceClaimTemplate& t) {
         t.spec.Mutable().metadata.labels = {{"a", "b"}};
         t.spec.Mutable().metadata.annotations = {{"c", "d"}};
       },
       {}},
      {"template-metadata-forbidden-fields",
       [](ResourceClaimTemplate& t) {
         t.spec.Mutable().metadata.name = "x";
         t.spec.Mutable().metadata.namespace_ = "y";
         t.spec.Mutable().metadata.uid = "z";
         t.spec.Mutable().metadata.finalizers = {"example.com/f"};
         t.spec.Mutable().metadata.labels = {{"a", kBadName}};
       },
       {"spec.metadata.labels: Invalid value: " + kBadNameQ + ": " +
            kLabelValueMsg,
        "spec.metadata.name: Forbidden: cannot be set",
        "spec.metadata.namespace: Forbidden: cannot be set",
        "spec.metadata.uID: Forbidden: cannot be set",
        "spec.metadata.finalizers: Forbidden: cannot be set"}},
      {"bad-spec",
       [](ResourceClaimTemplate& t) {
         t.spec.Mutable().spec.devices.requests[0].exactly->count = 0;
         t.spec.Mutable().spec.devices.requests[0].exactly->device_class_name =
             "";
       },
       {"spec.spec.devices.requests[0].exactly.deviceClassName: Required value",
        "spec.spec.devices.requests[0].exactly.count: Invalid value: 0: must "
        "be "
        "greater than zero"}},
  };
  RunCases<ResourceClaimTemplate>("ResourceClaimTemplate", "resource.k8s.io/v1",
                                  ValidTemplate(), cases);
}

TEST(ValidateResourceClaimTemplateTest, Update) {
  ResourceClaimTemplate base = ValidTemplate();
  base.metadata.resource_version = "1";
  std::vector<UpdateCase<ResourceClaimTemplate>> cases = {
      {"no-op", nullptr, [](ResourceClaimTemplate&) {}, {}},
      {"spec-immutable",
       nullptr,
       [](ResourceClaimTemplate& t) {
         t.spec.Mutable().spec.devices.requests[0].exactly->count = 2;
       },
       {"spec: Invalid value: "
        R"({"metadata":{},"spec":{"devices":{"requests":[{"name":"foo","exactly":{"deviceClassName":"foo","allocationMode":"ExactCount","count":2}}]}}})"
        ": field is immutable"}},
      {"template-metadata-immutable",
       nullptr,
       [](ResourceClaimTemplate& t) {
         t.spec.Mutable().metadata.labels["a"] = "b";
       },
       {"spec: Invalid value: "
        R"({"metadata":{"labels":{"a":"b"}},"spec":{"devices":{"requests":[{"name":"foo","exactly":{"deviceClassName":"foo","allocationMode":"ExactCount","count":1}}]}}})"
        ": field is immutable"}},
  };
  RunUpdateCases<ResourceClaimTemplate>("ResourceClaimTemplate", base, false,
                                        cases);
}

}  // namespace
}  // namespace draplane::api::validation_test
