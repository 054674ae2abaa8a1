// ResourceSlice validation against upstream Kubernetes 1.37
// (validation_resourceslice_test.go).
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

// ===================================================== ResourceSlice

TEST(ValidateResourceSliceTest, CreateMetadata) {
  std::vector<Case<ResourceSlice>> cases = {
      // --- metadata (cluster-scoped kind)
      {"missing-name",
       [](ResourceSlice& s) { s.metadata.name = ""; },
       {"metadata.name: Required value: name or generateName is required"}},
      {"bad-name",
       [](ResourceSlice& s) { s.metadata.name = kBadName; },
       {"metadata.name: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg}},
      {"namespace-forbidden",
       [](ResourceSlice& s) { s.metadata.namespace_ = "ns"; },
       {"metadata.namespace: Forbidden: not allowed on this type"}},
      {"generate-name",
       [](ResourceSlice& s) { s.metadata.generate_name = "prefix-"; },
       {}},

  };
  RunCases<ResourceSlice>("ResourceSlice", "resource.k8s.io/v1", ValidSlice(),
                          cases);
}

TEST(ValidateResourceSliceTest, CreateDevicesPerSlice) {
  std::vector<Case<ResourceSlice>> cases = {
      // --- devices per slice
      {"max-devices", [](ResourceSlice& s) { s = ValidSlice(128); }, {}},
      {"too-many-devices",
       [](ResourceSlice& s) { s = ValidSlice(129); },
       {"spec.devices: Too many: 129: must have at most 128 items"}},
      {"max-devices-with-taints",
       [](ResourceSlice& s) {
         s = ValidSlice(64);
         for (Device& d : s.spec.devices) d.rare.Mutable().taints = {Taint()};
       },
       {}},
      {"too-many-devices-with-taints",
       [](ResourceSlice& s) {
         s = ValidSlice(65);
         s.spec.devices[64].rare.Mutable().taints = {Taint()};
       },
       {"spec.devices: Too many: 65: must have at most 64 items"}},
      {"max-devices-with-consumes-counters",
       [](ResourceSlice& s) {
         s = ValidSlice(64);
         for (Device& d : s.spec.devices)
           d.rare.Mutable().consumes_counters = ConsumesCounters(1);
       },
       {}},
      {"too-many-devices-with-consumes-counters",
       [](ResourceSlice& s) {
         s = ValidSlice(65);
         s.spec.devices[0].rare.Mutable().consumes_counters =
             ConsumesCounters(1);
       },
       {"spec.devices: Too many: 65: must have at most 64 items"}},
      {"too-many-devices-with-list-attributes",
       [](ResourceSlice& s) {
         s = ValidSlice(65);
         s.spec.devices[0].attributes["ints"] =
             Attribute([](DeviceAttributeFields& f) {
               f.ints = {1, 2, 3};
             });
       },
       {"spec.devices: Too many: 65: must have at most 64 items"}},
      {"65-plain-devices", [](ResourceSlice& s) { s = ValidSlice(65); }, {}},

  };
  RunCases<ResourceSlice>("ResourceSlice", "resource.k8s.io/v1", ValidSlice(),
                          cases);
}

TEST(ValidateResourceSliceTest, CreateDriverAndPool) {
  std::vector<Case<ResourceSlice>> cases = {
      // --- driver and pool
      {"bad-driver",
       [](ResourceSlice& s) { s.spec.driver = kBadName; },
       {"spec.driver: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg}},
      {"missing-driver",
       [](ResourceSlice& s) { s.spec.driver = ""; },
       {"spec.driver: Required value"}},
      {"driver-63",
       [](ResourceSlice& s) { s.spec.driver = Repeat('a', 63); },
       {}},
      {"driver-64",
       [](ResourceSlice& s) { s.spec.driver = Repeat('a', 64); },
       {"spec.driver: Too long: may not be more than 63 bytes"}},
      {"driver-upper-case",
       [](ResourceSlice& s) { s.spec.driver = "Test.Example.COM"; },
       {}},
      {"bad-node-name",
       [](ResourceSlice& s) { s.spec.node_name = kBadName; },
       {"spec.nodeName: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg}},
      {"bad-pool-and-node-name",
       [](ResourceSlice& s) {
         s.spec.node_name = kBadName;
         s.spec.pool.name = kBadName;
       },
       {"spec.pool.name: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg,
        "spec.nodeName: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg}},
      {"bad-multi-pool-name",
       [](ResourceSlice& s) { s.spec.pool.name = kBadName + "/" + kBadName; },
       {"spec.pool.name: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg,
        "spec.pool.name: Invalid value: " + kBadNameQ + ": " + kSubdomainMsg}},
      {"multi-part-pool-name",
       [](ResourceSlice& s) { s.spec.pool.name = "a.example.com/b/c"; },
       {}},
      {"pool-name-253",
       [](ResourceSlice& s) { s.spec.pool.name = Repeat('x', 253); },
       {}},
      {"bad-pool",
       [](ResourceSlice& s) {
         std::string name;
         for (int i = 0; i < 253 / 2; ++i) name += "x/";
         s.spec.pool.name = name + "xy";  // 254 bytes of valid parts
         s.spec.pool.resource_slice_count = 0;
         s.spec.pool.generation = -1;
       },
       {"spec.pool.name: Too long: may not be more than 253 bytes",
        "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than "
        "zero",
        "spec.pool.generation: Invalid value: -1: must be greater than or "
        "equal "
        "to zero"}},
      {"missing-pool-name",
       [](ResourceSlice& s) { s.spec.pool.name = ""; },
       {"spec.pool.name: Required value"}},
      {"empty-pool-name-part",
       [](ResourceSlice& s) { s.spec.pool.name = "a//b"; },
       {"spec.pool.name: Invalid value: \"\": " + kSubdomainMsg}},

  };
  RunCases<ResourceSlice>("ResourceSlice", "resource.k8s.io/v1", ValidSlice(),
                          cases);
}

TEST(ValidateResourceSliceTest, CreateNodeSelectionExactlyOneOf) {
  std::vector<Case<ResourceSlice>> cases = {
      // --- node selection: exactly one of
      {"empty-node-selection",
       [](ResourceSlice& s) { s.spec.node_name.reset(); },
       {"spec: Required value: " + kSliceOneOf}},
      {"all-nodes",
       [](ResourceSlice& s) {
         s.spec.node_name.reset();
         s.spec.all_nodes = true;
       },
       {}},
      {"bad-node-selection",
       [](ResourceSlice& s) {
         s.spec.node_name = "worker";
         s.spec.node_selector = NodeSelector{
             {NodeSelectorTerm{{}, {{"metadata.name", "In", {"worker"}}}}}};
       },
       {"spec: Invalid value: \"{`nodeName`, `nodeSelector`}\": " +
        kSliceOneOf + ", but multiple fields are set"}},
      {"bad-node-selection-all-nodes",
       [](ResourceSlice& s) { s.spec.all_nodes = true; },
       {"spec: Invalid value: \"{`nodeName`, `allNodes`}\": " + kSliceOneOf +
        ", but multiple fields are set"}},
      {"all-four",
       [](ResourceSlice& s) {
         s.spec.node_selector =
             NodeSelector{{NodeSelectorTerm{{{"a", "Exists", {}}}, {}}}};
         s.spec.all_nodes = true;
         s.spec.per_device_node_selection = true;
         for (Device& d : s.spec.devices) d.rare.Mutable().all_nodes = true;
       },
       {"spec: Invalid value: \"{`nodeName`, `nodeSelector`, `allNodes`, "
        "`perDeviceNodeSelection`}\": " +
        kSliceOneOf + ", but multiple fields are set"}},
      {"invalid-false-all-nodes",
       [](ResourceSlice& s) { s.spec.all_nodes = false; },
       {"spec.allNodes: Invalid value: false: must be either unset or set to "
        "true"}},
      {"invalid-false-per-device-node-selection",
       [](ResourceSlice& s) { s.spec.per_device_node_selection = false; },
       {"spec.perDeviceNodeSelection: Invalid value: false: must be either "
        "unset or set to true"}},
      {"invalid-empty-node-name",
       [](ResourceSlice& s) {
         s.spec.node_name = "";
         s.spec.all_nodes = true;
       },
       {"spec.nodeName: Invalid value: \"\": must be either unset or set to a "
        "non-empty string"}},
      {"empty-node-selector",
       [](ResourceSlice& s) {
         s.spec.node_name.reset();
         s.spec.node_selector = NodeSelector{};
       },
       {"spec.nodeSelector.nodeSelectorTerms: Required value: must have at "
        "least one node selector term",
        "spec.nodeSelector.nodeSelectorTerms: Invalid value: "
        "[]core.NodeSelectorTerm(nil): must have exactly one node selector "
        "term"}},
      {"node-selector-two-terms",
       [](ResourceSlice& s) {
         s.spec.node_name.reset();
         NodeSelectorTerm t{{}, {{"metadata.name", "In", {"worker"}}}};
         NodeSelectorTerm t2{{{"zone", "In", {"a", "b"}}}, {}};
         s.spec.node_selector = NodeSelector{{t, t2}};
       },
       {"spec.nodeSelector.nodeSelectorTerms: Invalid value: "
        "[]core.NodeSelectorTerm{core.NodeSelectorTerm{MatchExpressions:[]core."
        "NodeSelectorRequirement(nil), "
        "MatchFields:[]core.NodeSelectorRequirement{core."
        "NodeSelectorRequirement{Key:\"metadata.name\", Operator:\"In\", "
        "Values:[]string{\"worker\"}}}}, "
        "core.NodeSelectorTerm{MatchExpressions:[]core.NodeSelectorRequirement{"
        "core.NodeSelectorRequirement{Key:\"zone\", Operator:\"In\", "
        "Values:[]string{\"a\", \"b\"}}}, "
        "MatchFields:[]core.NodeSelectorRequirement(nil)}}: must have exactly "
        "one node selector term"}},
      {"node-selector-requirements",
       [](ResourceSlice& s) {
         s.spec.node_name.reset();
         NodeSelectorTerm t;
         t.match_expressions = {{"foo", "In", {"-1"}},
                                {"foo", "In", {}},
                                {"foo", "Exists", {"x"}},
                                {"foo", "Gt", {"1", "2"}},
                                {kBadName, "Bogus", {}}};
         t.match_fields = {{"metadata.name", "In", {"a", "b"}},
                           {"metadata.uid", "Exists", {}},
                           {"metadata.name", "In", {kBadName}}};
         s.spec.node_selector = NodeSelector{{t}};
       },
       {"spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values[0]: "
        "Invalid value: \"-1\": " +
            kLabelValueMsg,
        // NOLINTNEXTLINE(bugprone-suspicious-missing-comma): one message
        "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[1].values: "
        "Required value: must be specified when `operator` is 'In' or 'NotIn'",
        "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[2].values: "
        "Forbidden: may not be specified when `operator` is 'Exists' or "
        "'DoesNotExist'",
        "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[3].values: "
        "Required value: must be specified single value when `operator` is "
        "'Lt' or 'Gt'",
        "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[4].operator: "
        "Invalid value: \"Bogus\": not a valid selector operator",
        "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[4].key: "
        "Invalid value: " +
            kBadNameQ + ": " + kNamePartMsg,
        "spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].values: "
        "Required "
        "value: must be only one value when `operator` is 'In' or 'NotIn' for "
        "node field selector",
        "spec.nodeSelector.nodeSelectorTerms[0].matchFields[1].operator: "
        "Invalid value: \"Exists\": not a valid selector operator",
        "spec.nodeSelector.nodeSelectorTerms[0].matchFields[1].key: Invalid "
        "value: \"metadata.uid\": not a valid field selector key",
        "spec.nodeSelector.nodeSelectorTerms[0].matchFields[2].values[0]: "
        "Invalid value: " +
            kBadNameQ + ": " + kSubdomainMsg}},

  };
  RunCases<ResourceSlice>("ResourceSlice", "resource.k8s.io/v1", ValidSlice(),
                          cases);
}

TEST(ValidateResourceSliceTest, CreatePerDeviceNodeSelection) {
  const std::string dev0 = "spec.devices[0]";
  std::vector<Case<ResourceSlice>> cases = {
      // --- per-device node selection
      {"per-device-node-selection",
       [](ResourceSlice& s) {
         s = ValidSlice(3);
         s.spec.node_name.reset();
         s.spec.per_device_node_selection = true;
         s.spec.devices[0].rare.Mutable().node_name = "worker";
         s.spec.devices[1].rare.Mutable().all_nodes = true;
         s.spec.devices[2].rare.Mutable().node_selector =
             NodeSelector{{NodeSelectorTerm{{{"zone", "In", {"a"}}}, {}}}};
       },
       {}},
      {"bad-per-device-node-selection",
       [](ResourceSlice& s) { s.spec.per_device_node_selection = true; },
       {"spec: Invalid value: \"{`nodeName`, `perDeviceNodeSelection`}\": " +
            kSliceOneOf + ", but multiple fields are set",
        dev0 + ": Required value: " + kPerDeviceOneOf}},
      {"invalid-node-selection-in-device",
       [](ResourceSlice& s) {
         s.spec.node_name.reset();
         s.spec.per_device_node_selection = true;
         s.spec.devices[0].rare.Mutable().node_name = "";
         s.spec.devices[0].rare.Mutable().all_nodes = false;
       },
       {dev0 + ".nodeName: Invalid value: \"\": must not be empty",
        dev0 +
            ".allNodes: Invalid value: false: must be either unset or set to "
            "true",
        dev0 + ": Required value: " + kPerDeviceOneOf}},
      {"multiple-node-selection-in-device",
       [](ResourceSlice& s) {
         s.spec.node_name.reset();
         s.spec.per_device_node_selection = true;
         s.spec.devices[0].rare.Mutable().node_name = "worker";
         s.spec.devices[0].rare.Mutable().all_nodes = true;
       },
       {dev0 +
        ": Invalid value: \"{`nodeName`, `allNodes`}\": " + kPerDeviceOneOf}},
      {"bad-node-name-in-device",
       [](ResourceSlice& s) {
         s.spec.node_name.reset();
         s.spec.per_device_node_selection = true;
         s.spec.devices[0].rare.Mutable().node_name = kBadName;
       },
       {dev0 + ".nodeName: Invalid value: " + kBadNameQ + ": " +
        kSubdomainMsg}},
      {"device-node-selection-without-per-device",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().node_name = "worker";
       },
       {dev0 + ": Invalid value: null: `nodeName`, `nodeSelector` and "
               "`allNodes` can only be set if `perDeviceNodeSelection` is set "
               "to true in the ResourceSlice spec"}},

  };
  RunCases<ResourceSlice>("ResourceSlice", "resource.k8s.io/v1", ValidSlice(),
                          cases);
}

TEST(ValidateResourceSliceTest, CreateDevices) {
  std::vector<Case<ResourceSlice>> cases = {
      // --- devices
      {"duplicate-device-names",
       [](ResourceSlice& s) {
         s = ValidSlice(3);
         s.spec.devices[2].name = "device-0";
       },
       {"spec.devices[2]: Duplicate value: \"device-0\""}},
      {"bad-device-name",
       [](ResourceSlice& s) {
         s = ValidSlice(3);
         s.spec.devices[1].name = kBadName;
       },
       {"spec.devices[1].name: Invalid value: " + kBadNameQ + ": " +
        kLabelMsg}},
      {"both-shared-counters-and-devices",
       [](ResourceSlice& s) { s.spec.shared_counters = SharedCounters(1); },
       {"spec: Invalid value: \"\": only one of `sharedCounters` or `devices` "
        "is "
        "allowed"}},
      {"no-devices", [](ResourceSlice& s) { s.spec.devices.clear(); }, {}},

  };
  RunCases<ResourceSlice>("ResourceSlice", "resource.k8s.io/v1", ValidSlice(),
                          cases);
}

TEST(ValidateResourceSliceTest, CreateAttributesAndCapacities) {
  const std::string dev0 = "spec.devices[0]";
  std::vector<Case<ResourceSlice>> cases = {
      // --- attributes and capacities
      {"attribute-bad-name-and-no-value",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes = {{kBadName, DeviceAttribute{}}};
       },
       {dev0 + ".attributes: Invalid value: " + kBadNameQ + ": " +
            kCIdentifierMsg,
        dev0 + ".attributes[" + kBadName +
            "]: Invalid value: \"\": exactly one value must be specified"}},
      {"attribute-two-values",
       [](ResourceSlice& s) {
         DeviceAttribute a = Attribute([](DeviceAttributeFields& f) {
           f.string_value = "x";
           f.version_value = "1.2.3";
         });
         s.spec.devices[0].attributes = {{"foo", a}};
       },
       {dev0 + ".attributes[foo]: Invalid value: "
               "resource.DeviceAttribute{IntValue:(*int64)(nil), "
               "BoolValue:(*bool)(nil), StringValue:(*string)(0xc000000000), "
               "VersionValue:(*string)(0xc000000000), IntValues:[]int64(nil), "
               "BoolValues:[]bool(nil), StringValues:[]string(nil), "
               "VersionValues:[]string(nil)}: exactly one value must be "
               "specified"}},
      {"attribute-string-64",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes["foo"] =
             DeviceAttribute::String(Repeat('x', 64));
       },
       {}},
      {"attribute-string-65",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes["foo"] =
             DeviceAttribute::String(Repeat('x', 65));
       },
       {dev0 + ".attributes[foo].string: Too long: may not be more than 64 "
               "bytes"}},
      {"attribute-version-too-long",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes["foo"] =
             DeviceAttribute::Version(Repeat('x', 65));
       },
       {dev0 + ".attributes[foo].version: Invalid value: \"" + Repeat('x', 65) +
            "\": must be a string compatible with semver.org spec 2.0.0",
        dev0 + ".attributes[foo].version: Too long: may not be more than 64 "
               "bytes"}},
      {"attribute-version-64",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes["foo"] =
             DeviceAttribute::Version("1.2.3-" + Repeat('a', 58));
       },
       {}},
      {"attribute-versions",
       [](ResourceSlice& s) {
         int i = 0;
         for (const char* v :
              {"1.2.3-alpha.1+build.5", "0.0.0", "1.2.3-0a", "01.2.3", "1.2",
               "1.2.3-01", "1.2.3+", "v1.2.3", "1.2.3-a..b"}) {
           s.spec.devices[0].attributes[StrCat("v", i++)] =
               DeviceAttribute::Version(v);
         }
       },
       {dev0 + ".attributes[v3].version: Invalid value: \"01.2.3\": must be a "
               "string compatible with semver.org spec 2.0.0",
        dev0 + ".attributes[v4].version: Invalid value: \"1.2\": must be a "
               "string compatible with semver.org spec 2.0.0",
        dev0 +
            ".attributes[v5].version: Invalid value: \"1.2.3-01\": must be a "
            "string compatible with semver.org spec 2.0.0",
        dev0 + ".attributes[v6].version: Invalid value: \"1.2.3+\": must be a "
               "string compatible with semver.org spec 2.0.0",
        dev0 + ".attributes[v7].version: Invalid value: \"v1.2.3\": must be a "
               "string compatible with semver.org spec 2.0.0",
        dev0 +
            ".attributes[v8].version: Invalid value: \"1.2.3-a..b\": must be "
            "a string compatible with semver.org spec 2.0.0"}},
      {"good-attribute-names",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes[Repeat('x', 32)] =
             DeviceAttribute::String("y");
         s.spec.devices[0].attributes[Repeat('x', 63) + "/" + Repeat('y', 32)] =
             DeviceAttribute::String("z");
         s.spec.devices[0].attributes["_Under_score9"] =
             DeviceAttribute::Bool(false);
       },
       {}},
      {"bad-attribute-c-identifier",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes = {{Repeat('.', 33), DeviceAttribute{}}};
         s.spec.devices[0].attributes.begin()->second =
             DeviceAttribute::String("y");
       },
       {dev0 + ".attributes: Too long: may not be more than 32 bytes",
        dev0 + ".attributes: Invalid value: \"" + Repeat('.', 33) +
            "\": " + kCIdentifierMsg}},
      {"bad-attribute-domain",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes.clear();
         s.spec.devices[0].attributes[Repeat('_', 64) + "/y"] =
             DeviceAttribute::String("z");
       },
       {dev0 + ".attributes: Too long: may not be more than 63 bytes",
        dev0 + ".attributes: Invalid value: \"" + Repeat('_', 64) +
            "\": " + kSubdomainMsg}},
  };
  RunCases<ResourceSlice>("ResourceSlice", "resource.k8s.io/v1", ValidSlice(),
                          cases);
}

