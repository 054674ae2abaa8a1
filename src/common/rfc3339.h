// Kubernetes' metav1.Time text: RFC 3339 in UTC with whole seconds
// ("2026-12-01T17:40:47Z"), as timestamps are written in API objects, and
// metav1.MicroTime's.
#ifndef DRAPLANE_COMMON_RFC3339_H_
#define DRAPLANE_COMMON_RFC3339_H_

#include <string>

#include "absl/time/time.h"

namespace draplane {

inline std::string Rfc3339(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

// metav1.MicroTime's text (Lease acquireTime/renewTime, Event eventTime):
// exactly six fractional digits, "2026-12-01T17:40:47.123456Z". The API
// server refuses a MicroTime field in any other form.
inline std::string Rfc3339Micro(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", t, absl::UTCTimeZone());
}

}  // namespace draplane

#endif  // DRAPLANE_COMMON_RFC3339_H_
