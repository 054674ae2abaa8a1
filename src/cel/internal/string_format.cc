#include "cel/internal/string_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/go_strconv.h"
#include "common/str_cat.h"

namespace draplane::cel::internal {
namespace {

using Text = absl::StatusOr<std::string>;

absl::Status Fail(std::string message) {
  return absl::InvalidArgumentError(std::move(message));
}

std::string TypeNameOf(const Value& v) { return std::string(v.TypeName()); }

// --- Go fmt building blocks ---

// C's printf("%.*f") (chars_format::fixed) or printf("%.*e")
// (chars_format::scientific) of `d`: exact, rounded half to even, as Go's
// strconv rounds too.
std::string ToChars(double d, std::chars_format format, int precision) {
  // Sign, 309 integer digits, point, exponent, and the fraction.
  std::string out(330 + static_cast<size_t>(precision), '\0');
  auto res =
      std::to_chars(out.data(), out.data() + out.size(), d, format, precision);
  out.resize(static_cast<size_t>(res.ptr - out.data()));
  return out;
}

// Go's %b, %o, %x, %X of an integer: a '-' and the magnitude's digits.
std::string IntegerInBase(bool negative, uint64_t magnitude, unsigned base,
                          bool upper) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string out;
  do {
    out.push_back(digits[magnitude % base]);
    magnitude /= base;
  } while (magnitude != 0);
  if (negative) out.push_back('-');
  std::reverse(out.begin(), out.end());
  return out;
}

std::string SignedInBase(int64_t v, unsigned base, bool upper) {
  uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : v;
  return IntegerInBase(v < 0, magnitude, base, upper);
}

// Go's fmt.Sprintf("%.6f", d) (a plain fmt call, no locale).
std::string GoFixed6(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  return ToChars(d, std::chars_format::fixed, 6);
}

// --- golang.org/x/text/message with the en-US locale ---
//
// cel-go builds the format "%.<precision>f" or "%<precision>e" (the latter
// makes the precision a width) and prints the double with
// message.NewPrinter(en-US).Sprintf.

constexpr char kNoVerb[] = "%!(NOVERB)";

// Whether x/text's format parser reads `n` (printed in decimal) as a width
// or precision: it gives up, leaving the verb unparsed ("%!(NOVERB)"), when
// the number read so far exceeds 10^6 before the last digit.
bool FormatParserAccepts(int64_t n) {
  std::string text = std::to_string(n);
  int64_t value = 0;
  for (char c : text) {
    if (value > 1000000) return false;
    value = value * 10 + (c - '0');
  }
  return true;
}

// The double's magnitude and sign as x/text shows them: NaN has no sign
// and -0.0 shows none (only values below zero do).
std::optional<std::string> SpecialOrSign(double x, std::string* sign) {
  if (std::isnan(x)) return "NaN";
  if (x < 0) *sign = "-";
  if (std::isinf(x)) return *sign + "∞";
  return std::nullopt;
}

// Inserts the en-US group separator into a run of integer digits.
std::string GroupThousands(std::string_view digits) {
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

// "%.<precision>f": x/text's decimal formatter keeps the precision as
// MinFractionDigits (uint8) and MaxFractionDigits (int16): the value is
// rounded (half to even on the exact binary value, like C's printf) to
// MaxFractionDigits places (or to its shortest representation when that
// is negative), then trailing zeros beyond MinFractionDigits are dropped.
// For precisions up to 255 that is plain "%.Nf" with grouping.
std::string LocaleFixed(double x, int64_t precision) {
  if (!FormatParserAccepts(precision)) return kNoVerb;
  std::string sign;
  if (auto special = SpecialOrSign(x, &sign)) return *special;
  const double abs = std::fabs(x);
  const int min_frac = static_cast<uint8_t>(precision);
  const int max_frac = static_cast<int16_t>(precision);
  std::string plain;
  if (max_frac >= 0) {
    plain = ToChars(abs, std::chars_format::fixed, max_frac);
  } else {
    char buf[400];
    auto res =
        std::to_chars(buf, buf + sizeof(buf), abs, std::chars_format::fixed);
    plain.assign(buf, res.ptr);
  }
  std::string_view view = plain;
  size_t dot = view.find('.');
  std::string_view int_part = view.substr(0, dot);
  std::string frac(dot == std::string_view::npos ? std::string_view()
                                                 : view.substr(dot + 1));
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  if (frac.size() < static_cast<size_t>(min_frac)) frac.resize(min_frac, '0');
  std::string out = sign + GroupThousands(int_part);
  if (!frac.empty()) StrAppend(&out, ".", frac);
  return out;
}

// "%<precision>e": x/text's scientific formatter with en-US symbols:
// seven significant digits (one before the point), "×10" and the exponent
// in superscript digits, at least two; then left-padded with spaces to
// the width (counted in runes, taken modulo 2^16). A precision of 0 reads
// as the zero flag ("%0e"), not a width.
std::string LocaleScientific(double x, int64_t precision) {
  static constexpr const char* kSuperscript[] = {"⁰", "¹", "²", "³", "⁴",
                                                 "⁵", "⁶", "⁷", "⁸", "⁹"};
  if (precision != 0 && !FormatParserAccepts(precision)) return kNoVerb;
  const size_t width = static_cast<uint16_t>(precision);
  std::string sign;
  std::string body;
  if (auto special = SpecialOrSign(x, &sign)) {
    body = *special;
  } else {
    std::string plain =  // d.dddddde±XX
        ToChars(std::fabs(x), std::chars_format::scientific, 6);
    size_t e = plain.find('e');
    int exponent = std::stoi(plain.substr(e + 1));
    body = sign + plain.substr(0, e) + "×10";
    if (exponent < 0) body += "⁻";
    std::string digits = std::to_string(std::abs(exponent));
    if (digits.size() < 2) digits.insert(0, "0");
    for (char c : digits) body += kSuperscript[c - '0'];
  }
  size_t runes = Utf8CodePoints(body);
  if (runes < width) body.insert(0, width - runes, ' ');
  return body;
}

// --- Clauses (cel-go ext/formatting.go, stringFormatter) ---

std::string ClauseError(std::string_view what, const Value& v) {
  return StrCat(what, ", was given ", TypeNameOf(v));
}

Text FormatList(const Value& list);
Text FormatMap(const Value& map);

// cel-go's ConvertToType(StringType) of bytes, which fails on invalid
// UTF-8 with an error that FormatString then wraps.
Text BytesAsString(const Value& v) {
  if (!IsValidUtf8(v.string_value())) {
    return Fail(
        "could not convert argument \"invalid UTF-8 in bytes, cannot convert "
        "to string\" to string");
  }
  return std::string(v.string_value());
}

// %s (cel-go FormatString).
Text AsString(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kList:
      return FormatList(v);
    case ValueKind::kMap:
      return FormatMap(v);
    case ValueKind::kInt:
      return std::to_string(v.int_value());
    case ValueKind::kUint:
      return std::to_string(v.uint_value());
    case ValueKind::kDouble:
      return FormatDouble(v.double_value());
    case ValueKind::kBool:
      return std::string(v.bool_value() ? "true" : "false");
    case ValueKind::kString:
    case ValueKind::kType:
      return std::string(v.string_value());
    case ValueKind::kBytes:
      return BytesAsString(v);
    case ValueKind::kTimestamp:
      return FormatTimestamp(v.timestamp_seconds(), v.timestamp_nanos());
    case ValueKind::kDuration:
      return FormatDuration(v.duration_nanos());
    case ValueKind::kNull:
      return std::string("null");
    default:
      return Fail(ClauseError(
          "string clause can only be used on strings, bools, bytes, ints, "
          "doubles, maps, lists, types, durations, and timestamps",
          v));
  }
}

// An element of a list or a value of a map under %s (cel-go clauseForType
// followed by quoteForCEL): a CEL literal.
Text AsElement(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kInt:
    case ValueKind::kUint:
    case ValueKind::kBool:
    case ValueKind::kNull:
    case ValueKind::kType:
    case ValueKind::kList:
    case ValueKind::kMap:
      return AsString(v);
    case ValueKind::kString:
      return StrconvQuote(v.string_value());
    case ValueKind::kBytes: {
      Text s = BytesAsString(v);
      if (!s.ok()) return s;
      return StrCat("b", StrconvQuote(*s));
    }
    case ValueKind::kTimestamp:
      return StrCat("timestamp(",
                    StrconvQuote(FormatTimestamp(v.timestamp_seconds(),
                                                 v.timestamp_nanos())),
                    ")");
    case ValueKind::kDuration:
      return StrCat("duration(",
                    StrconvQuote(FormatDuration(v.duration_nanos())), ")");
    case ValueKind::kDouble: {
      double d = v.double_value();
      std::string s = GoFixed6(d);
      return std::isfinite(d) ? s : StrconvQuote(s);
    }
    default:
      return Fail(StrCat("no formatting function for ", TypeNameOf(v)));
  }
}