TEST(ValidateResourceSliceTest, CreateAttributesAndCapacitiesMore) {
  const std::string dev0 = "spec.devices[0]";
  std::vector<Case<ResourceSlice>> cases = {
      {"bad-key-too-long",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes.clear();
         s.spec.devices[0].attributes[Repeat('x', 64) + "/" + Repeat('y', 33)] =
             DeviceAttribute::String("z");
       },
       {dev0 + ".attributes: Too long: may not be more than 63 bytes",
        dev0 + ".attributes: Too long: may not be more than 32 bytes"}},
      // Keys longer than 63+1+32 get shortened in the middle in item paths.
      {"long-key-truncated-in-item-path",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes.clear();
         s.spec.devices[0].attributes[Repeat('x', 64) + "/" + Repeat('y', 33)];
       },
       {dev0 + ".attributes: Too long: may not be more than 63 bytes",
        dev0 + ".attributes: Too long: may not be more than 32 bytes",
        dev0 + ".attributes[" + Repeat('x', 47) + "..." + Repeat('x', 12) +
            "/" + Repeat('y', 33) +
            "]: Invalid value: \"\": exactly one value must be specified"}},
      {"bad-attribute-empty-domain-and-c-identifier",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes.clear();
         s.spec.devices[0].attributes["/"] = DeviceAttribute::String("z");
       },
       {dev0 + ".attributes: Invalid value: \"\": the domain must not be empty",
        dev0 + ".attributes: Invalid value: \"\": the name must not be empty"}},
      {"attribute-two-slashes",
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes["a/b/c"] = DeviceAttribute::String("z");
       },
       {dev0 + ".attributes: Invalid value: \"a/b/c\": must not contain more "
               "than one slash"}},
      // 1.36+: at most 48 attribute values, list elements counted singly.
      {"max-attribute-values",
       [](ResourceSlice& s) {
         Device& d = s.spec.devices[0];
         d.capacity.clear();
         d.attributes.clear();
         d.attributes["list_attr_0"] = Attribute([](DeviceAttributeFields& f) {
           f.strings = std::vector<std::string>(48 - 30, "x");
         });
         for (int i = 1; i < 31; ++i) {
           d.attributes[StrCat("list_attr_", i)] =
               Attribute([](DeviceAttributeFields& f) { f.strings = {"x"}; });
         }
       },
       {}},
      {"too-many-attribute-values",
       [](ResourceSlice& s) {
         Device& d = s.spec.devices[0];
         d.capacity.clear();
         d.attributes.clear();
         d.attributes["list_attr_0"] = Attribute([](DeviceAttributeFields& f) {
           f.strings = std::vector<std::string>(48 - 30, "x");
         });
         for (int i = 1; i < 31; ++i) {
           d.attributes[StrCat("list_attr_", i)] =
               Attribute([](DeviceAttributeFields& f) { f.strings = {"x"}; });
         }
         d.attributes["extra_attr"] = DeviceAttribute::Int(1);
       },
       {dev0 + ": Invalid value: 49: the total number of attribute values must "
               "not exceed 48"}},
      {"list-attribute-items",
       [](ResourceSlice& s) {
         Device& d = s.spec.devices[0];
         d.attributes["strs"] = Attribute([](DeviceAttributeFields& f) {
           f.strings = {"a", Repeat('x', 65)};
         });
         d.attributes["vers"] = Attribute([](DeviceAttributeFields& f) {
           f.versions = {"1.0.0", "1.0"};
         });
         d.attributes["mixed"] = Attribute([](DeviceAttributeFields& f) {
           f.ints = {1};
           f.bools = {true};
         });
       },
       {dev0 + ".attributes[mixed]: Invalid value: "
               "resource.DeviceAttribute{IntValue:(*int64)(nil), "
               "BoolValue:(*bool)(nil), StringValue:(*string)(nil), "
               "VersionValue:(*string)(nil), IntValues:[]int64{1}, "
               "BoolValues:[]bool{true}, StringValues:[]string(nil), "
               "VersionValues:[]string(nil)}: exactly one value must be "
               "specified",
        dev0 +
            ".attributes[strs].strings[1]: Too long: may not be more than 64 "
            "bytes",
        dev0 +
            ".attributes[vers].versions[1]: Invalid value: \"1.0\": must be a "
            "string compatible with semver.org spec 2.0.0"}},
      {"capacity-bad-name",
       [](ResourceSlice& s) {
         s.spec.devices[0].capacity["a-b"].value = Q("1");
       },
       {dev0 + ".capacity: Invalid value: \"a-b\": " + kCIdentifierMsg}},
      {"max-attributes-and-capacities",
       [](ResourceSlice& s) {
         Device& d = s.spec.devices[0];
         d.attributes.clear();
         for (int i = 0; i < 31; ++i) {
           d.attributes[StrCat("attr_", i)] = DeviceAttribute::String("x");
         }
       },
       {}},
  };
  RunCases<ResourceSlice>("ResourceSlice", "resource.k8s.io/v1", ValidSlice(),
                          cases);
}

