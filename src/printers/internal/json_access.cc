#include "printers/internal/json_access.h"

#include <limits>
#include <string>

#include "printers/table_printer.h"

namespace draplane::printers::internal {

const api::Json* Member(const api::Json* object, std::string_view key) {
  if (object == nullptr || !object->is_object()) return nullptr;
  auto it = object->find(std::string(key));
  if (it == object->end()) return nullptr;
  return &*it;
}

const api::Json* Path(const api::Json* object,
                      std::initializer_list<std::string_view> keys) {
  const api::Json* current = object;
  for (std::string_view key : keys) {
    current = Member(current, key);
    if (current == nullptr) return nullptr;
  }
  return current;
}

std::string StringValue(const api::Json* value) {
  if (value == nullptr || !value->is_string()) return "";
  return value->get_ref<const std::string&>();
}

int64_t IntValue(const api::Json* value) {
  if (value == nullptr) return 0;
  if (value->is_number_unsigned()) {
    uint64_t u = value->get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return std::numeric_limits<int64_t>::max();
    }
    return static_cast<int64_t>(u);
  }
  if (value->is_number_integer()) return value->get<int64_t>();
  return 0;
}

bool BoolValue(const api::Json* value) {
  return value != nullptr && value->is_boolean() && value->get<bool>();
}

bool IsSet(const api::Json* value) {
  return value != nullptr && !value->is_null();
}

const api::Json& ArrayItems(const api::Json* value) {
  static const api::Json* const kEmpty = new api::Json(api::Json::array());
  if (value == nullptr || !value->is_array()) return *kEmpty;
  return *value;
}

int64_t ArraySize(const api::Json* value) {
  return static_cast<int64_t>(ArrayItems(value).size());
}

std::optional<absl::Time> TimeValue(const api::Json* value) {
  if (value == nullptr || !value->is_string()) return std::nullopt;
  const std::string& text = value->get_ref<const std::string&>();
  absl::Time time;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, text, &time, &error)) {
    return std::nullopt;
  }
  static const absl::Time kGoZeroTime =
      absl::FromCivil(absl::CivilSecond(1, 1, 1, 0, 0, 0), absl::UTCTimeZone());
  if (time == kGoZeroTime) return std::nullopt;
  return time;
}

std::string TimeSince(const std::optional<absl::Time>& time, absl::Time now) {
  if (!time.has_value()) return "<unknown>";
  return HumanDuration(now - *time);
}

}  // namespace draplane::printers::internal
