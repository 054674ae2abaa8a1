// The JSON text of metav1.Time and metav1.MicroTime decoded from protobuf.
#ifndef DRAPLANE_PROTOBUF_INTERNAL_GO_TIME_H_
#define DRAPLANE_PROTOBUF_INTERNAL_GO_TIME_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace draplane::protobuf::internal {

enum class TimePrecision {
  // metav1.Time: Unmarshal keeps only the seconds (time_proto.go) and
  // MarshalJSON writes RFC 3339 ("2006-01-02T15:04:05Z").
  kSeconds,
  // metav1.MicroTime: Unmarshal truncates nanos toward zero to microseconds
  // (micro_time_proto.go) and MarshalJSON writes RFC3339Micro
  // ("2006-01-02T15:04:05.000000Z").
  kMicros,
};

// The JSON string of the time `seconds`/`nanos` (a protobuf Timestamp that
// was present and non-empty on the wire) in UTC, or nullopt when the result
// is Go's zero time (0001-01-01T00:00:00Z), which MarshalJSON writes as null.
// Like time.Unix, nanos outside [0, 1e9) carry into the seconds.
// InvalidArgument when the year is outside 0..9999: Go would write a string
// that RFC 3339 parsers, upstream's included, refuse to read back.
absl::StatusOr<std::optional<std::string>> FormatGoTime(
    int64_t seconds, int32_t nanos, TimePrecision precision);

}  // namespace draplane::protobuf::internal

#endif  // DRAPLANE_PROTOBUF_INTERNAL_GO_TIME_H_
