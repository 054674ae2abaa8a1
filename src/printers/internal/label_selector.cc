#include "printers/internal/label_selector.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_join.h"
#include "common/str_cat.h"
#include "printers/internal/json_access.h"

namespace draplane::printers::internal {
namespace {

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most 63 characters
// (validation.IsQualifiedName's name part and IsValidLabelValue).
bool IsLabelName(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  if (!IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// validation.IsDNS1123Subdomain.
bool IsDns1123Subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view label =
        s.substr(start, dot == std::string_view::npos ? std::string_view::npos
                                                      : dot - start);
    if (label.empty()) return false;
    auto lower_alnum = [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    };
    if (!lower_alnum(label.front()) || !lower_alnum(label.back())) {
      return false;
    }
    for (char c : label) {
      if (!lower_alnum(c) && c != '-') return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// validation.IsQualifiedName: [prefix/]name.
bool IsQualifiedName(std::string_view s) {
  size_t slash = s.find('/');
  if (slash == std::string_view::npos) return IsLabelName(s);
  if (s.find('/', slash + 1) != std::string_view::npos) return false;
  return IsDns1123Subdomain(s.substr(0, slash)) &&
         IsLabelName(s.substr(slash + 1));
}

// validation.IsValidLabelValue.
bool IsLabelValue(std::string_view s) { return s.empty() || IsLabelName(s); }

struct Requirement {
  std::string key;
  std::string op;  // "=", "in", "notin", "exists", "!"
  std::vector<std::string> values;

  std::string String() const {
    if (op == "exists") return key;
    if (op == "!") return StrCat("!", key);
    if (op == "=") return StrCat(key, "=", values.empty() ? "" : values[0]);
    std::vector<std::string> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    return StrCat(key, " ", op, " (", absl::StrJoin(sorted, ","), ")");
  }
};

absl::Status CheckRequirement(const Requirement& r) {
  if (!IsQualifiedName(r.key)) {
    return absl::InvalidArgumentError(
        StrCat("key: Invalid value: \"", r.key, "\": not a qualified name"));
  }
  if ((r.op == "in" || r.op == "notin") && r.values.empty()) {
    return absl::InvalidArgumentError(
        "values: Invalid value: for 'in', 'notin' operators, values set "
        "can't be empty");
  }
  if ((r.op == "exists" || r.op == "!") && !r.values.empty()) {
    return absl::InvalidArgumentError(
        "values: Invalid value: values set must be empty for exists and does "
        "not exist");
  }
  for (const std::string& value : r.values) {
    if (!IsLabelValue(value)) {
      return absl::InvalidArgumentError(StrCat(
          "values: Invalid value: \"", value, "\": not a valid label value"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> LabelSelectorString(const api::Json* selector) {
  if (!IsSet(selector) || !selector->is_object()) return std::string();
  std::vector<Requirement> requirements;
  const api::Json* match_labels = Member(selector, "matchLabels");
  if (match_labels != nullptr && match_labels->is_object()) {
    for (auto it = match_labels->begin(); it != match_labels->end(); ++it) {
      requirements.push_back({it.key(), "=", {StringValue(&it.value())}});
    }
  }
  for (const api::Json& expression :
       ArrayItems(Member(selector, "matchExpressions"))) {
    Requirement r;
    r.key = StringValue(Member(&expression, "key"));
    std::string op = StringValue(Member(&expression, "operator"));
    if (op == "In") {
      r.op = "in";
    } else if (op == "NotIn") {
      r.op = "notin";
    } else if (op == "Exists") {
      r.op = "exists";
    } else if (op == "DoesNotExist") {
      r.op = "!";
    } else {
      return absl::InvalidArgumentError(
          StrCat("\"", op, "\" is not a valid label selector operator"));
    }
    for (const api::Json& value : ArrayItems(Member(&expression, "values"))) {
      r.values.push_back(StringValue(&value));
    }
    requirements.push_back(std::move(r));
  }
  for (const Requirement& r : requirements) {
    absl::Status status = CheckRequirement(r);
    if (!status.ok()) return status;
  }
  // internalSelector.Add sorts by key.
  std::stable_sort(
      requirements.begin(), requirements.end(),
      [](const Requirement& a, const Requirement& b) { return a.key < b.key; });
  std::vector<std::string> parts;
  parts.reserve(requirements.size());
  for (const Requirement& r : requirements) parts.push_back(r.String());
  return absl::StrJoin(parts, ",");
}

}  // namespace draplane::printers::internal
