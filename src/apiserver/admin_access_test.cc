// The admin-access gate (KEP-5018) as kube-apiserver applies it: a claim,
// a claim template or a claim's allocation with adminAccess is refused in
// a namespace without the resource.kubernetes.io/admin-access: "true"
// label, with upstream's error text and field path.
#include <string>

#include "apiserver/api_server_test_util.h"
#include "common/str_cat.h"
#include "gtest/gtest.h"

namespace draplane::apiserver::api_server_test {
namespace {

constexpr char kForbidden[] =
    "admin access to devices requires the `resource.kubernetes.io/"
    "admin-access: true` label on the containing namespace";

class AdminAccessTest : public ApiServerTest {
 protected:
  void CreateNamespace(const std::string& name, bool labelled) {
    Json ns = {{"apiVersion", "v1"},
               {"kind", "Namespace"},
               {"metadata", {{"name", name}}}};
    if (labelled) {
      ns["metadata"]["labels"] = {
          {"resource.kubernetes.io/admin-access", "true"}};
    }
    ASSERT_EQ(Do("POST", "/api/v1/namespaces", api::DumpJson(ns)).code, 201);
  }
  static std::string Claims(const std::string& ns) {
    return StrCat("/apis/resource.k8s.io/v1/namespaces/", ns,
                  "/resourceclaims");
  }
  // A claim whose second request asks for admin access.
  static Json AdminClaim(const std::string& name) {
    Json claim = Json::parse(Claim(name));
    claim["spec"]["devices"]["requests"].push_back(
        {{"name", "monitor"},
         {"exactly",
          {{"deviceClassName", "gpu.example.com"}, {"adminAccess", true}}}});
    return claim;
  }
  // Writes an allocation of gpu-0 (with adminAccess when `admin`) into the
  // status of claim `name` in `ns`.
  Response Allocate(const std::string& ns, const std::string& name,
                    bool admin) {
    Json claim = Do("GET", StrCat(Claims(ns), "/", name)).JsonBody();
    Json result = {{"request", "gpu"},
                   {"driver", "gpu.example.com"},
                   {"pool", "node-1"},
                   {"device", "gpu-0"}};
    if (admin) result["adminAccess"] = true;
    claim["status"]["allocation"] = {
        {"devices", {{"results", Json::array({result})}}}};
    return Do("PUT", StrCat(Claims(ns), "/", name, "/status"),
              api::DumpJson(claim));
  }
};

void ExpectForbidden(const Response& r, const std::string& kind,
                     const std::string& name, const std::string& field) {
  ASSERT_EQ(r.code, 422) << r.body;
  const Json body = r.JsonBody();
  EXPECT_EQ(body["reason"], "Invalid");
  EXPECT_EQ(body["message"], StrCat(kind, " \"", name, "\" is invalid: ", field,
                                    ": Forbidden: ", kForbidden));
  ASSERT_EQ(body["details"]["causes"].size(), 1u) << r.body;
  EXPECT_EQ(body["details"]["causes"][0]["reason"], "FieldValueForbidden");
  EXPECT_EQ(body["details"]["causes"][0]["field"], field);
}

TEST_F(AdminAccessTest, AClaimAskingForAdminAccessNeedsTheLabel) {
  CreateNamespace("team-a", false);
  CreateNamespace("monitoring", true);
  ExpectForbidden(
      Do("POST", Claims("team-a"), api::DumpJson(AdminClaim("peek"))),
      "ResourceClaim.resource.k8s.io", "peek",
      "spec.devices.requests[1].adminAccess");
  EXPECT_EQ(Do("GET", StrCat(Claims("team-a"), "/peek")).code, 404);
  EXPECT_EQ(
      Do("POST", Claims("monitoring"), api::DumpJson(AdminClaim("peek"))).code,
      201);
  // A claim without admin access is not affected.
  EXPECT_EQ(Do("POST", Claims("team-a"), Claim("plain")).code, 201);
}

TEST_F(AdminAccessTest, ATemplateAskingForAdminAccessNeedsTheLabel) {
  CreateNamespace("team-a", false);
  CreateNamespace("monitoring", true);
  auto tmpl = [](const std::string& name) {
    Json claim = AdminClaim("x");
    return api::DumpJson(Json{{"apiVersion", "resource.k8s.io/v1"},
                              {"kind", "ResourceClaimTemplate"},
                              {"metadata", {{"name", name}}},
                              {"spec", {{"spec", claim["spec"]}}}});
  };
  const std::string path =
      "/apis/resource.k8s.io/v1/namespaces/team-a/resourceclaimtemplates";
  ExpectForbidden(Do("POST", path, tmpl("peek")),
                  "ResourceClaimTemplate.resource.k8s.io", "peek",
                  "spec.devices.requests[1].adminAccess");
  EXPECT_EQ(Do("POST",
               "/apis/resource.k8s.io/v1/namespaces/monitoring/"
               "resourceclaimtemplates",
               tmpl("peek"))
                .code,
            201);
}

TEST_F(AdminAccessTest, AnAllocationWithAdminAccessNeedsTheLabel) {
  CreateNamespace("team-a", false);
  CreateNamespace("monitoring", true);
  ASSERT_EQ(Do("POST", Claims("team-a"), Claim("c")).code, 201);
  ExpectForbidden(Allocate("team-a", "c", true),
                  "ResourceClaim.resource.k8s.io", "c",
                  "status.allocation.devices.results[0].adminAccess");
  EXPECT_FALSE(Do("GET", StrCat(Claims("team-a"), "/c"))
                   .JsonBody()["status"]
                   .contains("allocation"));
  EXPECT_EQ(Allocate("team-a", "c", false).code, 200);
  ASSERT_EQ(Do("POST", Claims("monitoring"), Claim("c")).code, 201);
  EXPECT_EQ(Allocate("monitoring", "c", true).code, 200);
}

TEST_F(AdminAccessTest, AGrantedAllocationIsNotJudgedAgain) {
  CreateNamespace("monitoring", true);
  ASSERT_EQ(Do("POST", Claims("monitoring"), Claim("c")).code, 201);
  ASSERT_EQ(Allocate("monitoring", "c", true).code, 200);
  // The label goes; the granted allocation stays writable (upstream skips
  // the check when the old status already has admin access).
  Json ns = Do("GET", "/api/v1/namespaces/monitoring").JsonBody();
  ns["metadata"]["labels"].erase("resource.kubernetes.io/admin-access");
  ASSERT_EQ(Do("PUT", "/api/v1/namespaces/monitoring", api::DumpJson(ns)).code,
            200);
  Json claim = Do("GET", StrCat(Claims("monitoring"), "/c")).JsonBody();
  claim["status"]["reservedFor"] =
      Json::array({{{"resource", "pods"}, {"name", "p"}, {"uid", "u-1"}}});
  EXPECT_EQ(
      Do("PUT", StrCat(Claims("monitoring"), "/c/status"), api::DumpJson(claim))
          .code,
      200);
}

}  // namespace
}  // namespace draplane::apiserver::api_server_test
