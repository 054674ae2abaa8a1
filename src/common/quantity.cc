#include "common/quantity.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/str_cat.h"

namespace draplane {
namespace {

// Upstream's error texts (quantity.go), verbatim.
constexpr std::string_view kErrFormatWrong =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr std::string_view kErrNumeric =
    "unable to parse numeric part of quantity";
constexpr std::string_view kErrSuffix = "unable to parse quantity's suffix";

// Upstream maxInt64Factors: the fast path takes at most 18 digits.
constexpr int64_t kMaxInt64Factors = 18;
// Upstream Nano scale: parsed values are rounded (away from zero) to 1e-9.
constexpr int64_t kNanoScale = -9;
constexpr std::string_view kMaxInt64Digits = "9223372036854775807";
constexpr std::string_view kMinInt64MagnitudeDigits = "9223372036854775808";

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

absl::Status InvalidArgument(std::string_view message) {
  return absl::InvalidArgumentError(
      absl::string_view(message.data(), message.size()));
}

// ---------------------------------------------------------------------------
// Unsigned decimal digit strings (most significant digit first). These are
// the magnitudes of Quantity values; all routines are O(length).

std::string_view StripLeadingZeros(std::string_view d) {
  size_t i = 0;
  while (i < d.size() && d[i] == '0') ++i;
  return d.substr(i);
}

// Moves trailing zeros of `digits` into `exponent`; clears both for zero.
void Normalize(std::string& digits, int64_t& exponent) {
  const size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) {
    digits.clear();
    exponent = 0;
    return;
  }
  if (first > 0) digits.erase(0, first);
  const size_t last = digits.find_last_not_of('0');
  exponent += static_cast<int64_t>(digits.size() - 1 - last);
  digits.resize(last + 1);
}

// digits * m for a small multiplier.
std::string MultiplySmall(std::string_view digits, uint32_t m) {
  std::string out(digits.size() + 11, '0');
  uint64_t carry = 0;
  size_t o = out.size();
  for (size_t i = digits.size(); i-- > 0;) {
    const uint64_t v = static_cast<uint64_t>(digits[i] - '0') * m + carry;
    out[--o] = static_cast<char>('0' + v % 10);
    carry = v / 10;
  }
  while (carry > 0) {
    out[--o] = static_cast<char>('0' + carry % 10);
    carry /= 10;
  }
  return std::string(StripLeadingZeros(out));
}

// digits / m (quotient returned, remainder stored) for a small divisor.
std::string DivideSmall(std::string_view digits, uint32_t m,
                        uint32_t* remainder) {
  std::string out;
  out.reserve(digits.size());
  uint64_t rem = 0;
  for (char c : digits) {
    rem = rem * 10 + static_cast<uint64_t>(c - '0');
    out.push_back(static_cast<char>('0' + rem / m));
    rem %= m;
  }
  *remainder = static_cast<uint32_t>(rem);
  return std::string(StripLeadingZeros(out));
}

// a + b (same alignment).
std::string AddDigits(std::string_view a, std::string_view b) {
  if (a.size() < b.size()) std::swap(a, b);
  std::string out(a.size() + 1, '0');
  int carry = 0;
  size_t ia = a.size(), ib = b.size(), o = out.size();
  while (ia > 0) {
    int v = (a[--ia] - '0') + carry;
    if (ib > 0) v += b[--ib] - '0';
    out[--o] = static_cast<char>('0' + v % 10);
    carry = v / 10;
  }
  out[0] = static_cast<char>('0' + carry);
  return std::string(StripLeadingZeros(out));
}

// a - b for a >= b (same alignment).
std::string SubDigits(std::string_view a, std::string_view b) {
  std::string out(a.size(), '0');
  int borrow = 0;
  size_t ia = a.size(), ib = b.size();
  while (ia > 0) {
    int v = (a[--ia] - '0') - borrow;
    if (ib > 0) v -= b[--ib] - '0';
    borrow = v < 0 ? 1 : 0;
    if (v < 0) v += 10;
    out[ia] = static_cast<char>('0' + v);
  }
  return std::string(StripLeadingZeros(out));
}

// Compares unsigned decimal integers given without leading zeros.
int CompareDigits(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

// Compares the magnitudes a*10^ea and b*10^eb of two normalized values
// (no leading or trailing zeros, both non-empty) without aligning them.
int CompareMagnitudes(std::string_view a, int64_t ea, std::string_view b,
                      int64_t eb) {
  const int64_t ta = static_cast<int64_t>(a.size()) + ea;  // 10^(ta-1) <= |a|
  const int64_t tb = static_cast<int64_t>(b.size()) + eb;
  if (ta != tb) return ta < tb ? -1 : 1;
  // Same leading decimal position: digits line up from the left, and a
  // longer string has a non-zero digit where the shorter one has none.
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

// Parses a normalized magnitude that fits in uint64 (at most 20 digits and
// no overflow); returns false otherwise.
bool DigitsToUint64(std::string_view d, uint64_t* out) {
  if (d.size() > 20) return false;
  uint64_t v = 0;
  for (char c : d) {
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10) return false;
    v = v * 10 + digit;
  }
  *out = v;
  return true;
}

// Go strconv.ParseInt(s, 10, 64).
bool GoParseInt64(std::string_view s, int64_t* out) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  uint64_t v = 0;
  const uint64_t limit =
      negative ? (uint64_t{1} << 63) : (uint64_t{1} << 63) - 1;
  for (char c : s) {
    if (!IsDigit(c)) return false;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (limit - digit) / 10) return false;
    v = v * 10 + digit;
  }
  *out = negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  return true;
}

