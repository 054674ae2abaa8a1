#include "allocator/node_selector.h"

#include "allocator/internal/node_selection.h"

namespace draplane::allocator {

absl::StatusOr<bool> MatchesNodeSelector(const api::Node& node,
                                         const api::NodeSelector& selector) {
  return internal::NodeMatches(node, /*node_name=*/"", /*all_nodes=*/false,
                               &selector);
}

bool AllocationAvailableOn(const api::AllocationResult& allocation,
                           const api::Node& node) {
  if (!allocation.node_selector.has_value()) return true;
  absl::StatusOr<bool> match =
      MatchesNodeSelector(node, *allocation.node_selector);
  return match.ok() && *match;
}

}  // namespace draplane::allocator
