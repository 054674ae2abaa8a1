#include "cel/internal/standard_library.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "common/str_cat.h"
#include "re2/re2.h"

namespace draplane::cel::internal {
namespace {

using K = ValueKind;
using Args = absl::Span<const Value>;

constexpr int64_t kNanosPerSecond = 1000000000;

ArgType A(K kind) { return ArgType::Of(kind); }

// --- Cost functions (cel-go interpreter/runtimecost.go) ---

uint64_t CeilTimes(double n, double factor) {
  return static_cast<uint64_t>(std::ceil(n * factor));
}
double Size(const Value& v) { return static_cast<double>(CostSize(v)); }

uint64_t CostTraverseFirst(Args args, const Value&) {
  return CeilTimes(Size(args[0]), 0.1);
}
uint64_t CostInList(Args args, const Value&) { return CostSize(args[1]); }
uint64_t CostMinSize(Args args, const Value&) {
  return CeilTimes(std::min(Size(args[0]), Size(args[1])), 0.1);
}
uint64_t CostSumSize(Args args, const Value&) {
  return CeilTimes(Size(args[0]) + Size(args[1]), 0.1);
}
uint64_t CostMatches(Args args, const Value&) {
  return CeilTimes(1.0 + Size(args[0]), 0.1) * CeilTimes(Size(args[1]), 0.25);
}
uint64_t CostContains(Args args, const Value&) {
  return CeilTimes(Size(args[0]), 0.1) * CeilTimes(Size(args[1]), 0.1);
}

// --- Errors (cel-go texts) ---

Value IntOverflow() { return Value::Error("integer overflow"); }
Value UintOverflow() { return Value::Error("unsigned integer overflow"); }
Value DurationOverflow() { return Value::Error("duration overflow"); }

// --- Arithmetic ---

Value AddInt(Args a) {
  int64_t r;
  if (__builtin_add_overflow(a[0].int_value(), a[1].int_value(), &r)) {
    return IntOverflow();
  }
  return Value::Int(r);
}
Value SubInt(Args a) {
  int64_t r;
  if (__builtin_sub_overflow(a[0].int_value(), a[1].int_value(), &r)) {
    return IntOverflow();
  }
  return Value::Int(r);
}
Value MulInt(Args a) {
  int64_t r;
  if (__builtin_mul_overflow(a[0].int_value(), a[1].int_value(), &r)) {
    return IntOverflow();
  }
  return Value::Int(r);
}
Value DivInt(Args a) {
  int64_t x = a[0].int_value(), y = a[1].int_value();
  if (y == 0) return Value::Error("division by zero");
  if (x == std::numeric_limits<int64_t>::min() && y == -1) return IntOverflow();
  return Value::Int(x / y);
}
Value ModInt(Args a) {
  int64_t x = a[0].int_value(), y = a[1].int_value();
  if (y == 0) return Value::Error("modulus by zero");
  if (x == std::numeric_limits<int64_t>::min() && y == -1) return IntOverflow();
  return Value::Int(x % y);
}
Value AddUint(Args a) {
  uint64_t r;
  if (__builtin_add_overflow(a[0].uint_value(), a[1].uint_value(), &r)) {
    return UintOverflow();
  }
  return Value::Uint(r);
}
Value SubUint(Args a) {
  uint64_t r;
  if (__builtin_sub_overflow(a[0].uint_value(), a[1].uint_value(), &r)) {
    return UintOverflow();
  }
  return Value::Uint(r);
}
Value MulUint(Args a) {
  uint64_t r;
  if (__builtin_mul_overflow(a[0].uint_value(), a[1].uint_value(), &r)) {
    return UintOverflow();
  }
  return Value::Uint(r);
}
Value DivUint(Args a) {
  if (a[1].uint_value() == 0) return Value::Error("division by zero");
  return Value::Uint(a[0].uint_value() / a[1].uint_value());
}
Value ModUint(Args a) {
  if (a[1].uint_value() == 0) return Value::Error("modulus by zero");
  return Value::Uint(a[0].uint_value() % a[1].uint_value());
}

Value AddDurations(int64_t x, int64_t y) {
  int64_t r;
  if (__builtin_add_overflow(x, y, &r)) return DurationOverflow();
  return Value::Duration(r);
}

Value AddTimestampDuration(const Value& ts, int64_t d) {
  return Value::MakeTimestamp(ts.timestamp_seconds() + d / kNanosPerSecond,
                              ts.timestamp_nanos() + d % kNanosPerSecond);
}

Value SubTimestamps(const Value& a, const Value& b) {
  __int128 n =
      (static_cast<__int128>(a.timestamp_seconds()) - b.timestamp_seconds()) *
          kNanosPerSecond +
      (a.timestamp_nanos() - b.timestamp_nanos());
  if (n > std::numeric_limits<int64_t>::max() ||
      n < std::numeric_limits<int64_t>::min()) {
    return DurationOverflow();
  }
  return Value::Duration(static_cast<int64_t>(n));
}

// --- Ordering ---

inline constexpr char kLessName[] = "_<_";
inline constexpr char kLessEqName[] = "_<=_";
inline constexpr char kGreaterName[] = "_>_";
inline constexpr char kGreaterEqName[] = "_>=_";

template <bool (*Pred)(int), const char* kName>
Value Ordered(Args a) {
  bool nan = false;
  std::optional<int> c = CompareValues(a[0], a[1], &nan);
  if (nan) return Value::Error("NaN values cannot be ordered");
  if (!c.has_value()) {
    // Library types without an ordering lack cel-go's comparer trait.
    return Value::Error(StrCat("no such overload: ", kName));
  }
  return Value::Bool(Pred(*c));
}
bool IsLess(int c) { return c < 0; }
bool IsLessEq(int c) { return c <= 0; }
bool IsGreater(int c) { return c > 0; }
bool IsGreaterEq(int c) { return c >= 0; }

// --- Conversions ---

Value IntFromDouble(double d) {
  // cel-go doubleToInt64Checked: strictly inside (MinInt64, MaxInt64) as
  // float64.
  if (std::isnan(d) || d <= -9223372036854775808.0 ||
      d >= 9223372036854775808.0) {
    return IntOverflow();
  }
  return Value::Int(static_cast<int64_t>(d));
}

Value UintFromDouble(double d) {
  if (std::isnan(d) || d < 0 || d >= 18446744073709551616.0) {
    return UintOverflow();
  }
  return Value::Uint(static_cast<uint64_t>(d));
}

// cel-go String.ConvertToType: every parse failure, out-of-range values
// included, is this one error.
Value StringConversionError(std::string_view type) {
  return Value::Error(
      StrCat("type conversion error from 'string' to '", type, "'"));
}

Value IntFromString(std::string_view s) {
  std::string_view digits = s;
  if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
  int64_t v = 0;
  if (digits.empty() || digits[0] == '+' || (digits[0] == '-' && s[0] == '+')) {
    return StringConversionError("int");
  }
  auto [ptr, ec] =
      std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) {
    return StringConversionError("int");
  }
  return Value::Int(v);
}

Value UintFromString(std::string_view s) {
  uint64_t v = 0;
  if (s.empty() || s[0] == '-' || s[0] == '+') {
    return StringConversionError("uint");
  }
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    return StringConversionError("uint");
  }
  return Value::Uint(v);
}

