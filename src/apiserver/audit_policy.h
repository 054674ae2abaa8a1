// kube-apiserver's audit policy (--audit-policy-file): the
// `audit.k8s.io/v1` Policy kind, read and validated as k8s.io/apiserver
// v0.37.2 reads it (pkg/audit/policy/reader.go,
// pkg/apis/audit/validation), and the level and stages a request is
// audited at, decided as its policy checker does
// (pkg/audit/policy/checker.go). docs/security.md ("What is audited").
//
// Immutable after parsing; evaluation is a pure function, safe from any
// thread.
#ifndef DRAPLANE_APISERVER_AUDIT_POLICY_H_
#define DRAPLANE_APISERVER_AUDIT_POLICY_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "auth/request_attributes.h"

namespace draplane::apiserver {

// Ordered: a level includes everything the levels before it record.
enum class AuditLevel { kNone, kMetadata, kRequest, kRequestResponse };
enum class AuditStage {
  kRequestReceived,
  kResponseStarted,
  kResponseComplete,
  kPanic,
};

// Upstream's names ("RequestResponse", "ResponseComplete").
std::string_view AuditLevelName(AuditLevel level);
std::string_view AuditStageName(AuditStage stage);

struct AuditGroupResources {
  std::string group;  // "" the core group, "*" every group
  // "pods", "pods/status", "*", "pods/*", "*/status"; empty: all.
  std::vector<std::string> resources;
  std::vector<std::string> resource_names;  // empty: every name
};

struct AuditPolicyRule {
  AuditLevel level = AuditLevel::kNone;
  // Each list empty: matches everything on that axis.
  std::vector<std::string> users;
  std::vector<std::string> user_groups;
  std::vector<std::string> verbs;
  std::vector<AuditGroupResources> resources;
  std::vector<std::string> namespaces;  // "" non-namespaced resources
  // "/healthz", "/healthz*" (prefix), "*".
  std::vector<std::string> non_resource_urls;
  std::vector<AuditStage> omit_stages;
  std::optional<bool> omit_managed_fields;  // unset: the policy's
};

struct AuditPolicy {
  std::vector<AuditPolicyRule> rules;  // the first that matches wins
  std::vector<AuditStage> omit_stages;
  bool omit_managed_fields = false;
};

// Larger policy files are refused (upstream reads any size).
inline constexpr size_t kMaxAuditPolicyBytes = 1 << 20;

// Parses a Policy from YAML or JSON text and validates it with upstream's
// rules and field paths. Errors (InvalidArgument) read as upstream's:
// `rules[2].level: Unsupported value: "Foo": supported values: "None",
// "Metadata", "Request", "RequestResponse"`, several as "[e1, e2]"; a
// policy without rules is `loaded illegal policy with 0 rules`. As
// upstream falls back to lenient decoding, unknown fields are no error:
// each is reported in `warnings` (when not null) as `unknown field
// "rules[0].levl"`. A member of the wrong JSON type is an error naming
// its path (upstream: a decoding error).
absl::StatusOr<AuditPolicy> ParseAuditPolicy(
    std::string_view text, std::string_view source_name = "<input>",
    std::vector<std::string>* warnings = nullptr);

// Reads and parses the file at `path` (at most kMaxAuditPolicyBytes).
absl::StatusOr<AuditPolicy> LoadAuditPolicyFile(
    const std::string& path, std::vector<std::string>* warnings = nullptr);

// How one request is audited.
struct RequestAuditConfig {
  AuditLevel level = AuditLevel::kNone;
  // The matching rule's omitStages united with the policy's.
  std::vector<AuditStage> omit_stages;
  bool omit_managed_fields = false;

  bool Omits(AuditStage stage) const;
};

// The first rule of `policy` that matches the request wins; none: level
// None with the policy's omitStages. `authenticated` false (a request
// that failed authentication, `attributes.user` unused): rules naming
// users or userGroups never match, as upstream's checker with a nil user.
// Matching is upstream's: verbs as the authorizer sees them, resources as
// `resource` or `resource/subresource`, `*`, `*/subresource`,
// `resource/*`; groups exact or `*`; namespaces exact ("" non-namespaced);
// a rule with resources or namespaces matches resource requests only, one
// with nonResourceURLs non-resource requests only (exact, `*`, or a
// prefix before a final `*`).
RequestAuditConfig EvaluateAuditPolicy(const AuditPolicy& policy,
                                       const auth::RequestAttributes& request,
                                       bool authenticated);

}  // namespace draplane::apiserver

#endif  // DRAPLANE_APISERVER_AUDIT_POLICY_H_
