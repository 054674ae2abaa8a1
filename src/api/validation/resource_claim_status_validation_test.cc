// ResourceClaim status updates against upstream Kubernetes 1.37
// (validation_resourceclaim_test.go, TestValidateClaimStatusUpdate).
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

TEST(ValidateResourceClaimTest, StatusUpdate) {
  ResourceClaim base = ValidClaim();
  base.metadata.resource_version = "1";
  auto allocate = [](ResourceClaim& c) {
    c.status.allocation.emplace();
    c.status.allocation->devices.results.push_back(Result());
  };
  const std::string results = "status.allocation.devices.results";
  std::vector<UpdateCase<ResourceClaim>> cases = {
      {"no-op", nullptr, [](ResourceClaim&) {}, {}},
      {"add-allocation-empty",
       nullptr,
       [](ResourceClaim& c) { c.status.allocation.emplace(); },
       {}},
      {"add-allocation", nullptr, allocate, {}},
      {"add-allocation-missing-admin-access",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         c.status.allocation->devices.results[0].admin_access.reset();
       },
       {}},
      {"add-allocation-bad-request",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         c.status.allocation->devices.results[0].request = kBadName;
       },
       {results + "[0].request: Invalid value: " + kBadNameQ + ": " + kLabelMsg,
        results + "[0].request: Invalid value: " + kBadNameQ + ": " +
            kRequestRefMsg}},
      {"add-allocation-bad-result-fields",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         auto& r = c.status.allocation->devices.results[0];
         r.driver = "";
         r.pool = "";
         r.device = "a.b";
         r.tolerations = {Toleration("key", "")};
       },
       {results + "[0].driver: Required value",
        results + "[0].pool: Required value",
        results + "[0].device: Invalid value: \"a.b\": must not contain dots",
        results + "[0].tolerations[0].operator: Required value"}},
      {"max-results",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         for (int i = 1; i < 32; ++i) {
           c.status.allocation->devices.results.push_back(
               Result("foo", StrCat("dev-", i)));
         }
       },
       {}},
      {"too-many-results",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         for (int i = 1; i < 33; ++i) {
           c.status.allocation->devices.results.push_back(
               Result("foo", StrCat("dev-", i)));
         }
       },
       {results + ": Too many: 33: must have at most 32 items"}},
      {"share-id",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         c.status.allocation->devices.results.push_back(Result());
         c.status.allocation->devices.results.push_back(Result());
         c.status.allocation->devices.results.push_back(Result());
         c.status.allocation->devices.results[0].share_id =
             "ac051fac-2ead-46d9-b8b4-4e0fbeb7455d";
         c.status.allocation->devices.results[1].share_id = "abc";
         c.status.allocation->devices.results[2].share_id =
             "AC051FAC-2EAD-46D9-B8B4-4E0FBEB7455D";
         c.status.allocation->devices.results[3].share_id =
             "ac051fac+2ead-46d9-b8b4-4e0fbeb7455d";
       },
       {results + "[1].shareID: Invalid value: \"abc\": error validating uid: "
                  "invalid UUID length: 3",
        results +
            "[2].shareID: Invalid value: "
            "\"AC051FAC-2EAD-46D9-B8B4-4E0FBEB7455D\": uid must be in RFC "
            "4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` "
            "with lowercase hexadecimal characters",
        results + "[3].shareID: Invalid value: "
                  "\"ac051fac+2ead-46d9-b8b4-4e0fbeb7455d\": error validating "
                  "uid: invalid UUID format"}},
      {"result-binding-conditions",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         c.status.allocation->devices.results[0].binding_conditions = {
             "a", "b", "c", "d", "e"};
         c.status.allocation->devices.results[0].binding_failure_conditions = {
             "f"};
       },
       {results +
        "[0].bindingConditions: Too many: 5: must have at most 4 items"}},
      {"invalid-node-selector",
       nullptr,
       [](ResourceClaim& c) {
         c.status.allocation.emplace();
         c.status.allocation->node_selector.emplace();
       },
       {"status.allocation.nodeSelector.nodeSelectorTerms: Required value: "
        "must "
        "have at least one node selector term"}},
  };
  RunUpdateCases<ResourceClaim>("ResourceClaim", base, /*status=*/true, cases);
}

