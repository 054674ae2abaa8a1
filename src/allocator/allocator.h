#ifndef DRAPLANE_ALLOCATOR_ALLOCATOR_H_
#define DRAPLANE_ALLOCATOR_ALLOCATOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "allocator/allocated_state.h"
#include "allocator/explain.h"
#include "allocator/features.h"
#include "api/core_types.h"
#include "api/resource_types.h"

namespace draplane::allocator {

namespace internal {
class AllocatorCache;
class Catalog;
}  // namespace internal

// How one Allocate call ended (docs/scenario-format.md, "Error classes").
enum class OutcomeKind {
  kAllocated,      // every claim got devices
  kUnallocatable,  // upstream's (nil, nil): not on this node
  kFatal,          // upstream returned an error (bad CEL, unknown class...)
  kInvalidPools,   // ErrFailedAllocationOnNode: nothing fits, a pool invalid
  kTimeout,        // the deadline passed (the scheduler's Filter timeout)
};

// "allocated", "unallocatable", "fatal", "invalid-pools", "timeout".
const char* OutcomeKindName(OutcomeKind kind);
// The result document's error class: OutcomeKindName for the three error
// kinds, "" for the other two.
const char* OutcomeErrorClass(OutcomeKind kind);

struct Outcome {
  OutcomeKind kind = OutcomeKind::kUnallocatable;
  // kFatal / kInvalidPools / kTimeout: upstream's error text.
  std::string message;
  // kAllocated: one result per claim, in input order.
  std::vector<api::AllocationResult> results;
  // kUnallocatable with AllocateOptions::explain: one entry per claim.
  std::vector<ClaimExplanation> explanations;
  // Search steps (upstream's allocateOne invocations, fewer with pruning).
  int64_t steps = 0;
};

// Upstream 1.37 behaviour that upstream's own issues call a bug, not fixed
// there yet. Off (the default) = exactly upstream; docs/allocator.md.
struct UpstreamFixes {
  // kubernetes#140729: an adminAccess request reserves the shared counters
  // of the device it gets (e.g. a MIG partition's memory slices) for the
  // rest of the search, although admin access is not an allocation, so a
  // claim with an admin request and a normal one can fail for lack of
  // counters. On: admin-access results reserve no counters.
  bool admin_access_skips_counters = false;
};

struct AllocateOptions {
  // Build explanations when the claims cannot be allocated.
  bool explain = false;
  // Prune the search (never changes the answer; off only to prove that).
  bool prune = true;
  UpstreamFixes fixes;
  // Give up (kTimeout) after this point in time.
  absl::Time deadline = absl::InfiniteFuture();
  // Beyond upstream, for scoring policies that compare the placements a
  // node offers (the scheduler's device-aware policies): called with each
  // complete allocation (one result per claim) in upstream's search order,
  // the first being upstream's answer. Returning true takes it and ends the
  // search; false asks for the next one (the search backtracks as if that
  // allocation had failed, without pruning the devices interchangeable
  // with it). When every allocation is declined, the outcome is what it
  // would be had none existed. Unset = take the first: exactly upstream.
  std::function<bool(const std::vector<api::AllocationResult>&)>
      visit_allocation;
};

// The structured-parameters allocator: finds devices for a set of claims on
// one node exactly as Kubernetes 1.37's allocator
// (k8s.io/dynamic-resource-allocation/structured, the "incubating" variant
// the 1.37 defaults select) would, answering with the same devices in the
// same order, the same errors and the same result objects (docs/allocator.md).
//
// Unlike upstream it prunes the search without changing the answer:
// requests that fewer devices could ever satisfy than they need fail at
// once, and a device interchangeable with one whose subtree already failed
// is not tried again.
//
// An Allocator holds the cluster's slices and classes, converted and
// indexed once; selector results are cached per device and reused by every
// Allocate call (any node, any allocated state). Build a new Allocator when
// slices or classes change. Not thread-safe: one Allocate at a time.
class Allocator {
 public:
  // `slices`: every ResourceSlice of the cluster (DeviceTaintRule taints
  // already applied), also those of other nodes: they decide whether a
  // pool is complete.
  Allocator(Features features, std::vector<api::ResourceSlice> slices,
            std::vector<api::DeviceClass> classes);
  // The same with shared slices (kept, not copied: a scheduler's cache and
  // its allocator hold one copy).
  Allocator(Features features,
            std::vector<std::shared_ptr<const api::ResourceSlice>> slices,
            std::vector<api::DeviceClass> classes);
  ~Allocator();
  Allocator(const Allocator&) = delete;
  Allocator& operator=(const Allocator&) = delete;

  const Features& features() const { return features_; }

  // Allocates all `claims` (none of them allocated yet) together on `node`,
  // given the devices `state` says are in use.
  Outcome Allocate(const api::Node& node,
                   const std::vector<const api::ResourceClaim*>& claims,
                   const AllocatedState& state,
                   const AllocateOptions& options = {});

 private:
  Features features_;
  std::unique_ptr<internal::Catalog> catalog_;
  std::unique_ptr<internal::AllocatorCache> cache_;
};

}  // namespace draplane::allocator

#endif  // DRAPLANE_ALLOCATOR_ALLOCATOR_H_
