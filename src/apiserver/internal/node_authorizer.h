// kube-apiserver's Node authorizer (plugin/pkg/auth/authorizer/node): what
// a kubelet, `system:node:<name>` in system:nodes, may do beyond its
// ClusterRole. It reads and writes its own Node and Lease, the pods bound
// to it (list and watch only with the field selector
// `spec.nodeName=<name>`), the ResourceClaims those pods use (get only),
// and the ResourceSlices of its node (list, watch and deletecollection
// only with `spec.nodeName=<name>`); anything else falls back to the
// system:node ClusterRole's rules. Users that are not nodes get no
// opinion, for the next authorizer.
//
// Upstream keeps a graph of these relations fed by informers; this one
// reads the stored objects when it decides, so a relation holds from the
// write that makes it. Kinds draplane does not serve (secrets, configmaps,
// persistent volumes, volume attachments, service accounts, CSINodes, pod
// certificate requests) have no relations: after upstream's verb checks,
// a node is refused them.
#ifndef DRAPLANE_APISERVER_INTERNAL_NODE_AUTHORIZER_H_
#define DRAPLANE_APISERVER_INTERNAL_NODE_AUTHORIZER_H_

#include <memory>

#include "apiserver/internal/registry.h"
#include "auth/rbac.h"

namespace draplane::apiserver::internal {

// `registry` outlives the authorizer.
std::unique_ptr<auth::Authorizer> NewNodeAuthorizer(const Registry* registry);

// Whether `pod` (v1 JSON) uses the ResourceClaim `claim` of its namespace,
// as upstream's graph links them: a claim named in spec.resourceClaims, one
// generated from a template as status.resourceClaimStatuses names it, or
// the claim of status.extendedResourceClaimStatus.
bool PodUsesClaim(const api::Json& pod, std::string_view claim);

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_NODE_AUTHORIZER_H_
