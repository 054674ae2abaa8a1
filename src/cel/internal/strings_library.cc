#include "cel/internal/strings_library.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cel/internal/library_support.h"
#include "cel/internal/string_format.h"
#include "cel/internal/value.h"
#include "common/go_strconv.h"
#include "common/str_cat.h"

namespace draplane::cel::internal {
namespace {

ArgType StringArg() { return ArgType::Of(ValueKind::kString); }
ArgType IntArg() { return ArgType::Of(ValueKind::kInt); }
ArgType ListArg() { return ArgType::Of(ValueKind::kList); }

// --- Runtime costs ---
//
// Kubernetes installs its library.CostEstimator as the cost tracker's
// estimator (environment/base.go, cel.CostTracking), and its CallCost
// decides by function name; where it has no answer, cel-go's defaults
// (interpreter/runtimecost.go) apply. cel-go's own strings-extension cost
// trackers exist only from StringsVersion(5). `args` holds the receiver
// first. Sizes are CostSize (code points of strings); products are
// float64 as in Go.
constexpr double kStringTraversalCostFactor = 0.1;

// Kubernetes' traversalCost (library/cost.go), which truncates: bytes (not
// code points) of strings and bytes, the sum over elements of lists and
// over keys and values of maps, 1 for anything else.
uint64_t TraversalCost(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kString:
    case ValueKind::kBytes:
      return static_cast<uint64_t>(
          static_cast<double>(v.string_value().size()) *
          kStringTraversalCostFactor);
    case ValueKind::kList: {
      uint64_t cost = 0;
      for (const Value& e : v.list()) cost += TraversalCost(e);
      return cost;
    }
    case ValueKind::kMap: {
      uint64_t cost = 0;
      for (const MapData::Entry& e : v.map().entries()) {
        cost += TraversalCost(e.key) + TraversalCost(e.value);
      }
      return cost;
    }
    default:
      return 1;
  }
}

uint64_t CeilCost(double units) {
  return static_cast<uint64_t>(std::ceil(units));
}

// indexOf, lastIndexOf (Kubernetes): one traversal of the receiver.
uint64_t SearchCost(absl::Span<const Value> args, const Value&) {
  return TraversalCost(args[0]);
}
// lowerAscii, upperAscii, substring, trim (Kubernetes), and strings.quote
// and format (cel-go's defaults for overloads strings_quote and
// string_format, which Kubernetes leaves to it): ceil(size * 0.1) of the
// first argument.
uint64_t FirstArgTraversalCost(absl::Span<const Value> args, const Value&) {
  return CeilCost(static_cast<double>(CostSize(args[0])) *
                  kStringTraversalCostFactor);
}
// replace, split (Kubernetes): traversal plus building the result,
// ceil(size * 2 * 0.1) of the receiver.
uint64_t TraverseAndBuildCost(absl::Span<const Value> args, const Value&) {
  return CeilCost(static_cast<double>(CostSize(args[0])) * 2 *
                  kStringTraversalCostFactor);
}
// join (Kubernetes): ceil(size * 2 * 0.1) of the result (1 for an error).
uint64_t JoinCost(absl::Span<const Value>, const Value& result) {
  return CeilCost(static_cast<double>(CostSize(result)) * 2 *
                  kStringTraversalCostFactor);
}

// Length in bytes of the UTF-8 sequence starting with `lead`.
size_t SequenceLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;
}

// Byte offsets of each code point of `s`, followed by s.size().
std::vector<size_t> CodePointOffsets(std::string_view s) {
  std::vector<size_t> offsets;
  offsets.reserve(s.size() + 1);
  for (size_t i = 0; i < s.size();) {
    offsets.push_back(i);
    i += SequenceLength(static_cast<unsigned char>(s[i]));
  }
  offsets.push_back(s.size());
  return offsets;
}

// Decodes the code point at byte offset `i` of valid UTF-8 `s`.
char32_t DecodeAt(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = SequenceLength(c);
  if (n == 1 || i + n > s.size()) return c;
  char32_t cp = c & (0xFF >> (n + 1));
  for (size_t k = 1; k < n; ++k) {
    cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  }
  return cp;
}

Value OutOfRange(int64_t index) {
  return Value::Error(StrCat("index out of range: ", index));
}

Value CharAt(std::string_view s, int64_t index) {
  std::vector<size_t> off = CodePointOffsets(s);
  int64_t n = static_cast<int64_t>(off.size()) - 1;
  if (index < 0 || index > n) return OutOfRange(index);
  if (index == n) return Value::String("");
  return Value::String(
      std::string(s.substr(off[index], off[index + 1] - off[index])));
}

// Whether `sub` occurs in `s` at byte offset `pos`.
bool MatchesAt(std::string_view s, size_t pos, std::string_view sub) {
  return s.size() - pos >= sub.size() && s.compare(pos, sub.size(), sub) == 0;
}

