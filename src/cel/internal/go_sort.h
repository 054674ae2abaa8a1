// Go's sort.Slice ordering, for library functions whose results must match
// cel-go element for element.
//
// sort.Slice is not stable and does not require a consistent comparator: the
// order it leaves equal elements in (sortBy with repeated keys) and what it
// does with a comparator that is not a strict weak order (NaN keys) are
// properties of its algorithm, pattern-defeating quicksort with insertion
// sort for short ranges, heapsort as the fallback and a deterministic
// xorshift for pattern breaking (Go src/sort/zsortfunc.go). GoSortSlice
// performs exactly the same sequence of comparisons and swaps, so it
// reproduces those orders.
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_GO_SORT_H_
#define DRAPLANE_CEL_INTERNAL_GO_SORT_H_

#include <cstddef>

#include "absl/functional/function_ref.h"

namespace draplane::cel::internal {

// Sorts the positions [0, n) of some sequence as Go's
// sort.Slice(x, less) does: `less(i, j)` reports whether the element now at
// position i orders before the one at position j, and `swap(i, j)` exchanges
// them. Any `less` is tolerated (no undefined behaviour, O(n log n) calls).
void GoSortSlice(size_t n, absl::FunctionRef<bool(size_t, size_t)> less,
                 absl::FunctionRef<void(size_t, size_t)> swap);

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_GO_SORT_H_