TEST(ValidateResourceSliceTest, CreateAttributesAndCapacitiesMore2) {
  const std::string dev0 = "spec.devices[0]";
  std::vector<Case<ResourceSlice>> cases = {
      {"too-many-attributes-and-capacities",
       [](ResourceSlice& s) {
         Device& d = s.spec.devices[0];
         d.attributes.clear();
         for (int i = 0; i < 32; ++i) {
           d.attributes[StrCat("attr_", i)] = DeviceAttribute::String("x");
         }
       },
       {dev0 + ": Invalid value: 33: the total number of attributes and "
               "capacities must not exceed 32"}},
      {"too-many-capacities",
       [](ResourceSlice& s) {
         Device& d = s.spec.devices[0];
         d.attributes.clear();
         for (int i = 0; i < 32; ++i)
           d.capacity[StrCat("cap_", i)].value = Q("1Gi");
       },
       {dev0 + ": Invalid value: 33: the total number of attributes and "
               "capacities must not exceed 32"}},
      {"request-policy-without-multiple-allocations",
       [](ResourceSlice& s) {
         DeviceCapacity& cap = s.spec.devices[0].capacity["cap"];
         cap.value = Q("1Gi");
         cap.request_policy.emplace();
         cap.request_policy->default_ = Q("1Mi");
         cap.request_policy->valid_range = Range("1Mi");
       },
       {dev0 + ".capacity[cap].requestPolicy: Forbidden: "
               "allowMultipleAllocations must be true"}},

  };
  RunCases<ResourceSlice>("ResourceSlice", "resource.k8s.io/v1", ValidSlice(),
                          cases);
}

