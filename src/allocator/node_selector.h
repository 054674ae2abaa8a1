// Public node-selector matching for components outside the allocator (the
// scheduler's node filters), wrapping the allocator's internal matcher.
#ifndef DRAPLANE_ALLOCATOR_NODE_SELECTOR_H_
#define DRAPLANE_ALLOCATOR_NODE_SELECTOR_H_

#include "absl/status/statusor.h"
#include "api/core_types.h"
#include "api/meta_types.h"
#include "api/resource_types.h"

namespace draplane::allocator {

// Whether `node` matches `selector` like component-helpers'
// nodeaffinity.NewNodeSelector(selector).Match(node): terms are ORed, a term
// without requirements matches nothing, requirements of a term are ANDed;
// label operators In, NotIn, Exists, DoesNotExist, Gt, Lt; field
// requirements on metadata.name with In/NotIn and exactly one value (a node
// without a name skips field requirements, as upstream does).
//
// Errors: InvalidArgument, with upstream's aggregated field-error text, if
// any non-empty term fails to parse (an unsupported operator, a wrong number
// of values, a non-integer Gt/Lt value); parsing is eager, so one bad term
// fails the whole selector even if another term would match.
absl::StatusOr<bool> MatchesNodeSelector(const api::Node& node,
                                         const api::NodeSelector& selector);

// Whether the devices of `allocation` can be used on `node`: no
// nodeSelector, or one the node matches (a selector that does not parse
// matches no node). The scheduler's "resourceclaim not available on the
// node" check.
bool AllocationAvailableOn(const api::AllocationResult& allocation,
                           const api::Node& node);

}  // namespace draplane::allocator

#endif  // DRAPLANE_ALLOCATOR_NODE_SELECTOR_H_
