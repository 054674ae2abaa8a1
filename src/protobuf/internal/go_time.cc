#include "protobuf/internal/go_time.h"

#include <cstdio>

#include "common/str_cat.h"

namespace draplane::protobuf::internal {
namespace {

constexpr int64_t kSecondsPerDay = 86400;
// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
constexpr int64_t kMinSeconds = -62167219200;
constexpr int64_t kMaxSeconds = 253402300799;
// Go's zero time.Time, 0001-01-01T00:00:00Z.
constexpr int64_t kGoZeroSeconds = -62135596800;

struct CivilDate {
  int64_t year;
  int month;
  int day;
};

// The proleptic Gregorian date of `days` since 1970-01-01 (Howard Hinnant's
// civil_from_days).
CivilDate CivilFromDays(int64_t days) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

}  // namespace

absl::StatusOr<std::optional<std::string>> FormatGoTime(
    int64_t seconds, int32_t nanos, TimePrecision precision) {
  int64_t nsec = 0;
  if (precision == TimePrecision::kMicros) {
    // time.Duration(nanos).Truncate(time.Microsecond), then time.Unix's
    // normalization of nsec into [0, 1e9).
    nsec = nanos - nanos % 1000;
  }
  // Range check before normalizing so that nothing can overflow; |nsec| < 3e9.
  if (seconds < kMinSeconds - 3 || seconds > kMaxSeconds + 3) {
    return absl::InvalidArgumentError(
        StrCat("time ", seconds, "s since the epoch is outside years 0-9999"));
  }
  seconds += nsec / 1000000000;
  nsec %= 1000000000;
  if (nsec < 0) {
    nsec += 1000000000;
    --seconds;
  }
  if (seconds < kMinSeconds || seconds > kMaxSeconds) {
    return absl::InvalidArgumentError(
        StrCat("time ", seconds, "s since the epoch is outside years 0-9999"));
  }
  if (seconds == kGoZeroSeconds && nsec == 0) return std::nullopt;

  int64_t days = seconds / kSecondsPerDay;
  int64_t second_of_day = seconds % kSecondsPerDay;
  if (second_of_day < 0) {
    second_of_day += kSecondsPerDay;
    --days;
  }
  const CivilDate date = CivilFromDays(days);
  char buf[96];  // Large enough for any int values, to keep -Wformat-truncation
                 // quiet.
  const int hour = static_cast<int>(second_of_day / 3600);
  const int minute = static_cast<int>(second_of_day / 60 % 60);
  const int second = static_cast<int>(second_of_day % 60);
  if (precision == TimePrecision::kMicros) {
    std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ",
                  static_cast<int>(date.year), date.month, date.day, hour,
                  minute, second, static_cast<int>(nsec / 1000));
  } else {
    std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02dZ",
                  static_cast<int>(date.year), date.month, date.day, hour,
                  minute, second);
  }
  return std::string(buf);
}

}  // namespace draplane::protobuf::internal