TEST(ValidateResourceSliceTest, CreateTaints) {
  const std::string dev0 = "spec.devices[0]";
  std::vector<Case<ResourceSlice>> cases = {
      // --- taints
      {"max-taints",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().taints.assign(16, Taint());
       },
       {}},
      {"too-many-taints",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().taints.assign(17, Taint());
       },
       {dev0 + ".taints: Too many: 17: must have at most 16 items"}},
      {"taints",
       [](ResourceSlice& s) {
         DeviceTaint full = Taint("taint", "NoSchedule");
         full.value = "tainted";
         full.time_added = "2024-01-01T00:00:00Z";
         DeviceTaint bad = Taint(kBadName, "some-other-effect");
         bad.value = kBadName;
         s.spec.devices[0].rare.Mutable().taints = {
             Taint(), full, DeviceTaint{}, bad, Taint("a", "None")};
       },
       {dev0 +
            ".taints[2].key: Invalid value: \"\": name part must be non-empty",
        dev0 + ".taints[2].key: Invalid value: \"\": " + kNamePartMsg,
        dev0 + ".taints[2].effect: Required value",
        dev0 + ".taints[3].key: Invalid value: " + kBadNameQ + ": " +
            kNamePartMsg,
        dev0 + ".taints[3].value: Invalid value: " + kBadNameQ + ": " +
            kLabelValueMsg,
        dev0 + ".taints[3].effect: Unsupported value: \"some-other-effect\": " +
            kEffects}},

  };
  RunCases<ResourceSlice>("ResourceSlice", "resource.k8s.io/v1", ValidSlice(),
                          cases);
}