TEST(ValidateResourceClaimTest, StatusUpdateMore) {
  ResourceClaim base = ValidClaim();
  base.metadata.resource_version = "1";
  auto allocate = [](ResourceClaim& c) {
    c.status.allocation.emplace();
    c.status.allocation->devices.results.push_back(Result());
  };
  const std::string aconfig = "status.allocation.devices.config";
  auto add_config = [](ResourceClaim& c, std::string source) {
    DeviceAllocationConfiguration config;
    config.source = std::move(source);
    config.opaque = Opaque();
    c.status.allocation->devices.config.push_back(config);
  };
  std::vector<UpdateCase<ResourceClaim>> cases = {
      {"allocation-config",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         add_config(c, "FromClaim");
         add_config(c, "");
         add_config(c, "no-such-source");
         add_config(c, "FromClass");
         c.status.allocation->devices.config[3].opaque.reset();
         add_config(c, "FromClaim");
         c.status.allocation->devices.config[4].opaque->driver = "";
         c.status.allocation->devices.config[4].opaque->parameters = Json();
         add_config(c, "FromClaim");
         c.status.allocation->devices.config[5].requests = {"foo", kBadName};
         add_config(c, "FromClaim");
         c.status.allocation->devices.config[6].opaque->parameters =
             Json{{"str", Repeat('x', 10 * 1024)}};
       },
       {aconfig + "[1].source: Required value",
        aconfig +
            "[2].source: Unsupported value: \"no-such-source\": supported "
            "values: \"FromClaim\", \"FromClass\"",
        aconfig + "[3].opaque: Required value",
        aconfig + "[4].opaque.driver: Required value",
        aconfig + "[4].opaque.parameters: Required value",
        aconfig + "[5].requests[1]: Invalid value: " + kBadNameQ + ": " +
            kLabelMsg,
        aconfig + "[5].requests[1]: Invalid value: " + kBadNameQ + ": " +
            kRequestRefMsg,
        aconfig + "[6].opaque.parameters: Too long: may not be more than 10240 "
                  "bytes"}},
      {"max-allocation-config",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         for (int i = 0; i < 64; ++i) add_config(c, "FromClass");
       },
       {}},
      {"too-many-allocation-config",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         for (int i = 0; i < 65; ++i) add_config(c, "FromClass");
       },
       {aconfig + ": Too many: 65: must have at most 64 items"}},

  };
  RunUpdateCases<ResourceClaim>("ResourceClaim", base, /*status=*/true, cases);
}

TEST(ValidateResourceClaimTest, StatusUpdateReservedFor) {
  ResourceClaim base = ValidClaim();
  base.metadata.resource_version = "1";
  auto allocate = [](ResourceClaim& c) {
    c.status.allocation.emplace();
    c.status.allocation->devices.results.push_back(Result());
  };
  std::vector<UpdateCase<ResourceClaim>> cases = {
      // --- reservedFor
      {"add-reservation",
       allocate,
       [](ResourceClaim& c) {
         for (int i = 0; i < 256; ++i)
           c.status.reserved_for.push_back(Consumer(i));
       },
       {}},
      {"add-reservation-and-allocation",
       nullptr,
       [&](ResourceClaim& c) {
         allocate(c);
         for (int i = 0; i < 256; ++i)
           c.status.reserved_for.push_back(Consumer(i));
       },
       {}},
      {"reserved-for-too-large",
       allocate,
       [](ResourceClaim& c) {
         for (int i = 0; i < 257; ++i)
           c.status.reserved_for.push_back(Consumer(i));
       },
       {"status.reservedFor: Too many: 257: must have at most 256 items"}},
      {"reserved-for-duplicate",
       allocate,
       [](ResourceClaim& c) {
         c.status.reserved_for = {Consumer(1), Consumer(1)};
       },
       {"status.reservedFor[1]: Duplicate value: \"1\""}},
      {"reserved-for-without-allocation",
       nullptr,
       [](ResourceClaim& c) { c.status.reserved_for = {Consumer(1)}; },
       {"status.reservedFor: Forbidden: may not be specified when `allocated` "
        "is not set"}},
      {"reserved-for-missing-fields",
       allocate,
       [](ResourceClaim& c) {
         c.status.reserved_for = {ResourceClaimConsumerReference{}};
       },
       {"status.reservedFor[0].resource: Required value",
        "status.reservedFor[0].name: Required value",
        "status.reservedFor[0].uid: Required value"}},
      {"reserved-for-while-deleted",
       [&](ResourceClaim& c) {
         allocate(c);
         c.metadata.deletion_timestamp = "2024-01-01T00:00:00Z";
       },
       [](ResourceClaim& c) { c.status.reserved_for = {Consumer(1)}; },
       {"status.reservedFor: Forbidden: new entries may not be added while "
        "`deallocationRequested` or `deletionTimestamp` are set"}},
      {"reserved-for-removal-while-deleted",
       [&](ResourceClaim& c) {
         allocate(c);
         c.status.reserved_for = {Consumer(1), Consumer(2)};
         c.metadata.deletion_timestamp = "2024-01-01T00:00:00Z";
       },
       [](ResourceClaim& c) { c.status.reserved_for = {Consumer(2)}; },
       {}},
  };
  RunUpdateCases<ResourceClaim>("ResourceClaim", base, /*status=*/true, cases);
}

