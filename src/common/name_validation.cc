#include "common/name_validation.h"

#include <array>
#include <cstdint>
#include <cstdio>

#include "common/semver.h"

namespace draplane::name_validation {
namespace {

bool IsLowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$
bool MatchesDNSLabel(std::string_view s) {
  if (s.empty() || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) {
    return false;
  }
  for (char c : s) {
    if (!IsLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

// Calls pred on each '.'-separated part of s; true if it holds for all.
template <class Pred>
bool AllDotSeparated(std::string_view s, Pred pred) {
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view part =
        s.substr(start, dot == std::string_view::npos ? std::string_view::npos
                                                      : dot - start);
    if (!pred(part)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// One or more DNS labels joined by '.'.
bool MatchesDNSSubdomain(std::string_view s) {
  return AllDotSeparated(s, MatchesDNSLabel);
}

// ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$
bool MatchesLabelKeyName(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

constexpr std::string_view kDNS1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDNS1123LabelErrMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric "
    "characters or '-', and must start and end with an alphanumeric character";
constexpr std::string_view kDNS1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDNS1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric "
    "character";
constexpr std::string_view kLabelKeyFmt =
    "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kLabelKeyErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character";
constexpr int kLabelKeyMaxLength = 63;
constexpr std::string_view kLabelValueFmt =
    "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric "
    "characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character";
constexpr std::string_view kCIdentifierFmt = "[A-Za-z_][A-Za-z0-9_]*";
constexpr std::string_view kCIdentifierErrMsg =
    "a valid C identifier must start with alphabetic character or '_', "
    "followed by a string of alphanumeric characters or '_'";
constexpr std::string_view kConditionReasonFmt =
    "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?";
constexpr std::string_view kConditionReasonErrMsg =
    "a condition reason must start with alphabetic character, optionally "
    "followed by a string of alphanumeric characters or '_,:', and must end "
    "with an alphanumeric character or '_'";
constexpr std::string_view kEmptyError = "must be non-empty";

std::string Cat(std::string_view a, std::string_view b) {
  std::string s(a);
  s.append(b);
  return s;
}

// Go's "dtoi": decimal digits, at least one, value below 0xFFFFFF.
bool Dtoi(std::string_view s, int* n, size_t* consumed) {
  constexpr int kBig = 0xFFFFFF;
  int v = 0;
  size_t i = 0;
  for (; i < s.size() && IsDigit(s[i]); ++i) {
    v = v * 10 + (s[i] - '0');
    if (v >= kBig) return false;
  }
  if (i == 0) return false;
  *n = v;
  *consumed = i;
  return true;
}

int HexVal(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Go's "xtoi": hexadecimal digits, at least one, value below 0xFFFFFF.
bool Xtoi(std::string_view s, int* n, size_t* consumed) {
  constexpr int kBig = 0xFFFFFF;
  int v = 0;
  size_t i = 0;
  for (; i < s.size() && HexVal(s[i]) >= 0; ++i) {
    v = v * 16 + HexVal(s[i]);
    if (v >= kBig) return false;
  }
  if (i == 0) return false;
  *n = v;
  *consumed = i;
  return true;
}

using IP = std::array<uint8_t, 16>;

// Go 1.16 parseIPv4 (leading zeros allowed, as k8s.io/utils/net's sloppy
// parser does). Returns the IPv4-in-IPv6 form.
std::optional<IP> ParseIPv4(std::string_view s) {
  IP ip{};
  ip[10] = ip[11] = 0xff;
  for (int i = 0; i < 4; ++i) {
    if (s.empty()) return std::nullopt;
    if (i > 0) {
      if (s[0] != '.') return std::nullopt;
      s.remove_prefix(1);
    }
    int n;
    size_t c;
    if (!Dtoi(s, &n, &c) || n > 0xFF) return std::nullopt;
    s.remove_prefix(c);
    ip[12 + i] = static_cast<uint8_t>(n);
  }
  if (!s.empty()) return std::nullopt;
  return ip;
}

// Go 1.16 parseIPv6 (no zone).
std::optional<IP> ParseIPv6(std::string_view s) {
  IP ip{};
  int ellipsis = -1;
  if (s.size() >= 2 && s[0] == ':' && s[1] == ':') {
    ellipsis = 0;
    s.remove_prefix(2);
    if (s.empty()) return ip;
  }
  int i = 0;
  while (i < 16) {
    int n;
    size_t c;
    if (!Xtoi(s, &n, &c) || n > 0xFFFF) return std::nullopt;
    if (c < s.size() && s[c] == '.') {
      if (ellipsis < 0 && i != 16 - 4) return std::nullopt;
      if (i + 4 > 16) return std::nullopt;
      std::optional<IP> ip4 = ParseIPv4(s);
      if (!ip4) return std::nullopt;
      for (int k = 0; k < 4; ++k) ip[i + k] = (*ip4)[12 + k];
      s = {};
      i += 4;
      break;
    }
    ip[i] = static_cast<uint8_t>(n >> 8);
    ip[i + 1] = static_cast<uint8_t>(n);
    i += 2;
    s.remove_prefix(c);
    if (s.empty()) break;
    if (s[0] != ':' || s.size() == 1) return std::nullopt;
    s.remove_prefix(1);
    if (s[0] == ':') {
      if (ellipsis >= 0) return std::nullopt;
      ellipsis = i;
      s.remove_prefix(1);
      if (s.empty()) break;
    }
  }
  if (!s.empty()) return std::nullopt;
  if (i < 16) {
    if (ellipsis < 0) return std::nullopt;
    int n = 16 - i;
    for (int j = i - 1; j >= ellipsis; --j) ip[j + n] = ip[j];
    for (int j = ellipsis + n - 1; j >= ellipsis; --j) ip[j] = 0;
  } else if (ellipsis >= 0) {
    return std::nullopt;
  }
  return ip;
}

bool IsV4(const IP& ip) {
  for (int i = 0; i < 10; ++i) {
    if (ip[i] != 0) return false;
  }
  return ip[10] == 0xff && ip[11] == 0xff;
}

// Go's net.IP.String().
std::string FormatIP(const IP& ip) {
  char buf[64];
  if (IsV4(ip)) {
    std::snprintf(buf, sizeof(buf), "%u.%u.%u.%u", ip[12], ip[13], ip[14],
                  ip[15]);
    return buf;
  }
  int e0 = -1, e1 = -1;
  for (int i = 0; i < 16; i += 2) {
    int j = i;
    while (j < 16 && ip[j] == 0 && ip[j + 1] == 0) j += 2;
    if (j > i && j - i > e1 - e0) {
      e0 = i;
      e1 = j;
      i = j;
    }
  }
  if (e1 - e0 <= 2) e0 = e1 = -1;
  std::string out;
  for (int i = 0; i < 16; i += 2) {
    if (i == e0) {
      out += "::";
      i = e1;
      if (i >= 16) break;
    } else if (i > 0) {
      out += ':';
    }
    std::snprintf(buf, sizeof(buf), "%x", (ip[i] << 8) | ip[i + 1]);
    out += buf;
  }
  return out;
}

}  // namespace

std::string RegexError(std::string_view msg, std::string_view re,
                       std::initializer_list<std::string_view> examples) {
  std::string out(msg);
  if (examples.size() == 0) {
    out += " (regex used for validation is '";
    out += re;
    out += "')";
    return out;
  }
  out += " (e.g. ";
  bool first = true;
  for (std::string_view e : examples) {
    if (!first) out += " or ";
    first = false;
    out += "'";
    out += e;
    out += "', ";
  }
  out += "regex used for validation is '";
  out += re;
  out += "')";
  return out;
}

std::string MaxLenError(int length) {
  return "must be no more than " + std::to_string(length) + " bytes";
}

std::vector<std::string> IsDNS1123Label(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > static_cast<size_t>(kDNS1123LabelMaxLength)) {
    errs.push_back(MaxLenError(kDNS1123LabelMaxLength));
  }
  if (!MatchesDNSLabel(value)) {
    if (MatchesDNSSubdomain(value)) {
      errs.push_back("must not contain dots");
    } else {
      errs.push_back(RegexError(kDNS1123LabelErrMsg, kDNS1123LabelFmt,
                                {"my-name", "123-abc"}));
    }
  }
  return errs;
}

std::vector<std::string> IsDNS1123Subdomain(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > static_cast<size_t>(kDNS1123SubdomainMaxLength)) {
    errs.push_back(MaxLenError(kDNS1123SubdomainMaxLength));
  }
  if (!MatchesDNSSubdomain(value)) {
    errs.push_back(RegexError(kDNS1123SubdomainErrMsg, kDNS1123SubdomainFmt,
                              {"example.com"}));
  }
  return errs;
}

std::vector<std::string> IsQualifiedName(std::string_view value) {
  std::vector<std::string> errs;
  std::string_view name;
  size_t slashes = 0;
  for (char c : value) slashes += c == '/';
  if (slashes == 0) {
    name = value;
  } else if (slashes == 1) {
    size_t slash = value.find('/');
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back(Cat("prefix part ", kEmptyError));
    } else {
      for (const std::string& msg : IsDNS1123Subdomain(prefix)) {
        errs.push_back(Cat("prefix part ", msg));
      }
    }
  } else {
    errs.push_back("a valid label key " +
                   RegexError(kLabelKeyErrMsg, kLabelKeyFmt,
                              {"MyName", "my.name", "123-abc"}) +
                   " with an optional DNS subdomain prefix and '/' (e.g. "
                   "'example.com/MyName')");
    return errs;
  }
  if (name.empty()) {
    errs.push_back(Cat("name part ", kEmptyError));
  } else if (name.size() > static_cast<size_t>(kLabelKeyMaxLength)) {
    errs.push_back(Cat("name part ", MaxLenError(kLabelKeyMaxLength)));
  }
  if (!MatchesLabelKeyName(name)) {
    errs.push_back(
        Cat("name part ", RegexError(kLabelKeyErrMsg, kLabelKeyFmt,
                                     {"MyName", "my.name", "123-abc"})));
  }
  return errs;
}

std::vector<std::string> IsLabelValue(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > static_cast<size_t>(kLabelValueMaxLength)) {
    errs.push_back(MaxLenError(kLabelValueMaxLength));
  }
  if (!value.empty() && !MatchesLabelKeyName(value)) {
    errs.push_back(RegexError(kLabelValueErrMsg, kLabelValueFmt,
                              {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

std::vector<std::string> IsCIdentifier(std::string_view value) {
  bool ok = !value.empty() && (IsAlpha(value[0]) || value[0] == '_');
  for (size_t i = 1; ok && i < value.size(); ++i) {
    ok = IsAlnum(value[i]) || value[i] == '_';
  }
  if (ok) return {};
  return {RegexError(kCIdentifierErrMsg, kCIdentifierFmt,
                     {"my_name", "MY_NAME", "MyName"})};
}

std::vector<std::string> IsConditionReason(std::string_view value) {
  bool ok = !value.empty() && IsAlpha(value[0]);
  for (size_t i = 1; ok && i < value.size(); ++i) {
    char c = value[i];
    bool last = i + 1 == value.size();
    ok = IsAlnum(c) || c == '_' || (!last && (c == ',' || c == ':'));
  }
  if (ok) return {};
  return {RegexError(
      kConditionReasonErrMsg, kConditionReasonFmt,
      {"my_name", "MY_NAME", "MyName", "ReasonA,ReasonB", "ReasonA:ReasonB"})};
}

namespace {
std::string MaskTrailingDash(std::string_view name) {
  if (name.size() > 1 && name.back() == '-') {
    return std::string(name.substr(0, name.size() - 2)) + "a";
  }
  return std::string(name);
}
}  // namespace

std::vector<std::string> NameIsDNSSubdomain(std::string_view name,
                                            bool prefix) {
  if (prefix) return IsDNS1123Subdomain(MaskTrailingDash(name));
  return IsDNS1123Subdomain(name);
}

std::vector<std::string> NameIsDNSLabel(std::string_view name, bool prefix) {
  if (prefix) return IsDNS1123Label(MaskTrailingDash(name));
  return IsDNS1123Label(name);
}

bool IsSemver(std::string_view value) { return Semver::IsValid(value); }

std::optional<std::string> UUIDValidateError(std::string_view s) {
  auto hexpair = [](std::string_view v, size_t i) {
    return HexVal(v[i]) >= 0 && HexVal(v[i + 1]) >= 0;
  };
  switch (s.size()) {
    case 36:
      break;
    case 36 + 9: {
      std::string p(s.substr(0, 9));
      std::string lower;
      for (char c : p) {
        lower += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
      }
      if (lower != "urn:uuid:") {
        std::string out = "invalid urn prefix: \"";
        for (char c : p) {
          if (c == '"' || c == '\\') out += '\\';
          out += c;
        }
        out += "\"";
        return out;
      }
      s.remove_prefix(9);
      break;
    }
    case 36 + 2:
      if (s.front() != '{' || s.back() != '}') {
        return std::string("invalid bracketed UUID format");
      }
      s = s.substr(1, s.size() - 2);
      break;
    case 32:
      for (size_t i = 0; i < s.size(); i += 2) {
        if (!hexpair(s, i)) return std::string("invalid UUID format");
      }
      break;
    default:
      return "invalid UUID length: " + std::to_string(s.size());
  }
  if (s.size() == 36) {
    if (s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-') {
      return std::string("invalid UUID format");
    }
    for (size_t x :
         {0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}) {
      if (!hexpair(s, x)) return std::string("invalid UUID format");
    }
  }
  return std::nullopt;
}

std::vector<std::string> IsValidInterfaceAddress(std::string_view value) {
  const std::string invalid =
      "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or "
      "2001:db8::1/64)";
  size_t slash = value.find('/');
  if (slash == std::string_view::npos) return {invalid};
  std::string_view addr = value.substr(0, slash);
  std::string_view mask = value.substr(slash + 1);
  int iplen = 4;
  std::optional<IP> ip = ParseIPv4(addr);
  if (!ip) {
    iplen = 16;
    ip = ParseIPv6(addr);
  }
  int n = 0;
  size_t consumed = 0;
  if (!ip || !Dtoi(mask, &n, &consumed) || consumed != mask.size() || n < 0 ||
      n > 8 * iplen) {
    return {invalid};
  }
  int mask_size = n;
  if (IsV4(*ip) && mask_size > 32) mask_size -= (16 - 4) * 8;
  std::string canonical = FormatIP(*ip) + "/" + std::to_string(mask_size);
  if (value != canonical) {
    std::string quoted = "\"" + canonical + "\"";
    return {"must be in canonical form (" + quoted + ")"};
  }
  return {};
}

}  // namespace draplane::name_validation
