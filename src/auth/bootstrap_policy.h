// Upstream's bootstrap RBAC policy (plugin/pkg/auth/authorizer/rbac/
// bootstrappolicy) for what draplane serves, and a PolicySource over a
// fixed set of roles and bindings.
#ifndef DRAPLANE_AUTH_BOOTSTRAP_POLICY_H_
#define DRAPLANE_AUTH_BOOTSTRAP_POLICY_H_

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "auth/rbac.h"

namespace draplane::auth {

struct ClusterRole {
  std::string name;
  std::vector<PolicyRule> rules;
};

struct Policy {
  std::vector<ClusterRole> cluster_roles;
  std::vector<Binding> cluster_role_bindings;
};

// The cluster roles and cluster role bindings kube-apiserver creates at
// start: cluster-admin (bound to system:masters), system:discovery and
// system:basic-user (bound to system:authenticated),
// system:public-info-viewer (bound to system:authenticated and
// system:unauthenticated), system:monitoring (bound to system:monitoring).
Policy BootstrapPolicy();

// A PolicySource over `policy`, fixed for its lifetime.
class StaticPolicySource final : public PolicySource {
 public:
  explicit StaticPolicySource(const Policy& policy);

  std::vector<std::shared_ptr<const Binding>> ClusterRoleBindings()
      const override;
  std::vector<std::shared_ptr<const Binding>> RoleBindings(
      std::string_view ns) const override;
  std::shared_ptr<const std::vector<PolicyRule>> ClusterRoleRules(
      std::string_view name) const override;
  std::shared_ptr<const std::vector<PolicyRule>> RoleRules(
      std::string_view ns, std::string_view name) const override;

 private:
  std::vector<std::shared_ptr<const Binding>> bindings_;
  std::map<std::string, std::shared_ptr<const std::vector<PolicyRule>>,
           std::less<>>
      roles_;
};

}  // namespace draplane::auth

#endif  // DRAPLANE_AUTH_BOOTSTRAP_POLICY_H_
