#include "api/helpers/pod_claims.h"

#include "absl/status/status.h"
#include "common/str_cat.h"

namespace draplane::api {

absl::StatusOr<PodClaimName> ResolvePodClaimName(
    const Pod& pod, const PodResourceClaim& entry) {
  if (entry.resource_claim_name.has_value()) {
    return PodClaimName{*entry.resource_claim_name, false};
  }
  if (entry.resource_claim_template_name.has_value()) {
    for (const auto& s : pod.status.resource_claim_statuses) {
      if (s.name == entry.name)
        return PodClaimName{s.resource_claim_name, true};
    }
    return absl::NotFoundError(StrCat("pod \"", pod.metadata.namespace_, "/",
                                      pod.metadata.name,
                                      "\": ResourceClaim not created yet"));
  }
  return absl::InvalidArgumentError(
      StrCat("pod \"", pod.metadata.namespace_, "/", pod.metadata.name,
             "\", spec.resourceClaim \"", entry.name,
             "\": none of the supported fields are set"));
}

bool IsControlledBy(const ObjectMeta& object, const ObjectMeta& owner) {
  for (const auto& ref : object.owner_references) {
    if (ref.controller.value_or(false)) return ref.uid == owner.uid;
  }
  return false;
}

absl::Status IsForPod(const Pod& pod, const ResourceClaim& claim) {
  if (claim.metadata.namespace_ != pod.metadata.namespace_ ||
      !IsControlledBy(claim.metadata, pod.metadata)) {
    return absl::FailedPreconditionError(StrCat(
        "ResourceClaim ", claim.metadata.namespace_, "/", claim.metadata.name,
        " was not created for pod ", pod.metadata.namespace_, "/",
        pod.metadata.name, " (pod is not owner)"));
  }
  return absl::OkStatus();
}

bool IsReservedForPod(const Pod& pod, const ResourceClaim& claim) {
  for (const auto& r : claim.status.reserved_for) {
    if (r.uid == pod.metadata.uid) return true;
  }
  return false;
}

bool CanBeReserved(const ResourceClaim& claim) {
  return claim.status.reserved_for.size() <
         static_cast<size_t>(kResourceClaimReservedForMaxSize);
}

std::optional<OwnerPod> OwningPod(const ResourceClaim& claim) {
  for (const auto& ref : claim.metadata.owner_references) {
    if (ref.controller.value_or(false) && ref.api_version == "v1" &&
        ref.kind == "Pod") {
      return OwnerPod{ref.name, ref.uid};
    }
  }
  return std::nullopt;
}

bool IsPodDone(const Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed" ||
         (pod.metadata.deletion_timestamp.has_value() &&
          pod.spec.node_name.empty());
}

}  // namespace draplane::api