Value IndexOf(std::string_view s, std::string_view sub, int64_t offset) {
  if (offset < 0) return OutOfRange(offset);
  std::vector<size_t> off = CodePointOffsets(s);
  int64_t n = static_cast<int64_t>(off.size()) - 1;
  if (sub.empty()) return Value::Int(offset > n ? n : offset);
  if (offset >= n) return Value::Int(-1);
  for (int64_t i = offset; i < n; ++i) {
    if (MatchesAt(s, off[i], sub)) return Value::Int(i);
  }
  return Value::Int(-1);
}

Value LastIndexOf(std::string_view s, std::string_view sub, int64_t offset) {
  if (offset < 0) return OutOfRange(offset);
  std::vector<size_t> off = CodePointOffsets(s);
  int64_t n = static_cast<int64_t>(off.size()) - 1;
  if (sub.empty()) return Value::Int(offset > n ? n : offset);
  if (offset >= n) return Value::Int(-1);
  for (int64_t i = offset; i >= 0; --i) {
    if (MatchesAt(s, off[i], sub)) return Value::Int(i);
  }
  return Value::Int(-1);
}

std::string MapAscii(std::string_view s, bool upper) {
  std::string out(s);
  for (char& c : out) {
    if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Non-overlapping occurrences of non-empty `sub` in `s`.
size_t Count(std::string_view s, std::string_view sub) {
  size_t count = 0;
  for (size_t pos = s.find(sub); pos != std::string_view::npos;
       pos = s.find(sub, pos + sub.size())) {
    ++count;
  }
  return count;
}

// Go's strings.Replace: at most `n` replacements (all when n < 0); an empty
// `old` matches before each code point and at the end.
std::string Replace(std::string_view s, std::string_view old,
                    std::string_view repl, int64_t n) {
  if (old == repl || n == 0) return std::string(s);
  size_t m = old.empty() ? CodePointOffsets(s).size() : Count(s, old);
  if (m == 0) return std::string(s);
  if (n < 0 || static_cast<uint64_t>(n) > m) n = static_cast<int64_t>(m);
  std::string out;
  size_t start = 0;
  for (int64_t i = 0; i < n; ++i) {
    size_t j = start;
    if (old.empty()) {
      if (i > 0) j += SequenceLength(static_cast<unsigned char>(s[start]));
    } else {
      j = s.find(old, start);
    }
    out.append(s.substr(start, j - start));
    out.append(repl);
    start = j + old.size();
  }
  out.append(s.substr(start));
  return out;
}

// Go's strings.SplitN (n < 0: no limit).
Value Split(std::string_view s, std::string_view sep, int64_t n) {
  std::vector<Value> parts;
  if (n == 0) return Value::List(std::move(parts));
  if (sep.empty()) {
    std::vector<size_t> off = CodePointOffsets(s);
    int64_t l = static_cast<int64_t>(off.size()) - 1;
    if (n < 0 || n > l) n = l;
    for (int64_t i = 0; i < n; ++i) {
      size_t end = i == n - 1 ? s.size() : off[i + 1];
      parts.push_back(
          Value::String(std::string(s.substr(off[i], end - off[i]))));
    }
    return Value::List(std::move(parts));
  }
  if (n < 0) n = static_cast<int64_t>(Count(s, sep)) + 1;
  std::string_view rest = s;
  for (int64_t i = 0; i < n - 1; ++i) {
    size_t m = rest.find(sep);
    if (m == std::string_view::npos) break;
    parts.push_back(Value::String(std::string(rest.substr(0, m))));
    rest.remove_prefix(m + sep.size());
  }
  parts.push_back(Value::String(std::string(rest)));
  return Value::List(std::move(parts));
}

Value Substring(std::string_view s, int64_t start, int64_t end) {
  std::vector<size_t> off = CodePointOffsets(s);
  int64_t n = static_cast<int64_t>(off.size()) - 1;
  if (start > end) {
    return Value::Error(
        StrCat("invalid substring range. start: ", start, ", end: ", end));
  }
  if (start < 0 || start > n) return OutOfRange(start);
  if (end < 0 || end > n) return OutOfRange(end);
  return Value::String(
      std::string(s.substr(off[start], off[end] - off[start])));
}

// unicode.IsSpace.
bool IsSpace(char32_t c) {
  switch (c) {
    case '\t':
    case '\n':
    case '\v':
    case '\f':
    case '\r':
    case ' ':
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}

std::string Trim(std::string_view s) {
  std::vector<size_t> off = CodePointOffsets(s);
  size_t n = off.size() - 1;
  size_t first = 0;
  while (first < n && IsSpace(DecodeAt(s, off[first]))) ++first;
  size_t last = n;
  while (last > first && IsSpace(DecodeAt(s, off[last - 1]))) --last;
  return std::string(s.substr(off[first], off[last] - off[first]));
}

Value Join(const Value& list, std::string_view sep) {
  std::string out;
  bool first = true;
  for (const Value& elem : list.list()) {
    if (elem.kind() != ValueKind::kString) {
      return Value::Error(StrCat("join: invalid input: ", elem.DebugString()));
    }
    if (!first) out.append(sep);
    first = false;
    out.append(elem.string_value());
  }
  return Value::String(std::move(out));
}

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (!AppendGoControlEscape(&out, static_cast<unsigned char>(c))) {
      out += c;
    }
  }
  out += '"';
  return out;
}

}  // namespace

