#include "allocator/node_selector.h"

#include "allocator/internal/node_selection.h"

namespace draplane::allocator {

absl::StatusOr<bool> MatchesNodeSelector(const api::Node& node,
                                         const api::NodeSelector& selector) {
  return internal::NodeMatches(node, /*node_name=*/"", /*all_nodes=*/false,
                               &selector);
}

}  // namespace draplane::allocator
