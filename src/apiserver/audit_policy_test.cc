// The audit policy as kube-apiserver reads and applies it: parsing with
// upstream's validation messages and field paths, and its checker's rule
// matching (k8s.io/apiserver pkg/audit/policy/checker_test.go's cases).
#include "apiserver/audit_policy.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace draplane::apiserver {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string ErrorOf(std::string_view text) {
  auto policy = ParseAuditPolicy(text);
  EXPECT_FALSE(policy.ok());
  return policy.ok() ? "" : std::string(policy.status().message());
}

TEST(AuditPolicyParseTest, ReadsEveryFieldFromYaml) {
  std::vector<std::string> warnings;
  auto policy = ParseAuditPolicy(R"(
apiVersion: audit.k8s.io/v1
kind: Policy
metadata:
  name: p
omitStages: ["RequestReceived"]
omitManagedFields: true
rules:
- level: None
  users: ["system:kube-proxy"]
  verbs: ["watch"]
  resources:
  - group: ""
    resources: ["endpoints", "services", "pods/status"]
    resourceNames: ["a"]
- level: RequestResponse
  userGroups: ["team-a"]
  namespaces: ["kube-system", ""]
  omitStages: ["ResponseStarted"]
  omitManagedFields: false
- level: Metadata
  nonResourceURLs: ["/healthz*", "/version"]
- level: Request
)",
                                 "<input>", &warnings);
  ASSERT_TRUE(policy.ok()) << policy.status();
  EXPECT_TRUE(warnings.empty());
  EXPECT_TRUE(policy->omit_managed_fields);
  EXPECT_THAT(policy->omit_stages, ElementsAre(AuditStage::kRequestReceived));
  ASSERT_EQ(policy->rules.size(), 4u);
  const AuditPolicyRule& r0 = policy->rules[0];
  EXPECT_EQ(r0.level, AuditLevel::kNone);
  EXPECT_THAT(r0.users, ElementsAre("system:kube-proxy"));
  EXPECT_THAT(r0.verbs, ElementsAre("watch"));
  ASSERT_EQ(r0.resources.size(), 1u);
  EXPECT_EQ(r0.resources[0].group, "");
  EXPECT_THAT(r0.resources[0].resources,
              ElementsAre("endpoints", "services", "pods/status"));
  EXPECT_THAT(r0.resources[0].resource_names, ElementsAre("a"));
  // The policy's omitStages are united into each rule's.
  EXPECT_THAT(r0.omit_stages, ElementsAre(AuditStage::kRequestReceived));
  EXPECT_FALSE(r0.omit_managed_fields.has_value());
  const AuditPolicyRule& r1 = policy->rules[1];
  EXPECT_EQ(r1.level, AuditLevel::kRequestResponse);
  EXPECT_THAT(r1.user_groups, ElementsAre("team-a"));
  EXPECT_THAT(r1.namespaces, ElementsAre("kube-system", ""));
  EXPECT_THAT(r1.omit_stages, ElementsAre(AuditStage::kRequestReceived,
                                          AuditStage::kResponseStarted));
  EXPECT_EQ(r1.omit_managed_fields, false);
  EXPECT_THAT(policy->rules[2].non_resource_urls,
              ElementsAre("/healthz*", "/version"));
  EXPECT_EQ(policy->rules[3].level, AuditLevel::kRequest);
}

TEST(AuditPolicyParseTest, ReadsJson) {
  auto policy =
      ParseAuditPolicy(R"({"apiVersion":"audit.k8s.io/v1","kind":"Policy",)"
                       R"("rules":[{"level":"Metadata","verbs":["get"]}]})");
  ASSERT_TRUE(policy.ok()) << policy.status();
  ASSERT_EQ(policy->rules.size(), 1u);
  EXPECT_EQ(policy->rules[0].level, AuditLevel::kMetadata);
  EXPECT_THAT(policy->rules[0].verbs, ElementsAre("get"));
}

TEST(AuditPolicyParseTest, UnknownFieldsAreWarningsAsUpstreamsLenientDecoding) {
  std::vector<std::string> warnings;
  auto policy = ParseAuditPolicy(R"(
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
  verb: ["get"]
)",
                                 "<input>", &warnings);
  ASSERT_TRUE(policy.ok()) << policy.status();
  EXPECT_THAT(warnings, ElementsAre("unknown field \"rules[0].verb\""));
  EXPECT_TRUE(policy->rules[0].verbs.empty());
}

