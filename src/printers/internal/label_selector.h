// metav1.LabelSelector as the printers show it.
#ifndef DRAPLANE_PRINTERS_INTERNAL_LABEL_SELECTOR_H_
#define DRAPLANE_PRINTERS_INTERNAL_LABEL_SELECTOR_H_

#include <string>

#include "absl/status/statusor.h"
#include "api/meta_types.h"

namespace draplane::printers::internal {

// Upstream metav1.LabelSelectorAsSelector(selector).String()
// (apimachinery pkg/apis/meta/v1/helpers.go, pkg/labels/selector.go):
// requirements sorted by key and joined with ",": "k=v", "k in (a,b)",
// "k notin (a,b)", "k", "!k"; the values of in/notin sorted. An absent or
// null selector (labels.Nothing()) and an empty one (labels.Everything())
// both give "". Fails with InvalidArgument where upstream's
// LabelSelectorAsSelector fails: an unknown operator, values given to
// Exists/DoesNotExist or missing for In/NotIn, a key that is not a
// qualified name, a value that is not a label value.
absl::StatusOr<std::string> LabelSelectorString(const api::Json* selector);

}  // namespace draplane::printers::internal

#endif  // DRAPLANE_PRINTERS_INTERNAL_LABEL_SELECTOR_H_