Value DoubleFromString(std::string_view s) {
  std::string str(s);
  if (str.empty() || std::isspace(static_cast<unsigned char>(str[0]))) {
    return StringConversionError("double");
  }
  errno = 0;
  char* end = nullptr;
  double d = std::strtod(str.c_str(), &end);
  if (end != str.c_str() + str.size()) {
    return StringConversionError("double");
  }
  if (errno == ERANGE && std::isinf(d)) {
    return StringConversionError("double");
  }
  return Value::Double(d);
}

Value BoolFromString(std::string_view s) {
  // Go strconv.ParseBool.
  if (s == "1" || s == "t" || s == "T" || s == "true" || s == "TRUE" ||
      s == "True") {
    return Value::Bool(true);
  }
  if (s == "0" || s == "f" || s == "F" || s == "false" || s == "FALSE" ||
      s == "False") {
    return Value::Bool(false);
  }
  return StringConversionError("bool");
}

// --- Time ---

absl::Time ToAbslTime(const Value& ts) {
  return absl::FromUnixSeconds(ts.timestamp_seconds()) +
         absl::Nanoseconds(ts.timestamp_nanos());
}

// Resolves a cel-go time zone argument.
bool LoadZone(std::string_view tz, absl::TimeZone* zone) {
  size_t colon = tz.find(':');
  if (colon == std::string_view::npos) {
    if (tz.empty() || tz == "UTC") {
      *zone = absl::UTCTimeZone();
      return true;
    }
    return absl::LoadTimeZone(std::string(tz), zone);
  }
  // cel-go: strconv.Atoi on both halves; a leading '-' subtracts minutes.
  auto atoi = [](std::string_view s, int* out) {
    if (!s.empty() && s[0] == '+') s.remove_prefix(1);
    if (s.empty()) return false;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
    return ec == std::errc() && ptr == s.data() + s.size();
  };
  int hr = 0, min = 0;
  if (!atoi(tz.substr(0, colon), &hr) || !atoi(tz.substr(colon + 1), &min)) {
    return false;
  }
  int offset_minutes = tz[0] == '-' ? hr * 60 - min : hr * 60 + min;
  *zone = absl::FixedTimeZone(offset_minutes * 60);
  return true;
}

enum class TimeField {
  kFullYear,
  kMonth,
  kDate,
  kDayOfMonth,
  kDayOfWeek,
  kDayOfYear,
  kHours,
  kMinutes,
  kSeconds,
  kMilliseconds,
};

