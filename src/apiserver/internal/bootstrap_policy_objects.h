// Upstream Kubernetes' RBAC bootstrap policy as data: the default
// ClusterRoles, ClusterRoleBindings, Roles and RoleBindings of
// k8s.io/kubernetes v1.37.2, generated from upstream's own golden files by
// src/apiserver/tools/gen_bootstrap_policy.go (see
// bootstrap_policy_objects.cc; scripts/check-generated keeps it current).
#ifndef DRAPLANE_APISERVER_INTERNAL_BOOTSTRAP_POLICY_OBJECTS_H_
#define DRAPLANE_APISERVER_INTERNAL_BOOTSTRAP_POLICY_OBJECTS_H_

#include <string_view>

namespace draplane::apiserver::internal {

// A JSON array of the rbac.authorization.k8s.io/v1 objects of upstream's
// bootstrap policy (default feature gates), verbatim: each with apiVersion,
// kind, metadata (name, namespace for Roles and RoleBindings, labels,
// annotations, among them rbac.authorization.kubernetes.io/autoupdate) and
// rules / aggregationRule / roleRef / subjects exactly as upstream writes
// them (`"rules":null` on aggregated ClusterRoles included). In upstream's
// order: cluster roles, cluster role bindings, controller roles, controller
// role bindings, namespace roles, namespace role bindings; one compact object
// per line. The server reconciles these into the store at start the way
// kube-apiserver's rbac/bootstrap-roles post-start hook does: it creates what
// is missing and merges into existing objects whose
// rbac.authorization.kubernetes.io/autoupdate annotation is not "false".
// Static storage; never empty.
std::string_view BootstrapPolicyObjects();

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_BOOTSTRAP_POLICY_OBJECTS_H_
