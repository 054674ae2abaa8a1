#include "auth/rbac.h"

#include <map>

#include "auth/bootstrap_policy.h"
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

// Roles and bindings in memory, for the authorizer.
class FakePolicy final : public PolicySource {
 public:
  std::vector<std::shared_ptr<const Binding>> ClusterRoleBindings()
      const override {
    return cluster_bindings;
  }
  std::vector<std::shared_ptr<const Binding>> RoleBindings(
      std::string_view ns) const override {
    auto it = bindings.find(std::string(ns));
    return it == bindings.end() ? std::vector<std::shared_ptr<const Binding>>{}
                                : it->second;
  }
  std::shared_ptr<const std::vector<PolicyRule>> ClusterRoleRules(
      std::string_view name) const override {
    auto it = cluster_roles.find(std::string(name));
    return it == cluster_roles.end() ? nullptr : it->second;
  }
  std::shared_ptr<const std::vector<PolicyRule>> RoleRules(
      std::string_view ns, std::string_view name) const override {
    auto it = roles.find(std::string(ns) + "/" + std::string(name));
    return it == roles.end() ? nullptr : it->second;
  }

  std::vector<std::shared_ptr<const Binding>> cluster_bindings;
  std::map<std::string, std::vector<std::shared_ptr<const Binding>>> bindings;
  std::map<std::string, std::shared_ptr<const std::vector<PolicyRule>>>
      cluster_roles;
  std::map<std::string, std::shared_ptr<const std::vector<PolicyRule>>> roles;
};

TEST(RbacAuthorizerTest, RoleBindingsGrantInTheirNamespaceOnly) {
  FakePolicy policy;
  PolicyRule claims;
  claims.verbs = {"*"};
  claims.api_groups = {"resource.k8s.io"};
  claims.resources = {"resourceclaims"};
  policy.cluster_roles["claims-admin"] =
      std::make_shared<std::vector<PolicyRule>>(
          std::vector<PolicyRule>{claims});
  policy.roles["team-a/reader"] = std::make_shared<std::vector<PolicyRule>>(
      std::vector<PolicyRule>{{{"get"}, {""}, {"pods"}, {}, {}}});
  Binding b1{"b1",
             "team-a",
             {{"Group", "team-a", ""}},
             {"ClusterRole", "claims-admin"}};
  Binding b2{
      "b2", "team-a", {{"ServiceAccount", "robot", ""}}, {"Role", "reader"}};
  Binding b3{
      "b3", "team-a", {{"User", "carol", ""}}, {"ClusterRole", "missing"}};
  policy.bindings["team-a"] = {std::make_shared<Binding>(b1),
                               std::make_shared<Binding>(b2),
                               std::make_shared<Binding>(b3)};
  auto authz = NewRbacAuthorizer(&policy);

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

TEST(RbacAuthorizerTest, TheBootstrapPolicy) {
  StaticPolicySource source(BootstrapPolicy());
  auto authz = NewRbacAuthorizer(&source);
  UserInfo anonymous = User("system:anonymous", {"system:unauthenticated"});
  UserInfo alice = User("alice", {"system:authenticated"});
  auto decide = [&](std::string_view method, std::string_view path,
                    const UserInfo& u) {
    return authz->Authorize(Request(method, path, u)).decision;
  };
  for (const char* path : {"/version", "/healthz", "/livez", "/readyz"}) {
    EXPECT_EQ(decide("GET", path, anonymous), Decision::kAllow) << path;
  }
  for (const char* path : {"/api", "/apis", "/openapi/v2", "/metrics",
                           "/api/v1/namespaces/default/pods"}) {
    EXPECT_EQ(decide("GET", path, anonymous), Decision::kNoOpinion) << path;
  }
  for (const char* path : {"/api", "/apis/resource.k8s.io/v1", "/openapi/v3"}) {
    EXPECT_EQ(decide("GET", path, alice), Decision::kAllow) << path;
  }
  EXPECT_EQ(decide("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                   alice),
            Decision::kAllow);
  EXPECT_EQ(decide("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                   anonymous),
            Decision::kNoOpinion);
  EXPECT_EQ(decide("GET", "/metrics", alice), Decision::kNoOpinion);
  EXPECT_EQ(decide("GET", "/metrics", User("prom", {"system:monitoring"})),
            Decision::kAllow);
  EXPECT_EQ(decide("GET", "/api/v1/namespaces/default/pods", alice),
            Decision::kNoOpinion);
  EXPECT_EQ(decide("GET", "/api/v1/namespaces/default/pods",
                   User("admin", {"system:masters"})),
            Decision::kAllow);
}

}  // namespace
}  // namespace draplane::auth
