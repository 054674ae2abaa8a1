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
    const std::map<std::string, api::DeviceCapacity>& capacity,
    bool fractional_range);

// Upstream CmpRequestOverCapacity: true when the request fits: it names
// no capacity the device lacks, no consumption violates a request policy
// or is negative, and allocated + consumed + allocating <= value for every
// capacity. `allocated` and `allocating` may be null (nothing).
absl::StatusOr<bool> RequestFits(
    const CapacityMap* allocated, const api::CapacityRequirements* request,
    const std::map<std::string, api::DeviceCapacity>& capacity,
    const CapacityMap* allocating, bool fractional_range);

}  // namespace draplane::allocator::internal

#endif  // DRAPLANE_ALLOCATOR_INTERNAL_CAPACITY_H_