constexpr char kHeader[] = "apiVersion: audit.k8s.io/v1\nkind: Policy\n";

TEST(AuditPolicyParseTest, ErrorsNameTheFieldPathWithUpstreamsText) {
  EXPECT_EQ(ErrorOf(std::string(kHeader) + R"(rules:
- level: Metadata
- level: None
- level: Foo
)"),
            "rules[2].level: Unsupported value: \"Foo\": supported values: "
            "\"None\", \"Metadata\", \"Request\", \"RequestResponse\"");
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "rules:\n- verbs: [get]\n"),
            "rules[0].level: Required value");
  EXPECT_EQ(ErrorOf(std::string(kHeader) +
                    "rules:\n- level: None\n  omitStages: [Done]\n"),
            "rules[0].omitStages[0]: Invalid value: \"Done\": allowed stages "
            "are RequestReceived,ResponseStarted,ResponseComplete,Panic");
  EXPECT_EQ(ErrorOf(std::string(kHeader) +
                    "omitStages: [Later]\nrules:\n- level: None\n"),
            "omitStages[0]: Invalid value: \"Later\": allowed stages are "
            "RequestReceived,ResponseStarted,ResponseComplete,Panic");
  EXPECT_EQ(ErrorOf(std::string(kHeader) +
                    "rules:\n- level: None\n  nonResourceURLs: [healthz]\n"),
            "rules[0].nonResourceURLs[0]: Invalid value: \"healthz\": "
            "non-resource URL rules must begin with a '/' character");
  EXPECT_EQ(ErrorOf(std::string(kHeader) +
                    "rules:\n- level: None\n  nonResourceURLs: [\"/a*/b\"]\n"),
            "rules[0].nonResourceURLs[0]: Invalid value: \"/a*/b\": "
            "non-resource URL wildcards '*' must be the final character of "
            "the rule");
  EXPECT_EQ(ErrorOf(std::string(kHeader) +
                    "rules:\n- level: None\n  nonResourceURLs: [/a]\n"
                    "  namespaces: [x]\n"),
            "rules[0].nonResourceURLs: Invalid value: [\"/a\"]: rules cannot "
            "apply to both regular resources and non-resource URLs");
  // Upstream's path names the list, not the entry.
  EXPECT_THAT(ErrorOf(std::string(kHeader) +
                      "rules:\n- level: None\n  resources:\n"
                      "  - group: rbac.authorization.k8s.io/v1\n"),
              HasSubstr("rules[0].resources.group: Invalid value: "
                        "\"rbac.authorization.k8s.io/v1\": "));
  EXPECT_EQ(
      ErrorOf(std::string(kHeader) + "rules:\n- level: None\n  resources:\n"
                                     "  - resourceNames: [a]\n"),
      "rules[0].resources.resourceNames: Invalid value: [\"a\"]: using "
      "resourceNames requires at least one resource");
  // Several errors, as upstream's aggregate.
  EXPECT_EQ(
      ErrorOf(std::string(kHeader) + "rules:\n- level: Foo\n- level: Bar\n"),
      "[rules[0].level: Unsupported value: \"Foo\": supported values: "
      "\"None\", \"Metadata\", \"Request\", \"RequestResponse\", "
      "rules[1].level: Unsupported value: \"Bar\": supported values: "
      "\"None\", \"Metadata\", \"Request\", \"RequestResponse\"]");
}

TEST(AuditPolicyParseTest, RefusesWhatUpstreamCannotDecode) {
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "rules: []\n"),
            "loaded illegal policy with 0 rules");
  EXPECT_EQ(ErrorOf("apiVersion: audit.k8s.io/v1beta1\nkind: Policy\n"
                    "rules:\n- level: None\n"),
            "apiVersion: Unsupported value: \"audit.k8s.io/v1beta1\": "
            "supported values: \"audit.k8s.io/v1\"");
  EXPECT_EQ(ErrorOf("apiVersion: audit.k8s.io/v1\nrules:\n- level: None\n"),
            "kind: Unsupported value: \"\": supported values: \"Policy\"");
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "rules:\n- level: 3\n"),
            "rules[0].level: Invalid value: 3: must be of type string");
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "rules:\n- level: None\n"
                                           "  users: alice\n"),
            "rules[0].users: Invalid value: \"alice\": must be of type list "
            "of strings");
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "rules:\n- [None]\n"),
            "rules[0]: Invalid value: [\"None\"]: must be an object");
  EXPECT_THAT(ErrorOf("rules: [\n"), HasSubstr("<input>:"));
  EXPECT_THAT(ErrorOf(std::string(kMaxAuditPolicyBytes + 1, '#')),
              HasSubstr("larger than 1048576 bytes"));
}

