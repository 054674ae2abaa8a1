// What a ResourceClaim costs against a ResourceQuota, as kube-apiserver's
// quota evaluator for resourceclaims counts it (pkg/quota/v1/evaluator/
// core/resource_claims.go, without the alpha DRAQuotaAtAllocationTime):
// - count/resourceclaims.resource.k8s.io: 1 per claim;
// - <class>.deviceclass.resource.k8s.io/devices: per request, its count
//   (ExactCount) or 32, the most an allocation can hold (All); for a
//   firstAvailable request, per class the largest of its subrequests'
//   numbers (the worst case), summed over requests.
#ifndef DRAPLANE_API_QUOTA_USAGE_H_
#define DRAPLANE_API_QUOTA_USAGE_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "api/resource_types.h"

namespace draplane::api {

inline constexpr std::string_view kClaimCountQuotaName =
    "count/resourceclaims.resource.k8s.io";
// corev1.ResourceClaimsPerClass: "<class>" + this.
inline constexpr std::string_view kDevicesPerClassQuotaSuffix =
    ".deviceclass.resource.k8s.io/devices";

// Whether a ResourceQuota resource name is one the claim evaluator counts.
bool IsClaimQuotaResource(std::string_view name);

// The claim's usage by quota resource name.
std::map<std::string, int64_t> ClaimQuotaUsage(const ResourceClaim& claim);

}  // namespace draplane::api

#endif  // DRAPLANE_API_QUOTA_USAGE_H_