Value TimestampField(const Value& ts, TimeField field,
                     const absl::TimeZone& zone) {
  if (field == TimeField::kMilliseconds) {
    return Value::Int(ts.timestamp_nanos() / 1000000);
  }
  absl::CivilSecond cs = absl::ToCivilSecond(ToAbslTime(ts), zone);
  switch (field) {
    case TimeField::kFullYear:
      return Value::Int(cs.year());
    case TimeField::kMonth:
      return Value::Int(cs.month() - 1);
    case TimeField::kDate:
      return Value::Int(cs.day());
    case TimeField::kDayOfMonth:
      return Value::Int(cs.day() - 1);
    case TimeField::kDayOfWeek: {
      // absl: Monday = 0 ... Sunday = 6; CEL: Sunday = 0.
      int w = static_cast<int>(absl::GetWeekday(absl::CivilDay(cs)));
      return Value::Int((w + 1) % 7);
    }
    case TimeField::kDayOfYear:
      return Value::Int(absl::GetYearDay(absl::CivilDay(cs)) - 1);
    case TimeField::kHours:
      return Value::Int(cs.hour());
    case TimeField::kMinutes:
      return Value::Int(cs.minute());
    case TimeField::kSeconds:
      return Value::Int(cs.second());
    default:
      return Value::Error("unsupported timestamp field");
  }
}

bool IsZeroValue(const Value& v) {
  switch (v.kind()) {
    case K::kNull:
      return true;
    case K::kBool:
      return !v.bool_value();
    case K::kInt:
      return v.int_value() == 0;
    case K::kUint:
      return v.uint_value() == 0;
    case K::kDouble:
      return v.double_value() == 0;
    case K::kString:
    case K::kBytes:
      return v.string_value().empty();
    case K::kList:
      return v.list().empty();
    case K::kMap:
      return v.map().size() == 0;
    case K::kDuration:
      return v.duration_nanos() == 0;
    case K::kTimestamp:
      return v.timestamp_seconds() == 0 && v.timestamp_nanos() == 0;
    case K::kOptional:
      return !v.optional_has_value();
    default:
      return false;
  }
}

// --- Regular expressions ---

std::shared_ptr<const RE2> CompileRegex(std::string_view pattern) {
  RE2::Options opts;
  opts.set_log_errors(false);
  return std::make_shared<const RE2>(
      re2::StringPiece(pattern.data(), pattern.size()), opts);
}

Value MatchWith(const RE2& re, std::string_view text) {
  if (!re.ok()) {
    return Value::Error(StrCat("invalid regular expression: ", re.error()));
  }
  return Value::Bool(
      RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), re));
}

Value Matches(Args a) {
  std::shared_ptr<const RE2> re = CompileRegex(a[1].string_value());
  return MatchWith(*re, a[0].string_value());
}

FunctionImpl SpecializeMatches(absl::Span<const Value* const> constants) {
  if (constants.size() != 2 || constants[1] == nullptr ||
      constants[1]->kind() != K::kString) {
    return nullptr;
  }
  std::shared_ptr<const RE2> re = CompileRegex(constants[1]->string_value());
  return [re](Args a) { return MatchWith(*re, a[0].string_value()); };
}

// --- Registration helper ---

class Registrar {
 public:
  explicit Registrar(FunctionRegistry* r) : r_(r) {}

  void Add(std::string fn, std::string id, bool receiver,
           std::vector<ArgType> params, FunctionImpl impl,
           CallCostFn cost = nullptr, bool strict = true,
           Specializer specialize = nullptr) {
    FunctionOverload o;
    o.function = std::move(fn);
    o.overload_id = std::move(id);
    o.receiver_style = receiver;
    o.params = std::move(params);
    o.impl = std::move(impl);
    o.cost = cost;
    o.strict = strict;
    o.specialize = std::move(specialize);
    absl::Status s = r_->Register(std::move(o));
    if (!s.ok() && status_.ok()) status_ = s;
  }
  // Global and receiver forms with the same implementation.
  void AddBoth(const std::string& fn, const std::string& global_id,
               const std::string& receiver_id, std::vector<ArgType> params,
               FunctionImpl impl, CallCostFn receiver_cost = nullptr) {
    Add(fn, global_id, false, params, impl);
    Add(fn, receiver_id, true, std::move(params), std::move(impl),
        receiver_cost);
  }
  absl::Status status() const { return status_; }

 private:
  FunctionRegistry* r_;
  absl::Status status_;
};

