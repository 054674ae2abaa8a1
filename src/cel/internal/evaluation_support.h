// What the interpreter's plan nodes share (interpreter.cc plans them,
// evaluation_nodes.h defines them): the evaluation frame with its cost
// accounting, and cel-go's error values, field selection and indexing.
// Private to the cel library.
#ifndef DRAPLANE_CEL_INTERNAL_EVALUATION_SUPPORT_H_
#define DRAPLANE_CEL_INTERNAL_EVALUATION_SUPPORT_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "cel/internal/interpreter.h"
#include "common/str_cat.h"

namespace draplane::cel::internal::evaluation {

// --- Evaluation state ---

inline const Value& CancelledError() {
  static const Value* v = new Value(Value::Error(kCostLimitExceededMessage));
  return *v;
}

struct Frame {
  const Activation& activation;
  Value* slots;
  uint64_t limit;
  bool presence_test_has_cost;
  uint64_t cost = 0;
  bool cancelled = false;

  // Adds `c` to the running cost; false (and `cancelled`) once the limit is
  // exceeded (cel-go checks after every observed step).
  bool Charge(uint64_t c) {
    if (__builtin_add_overflow(cost, c, &cost)) {
      cost = std::numeric_limits<uint64_t>::max();
    }
    if (cost > limit) cancelled = true;
    return !cancelled;
  }
};

// cel-go computes size-proportional costs in float64; reproduce its
// rounding exactly (e.g. ceil(70 * 0.1) == 8).
inline uint64_t CeilTimes(double n, double factor) {
  return static_cast<uint64_t>(std::ceil(n * factor));
}

inline Value NoSuchKey(const Value& key) {
  return Value::Error(StrCat("no such key: ", KeyText(key)));
}

inline Value NoSuchOverload(std::string_view function,
                            absl::Span<const Value> args) {
  std::string kinds;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) kinds.append(", ");
    kinds.append(args[i].TypeName());
  }
  return Value::Error(StrCat("no such overload: ", function, "(", kinds, ")"));
}

// cel-go's error when no overload accepts the runtime arguments depends on
// how the function is bound (common/stdlib/standard.go, common/decls):
//  - functions with per-overload bindings (conversions, the extension and
//    Kubernetes libraries) fail their type guard with
//    "no such overload: f(int, string)" (NoSuchOverload above);
//  - the standard operators bound as one "singleton" gated on an operand
//    trait call the first operand's trait method when it has the trait
//    (which answers "no such overload" for a wrong second operand), else
//    its Receive method when it is a receiver type ("no such overload"),
//    else fail with "no such overload: f";
//  - a few bindings answer "no such overload" for any operands (`!`, `in`,
//    the string predicates, and `matches` with a constant pattern, which
//    cel-go's regex optimisation replaces).
// The trait bits of cel-go's runtime types (common/types/types.go).
enum OperandTrait : uint16_t {
  kAdder = 1 << 0,
  kComparer = 1 << 1,
  kDivider = 1 << 2,
  kModder = 1 << 3,
  kMultiplier = 1 << 4,
  kNegator = 1 << 5,
  kSubtractor = 1 << 6,
  kSizer = 1 << 7,
  kMatcher = 1 << 8,
  kReceiver = 1 << 9,
};

inline uint16_t OperandTraits(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kBool:
      return kComparer | kNegator;
    case ValueKind::kInt:
      return kAdder | kComparer | kDivider | kModder | kMultiplier | kNegator |
             kSubtractor;
    case ValueKind::kUint:
      return kAdder | kComparer | kDivider | kModder | kMultiplier |
             kSubtractor;
    case ValueKind::kDouble:
      return kAdder | kComparer | kDivider | kMultiplier | kNegator |
             kSubtractor;
    case ValueKind::kString:
      return kAdder | kComparer | kMatcher | kReceiver | kSizer;
    case ValueKind::kBytes:
      return kAdder | kComparer | kSizer;
    case ValueKind::kList:
      return kAdder | kSizer;
    case ValueKind::kMap:
      return kSizer;
    case ValueKind::kTimestamp:
      return kAdder | kComparer | kReceiver | kSubtractor;
    case ValueKind::kDuration:
      return kAdder | kComparer | kNegator | kReceiver | kSubtractor;
    default:
      // null, type, optional and the library types (Kubernetes' object
      // types only have the field-tester and indexer traits).
      return 0;
  }
}

// How a function reports operands no overload accepts.
struct NoMatchRule {
  enum Kind : uint8_t { kSignature, kPlain, kTrait };
  Kind kind = kSignature;
  uint16_t trait = 0;
};

inline NoMatchRule NoMatchRuleFor(std::string_view function,
                                  bool constant_second_arg) {
  struct Entry {
    std::string_view function;
    uint16_t trait;
  };
  static constexpr Entry kSingletons[] = {
      {"_+_", kAdder},     {"_-_", kSubtractor}, {"_*_", kMultiplier},
      {"_/_", kDivider},   {"_%_", kModder},     {"-_", kNegator},
      {"_<_", kComparer},  {"_<=_", kComparer},  {"_>_", kComparer},
      {"_>=_", kComparer}, {"size", kSizer},     {"matches", kMatcher},
  };
  if (function == "!_" || function == "@in" || function == "contains" ||
      function == "startsWith" || function == "endsWith" ||
      (function == "matches" && constant_second_arg)) {
    return {NoMatchRule::kPlain, 0};
  }
  for (const Entry& e : kSingletons) {
    if (e.function == function) return {NoMatchRule::kTrait, e.trait};
  }
  return {};
}

