// JSON values seen the way upstream's Go code sees them after decoding into
// interface{} (k8s.io/apimachinery/pkg/util/json: integers become int64,
// other numbers float64): their dynamic type, `==` between them, and how
// fmt's %v prints them in error messages.
//
// Internal to the patch component.
#ifndef DRAPLANE_PATCH_INTERNAL_GO_VALUES_H_
#define DRAPLANE_PATCH_INTERNAL_GO_VALUES_H_

#include <string>

#include "absl/status/status.h"
#include "api/meta_types.h"

namespace draplane::patch::internal {

using api::Json;

// The Go dynamic type of a decoded JSON value. Integers that fit in int64
// are kInt; other numbers are kFloat.
enum class GoKind { kNull, kBool, kString, kInt, kFloat, kObject, kArray };

GoKind KindOf(const Json& value);

// Equality of two decoded values: same GoKind and same value; objects and
// arrays compare deeply (Go's `==` panics on them; see callers).
bool GoEqual(const Json& a, const Json& b);

// fmt's %v: strings bare, floats as %g with shortest digits ("1e+06",
// "1.5"), null as "<nil>", arrays as "[a b]", objects as "map[k:v k2:v2]"
// with keys sorted.
std::string GoString(const Json& value);

// reflect.TypeOf(value).String() as printed by %s: "map[string]interface
// {}", "[]interface {}", "string", "int64", "float64", "bool"; a null
// prints as "%!s(<nil>)".
std::string GoTypeName(const Json& value);

// How deeply `value` nests arrays and objects: 0 for a scalar, 1 for `[]`
// or `{"a":1}`. Iterative, so safe on any input.
int Depth(const Json& value);

// kInvalidArgument "the document nests deeper than 512 levels" (or "the
// patch ...") when `original` or `patch` nests deeper than kMaxJsonDepth.
absl::Status CheckDepth(const Json& original, const Json& patch);

}  // namespace draplane::patch::internal

#endif  // DRAPLANE_PATCH_INTERNAL_GO_VALUES_H_
