#ifndef DRAPLANE_ALLOCATOR_INTERNAL_CAPACITY_H_
#define DRAPLANE_ALLOCATOR_INTERNAL_CAPACITY_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "api/resource_types.h"
#include "common/quantity.h"

namespace draplane::allocator::internal {

using CapacityMap = std::map<std::string, Quantity>;

// Upstream consumable capacity (DRAConsumableCapacity), incubating variant.

// What a request consumes of every capacity of a device: the requested
// amount rounded up by the capacity's request policy, or the policy default
// (else the whole value) when the request does not name the capacity.
// Errors when a range step cannot be represented (upstream's texts, with
// `capacity "name": ` in front).
absl::StatusOr<CapacityMap> ConsumedCapacity(
    const api::CapacityRequirements* request,
    const api::DeviceCapacities& capacity, bool fractional_range);

// What a request consumes of a device on its own: the static part of
// upstream's CmpRequestOverCapacity, computed once per (request, device).
struct CapacityPlan {
  // Computing the consumption failed (a range step that cannot be
  // represented, a negative value): upstream aborts the allocation.
  absl::Status error;
  bool names_missing = false;  // the request names a capacity the device lacks
  bool policy_violated = false;  // a consumption breaks its request policy
  CapacityMap consumed;          // every capacity of the device
  bool fits_alone = false;       // usable and consumed <= value everywhere
};
CapacityPlan PlanCapacity(const api::CapacityRequirements* request,
                          const api::DeviceCapacities& capacity,
                          bool fractional_range);

// Upstream CmpRequestOverCapacity for a plan: true when the request fits
// next to `allocated` (earlier shares) and `allocating` (shares of this
// attempt); both may be null (nothing).
absl::StatusOr<bool> PlanFits(const CapacityPlan& plan,
                              const CapacityMap* allocated,
                              const api::DeviceCapacities& capacity,
                              const CapacityMap* allocating);

// PlanFits(PlanCapacity(...)).
absl::StatusOr<bool> RequestFits(const CapacityMap* allocated,
                                 const api::CapacityRequirements* request,
                                 const api::DeviceCapacities& capacity,
                                 const CapacityMap* allocating,
                                 bool fractional_range);

}  // namespace draplane::allocator::internal

#endif  // DRAPLANE_ALLOCATOR_INTERNAL_CAPACITY_H_