Text FormatList(const Value& list) {
  std::string out = "[";
  bool first = true;
  for (const Value& element : list.list()) {
    Text s = AsElement(element);
    if (!s.ok()) return s;
    if (!first) out += ", ";
    first = false;
    out += *s;
  }
  out += "]";
  return out;
}

// Entries as key:value, sorted (stably, bytewise) by the rendered key.
// cel-go walks a Go map, in no fixed order; this walks insertion order.
Text FormatMap(const Value& map) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (const MapData::Entry& entry : map.map().entries()) {
    Text key;
    switch (entry.key.kind()) {
      case ValueKind::kString:
      case ValueKind::kBool:
      case ValueKind::kInt:
      case ValueKind::kUint:
        key = AsElement(entry.key);
        break;
      default:
        return Fail(StrCat("no formatting function for map key of type ",
                           TypeNameOf(entry.key)));
    }
    if (!key.ok()) return key;
    Text value = AsElement(entry.value);
    if (!value.ok()) return value;
    entries.emplace_back(*std::move(key), *std::move(value));
  }
  std::stable_sort(
      entries.begin(), entries.end(),
      [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out = "{";
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0) out += ", ";
    StrAppend(&out, entries[i].first, ":", entries[i].second);
  }
  out += "}";
  return out;
}

