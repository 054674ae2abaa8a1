#ifndef DRAPLANE_ALLOCATOR_INTERNAL_EXPLAINER_H_
#define DRAPLANE_ALLOCATOR_INTERNAL_EXPLAINER_H_

#include <vector>

#include "allocator/explain.h"
#include "allocator/internal/search_state.h"

namespace draplane::allocator::internal {

// Explains, per claim and request, why the claims in `state` could not be
// allocated: the device funnel of every (sub)request, independent of the
// search (upstream says only "cannot allocate all claims").
std::vector<ClaimExplanation> Explain(SearchState& state);

}  // namespace draplane::allocator::internal

#endif  // DRAPLANE_ALLOCATOR_INTERNAL_EXPLAINER_H_
