#include "auth/rbac.h"

#include <map>

#include "gtest/gtest.h"

namespace draplane::auth {
namespace {

RequestAttributes Request(std::string_view method, std::string_view path,
                          UserInfo user) {
  RequestAttributes a = ResolveRequest(method, path, {});
  a.user = std::move(user);
  return a;
}

UserInfo User(std::string name, std::vector<std::string> groups) {
  UserInfo u;
  u.name = std::move(name);
  u.groups = std::move(groups);
  return u;
}

TEST(RuleAllowsTest, MatchesAsUpstream) {
  PolicyRule r;
  r.verbs = {"get", "list"};
  r.api_groups = {"resource.k8s.io"};
  r.resources = {"resourceclaims", "*/status"};
  UserInfo u = User("u", {});
  EXPECT_TRUE(RuleAllows(
      Request("GET", "/apis/resource.k8s.io/v1/namespaces/a/resourceclaims", u),
      r));
  EXPECT_TRUE(RuleAllows(
      Request("GET", "/apis/resource.k8s.io/v1/resourceslices/s/status", u),
      r));
  EXPECT_FALSE(RuleAllows(
      Request("GET", "/apis/resource.k8s.io/v1/resourceslices/s", u), r));
  EXPECT_FALSE(RuleAllows(
      Request("POST", "/apis/resource.k8s.io/v1/namespaces/a/resourceclaims",
              u),
      r));
  EXPECT_FALSE(RuleAllows(Request("GET", "/api/v1/namespaces/a/pods", u), r));
  // A subresource needs its own rule.
  EXPECT_FALSE(RuleAllows(
      Request("GET",
              "/apis/resource.k8s.io/v1/namespaces/a/resourceclaims/c/binding",
              u),
      r));
  r.resource_names = {"mine"};
  EXPECT_TRUE(RuleAllows(
      Request("GET",
              "/apis/resource.k8s.io/v1/namespaces/a/resourceclaims/mine", u),
      r));
  EXPECT_FALSE(RuleAllows(
      Request("GET",
              "/apis/resource.k8s.io/v1/namespaces/a/resourceclaims/other", u),
      r));
  // resourceNames cannot allow a list without a name.
  EXPECT_FALSE(RuleAllows(
      Request("GET", "/apis/resource.k8s.io/v1/namespaces/a/resourceclaims", u),
      r));

  PolicyRule urls;
  urls.verbs = {"get"};
  urls.non_resource_urls = {"/healthz", "/apis/*"};
  EXPECT_TRUE(RuleAllows(Request("GET", "/healthz", u), urls));
  EXPECT_FALSE(RuleAllows(Request("GET", "/healthz/ping", u), urls));
  EXPECT_TRUE(RuleAllows(Request("GET", "/apis/resource.k8s.io", u), urls));
  EXPECT_FALSE(RuleAllows(Request("GET", "/apis", u), urls));
  EXPECT_FALSE(RuleAllows(Request("POST", "/healthz", u), urls));
}

TEST(RbacAuthorizerTest, RoleBindingsGrantInTheirNamespaceOnly) {
  Policy policy;
  PolicyRule claims;
  claims.verbs = {"*"};
  claims.api_groups = {"resource.k8s.io"};
  claims.resources = {"resourceclaims"};
  policy.cluster_roles.push_back({"claims-admin", {claims}});
  policy.roles.push_back(
      {"team-a", "reader", {{{"get"}, {""}, {"pods"}, {}, {}}}});
  Binding b1{"b1",
             "team-a",
             {{"Group", "team-a", ""}},
             {"ClusterRole", "claims-admin"}};
  Binding b2{
      "b2", "team-a", {{"ServiceAccount", "robot", ""}}, {"Role", "reader"}};
  Binding b3{
      "b3", "team-a", {{"User", "carol", ""}}, {"ClusterRole", "missing"}};
  policy.role_bindings = {b1, b2, b3};
  const StaticPolicySource source(std::move(policy));
  auto authz = NewRbacAuthorizer(&source);

  const char* kClaimsA =
      "/apis/resource.k8s.io/v1/namespaces/team-a/resourceclaims";
  const char* kClaimsB =
      "/apis/resource.k8s.io/v1/namespaces/team-b/resourceclaims";
  UserInfo alice = User("alice", {"team-a", "system:authenticated"});
  EXPECT_EQ(authz->Authorize(Request("POST", kClaimsA, alice)).decision,
            Decision::kAllow);
  EXPECT_EQ(authz->Authorize(Request("POST", kClaimsB, alice)).decision,
            Decision::kNoOpinion);
  EXPECT_EQ(
      authz
          ->Authorize(Request("GET", "/api/v1/namespaces/team-a/pods/p", alice))
          .decision,
      Decision::kNoOpinion);

  UserInfo robot = User("system:serviceaccount:team-a:robot", {});
  EXPECT_EQ(
      authz
          ->Authorize(Request("GET", "/api/v1/namespaces/team-a/pods/p", robot))
          .decision,
      Decision::kAllow);
  EXPECT_EQ(
      authz
          ->Authorize(Request("GET", "/api/v1/namespaces/team-b/pods/p", robot))
          .decision,
      Decision::kNoOpinion);

  // A binding to a missing role grants nothing and says so.
  Authorization carol =
      authz->Authorize(Request("POST", kClaimsA, User("carol", {})));
  EXPECT_EQ(carol.decision, Decision::kNoOpinion);
  EXPECT_EQ(
      carol.reason,
      "RBAC: clusterrole.rbac.authorization.k8s.io \"missing\" not found");

  // system:masters needs no binding.
  EXPECT_EQ(authz
                ->Authorize(Request("DELETE", kClaimsB,
                                    User("root", {"system:masters"})))
                .decision,
            Decision::kAllow);
}

}  // namespace
}  // namespace draplane::auth
