#include "component_helpers/taints.h"

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>

namespace draplane::component_helpers {
namespace {

// content.IsDecimalInteger followed by strconv.ParseInt(v, 10, 64).
std::optional<int64_t> ParseDecimalInteger(const std::string& v) {
  if (v.empty()) return std::nullopt;
  size_t i = v[0] == '-' ? 1 : 0;
  if (i == v.size()) return std::nullopt;
  if (v[i] == '0' && !(v.size() == 1)) return std::nullopt;  // "-0", "01"
  for (size_t j = i; j < v.size(); ++j) {
    if (v[j] < '0' || v[j] > '9') return std::nullopt;
  }
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || ptr != v.data() + v.size()) return std::nullopt;
  return out;
}

}  // namespace

bool ToleratesTaint(const api::Toleration& toleration, const api::Taint& taint,
                    const TolerationOptions& options) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) {
    return false;
  }
  if (!toleration.key.empty() && toleration.key != taint.key) return false;
  const std::string& op = toleration.operator_;
  if (op.empty() || op == "Equal") return toleration.value == taint.value;
  if (op == "Exists") return true;
  if (op == "Lt" || op == "Gt") {
    if (!options.enable_comparison_operators) return false;
    std::optional<int64_t> tol = ParseDecimalInteger(toleration.value);
    if (!tol) return false;
    std::optional<int64_t> val = ParseDecimalInteger(taint.value);
    if (!val) return false;
    return op == "Lt" ? *val < *tol : *val > *tol;
  }
  return false;
}

bool TolerationsTolerateTaint(const std::vector<api::Toleration>& tolerations,
                              const api::Taint& taint,
                              const TolerationOptions& options) {
  for (const api::Toleration& t : tolerations) {
    if (ToleratesTaint(t, taint, options)) return true;
  }
  return false;
}

}  // namespace draplane::component_helpers
