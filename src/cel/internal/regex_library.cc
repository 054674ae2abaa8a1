#include "cel/internal/regex_library.h"

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "cel/internal/value.h"
#include "common/str_cat.h"
#include "re2/re2.h"

namespace draplane::cel::internal {
namespace {

using K = ValueKind;
using Args = absl::Span<const Value>;

// Go regexp/syntax error codes (ErrorCode strings).
std::string GoSyntaxError(std::string_view code, std::string_view expr) {
  return StrCat("error parsing regexp: ", code, ": `", expr, "`");
}

// The pattern RE2 should compile for a Go pattern, or Go's error for the
// constructs RE2 treats differently (see regex_library.h).
struct GoPattern {
  std::string re2_pattern;
  std::string error;  // non-empty: Go rejects the pattern with this error
};

bool IsCaptureNameChar(char c) {
  return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z');
}

// Scans `pattern` as Go's parser tokenises it (escapes, \Q...\E, character
// classes with POSIX names) and rewrites what RE2 would read differently:
// `\C` is Go's "invalid escape sequence", and named groups `(?P<name>` /
// `(?<name>` become plain `(` once their name is checked (Go's
// parsePerlFlags), so neither the newer syntax nor repeated names reach
// RE2. Syntax errors that both parsers report are left to RE2.
GoPattern TranslatePattern(std::string_view p) {
  GoPattern out;
  std::string& re = out.re2_pattern;
  re.reserve(p.size());
  size_t i = 0;
  bool in_class = false;
  size_t class_body = 0;  // offset where the class's members start
  while (i < p.size()) {
    char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      char e = p[i + 1];
      if (e == 'C') {
        out.error = GoSyntaxError("invalid escape sequence", "\\C");
        return out;
      }
      if (e == 'Q' && !in_class) {
        // Literal text up to \E (or the end), copied verbatim.
        size_t end = p.find("\\E", i + 2);
        size_t stop = end == std::string_view::npos ? p.size() : end + 2;
        re.append(p.substr(i, stop - i));
        i = stop;
        continue;
      }
      re.append(p.substr(i, 2));
      i += 2;
      continue;
    }
    if (in_class) {
      if (c == '[' && i + 1 < p.size() && p[i + 1] == ':') {
        size_t end = p.find(":]", i + 2);
        if (end != std::string_view::npos) {
          re.append(p.substr(i, end + 2 - i));
          i = end + 2;
          continue;
        }
      }
      if (c == ']' && i != class_body) in_class = false;
      re.push_back(c);
      ++i;
      continue;
    }
    if (c == '[') {
      in_class = true;
      re.push_back(c);
      ++i;
      if (i < p.size() && p[i] == '^') {
        re.push_back('^');
        ++i;
      }
      class_body = i;
      continue;
    }
    if (c == '(' && i + 2 < p.size() && p[i + 1] == '?') {
      std::string_view t = p.substr(i);
      bool starts_with_p = t.size() > 4 && t[2] == 'P' && t[3] == '<';
      bool starts_with_name = t.size() > 3 && t[2] == '<';
      if (starts_with_p || starts_with_name) {
        size_t name_start = starts_with_p ? 4 : 3;
        size_t end = t.find('>');
        if (end == std::string_view::npos) {
          out.error = GoSyntaxError("invalid named capture", t);
          return out;
        }
        std::string_view name = t.substr(name_start, end - name_start);
        bool valid = !name.empty();
        for (char n : name) valid = valid && IsCaptureNameChar(n);
        if (!valid) {
          out.error =
              GoSyntaxError("invalid named capture", t.substr(0, end + 1));
          return out;
        }
        re.push_back('(');
        i += end + 1;
        continue;
      }
    }
    re.push_back(c);
    ++i;
  }
  return out;
}

std::string_view GoErrorCode(RE2::ErrorCode code) {
  switch (code) {
    case RE2::ErrorBadEscape:
      return "invalid escape sequence";
    case RE2::ErrorBadCharClass:
      return "invalid character class";
    case RE2::ErrorBadCharRange:
      return "invalid character class range";
    case RE2::ErrorMissingBracket:
      return "missing closing ]";
    case RE2::ErrorMissingParen:
      return "missing closing )";
    case RE2::ErrorUnexpectedParen:
      return "unexpected )";
    case RE2::ErrorTrailingBackslash:
      return "trailing backslash at end of expression";
    case RE2::ErrorRepeatArgument:
      return "missing argument to repetition operator";
    case RE2::ErrorRepeatSize:
      return "invalid repeat count";
    case RE2::ErrorRepeatOp:
      return "invalid nested repetition operator";
    case RE2::ErrorBadPerlOp:
      return "invalid or unsupported Perl syntax";
    case RE2::ErrorBadUTF8:
      return "invalid UTF-8";
    case RE2::ErrorBadNamedCapture:
      return "invalid named capture";
    case RE2::ErrorPatternTooLarge:
      return "expression too large";
    default:
      return "regexp/syntax: internal error";
  }
}

// A pattern compiled once, shared by every evaluation that uses it.
struct CompiledRegex {
  std::unique_ptr<RE2> re;  // null when `error` is set
  std::string error;        // Go's error text
};

std::shared_ptr<const CompiledRegex> Compile(std::string_view pattern) {
  auto out = std::make_shared<CompiledRegex>();
  GoPattern go = TranslatePattern(pattern);
  if (!go.error.empty()) {
    out->error = std::move(go.error);
    return out;
  }
  RE2::Options options;
  options.set_log_errors(false);
  // Go has no program-memory budget, only a size limit far above RE2's
  // default of 8 MiB; raise RE2's so that large patterns compile.
  options.set_max_mem(int64_t{64} << 20);
  auto re = std::make_unique<RE2>(
      re2::StringPiece(go.re2_pattern.data(), go.re2_pattern.size()), options);
  if (!re->ok()) {
    std::string arg = re->error_arg();
    // Errors that quote the whole expression quote the caller's pattern,
    // not the translation.
    if (arg == go.re2_pattern) arg = std::string(pattern);
    if (re->error_code() == RE2::ErrorTrailingBackslash) arg.clear();
    if (re->error_code() == RE2::ErrorPatternTooLarge) {
      arg = std::string(pattern);
    }
    out->error = GoSyntaxError(GoErrorCode(re->error_code()), arg);
    return out;
  }
  out->re = std::move(re);
  return out;
}

Value IllegalRegex(const CompiledRegex& re) {
  return Value::Error(StrCat("Illegal regex: ", re.error));
}

re2::StringPiece Piece(std::string_view s) {
  return re2::StringPiece(s.data(), s.size());
}

// Length of the UTF-8 sequence that starts with `lead` (1 for stray bytes).
size_t SequenceLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;
}

