// What a user may do, as upstream's rule resolver and policy comparator
// see it (pkg/registry/rbac/validation, component-helpers
// auth/rbac/validation): the rules bound to a user, whether one set of
// rules covers another, and the escalation check that keeps a user from
// granting permissions they do not hold.
#ifndef DRAPLANE_AUTH_RULE_RESOLVER_H_
#define DRAPLANE_AUTH_RULE_RESOLVER_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "auth/policy.h"
#include "auth/user_info.h"

namespace draplane::auth {

// Calls `visit` with every rule bound to `user` and the binding and
// subject that bind it: the rules of the ClusterRoleBindings naming the
// user, then (when `ns` is set) of the RoleBindings of `ns` naming them,
// binding by binding in the source's order; `visit` returns false to stop. A
// binding whose role is missing adds upstream's text to `errors`
// ("clusterrole.rbac.authorization.k8s.io
// \"x\" not found") and is skipped.
void VisitRulesFor(const PolicySnapshot& policy, const UserInfo& user,
                   std::string_view ns,
                   const std::function<bool(const PolicyRule&, const Binding&,
                                            const Subject&)>& visit,
                   std::vector<std::string>* errors);

// Upstream's describer of a rule's source, for an allowed request's
// reason: `ClusterRoleBinding "b" of ClusterRole "r" to User "alice"`,
// `RoleBinding "b/ns" of Role "r" to ServiceAccount "sa/ns"`.
std::string DescribeSource(const Binding& binding, const Subject& subject);

// Every rule bound to `user` in `ns` (upstream's RulesFor).
std::vector<PolicyRule> RulesFor(const PolicySnapshot& policy,
                                 const UserInfo& user, std::string_view ns,
                                 std::vector<std::string>* errors);

// The rules of a role reference of a binding in `ns` ("" for a
// ClusterRoleBinding); NotFound with upstream's text when it is missing.
absl::Status RoleReferenceRules(const PolicySnapshot& policy,
                                const RoleRef& ref, std::string_view ns,
                                std::vector<PolicyRule>* rules);

// The parts of `servant` that no rule of `owner` covers (upstream's
// Covers: servant rules broken down to one group, resource, verb and
// resource name each); empty when `owner` covers all of `servant`.
std::vector<PolicyRule> UncoveredRules(const std::vector<PolicyRule>& owner,
                                       const std::vector<PolicyRule>& servant);

// Upstream's CompactRules: rules of one API group and resource (and at
// most one resource name) that differ only in verbs become one rule.
std::vector<PolicyRule> CompactRules(const std::vector<PolicyRule>& rules);

// Upstream's CompactString: {APIGroups:["apps"], Resources:["pods"],
// Verbs:["get"]}.
std::string CompactString(const PolicyRule& rule);

// Upstream's ConfirmNoEscalation: OK when the rules bound to `user` in
// `ns` cover `rules`; otherwise PermissionDenied with upstream's text
// ("user \"alice\" (groups=[\"team-a\" \"system:authenticated\"]) is
// attempting to grant RBAC permissions not currently held:\n{...}").
absl::Status ConfirmNoEscalation(const PolicySnapshot& policy,
                                 const UserInfo& user, std::string_view ns,
                                 const std::vector<PolicyRule>& rules);

}  // namespace draplane::auth

#endif  // DRAPLANE_AUTH_RULE_RESOLVER_H_
