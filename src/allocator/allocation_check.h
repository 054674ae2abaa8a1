#ifndef DRAPLANE_ALLOCATOR_ALLOCATION_CHECK_H_
#define DRAPLANE_ALLOCATOR_ALLOCATION_CHECK_H_

#include <vector>

#include "absl/status/status.h"
#include "allocator/allocated_state.h"
#include "allocator/features.h"
#include "api/core_types.h"
#include "api/resource_types.h"

namespace draplane::allocator {

// Everything an allocation was computed from.
struct AllocationInputs {
  Features features;
  const std::vector<api::ResourceSlice>* slices = nullptr;  // taints applied
  const std::vector<api::DeviceClass>* classes = nullptr;
  const api::Node* node = nullptr;
  const std::vector<const api::ResourceClaim*>* claims = nullptr;
  const AllocatedState* state = nullptr;
};

// Checks that `results` (one per claim) is a valid allocation, without
// reference to how it was found: every device exists in the newest
// generation of a complete pool and is usable on the node; every class and
// request selector is true for it; each request got its count (All: every
// matching device) from one subrequest; no device is used twice or taken
// from another claim unless admin access or allowMultipleAllocations allow
// it; taints are tolerated; shared counters and consumable capacity are
// never exceeded; matchAttribute / distinctAttribute constraints hold; at
// most 32 results per claim; the result's node selector admits the node.
// Returns FailedPrecondition naming the first violation.
absl::Status CheckAllocation(const AllocationInputs& inputs,
                             const std::vector<api::AllocationResult>& results);

}  // namespace draplane::allocator

#endif  // DRAPLANE_ALLOCATOR_ALLOCATION_CHECK_H_