TEST(AuditPolicyParseTest, LoadsAFileAndNamesAMissingOne) {
  auto missing = LoadAuditPolicyFile("/nonexistent/audit-policy.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "failed to read file path \"/nonexistent/audit-policy.yaml\"");
}

// A policy from YAML rules (after the header).
AuditPolicy Policy(const std::string& rules) {
  auto policy = ParseAuditPolicy(std::string(kHeader) + rules);
  EXPECT_TRUE(policy.ok()) << policy.status();
  return policy.ok() ? *policy : AuditPolicy{};
}

auth::RequestAttributes Resource(std::string verb, std::string group,
                                 std::string resource, std::string ns,
                                 std::string name = "",
                                 std::string subresource = "") {
  auth::RequestAttributes a;
  a.user = auth::UserInfo{"alice", "", {"team-a", "system:authenticated"}, {}};
  a.verb = std::move(verb);
  a.resource_request = true;
  a.api_group = std::move(group);
  a.api_version = "v1";
  a.resource = std::move(resource);
  a.namespace_ = std::move(ns);
  a.name = std::move(name);
  a.subresource = std::move(subresource);
  return a;
}

auth::RequestAttributes NonResource(std::string verb, std::string path) {
  auth::RequestAttributes a;
  a.user = auth::UserInfo{"bob", "", {"system:authenticated"}, {}};
  a.verb = std::move(verb);
  a.path = std::move(path);
  return a;
}

AuditLevel LevelOf(const AuditPolicy& p, const auth::RequestAttributes& a,
                   bool authenticated = true) {
  return EvaluateAuditPolicy(p, a, authenticated).level;
}

TEST(AuditPolicyMatchTest, UsersGroupsAndVerbs) {
  const AuditPolicy p = Policy(R"(rules:
- level: RequestResponse
  users: [alice]
  verbs: [create]
- level: Request
  userGroups: [team-a]
- level: Metadata
  verbs: [get]
)");
  EXPECT_EQ(LevelOf(p, Resource("create", "", "pods", "default")),
            AuditLevel::kRequestResponse);
  // alice's list: not the first rule's verb, but her group.
  EXPECT_EQ(LevelOf(p, Resource("list", "", "pods", "default")),
            AuditLevel::kRequest);
  auth::RequestAttributes carol = Resource("get", "", "pods", "default");
  carol.user = auth::UserInfo{"carol", "", {"team-b"}, {}};
  EXPECT_EQ(LevelOf(p, carol), AuditLevel::kMetadata);
  carol.verb = "delete";
  EXPECT_EQ(LevelOf(p, carol), AuditLevel::kNone);  // no rule: None
  // Without a user (failed authentication) user and group rules never
  // match, even for a user's name that would.
  EXPECT_EQ(LevelOf(p, Resource("create", "", "pods", "default"), false),
            AuditLevel::kNone);
  EXPECT_EQ(LevelOf(p, Resource("get", "", "pods", "default"), false),
            AuditLevel::kMetadata);
}

