// DeviceTaintRules applied to published devices, as kube-scheduler's
// ResourceSlice tracker (k8s.io/dynamic-resource-allocation/resourceslice/
// tracker) presents slices to the allocator.
#ifndef DRAPLANE_ALLOCATOR_DEVICE_TAINT_RULES_H_
#define DRAPLANE_ALLOCATOR_DEVICE_TAINT_RULES_H_

#include <vector>

#include "api/resource_types.h"

namespace draplane::allocator {

// Returns the slices with the taints of matching DeviceTaintRules appended
// to their devices, in rule order (the tracker's selection: a rule without
// a device selector matches nothing; driver, pool and device, where set,
// must each be equal).
std::vector<api::ResourceSlice> ApplyTaintRules(
    std::vector<api::ResourceSlice> slices,
    const std::vector<api::DeviceTaintRule>& rules);

}  // namespace draplane::allocator

#endif  // DRAPLANE_ALLOCATOR_DEVICE_TAINT_RULES_H_