// The double a %f or %e clause formats: a double, or one of the strings
// "NaN", "Infinity", "-Infinity".
std::optional<double> FloatArgument(const Value& v) {
  if (v.kind() == ValueKind::kDouble) return v.double_value();
  if (v.kind() == ValueKind::kString) {
    std::string_view s = v.string_value();
    if (s == "NaN") return std::nan("");
    if (s == "Infinity") return HUGE_VAL;
    if (s == "-Infinity") return -HUGE_VAL;
  }
  return std::nullopt;
}

Text Decimal(const Value& v) {
  if (v.kind() == ValueKind::kInt) return std::to_string(v.int_value());
  if (v.kind() == ValueKind::kUint) return std::to_string(v.uint_value());
  return Fail(ClauseError("decimal clause can only be used on integers", v));
}

Text Fixed(const Value& v, int64_t precision) {
  std::optional<double> d = FloatArgument(v);
  if (!d) {
    return Fail(
        ClauseError("fixed-point clause can only be used on doubles", v));
  }
  return LocaleFixed(*d, precision);
}

Text Scientific(const Value& v, int64_t precision) {
  std::optional<double> d = FloatArgument(v);
  if (!d) {
    return Fail(
        ClauseError("scientific clause can only be used on doubles", v));
  }
  return LocaleScientific(*d, precision);
}

Text Binary(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kInt:
      return SignedInBase(v.int_value(), 2, false);
    case ValueKind::kUint:
      return IntegerInBase(false, v.uint_value(), 2, false);
    case ValueKind::kBool:
      return std::string(v.bool_value() ? "1" : "0");
    default:
      return Fail(
          ClauseError("only integers and bools can be formatted as binary", v));
  }
}

Text Hex(const Value& v, bool upper) {
  switch (v.kind()) {
    case ValueKind::kString:
    case ValueKind::kBytes: {
      const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
      std::string out;
      for (char c : v.string_value()) {
        auto b = static_cast<unsigned char>(c);
        out.push_back(digits[b >> 4]);
        out.push_back(digits[b & 0xF]);
      }
      return out;
    }
    case ValueKind::kInt:
      return SignedInBase(v.int_value(), 16, upper);
    case ValueKind::kUint:
      return IntegerInBase(false, v.uint_value(), 16, upper);
    default:
      return Fail(ClauseError(
          "only integers, byte buffers, and strings can be formatted as hex",
          v));
  }
}