// The leftmost-first match of `re` in `text` starting the search at byte
// `pos` (with `text` as context for ^ and \b), as [start, end) offsets.
std::optional<std::pair<size_t, size_t>> MatchAt(const RE2& re,
                                                 std::string_view text,
                                                 size_t pos) {
  re2::StringPiece match;
  if (!re.Match(Piece(text), pos, text.size(), RE2::UNANCHORED, &match, 1)) {
    return std::nullopt;
  }
  size_t start = match.data() == nullptr
                     ? pos
                     : static_cast<size_t>(match.data() - text.data());
  return std::make_pair(start, start + match.size());
}

Value Find(const CompiledRegex& re, std::string_view text) {
  if (re.re == nullptr) return IllegalRegex(re);
  auto m = MatchAt(*re.re, text, 0);
  if (!m) return Value::String("");
  return Value::String(
      std::string(text.substr(m->first, m->second - m->first)));
}

// Go's Regexp.FindAllString(text, n) (regexp.go allMatches).
Value FindAll(const CompiledRegex& re, std::string_view text, int64_t n) {
  if (re.re == nullptr) return IllegalRegex(re);
  if (n < 0) n = static_cast<int64_t>(text.size()) + 1;
  std::vector<Value> out;
  size_t pos = 0;
  int64_t prev_match_end = -1;
  for (int64_t found = 0; found < n && pos <= text.size();) {
    auto m = MatchAt(*re.re, text, pos);
    if (!m) break;
    bool accept = true;
    if (m->second == pos) {
      // An empty match: not allowed right after the previous match; the
      // scan moves on by one code point.
      if (static_cast<int64_t>(m->first) == prev_match_end) accept = false;
      pos = pos < text.size()
                ? pos + SequenceLength(static_cast<unsigned char>(text[pos]))
                : text.size() + 1;
    } else {
      pos = m->second;
    }
    prev_match_end = static_cast<int64_t>(m->second);
    if (accept) {
      out.push_back(Value::String(
          std::string(text.substr(m->first, m->second - m->first))));
      ++found;
    }
  }
  return Value::List(std::move(out));
}