// Logic, negation and arithmetic.
void RegisterOperators(Registrar& r) {
  r.Add("!_", "logical_not", false, {A(K::kBool)},
        [](Args a) { return Value::Bool(!a[0].bool_value()); });
  for (const char* name : {"@not_strictly_false", "__not_strictly_false__"}) {
    r.Add(
        name, "not_strictly_false", false, {ArgType::Any()},
        [](Args a) { return Value::Bool(!a[0].IsFalse()); }, nullptr,
        /*strict=*/false);
  }
  r.Add("-_", "negate_int64", false, {A(K::kInt)}, [](Args a) {
    if (a[0].int_value() == std::numeric_limits<int64_t>::min()) {
      return IntOverflow();
    }
    return Value::Int(-a[0].int_value());
  });
  r.Add("-_", "negate_double", false, {A(K::kDouble)},
        [](Args a) { return Value::Double(-a[0].double_value()); });

  // _+_
  r.Add("_+_", "add_int64", false, {A(K::kInt), A(K::kInt)}, AddInt);
  r.Add("_+_", "add_uint64", false, {A(K::kUint), A(K::kUint)}, AddUint);
  r.Add("_+_", "add_double", false, {A(K::kDouble), A(K::kDouble)}, [](Args a) {
    return Value::Double(a[0].double_value() + a[1].double_value());
  });
  r.Add(
      "_+_", "add_string", false, {A(K::kString), A(K::kString)},
      [](Args a) {
        std::string s(a[0].string_value());
        s.append(a[1].string_value());
        return Value::String(std::move(s));
      },
      CostSumSize);
  r.Add(
      "_+_", "add_bytes", false, {A(K::kBytes), A(K::kBytes)},
      [](Args a) {
        std::string s(a[0].string_value());
        s.append(a[1].string_value());
        return Value::Bytes(std::move(s));
      },
      CostSumSize);
  r.Add("_+_", "add_list", false, {A(K::kList), A(K::kList)}, [](Args a) {
    if (a[1].list().empty()) return a[0];
    if (a[0].list().empty()) return a[1];
    std::vector<Value> out;
    out.reserve(a[0].list().size() + a[1].list().size());
    out.insert(out.end(), a[0].list().begin(), a[0].list().end());
    out.insert(out.end(), a[1].list().begin(), a[1].list().end());
    return Value::List(std::move(out));
  });
  r.Add("_+_", "add_timestamp_duration", false,
        {A(K::kTimestamp), A(K::kDuration)}, [](Args a) {
          return AddTimestampDuration(a[0], a[1].duration_nanos());
        });
  r.Add("_+_", "add_duration_timestamp", false,
        {A(K::kDuration), A(K::kTimestamp)}, [](Args a) {
          return AddTimestampDuration(a[1], a[0].duration_nanos());
        });
  r.Add("_+_", "add_duration_duration", false,
        {A(K::kDuration), A(K::kDuration)}, [](Args a) {
          return AddDurations(a[0].duration_nanos(), a[1].duration_nanos());
        });

  // _-_
  r.Add("_-_", "subtract_int64", false, {A(K::kInt), A(K::kInt)}, SubInt);
  r.Add("_-_", "subtract_uint64", false, {A(K::kUint), A(K::kUint)}, SubUint);
  r.Add("_-_", "subtract_double", false, {A(K::kDouble), A(K::kDouble)},
        [](Args a) {
          return Value::Double(a[0].double_value() - a[1].double_value());
        });
  r.Add("_-_", "subtract_timestamp_timestamp", false,
        {A(K::kTimestamp), A(K::kTimestamp)},
        [](Args a) { return SubTimestamps(a[0], a[1]); });
  r.Add("_-_", "subtract_timestamp_duration", false,
        {A(K::kTimestamp), A(K::kDuration)}, [](Args a) {
          int64_t d = a[1].duration_nanos();
          if (d == std::numeric_limits<int64_t>::min()) {
            return Value::Error("timestamp overflow");
          }
          return AddTimestampDuration(a[0], -d);
        });
  r.Add("_-_", "subtract_duration_duration", false,
        {A(K::kDuration), A(K::kDuration)}, [](Args a) {
          int64_t r;
          if (__builtin_sub_overflow(a[0].duration_nanos(),
                                     a[1].duration_nanos(), &r)) {
            return DurationOverflow();
          }
          return Value::Duration(r);
        });

  // _*_ _/_ _%_
  r.Add("_*_", "multiply_int64", false, {A(K::kInt), A(K::kInt)}, MulInt);
  r.Add("_*_", "multiply_uint64", false, {A(K::kUint), A(K::kUint)}, MulUint);
  r.Add("_*_", "multiply_double", false, {A(K::kDouble), A(K::kDouble)},
        [](Args a) {
          return Value::Double(a[0].double_value() * a[1].double_value());
        });
  r.Add("_/_", "divide_int64", false, {A(K::kInt), A(K::kInt)}, DivInt);
  r.Add("_/_", "divide_uint64", false, {A(K::kUint), A(K::kUint)}, DivUint);
  r.Add("_/_", "divide_double", false, {A(K::kDouble), A(K::kDouble)},
        [](Args a) {
          return Value::Double(a[0].double_value() / a[1].double_value());
        });
  r.Add("_%_", "modulo_int64", false, {A(K::kInt), A(K::kInt)}, ModInt);
  r.Add("_%_", "modulo_uint64", false, {A(K::kUint), A(K::kUint)}, ModUint);
}