// ---------------------------------------------------------------------------
// Upstream parseQuantityString: a permissive scanner separating the number
// from its suffix. Returns false for ErrFormatWrong.
struct Scanned {
  bool positive = true;
  std::string_view value;  // sign + number as written (used for ErrNumeric)
  std::string_view num;    // integer digits, leading zeros stripped, or "0"
  std::string_view denom;  // fraction digits as written
  std::string_view suffix;
};

bool ScanQuantity(std::string_view str, Scanned* out) {
  static constexpr std::string_view kZero = "0";
  static constexpr std::string_view kSuffixChars = "eEinumkKMGTP";
  size_t pos = 0;
  const size_t end = str.size();
  if (pos < end) {
    if (str[0] == '-') {
      out->positive = false;
      ++pos;
    } else if (str[0] == '+') {
      ++pos;
    }
  }
  // Strip leading zeros; a string of only zeros is "0".
  for (size_t i = pos;; ++i) {
    if (i >= end) {
      out->num = kZero;
      out->value = kZero;
      return true;
    }
    if (str[i] != '0') break;
    ++pos;
  }
  // Integer digits.
  for (size_t i = pos;; ++i) {
    if (i >= end) {
      out->num = str.substr(pos, end - pos);
      out->value = str.substr(0, end);
      return true;
    }
    if (!IsDigit(str[i])) {
      out->num = str.substr(pos, i - pos);
      pos = i;
      break;
    }
  }
  if (out->num.empty()) out->num = kZero;
  // Fraction digits (upstream accepts "1." and "1.G").
  if (pos < end && str[pos] == '.') {
    ++pos;
    for (size_t i = pos;; ++i) {
      if (i >= end) {
        out->denom = str.substr(pos, end - pos);
        out->value = str.substr(0, end);
        return true;
      }
      if (!IsDigit(str[i])) {
        out->denom = str.substr(pos, i - pos);
        pos = i;
        break;
      }
    }
  }
  out->value = str.substr(0, pos);
  // Suffix: letters from the suffix alphabet, an optional sign, digits.
  const size_t suffix_start = pos;
  for (size_t i = pos;; ++i) {
    if (i >= end) {
      out->suffix = str.substr(suffix_start);
      return true;
    }
    if (kSuffixChars.find(str[i]) == std::string_view::npos) {
      pos = i;
      break;
    }
  }
  if (pos < end && (str[pos] == '-' || str[pos] == '+')) ++pos;
  for (size_t i = pos;; ++i) {
    if (i >= end) {
      out->suffix = str.substr(suffix_start);
      return true;
    }
    if (!IsDigit(str[i])) break;
  }
  return false;
}

// Upstream quantitySuffixer.interpret.
struct SuffixInfo {
  int base = 10;         // 10 or 2
  int64_t exponent = 0;  // power of base
  Quantity::Format format = Quantity::Format::kDecimalSI;
};

