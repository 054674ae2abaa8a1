// Who the components of `draplane server` are when they call its API: each
// runs as its upstream identity with a bearer token that exists only in
// the server process's memory (new at every start), so the bootstrap
// roles, not an admin credential, authorize what they do.
//
// - scheduler: system:kube-scheduler;
// - controllers: the service accounts kube-controller-manager's
//   controllers use (`system:serviceaccount:kube-system:<name>`, in
//   system:serviceaccounts and system:serviceaccounts:kube-system):
//   resource-claim-controller, node-controller, resourcequota-controller,
//   deployment-controller, job-controller, service-account-controller,
//   and draplane-dra-monitor;
// - simulated nodes: `system:node:<name>` in system:nodes (the Node
//   authorizer and NodeRestriction apply);
// - the server's own setup writes (NVIDIA's DeviceClasses):
//   system:apiserver in system:masters, as kube-apiserver's loopback
//   client.
#ifndef DRAPLANE_CMD_STANDALONE_IDENTITIES_H_
#define DRAPLANE_CMD_STANDALONE_IDENTITIES_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/object.h"
#include "auth/token_file.h"

namespace draplane::cmd {

struct StandaloneIdentities {
  auth::StaticToken loopback;
  auth::StaticToken scheduler;
  auth::StaticToken claim_controller;
  auth::StaticToken node_lifecycle;
  auth::StaticToken quota_controller;
  auth::StaticToken deployment_controller;
  auth::StaticToken job_controller;
  auth::StaticToken dra_monitor;
  auth::StaticToken service_account_controller;
  std::map<std::string, auth::StaticToken> nodes;  // by node name

  // Every token above, for the server's authenticator.
  std::vector<auth::StaticToken> Tokens() const;
};

// New random tokens for every component and for each of `node_names`.
absl::StatusOr<StandaloneIdentities> NewStandaloneIdentities(
    const std::vector<std::string>& node_names);

// The RBAC objects draplane adds to upstream's bootstrap policy for its
// standalone components, beyond upstream (docs/security.md):
// - ClusterRole and ClusterRoleBinding `draplane:controller-informers`:
//   get, list and watch on what the controllers read, for their service
//   accounts (kube-controller-manager reads through shared informers under
//   its own identity; draplane's controllers read with their own);
// - ClusterRoleBinding `draplane:deployment-controller-pods`: the
//   deployment controller creates pods itself (no ReplicaSets), so its
//   service account is also bound to system:controller:replicaset-controller;
// - ClusterRole and ClusterRoleBinding `draplane:dra-monitor`: events for
//   the DRA monitor's service account.
std::vector<api::Json> StandalonePolicyObjects();

}  // namespace draplane::cmd

#endif  // DRAPLANE_CMD_STANDALONE_IDENTITIES_H_
