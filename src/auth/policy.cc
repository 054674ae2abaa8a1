#include "auth/policy.h"

#include <utility>

#include "common/str_cat.h"

namespace draplane::auth {

bool SubjectMatches(const Subject& subject, const UserInfo& user) {
  if (subject.kind == "User") return subject.name == user.name;
  if (subject.kind == "Group") return user.InGroup(subject.name);
  if (subject.kind == "ServiceAccount") {
    return user.name == StrCat("system:serviceaccount:", subject.namespace_,
                               ":", subject.name);
  }
  return false;
}

PolicySnapshot::PolicySnapshot(Policy policy)
    : cluster_role_bindings_(std::move(policy.cluster_role_bindings)) {
  for (Binding& b : policy.role_bindings) {
    std::string ns = b.namespace_;
    role_bindings_[std::move(ns)].push_back(std::move(b));
  }
  for (ClusterRole& r : policy.cluster_roles) {
    cluster_roles_[std::move(r.name)] = std::move(r.rules);
  }
  for (Role& r : policy.roles) {
    roles_[StrCat(r.namespace_, "/", r.name)] = std::move(r.rules);
  }
}

const std::vector<Binding>& PolicySnapshot::RoleBindings(
    std::string_view ns) const {
  static const auto* const kNone = new std::vector<Binding>();
  auto it = role_bindings_.find(ns);
  return it == role_bindings_.end() ? *kNone : it->second;
}

const std::vector<PolicyRule>* PolicySnapshot::ClusterRoleRules(
    std::string_view name) const {
  auto it = cluster_roles_.find(name);
  return it == cluster_roles_.end() ? nullptr : &it->second;
}

const std::vector<PolicyRule>* PolicySnapshot::RoleRules(
    std::string_view ns, std::string_view name) const {
  auto it = roles_.find(StrCat(ns, "/", name));
  return it == roles_.end() ? nullptr : &it->second;
}

}  // namespace draplane::auth
