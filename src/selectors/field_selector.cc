// Field selectors: k8s.io/apimachinery@v0.37.2 pkg/fields/selector.go.

#include <algorithm>
#include <utility>

#include "absl/strings/str_join.h"
#include "common/go_strconv.h"
#include "common/str_cat.h"
#include "selectors/selectors.h"

namespace draplane::selectors {
namespace {

// splitTerms: split at commas not escaped by a backslash; the backslashes
// stay in the terms. Working on bytes gives the same result as upstream's
// loop over runes: ',' and '\' never occur inside a multi-byte sequence.
std::vector<std::string> SplitTerms(std::string_view selector) {
  std::vector<std::string> terms;
  if (selector.empty()) return terms;
  size_t start = 0;
  bool in_slash = false;
  for (size_t i = 0; i < selector.size(); ++i) {
    char c = selector[i];
    if (in_slash) {
      in_slash = false;
    } else if (c == '\\') {
      in_slash = true;
    } else if (c == ',') {
      terms.emplace_back(selector.substr(start, i - start));
      start = i + 1;
    }
  }
  terms.emplace_back(selector.substr(start));
  return terms;
}

struct SplitTermResult {
  std::string_view lhs;
  std::string_view op;
  std::string_view rhs;
};

// splitTerm: the first position where "!=", "==" or "=" starts (tried in
// that order, so "a==b" is a "==" term with value "b").
std::optional<SplitTermResult> SplitTerm(std::string_view term) {
  static constexpr std::string_view kOperators[] = {"!=", "==", "="};
  for (size_t i = 0; i < term.size(); ++i) {
    std::string_view rest = term.substr(i);
    for (std::string_view op : kOperators) {
      if (rest.substr(0, op.size()) == op) {
        return SplitTermResult{term.substr(0, i), op,
                               term.substr(i + op.size())};
      }
    }
  }
  return std::nullopt;
}

std::string_view LookupOrEmpty(const std::map<std::string, std::string>& m,
                               const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? std::string_view() : std::string_view(it->second);
}

}  // namespace

std::string EscapeFieldValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\' || c == ',' || c == '=') out += '\\';
    out += c;
  }
  return out;
}

absl::StatusOr<std::string> UnescapeFieldValue(std::string_view s) {
  if (s.find_first_of("\\,=") == std::string_view::npos) {
    return std::string(s);
  }
  // Upstream loops over runes and writes them back, so each byte of invalid
  // UTF-8 comes out as U+FFFD.
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(s.size());
  bool in_slash = false;
  size_t i = 0;
  while (i < s.size()) {
    char32_t rune = 0;
    size_t n = DecodeRune(s, i, &rune);
    if (n == 0) rune = 0xFFFD;  // Go's utf8.RuneError
    std::string_view encoded = n == 0 ? kReplacement : s.substr(i, n);
    i += n == 0 ? 1 : n;
    if (in_slash) {
      if (rune == '\\' || rune == ',' || rune == '=') {
        out.append(encoded);
      } else {
        return absl::InvalidArgumentError(StrCat(
            "invalid field selector: invalid escape sequence: \\", encoded));
      }
      in_slash = false;
      continue;
    }
    if (n == 1 && rune == '\\') {
      in_slash = true;
    } else if (n == 1 && (rune == ',' || rune == '=')) {
      // Go prints the rune with %v: its number.
      return absl::InvalidArgumentError(
          StrCat("invalid field selector: unescaped character in value: ",
                 static_cast<int>(rune)));
    } else {
      out.append(encoded);
    }
  }
  if (in_slash) {
    return absl::InvalidArgumentError(
        "invalid field selector: invalid escape sequence: \\");
  }
  return out;
}

bool FieldSelector::Matches(const FieldLookup& lookup) const {
  for (const FieldRequirement& r : requirements_) {
    std::string have = lookup(r.field).value_or("");
    if ((have == r.value) != (r.op == FieldOperator::kEquals)) return false;
  }
  return true;
}

bool FieldSelector::Matches(
    const std::map<std::string, std::string>& fields) const {
  for (const FieldRequirement& r : requirements_) {
    std::string_view have = LookupOrEmpty(fields, r.field);
    if ((have == r.value) != (r.op == FieldOperator::kEquals)) return false;
  }
  return true;
}

std::string FieldSelector::String() const {
  std::vector<std::string> terms;
  terms.reserve(requirements_.size());
  for (const FieldRequirement& r : requirements_) {
    terms.push_back(StrCat(r.field, r.op == FieldOperator::kEquals ? "=" : "!=",
                           EscapeFieldValue(r.value)));
  }
  return absl::StrJoin(terms, ",");
}

std::optional<std::string> FieldSelector::RequiresExactMatch(
    std::string_view field) const {
  for (const FieldRequirement& r : requirements_) {
    if (r.op == FieldOperator::kEquals && r.field == field) return r.value;
  }
  return std::nullopt;
}

absl::StatusOr<FieldSelector> ParseFieldSelector(std::string_view text) {
  std::vector<std::string> parts = SplitTerms(text);
  std::sort(parts.begin(), parts.end());
  std::vector<FieldRequirement> requirements;
  for (const std::string& part : parts) {
    if (part.empty()) continue;
    std::optional<SplitTermResult> term = SplitTerm(part);
    if (!term) {
      return absl::InvalidArgumentError(StrCat(
          "invalid selector: '", text, "'; can't understand '", part, "'"));
    }
    absl::StatusOr<std::string> value = UnescapeFieldValue(term->rhs);
    if (!value.ok()) return value.status();
    // Transform (even the identity one ParseSelector applies) drops a term
    // whose field and value are both empty.
    if (term->lhs.empty() && value->empty()) continue;
    requirements.push_back(FieldRequirement{
        std::string(term->lhs),
        term->op == "!=" ? FieldOperator::kNotEquals : FieldOperator::kEquals,
        *std::move(value)});
  }
  return FieldSelector(std::move(requirements));
}

}  // namespace draplane::selectors
