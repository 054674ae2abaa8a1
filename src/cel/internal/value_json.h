// CEL values to and from JSON: `draplane cel eval`'s result and --var
// inputs, and (in the reference style) what the reference tool prints
// (`draref cel eval --plain`, tests/reference/celeval ToJSON), so that the
// tests take its output verbatim.
//
// ValueToJson: bool, int, uint and double as JSON numbers (NaN and
// infinities as the strings "NaN", "+Inf", "-Inf"), strings as strings,
// bytes as base64, null as null, lists as arrays, maps as objects keyed by
// the key's text, optionals as their value or null, timestamps and
// durations in their CEL string form, types by name, opaque values by
// DebugString (for kubernetes.URL, the URL's String()).
#ifndef DRAPLANE_CEL_INTERNAL_VALUE_JSON_H_
#define DRAPLANE_CEL_INTERNAL_VALUE_JSON_H_

#include "api/meta_types.h"
#include "cel/internal/value.h"

namespace draplane::cel::internal {

// What differs between `draplane cel eval`'s output (the default) and the
// reference tool's.
struct ValueJsonStyle {
  // Quantities and semvers as their canonical text ("1Gi", "1.2.3") rather
  // than DebugString.
  bool opaque_as_string = true;
  // An error value as "error: <message>" rather than null.
  bool errors_as_text = false;
};

// The reference tool's style.
inline constexpr ValueJsonStyle kReferenceToolStyle{.opaque_as_string = false,
                                                    .errors_as_text = true};

api::Json ValueToJson(const Value& v, const ValueJsonStyle& style = {});

// A JSON document as a CEL value, as the reference tool binds --var values:
// integral numbers as int (uint above the int64 range), other numbers as
// double, arrays as lists, objects as maps with string keys.
Value JsonToValue(const api::Json& j);

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_VALUE_JSON_H_
