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

// A []string as apimachinery's field errors print it (JSON; nil = null).
std::string JsonList(const std::vector<std::string>& values) {
  if (values.empty()) return "null";
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    StrAppend(&out, i ? "," : "", StrconvQuote(values[i]));
  }
  return out + "]";
}

// Validates one label requirement like labels.NewRequirement (key and
// value syntax are not checked); appends upstream's error texts.
void CheckLabelRequirement(const api::NodeSelectorRequirement& r,
                           const std::string& path,
                           std::vector<std::string>& errors) {
  const std::string& op = r.operator_;
  const std::string values = StrCat(path, ".values");
  if (op == "In" || op == "NotIn") {
    if (r.values.empty()) {
      errors.push_back(StrCat(values,
                              ": Invalid value: null: for 'in', "
                              "'notin' operators, values set can't be empty"));
    }
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (!r.values.empty()) {
      errors.push_back(StrCat(values, ": Invalid value: ", JsonList(r.values),
                              ": values set must be empty for exists and "
                              "does not exist"));
    }
  } else if (op == "Gt" || op == "Lt") {
    if (r.values.size() != 1) {
      errors.push_back(StrCat(values, ": Invalid value: ", JsonList(r.values),
                              ": for 'Gt', 'Lt' operators, exactly one value "
                              "is required"));
    }
    for (size_t i = 0; i < r.values.size(); ++i) {
      if (!ParseInt64(r.values[i])) {
        errors.push_back(StrCat(values, "[", i,
                                "]: Invalid value: ", StrconvQuote(r.values[i]),
                                ": for 'Gt', 'Lt' operators, the value must "
                                "be an integer"));
      }
    }
  } else {
    errors.push_back(StrCat(path,
                            ".operator: Unsupported value: ", StrconvQuote(op),
                            ": supported values: \"In\", \"NotIn\", "
                            "\"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\""));
  }
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
    if (term.match_expressions.empty() && term.match_fields.empty()) continue;
    for (size_t i = 0; i < term.match_expressions.size(); ++i) {
      CheckLabelRequirement(term.match_expressions[i],
                            StrCat(path, ".matchExpressions[", i, "]"), errors);
    }
    for (size_t i = 0; i < term.match_fields.size(); ++i) {
      const api::NodeSelectorRequirement& r = term.match_fields[i];
      const std::string p = StrCat(path, ".matchFields[", i, "]");
      if (r.operator_ == "In" || r.operator_ == "NotIn") {
        if (r.values.size() != 1) {
          errors.push_back(
              StrCat(p, ".values: Invalid value: ", JsonList(r.values),
                     ": must have one element"));
        }
      } else {
        errors.push_back(StrCat(
            p, ".operator: Unsupported value: ", StrconvQuote(r.operator_),
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

namespace {

std::string GoList(const std::vector<std::string>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i)
    StrAppend(&out, i ? " " : "", values[i]);
  return out + "]";
}

std::string RequirementsString(
    const std::vector<api::NodeSelectorRequirement>& rs) {
  std::string out = "[]NodeSelectorRequirement{";
  for (const auto& r : rs) {
    StrAppend(&out, "NodeSelectorRequirement{Key:", r.key,
              ",Operator:", r.operator_, ",Values:", GoList(r.values), ",},");
  }
  return out + "}";
}

}  // namespace

std::string NodeSelectorGoString(const api::NodeSelector& selector) {
  std::string out = "&NodeSelector{NodeSelectorTerms:[]NodeSelectorTerm{";
  for (const auto& t : selector.node_selector_terms) {
    StrAppend(&out, "NodeSelectorTerm{MatchExpressions:",
              RequirementsString(t.match_expressions),
              ",MatchFields:", RequirementsString(t.match_fields), ",},");
  }
  return out + "},}";
}

}  // namespace draplane::allocator::internal
