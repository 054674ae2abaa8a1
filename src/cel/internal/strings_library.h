// The cel-go strings extension (ext.Strings) at version 2, as Kubernetes'
// CEL environment enables it (Kubernetes 1.29 and later): charAt, indexOf,
// lastIndexOf, lowerAscii, upperAscii, replace, split, substring, trim,
// join and strings.quote. `format` and `reverse` (version 3) are not
// provided. Indexes count code points.
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
