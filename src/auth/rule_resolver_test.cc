#include "auth/rule_resolver.h"

#include <string>
#include <vector>

#include "auth/policy.h"
#include "gtest/gtest.h"

namespace draplane::auth {
namespace {

PolicyRule Rule(std::vector<std::string> verbs, std::vector<std::string> groups,
                std::vector<std::string> resources,
                std::vector<std::string> names = {}) {
  return {std::move(verbs),
          std::move(groups),
          std::move(resources),
          std::move(names),
          {}};
}

PolicyRule Urls(std::vector<std::string> verbs, std::vector<std::string> urls) {
  return {std::move(verbs), {}, {}, {}, std::move(urls)};
}

std::vector<std::string> Compact(const std::vector<PolicyRule>& rules) {
  std::vector<std::string> out;
  out.reserve(rules.size());
  for (const PolicyRule& r : rules) out.push_back(CompactString(r));
  return out;
}

// Cases of upstream's policy_comparator_test.go.
TEST(UncoveredRulesTest, CoversAsUpstream) {
  // Exact match, and a verb wildcard.
  EXPECT_TRUE(UncoveredRules({Rule({"get", "list"}, {""}, {"pods"})},
                             {Rule({"get"}, {""}, {"pods"})})
                  .empty());
  EXPECT_TRUE(
      UncoveredRules({Rule({"*"}, {"*"}, {"*"})},
                     {Rule({"create"}, {"apps"}, {"deployments/scale"})})
          .empty());
  // A verb wildcard in the servant is not covered by a list of verbs.
  EXPECT_EQ(Compact(UncoveredRules({Rule({"get", "list"}, {""}, {"pods"})},
                                   {Rule({"*"}, {""}, {"pods"})})),
            std::vector<std::string>(
                {R"({APIGroups:[""], Resources:["pods"], Verbs:["*"]})"}));
  // "*/status" covers any resource's status; "pods" does not cover
  // "pods/status".
  EXPECT_TRUE(UncoveredRules({Rule({"get"}, {""}, {"*/status"})},
                             {Rule({"get"}, {""}, {"nodes/status"})})
                  .empty());
  EXPECT_EQ(UncoveredRules({Rule({"get"}, {""}, {"pods"})},
                           {Rule({"get"}, {""}, {"pods/status"})})
                .size(),
            1u);
  // Resource names: none in the owner covers any; listed ones cover only
  // themselves; a servant without names needs an owner without names.
  EXPECT_TRUE(UncoveredRules({Rule({"get"}, {""}, {"pods"})},
                             {Rule({"get"}, {""}, {"pods"}, {"a"})})
                  .empty());
  EXPECT_EQ(UncoveredRules({Rule({"get"}, {""}, {"pods"}, {"a"})},
                           {Rule({"get"}, {""}, {"pods"}, {"a", "b"})})
                .size(),
            1u);
  EXPECT_EQ(UncoveredRules({Rule({"get"}, {""}, {"pods"}, {"a"})},
                           {Rule({"get"}, {""}, {"pods"})})
                .size(),
            1u);
  // Non-resource URLs: exact, or by a trailing "*".
  EXPECT_TRUE(UncoveredRules({Urls({"get"}, {"/apis*"})},
                             {Urls({"get"}, {"/apis/resource.k8s.io"})})
                  .empty());
  EXPECT_EQ(UncoveredRules({Urls({"get"}, {"/apis"})},
                           {Urls({"get"}, {"/apis/x", "/apis"})})
                .size(),
            1u);
  // Broken down to one verb, group, resource each.
  EXPECT_EQ(UncoveredRules(
                {Rule({"get"}, {""}, {"pods"})},
                {Rule({"get", "list"}, {"", "apps"}, {"pods", "deployments"})})
                .size(),
            7u);
}

TEST(CompactRulesTest, MergesVerbsOfOneResource) {
  std::vector<PolicyRule> compacted = CompactRules(
      {Rule({"get"}, {""}, {"pods"}), Rule({"list"}, {""}, {"pods"}),
       Rule({"get"}, {""}, {"pods"}, {"a"}),
       Rule({"get"}, {"", "apps"}, {"pods"})});
  EXPECT_EQ(
      Compact(compacted),
      std::vector<std::string>(
          {R"({APIGroups:["" "apps"], Resources:["pods"], Verbs:["get"]})",
           R"({APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]})",
           R"({APIGroups:[""], Resources:["pods"], ResourceNames:["a"], Verbs:["get"]})"}));
  EXPECT_EQ(CompactString(Urls({"get"}, {"/healthz"})),
            R"({NonResourceURLs:["/healthz"], Verbs:["get"]})");
}

TEST(ConfirmNoEscalationTest, NamesWhatTheUserDoesNotHold) {
  Policy policy;
  policy.cluster_roles.push_back(
      {"claims-reader",
       {Rule({"get", "list"}, {"resource.k8s.io"}, {"resourceclaims"})}});
  Binding b;
  b.name = "read";
  b.namespace_ = "team-a";
  b.role_ref = {"ClusterRole", "claims-reader"};
  b.subjects = {{"User", "alice", ""}};
  policy.role_bindings.push_back(b);
  Binding missing;
  missing.name = "dangling";
  missing.role_ref = {"ClusterRole", "gone"};
  missing.subjects = {{"Group", "team-a", ""}};
  policy.cluster_role_bindings.push_back(missing);
  const PolicySnapshot source(std::move(policy));
  UserInfo alice;
  alice.name = "alice";
  alice.groups = {"team-a", "system:authenticated"};

  EXPECT_TRUE(ConfirmNoEscalation(
                  source, alice, "team-a",
                  {Rule({"get"}, {"resource.k8s.io"}, {"resourceclaims"})})
                  .ok());
  absl::Status s = ConfirmNoEscalation(
      source, alice, "team-a",
      {Rule({"get", "create", "delete"}, {"resource.k8s.io"},
            {"resourceclaims"}),
       Rule({"get"}, {"resource.k8s.io"}, {"deviceclasses"})});
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(std::string(s.message()),
            "user \"alice\" (groups=[\"team-a\" \"system:authenticated\"]) is "
            "attempting to grant RBAC permissions not currently held:\n"
            "{APIGroups:[\"resource.k8s.io\"], Resources:[\"deviceclasses\"], "
            "Verbs:[\"get\"]}\n"
            "{APIGroups:[\"resource.k8s.io\"], Resources:[\"resourceclaims\"], "
            "Verbs:[\"create\" \"delete\"]}; resolution errors: "
            "[clusterrole.rbac.authorization.k8s.io \"gone\" not found]");
  // In another namespace alice holds nothing.
  EXPECT_FALSE(ConfirmNoEscalation(
                   source, alice, "team-b",
                   {Rule({"get"}, {"resource.k8s.io"}, {"resourceclaims"})})
                   .ok());
}

}  // namespace
}  // namespace draplane::auth
