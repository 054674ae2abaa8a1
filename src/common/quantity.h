// An exact re-implementation of Kubernetes' resource.Quantity
// (k8s.io/apimachinery/pkg/api/resource: quantity.go, amount.go, suffix.go,
// math.go, scale_int.go).
//
// Serialization format, exactly as upstream documents and parses it:
//
//   <quantity>        ::= <signedNumber><suffix>
//   <signedNumber>    ::= <number> | <sign><number>
//   <number>          ::= <digits> | <digits>.<digits> | <digits>. | .<digits>
//   <suffix>          ::= <binarySI> | <decimalExponent> | <decimalSI>
//   <binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei
//   <decimalSI>       ::= n | u | m | "" | k | M | G | T | P | E
//   <decimalExponent> ::= "e" <signedNumber> | "E" <signedNumber>
//
// Value semantics: a Quantity is an exact decimal number (arbitrary precision
// mantissa, 64-bit base-10 exponent). It never holds a floating point value.
// Parsing keeps the exact value, except that (like upstream) a value finer
// than 1n is rounded away from zero to the next multiple of 1n, and a
// BinarySI value is capped in magnitude at 2^63-1.
//
// The Format a quantity was parsed with is remembered and used by ToString(),
// which reproduces upstream's String() byte for byte (see ToString()).
//
// Equality and ordering (==, <, Compare, ...) are numeric and ignore the
// format: "1Ki" == "1024" == "1.024k".
//
// Thread safety: const methods may be called concurrently; the class has no
// hidden mutable state (unlike upstream, String() does not cache).
#ifndef DRAPLANE_COMMON_QUANTITY_H_
#define DRAPLANE_COMMON_QUANTITY_H_

#include <compare>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace draplane {

class Quantity {
 public:
  // The three formattings of a quantity (upstream's Format). A quantity
  // remembers the format of the suffix it was parsed with.
  enum class Format {
    kDecimalExponent,  // e.g. 12e6
    kBinarySI,         // e.g. 12Mi (12 * 2^20)
    kDecimalSI,        // e.g. 12M  (12 * 10^6)
  };

  // Upstream's names: "DecimalExponent", "BinarySI", "DecimalSI".
  static std::string_view FormatName(Format format);

  // Largest exponent distance between the operands of Add/Sub. The exact sum
  // of x*10^a and y*10^b needs |a-b| extra digits, so a larger gap is refused
  // (OutOfRange) instead of materializing a gigantic number. Values parsed
  // from any ordinary manifest are many orders of magnitude inside this.
  static constexpr int64_t kMaxAlignmentDigits = 4096;

  // Zero, DecimalSI. ToString() is "0".
  Quantity() = default;

  // Upstream ParseQuantity: the exact grammar and results of upstream,
  // including its permissive corners (".", "-", "1.", "k" and "Ki" all parse,
  // as zero or one; leading zeros are allowed). No whitespace is trimmed.
  //
  // Errors (InvalidArgument), with upstream's exact messages:
  //  - empty input or a character outside the grammar (ErrFormatWrong):
  //    "quantities must match the regular expression
  //     '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
  //  - an unknown suffix, e.g. "1i", "1mi", "1K", "1e",
  //  "1e99999999999999999999"
  //    (ErrSuffix): "unable to parse quantity's suffix"
  //  - a value with no digits that takes upstream's inf.Dec path, e.g. "e-10"
  //    or "Pi" (ErrNumeric): "unable to parse numeric part of quantity"
  //
  // Known divergence: upstream stores the exponent of an "e<n>" suffix as
  // int32(n) (two's-complement wrap; reproduced here) and then does its
  // scale arithmetic in int32 as well; this class does that arithmetic in
  // 64 bits, so only inputs whose exponent is within ~20 of the int32 limits
  // can differ.
  static absl::StatusOr<Quantity> Parse(std::string_view s);

  // Parse() after trimming leading and trailing white space the way
  // upstream's UnmarshalJSON/UnmarshalCBOR do (Go strings.TrimSpace: ASCII
  // space, \t \n \v \f \r and the Unicode White_Space characters).
  static absl::StatusOr<Quantity> ParseTrimmed(std::string_view s);

  // Upstream NewQuantity(value, format).
  static Quantity FromInt64(int64_t value, Format format = Format::kDecimalSI);
  // Upstream NewMilliQuantity(value, format): value * 10^-3.
  static Quantity FromMilli(int64_t value, Format format = Format::kDecimalSI);
  // Upstream NewScaledQuantity(value, scale): value * 10^scale, DecimalSI.
  static Quantity FromScaled(int64_t value, int32_t scale);
  // Upstream NewDecimalQuantity(inf.NewDec(value, -scale), format):
  // value * 10^scale in the given format.
  static Quantity FromScaled(int64_t value, int32_t scale, Format format);

  Format format() const { return format_; }

  // Upstream String(). Returns the canonical form (CanonicalString()),
  // except where upstream's parser keeps the input text verbatim: upstream's
  // ParseQuantity fast path treats some inputs as already canonical and
  // returns them unchanged from String(). That includes forms that are not
  // canonical ("1.050", "+1", "01", "1E3", "100.035k"; see kubernetes issue
  // #138165). This reproduces it: such a quantity returns its input text
  // until it is changed by Add, Sub or Neg.
  std::string ToString() const;

