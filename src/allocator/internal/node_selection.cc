#include "allocator/internal/node_selection.h"

#include <charconv>
#include <set>

#include "common/go_strconv.h"
#include "common/str_cat.h"

namespace draplane::allocator::internal {
namespace {

std::optional<int64_t> ParseInt64(const std::string& s) {
  int64_t v = 0;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  if (begin != end && *begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, v);
  if (ec != std::errc() || ptr != end || begin == end) return std::nullopt;
  return v;
}

// Validates one label requirement like labels.NewRequirement; returns the
// error text (with field path) or "".
std::string CheckLabelRequirement(const api::NodeSelectorRequirement& r,
                                  const std::string& path) {
  const std::string& op = r.operator_;
  if (op == "In" || op == "NotIn") {
    if (r.values.empty()) {
      return StrCat(path,
                    ".values: Required value: for 'in', 'notin' operators, "
                    "values set can't be empty");
    }
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (!r.values.empty()) {
      return StrCat(path,
                    ".values: Forbidden: values set must be empty for exists "
                    "and does not exist");
    }
  } else if (op == "Gt" || op == "Lt") {
    if (r.values.size() != 1) {
      return StrCat(path,
                    ".values: Required value: for 'Gt', 'Lt' operators, "
                    "exactly one value is required");
    }
    if (!ParseInt64(r.values[0])) {
      return StrCat(path, ".values[0]: Invalid value: ",
                    StrconvQuote(r.values[0]),
                    ": for 'Gt', 'Lt' operators, the value must be an "
                    "integer");
    }
  } else {
    return StrCat(path, ".operator: Unsupported value: ",
                  StrconvQuote(op),
                  ": supported values: \"In\", \"NotIn\", \"Exists\", "
                  "\"DoesNotExist\", \"Gt\", \"Lt\"");
  }
  return "";
}

bool LabelRequirementMatches(const api::NodeSelectorRequirement& r,
                             const std::map<std::string, std::string>& labels) {
  auto it = labels.find(r.key);
  const bool has = it != labels.end();
  const std::string& op = r.operator_;
  auto contains = [&](const std::string& v) {
    for (const std::string& x : r.values) {
      if (x == v) return true;
    }
    return false;
  };
  if (op == "In") return has && contains(it->second);
  if (op == "NotIn") return !has || !contains(it->second);
  if (op == "Exists") return has;
  if (op == "DoesNotExist") return !has;
  if (op == "Gt" || op == "Lt") {
    if (!has) return false;
    auto lv = ParseInt64(it->second);
    auto rv = ParseInt64(r.values[0]);
    if (!lv || !rv) return false;
    return op == "Gt" ? *lv > *rv : *lv < *rv;
  }
  return false;
}

}  // namespace

absl::StatusOr<bool> NodeMatches(const api::Node& node,
                                 const std::string& node_name, bool all_nodes,
                                 const api::NodeSelector* selector) {
  if (!node_name.empty()) return node.metadata.name == node_name;
  if (all_nodes) return true;
  if (selector == nullptr) return false;

  // Parse (validate) every non-empty term first, like NewNodeSelector.
  std::vector<std::string> errors;
  for (size_t t = 0; t < selector->node_selector_terms.size(); ++t) {
    const api::NodeSelectorTerm& term = selector->node_selector_terms[t];
    const std::string path = StrCat("nodeSelectorTerms[", t, "]");
    for (size_t i = 0; i < term.match_expressions.size(); ++i) {
      std::string e = CheckLabelRequirement(
          term.match_expressions[i],
          StrCat(path, ".matchExpressions[", i, "]"));
      if (!e.empty()) errors.push_back(std::move(e));
    }
    for (size_t i = 0; i < term.match_fields.size(); ++i) {
      const api::NodeSelectorRequirement& r = term.match_fields[i];
      const std::string p = StrCat(path, ".matchFields[", i, "]");
      if (r.operator_ == "In" || r.operator_ == "NotIn") {
        if (r.values.size() != 1) {
          std::string values;
          for (const std::string& v : r.values) {
            StrAppend(&values, values.empty() ? "" : " ", v);
          }
          errors.push_back(StrCat(p, ".values: Invalid value: [", values,
                                  "]: must have one element"));
        }
      } else {
        errors.push_back(StrCat(p, ".operator: Unsupported value: ",
                                StrconvQuote(r.operator_),
                                ": supported values: \"In\", \"NotIn\""));
      }
    }
  }
  if (!errors.empty()) {
    std::string joined;
    if (errors.size() == 1) {
      joined = errors[0];
    } else {
      joined = "[";
      for (size_t i = 0; i < errors.size(); ++i) {
        StrAppend(&joined, i ? ", " : "", errors[i]);
      }
      StrAppend(&joined, "]");
    }
    return absl::InvalidArgumentError(joined);
  }

  for (const api::NodeSelectorTerm& term : selector->node_selector_terms) {
    if (term.match_expressions.empty() && term.match_fields.empty()) continue;
    bool match = true;
    for (const auto& r : term.match_expressions) {
      if (!LabelRequirementMatches(r, node.metadata.labels)) {
        match = false;
        break;
      }
    }
    if (match && !node.metadata.name.empty()) {
      for (const auto& r : term.match_fields) {
        const std::string value =
            r.key == "metadata.name" ? node.metadata.name : std::string();
        const bool equal = value == r.values[0];
        if (r.operator_ == "In" ? !equal : equal) {
          match = false;
          break;
        }
      }
    }
    if (match) return true;
  }
  return false;
}

void AddNewRequirements(const std::vector<api::NodeSelectorRequirement>& from,
                        std::vector<api::NodeSelectorRequirement>& to) {
  for (const api::NodeSelectorRequirement& r : from) {
    const std::set<std::string> values(r.values.begin(), r.values.end());
    bool present = false;
    for (const api::NodeSelectorRequirement& e : to) {
      if (e.key == r.key && e.operator_ == r.operator_ &&
          std::set<std::string>(e.values.begin(), e.values.end()) == values) {
        present = true;
        break;
      }
    }
    if (!present) to.push_back(r);
  }
}

}  // namespace draplane::allocator::internal