TEST(ValidateResourceSliceTest, CreateConsumesCounters) {
  const std::string dev0 = "spec.devices[0]";
  std::vector<Case<ResourceSlice>> cases = {
      // --- consumesCounters
      {"max-consumes-counters",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().consumes_counters =
             ConsumesCounters(2);
       },
       {}},
      {"too-many-consumes-counters",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().consumes_counters =
             ConsumesCounters(3);
         s.spec.devices[0].rare.Mutable().consumes_counters[0].counter_set =
             kBadName;
       },
       {dev0 + ".consumesCounters: Too many: 3: must have at most 2 items"}},
      {"consumes-counters-errors",
       [](ResourceSlice& s) {
         s = ValidSlice(4);
         s.spec.devices[0].rare.Mutable().consumes_counters = {
             {"", TestCounters()}};
         s.spec.devices[1].rare.Mutable().consumes_counters = {
             {kBadName, TestCounters()}};
         s.spec.devices[2].rare.Mutable().consumes_counters = {
             {"foo", TestCounters()}, {"foo", TestCounters()}};
         s.spec.devices[3].rare.Mutable().consumes_counters = {
             {"counterset-0", {}}};
       },
       {"spec.devices[0].consumesCounters[0].counterSet: Required value",
        "spec.devices[1].consumesCounters[0].counterSet: Invalid value: " +
            kBadNameQ + ": " + kLabelMsg,
        "spec.devices[2].consumesCounters[1]: Duplicate value: \"foo\"",
        "spec.devices[3].consumesCounters[0].counters: Required value"}},
      {"max-counters-in-consumption",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().consumes_counters = {
             {"counterset-0", TestCounters(32)}};
       },
       {}},
      {"too-many-counters-in-consumption",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().consumes_counters = {
             {"counterset-0", TestCounters(33)}};
       },
       {dev0 + ".consumesCounters[0].counters: Too many: 33: must have at most "
               "32 items"}},
      {"bad-counter-name-in-consumption",
       [](ResourceSlice& s) {
         std::map<std::string, Counter> counters;
         counters[kBadName].value = Q("1");
         s.spec.devices[0].rare.Mutable().consumes_counters = {
             {"counterset-0", counters}};
       },
       {dev0 + ".consumesCounters[0].counters: Invalid value: " + kBadNameQ +
        ": " + kLabelMsg}},

  };
  RunCases<ResourceSlice>("ResourceSlice", "resource.k8s.io/v1", ValidSlice(),
                          cases);
}

