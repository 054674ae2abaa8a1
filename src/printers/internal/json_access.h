// Tolerant, non-throwing reads of object JSON for the printers.
//
// Upstream prints typed Go structs, where an absent field is its zero
// value. These helpers give the same view of JSON: a missing member, a
// null, or a member of the wrong JSON type reads as the zero value ("", 0,
// false, no time, no items). None of them throws.
#ifndef DRAPLANE_PRINTERS_INTERNAL_JSON_ACCESS_H_
#define DRAPLANE_PRINTERS_INTERNAL_JSON_ACCESS_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "api/meta_types.h"

namespace draplane::printers::internal {

// The member `key` of `object`; nullptr when `object` is null, not a JSON
// object, or has no such member.
const api::Json* Member(const api::Json* object, std::string_view key);

// Follows `keys` from `object` (Member after Member).
const api::Json* Path(const api::Json* object,
                      std::initializer_list<std::string_view> keys);

// A string value, or "" when `value` is not a string.
std::string StringValue(const api::Json* value);
// An integer value, or 0 when `value` is not an integer. Unsigned values
// above INT64_MAX read as INT64_MAX.
int64_t IntValue(const api::Json* value);
// A boolean value, or false when `value` is not a boolean.
bool BoolValue(const api::Json* value);
// True when `value` is present and not null (a Go pointer that is set).
bool IsSet(const api::Json* value);

// The elements of an array value; an empty array when `value` is not an
// array. The reference stays valid as long as `value` does.
const api::Json& ArrayItems(const api::Json* value);
// The number of elements of an array value, 0 when it is not an array.
int64_t ArraySize(const api::Json* value);

// A metav1.Time / metav1.MicroTime value: RFC 3339 text, fractional seconds
// allowed. Returns nullopt when `value` is not a string, does not parse, or
// is Go's zero time (0001-01-01T00:00:00Z): upstream's IsZero() cases.
std::optional<absl::Time> TimeValue(const api::Json* value);

// Upstream's translateTimestampSince: "<unknown>" for no time, else
// HumanDuration(now - time).
std::string TimeSince(const std::optional<absl::Time>& time, absl::Time now);

}  // namespace draplane::printers::internal

#endif  // DRAPLANE_PRINTERS_INTERNAL_JSON_ACCESS_H_
