// String splitting on std::string_view (Debian 12's absl::StrSplit takes
// only its own absl::string_view).
#ifndef DRAPLANE_COMMON_STR_SPLIT_H_
#define DRAPLANE_COMMON_STR_SPLIT_H_

#include <string_view>
#include <vector>

namespace draplane {

// The parts of `s` between `sep`s, empty ones included, as Go's
// strings.Split: "" gives {""}, "a," gives {"a", ""}. The parts view `s`.
std::vector<std::string_view> StrSplit(std::string_view s, char sep);

}  // namespace draplane

#endif  // DRAPLANE_COMMON_STR_SPLIT_H_