bool InterpretSuffix(std::string_view s, SuffixInfo* out) {
  struct Entry {
    std::string_view suffix;
    int base;
    int exponent;
    Quantity::Format format;
  };
  static constexpr Entry kTable[] = {
      {"", 10, 0, Quantity::Format::kDecimalSI},
      {"n", 10, -9, Quantity::Format::kDecimalSI},
      {"u", 10, -6, Quantity::Format::kDecimalSI},
      {"m", 10, -3, Quantity::Format::kDecimalSI},
      {"k", 10, 3, Quantity::Format::kDecimalSI},
      {"M", 10, 6, Quantity::Format::kDecimalSI},
      {"G", 10, 9, Quantity::Format::kDecimalSI},
      {"T", 10, 12, Quantity::Format::kDecimalSI},
      {"P", 10, 15, Quantity::Format::kDecimalSI},
      {"E", 10, 18, Quantity::Format::kDecimalSI},
      {"Ki", 2, 10, Quantity::Format::kBinarySI},
      {"Mi", 2, 20, Quantity::Format::kBinarySI},
      {"Gi", 2, 30, Quantity::Format::kBinarySI},
      {"Ti", 2, 40, Quantity::Format::kBinarySI},
      {"Pi", 2, 50, Quantity::Format::kBinarySI},
      {"Ei", 2, 60, Quantity::Format::kBinarySI},
  };
  for (const Entry& e : kTable) {
    if (e.suffix == s) {
      *out = SuffixInfo{e.base, e.exponent, e.format};
      return true;
    }
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    int64_t parsed = 0;
    if (!GoParseInt64(s.substr(1), &parsed)) return false;
    // Upstream: int32(parsed), a two's-complement truncation.
    const int32_t exponent = static_cast<int32_t>(
        static_cast<uint32_t>(static_cast<uint64_t>(parsed)));
    *out = SuffixInfo{10, exponent, Quantity::Format::kDecimalExponent};
    return true;
  }
  return false;
}

// Go's unicode.IsSpace for one UTF-8 encoded code point at the start (or the
// end) of `s`; returns its byte length, or 0 if it is not white space.
size_t SpaceLengthAt(std::string_view s, bool from_end) {
  if (s.empty()) return 0;
  auto ascii_space = [](unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
           c == '\r';
  };
  const unsigned char edge =
      static_cast<unsigned char>(from_end ? s.back() : s.front());
  if (ascii_space(edge)) return 1;
  // Multi-byte White_Space code points: U+0085, U+00A0, U+1680,
  // U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
  static constexpr std::string_view kSpaces[] = {
      "\xC2\x85",     "\xC2\xA0",     "\xE1\x9A\x80", "\xE2\x80\x80",
      "\xE2\x80\x81", "\xE2\x80\x82", "\xE2\x80\x83", "\xE2\x80\x84",
      "\xE2\x80\x85", "\xE2\x80\x86", "\xE2\x80\x87", "\xE2\x80\x88",
      "\xE2\x80\x89", "\xE2\x80\x8A", "\xE2\x80\xA8", "\xE2\x80\xA9",
      "\xE2\x80\xAF", "\xE2\x81\x9F", "\xE3\x80\x80",
  };
  for (std::string_view sp : kSpaces) {
    if (from_end ? s.ends_with(sp) : s.starts_with(sp)) return sp.size();
  }
  return 0;
}

std::string_view GoTrimSpace(std::string_view s) {
  while (size_t n = SpaceLengthAt(s, /*from_end=*/false)) s.remove_prefix(n);
  while (size_t n = SpaceLengthAt(s, /*from_end=*/true)) s.remove_suffix(n);
  return s;
}

// Upstream decSuffixes (base 10) for an exponent that is a multiple of 3.
bool DecimalSISuffix(int64_t exponent, std::string_view* out) {
  switch (exponent) {
    case -9:
      *out = "n";
      return true;
    case -6:
      *out = "u";
      return true;
    case -3:
      *out = "m";
      return true;
    case 0:
      *out = "";
      return true;
    case 3:
      *out = "k";
      return true;
    case 6:
      *out = "M";
      return true;
    case 9:
      *out = "G";
      return true;
    case 12:
      *out = "T";
      return true;
    case 15:
      *out = "P";
      return true;
    case 18:
      *out = "E";
      return true;
    default:
      return false;
  }
}

constexpr std::string_view kBinarySuffixes[] = {"",   "Ki", "Mi", "Gi",
                                                "Ti", "Pi", "Ei"};

}  // namespace

std::string_view Quantity::FormatName(Format format) {
  switch (format) {
    case Format::kDecimalExponent:
      return "DecimalExponent";
    case Format::kBinarySI:
      return "BinarySI";
    case Format::kDecimalSI:
      return "DecimalSI";
  }
  return "";
}

