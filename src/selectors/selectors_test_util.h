// Helpers of the selector tests: label sets, Status messages and JSON
// objects from text.
#ifndef DRAPLANE_SELECTORS_SELECTORS_TEST_UTIL_H_
#define DRAPLANE_SELECTORS_SELECTORS_TEST_UTIL_H_

#include <map>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "api/meta_types.h"

namespace draplane::selectors::selectors_test {

using Labels = std::map<std::string, std::string>;

inline std::string Msg(const absl::Status& s) {
  return std::string(s.message());
}

inline api::Json J(std::string_view text) {
  return api::Json::parse(text.begin(), text.end());
}

}  // namespace draplane::selectors::selectors_test

#endif  // DRAPLANE_SELECTORS_SELECTORS_TEST_UTIL_H_
