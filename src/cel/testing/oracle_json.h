// Test support: CEL values in the JSON form that the reference tool prints
// (`draref cel eval --plain`, tests/reference/celeval ToJSON), so that
// expected results can be taken from it verbatim.
//
// bool, int, uint and double as JSON numbers (NaN and infinities as the
// strings "NaN", "+Inf", "-Inf"), strings as strings, bytes as base64,
// null as null, lists as arrays, maps as objects keyed by the rendering of
// the key, optionals as their value or null, timestamps and durations in
// their CEL string form, opaque values by DebugString (for kubernetes.URL
// that is the URL's String()). Compare with nlohmann::json's operator==,
// which treats 3 and 3.0 alike, as the reference's output does.
#ifndef DRAPLANE_CEL_TESTING_ORACLE_JSON_H_
#define DRAPLANE_CEL_TESTING_ORACLE_JSON_H_

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "cel/internal/value.h"
#include "nlohmann/json.hpp"

namespace draplane::cel::testing {

inline std::string Base64(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16 |
                 static_cast<unsigned char>(in[i + 1]) << 8 |
                 static_cast<unsigned char>(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(v >> s) & 63];
  }
  if (i < in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

inline nlohmann::json OracleJson(const internal::Value& v) {
  using internal::ValueKind;
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
    case ValueKind::kBytes:
      return Base64(v.string_value());
    case ValueKind::kList: {
      nlohmann::json out = nlohmann::json::array();
      for (const internal::Value& e : v.list()) out.push_back(OracleJson(e));
      return out;
    }
    case ValueKind::kMap: {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& e : v.map().entries()) {
        nlohmann::json key = OracleJson(e.key);
        out[key.is_string() ? key.get<std::string>() : key.dump()] =
            OracleJson(e.value);
      }
      return out;
    }
    case ValueKind::kOptional:
      return v.optional_has_value() ? OracleJson(v.optional_value()) : nullptr;
    case ValueKind::kTimestamp:
      return internal::FormatTimestamp(v.timestamp_seconds(),
                                       v.timestamp_nanos());
    case ValueKind::kDuration:
      return internal::FormatDuration(v.duration_nanos());
    case ValueKind::kType:
      return std::string(v.type_name());
    case ValueKind::kOpaque:
      return v.opaque().DebugString();
    case ValueKind::kError:
      return "error: " + std::string(v.error_message());
  }
  return nullptr;
}

// The CEL value of a JSON document as the reference binds --var values:
// integral numbers as int, other numbers as double, arrays as lists,
// objects as maps with string keys.
inline internal::Value FromOracleJson(const nlohmann::json& j) {
  using internal::Value;
  switch (j.type()) {
    case nlohmann::json::value_t::boolean:
      return Value::Bool(j.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return Value::Int(j.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return Value::Int(static_cast<int64_t>(j.get<uint64_t>()));
    case nlohmann::json::value_t::number_float:
      return Value::Double(j.get<double>());
    case nlohmann::json::value_t::string:
      return Value::String(j.get<std::string>());
    case nlohmann::json::value_t::array: {
      std::vector<Value> elements;
      for (const auto& e : j) elements.push_back(FromOracleJson(e));
      return Value::List(std::move(elements));
    }
    case nlohmann::json::value_t::object: {
      std::vector<std::pair<Value, Value>> entries;
      for (const auto& [k, v] : j.items()) {
        entries.emplace_back(Value::String(k), FromOracleJson(v));
      }
      return Value::Map(std::move(entries));
    }
    default:
      return Value::Null();
  }
}

}  // namespace draplane::cel::testing

#endif  // DRAPLANE_CEL_TESTING_ORACLE_JSON_H_