// Ordering: same-kind overloads plus cel-go's cross-numeric ones; `in`.
void RegisterOrdering(Registrar& r) {
  struct Op {
    const char* name;
    const char* id;
    FunctionImpl impl;
  };
  const Op ops[] = {
      {kLessName, "less", Ordered<IsLess, kLessName>},
      {kLessEqName, "less_equals", Ordered<IsLessEq, kLessEqName>},
      {kGreaterName, "greater", Ordered<IsGreater, kGreaterName>},
      {kGreaterEqName, "greater_equals", Ordered<IsGreaterEq, kGreaterEqName>}};
  const std::pair<K, const char*> kinds[] = {
      {K::kBool, "bool"},         {K::kString, "string"},
      {K::kBytes, "bytes"},       {K::kTimestamp, "timestamp"},
      {K::kDuration, "duration"}, {K::kOpaque, "opaque"}};
  const std::pair<K, const char*> numbers[] = {
      {K::kInt, "int64"}, {K::kUint, "uint64"}, {K::kDouble, "double"}};
  for (const Op& op : ops) {
    for (const auto& [kind, kname] : kinds) {
      CallCostFn cost =
          (kind == K::kString || kind == K::kBytes) ? CostMinSize : nullptr;
      r.Add(op.name, StrCat(op.id, "_", kname), false, {A(kind), A(kind)},
            op.impl, cost);
    }
    for (const auto& [k1, n1] : numbers) {
      for (const auto& [k2, n2] : numbers) {
        std::string id =
            k1 == k2 ? StrCat(op.id, "_", n1) : StrCat(op.id, "_", n1, "_", n2);
        r.Add(op.name, id, false, {A(k1), A(k2)}, op.impl);
      }
    }
  }

  // @in
  r.Add(
      "@in", "in_list", false, {ArgType::Any(), A(K::kList)},
      [](Args a) {
        for (const Value& e : a[1].list()) {
          if (ValuesEqual(a[0], e)) return Value::Bool(true);
        }
        return Value::Bool(false);
      },
      CostInList);
  r.Add("@in", "in_map", false, {ArgType::Any(), A(K::kMap)}, [](Args a) {
    return Value::Bool(a[1].map().FindEntry(a[0]) != nullptr);
  });
}

void RegisterStrings(Registrar& r) {
  for (K kind : {K::kString, K::kBytes}) {
    r.AddBoth("size", StrCat("size_", KindName(kind)),
              StrCat(KindName(kind), "_size"), {A(kind)}, [](Args a) {
                return Value::Int(static_cast<int64_t>(a[0].string_size()));
              });
  }
  r.AddBoth("size", "size_list", "list_size", {A(K::kList)}, [](Args a) {
    return Value::Int(static_cast<int64_t>(a[0].list().size()));
  });
  r.AddBoth("size", "size_map", "map_size", {A(K::kMap)}, [](Args a) {
    return Value::Int(static_cast<int64_t>(a[0].map().size()));
  });
  r.Add(
      "contains", "contains_string", true, {A(K::kString), A(K::kString)},
      [](Args a) {
        return Value::Bool(a[0].string_value().find(a[1].string_value()) !=
                           std::string_view::npos);
      },
      CostContains);
  r.Add(
      "startsWith", "starts_with_string", true, {A(K::kString), A(K::kString)},
      [](Args a) {
        std::string_view s = a[0].string_value(), p = a[1].string_value();
        return Value::Bool(s.substr(0, p.size()) == p);
      },
      CostTraverseFirst);
  r.Add(
      "endsWith", "ends_with_string", true, {A(K::kString), A(K::kString)},
      [](Args a) {
        std::string_view s = a[0].string_value(), p = a[1].string_value();
        return Value::Bool(s.size() >= p.size() &&
                           s.substr(s.size() - p.size()) == p);
      },
      CostTraverseFirst);
  // cel-go charges the size-proportional cost only for the receiver form
  // (overload "matches_string"); the global form costs 1.
  r.Add("matches", "matches", false, {A(K::kString), A(K::kString)}, Matches,
        nullptr, true, SpecializeMatches);
  r.Add("matches", "matches_string", true, {A(K::kString), A(K::kString)},
        Matches, CostMatches, true, SpecializeMatches);
}

