// The list libraries of the Kubernetes 1.37 CEL base environment
// (k8s.io/apiserver v0.37.2 pkg/cel/environment/base.go):
//
//  * Kubernetes Lists at version 1 (pkg/cel/library/lists.go): isSorted,
//    sum, min, max, indexOf, lastIndexOf on lists and the generic
//    `x.includes(y)` (list membership, or equality for a non-list x).
//  * cel-go ext.Lists at version 3 (ext/lists.go): slice, flatten (with an
//    optional depth), distinct, reverse, sort, lists.range and the internal
//    @sortByAssociatedKeys that the parser's sortBy macro expands to (see
//    ParserOptions::enable_sort_by_macro).
//  * cel-go ext.Sets (ext/sets.go): sets.contains, sets.equivalent,
//    sets.intersects.
//
// Semantics are cel-go's at run time, including its runtime overload
// selection for a list whose static type is list(dyn): the overloads of
// isSorted/min/max (comparable element types) and sum (int, uint, double,
// duration) are chosen by the list's first element, an empty list takes
// the first overload (so `[].sum()` is 0), and a first element of another
// type is "no such overload". Element equality (indexOf, includes,
// distinct, sets) is CEL's heterogeneous equality (ValuesEqual); ordering
// is CEL's, where a pair without an ordering (different types, NaN) counts
// as "not ordered before" as in cel-go. sort and sortBy order elements the
// way Go's sort.Slice does (go_sort.h), so equal keys end up where cel-go
// puts them.
//
// Runtime costs: Kubernetes' library.CostEstimator.CallCost for the
// Kubernetes functions (one traversal of the receiver: library/cost.go
// traversalCost) and cel-go's ext overload cost trackers for the others
// (which take precedence in cel-go's CostTracker, so they apply in the
// Kubernetes environment too).
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_LISTS_LIBRARY_H_
#define DRAPLANE_CEL_INTERNAL_LISTS_LIBRARY_H_

#include <cstdint>

#include "absl/status/status.h"
#include "cel/internal/interpreter.h"
#include "cel/internal/value.h"

namespace draplane::cel::internal {

// The largest n lists.range(n) accepts (cel-go's default maxRangeSize).
inline constexpr int64_t kListsRangeMaxSize = 1000000;

// Registers the Kubernetes Lists functions at `version` (library/lists.go
// ListsVersion): 0 has isSorted, sum, min, max, indexOf, lastIndexOf; 1
// adds includes.
absl::Status RegisterKubernetesListsFunctions(FunctionRegistry* registry,
                                              int version = 1);

// Registers the cel-go ext.Lists v3 functions (including
// @sortByAssociatedKeys).
absl::Status RegisterExtListsFunctions(FunctionRegistry* registry);

// Registers the cel-go ext.Sets functions.
absl::Status RegisterSetsFunctions(FunctionRegistry* registry);

// Kubernetes' traversalCost (library/cost.go): floor(0.1 x bytes) for a
// string or bytes, the sum over elements (and over keys and values) for
// lists and maps, 1 for anything else. An empty list costs 0.
uint64_t KubernetesTraversalCost(const Value& value);

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_LISTS_LIBRARY_H_
