// The CEL standard definitions (cel-spec langdef "Standard Definitions",
// cel-go checker/stdlib + interpreter/functions) and the optional-types
// library, as FunctionOverloads.
//
// Registered: the arithmetic, ordering, logical and membership operators
// (`_+_`, `_<_`, `!_`, `@in`, `@not_strictly_false`, ...; `&&`, `||`, `?:`,
// `==`, `!=`, `[]` and `.?` are evaluated by the interpreter itself), size,
// contains/startsWith/endsWith, matches (RE2, substring match; constant
// patterns are compiled once at plan time), the conversions int, uint,
// double, string, bytes, bool, dyn, type, duration, timestamp, the
// timestamp and duration accessors (with optional time zone: IANA name or
// "+HH:MM"/"-HH:MM"/"HH:MM"), and optional.of/ofNonZeroValue/none,
// hasValue, value, orValue, or.
//
// Runtime costs follow cel-go interpreter/runtimecost.go: 1 per call except
// the size-proportional overloads listed there.
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_STANDARD_LIBRARY_H_
#define DRAPLANE_CEL_INTERNAL_STANDARD_LIBRARY_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "cel/internal/interpreter.h"

namespace draplane::cel::internal {

// Adds the standard overloads to `registry`. Fails if any of them is
// already registered.
absl::Status RegisterStandardFunctions(FunctionRegistry* registry);

// Time-zone handling shared with extension libraries: applies cel-go's
// rules to `tz` (an IANA name such as "America/Los_Angeles" or "UTC", or a
// fixed offset "+01:00", "-08:30", "02:00") and returns the UTC offset in
// seconds of that zone at the given instant, or false when `tz` is invalid.
bool TimeZoneOffset(std::string_view tz, int64_t unix_seconds,
                    int64_t* offset_seconds);

// Parses a Go-style duration ("1h30m", "-1.5s", "0", "100ms") into
// nanoseconds; false on syntax error or overflow.
bool ParseDuration(std::string_view text, int64_t* nanos);

// Parses an RFC 3339 timestamp; false on syntax error. The range is not
// checked.
bool ParseTimestamp(std::string_view text, int64_t* seconds, int32_t* nanos);

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_STANDARD_LIBRARY_H_
