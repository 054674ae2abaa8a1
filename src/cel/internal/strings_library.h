// The cel-go strings extension (ext.Strings) at version 2, as Kubernetes'
// CEL environment enables it (Kubernetes 1.29 and later): charAt, indexOf,
// lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim,
// join, strings.quote and format (see string_format.h). `reverse` (version
// 3) is not provided. Indexes count code points.
//
// Runtime costs are those of the Kubernetes environment, whose
// library.CostEstimator (k8s.io/apiserver pkg/cel/library/cost.go) decides
// by function name before cel-go's defaults: charAt 1; indexOf and
// lastIndexOf floor(bytes of the receiver * 0.1); lowerAscii, upperAscii,
// substring and trim ceil(code points of the receiver * 0.1); replace and
// split ceil(code points of the receiver * 0.2); join ceil(code points of
// the result * 0.2); strings.quote and format (cel-go's defaults)
// ceil(code points of the first argument * 0.1).
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_STRINGS_LIBRARY_H_
#define DRAPLANE_CEL_INTERNAL_STRINGS_LIBRARY_H_

#include "absl/status/status.h"
#include "cel/internal/interpreter.h"

namespace draplane::cel::internal {

// Registers the strings extension functions into `registry`.
absl::Status RegisterStringsFunctions(FunctionRegistry* registry);

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_STRINGS_LIBRARY_H_
