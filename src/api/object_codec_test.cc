#include "api/object_codec.h"

#include "api/manifest.h"
#include "gtest/gtest.h"

namespace draplane::api {
namespace {

Object MustDecode(std::string_view yaml) {
  auto docs = ParseManifests(yaml);
  EXPECT_TRUE(docs.ok()) << docs.status();
  auto decoded = DecodeObject((*docs)[0].json);
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  return decoded->object;
}

TEST(DecodeObjectTest, ReadsV1beta1ClaimIntoV1Form) {
  Object obj = MustDecode(R"(
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.nvidia.com
      count: 4
    constraints:
    - requests: [gpu]
      matchAttribute: gpu.nvidia.com/nvlinkInterconnect
)");
  const auto& claim = std::get<ResourceClaim>(obj.value);
  ASSERT_EQ(claim.spec.devices.requests.size(), 1u);
  const DeviceRequest& r = claim.spec.devices.requests[0];
  ASSERT_TRUE(r.exactly.has_value());
  EXPECT_EQ(r.exactly->device_class_name, "gpu.nvidia.com");
  EXPECT_EQ(r.exactly->count, 4);
  EXPECT_EQ(claim.spec.devices.constraints[0].match_attribute,
            "gpu.nvidia.com/nvlinkInterconnect");
  auto v1 = EncodeObject(obj, "resource.k8s.io/v1");
  ASSERT_TRUE(v1.ok());
  EXPECT_EQ((*v1)["spec"]["devices"]["requests"][0]["exactly"]["count"], 4);
  auto beta1 = EncodeObject(obj, "resource.k8s.io/v1beta1");
  ASSERT_TRUE(beta1.ok());
  EXPECT_EQ((*beta1)["spec"]["devices"]["requests"][0]["count"], 4);
  EXPECT_FALSE((*beta1)["spec"]["devices"]["requests"][0].contains("exactly"));
}

TEST(DecodeObjectTest, ReadsV1beta1SliceBasicDevices) {
  Object obj = MustDecode(R"(
apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.nvidia.com
  nodeName: node1
  pool: {name: node1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    basic:
      attributes:
        productName: {string: NVIDIA A100 80GB PCIe}
        cudaComputeCapability: {version: 8.0.0}
      capacity:
        memory: {value: 80Gi}
)");
  const auto& slice = std::get<ResourceSlice>(obj.value);
  ASSERT_EQ(slice.spec.devices.size(), 1u);
  const Device& d = slice.spec.devices[0];
  EXPECT_EQ(d.attributes.at("productName").string_value(),
            "NVIDIA A100 80GB PCIe");
  EXPECT_EQ(d.capacity.at("memory").value.ToString(), "80Gi");
  EXPECT_EQ(slice.spec.node_name, "node1");
}

TEST(DecodeObjectTest, ReportsWrongTypesWithFieldPaths) {
  auto docs = ParseManifests(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: x, count: four}
)");
  ASSERT_TRUE(docs.ok());
  auto decoded = DecodeObject((*docs)[0].json);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().message(),
            "ResourceClaim in version \"v1\" cannot be handled as a "
            "ResourceClaim: spec.devices.requests[0].exactly.count: Invalid "
            "value: \"four\": must be of type integer, got string");
}

TEST(DecodeObjectTest, ReportsMalformedQuantities) {
  auto docs = ParseManifests(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: d
  devices:
  - name: a
    capacity:
      memory: {value: 80Gb}
)");
  auto decoded = DecodeObject((*docs)[0].json);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find(
                "spec.devices[0].capacity[memory].value: Invalid value: "
                "\"80Gb\""),
            std::string::npos)
      << decoded.status();
}

TEST(DecodeObjectTest, FlagsUnknownFieldsOfFullyModelledTypes) {
  auto docs = ParseManifests(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c
    image: i
    livenessProbe: {exec: {command: [true]}}
  volumes: [{name: v, emptyDir: {}}]
  resourceClaims:
  - name: gpu-req
    resourceClaimTemplateName: ''
    source: {devices: {}}
)");
  auto decoded = DecodeObject((*docs)[0].json);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_EQ(decoded->unknown_fields.size(), 1u);
  EXPECT_EQ(decoded->unknown_fields[0].field, "spec.resourceClaims[0].source");
  // Fields draplane does not model survive a round trip.
  auto encoded = EncodeObject(decoded->object);
  ASSERT_TRUE(encoded.ok());
  EXPECT_EQ((*encoded)["spec"]["volumes"][0]["name"], "v");
  EXPECT_EQ((*encoded)["spec"]["containers"][0]["livenessProbe"]["exec"]
                      ["command"][0],
            true);
  EXPECT_EQ(
      (*encoded)["spec"]["resourceClaims"][0]["resourceClaimTemplateName"], "");
}

TEST(DecodeObjectTest, UnknownKindsStayUnstructured) {
  Object obj =
      MustDecode("apiVersion: v1\nkind: Service\nmetadata: {name: s}\n");
  EXPECT_TRUE(std::holds_alternative<UnstructuredObject>(obj.value));
  EXPECT_EQ(obj.DisplayName(), "Service/s");
}

TEST(DecodeObjectTest, RejectsMissingKindAndUnservedVersions) {
  EXPECT_FALSE(DecodeObject(Json::parse(R"({"apiVersion":"v1"})")).ok());
  EXPECT_FALSE(DecodeObject(Json::parse(R"({"kind":"Pod"})")).ok());
  auto r = DecodeObject(Json::parse(
      R"({"apiVersion":"resource.k8s.io/v1alpha9","kind":"ResourceClaim"})"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "no kind \"ResourceClaim\" is registered for version "
            "\"resource.k8s.io/v1alpha9\"");
  EXPECT_FALSE(DecodeObject(Json::parse("[1]")).ok());
}

TEST(DecodeObjectTest, RejectsBadTimestamps) {
  auto r = DecodeObject(Json::parse(
      R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a","creationTimestamp":"yesterday"}})"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("metadata.creationTimestamp"),
            std::string::npos);
}

TEST(DecodeObjectTest, LeaseTimesAreMicroTimes) {
  // metav1.MicroTime parses with Go's RFC3339Micro layout: exactly six
  // fractional digits (the real kube-apiserver refuses anything else).
  auto lease = [](std::string renew) {
    return DecodeObject(
        Json::parse(R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",)"
                    R"("metadata":{"name":"n","namespace":"kube-node-lease"},)"
                    R"("spec":{"renewTime":")" +
                    renew + R"("}})"));
  };
  EXPECT_TRUE(lease("2026-12-01T23:00:00.123456Z").ok());
  EXPECT_TRUE(lease("2026-12-01T23:00:00.000000+02:00").ok());
  for (std::string bad : {"2026-12-01T23:00:00Z", "2026-12-01T23:00:00.123Z",
                          "2026-12-01T23:00:00.1234567Z"}) {
    auto r = lease(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("spec.renewTime"), std::string::npos)
        << r.status();
    EXPECT_NE(r.status().message().find("MicroTime"), std::string::npos);
  }
}

}  // namespace
}  // namespace draplane::api
