// Reading members of JSON from the network or from storage without
// trusting its shape: the wrong type reads as absent, nothing throws.
#ifndef DRAPLANE_API_JSON_MEMBERS_H_
#define DRAPLANE_API_JSON_MEMBERS_H_

#include <string>
#include <string_view>

#include "api/meta_types.h"

namespace draplane::api {

// The string member `key` of `object`; "" when `object` is not an object,
// has no such member or one of another type.
inline std::string StringMemberOrEmpty(const Json& object,
                                       std::string_view key) {
  const Json& v = MemberOrNull(object, key);
  return v.is_string() ? v.get<std::string>() : "";
}

}  // namespace draplane::api

#endif  // DRAPLANE_API_JSON_MEMBERS_H_
