// RBAC policy as the authorizer reads it: rules, subjects, bindings, and
// an immutable, indexed snapshot of every role and binding.
#ifndef DRAPLANE_AUTH_POLICY_H_
#define DRAPLANE_AUTH_POLICY_H_

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "auth/user_info.h"

namespace draplane::auth {

// rbac.authorization.k8s.io/v1 PolicyRule.
struct PolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;
  std::vector<std::string> resource_names;
  std::vector<std::string> non_resource_urls;
};

struct Subject {
  std::string kind;  // "User", "Group" or "ServiceAccount"
  std::string name;
  std::string namespace_;  // ServiceAccounts
};

struct RoleRef {
  std::string kind;  // "Role" or "ClusterRole"
  std::string name;
};

// A RoleBinding (namespace set) or ClusterRoleBinding.
struct Binding {
  std::string name;
  std::string namespace_;
  std::vector<Subject> subjects;
  RoleRef role_ref;
};

// Whether `subject` names `user` (a ServiceAccount subject names user
// system:serviceaccount:<namespace>:<name>).
bool SubjectMatches(const Subject& subject, const UserInfo& user);

struct ClusterRole {
  std::string name;
  std::vector<PolicyRule> rules;
};

struct Role {
  std::string namespace_;
  std::string name;
  std::vector<PolicyRule> rules;
};

struct Policy {
  std::vector<ClusterRole> cluster_roles;
  std::vector<Role> roles;
  std::vector<Binding> cluster_role_bindings;
  std::vector<Binding> role_bindings;  // namespace_ set
};

// `policy`, indexed: bindings by namespace, roles by name. Bindings keep
// the policy's order.
class PolicySnapshot {
 public:
  explicit PolicySnapshot(Policy policy);

  const std::vector<Binding>& ClusterRoleBindings() const {
    return cluster_role_bindings_;
  }
  // The RoleBindings of `ns` (empty when none).
  const std::vector<Binding>& RoleBindings(std::string_view ns) const;
  // nullptr when absent.
  const std::vector<PolicyRule>* ClusterRoleRules(std::string_view name) const;
  const std::vector<PolicyRule>* RoleRules(std::string_view ns,
                                           std::string_view name) const;

 private:
  std::vector<Binding> cluster_role_bindings_;
  std::map<std::string, std::vector<Binding>, std::less<>> role_bindings_;
  std::map<std::string, std::vector<PolicyRule>, std::less<>> cluster_roles_;
  // Keyed by namespace + '/' + name (names hold no '/').
  std::map<std::string, std::vector<PolicyRule>, std::less<>> roles_;
};

}  // namespace draplane::auth

#endif  // DRAPLANE_AUTH_POLICY_H_