TEST(ValidateResourceSliceTest, CreateBindingConditions) {
  const std::string dev0 = "spec.devices[0]";
  std::vector<Case<ResourceSlice>> cases = {
      // --- binding conditions
      {"good-binding-conditions",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().binding_conditions = {
             "example.com/condition1", "condition2", "c3", "c4"};
         s.spec.devices[0].rare.Mutable().binding_failure_conditions = {
             "example.com/condition3", "condition4", "c5", "c6"};
         s.spec.devices[0].rare.Mutable().binds_to_node = true;
       },
       {}},
      {"too-many-binding-conditions",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().binding_conditions = {
             "condition1", "condition2", "condition3", "condition4",
             "condition5"};
         s.spec.devices[0].rare.Mutable().binding_failure_conditions = {
             "condition6", "condition7"};
       },
       {dev0 + ".bindingConditions: Too many: 5: must have at most 4 items"}},
      {"too-many-binding-failure-conditions",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().binding_conditions = {"condition1",
                                                                "condition2"};
         s.spec.devices[0].rare.Mutable().binding_failure_conditions = {
             "condition3", "condition4", "condition5", "condition6",
             "condition7"};
       },
       {dev0 + ".bindingFailureConditions: Too many: 5: must have at most 4 "
               "items"}},
      {"invalid-binding-conditions",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().binding_conditions = {"condition1",
                                                                "condition2!"};
         s.spec.devices[0].rare.Mutable().binding_failure_conditions = {
             "condition3!", "condition4"};
       },
       {dev0 + ".bindingConditions[1]: Invalid value: \"condition2!\": " +
            kNamePartMsg,
        dev0 +
            ".bindingFailureConditions[0]: Invalid value: \"condition3!\": " +
            kNamePartMsg}},
      {"binding-failure-without-binding-conditions",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().binding_failure_conditions = {
             "condition1", "condition2"};
       },
       {dev0 +
        ".bindingConditions: Invalid value: []string(nil): "
        "bindingConditions are required to use bindingFailureConditions"}},
      {"binding-conditions-without-binding-failure",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().binding_conditions = {"condition1",
                                                                "condition2"};
       },
       {dev0 +
        ".bindingFailureConditions: Invalid value: []string(nil): "
        "bindingFailureConditions are required to use bindingConditions"}},
      {"duplicate-and-overlapping-binding-conditions",
       [](ResourceSlice& s) {
         s.spec.devices[0].rare.Mutable().binding_conditions = {"condition1",
                                                                "condition1"};
         s.spec.devices[0].rare.Mutable().binding_failure_conditions = {
             "condition1", "condition3", "condition3"};
       },
       {dev0 + ".bindingConditions[1]: Duplicate value: \"condition1\"",
        dev0 + ".bindingFailureConditions[0]: Invalid value: \"condition1\": "
               "bindingFailureConditions must not overlap with "
               "bindingConditions",
        dev0 +
            ".bindingFailureConditions[2]: Duplicate value: \"condition3\""}},
  };
  RunCases<ResourceSlice>("ResourceSlice", "resource.k8s.io/v1", ValidSlice(),
                          cases);
}

TEST(ValidateResourceSliceTest, SharedCounters) {
  const std::string sc = "spec.sharedCounters";
  std::vector<Case<ResourceSlice>> cases = {
      {"max-counter-sets",
       [](ResourceSlice& s) { s = ValidCounterSlice(8); },
       {}},
      {"too-many-counter-sets",
       [](ResourceSlice& s) { s = ValidCounterSlice(9); },
       {sc + ": Too many: 9: must have at most 8 items"}},
      {"max-counters-in-set",
       [](ResourceSlice& s) {
         s.spec.shared_counters[0].counters = TestCounters(32);
       },
       {}},
      {"too-many-counters-in-set",
       [](ResourceSlice& s) {
         s.spec.shared_counters[0].counters = TestCounters(33);
       },
       {sc + "[0].counters: Too many: 33: must have at most 32 items"}},
      {"missing-name",
       [](ResourceSlice& s) { s.spec.shared_counters[0].name = ""; },
       {sc + "[0].name: Required value"}},
      {"bad-name",
       [](ResourceSlice& s) { s.spec.shared_counters[0].name = kBadName; },
       {sc + "[0].name: Invalid value: " + kBadNameQ + ": " + kLabelMsg}},
      {"missing-counters",
       [](ResourceSlice& s) { s.spec.shared_counters[0].counters.clear(); },
       {sc + "[0].counters: Required value"}},
      {"bad-counter-name",
       [](ResourceSlice& s) {
         s.spec.shared_counters[0].counters.clear();
         s.spec.shared_counters[0].counters[kBadName].value = Q("1Gi");
       },
       {sc + "[0].counters: Invalid value: " + kBadNameQ + ": " + kLabelMsg}},
      {"duplicate-sets",
       [](ResourceSlice& s) {
         s = ValidCounterSlice(2);
         s.spec.shared_counters[1].name = s.spec.shared_counters[0].name;
       },
       {sc + "[1]: Duplicate value: \"counterset-0\""}},
      {"no-node-selection",
       [](ResourceSlice& s) { s.spec.node_name.reset(); },
       {"spec: Required value: " + kSliceOneOf}},
  };
  RunCases<ResourceSlice>("ResourceSlice", "resource.k8s.io/v1",
                          ValidCounterSlice(), cases);
}