absl::Status RegisterStringsFunctions(FunctionRegistry* registry) {
  using Args = absl::Span<const Value>;
  std::vector<FunctionOverload> o;
  o.push_back(Overload(
      "charAt", "string_char_at_int", true, {StringArg(), IntArg()},
      [](Args a) { return CharAt(a[0].string_value(), a[1].int_value()); }));
  o.push_back(Overload(
      "indexOf", "string_index_of_string", true, {StringArg(), StringArg()},
      [](Args a) {
        return IndexOf(a[0].string_value(), a[1].string_value(), 0);
      },
      SearchCost));
  o.push_back(Overload(
      "indexOf", "string_index_of_string_int", true,
      {StringArg(), StringArg(), IntArg()},
      [](Args a) {
        return IndexOf(a[0].string_value(), a[1].string_value(),
                       a[2].int_value());
      },
      SearchCost));
  o.push_back(Overload(
      "lastIndexOf", "string_last_index_of_string", true,
      {StringArg(), StringArg()},
      [](Args a) {
        std::string_view s = a[0].string_value();
        std::string_view sub = a[1].string_value();
        int64_t n = static_cast<int64_t>(a[0].string_size());
        if (sub.empty()) return Value::Int(n);
        if (s.size() < sub.size()) return Value::Int(-1);
        return LastIndexOf(s, sub, n - 1);
      },
      SearchCost));
  o.push_back(Overload(
      "lastIndexOf", "string_last_index_of_string_int", true,
      {StringArg(), StringArg(), IntArg()},
      [](Args a) {
        return LastIndexOf(a[0].string_value(), a[1].string_value(),
                           a[2].int_value());
      },
      SearchCost));
  o.push_back(Overload(
      "lowerAscii", "string_lower_ascii", true, {StringArg()},
      [](Args a) {
        return Value::String(MapAscii(a[0].string_value(), false));
      },
      FirstArgTraversalCost));
  o.push_back(Overload(
      "upperAscii", "string_upper_ascii", true, {StringArg()},
      [](Args a) { return Value::String(MapAscii(a[0].string_value(), true)); },
      FirstArgTraversalCost));
  o.push_back(Overload(
      "replace", "string_replace_string_string", true,
      {StringArg(), StringArg(), StringArg()},
      [](Args a) {
        return Value::String(Replace(a[0].string_value(), a[1].string_value(),
                                     a[2].string_value(), -1));
      },
      TraverseAndBuildCost));
  o.push_back(Overload(
      "replace", "string_replace_string_string_int", true,
      {StringArg(), StringArg(), StringArg(), IntArg()},
      [](Args a) {
        return Value::String(Replace(a[0].string_value(), a[1].string_value(),
                                     a[2].string_value(), a[3].int_value()));
      },
      TraverseAndBuildCost));
  o.push_back(Overload(
      "split", "string_split_string", true, {StringArg(), StringArg()},
      [](Args a) {
        return Split(a[0].string_value(), a[1].string_value(), -1);
      },
      TraverseAndBuildCost));
  o.push_back(Overload(
      "split", "string_split_string_int", true,
      {StringArg(), StringArg(), IntArg()},
      [](Args a) {
        return Split(a[0].string_value(), a[1].string_value(),
                     a[2].int_value());
      },
      TraverseAndBuildCost));
  o.push_back(Overload(
      "substring", "string_substring_int", true, {StringArg(), IntArg()},
      [](Args a) {
        int64_t start = a[1].int_value();
        int64_t n = static_cast<int64_t>(a[0].string_size());
        if (start < 0 || start > n) return OutOfRange(start);
        return Substring(a[0].string_value(), start, n);
      },
      FirstArgTraversalCost));
  o.push_back(Overload(
      "substring", "string_substring_int_int", true,
      {StringArg(), IntArg(), IntArg()},
      [](Args a) {
        return Substring(a[0].string_value(), a[1].int_value(),
                         a[2].int_value());
      },
      FirstArgTraversalCost));
  o.push_back(Overload(
      "trim", "string_trim", true, {StringArg()},
      [](Args a) { return Value::String(Trim(a[0].string_value())); },
      FirstArgTraversalCost));
  o.push_back(Overload(
      "join", "list_join", true, {ListArg()},
      [](Args a) { return Join(a[0], ""); }, JoinCost));
  o.push_back(Overload(
      "join", "list_join_string", true, {ListArg(), StringArg()},
      [](Args a) { return Join(a[0], a[1].string_value()); }, JoinCost));
  o.push_back(Overload(
      "strings.quote", "strings_quote", false, {StringArg()},
      [](Args a) { return Value::String(Quote(a[0].string_value())); },
      FirstArgTraversalCost));
  o.push_back(Overload(
      "format", "string_format", true, {StringArg(), ListArg()},
      [](Args a) { return FormatString(a[0].string_value(), a[1].list()); },
      FirstArgTraversalCost));
  for (FunctionOverload& overload : o) {
    absl::Status status = registry->Register(std::move(overload));
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

}  // namespace draplane::cel::internal