TEST(AuditPolicyMatchTest, ResourcesSubresourcesAndWildcards) {
  const AuditPolicy p = Policy(R"(rules:
- level: None
  resources:
  - group: ""
    resources: ["pods/status"]
- level: RequestResponse
  resources:
  - group: "resource.k8s.io"
    resources: ["resourceclaims"]
    resourceNames: ["special"]
- level: Request
  resources:
  - group: "*"
    resources: ["*/scale"]
- level: Metadata
  resources:
  - group: "apps"
    resources: ["deployments/*"]
- level: Request
  resources:
  - group: ""
    resources: ["pods"]
- level: Metadata
  resources:
  - group: "resource.k8s.io"
)");
  EXPECT_EQ(
      LevelOf(p, Resource("update", "", "pods", "default", "p", "status")),
      AuditLevel::kNone);
  EXPECT_EQ(LevelOf(p, Resource("get", "", "pods", "default", "p")),
            AuditLevel::kRequest);
  // "pods" does not name pods' subresources.
  EXPECT_EQ(LevelOf(p, Resource("get", "", "pods", "default", "p", "log")),
            AuditLevel::kNone);
  EXPECT_EQ(LevelOf(p, Resource("get", "resource.k8s.io", "resourceclaims",
                                "default", "special")),
            AuditLevel::kRequestResponse);
  // Another name: the group-wide rule.
  EXPECT_EQ(LevelOf(p, Resource("get", "resource.k8s.io", "resourceclaims",
                                "default", "other")),
            AuditLevel::kMetadata);
  EXPECT_EQ(LevelOf(p, Resource("update", "apps", "deployments", "default", "d",
                                "scale")),
            AuditLevel::kRequest);  // */scale comes first
  EXPECT_EQ(LevelOf(p, Resource("get", "apps", "deployments", "default", "d",
                                "status")),
            AuditLevel::kMetadata);  // deployments/*
  // As upstream's checker, deployments/* names deployments themselves too.
  EXPECT_EQ(LevelOf(p, Resource("get", "apps", "deployments", "default", "d")),
            AuditLevel::kMetadata);
  // Resource rules never match non-resource requests.
  EXPECT_EQ(LevelOf(p, NonResource("get", "/api")), AuditLevel::kNone);
}

TEST(AuditPolicyMatchTest, NamespacesAndNonResourceUrls) {
  const AuditPolicy p = Policy(R"(rules:
- level: RequestResponse
  namespaces: ["kube-system"]
- level: Request
  namespaces: [""]
- level: Metadata
  nonResourceURLs: ["/healthz*", "/version"]
- level: Request
  nonResourceURLs: ["*"]
)");
  EXPECT_EQ(LevelOf(p, Resource("get", "", "pods", "kube-system")),
            AuditLevel::kRequestResponse);
  EXPECT_EQ(LevelOf(p, Resource("get", "", "nodes", "")),
            AuditLevel::kRequest);  // "" is the cluster scope
  EXPECT_EQ(LevelOf(p, Resource("get", "", "pods", "default")),
            AuditLevel::kNone);  // namespace rules: resource requests only
  EXPECT_EQ(LevelOf(p, NonResource("get", "/healthz")), AuditLevel::kMetadata);
  EXPECT_EQ(LevelOf(p, NonResource("get", "/healthz/ready")),
            AuditLevel::kMetadata);
  EXPECT_EQ(LevelOf(p, NonResource("get", "/version")), AuditLevel::kMetadata);
  EXPECT_EQ(LevelOf(p, NonResource("get", "/version/x")), AuditLevel::kRequest);
  EXPECT_EQ(LevelOf(p, NonResource("get", "/api")), AuditLevel::kRequest);
}

TEST(AuditPolicyMatchTest, FirstMatchWinsWithItsStagesAndManagedFields) {
  const AuditPolicy p = Policy(R"(omitStages: [RequestReceived]
omitManagedFields: true
rules:
- level: Metadata
  verbs: [get]
  omitStages: [ResponseStarted]
  omitManagedFields: false
- level: RequestResponse
  verbs: [get, list]
)");
  const RequestAuditConfig get =
      EvaluateAuditPolicy(p, Resource("get", "", "pods", "default"), true);
  EXPECT_EQ(get.level, AuditLevel::kMetadata);
  EXPECT_TRUE(get.Omits(AuditStage::kRequestReceived));
  EXPECT_TRUE(get.Omits(AuditStage::kResponseStarted));
  EXPECT_FALSE(get.Omits(AuditStage::kResponseComplete));
  EXPECT_FALSE(get.omit_managed_fields);
  const RequestAuditConfig list =
      EvaluateAuditPolicy(p, Resource("list", "", "pods", "default"), true);
  EXPECT_EQ(list.level, AuditLevel::kRequestResponse);
  EXPECT_TRUE(list.Omits(AuditStage::kRequestReceived));
  EXPECT_FALSE(list.Omits(AuditStage::kResponseStarted));
  EXPECT_TRUE(list.omit_managed_fields);  // the policy's default
}

}  // namespace
}  // namespace draplane::apiserver
