// Static (worst-case) cost estimation of a type-checked CEL expression, as
// Kubernetes computes it to reject DRA selectors that are "too complex"
// (estimated cost above 1,000,000).
//
// EstimateCost follows cel-go v0.29.2 checker/cost.go (the coster: unit
// costs of identifiers, selections, literals and calls; min/max sizes of
// strings, lists and maps propagated through the expression; comprehensions
// costing range size x (condition + step)), with the call estimators of the
// libraries in the Kubernetes environment: ext.Sets and ext.Lists (cel-go
// ext/sets.go, ext/lists.go), then Kubernetes' library.CostEstimator
// (k8s.io/apiserver v0.37.2 pkg/cel/library/cost.go), then cel-go's
// built-in rules. Sizes of values read from variables come from a
// SizeEstimator; for DRA selectors that is DraDeviceSizeEstimator, the
// estimator of k8s.io/dynamic-resource-allocation v0.37.2 cel/compile.go.
//
// Thread-safe: EstimateCost keeps no state between calls.
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_COST_ESTIMATOR_H_
#define DRAPLANE_CEL_INTERNAL_COST_ESTIMATOR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cel/internal/ast.h"
#include "cel/internal/checker.h"
#include "cel/internal/checker_declarations.h"
#include "cel/internal/types.h"

namespace draplane::cel::internal {

// Closed ranges of sizes (string code points, bytes, list or map entries)
// and of costs. Arithmetic on them saturates at UINT64_MAX.
struct SizeEstimate {
  uint64_t min = 0;
  uint64_t max = 0;
  bool operator==(const SizeEstimate&) const = default;
};
struct CostEstimate {
  uint64_t min = 0;
  uint64_t max = 0;
  bool operator==(const CostEstimate&) const = default;
};

// Sizes of the values reachable from declared variables (cel-go
// CostEstimator.EstimateSize). A path starts with a variable name,
// followed by field names and the pseudo-fields "@items" (list elements),
// "@indices" (list indexes), "@keys" and "@values" (map keys and values).
class SizeEstimator {
 public:
  virtual ~SizeEstimator() = default;
  // The size range of the value at `path` (whose static type is `type`),
  // or std::nullopt when unknown.
  virtual std::optional<SizeEstimate> EstimateSize(
      absl::Span<const std::string> path, const Type& type) const = 0;
};

// Sizes under the DRA `device` variable (driver <= 63 code points,
// attribute and capacity maps <= 32 entries keyed by domains <= 63 and ids
// <= 32, attribute values <= 64), as Kubernetes declares them.
std::unique_ptr<SizeEstimator> NewDraDeviceSizeEstimator(
    const DraDeviceTypeOptions& options = {});

struct CostOptions {
  // nullptr: no variable sizes are known.
  const SizeEstimator* sizes = nullptr;
  // Whether has() costs 1 (cel-go's default) or 0 (Kubernetes sets
  // PresenceTestHasCost(false)).
  bool presence_test_has_cost = false;
};

// The estimated cost range of evaluating `root`, which `checked` is the
// Check() result of. Errors: kInvalidArgument when `checked` does not
// describe `root` (the root has no type).
absl::StatusOr<CostEstimate> EstimateCost(const Expr& root,
                                          const CheckedExpr& checked,
                                          const CostOptions& options = {});

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_COST_ESTIMATOR_H_
