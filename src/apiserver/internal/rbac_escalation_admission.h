// RBAC's escalation prevention (pkg/registry/rbac/*/policybased): a user
// creates or updates a Role or ClusterRole only with rules they hold
// themselves (or the `escalate` verb on it), and a RoleBinding or
// ClusterRoleBinding only to a role whose rules they hold (or the `bind`
// verb on it). Members of system:masters are exempt; using an
// aggregationRule needs every permission. Refusals are upstream's 403s
// ("clusterroles.rbac.authorization.k8s.io \"x\" is forbidden: user ...
// is attempting to grant RBAC permissions not currently held: ...").
#ifndef DRAPLANE_APISERVER_INTERNAL_RBAC_ESCALATION_ADMISSION_H_
#define DRAPLANE_APISERVER_INTERNAL_RBAC_ESCALATION_ADMISSION_H_

#include <string_view>

#include "apiserver/admission.h"
#include "auth/rbac.h"

namespace draplane::apiserver::internal {

class RbacEscalationAdmission final : public AdmissionPlugin {
 public:
  // Until attached, every RBAC write is refused. `authorizer` and
  // `policy` (null: no roles, as with AlwaysAllow, where `escalate` and
  // `bind` are always allowed) outlive the plugin.
  void Attach(const auth::Authorizer* authorizer,
              const auth::PolicySource* policy) {
    authorizer_ = authorizer;
    policy_ = policy;
  }

  std::string_view Name() const override { return "RBACEscalation"; }
  absl::Status Admit(const AdmissionRequest& request,
                     api::Json& object) override;
  bool MayMutate(const AdmissionRequest&) const override { return false; }

 private:
  const auth::Authorizer* authorizer_ = nullptr;
  const auth::PolicySource* policy_ = nullptr;
};

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_RBAC_ESCALATION_ADMISSION_H_
