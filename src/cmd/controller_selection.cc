#include "cmd/controller_selection.h"

#include "absl/strings/str_split.h"
#include "common/str_cat.h"

namespace draplane::cmd {

std::vector<std::string> KnownControllers() {
  return {std::string(kResourceClaimController),
          std::string(kNodeLifecycleController),
          std::string(kResourceQuotaController), std::string(kDraMonitor)};
}

absl::StatusOr<std::set<std::string>> SelectControllers(std::string_view spec) {
  const std::vector<std::string> known = KnownControllers();
  std::vector<std::string> entries;
  for (absl::string_view e :
       absl::StrSplit(absl::string_view(spec.data(), spec.size()), ',',
                      absl::SkipWhitespace())) {
    std::string entry(e);
    const std::string name = entry.rfind('-', 0) == 0 ? entry.substr(1) : entry;
    if (name != "*" &&
        std::find(known.begin(), known.end(), name) == known.end()) {
      return absl::InvalidArgumentError(
          StrCat("\"", name, "\" is not in the list of known controllers"));
    }
    entries.push_back(std::move(entry));
  }
  std::set<std::string> enabled;
  for (const std::string& name : known) {
    bool star = false;
    bool decided = false;
    for (const std::string& entry : entries) {
      if (entry == name) {
        enabled.insert(name);
        decided = true;
        break;
      }
      if (entry == "-" + name) {
        decided = true;
        break;
      }
      star |= entry == "*";
    }
    // Every draplane controller is on by default.
    if (!decided && star) enabled.insert(name);
  }
  return enabled;
}

}  // namespace draplane::cmd