absl::StatusOr<Quantity> Quantity::Parse(std::string_view str) {
  if (str.empty()) return InvalidArgument(kErrFormatWrong);
  if (str == "0") {
    Quantity q;
    q.cached_ = "0";
    return q;
  }

  Scanned sc;
  if (!ScanQuantity(str, &sc)) {
    return InvalidArgument(kErrFormatWrong);
  }
  SuffixInfo suffix;
  if (!InterpretSuffix(sc.suffix, &suffix)) {
    return InvalidArgument(kErrSuffix);
  }

  const int64_t num_len = static_cast<int64_t>(sc.num.size());
  const int64_t denom_len = static_cast<int64_t>(sc.denom.size());
  std::string shifted = StrCat(sc.num, sc.denom);

  // Upstream's int64 fast path: taken for short inputs at scale >= nano. It
  // matters here only because it decides (a) whether upstream keeps the
  // input text as String() and (b) whether a digit-less number reaches
  // inf.Dec (ErrNumeric). The value computed below is the same either way.
  bool fast_path = false;
  if (suffix.base == 10) {
    fast_path = kMaxInt64Factors - (num_len + denom_len) >= 0 &&
                suffix.exponent - denom_len >= kNanoScale;
  } else {
    // precision = 15 - len(num) - int32(float32(exponent)*3/10) - 1, with
    // exponent in {10, 20, ..., 60}, where the float math is exact.
    fast_path =
        denom_len == 0 && 15 - num_len - (suffix.exponent * 3 / 10) - 1 >= 0;
  }

  if (fast_path) {
    // Upstream stores the input as the cached String() if it "looks"
    // canonical. shifted has at most 18 digits here.
    const int64_t scale = suffix.base == 10 ? suffix.exponent - denom_len : 0;
    bool keep_input = false;
    if (suffix.format == Format::kBinarySI) {
      uint64_t value = 0;
      DigitsToUint64(shifted, &value);
      keep_input = (value & 0x07) != 0;
    } else {
      keep_input = scale % 3 == 0 &&
                   !std::string_view(shifted).ends_with("000") &&
                   shifted[0] != '0';
    }
    Quantity q;
    q.format_ = suffix.format;
    q.digits_ = std::move(shifted);
    q.exponent_ = scale;
    if (suffix.base == 2) {
      for (int64_t left = suffix.exponent; left > 0; left -= 10) {
        q.digits_ = MultiplySmall(q.digits_, 1024);
      }
    }
    Normalize(q.digits_, q.exponent_);
    q.sign_ = q.digits_.empty() ? 0 : (sc.positive ? 1 : -1);
    if (keep_input) q.cached_ = std::string(str);
    return q;
  }

  // Upstream's inf.Dec path.
  if (std::none_of(sc.value.begin(), sc.value.end(), IsDigit)) {
    return InvalidArgument(kErrNumeric);
  }
  Quantity q;
  q.format_ = suffix.format;
  q.digits_ = std::move(shifted);
  q.exponent_ = -denom_len;
  if (suffix.base == 10) {
    q.exponent_ += suffix.exponent;
  } else {
    for (int64_t left = suffix.exponent; left > 0; left -= 10) {
      q.digits_ = MultiplySmall(q.digits_, 1024);
    }
  }
  Normalize(q.digits_, q.exponent_);

  if (!q.digits_.empty() && q.exponent_ < kNanoScale) {
    // Round the magnitude up (away from zero) to a multiple of 1n: "if you
    // want some resources, you should get some resources".
    const int64_t keep =
        static_cast<int64_t>(q.digits_.size()) + q.exponent_ - kNanoScale;
    if (keep <= 0) {
      q.digits_ = "1";
    } else {
      // The dropped digits end in a non-zero digit (normalized), so the
      // kept part is always incremented.
      q.digits_ = AddDigits(std::string_view(q.digits_).substr(0, keep), "1");
    }
    q.exponent_ = kNanoScale;
    Normalize(q.digits_, q.exponent_);
  }

  if (q.format_ == Format::kBinarySI && !q.digits_.empty()) {
    // Upstream caps BinarySI magnitudes at 2^63-1 ("8Ei" -> 2^63-1).
    if (CompareMagnitudes(q.digits_, q.exponent_, kMaxInt64Digits, 0) > 0) {
      q.digits_ = std::string(kMaxInt64Digits);
      q.exponent_ = 0;
    }
    // A BinarySI value in (0, 1) becomes DecimalSI.
    if (CompareMagnitudes(q.digits_, q.exponent_, "1", 0) < 0) {
      q.format_ = Format::kDecimalSI;
    }
  }
  q.sign_ = q.digits_.empty() ? 0 : (sc.positive ? 1 : -1);
  return q;
}