// Kubernetes library.CostEstimator.CallCost for find and findAll.
uint64_t CostFind(Args args, const Value&) {
  uint64_t str_cost = static_cast<uint64_t>(
      std::ceil((1.0 + static_cast<double>(CostSize(args[0]))) * 0.1));
  uint64_t regex_cost = static_cast<uint64_t>(
      std::ceil(static_cast<double>(CostSize(args[1])) * 0.25));
  return str_cost * regex_cost;
}

// Plan-time compilation of a constant pattern (argument 1).
std::shared_ptr<const CompiledRegex> ConstantPattern(
    absl::Span<const Value* const> constants) {
  if (constants.size() < 2 || constants[1] == nullptr ||
      constants[1]->kind() != K::kString) {
    return nullptr;
  }
  return Compile(constants[1]->string_value());
}

FunctionOverload Overload(std::string function, std::string id,
                          std::vector<ArgType> params, FunctionImpl impl,
                          Specializer specialize) {
  FunctionOverload o;
  o.function = std::move(function);
  o.overload_id = std::move(id);
  o.receiver_style = true;
  o.params = std::move(params);
  o.impl = std::move(impl);
  o.cost = CostFind;
  o.specialize = std::move(specialize);
  o.plan_time_error = [](absl::Span<const Value* const> constants)
      -> std::optional<std::string> {
    auto re = ConstantPattern(constants);
    if (re == nullptr || re->re != nullptr) return std::nullopt;
    return re->error;
  };
  return o;
}

}  // namespace

std::string GoRegexpError(std::string_view pattern) {
  return Compile(pattern)->error;
}

absl::Status RegisterRegexFunctions(FunctionRegistry* registry) {
  const ArgType str = ArgType::Of(K::kString);
  const ArgType num = ArgType::Of(K::kInt);
  std::vector<FunctionOverload> overloads;
  overloads.push_back(Overload(
      "find", "string_find_string", {str, str},
      [](Args a) {
        return Find(*Compile(a[1].string_value()), a[0].string_value());
      },
      [](absl::Span<const Value* const> constants) -> FunctionImpl {
        auto re = ConstantPattern(constants);
        if (re == nullptr) return nullptr;
        return [re](Args a) { return Find(*re, a[0].string_value()); };
      }));
  overloads.push_back(Overload(
      "findAll", "string_find_all_string", {str, str},
      [](Args a) {
        return FindAll(*Compile(a[1].string_value()), a[0].string_value(), -1);
      },
      [](absl::Span<const Value* const> constants) -> FunctionImpl {
        auto re = ConstantPattern(constants);
        if (re == nullptr) return nullptr;
        return [re](Args a) { return FindAll(*re, a[0].string_value(), -1); };
      }));
  overloads.push_back(Overload(
      "findAll", "string_find_all_string_int", {str, str, num},
      [](Args a) {
        return FindAll(*Compile(a[1].string_value()), a[0].string_value(),
                       a[2].int_value());
      },
      [](absl::Span<const Value* const> constants) -> FunctionImpl {
        auto re = ConstantPattern(constants);
        if (re == nullptr) return nullptr;
        return [re](Args a) {
          return FindAll(*re, a[0].string_value(), a[2].int_value());
        };
      }));
  for (FunctionOverload& o : overloads) {
    absl::Status s = registry->Register(std::move(o));
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace draplane::cel::internal
