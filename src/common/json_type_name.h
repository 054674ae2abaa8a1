// The names Go's encoding/json gives JSON value kinds in its decode errors
// ("expected string, got number"), for the strict decoders of documents
// draplane reads like Go programs do (CDI specs, NVIDIA's opaque configs).
#ifndef DRAPLANE_COMMON_JSON_TYPE_NAME_H_
#define DRAPLANE_COMMON_JSON_TYPE_NAME_H_

#include <string_view>

#include "nlohmann/json.hpp"

namespace draplane {

inline std::string_view JsonTypeName(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::object:
      return "object";
    case nlohmann::json::value_t::array:
      return "array";
    case nlohmann::json::value_t::string:
      return "string";
    case nlohmann::json::value_t::boolean:
      return "bool";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float:
      return "number";
    default:
      return "value";
  }
}

}  // namespace draplane

#endif  // DRAPLANE_COMMON_JSON_TYPE_NAME_H_
