// The strings extension's `format` as Kubernetes runs it:
// ext.Strings(ext.StringsVersion(2)) in cel-go v0.29.2 uses the original
// formatter (ext/formatting.go, parseFormatString with stringFormatter), not
// the cel-spec one of version 4 and later (formatting_v2.go), with the
// locale "en_US" (Kubernetes sets none) and no precision limit.
//
// Clauses: %% (a literal '%'), and %s %d %f %e %b %x %X %o, each with an
// optional precision ".N" that only %f (fraction digits) and %e use. What
// this formatter does that the cel-spec one does not (and the conformance
// tests written for the latter expect otherwise):
//   - %f and %e go through golang.org/x/text/message with en-US number
//     formatting: %f groups thousands ("1,234.500000"); %e writes
//     "1.052033×10⁰³" (always 6 fraction digits, exponent in superscript,
//     at least two digits) and uses the precision as a minimum width,
//     padding with spaces on the left (so plain %e pads to 6 runes); both
//     write NaN as "NaN" and infinities as "∞" and "-∞". Only doubles and
//     the strings "NaN", "Infinity" and "-Infinity" are accepted, no ints.
//   - %d accepts only int and uint.
//   - %s on a list or map writes the elements as CEL literals: strings
//     Go-quoted ("abc"), bytes as b"..", doubles as %.6f (3.140000; NaN and
//     infinities as "NaN", "+Inf", "-Inf" in quotes), timestamps and
//     durations as timestamp("...") and duration("..."), entries of maps as
//     key:value sorted by the rendered key.
// Errors carry cel-go's messages ("index 2 out of range", "could not parse
// formatting clause: unrecognized formatting clause \"a\"", "error during
// formatting: decimal clause can only be used on integers, was given
// double", ...).
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_STRING_FORMAT_H_
#define DRAPLANE_CEL_INTERNAL_STRING_FORMAT_H_

#include <string_view>

#include "absl/types/span.h"
#include "cel/internal/value.h"

namespace draplane::cel::internal {

// `format.format(args)`: the formatted string, or an error value. Arguments
// beyond those the clauses use are ignored (cel-go rejects them only at
// compile time, for a literal format string and list).
Value FormatString(std::string_view format, absl::Span<const Value> args);

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_STRING_FORMAT_H_
