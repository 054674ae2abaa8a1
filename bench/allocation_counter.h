// Counts heap allocations: linking allocation_counter.cc replaces the
// global operator new/delete so that every operator new adds one. For
// benchmarks (single-threaded; relaxed atomics).
#ifndef DRAPLANE_BENCH_ALLOCATION_COUNTER_H_
#define DRAPLANE_BENCH_ALLOCATION_COUNTER_H_

#include <cstdint>

namespace draplane::bench {

// Allocations (operator new calls) since the program started.
uint64_t AllocationCount();

}  // namespace draplane::bench

#endif  // DRAPLANE_BENCH_ALLOCATION_COUNTER_H_