TEST(ValidateResourceClaimTest, StatusUpdateAllocationIsImmutable) {
  ResourceClaim base = ValidClaim();
  base.metadata.resource_version = "1";
  auto allocate = [](ResourceClaim& c) {
    c.status.allocation.emplace();
    c.status.allocation->devices.results.push_back(Result());
  };
  const std::string results = "status.allocation.devices.results";
  std::vector<UpdateCase<ResourceClaim>> cases = {
      // --- allocation is immutable once set, but may be cleared
      {"allocation-modification",
       allocate,
       [](ResourceClaim& c) {
         c.status.allocation->devices.results[0].driver += "-2";
       },
       {"status.allocation: Invalid value: "
        R"({"devices":{"results":[{"request":"foo","driver":"foo-2","pool":"foo","device":"foo","adminAccess":false}]}})"
        ": field is immutable"}},
      {"allocation-cleared",
       allocate,
       [](ResourceClaim& c) { c.status.allocation.reset(); },
       {}},
      // A stored allocation is not validated again.
      {"stored-allocation-not-revalidated",
       [&](ResourceClaim& c) {
         allocate(c);
         c.status.allocation->devices.results[0].request = "gone";
       },
       [](ResourceClaim& c) { c.metadata.labels["a"] = "b"; },
       {}},

  };
  RunUpdateCases<ResourceClaim>("ResourceClaim", base, /*status=*/true, cases);
}

