// Small pieces of Go's standard library whose exact behaviour shows in
// selector matching and error texts.
#ifndef DRAPLANE_SELECTORS_INTERNAL_GO_FORMAT_H_
#define DRAPLANE_SELECTORS_INTERNAL_GO_FORMAT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace draplane::selectors::internal {

// strconv.ParseInt(s, 10, 64): an optional '+' or '-', then one or more
// ASCII digits, in int64 range. nullopt for anything else.
std::optional<int64_t> GoParseInt64(std::string_view s);

// encoding/json.Marshal of a Go []string: "null" when `is_nil`, else
// ["a","b"] with Go's string escaping (\" \\ \b \f \n \r \t, other control
// characters and < > & U+2028 U+2029 as \u00XX/\u20XX, invalid UTF-8 as
// \ufffd).
std::string GoJsonStrings(const std::vector<std::string>& values, bool is_nil);

}  // namespace draplane::selectors::internal

#endif  // DRAPLANE_SELECTORS_INTERNAL_GO_FORMAT_H_
