#ifndef DRAPLANE_ALLOCATOR_INTERNAL_SEARCH_H_
#define DRAPLANE_ALLOCATOR_INTERNAL_SEARCH_H_

#include <vector>

#include "allocator/allocator.h"
#include "allocator/internal/catalog.h"
#include "allocator/internal/search_state.h"

namespace draplane::allocator::internal {

// One Allocate call: upstream incubating allocator.Allocate on the
// catalog's devices (see allocator.h for the contract).
Outcome RunAllocation(Catalog& catalog, AllocatorCache& cache,
                      const Features& features, const api::Node& node,
                      const std::vector<const api::ResourceClaim*>& claims,
                      const AllocatedState& state,
                      const AllocateOptions& options);

}  // namespace draplane::allocator::internal

#endif  // DRAPLANE_ALLOCATOR_INTERNAL_SEARCH_H_
