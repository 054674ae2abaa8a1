#ifndef DRAPLANE_ALLOCATOR_INTERNAL_NODE_SELECTION_H_
#define DRAPLANE_ALLOCATOR_INTERNAL_NODE_SELECTION_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "api/core_types.h"
#include "api/meta_types.h"

namespace draplane::allocator::internal {

// Upstream incubating.NodeMatches: a non-empty node name must equal the
// node's; allNodes matches; otherwise the selector is matched like
// component-helpers' nodeaffinity.NodeSelector (terms ORed, empty terms
// ignored, requirements ANDed; label operators In, NotIn, Exists,
// DoesNotExist, Gt, Lt; field selectors on metadata.name with In/NotIn and
// exactly one value). An unparsable selector is an error.
absl::StatusOr<bool> NodeMatches(const api::Node& node,
                                 const std::string& node_name, bool all_nodes,
                                 const api::NodeSelector* selector);

// The selector as Go's generated String() prints it (upstream puts it in
// node selector parse errors): &NodeSelector{NodeSelectorTerms:[...]}.
std::string NodeSelectorGoString(const api::NodeSelector& selector);

// Appends each requirement of `from` to `to` unless `to` already has one
// with the same key, operator and set of values (upstream
// addNewNodeSelectorRequirements).
void AddNewRequirements(const std::vector<api::NodeSelectorRequirement>& from,
                        std::vector<api::NodeSelectorRequirement>& to);

}  // namespace draplane::allocator::internal

#endif  // DRAPLANE_ALLOCATOR_INTERNAL_NODE_SELECTION_H_
