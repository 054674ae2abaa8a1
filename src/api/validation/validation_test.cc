// Tests of api/validation/validation.h against upstream Kubernetes 1.37
// behaviour (pkg/apis/resource/validation/validation.go, the DRA parts of
// pkg/apis/core/validation, apimachinery name/label validation).
//
// Every table case starts from a valid object (checked to produce no
// errors), breaks one thing and compares the exact rendered errors
// (FieldError::ToString(), i.e. upstream's field.Error.Error()) in order.
// Many cases are ports of upstream's validation_*_test.go scenarios.
//
// This file: kinds without rules of their own, defaulting, v1beta1 error
// paths and the name formats; the kinds' rules are in
// <kind>_validation_test.cc.

#include "api/validation/validation.h"

#include <string>
#include <vector>

#include "api/validation/validation_test_util.h"
#include "common/str_cat.h"
#include "gtest/gtest.h"

namespace draplane::api::validation_test {
namespace {

// ===================================================== other kinds: metadata

TEST(ValidateMetadataTest, NamespacedAndClusterScopedKinds) {
  Namespace ns;
  ns.metadata.name = "a.b";
  ns.metadata.namespace_ = "x";
  EXPECT_EQ(
      Errors(Obj("Namespace", ns, "v1")),
      (Want{"metadata.name: Invalid value: \"a.b\": must not contain dots",
            "metadata.namespace: Forbidden: not allowed on this type"}));
  Node node;
  node.metadata.name = "node-1";
  EXPECT_EQ(Errors(Obj("Node", node, "v1")), Want{});
  Event event;
  event.metadata.name = "e";
  EXPECT_EQ(Errors(Obj("Event", event, "v1")),
            (Want{"metadata.namespace: Required value"}));
  UnstructuredObject u;
  u.json = Json{{"metadata", {{"name", kBadName}}}};
  EXPECT_EQ(Errors(Obj("Service", u, "v1")), Want{});
}

TEST(ValidateObjectUpdateTest, KindMismatch) {
  EXPECT_EQ(Strings(ValidateObjectUpdate(Obj("ResourceClaim", ValidClaim()),
                                         Obj("DeviceClass", ValidClass()))),
            (Want{": Internal error: the kind of an object cannot change"}));
}

// ===================================================== SetDefaults

TEST(SetDefaultsTest, ClaimRequests) {
  ResourceClaim c = ValidClaim();
  c.spec.devices.requests[0].exactly->allocation_mode = "";
  c.spec.devices.requests[0].exactly->count = 0;
  c.spec.devices.requests[0].exactly->tolerations = {Toleration("a", "")};
  DeviceRequest all = ExactRequest("all");
  all.exactly->allocation_mode = "All";
  all.exactly->count = 0;
  c.spec.devices.requests.push_back(all);
  DeviceRequest three = ExactRequest("three");
  three.exactly->allocation_mode = "";
  three.exactly->count = 3;
  c.spec.devices.requests.push_back(three);
  DeviceRequest fa;
  fa.name = "fa";
  DeviceSubRequest sub;
  sub.name = "sub";
  sub.device_class_name = "foo";
  sub.tolerations = {Toleration("b", ""), Toleration("c", "Exists")};
  fa.first_available = {sub};
  c.spec.devices.requests.push_back(fa);
  c.status.allocation.emplace();
  c.status.allocation->devices.results.push_back(Result());
  c.status.allocation->devices.results[0].tolerations = {Toleration("d", "")};

  Object o = Obj("ResourceClaim", c);
  EXPECT_FALSE(Errors(o).empty());
  SetDefaults(o);
  const ResourceClaim& got = std::get<ResourceClaim>(o.value);
  const auto& reqs = got.spec.devices.requests;
  EXPECT_EQ(reqs[0].exactly->allocation_mode, "ExactCount");
  EXPECT_EQ(reqs[0].exactly->count, 1);
  EXPECT_EQ(reqs[0].exactly->tolerations[0].operator_, "Equal");
  EXPECT_EQ(reqs[1].exactly->allocation_mode, "All");
  EXPECT_EQ(reqs[1].exactly->count, 0);
  EXPECT_EQ(reqs[2].exactly->allocation_mode, "ExactCount");
  EXPECT_EQ(reqs[2].exactly->count, 3);
  EXPECT_EQ(reqs[3].first_available[0].allocation_mode, "ExactCount");
  EXPECT_EQ(reqs[3].first_available[0].count, 1);
  EXPECT_EQ(reqs[3].first_available[0].tolerations[0].operator_, "Equal");
  EXPECT_EQ(reqs[3].first_available[0].tolerations[1].operator_, "Exists");
  EXPECT_EQ(got.status.allocation->devices.results[0].tolerations[0].operator_,
            "Equal");
  EXPECT_EQ(Errors(o), Want{});

  // Idempotent.
  Object again = o;
  SetDefaults(again);
  EXPECT_EQ(Strings(ValidateObjectUpdate(
                [&] {
                  Object u = again;
                  u.mutable_metadata()->resource_version = "1";
                  return u;
                }(),
                [&] {
                  Object u = o;
                  u.mutable_metadata()->resource_version = "1";
                  return u;
                }())),
            Want{});
}

TEST(SetDefaultsTest, TemplateAndOtherKinds) {
  ResourceClaimTemplate t = ValidTemplate();
  t.spec.Mutable().spec.devices.requests[0].exactly->allocation_mode = "";
  t.spec.Mutable().spec.devices.requests[0].exactly->count = 0;
  Object o = Obj("ResourceClaimTemplate", t);
  SetDefaults(o);
  const auto& got = std::get<ResourceClaimTemplate>(o.value);
  EXPECT_EQ(got.spec->spec.devices.requests[0].exactly->allocation_mode,
            "ExactCount");
  EXPECT_EQ(got.spec->spec.devices.requests[0].exactly->count, 1);
  EXPECT_EQ(Errors(o), Want{});

  // A class, a slice and a pod are not changed.
  Object c = Obj("DeviceClass", ValidClass());
  SetDefaults(c);
  EXPECT_EQ(std::get<DeviceClass>(c.value).spec.selectors.size(), 1u);
  Object s = Obj("ResourceSlice", ValidSlice());
  SetDefaults(s);
  EXPECT_EQ(std::get<ResourceSlice>(s.value).spec.devices.size(), 1u);
}

TEST(SetDefaultsTest, PodRequestsDefaultToLimits) {
  // Upstream SetDefaults_Pod: what a container limits and does not
  // request, it requests (so the scheduler counts nvidia.com/gpu limits).
  Pod pod;
  pod.metadata.name = "p";
  pod.metadata.namespace_ = "default";
  Container c;
  c.name = "c";
  c.resources.limits["nvidia.com/gpu"] = Quantity::FromInt64(2);
  c.resources.limits["cpu"] = Quantity::FromInt64(4);
  c.resources.requests["cpu"] = Quantity::FromInt64(1);
  pod.spec.containers.push_back(c);
  pod.spec.init_containers.push_back(c);
  Object o = Obj("Pod", pod);
  SetDefaults(o);
  for (const auto* list : {&std::get<Pod>(o.value).spec.containers,
                           &std::get<Pod>(o.value).spec.init_containers}) {
    const ResourceList& requests = (*list)[0].resources.requests;
    ASSERT_EQ(requests.size(), 2u);
    EXPECT_EQ(requests.find("nvidia.com/gpu")->second.ToString(), "2");
    EXPECT_EQ(requests.find("cpu")->second.ToString(), "1");  // kept
  }
}

// ===================================================== NormalizeErrorPaths

TEST(NormalizeErrorPathsTest, V1beta1) {
  auto normalize = [](const std::string& kind, const std::string& api_version,
                      const std::vector<std::string>& paths) {
    FieldErrorList errs;
    for (const std::string& p : paths) {
      errs.push_back(Required(FieldPath(p)));
    }
    NormalizeErrorPaths(kind, api_version, errs);
    std::vector<std::string> out;
    for (const FieldError& e : errs) out.push_back(e.field);
    return out;
  };
  EXPECT_EQ(
      normalize(
          "ResourceClaim", "resource.k8s.io/v1beta1",
          {"spec.devices.requests[0].exactly.count",
           "spec.devices.requests[12].exactly.selectors[0].cel.expression",
           "spec.devices.requests[0].exactly",
           "spec.devices.requests[0].exactly.tolerations[1].key",
           "spec.devices.requests[0].name",
           "spec.devices.requests[0].firstAvailable[1].count",
           "spec.devices.requests[0].exactlyfoo",
           "spec.devices.constraints[0].requests[0]", "metadata.name"}),
      (std::vector<std::string>{
          "spec.devices.requests[0].count",
          "spec.devices.requests[12].selectors[0].cel.expression",
          "spec.devices.requests[0]",
          "spec.devices.requests[0].tolerations[1].key",
          "spec.devices.requests[0].name",
          "spec.devices.requests[0].firstAvailable[1].count",
          "spec.devices.requests[0].exactlyfoo",
          "spec.devices.constraints[0].requests[0]", "metadata.name"}));
  EXPECT_EQ(normalize("ResourceClaimTemplate", "resource.k8s.io/v1beta1",
                      {"spec.spec.devices.requests[1].exactly.deviceClassName",
                       "spec.devices.requests[1].exactly.deviceClassName"}),
            (std::vector<std::string>{
                "spec.spec.devices.requests[1].deviceClassName",
                "spec.devices.requests[1].exactly.deviceClassName"}));
  EXPECT_EQ(
      normalize("ResourceSlice", "resource.k8s.io/v1beta1",
                {"spec.devices[2].attributes[foo]",
                 "spec.devices[2].taints[0].effect", "spec.devices[2].name",
                 "spec.devices[2]", "spec.devices", "spec.pool.name",
                 "spec.sharedCounters[0].name"}),
      (std::vector<std::string>{"spec.devices[2].basic.attributes[foo]",
                                "spec.devices[2].basic.taints[0].effect",
                                "spec.devices[2].name", "spec.devices[2]",
                                "spec.devices", "spec.pool.name",
                                "spec.sharedCounters[0].name"}));
  // Other versions and kinds are left alone.
  for (const char* version :
       {"resource.k8s.io/v1", "resource.k8s.io/v1beta2"}) {
    EXPECT_EQ(
        normalize("ResourceClaim", version,
                  {"spec.devices.requests[0].exactly.count"}),
        (std::vector<std::string>{"spec.devices.requests[0].exactly.count"}));
    EXPECT_EQ(
        normalize("ResourceSlice", version, {"spec.devices[0].attributes"}),
        (std::vector<std::string>{"spec.devices[0].attributes"}));
  }
  EXPECT_EQ(normalize("DeviceClass", "resource.k8s.io/v1beta1",
                      {"spec.devices[0].attributes"}),
            (std::vector<std::string>{"spec.devices[0].attributes"}));
}

TEST(NormalizeErrorPathsTest, EndToEnd) {
  ResourceClaim c = ValidClaim();
  c.spec.devices.requests[0].exactly->count = 0;
  Object o = Obj("ResourceClaim", c, "resource.k8s.io/v1beta1");
  FieldErrorList errs = ValidateObject(o);
  NormalizeErrorPaths(o.kind(), o.type.api_version, errs);
  EXPECT_EQ(Strings(errs),
            (Want{"spec.devices.requests[0].count: Invalid value: 0: must be "
                  "greater than zero"}));

  ResourceSlice s = ValidSlice();
  s.spec.devices[0].rare.Mutable().taints = {Taint("k", "Bad")};
  Object so = Obj("ResourceSlice", s, "resource.k8s.io/v1beta1");
  errs = ValidateObject(so);
  NormalizeErrorPaths(so.kind(), so.type.api_version, errs);
  EXPECT_EQ(Strings(errs), (Want{"spec.devices[0].basic.taints[0].effect: "
                                 "Unsupported value: \"Bad\": " +
                                 kEffects}));
}

// ===================================================== name formats

TEST(NameValidationTest, Formats) {
  namespace nv = ::draplane::name_validation;
  EXPECT_TRUE(nv::IsDNS1123Label("a-1").empty());
  EXPECT_EQ(nv::IsDNS1123Label("-a"), std::vector<std::string>{kLabelMsg});
  EXPECT_EQ(nv::IsDNS1123Label(Repeat('a', 64)),
            std::vector<std::string>{"must be no more than 63 bytes"});
  EXPECT_EQ(nv::IsDNS1123Subdomain(Repeat('a', 254)),
            std::vector<std::string>{"must be no more than 253 bytes"});
  EXPECT_EQ(nv::IsDNS1123Subdomain("a..b"),
            std::vector<std::string>{kSubdomainMsg});
  EXPECT_EQ(nv::NameIsDNSSubdomain("prefix-", /*prefix=*/true),
            std::vector<std::string>{});
  EXPECT_EQ(nv::NameIsDNSSubdomain("prefix-", /*prefix=*/false),
            std::vector<std::string>{kSubdomainMsg});
  EXPECT_EQ(nv::IsQualifiedName("/a"),
            (std::vector<std::string>{"prefix part must be non-empty"}));
  EXPECT_EQ(nv::IsQualifiedName("a/b/c").size(), 1u);
  EXPECT_EQ(
      nv::IsQualifiedName("a/b/c")[0],
      "a valid label key must consist of alphanumeric characters, '-', "
      "'_' or '.', and must start and end with an alphanumeric character "
      "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
      "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an "
      "optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
  EXPECT_EQ(nv::IsQualifiedName("Example.com/x"),
            (std::vector<std::string>{"prefix part " + kSubdomainMsg}));
  EXPECT_EQ(
      nv::IsQualifiedName(Repeat('a', 64)),
      (std::vector<std::string>{"name part must be no more than 63 bytes"}));
  EXPECT_EQ(nv::IsLabelValue(""), std::vector<std::string>{});

  for (const char* v :
       {"0.0.0", "1.2.3", "1.2.3-alpha", "1.2.3-alpha.1", "1.2.3-0",
        "1.2.3-x-y-z.-", "1.2.3+build", "1.2.3-0a+001", "10.20.30"}) {
    EXPECT_TRUE(nv::IsSemver(v)) << v;
  }
  for (const char* v :
       {"", "1", "1.2", "1.2.3.4", "01.2.3", "1.02.3", "1.2.03", "1.2.3-",
        "1.2.3-01", "1.2.3+", "1.2.3+a..b", "1.2.3-a+", "a.b.c", "1.2.3 "}) {
    EXPECT_FALSE(nv::IsSemver(v)) << v;
  }

  EXPECT_EQ(nv::UUIDValidateError("ac051fac-2ead-46d9-b8b4-4e0fbeb7455d"),
            std::nullopt);
  EXPECT_EQ(nv::UUIDValidateError("ac051fac2ead46d9b8b44e0fbeb7455d"),
            std::nullopt);
  EXPECT_EQ(nv::UUIDValidateError("{ac051fac-2ead-46d9-b8b4-4e0fbeb7455d}"),
            std::nullopt);
  EXPECT_EQ(nv::UUIDValidateError("x"), "invalid UUID length: 1");
  EXPECT_EQ(nv::UUIDValidateError("(ac051fac-2ead-46d9-b8b4-4e0fbeb7455d)"),
            "invalid bracketed UUID format");
  EXPECT_EQ(
      nv::UUIDValidateError("urn:uuix:ac051fac-2ead-46d9-b8b4-4e0fbeb7455d"),
      "invalid urn prefix: \"urn:uuix:\"");
  EXPECT_EQ(nv::UUIDValidateError("zc051fac-2ead-46d9-b8b4-4e0fbeb7455d"),
            "invalid UUID format");

  EXPECT_TRUE(nv::IsValidInterfaceAddress("10.9.8.7/24").empty());
  EXPECT_TRUE(nv::IsValidInterfaceAddress("2001:db8::1/64").empty());
  EXPECT_EQ(nv::IsValidInterfaceAddress("10.9.8.7"),
            std::vector<std::string>{kCIDRMsg});
  EXPECT_EQ(nv::IsValidInterfaceAddress("10.9.8.7/33"),
            std::vector<std::string>{kCIDRMsg});
  EXPECT_EQ(nv::IsValidInterfaceAddress("::ffff:10.9.8.7/120"),
            (std::vector<std::string>{
                "must be in canonical form (\"10.9.8.7/24\")"}));
  EXPECT_EQ(nv::IsValidInterfaceAddress("2001:0db8:0:0:0:0:0:1/64"),
            (std::vector<std::string>{
                "must be in canonical form (\"2001:db8::1/64\")"}));
}

}  // namespace
}  // namespace draplane::api::validation_test
