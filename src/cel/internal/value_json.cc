#include "cel/internal/value_json.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "cel/internal/kubernetes_library.h"
#include "common/str_cat.h"

namespace draplane::cel::internal {

Value JsonToValue(const api::Json& j) {
  switch (j.type()) {
    case api::Json::value_t::null:
      return Value::Null();
    case api::Json::value_t::boolean:
      return Value::Bool(j.get<bool>());
    case api::Json::value_t::number_integer:
      return Value::Int(j.get<int64_t>());
    case api::Json::value_t::number_unsigned: {
      uint64_t u = j.get<uint64_t>();
      if (u <= static_cast<uint64_t>(INT64_MAX)) {
        return Value::Int(static_cast<int64_t>(u));
      }
      return Value::Uint(u);
    }
    case api::Json::value_t::number_float:
      return Value::Double(j.get<double>());
    case api::Json::value_t::string:
      return Value::String(j.get<std::string>());
    case api::Json::value_t::array: {
      std::vector<Value> out;
      for (const api::Json& e : j) out.push_back(JsonToValue(e));
      return Value::List(std::move(out));
    }
    case api::Json::value_t::object: {
      std::vector<std::pair<Value, Value>> out;
      for (auto it = j.begin(); it != j.end(); ++it) {
        out.emplace_back(Value::String(it.key()), JsonToValue(it.value()));
      }
      return Value::Map(std::move(out));
    }
    default:
      return Value::Error("unsupported JSON value");
  }
}

api::Json ValueToJson(const Value& v, const ValueJsonStyle& style) {
  switch (v.kind()) {
    case ValueKind::kNull:
      return nullptr;
    case ValueKind::kBool:
      return v.bool_value();
    case ValueKind::kInt:
      return v.int_value();
    case ValueKind::kUint:
      return v.uint_value();
    case ValueKind::kDouble: {
      double d = v.double_value();
      if (std::isnan(d)) return "NaN";
      if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
      return d;
    }
    case ValueKind::kString:
      return std::string(v.string_value());
    case ValueKind::kBytes: {
      std::string out;
      absl::Base64Escape(std::string(v.string_value()), &out);
      return out;
    }
    case ValueKind::kList: {
      api::Json out = api::Json::array();
      for (const Value& e : v.list()) out.push_back(ValueToJson(e, style));
      return out;
    }
    case ValueKind::kMap: {
      api::Json out = api::Json::object();
      for (const auto& e : v.map().entries()) {
        out[KeyText(e.key)] = ValueToJson(e.value, style);
      }
      return out;
    }
    case ValueKind::kType:
      return std::string(v.type_name());
    case ValueKind::kOptional:
      return v.optional_has_value() ? ValueToJson(v.optional_value(), style)
                                    : api::Json(nullptr);
    case ValueKind::kTimestamp:
      return FormatTimestamp(v.timestamp_seconds(), v.timestamp_nanos());
    case ValueKind::kDuration:
      return FormatDuration(v.duration_nanos());
    case ValueKind::kOpaque:
      if (style.opaque_as_string) {
        if (const Quantity* q = AsQuantity(v)) return q->ToString();
        if (const Semver* s = AsSemver(v)) return s->ToString();
      }
      return v.opaque().DebugString();
    case ValueKind::kError:
      if (style.errors_as_text) {
        return StrCat("error: ", v.error_message());
      }
      return nullptr;
  }
  return nullptr;
}

}  // namespace draplane::cel::internal