Text Octal(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kInt:
      return SignedInBase(v.int_value(), 8, false);
    case ValueKind::kUint:
      return IntegerInBase(false, v.uint_value(), 8, false);
    default:
      return Fail(ClauseError("octal clause can only be used on integers", v));
  }
}

// --- Clause parsing (cel-go parseFormattingClause, parsePrecision) ---

struct Clause {
  char verb;
  std::optional<int64_t> precision;
  size_t length;  // bytes after the '%'
};

// Go's strconv.Atoi on a run of ASCII digits.
absl::StatusOr<int64_t> Atoi(std::string_view digits) {
  if (digits.empty()) {
    return Fail("strconv.Atoi: parsing \"\": invalid syntax");
  }
  uint64_t value = 0;
  for (char c : digits) {
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (value > (static_cast<uint64_t>(INT64_MAX) - d) / 10) {
      return Fail(StrCat("strconv.Atoi: parsing ", StrconvQuote(digits),
                         ": value out of range"));
    }
    value = value * 10 + d;
  }
  return static_cast<int64_t>(value);
}

// Parses the clause in `text` (what follows a '%'; not empty).
absl::StatusOr<Clause> ParseClause(std::string_view text) {
  Clause clause{0, std::nullopt, 0};
  size_t i = 0;
  if (text[0] == '.') {
    i = 1;
    while (true) {
      if (i >= text.size()) {
        return Fail(
            "error while parsing precision: could not find end of precision "
            "specifier");
      }
      if (text[i] < '0' || text[i] > '9') break;
      ++i;
    }
    absl::StatusOr<int64_t> precision = Atoi(text.substr(1, i - 1));
    if (!precision.ok()) {
      return Fail(StrCat(
          "error while parsing precision: error while converting precision "
          "to integer: ",
          precision.status().message()));
    }
    clause.precision = *precision;
  }
  const unsigned char verb = static_cast<unsigned char>(text[i]);
  switch (verb) {
    case 's':
    case 'd':
    case 'f':
    case 'e':
    case 'b':
    case 'x':
    case 'X':
    case 'o':
      clause.verb = static_cast<char>(verb);
      clause.length = i + 1;
      return clause;
    default: {
      // Go prints the byte as the rune of the same value ("%c").
      std::string shown;
      if (verb < 0x80) {
        shown.push_back(static_cast<char>(verb));
      } else {
        shown.push_back(static_cast<char>(0xC0 | (verb >> 6)));
        shown.push_back(static_cast<char>(0x80 | (verb & 0x3F)));
      }
      return Fail(StrCat("unrecognized formatting clause \"", shown, "\""));
    }
  }
}

Text Apply(const Clause& clause, const Value& v) {
  constexpr int64_t kDefaultPrecision = 6;
  int64_t precision = clause.precision.value_or(kDefaultPrecision);
  switch (clause.verb) {
    case 's':
      return AsString(v);
    case 'd':
      return Decimal(v);
    case 'f':
      return Fixed(v, precision);
    case 'e':
      return Scientific(v, precision);
    case 'b':
      return Binary(v);
    case 'x':
    case 'X':
      return Hex(v, clause.verb == 'X');
    default:  // 'o'
      return Octal(v);
  }
}

}  // namespace

Value FormatString(std::string_view format, absl::Span<const Value> args) {
  std::string out;
  size_t arg_index = 0;
  for (size_t i = 0; i < format.size();) {
    if (format[i] != '%') {
      out.push_back(format[i]);
      ++i;
      continue;
    }
    if (i + 1 < format.size() && format[i + 1] == '%') {
      out.push_back('%');
      i += 2;
      continue;
    }
    // cel-go fetches the argument before looking at the clause.
    if (arg_index >= args.size()) {
      return Value::Error(StrCat("index ", arg_index, " out of range"));
    }
    if (i + 1 >= format.size()) return Value::Error("unexpected end of string");
    absl::StatusOr<Clause> clause = ParseClause(format.substr(i + 1));
    if (!clause.ok()) {
      return Value::Error(StrCat("could not parse formatting clause: ",
                                 clause.status().message()));
    }
    Text text = Apply(*clause, args[arg_index]);
    if (!text.ok()) {
      return Value::Error(
          StrCat("error during formatting: ", text.status().message()));
    }
    out += *text;
    i += 1 + clause->length;
    ++arg_index;
  }
  return Value::String(std::move(out));
}

}  // namespace draplane::cel::internal
