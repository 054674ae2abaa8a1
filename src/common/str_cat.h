// String concatenation that accepts std::string_view.
//
// Debian 12's abseil (20220623) is built with its own absl::string_view, so
// absl::StrCat rejects std::string_view arguments. draplane::StrCat adapts
// them and otherwise behaves exactly like absl::StrCat.
#ifndef DRAPLANE_COMMON_STR_CAT_H_
#define DRAPLANE_COMMON_STR_CAT_H_

#include <string>
#include <string_view>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace draplane {
namespace str_cat_internal {

template <class T>
decltype(auto) Adapt(const T& value) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return absl::string_view(value.data(), value.size());
  } else {
    return (value);
  }
}

}  // namespace str_cat_internal

template <class... Args>
std::string StrCat(const Args&... args) {
  return absl::StrCat(str_cat_internal::Adapt(args)...);
}

template <class... Args>
void StrAppend(std::string* out, const Args&... args) {
  absl::StrAppend(out, str_cat_internal::Adapt(args)...);
}

// The message of `status` as a std::string.
inline std::string StatusMessage(const absl::Status& status) {
  return std::string(status.message());
}

// A std::string_view over an absl::string_view.
inline std::string_view ToStd(absl::string_view s) {
  return std::string_view(s.data(), s.size());
}

}  // namespace draplane

#endif  // DRAPLANE_COMMON_STR_CAT_H_
