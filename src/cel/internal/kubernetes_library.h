// The Kubernetes CEL libraries a DRA selector can use that are specific to
// Kubernetes: Quantity (k8s.io/apiserver pkg/cel/library/quantity.go) and
// Semver (semverlib.go, library version 1 with the normalising overloads),
// as of Kubernetes 1.37 (k8s.io/apiserver v0.37.2).
//
// Values are opaque CEL values of type "kubernetes.Quantity" and
// "kubernetes.Semver" wrapping draplane::Quantity and draplane::Semver;
// `==` compares them by value (Quantity.Equal, semver precedence ignoring
// build metadata), as upstream's Equal methods do. There are no `<`/`+`
// operators on them, only the member functions.
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_KUBERNETES_LIBRARY_H_
#define DRAPLANE_CEL_INTERNAL_KUBERNETES_LIBRARY_H_

#include "absl/status/status.h"
#include "cel/internal/interpreter.h"
#include "cel/internal/value.h"
#include "common/quantity.h"
#include "common/semver.h"

namespace draplane::cel::internal {

inline constexpr char kQuantityTypeName[] = "kubernetes.Quantity";
inline constexpr char kSemverTypeName[] = "kubernetes.Semver";

// A CEL value holding `q` / `v`.
Value QuantityValue(Quantity q);
Value SemverValue(Semver v);

// The wrapped value; REQUIRES: value.kind() == kOpaque with the matching
// type name. Returns nullptr otherwise.
const Quantity* AsQuantity(const Value& value);
const Semver* AsSemver(const Value& value);

// quantity, isQuantity, sign, isGreaterThan, isLessThan, compareTo,
// asApproximateFloat, asInteger, isInteger, add, sub.
absl::Status RegisterQuantityFunctions(FunctionRegistry* registry);

// semver (1 and 2 arguments), isSemver (1 and 2), isGreaterThan, isLessThan,
// compareTo, major, minor, patch.
absl::Status RegisterSemverFunctions(FunctionRegistry* registry);

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_KUBERNETES_LIBRARY_H_
