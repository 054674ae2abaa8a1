#include "common/semver.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/field_errors.h"
#include "common/go_strconv.h"
#include "common/str_cat.h"

namespace draplane {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// blang's `alphanum` set: [0-9A-Za-z-].
bool IsAlphanum(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         c == '-';
}

bool ContainsOnlyDigits(std::string_view s) {
  for (char c : s) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

bool ContainsOnlyAlphanum(std::string_view s) {
  for (char c : s) {
    if (!IsAlphanum(c)) return false;
  }
  return true;
}

// blang hasLeadingZeroes.
bool HasLeadingZeroes(std::string_view s) {
  return s.size() > 1 && s[0] == '0';
}

absl::Status Invalid(std::string_view message) {
  return absl::InvalidArgumentError(
      absl::string_view(message.data(), message.size()));
}

// Go strconv.ParseUint(s, 10, 64) on a string of ASCII digits, with its
// error text.
absl::Status ParseUint64(std::string_view s, uint64_t* out) {
  if (s.empty()) {
    return Invalid(StrCat("strconv.ParseUint: parsing ", StrconvQuote(s),
                          ": invalid syntax"));
  }
  uint64_t v = 0;
  for (char c : s) {
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
      return Invalid(StrCat("strconv.ParseUint: parsing ", StrconvQuote(s),
                            ": value out of range"));
    }
    v = v * 10 + digit;
  }
  *out = v;
  return absl::OkStatus();
}

// Go strings.SplitN(s, sep, n) for a one-byte separator.
std::vector<std::string_view> SplitN(std::string_view s, char sep, size_t n) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < n) {
    const size_t i = s.find(sep);
    if (i == std::string_view::npos) break;
    parts.push_back(s.substr(0, i));
    s.remove_prefix(i + 1);
  }
  parts.push_back(s);
  return parts;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  return SplitN(s, sep, std::numeric_limits<size_t>::max());
}

// A major/minor/patch number, with blang's checks and messages. `what` is
// "major", "minor" or "patch"; `What` is its capitalized form.
absl::Status ParseVersionNumber(std::string_view s, std::string_view what,
                                std::string_view capitalized, uint64_t* out) {
  if (!ContainsOnlyDigits(s)) {
    return Invalid(StrCat("Invalid character(s) found in ", what, " number ",
                          StrconvQuote(s)));
  }
  if (HasLeadingZeroes(s)) {
    return Invalid(StrCat(capitalized,
                          " number must not contain leading zeroes ",
                          StrconvQuote(s)));
  }
  return ParseUint64(s, out);
}

// The semver.org <numeric identifier>: "0" or digits without a leading zero.
bool IsNumericIdentifier(std::string_view s) {
  return !s.empty() && ContainsOnlyDigits(s) && !HasLeadingZeroes(s);
}

// The semver.org <pre-release identifier>.
bool IsPrereleaseIdentifier(std::string_view s) {
  if (s.empty() || !ContainsOnlyAlphanum(s)) return false;
  return !ContainsOnlyDigits(s) || !HasLeadingZeroes(s);
}

// The semver.org <build identifier>.
bool IsBuildIdentifier(std::string_view s) {
  return !s.empty() && ContainsOnlyAlphanum(s);
}

}  // namespace

std::string Semver::PrereleaseIdentifier::ToString() const {
  return is_numeric ? std::to_string(number) : text;
}

