// Node taints and pod tolerations, as k8s.io/api core/v1
// (Toleration.ToleratesTaint) and k8s.io/component-helpers
// scheduling/corev1 (TolerationsTolerateTaint) define them; shared by the
// scheduler's filters and the node lifecycle controller's eviction.
#ifndef DRAPLANE_COMPONENT_HELPERS_TAINTS_H_
#define DRAPLANE_COMPONENT_HELPERS_TAINTS_H_

#include <vector>

#include "api/core_types.h"

namespace draplane::component_helpers {

struct TolerationOptions {
  // Toleration operators Lt/Gt (feature gate
  // TaintTolerationComparisonOperators: alpha since 1.35, off by default up
  // to 1.37). When false such a toleration tolerates nothing.
  bool enable_comparison_operators = false;
};

// Upstream ToleratesTaint: effect empty or equal; key empty (operator must
// then be Exists) or equal; operator ""/Equal compares values, Exists
// matches any value, Lt/Gt compare decimal integers (taint value < / >
// toleration value) when enabled; anything else tolerates nothing.
bool ToleratesTaint(const api::Toleration& toleration, const api::Taint& taint,
                    const TolerationOptions& options = {});

// Upstream TolerationsTolerateTaint: some toleration tolerates `taint`.
bool TolerationsTolerateTaint(const std::vector<api::Toleration>& tolerations,
                              const api::Taint& taint,
                              const TolerationOptions& options = {});

}  // namespace draplane::component_helpers

#endif  // DRAPLANE_COMPONENT_HELPERS_TAINTS_H_