TEST(ValidateResourceSliceTest, ConsumableCapacity) {
  const std::string rp = "spec.devices[0].capacity[a].requestPolicy";
  std::vector<Case<ResourceSlice>> cases = {
      {"no-valid-values",
       [](ResourceSlice& s) { Policy(s).valid_values.clear(); },
       {}},
      {"no-policy",
       [](ResourceSlice& s) {
         s.spec.devices[0].capacity["a"].request_policy.reset();
       },
       {}},
      {"max-valid-values",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         for (int i = 1; i <= 10; ++i)
           Policy(s).valid_values.push_back(Q(StrCat(i)));
         Policy(s).default_ = Q("1");
       },
       {}},
      {"too-many-valid-values",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         for (int i = 1; i <= 11; ++i)
           Policy(s).valid_values.push_back(Q(StrCat(i)));
         Policy(s).default_ = Q("1");
       },
       {rp + ".validValues: Too many: 11: must have at most 10 items",
        rp + ".validValues: Invalid value: \"1\": default value is not valid "
             "according to the requestPolicy"}},
      {"unsorted-valid-values",
       [](ResourceSlice& s) {
         Policy(s).valid_values = {Q("10"), Q("5"), Q("100")};
       },
       {rp + ".validValues[1]: Invalid value: \"5\": values must be sorted in "
             "ascending order"}},
      {"capacity-smaller-than-options",
       [](ResourceSlice& s) {
         s.spec.devices[0].capacity["a"].value = Q("-1");
       },
       {rp + ".validValues[0]: Invalid value: \"5\": option is larger than "
             "capacity value: -1",
        rp + ".validValues[1]: Invalid value: \"10\": option is larger than "
             "capacity value: -1",
        rp + ".validValues[2]: Invalid value: \"100\": option is larger than "
             "capacity value: -1"}},
      {"default-not-an-option",
       [](ResourceSlice& s) { Policy(s).default_ = Q("-1"); },
       {rp + ".validValues: Invalid value: \"-1\": default value is not valid "
             "according to the requestPolicy"}},
      {"valid-values-without-default",
       [](ResourceSlice& s) { Policy(s).default_.reset(); },
       {rp + ".default: Required value: required when validValues is defined"}},
      {"duplicate-spelling",
       [](ResourceSlice& s) {
         Policy(s).default_ = Q("5");
         Policy(s).valid_values[1] = Q("5.0");
       },
       {rp + ".validValues[1]: Duplicate value: \"5\""}},
      {"fractional-options-not-duplicates",
       [](ResourceSlice& s) { Policy(s).valid_values[0] = Q("9900m"); },
       {}},
      {"both-valid-values-and-range",
       [](ResourceSlice& s) { Policy(s).valid_range = Range("10"); },
       {rp + ": Forbidden: exactly one policy can be specified, cannot specify "
             "\"validValues\" and \"validRange\" at the same time"}},
      {"range-only",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).valid_range = Range("1");
       },
       {}},
      {"range-without-default",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).default_.reset();
         Policy(s).valid_range = Range("1");
       },
       {rp + ".default: Required value: required when validRange is defined"}},
      {"range-default-less-than-min",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("1050m");
         Policy(s).valid_range = Range("1100m");
       },
       {rp + ".validRange.default: Invalid value: \"1050m\": default is less "
             "than min: 1100m"}},
      {"range-min-larger-than-capacity",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("200");
         Policy(s).valid_range = Range("200");
       },
       {rp + ".validRange.min: Invalid value: \"200\": min is larger than "
             "capacity value: 100"}},
      {"range-min-larger-than-max",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("50");
         Policy(s).valid_range = Range("50", "20");
       },
       {rp + ".validRange.max: Invalid value: \"50\": min is larger than max: "
             "20",
        rp + ".validRange.default: Invalid value: \"50\": default is more than "
             "max: 20"}},
  };
  RunCases<ResourceSlice>("ResourceSlice", "resource.k8s.io/v1",
                          ValidConsumableSlice(), cases);
}

TEST(ValidateResourceSliceTest, ConsumableCapacityMore) {
  const std::string rp = "spec.devices[0].capacity[a].requestPolicy";
  std::vector<Case<ResourceSlice>> cases = {
      {"range-max-larger-than-capacity",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).valid_range = Range("10", "200");
       },
       {rp + ".validRange.max: Invalid value: \"200\": max is larger than "
             "capacity value: 100"}},
      {"range-zero-step",
       [](ResourceSlice& s) {
         s.spec.devices[0].capacity["a"].value = Q("1Gi");
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("10Mi");
         Policy(s).valid_range = Range("1Mi", "100Mi", "0");
       },
       {rp + ".validRange.step: Invalid value: \"0\": must be greater than "
             "zero"}},
      {"range-negative-step",
       [](ResourceSlice& s) {
         s.spec.devices[0].capacity["a"].value = Q("1Gi");
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("10Mi");
         Policy(s).valid_range = Range("1Mi", "100Mi", "-1Mi");
       },
       {rp + ".validRange.step: Invalid value: \"-1Mi\": must be greater than "
             "zero"}},
      {"range-step-valid",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("20");
         Policy(s).valid_range = Range("10", "100", "10");
       },
       {}},
      {"range-one-step-too-large",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("60");
         Policy(s).valid_range = Range("60", std::nullopt, "50");
       },
       {rp + ".validRange.step: Invalid value: \"50\": one step 110 is larger "
             "than capacity value: 100"}},
      {"range-default-not-a-step",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("15");
         Policy(s).valid_range = Range("0", std::nullopt, "10");
       },
       {rp + ".validRange.step: Invalid value: \"15\": value is not a multiple "
             "of a given step (10) from (0)"}},
      {"range-max-not-a-step",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("10");
         Policy(s).valid_range = Range("0", "95", "10");
       },
       {rp + ".validRange.step: Invalid value: \"95\": value is not a multiple "
             "of a given step (10) from (0)"}},
      {"range-negative-bound",
       [](ResourceSlice& s) {
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("0");
         Policy(s).valid_range = Range("-1", std::nullopt, "1");
       },
       {rp + ".validRange.min: Invalid value: \"-1\": must be greater than or "
             "equal to 0"}},
      {"range-fractional",
       [](ResourceSlice& s) {
         s.spec.devices[0].capacity["a"].value = Q("1");
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("500m");
         Policy(s).valid_range = Range("100m", "1", "100m");
       },
       {}},
      {"range-fractional-not-a-step",
       [](ResourceSlice& s) {
         s.spec.devices[0].capacity["a"].value = Q("1");
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("550m");
         Policy(s).valid_range = Range("100m", "1", "100m");
       },
       {rp + ".validRange.step: Invalid value: \"550m\": value is not a "
             "multiple of a given step (100m) from (100m)"}},
      {"range-big-integers",
       [](ResourceSlice& s) {
         s.spec.devices[0].capacity["a"].value = Q("9223372036854775807");
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("9223372036854775807");
         Policy(s).valid_range = Range("0", "9223372036854775807", "1");
       },
       {}},
      {"range-not-representable-in-milli",
       [](ResourceSlice& s) {
         s.spec.devices[0].capacity["a"].value = Q("9223372036854775807");
         Policy(s).valid_values.clear();
         Policy(s).default_ = Q("9223372036854775807");
         Policy(s).valid_range = Range("0", "9223372036854775807", "1m");
       },
       {rp + ".validRange.default: Invalid value: \"9223372036854775807\": "
             "value cannot be represented as a milli value",
        rp + ".validRange.max: Invalid value: \"9223372036854775807\": value "
             "cannot be represented as a milli value"}},
  };
  RunCases<ResourceSlice>("ResourceSlice", "resource.k8s.io/v1",
                          ValidConsumableSlice(), cases);
}