inline Value NoMatchingOverload(std::string_view function, NoMatchRule rule,
                                absl::Span<const Value> args) {
  switch (rule.kind) {
    case NoMatchRule::kSignature:
      return NoSuchOverload(function, args);
    case NoMatchRule::kPlain:
      return Value::Error("no such overload");
    case NoMatchRule::kTrait:
      if (!args.empty() &&
          (OperandTraits(args[0]) & (rule.trait | kReceiver)) != 0) {
        return Value::Error("no such overload");
      }
      return Value::Error(StrCat("no such overload: ", function));
  }
  return NoSuchOverload(function, args);
}

// Go's %T of the cel-go value for a value of v's kind, as comprehension
// errors print it ("got 'types.Int', expected iterable type").
inline std::string GoTypeName(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull:
      return "types.Null";
    case ValueKind::kBool:
      return "types.Bool";
    case ValueKind::kInt:
      return "types.Int";
    case ValueKind::kUint:
      return "types.Uint";
    case ValueKind::kDouble:
      return "types.Double";
    case ValueKind::kString:
      return "types.String";
    case ValueKind::kBytes:
      return "types.Bytes";
    case ValueKind::kType:
      return "*types.Type";
    case ValueKind::kOptional:
      return "*types.Optional";
    case ValueKind::kTimestamp:
      return "types.Timestamp";
    case ValueKind::kDuration:
      return "types.Duration";
    case ValueKind::kOpaque: {
      // The Kubernetes library types live in k8s.io/apiserver/pkg/cel:
      // "kubernetes.Quantity" -> cel.Quantity, "net.IP" -> cel.IP.
      std::string_view name = v.opaque().TypeName();
      size_t dot = name.rfind('.');
      if (dot != std::string_view::npos) name = name.substr(dot + 1);
      return StrCat("cel.", name);
    }
    default:
      return std::string(v.TypeName());
  }
}

// Field selection `v.field` on a non-optional value. With `optional`, a
// missing key yields optional.none() and a present one optional.of(value).
// `hash` is StringKeyHash(field), computed once at plan time.
inline Value SelectField(const Value& v, std::string_view field, uint64_t hash,
                         bool optional) {
  if (v.kind() == ValueKind::kMap) {
    const Value* found = v.map().FindStringHashed(field, hash);
    if (found == nullptr) {
      return optional ? Value::OptionalNone()
                      : Value::Error(StrCat("no such key: ", field));
    }
    return optional ? Value::OptionalOf(*found) : *found;
  }
  // cel-go's attribute qualification of a value that is neither a map nor
  // a list (nor a message) reports the key as missing (an optional
  // qualification answers none).
  return optional ? Value::OptionalNone()
                  : Value::Error(StrCat("no such key: ", field));
}

// `v[key]` on a non-optional value; `optional` as in SelectField.
inline Value IndexValue(const Value& v, const Value& key, bool optional) {
  if (v.kind() == ValueKind::kList) {
    const auto& elems = v.list();
    int64_t idx;
    switch (key.kind()) {
      case ValueKind::kInt:
        idx = key.int_value();
        break;
      case ValueKind::kUint:
        // cel-go IndexOrError: only lossless conversions to int index.
        if (key.uint_value() >
            static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          return Value::Error(
              StrCat("unsupported index value ", key.uint_value(), " in list"));
        }
        idx = static_cast<int64_t>(key.uint_value());
        break;
      case ValueKind::kDouble: {
        double d = key.double_value();
        if (!std::isfinite(d) || d <= -9223372036854775808.0 ||
            d >= 9223372036854775808.0 ||
            static_cast<double>(static_cast<int64_t>(d)) != d) {
          return Value::Error(
              StrCat("unsupported index value ", FormatDouble(d), " in list"));
        }
        idx = static_cast<int64_t>(d);
        break;
      }
      default:
        return Value::Error(
            StrCat("unsupported index type '", key.TypeName(), "' in list"));
    }
    if (idx < 0 || static_cast<uint64_t>(idx) >= elems.size()) {
      return optional ? Value::OptionalNone()
                      : Value::Error(StrCat("index out of bounds: ", idx));
    }
    return optional ? Value::OptionalOf(elems[idx]) : elems[idx];
  }
  if (v.kind() == ValueKind::kMap) {
    switch (key.kind()) {
      case ValueKind::kInt:
      case ValueKind::kUint:
      case ValueKind::kDouble:
      case ValueKind::kBool:
      case ValueKind::kString:
        break;
      default:
        return Value::Error(
            StrCat("unsupported key type '", key.TypeName(), "'"));
    }
    const Value* found = v.map().Find(key);
    if (found == nullptr) {
      return optional ? Value::OptionalNone() : NoSuchKey(key);
    }
    return optional ? Value::OptionalOf(*found) : *found;
  }
  // As SelectField: cel-go reports the key as missing.
  return optional ? Value::OptionalNone() : NoSuchKey(key);
}

// Qualification of an optional value: none stays none; of(x) qualifies x
// optionally (cel-go: once an attribute is optional, so are later
// qualifiers).
template <class Fn>
inline Value QualifyOptional(const Value& v, const Fn& qualify) {
  if (!v.optional_has_value()) return v;
  return qualify(v.optional_value());
}

}  // namespace draplane::cel::internal::evaluation

#endif  // DRAPLANE_CEL_INTERNAL_EVALUATION_SUPPORT_H_