void RegisterConversions(Registrar& r) {
  auto id = [](Args a) { return a[0]; };
  // int()
  r.Add("int", "int64_to_int64", false, {A(K::kInt)}, id);
  r.Add("int", "uint64_to_int64", false, {A(K::kUint)}, [](Args a) {
    if (a[0].uint_value() >
        static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return IntOverflow();
    }
    return Value::Int(static_cast<int64_t>(a[0].uint_value()));
  });
  r.Add("int", "double_to_int64", false, {A(K::kDouble)},
        [](Args a) { return IntFromDouble(a[0].double_value()); });
  r.Add("int", "string_to_int64", false, {A(K::kString)},
        [](Args a) { return IntFromString(a[0].string_value()); });
  r.Add("int", "timestamp_to_int64", false, {A(K::kTimestamp)},
        [](Args a) { return Value::Int(a[0].timestamp_seconds()); });
  // uint()
  r.Add("uint", "uint64_to_uint64", false, {A(K::kUint)}, id);
  r.Add("uint", "int64_to_uint64", false, {A(K::kInt)}, [](Args a) {
    if (a[0].int_value() < 0) return UintOverflow();
    return Value::Uint(static_cast<uint64_t>(a[0].int_value()));
  });
  r.Add("uint", "double_to_uint64", false, {A(K::kDouble)},
        [](Args a) { return UintFromDouble(a[0].double_value()); });
  r.Add("uint", "string_to_uint64", false, {A(K::kString)},
        [](Args a) { return UintFromString(a[0].string_value()); });
  // double()
  r.Add("double", "double_to_double", false, {A(K::kDouble)}, id);
  r.Add("double", "int64_to_double", false, {A(K::kInt)}, [](Args a) {
    return Value::Double(static_cast<double>(a[0].int_value()));
  });
  r.Add("double", "uint64_to_double", false, {A(K::kUint)}, [](Args a) {
    return Value::Double(static_cast<double>(a[0].uint_value()));
  });
  r.Add("double", "string_to_double", false, {A(K::kString)},
        [](Args a) { return DoubleFromString(a[0].string_value()); });
  // string()
  r.Add("string", "string_to_string", false, {A(K::kString)}, id);
  r.Add("string", "bool_to_string", false, {A(K::kBool)}, [](Args a) {
    return Value::String(a[0].bool_value() ? "true" : "false");
  });
  r.Add("string", "int64_to_string", false, {A(K::kInt)},
        [](Args a) { return Value::String(std::to_string(a[0].int_value())); });
  r.Add("string", "uint64_to_string", false, {A(K::kUint)}, [](Args a) {
    return Value::String(std::to_string(a[0].uint_value()));
  });
  r.Add("string", "double_to_string", false, {A(K::kDouble)}, [](Args a) {
    return Value::String(FormatDouble(a[0].double_value()));
  });
  r.Add(
      "string", "bytes_to_string", false, {A(K::kBytes)},
      [](Args a) {
        if (!IsValidUtf8(a[0].string_value())) {
          return Value::Error(
              "invalid UTF-8 in bytes, cannot convert to string");
        }
        return Value::String(std::string(a[0].string_value()));
      },
      CostTraverseFirst);
  r.Add("string", "timestamp_to_string", false, {A(K::kTimestamp)}, [](Args a) {
    return Value::String(
        FormatTimestamp(a[0].timestamp_seconds(), a[0].timestamp_nanos()));
  });
  r.Add("string", "duration_to_string", false, {A(K::kDuration)}, [](Args a) {
    return Value::String(FormatDuration(a[0].duration_nanos()));
  });
  // bytes()
  r.Add("bytes", "bytes_to_bytes", false, {A(K::kBytes)}, id);
  r.Add(
      "bytes", "string_to_bytes", false, {A(K::kString)},
      [](Args a) { return Value::Bytes(std::string(a[0].string_value())); },
      CostTraverseFirst);
  // bool()
  r.Add("bool", "bool_to_bool", false, {A(K::kBool)}, id);
  r.Add("bool", "string_to_bool", false, {A(K::kString)},
        [](Args a) { return BoolFromString(a[0].string_value()); });
  // dyn(), type()
  r.Add("dyn", "to_dyn", false, {ArgType::Any()}, id);
  r.Add("type", "type", false, {ArgType::Any()},
        [](Args a) { return Value::Type(a[0].TypeName()); });
  // duration(), timestamp()
  r.Add("duration", "duration_to_duration", false, {A(K::kDuration)}, id);
  r.Add("duration", "string_to_duration", false, {A(K::kString)}, [](Args a) {
    int64_t nanos;
    if (!ParseDuration(a[0].string_value(), &nanos)) {
      return Value::Error(
          StrCat("invalid duration: '", a[0].string_value(), "'"));
    }
    return Value::Duration(nanos);
  });
  r.Add("timestamp", "timestamp_to_timestamp", false, {A(K::kTimestamp)}, id);
  r.Add("timestamp", "string_to_timestamp", false, {A(K::kString)}, [](Args a) {
    int64_t secs;
    int32_t nanos;
    if (!ParseTimestamp(a[0].string_value(), &secs, &nanos)) {
      return Value::Error(
          StrCat("invalid timestamp: '", a[0].string_value(), "'"));
    }
    return Value::MakeTimestamp(secs, nanos);
  });
  r.Add("timestamp", "int64_to_timestamp", false, {A(K::kInt)},
        [](Args a) { return Value::MakeTimestamp(a[0].int_value(), 0); });
}