absl::StatusOr<Quantity> Quantity::ParseTrimmed(std::string_view s) {
  return Parse(GoTrimSpace(s));
}

Quantity Quantity::FromInt64(int64_t value, Format format) {
  Quantity q;
  q.format_ = format;
  if (value == 0) return q;
  const uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value)
                                       : static_cast<uint64_t>(value);
  q.digits_ = std::to_string(magnitude);
  Normalize(q.digits_, q.exponent_);
  q.sign_ = value < 0 ? -1 : 1;
  return q;
}

Quantity Quantity::FromMilli(int64_t value, Format format) {
  Quantity q = FromInt64(value, format);
  if (!q.IsZero()) q.exponent_ -= 3;
  return q;
}

Quantity Quantity::FromScaled(int64_t value, int32_t scale) {
  return FromScaled(value, scale, Format::kDecimalSI);
}

Quantity Quantity::FromScaled(int64_t value, int32_t scale, Format format) {
  Quantity q = FromInt64(value, format);
  if (!q.IsZero()) q.exponent_ += scale;
  return q;
}

std::string Quantity::ToString() const {
  if (!cached_.empty()) return cached_;
  return CanonicalString();
}

std::string Quantity::DecimalString(Format format) const {
  // Upstream AsCanonicalBytes: all factors of ten go to the exponent, which
  // is then lowered to a multiple of three.
  std::string number = digits_;
  int64_t exponent = exponent_;
  const int64_t r = ((exponent % 3) + 3) % 3;
  number.append(static_cast<size_t>(r), '0');
  exponent -= r;

  std::string out = sign_ < 0 ? "-" : "";
  out += number;
  std::string_view si;
  if (format == Format::kDecimalSI && DecimalSISuffix(exponent, &si)) {
    out += si;
  } else if (exponent != 0) {
    // DecimalExponent, and DecimalSI past its suffix table (upstream
    // #140459 falls back to "e" notation instead of dropping the exponent).
    StrAppend(&out, "e", exponent);
  }
  return out;
}

std::string Quantity::CanonicalString() const {
  if (IsZero()) return "0";
  if (format_ != Format::kBinarySI) return DecimalString(format_);

  // BinarySI: only whole numbers with |q| >= 1024 keep the binary form.
  if ((CompareInt64(-1024) > 0 && CompareInt64(1024) < 0) || !IsInteger()) {
    return DecimalString(Format::kDecimalSI);
  }
  // An exponent of 70 or more means at least 2^70 = 1024^7 divides the
  // value: there is no suffix past Ei, and upstream renders it as decimal.
  if (exponent_ >= 70) return DecimalString(Format::kDecimalSI);
  std::string n = digits_;
  n.append(static_cast<size_t>(exponent_), '0');
  size_t k = 0;
  while (k < 7) {
    uint32_t remainder = 0;
    std::string q = DivideSmall(n, 1024, &remainder);
    if (remainder != 0) break;
    n = std::move(q);
    ++k;
  }
  if (k >= 7) return DecimalString(Format::kDecimalSI);
  return StrCat(sign_ < 0 ? "-" : "", n, kBinarySuffixes[k]);
}

int Quantity::Compare(const Quantity& other) const {
  if (sign_ != other.sign_) return sign_ < other.sign_ ? -1 : 1;
  if (sign_ == 0) return 0;
  return sign_ *
         CompareMagnitudes(digits_, exponent_, other.digits_, other.exponent_);
}

int Quantity::CompareInt64(int64_t value) const {
  return Compare(FromInt64(value));
}

absl::Status Quantity::Add(const Quantity& y) { return AddSigned(y, y.sign_); }

absl::Status Quantity::Sub(const Quantity& y) { return AddSigned(y, -y.sign_); }

