// How a pod refers to its ResourceClaims, as upstream's
// k8s.io/dynamic-resource-allocation/resourceclaim package defines it
// (Name, IsForPod, IsReservedForPod, CanBeReserved) plus the controller
// ownership helpers of apimachinery (IsControlledBy) and of the
// resourceclaim controller (owningPod, isPodDone). Shared by the scheduler
// and the controllers so both read a pod's claims the same way.
#ifndef DRAPLANE_API_POD_CLAIMS_H_
#define DRAPLANE_API_POD_CLAIMS_H_

#include <cstddef>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "api/core_types.h"
#include "api/meta_types.h"
#include "api/resource_types.h"

namespace draplane::api {

// The claim a pod's spec.resourceClaims entry stands for.
struct PodClaimName {
  // Unset: the claim intentionally was not created (a status entry without
  // resourceClaimName); the entry can be ignored.
  std::optional<std::string> name;
  // The claim was generated from a template: IsForPod must hold before the
  // claim is used.
  bool must_check_owner = false;
};

// Upstream resourceclaim.Name. Errors: NotFound `pod "<ns>/<name>":
// ResourceClaim not created yet` (a template entry without a status entry
// yet), InvalidArgument `pod "<ns>/<name>", spec.resourceClaim "<entry>":
// none of the supported fields are set`.
absl::StatusOr<PodClaimName> ResolvePodClaimName(const Pod& pod,
                                                 const PodResourceClaim& entry);

// metav1.IsControlledBy: `object` has a controller reference to `owner`'s
// uid.
bool IsControlledBy(const ObjectMeta& object, const ObjectMeta& owner);

// Upstream resourceclaim.IsForPod: FailedPrecondition "ResourceClaim
// <ns>/<name> was not created for pod <ns>/<name> (pod is not owner)"
// unless the claim is in the pod's namespace and controlled by it.
absl::Status IsForPod(const Pod& pod, const ResourceClaim& claim);

// Upstream resourceclaim.IsReservedForPod: some reservedFor entry has the
// pod's uid.
bool IsReservedForPod(const Pod& pod, const ResourceClaim& claim);

// Upstream resourceclaim.CanBeReserved: fewer than 256 reservations.
bool CanBeReserved(const ResourceClaim& claim);

// The pod controlling a claim (a controller reference with apiVersion v1
// and kind Pod), as the resourceclaim controller's owningPod finds it.
struct OwnerPod {
  std::string name;
  std::string uid;
};
std::optional<OwnerPod> OwningPod(const ResourceClaim& claim);

// The resourceclaim controller's isPodDone: certainly never running again
// (phase Succeeded or Failed, or deleted before it was scheduled).
bool IsPodDone(const Pod& pod);

}  // namespace draplane::api

#endif  // DRAPLANE_API_POD_CLAIMS_H_