int Semver::PrereleaseIdentifier::Compare(
    const PrereleaseIdentifier& other) const {
  if (is_numeric != other.is_numeric) return is_numeric ? -1 : 1;
  if (is_numeric) {
    return number == other.number ? 0 : (number < other.number ? -1 : 1);
  }
  const int c = text.compare(other.text);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

absl::StatusOr<Semver> Semver::Parse(std::string_view s) {
  if (s.empty()) return Invalid("Version string empty");
  const std::vector<std::string_view> parts = SplitN(s, '.', 3);
  if (parts.size() != 3) return Invalid("No Major.Minor.Patch elements found");

  Semver v;
  if (absl::Status st =
          ParseVersionNumber(parts[0], "major", "Major", &v.major_);
      !st.ok()) {
    return st;
  }
  if (absl::Status st =
          ParseVersionNumber(parts[1], "minor", "Minor", &v.minor_);
      !st.ok()) {
    return st;
  }

  std::string_view patch = parts[2];
  std::vector<std::string_view> build;
  std::vector<std::string_view> prerelease;
  bool has_build = false, has_prerelease = false;
  if (const size_t i = patch.find('+'); i != std::string_view::npos) {
    build = Split(patch.substr(i + 1), '.');
    patch = patch.substr(0, i);
    has_build = true;
  }
  if (const size_t i = patch.find('-'); i != std::string_view::npos) {
    prerelease = Split(patch.substr(i + 1), '.');
    patch = patch.substr(0, i);
    has_prerelease = true;
  }
  if (absl::Status st = ParseVersionNumber(patch, "patch", "Patch", &v.patch_);
      !st.ok()) {
    return st;
  }

  if (has_prerelease) {
    for (std::string_view id : prerelease) {
      if (id.empty()) return Invalid("Prerelease is empty");
      PrereleaseIdentifier pr;
      if (ContainsOnlyDigits(id)) {
        if (HasLeadingZeroes(id)) {
          return Invalid(StrCat(
              "Numeric PreRelease version must not contain leading zeroes ",
              StrconvQuote(id)));
        }
        if (absl::Status st = ParseUint64(id, &pr.number); !st.ok()) return st;
        pr.is_numeric = true;
      } else if (ContainsOnlyAlphanum(id)) {
        pr.text = std::string(id);
      } else {
        return Invalid(StrCat("Invalid character(s) found in prerelease ",
                              StrconvQuote(id)));
      }
      v.prerelease_.push_back(std::move(pr));
    }
  }
  if (has_build) {
    for (std::string_view id : build) {
      if (id.empty()) return Invalid("Build meta data is empty");
      if (!ContainsOnlyAlphanum(id)) {
        return Invalid(StrCat("Invalid character(s) found in build meta data ",
                              StrconvQuote(id)));
      }
      v.build_.emplace_back(id);
    }
  }
  return v;
}

absl::StatusOr<Semver> Semver::ParseNormalized(std::string_view s) {
  if (s.starts_with('v')) s.remove_prefix(1);
  std::vector<std::string> parts;
  for (std::string_view p : SplitN(s, '.', 3)) {
    std::string part(p);
    if (part.size() > 1) {
      // Remove leading zeros, keeping a single 0 before a non-digit.
      const size_t first = part.find_first_not_of('0');
      part = first == std::string::npos ? "" : part.substr(first);
      if (part.empty() || !IsDigit(part[0])) part = "0" + part;
    }
    parts.push_back(std::move(part));
  }
  if (parts.size() < 3) {
    if (parts.back().find_first_of("+-") != std::string::npos) {
      return Invalid("short version cannot contain PreRelease/Build meta data");
    }
    while (parts.size() < 3) parts.push_back("0");
  }
  return Parse(StrCat(parts[0], ".", parts[1], ".", parts[2]));
}

bool Semver::IsValid(std::string_view s) {
  // <version core> ::= <major> "." <minor> "." <patch>
  size_t end = s.find_first_of("-+");
  if (end == std::string_view::npos) end = s.size();
  const std::vector<std::string_view> core = Split(s.substr(0, end), '.');
  if (core.size() != 3) return false;
  for (std::string_view n : core) {
    if (!IsNumericIdentifier(n)) return false;
  }
  s.remove_prefix(end);
  // ["-" <pre-release>]: identifiers up to the first '+'.
  if (s.starts_with('-')) {
    s.remove_prefix(1);
    size_t plus = s.find('+');
    if (plus == std::string_view::npos) plus = s.size();
    for (std::string_view id : Split(s.substr(0, plus), '.')) {
      if (!IsPrereleaseIdentifier(id)) return false;
    }
    s.remove_prefix(plus);
  }
  // ["+" <build>]
  if (s.starts_with('+')) {
    s.remove_prefix(1);
    for (std::string_view id : Split(s, '.')) {
      if (!IsBuildIdentifier(id)) return false;
    }
    return true;
  }
  return s.empty();
}

int Semver::Compare(const Semver& other) const {
  if (major_ != other.major_) return major_ < other.major_ ? -1 : 1;
  if (minor_ != other.minor_) return minor_ < other.minor_ ? -1 : 1;
  if (patch_ != other.patch_) return patch_ < other.patch_ ? -1 : 1;
  // A version without pre-release identifiers has higher precedence.
  if (prerelease_.empty() || other.prerelease_.empty()) {
    if (prerelease_.empty() && other.prerelease_.empty()) return 0;
    return prerelease_.empty() ? 1 : -1;
  }
  const size_t n = std::min(prerelease_.size(), other.prerelease_.size());
  for (size_t i = 0; i < n; ++i) {
    if (const int c = prerelease_[i].Compare(other.prerelease_[i]); c != 0) {
      return c;
    }
  }
  if (prerelease_.size() == other.prerelease_.size()) return 0;
  return prerelease_.size() < other.prerelease_.size() ? -1 : 1;
}

std::string Semver::ToString() const {
  std::string out = StrCat(major_, ".", minor_, ".", patch_);
  for (size_t i = 0; i < prerelease_.size(); ++i) {
    StrAppend(&out, i == 0 ? "-" : ".", prerelease_[i].ToString());
  }
  for (size_t i = 0; i < build_.size(); ++i) {
    StrAppend(&out, i == 0 ? "+" : ".", build_[i]);
  }
  return out;
}

std::ostream& operator<<(std::ostream& os, const Semver& v) {
  return os << v.ToString();
}

}  // namespace draplane
