// What kube-apiserver's RBAC post-start hook and the clusterrole
// aggregation controller keep true in the store:
// - the bootstrap policy (bootstrap_policy_objects.h) exists: missing
//   roles and bindings are created; existing ones gain the rules, labels,
//   annotations, aggregation selectors and subjects they lack (nothing is
//   removed), a binding whose roleRef differs is recreated, and an object
//   annotated rbac.authorization.kubernetes.io/autoupdate: "false" is left
//   alone (pkg/registry/rbac/reconciliation);
// - a ClusterRole with an aggregationRule holds the union of the rules of
//   the ClusterRoles its selectors match, by name order, without
//   duplicates (pkg/controller/clusterroleaggregation).
#ifndef DRAPLANE_APISERVER_INTERNAL_RBAC_RECONCILIATION_H_
#define DRAPLANE_APISERVER_INTERNAL_RBAC_RECONCILIATION_H_

#include <vector>

#include "absl/status/status.h"
#include "api/object.h"
#include "apiserver/internal/registry.h"

namespace draplane::apiserver::internal {

// Reconciles the bootstrap policy, then `additions` (more RBAC objects in
// the same form), into the store; the first error stops it.
absl::Status ReconcileBootstrapPolicy(
    Registry& registry, const std::vector<api::Json>& additions = {});

// One pass of the aggregation controller over every aggregated
// ClusterRole; the first write error stops it.
absl::Status AggregateClusterRoles(Registry& registry);

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_RBAC_RECONCILIATION_H_