void RegisterTimeAccessors(Registrar& r) {
  struct Accessor {
    const char* name;
    const char* id;
    TimeField field;
  };
  const Accessor accessors[] = {
      {"getFullYear", "timestamp_to_year", TimeField::kFullYear},
      {"getMonth", "timestamp_to_month", TimeField::kMonth},
      {"getDate", "timestamp_to_day_of_month_1_based", TimeField::kDate},
      {"getDayOfMonth", "timestamp_to_day_of_month", TimeField::kDayOfMonth},
      {"getDayOfWeek", "timestamp_to_day_of_week", TimeField::kDayOfWeek},
      {"getDayOfYear", "timestamp_to_day_of_year", TimeField::kDayOfYear},
      {"getHours", "timestamp_to_hours", TimeField::kHours},
      {"getMinutes", "timestamp_to_minutes", TimeField::kMinutes},
      {"getSeconds", "timestamp_to_seconds", TimeField::kSeconds},
      {"getMilliseconds", "timestamp_to_milliseconds",
       TimeField::kMilliseconds},
  };
  for (const Accessor& acc : accessors) {
    TimeField field = acc.field;
    r.Add(acc.name, acc.id, true, {A(K::kTimestamp)}, [field](Args a) {
      return TimestampField(a[0], field, absl::UTCTimeZone());
    });
    r.Add(acc.name, StrCat(acc.id, "_with_tz"), true,
          {A(K::kTimestamp), A(K::kString)}, [field](Args a) {
            absl::TimeZone zone;
            if (!LoadZone(a[1].string_value(), &zone)) {
              return Value::Error(
                  StrCat("invalid time zone: '", a[1].string_value(), "'"));
            }
            return TimestampField(a[0], field, zone);
          });
  }
  struct DurationAccessor {
    const char* name;
    const char* id;
    int64_t unit;
  };
  const DurationAccessor durations[] = {
      {"getHours", "duration_to_hours", 3600 * kNanosPerSecond},
      {"getMinutes", "duration_to_minutes", 60 * kNanosPerSecond},
      {"getSeconds", "duration_to_seconds", kNanosPerSecond},
      {"getMilliseconds", "duration_to_milliseconds", 1000000},
  };
  for (const DurationAccessor& acc : durations) {
    int64_t unit = acc.unit;
    r.Add(acc.name, acc.id, true, {A(K::kDuration)},
          [unit](Args a) { return Value::Int(a[0].duration_nanos() / unit); });
  }
}

// cel.@mapInsert, the helper the transformMap/transformMapEntry macros
// expand into (cel-go ext/comprehensions.go): inserting a key that is
// already present is an error, as in cel-go.
void RegisterMapInsert(Registrar& r) {
  auto insert = [](const Value& map,
                   std::vector<std::pair<Value, Value>> add) -> Value {
    std::vector<std::pair<Value, Value>> entries;
    entries.reserve(map.map().size() + add.size());
    for (const auto& e : map.map().entries()) {
      entries.push_back({e.key, e.value});
    }
    for (auto& kv : add) {
      if (map.map().FindEntry(kv.first) != nullptr) {
        return Value::Error(StrCat("insert failed: key ",
                                   kv.first.DebugString(), " already exists"));
      }
      entries.push_back(std::move(kv));
    }
    return Value::Map(std::move(entries));
  };
  r.Add("cel.@mapInsert", "cel_@mapInsert_map_key_value", false,
        {ArgType::Of(ValueKind::kMap), ArgType::Any(), ArgType::Any()},
        [insert](Args a) {
          return insert(a[0], {{a[1], a[2]}});
        });
  r.Add("cel.@mapInsert", "cel_@mapInsert_map_map", false,
        {ArgType::Of(ValueKind::kMap), ArgType::Of(ValueKind::kMap)},
        [insert](Args a) {
          std::vector<std::pair<Value, Value>> add;
          for (const auto& e : a[1].map().entries()) {
            add.push_back({e.key, e.value});
          }
          return insert(a[0], std::move(add));
        });
}