TEST(ValidateResourceClaimTest, StatusUpdateStatusDevices) {
  ResourceClaim base = ValidClaim();
  base.metadata.resource_version = "1";
  auto allocate = [](ResourceClaim& c) {
    c.status.allocation.emplace();
    c.status.allocation->devices.results.push_back(Result());
  };
  const std::string results = "status.allocation.devices.results";
  std::vector<UpdateCase<ResourceClaim>> cases = {
      // --- status.devices
      {"device-status",
       allocate,
       [](ResourceClaim& c) {
         AllocatedDeviceStatus d;
         d.driver = "foo";
         d.pool = "foo";
         d.device = "foo";
         d.conditions = {ReadyCondition()};
         d.data = Json{{"a", 1}};
         d.network_data = NetworkDeviceData{
             "eth0", {"10.9.8.7/24", "2001:db8::1/64"}, "ea:9f:cb:40:b1:7b"};
         c.status.devices.push_back(d);
       },
       {}},
      {"device-status-errors",
       allocate,
       [](ResourceClaim& c) {
         AllocatedDeviceStatus d;
         d.driver = "foo";
         d.pool = "foo";
         d.device = "bar";
         c.status.devices.push_back(d);
         AllocatedDeviceStatus dup;
         dup.driver = "foo";
         dup.pool = "foo";
         dup.device = "bar";
         c.status.devices.push_back(dup);
       },
       {"status.devices[0]: Invalid value: foo/foo/bar: must be an allocated "
        "device in the claim",
        "status.devices[1]: Invalid value: foo/foo/bar: must be an allocated "
        "device in the claim",
        "status.devices[1]: Duplicate value: foo/foo/bar"}},
      {"device-status-limits",
       allocate,
       [](ResourceClaim& c) {
         AllocatedDeviceStatus d;
         d.driver = "foo";
         d.pool = "foo";
         d.device = "foo";
         for (int i = 0; i < 9; ++i) {
           d.conditions.push_back(ReadyCondition(StrCat("cond", i)));
         }
         d.data = Json::array();
         NetworkDeviceData n;
         n.interface_name = Repeat('x', 257);
         n.hardware_address = Repeat('x', 129);
         n.ips = {"1.2.3.4", "010.0.0.1/24", "2001:DB8::1/64", "10.9.8.7/24",
                  "10.9.8.7/24"};
         d.network_data = n;
         c.status.devices.push_back(d);
       },
       {"status.devices[0].conditions: Too many: 9: must have at most 8 items",
        // NOLINTNEXTLINE(bugprone-suspicious-missing-comma): one message
        "status.devices[0].data: Invalid value: \"<value omitted>\": must be a "
        "valid JSON object",
        "status.devices[0].networkData.interfaceName: Too long: may not be "
        "more "
        "than 256 bytes",
        "status.devices[0].networkData.hardwareAddress: Too long: may not be "
        "more than 128 bytes",
        "status.devices[0].networkData.ips[0]: Invalid value: \"1.2.3.4\": " +
            kCIDRMsg,
        "status.devices[0].networkData.ips[1]: Invalid value: "
        "\"010.0.0.1/24\": "
        "must be in canonical form (\"10.0.0.1/24\")",
        "status.devices[0].networkData.ips[2]: Invalid value: "
        "\"2001:DB8::1/64\": must be in canonical form (\"2001:db8::1/64\")",
        "status.devices[0].networkData.ips[4]: Duplicate value: "
        "\"10.9.8.7/24\""}},
      {"device-status-ips-boundary",
       [&](ResourceClaim& c) {
         allocate(c);
         c.status.allocation->devices.results.push_back(Result());
         c.status.allocation->devices.results[1].share_id =
             "ac051fac-2ead-46d9-b8b4-4e0fbeb7455d";
       },
       [](ResourceClaim& c) {
         AllocatedDeviceStatus d;
         d.driver = "foo";
         d.pool = "foo";
         d.device = "foo";
         NetworkDeviceData n;
         for (int i = 0; i < 17; ++i)
           n.ips.push_back(StrCat("10.0.0.", i, "/24"));
         d.network_data = n;
         c.status.devices.push_back(d);
         d.network_data->ips.pop_back();
         d.device = "foo";
         d.share_id = "ac051fac-2ead-46d9-b8b4-4e0fbeb7455d";
         c.status.devices.push_back(d);
       },
       {"status.devices[0].networkData.ips: Too many: 17: must have at most 16 "
        "items"}},
      {"device-status-conditions",
       allocate,
       [](ResourceClaim& c) {
         AllocatedDeviceStatus d;
         d.driver = "foo";
         d.pool = "foo";
         d.device = "foo";
         Condition bad;
         bad.type = "Ready";
         bad.status = "Maybe";
         bad.observed_generation = -1;
         d.conditions = {ReadyCondition(), bad};
         c.status.devices.push_back(d);
       },
       {"status.devices[0].conditions[1].type: Duplicate value: \"Ready\"",
        // NOLINTNEXTLINE(bugprone-suspicious-missing-comma): one message
        "status.devices[0].conditions[1].status: Unsupported value: \"Maybe\": "
        "supported values: \"False\", \"True\", \"Unknown\"",
        "status.devices[0].conditions[1].observedGeneration: Invalid value: "
        "-1: "
        "must be greater than or equal to zero",
        "status.devices[0].conditions[1].lastTransitionTime: Required value: "
        "must be set",
        "status.devices[0].conditions[1].reason: Required value: must be set"}},
  };
  RunUpdateCases<ResourceClaim>("ResourceClaim", base, /*status=*/true, cases);
}

}  // namespace
}  // namespace draplane::api::validation_test