  // Upstream CanonicalizeBytes (what String() returns when nothing is
  // cached): the number is rendered with no fractional digits, the largest
  // exponent possible, and the quantity's format:
  //  - DecimalSI: exponent a multiple of 3 with suffix n u m "" k M G T P E
  //    ("1.5" -> "1500m", "1000M" -> "1G"); an exponent with no SI suffix
  //    (above E or below n) falls back to "e" notation ("1000E" -> "1e21";
  //    upstream #140459).
  //  - DecimalExponent: exponent a multiple of 3, "e<exp>" ("1e100" ->
  //    "10e99", "1.5e3" -> "1500"; exponent 0 has no suffix).
  //  - BinarySI: the largest power of 1024 suffix ("1.5Gi" -> "1536Mi").
  //    Values in (-1024, 1024) and non-integers are rendered as DecimalSI
  //    ("0.5Ki" -> "512", "1.1Ki" -> "1126400m"); an integer with more than
  //    six factors of 1024 (past Ei) is rendered as DecimalSI as well.
  //  - zero is always "0"; negative values get a leading "-".
  std::string CanonicalString() const;

  // -1, 0 or 1 as *this is less than, equal to or greater than `other`.
  // Exact; never materializes large exponents.
  int Compare(const Quantity& other) const;
  // Upstream CmpInt64: Compare against an integer.
  int CompareInt64(int64_t value) const;

  // -1, 0 or 1.
  int Sign() const { return sign_; }
  bool IsZero() const { return sign_ == 0; }
  // True iff the value is a whole number (zero included).
  bool IsInteger() const { return sign_ == 0 || exponent_ >= 0; }

  // Upstream Add/Sub: exact *this += y / *this -= y. If *this is zero before
  // the operation, it takes y's format (upstream rule); otherwise it keeps
  // its own. Returns OutOfRange, leaving *this unchanged, if the exact result
  // would need more than kMaxAlignmentDigits digits of alignment (e.g.
  // "1e5000" + "1"); upstream would build that number.
  absl::Status Add(const Quantity& y);
  absl::Status Sub(const Quantity& y);
  // Upstream Neg: *this = -*this (format kept).
  void Neg();

  // Upstream ScaledValue: ceil(|q| / 10^scale) with q's sign, i.e. rounded
  // away from zero (upstream #138510), saturated to [INT64_MIN, INT64_MAX]
  // (upstream's int64 path saturates; its inf.Dec path silently wraps).
  // A non-zero value too small for the scale returns 1 or -1.
  int64_t ScaledValue(int32_t scale) const;
  // Upstream Value(): ScaledValue(0). "1.1" -> 2, "-1.1" -> -2, "1n" -> 1.
  int64_t Value() const { return ScaledValue(0); }
  // Upstream MilliValue(): ScaledValue(-3). "1.0001" -> 1001.
  int64_t MilliValue() const { return ScaledValue(-3); }

  // The value as an int64 iff it is a whole number in int64 range.
  // Divergence: upstream AsInt64 also answers false for values it happens to
  // hold in its inf.Dec fallback or at a negative int64 scale (e.g. "1000m",
  // "9223372036854775807"; upstream's own tests mark those "should be"); this
  // answers by value only.
  std::optional<int64_t> AsInt64() const;

  // The value as the nearest double (correctly rounded, like upstream
  // AsFloat64Slow; upstream's AsApproximateFloat64 may be one ulp off).
  // Out of range values give +/-infinity, values too small give +/-0.
  double AsApproximateFloat64() const;

  friend bool operator==(const Quantity& a, const Quantity& b) {
    return a.Compare(b) == 0;
  }
  // Numeric order; equal values with different formats are equivalent, not
  // identical, hence weak ordering.
  friend std::weak_ordering operator<=>(const Quantity& a, const Quantity& b) {
    const int c = a.Compare(b);
    return c < 0   ? std::weak_ordering::less
           : c > 0 ? std::weak_ordering::greater
                   : std::weak_ordering::equivalent;
  }

  // Hashes the numeric value (consistent with ==).
  template <typename H>
  friend H AbslHashValue(H h, const Quantity& q) {
    return H::combine(std::move(h), q.sign_, q.digits_, q.exponent_);
  }

  // Prints ToString().
  friend std::ostream& operator<<(std::ostream& os, const Quantity& q);

 private:
  // Value = sign_ * digits_ * 10^exponent_, where digits_ is a decimal
  // integer without leading or trailing zeros ("" iff zero; then sign_ == 0
  // and exponent_ == 0). The representation of a value is therefore unique.
  // (Members ordered for size: 80 bytes.)
  std::string digits_;
  // Upstream's cached string `s`: set by Parse when upstream would keep the
  // input text, cleared by every mutation.
  std::string cached_;
  int64_t exponent_ = 0;
  int sign_ = 0;
  Format format_ = Format::kDecimalSI;

  absl::Status AddSigned(const Quantity& y, int y_sign);
  std::string DecimalString(Format format) const;
};

}  // namespace draplane

#endif  // DRAPLANE_COMMON_QUANTITY_H_
