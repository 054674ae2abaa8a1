// rbac.authorization.k8s.io/v1: Role, ClusterRole, RoleBinding and
// ClusterRoleBinding, modelled in full (an unknown member is a
// strict-decoding error, as upstream).
#ifndef DRAPLANE_API_RBAC_TYPES_H_
#define DRAPLANE_API_RBAC_TYPES_H_

#include <optional>
#include <string>
#include <vector>

#include "api/core_types.h"
#include "api/meta_types.h"

namespace draplane::api {

inline constexpr char kRbacGroup[] = "rbac.authorization.k8s.io";

struct PolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;
  std::vector<std::string> resource_names;
  std::vector<std::string> non_resource_urls;
};

struct AggregationRule {
  std::vector<LabelSelector> cluster_role_selectors;
};

struct Role {
  ObjectMeta metadata;
  std::vector<PolicyRule> rules;
};

struct ClusterRole {
  ObjectMeta metadata;
  std::vector<PolicyRule> rules;
  // Set: the rules are the union of the rules of the ClusterRoles the
  // selectors match, kept up to date by the API server.
  std::optional<AggregationRule> aggregation_rule;
};

struct Subject {
  std::string kind;       // "User", "Group" or "ServiceAccount"
  std::string api_group;  // "" for ServiceAccount
  std::string name;
  std::string namespace_;  // ServiceAccount only
};

struct RoleRef {
  std::string api_group;
  std::string kind;  // "Role" or "ClusterRole"
  std::string name;
};

struct RoleBinding {
  ObjectMeta metadata;
  std::vector<Subject> subjects;
  RoleRef role_ref;
};

struct ClusterRoleBinding {
  ObjectMeta metadata;
  std::vector<Subject> subjects;
  RoleRef role_ref;
};

}  // namespace draplane::api

#endif  // DRAPLANE_API_RBAC_TYPES_H_