void RegisterOptionals(Registrar& r) {
  r.Add("optional.of", "optional_of", false, {ArgType::Any()},
        [](Args a) { return Value::OptionalOf(a[0]); });
  r.Add("optional.ofNonZeroValue", "optional_ofNonZeroValue", false,
        {ArgType::Any()}, [](Args a) {
          return IsZeroValue(a[0]) ? Value::OptionalNone()
                                   : Value::OptionalOf(a[0]);
        });
  r.Add("optional.none", "optional_none", false, {},
        [](Args) { return Value::OptionalNone(); });
  r.Add("hasValue", "optional_hasValue", true, {A(K::kOptional)},
        [](Args a) { return Value::Bool(a[0].optional_has_value()); });
  r.Add("value", "optional_value", true, {A(K::kOptional)}, [](Args a) {
    if (!a[0].optional_has_value()) {
      return Value::Error("optional.none() dereference");
    }
    return a[0].optional_value();
  });
  // The interpreter short-circuits these two (cel-go evaluates the
  // argument only when the receiver is none); these implementations serve
  // the generic path.
  r.Add("orValue", "optional_orValue_value", true,
        {A(K::kOptional), ArgType::Any()}, [](Args a) {
          return a[0].optional_has_value() ? a[0].optional_value() : a[1];
        });
  r.Add("or", "optional_or_optional", true, {A(K::kOptional), A(K::kOptional)},
        [](Args a) { return a[0].optional_has_value() ? a[0] : a[1]; });
}

}  // namespace

bool TimeZoneOffset(std::string_view tz, int64_t unix_seconds,
                    int64_t* offset_seconds) {
  absl::TimeZone zone;
  if (!LoadZone(tz, &zone)) return false;
  *offset_seconds = zone.At(absl::FromUnixSeconds(unix_seconds)).offset;
  return true;
}

bool ParseDuration(std::string_view s, int64_t* nanos) {
  // Go time.ParseDuration.
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") {
    *nanos = 0;
    return true;
  }
  if (s.empty()) return false;
  unsigned __int128 total = 0;
  const unsigned __int128 kLimit = static_cast<unsigned __int128>(1) << 63;
  while (!s.empty()) {
    if (!(s[0] == '.' || (s[0] >= '0' && s[0] <= '9'))) return false;
    // Integer part.
    unsigned __int128 v = 0;
    size_t i = 0;
    bool any_digits = false;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      v = v * 10 + (s[i] - '0');
      if (v > kLimit) return false;
      ++i;
      any_digits = true;
    }
    // Fraction.
    uint64_t frac = 0;
    double scale = 1;
    if (i < s.size() && s[i] == '.') {
      ++i;
      bool overflow = false;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        any_digits = true;
        if (!overflow) {
          if (frac > (std::numeric_limits<uint64_t>::max() - 9) / 10) {
            overflow = true;
          } else {
            frac = frac * 10 + (s[i] - '0');
            scale *= 10;
          }
        }
        ++i;
      }
    }
    if (!any_digits) return false;
    s.remove_prefix(i);
    // Unit.
    size_t u = 0;
    while (u < s.size() && s[u] != '.' && !(s[u] >= '0' && s[u] <= '9')) ++u;
    std::string_view unit_name = s.substr(0, u);
    s.remove_prefix(u);
    uint64_t unit;
    if (unit_name == "ns") {
      unit = 1;
    } else if (unit_name == "us" || unit_name == "\xc2\xb5s" ||
               unit_name == "\xce\xbcs") {
      unit = 1000;
    } else if (unit_name == "ms") {
      unit = 1000000;
    } else if (unit_name == "s") {
      unit = kNanosPerSecond;
    } else if (unit_name == "m") {
      unit = 60 * kNanosPerSecond;
    } else if (unit_name == "h") {
      unit = 3600 * kNanosPerSecond;
    } else {
      return false;
    }
    v *= unit;
    if (v > kLimit) return false;
    if (frac > 0) {
      v += static_cast<uint64_t>(static_cast<double>(frac) *
                                 (static_cast<double>(unit) / scale));
      if (v > kLimit) return false;
    }
    total += v;
    if (total > kLimit) return false;
  }
  if (!neg && total == kLimit) return false;
  *nanos = neg ? static_cast<int64_t>(-static_cast<__int128>(total))
               : static_cast<int64_t>(total);
  return true;
}

bool ParseTimestamp(std::string_view text, int64_t* seconds, int32_t* nanos) {
  absl::Time t;
  std::string err;
  if (!absl::ParseTime("%Y-%m-%d%ET%H:%M:%E*S%Ez", std::string(text), &t,
                       &err)) {
    return false;
  }
  // Year must be four digits (Go's RFC 3339 layout).
  if (text.size() < 5 || text[4] != '-') return false;
  int64_t s = absl::ToUnixSeconds(t);
  absl::Duration rem = t - absl::FromUnixSeconds(s);
  *seconds = s;
  *nanos = static_cast<int32_t>(absl::ToInt64Nanoseconds(rem));
  return true;
}

absl::Status RegisterStandardFunctions(FunctionRegistry* registry) {
  Registrar r(registry);
  RegisterOperators(r);
  RegisterOrdering(r);
  RegisterStrings(r);
  RegisterConversions(r);
  RegisterTimeAccessors(r);
  RegisterOptionals(r);
  RegisterMapInsert(r);
  return r.status();
}

}  // namespace draplane::cel::internal