absl::Status Quantity::AddSigned(const Quantity& y, int y_sign) {
  if (y_sign != 0 && sign_ != 0) {
    const int64_t gap = exponent_ > y.exponent_ ? exponent_ - y.exponent_
                                                : y.exponent_ - exponent_;
    if (gap > kMaxAlignmentDigits) {
      return absl::OutOfRangeError(
          StrCat("quantity arithmetic: the exact result of ", ToString(),
                 y_sign == y.sign_ ? " + " : " - ", y.ToString(), " needs ",
                 gap, " digits of alignment, more than the limit of ",
                 kMaxAlignmentDigits));
    }
  }
  cached_.clear();
  if (sign_ == 0) format_ = y.format_;  // Upstream: zero adopts y's format.
  if (y_sign == 0) return absl::OkStatus();
  if (sign_ == 0) {
    sign_ = y_sign;
    digits_ = y.digits_;
    exponent_ = y.exponent_;
    return absl::OkStatus();
  }
  // Align both magnitudes to the smaller exponent.
  const int64_t exponent = std::min(exponent_, y.exponent_);
  std::string a = digits_;
  a.append(static_cast<size_t>(exponent_ - exponent), '0');
  std::string b = y.digits_;
  b.append(static_cast<size_t>(y.exponent_ - exponent), '0');
  if (sign_ == y_sign) {
    digits_ = AddDigits(a, b);
  } else {
    const int c = CompareDigits(a, b);
    if (c == 0) {
      sign_ = 0;
      digits_.clear();
      exponent_ = 0;
      return absl::OkStatus();
    }
    if (c > 0) {
      digits_ = SubDigits(a, b);
    } else {
      digits_ = SubDigits(b, a);
      sign_ = y_sign;
    }
  }
  exponent_ = exponent;
  Normalize(digits_, exponent_);
  return absl::OkStatus();
}

void Quantity::Neg() {
  cached_.clear();
  sign_ = -sign_;
}

int64_t Quantity::ScaledValue(int32_t scale) const {
  if (IsZero()) return 0;
  const int64_t e = exponent_ - scale;
  const int64_t len = static_cast<int64_t>(digits_.size());
  // Magnitude rounded away from zero, or nullopt past 2^64.
  std::optional<uint64_t> magnitude;
  if (e >= 0) {
    if (len + e <= 20) {
      std::string whole = digits_;
      whole.append(static_cast<size_t>(e), '0');
      uint64_t v = 0;
      if (DigitsToUint64(whole, &v)) magnitude = v;
    }
  } else if (len + e <= 0) {
    magnitude = 1;  // 0 < |q| < 1 at this scale.
  } else {
    // Drop -e digits; they end in a non-zero digit, so round up.
    uint64_t v = 0;
    if (DigitsToUint64(std::string_view(digits_).substr(0, len + e), &v) &&
        v < std::numeric_limits<uint64_t>::max()) {
      magnitude = v + 1;
    }
  }
  constexpr uint64_t kMaxPositive =
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (sign_ > 0) {
    if (!magnitude || *magnitude > kMaxPositive) {
      return std::numeric_limits<int64_t>::max();
    }
    return static_cast<int64_t>(*magnitude);
  }
  if (!magnitude || *magnitude > kMaxPositive + 1) {
    return std::numeric_limits<int64_t>::min();
  }
  return static_cast<int64_t>(0 - *magnitude);
}

std::optional<int64_t> Quantity::AsInt64() const {
  if (IsZero()) return 0;
  if (exponent_ < 0) return std::nullopt;
  if (static_cast<int64_t>(digits_.size()) + exponent_ > 19) {
    return std::nullopt;
  }
  std::string whole = digits_;
  whole.append(static_cast<size_t>(exponent_), '0');
  const int c = CompareDigits(
      whole, sign_ > 0 ? kMaxInt64Digits : kMinInt64MagnitudeDigits);
  if (c > 0) return std::nullopt;
  uint64_t v = 0;
  DigitsToUint64(whole, &v);
  return sign_ > 0 ? static_cast<int64_t>(v) : static_cast<int64_t>(0 - v);
}

double Quantity::AsApproximateFloat64() const {
  if (IsZero()) return 0.0;
  // No radix character is involved, so strtod's locale does not matter.
  const std::string text = StrCat(digits_, "e", exponent_);
  const double magnitude = std::strtod(text.c_str(), nullptr);
  return sign_ < 0 ? -magnitude : magnitude;
}

std::ostream& operator<<(std::ostream& os, const Quantity& q) {
  return os << q.ToString();
}

}  // namespace draplane
