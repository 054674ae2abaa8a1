#include "selectors/internal/go_format.h"

#include <cstdio>
#include <limits>

#include "common/go_strconv.h"

namespace draplane::selectors::internal {

std::optional<int64_t> GoParseInt64(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  // Accumulate the magnitude as unsigned; the negative range is one larger.
  const uint64_t limit =
      negative ? uint64_t{1} << 63
               : static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  uint64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (n > (limit - d) / 10) return std::nullopt;
    n = n * 10 + d;
  }
  if (negative) {
    if (n == uint64_t{1} << 63) return std::numeric_limits<int64_t>::min();
    return -static_cast<int64_t>(n);
  }
  return static_cast<int64_t>(n);
}

namespace {

void AppendGoJsonString(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  size_t i = 0;
  while (i < s.size()) {
    unsigned char b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      switch (b) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        default:
          if (b < 0x20 || b == '<' || b == '>' || b == '&') {
            out += "\\u00";
            out += kHex[b >> 4];
            out += kHex[b & 0xF];
          } else {
            out += static_cast<char>(b);
          }
      }
      ++i;
      continue;
    }
    char32_t rune = 0;
    size_t n = DecodeRune(s, i, &rune);
    if (n == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    if (rune == 0x2028 || rune == 0x2029) {
      out += rune == 0x2028 ? "\\u2028" : "\\u2029";
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  out += '"';
}

}  // namespace

std::string GoJsonStrings(const std::vector<std::string>& values, bool is_nil) {
  if (is_nil) return "null";
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    AppendGoJsonString(out, values[i]);
  }
  out += ']';
  return out;
}

}  // namespace draplane::selectors::internal
