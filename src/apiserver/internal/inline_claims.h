// draplane extension: the guide's inline device request in a Pod
// (`spec.resourceClaims[].source.devices`, which upstream Kubernetes
// rejects as an unknown field). On Pod create the server turns each one
// into a ResourceClaimTemplate owned by the pod and points the pod claim at
// it, and answers with a Warning saying how to write it portably.
#ifndef DRAPLANE_APISERVER_INTERNAL_INLINE_CLAIMS_H_
#define DRAPLANE_APISERVER_INTERNAL_INLINE_CLAIMS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/meta_types.h"

namespace draplane::apiserver::internal {

// Json's move constructor is noexcept; bugprone-exception-escape follows
// its debug-only invariant assertion.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct InlineClaimTemplate {
  std::string name;     // the template's name: <pod>-<claim>
  api::Json object;     // a whole ResourceClaimTemplate (apiVersion set)
  std::string warning;  // the Warning text for the client
};

// Rewrites `pod` (a Pod's JSON as sent) in place: every resourceClaims
// entry with `source.devices` loses `source` and gets
// `resourceClaimTemplateName: <pod>-<claim>`; returns the templates to
// create. The devices are read in v1 form when a request has `exactly` or
// the request list is empty, else in the v1beta1 form the guide uses.
// BadRequest for a malformed `source` or a pod without a name.
absl::StatusOr<std::vector<InlineClaimTemplate>> ExtractInlineClaims(
    api::Json& pod);

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_INLINE_CLAIMS_H_