TEST(ValidateResourceSliceTest, Update) {
  ResourceSlice base = ValidSlice();
  base.metadata.name = "valid";
  base.metadata.resource_version = "1";
  base.spec.node_name = "valid";
  base.spec.pool.name = "valid";
  base.spec.driver = "valid";
  auto bad_taints = [](ResourceSlice& s) {
    s.spec.devices[0].rare.Mutable().taints = {
        Taint("unhealthy-power", "NoExecute"),
        Taint("unhealthy-mem", "some-other-effect")};
  };
  auto with_duplicate_spelling = [](ResourceSlice& s) {
    s = ValidConsumableSlice();
    s.metadata.resource_version = "1";
    Policy(s).default_ = Q("5");
    Policy(s).valid_values[1] = Q("5.0");
  };
  std::vector<UpdateCase<ResourceSlice>> cases = {
      {"no-op", nullptr, [](ResourceSlice&) {}, {}},
      {"name-immutable",
       nullptr,
       [](ResourceSlice& s) { s.metadata.name += "-update"; },
       {"metadata.name: Invalid value: \"valid-update\": field is immutable"}},
      {"node-name-immutable",
       nullptr,
       [](ResourceSlice& s) { *s.spec.node_name += "-updated"; },
       {"spec.nodeName: Invalid value: \"valid-updated\": field is immutable"}},
      {"node-name-cleared",
       nullptr,
       [](ResourceSlice& s) {
         s.spec.node_name.reset();
         s.spec.all_nodes = true;
       },
       {"spec.nodeName: Invalid value: null: field is immutable"}},
      {"driver-immutable",
       nullptr,
       [](ResourceSlice& s) { s.spec.driver += "-updated"; },
       {"spec.driver: Invalid value: \"valid-updated\": field is immutable"}},
      {"pool-immutable",
       nullptr,
       [](ResourceSlice& s) { s.spec.pool.name += "-updated"; },
       {"spec.pool.name: Invalid value: \"valid-updated\": field is "
        "immutable"}},
      {"pool-generation-may-change",
       nullptr,
       [](ResourceSlice& s) { s.spec.pool.generation = 5; },
       {}},
      {"devices-may-change",
       nullptr,
       [](ResourceSlice& s) { s.spec.devices.push_back(TestDevice(7)); },
       {}},
      {"invalid-new-effect-in-old-device",
       nullptr,
       [&](ResourceSlice& s) { bad_taints(s); },
       {"spec.devices[0].taints[1].effect: Unsupported value: "
        "\"some-other-effect\": " +
        kEffects}},
      {"valid-old-effect",
       bad_taints,
       [](ResourceSlice& s) {
         s.spec.devices[0].attributes["foo"] = DeviceAttribute::String("bar");
       },
       {}},
      {"invalid-new-effect-in-new-device",
       bad_taints,
       [](ResourceSlice& s) {
         Device d = s.spec.devices[0];
         d.name += "-other";
         s.spec.devices.push_back(d);
       },
       {"spec.devices[1].taints[1].effect: Unsupported value: "
        "\"some-other-effect\": " +
        kEffects}},
      {"invalid-nodeselector-label-value",
       [](ResourceSlice& s) {
         s.spec.node_name.reset();
         s.spec.node_selector =
             NodeSelector{{NodeSelectorTerm{{{"foo", "In", {"bar"}}}, {}}}};
       },
       [](ResourceSlice& s) {
         s.spec.node_selector->node_selector_terms[0]
             .match_expressions[0]
             .values = {"-1"};
       },
       {"spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values[0]: "
        "Invalid value: \"-1\": " +
        kLabelValueMsg}},
      {"consumable-capacity-duplicate-spelling",
       [](ResourceSlice& s) {
         s = ValidConsumableSlice();
         s.metadata.resource_version = "1";
       },
       [](ResourceSlice& s) {
         Policy(s).default_ = Q("5");
         Policy(s).valid_values[1] = Q("5.0");
       },
       {"spec.devices[0].capacity[a].requestPolicy.validValues[1]: Duplicate "
        "value: \"5\""}},
      {"consumable-capacity-okay-if-stored",
       with_duplicate_spelling,
       [](ResourceSlice& s) { s.metadata.labels["updated"] = "true"; },
       {}},
      {"consumable-capacity-rechecked",
       with_duplicate_spelling,
       [](ResourceSlice& s) { s.spec.devices[0].capacity["b"].value = Q("1"); },
       {"spec.devices[0].capacity[a].requestPolicy.validValues[1]: Duplicate "
        "value: \"5\""}},
  };
  RunUpdateCases<ResourceSlice>("ResourceSlice", base, false, cases);
}

}  // namespace
}  // namespace draplane::api::validation_test
