#include "cel/internal/kubernetes_library.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "cel/internal/library_support.h"
#include "common/str_cat.h"

namespace draplane::cel::internal {
namespace {

class QuantityObject final : public TypedOpaque<QuantityObject, Quantity> {
 public:
  static constexpr const char* kTypeName = kQuantityTypeName;
  // `arithmetic_result`: made by add/sub. Upstream returns those as a
  // different Go type (*cel.Quantity) that Quantity.Equal's type assertion
  // rejects, so they cannot be the right operand of `==`.
  explicit QuantityObject(Quantity q, bool arithmetic_result = false)
      : TypedOpaque(std::move(q)), arithmetic_result_(arithmetic_result) {}
  static bool SameValue(const Quantity& a, const Quantity& b) {
    return a.Compare(b) == 0;
  }
  bool AcceptedAsEqualityOperand() const override {
    return !arithmetic_result_;
  }
  bool KubernetesEquality() const override { return true; }
  std::string DebugString() const override {
    return StrCat("quantity(\"", value_.ToString(), "\")");
  }

 private:
  bool arithmetic_result_;
};

class SemverObject final : public TypedOpaque<SemverObject, Semver> {
 public:
  static constexpr const char* kTypeName = kSemverTypeName;
  using TypedOpaque::TypedOpaque;
  static bool SameValue(const Semver& a, const Semver& b) {
    return a.Compare(b) == 0;
  }
  bool KubernetesEquality() const override { return true; }
  std::string DebugString() const override {
    return StrCat("semver(\"", value_.ToString(), "\")");
  }
};

ArgType QuantityArg() { return ArgType::Opaque(kQuantityTypeName); }
ArgType SemverArg() { return ArgType::Opaque(kSemverTypeName); }
ArgType StringArg() { return ArgType::Of(ValueKind::kString); }

Value ParseSemverValue(std::string_view text, bool normalize) {
  auto v = normalize ? Semver::ParseNormalized(text) : Semver::Parse(text);
  if (!v.ok()) return Value::Error(std::string(v.status().message()));
  return SemverValue(*std::move(v));
}

}  // namespace

Value QuantityValue(Quantity q) {
  return Value::Opaque(new QuantityObject(std::move(q)));
}

Value SemverValue(Semver v) {
  return Value::Opaque(new SemverObject(std::move(v)));
}

const Quantity* AsQuantity(const Value& value) {
  if (value.kind() != ValueKind::kOpaque ||
      value.opaque().TypeName() != kQuantityTypeName) {
    return nullptr;
  }
  return &static_cast<const QuantityObject&>(value.opaque()).value();
}

const Semver* AsSemver(const Value& value) {
  if (value.kind() != ValueKind::kOpaque ||
      value.opaque().TypeName() != kSemverTypeName) {
    return nullptr;
  }
  return &static_cast<const SemverObject&>(value.opaque()).value();
}

namespace {

// Kubernetes' CostEstimator charges the parsing functions a traversal of
// their string argument: ceil(0.1 * size) (library/cost.go); everything
// else in these libraries costs 1.
void SetParseCost(FunctionOverload& o) {
  if (o.function == "quantity" || o.function == "isQuantity" ||
      o.function == "semver" || o.function == "isSemver") {
    o.cost = [](absl::Span<const Value> args, const Value&) -> uint64_t {
      return static_cast<uint64_t>(
          std::ceil(static_cast<double>(CostSize(args[0])) * 0.1));
    };
  }
}

// The parsing functions called with constant arguments (the common
// `quantity('40Gi')`, `semver('8.0.0')`) are evaluated once when the
// program is planned: the call then returns the shared result (values are
// immutable and reference-counted) without parsing or allocating. Errors
// are precomputed alike; the call's cost is still charged per evaluation.
void PrecomputeOnConstants(FunctionOverload& o) {
  FunctionImpl impl = o.impl;
  o.specialize =
      [impl](absl::Span<const Value* const> constants) -> FunctionImpl {
    std::vector<Value> args;
    for (const Value* c : constants) {
      if (c == nullptr) return nullptr;
      args.push_back(*c);
    }
    Value result = impl(args);
    return [result](absl::Span<const Value>) { return result; };
  };
}

}  // namespace

absl::Status RegisterQuantityFunctions(FunctionRegistry* registry) {
  std::vector<FunctionOverload> overloads;
  overloads.push_back(
      Overload("quantity", "string_to_quantity", false, {StringArg()},
               [](absl::Span<const Value> args) {
                 auto q = Quantity::Parse(args[0].string_value());
                 if (!q.ok())
                   return Value::Error(std::string(q.status().message()));
                 return QuantityValue(*std::move(q));
               }));
  overloads.push_back(Overload(
      "isQuantity", "is_quantity_string", false, {StringArg()},
      [](absl::Span<const Value> args) {
        return Value::Bool(Quantity::Parse(args[0].string_value()).ok());
      }));
  overloads.push_back(Overload("sign", "quantity_sign", false, {QuantityArg()},
                               [](absl::Span<const Value> args) {
                                 return Value::Int(AsQuantity(args[0])->Sign());
                               }));
  overloads.push_back(Overload(
      "isGreaterThan", "quantity_is_greater_than", true,
      {QuantityArg(), QuantityArg()}, [](absl::Span<const Value> args) {
        return Value::Bool(AsQuantity(args[0])->Compare(*AsQuantity(args[1])) ==
                           1);
      }));
  overloads.push_back(Overload(
      "isLessThan", "quantity_is_less_than", true,
      {QuantityArg(), QuantityArg()}, [](absl::Span<const Value> args) {
        return Value::Bool(AsQuantity(args[0])->Compare(*AsQuantity(args[1])) ==
                           -1);
      }));
  overloads.push_back(Overload(
      "compareTo", "quantity_compare_to", true, {QuantityArg(), QuantityArg()},
      [](absl::Span<const Value> args) {
        return Value::Int(AsQuantity(args[0])->Compare(*AsQuantity(args[1])));
      }));
  overloads.push_back(Overload(
      "asApproximateFloat", "quantity_get_float", true, {QuantityArg()},
      [](absl::Span<const Value> args) {
        return Value::Double(AsQuantity(args[0])->AsApproximateFloat64());
      }));
  overloads.push_back(
      Overload("asInteger", "quantity_get_int", true, {QuantityArg()},
               [](absl::Span<const Value> args) {
                 auto v = AsQuantity(args[0])->AsInt64();
                 if (!v) {
                   return Value::Error("cannot convert value to integer");
                 }
                 return Value::Int(*v);
               }));
  overloads.push_back(
      Overload("isInteger", "quantity_is_integer", true, {QuantityArg()},
               [](absl::Span<const Value> args) {
                 return Value::Bool(AsQuantity(args[0])->AsInt64().has_value());
               }));
  for (bool add : {true, false}) {
    const char* name = add ? "add" : "sub";
    auto combine = [add](const Quantity& a, const Quantity& b) -> Value {
      Quantity out = a;
      absl::Status s = add ? out.Add(b) : out.Sub(b);
      if (!s.ok()) return Value::Error(std::string(s.message()));
      return Value::Opaque(new QuantityObject(std::move(out),
                                              /*arithmetic_result=*/true));
    };
    overloads.push_back(Overload(
        name, StrCat("quantity_", name), true, {QuantityArg(), QuantityArg()},
        [combine](absl::Span<const Value> args) {
          return combine(*AsQuantity(args[0]), *AsQuantity(args[1]));
        }));
    overloads.push_back(
        Overload(name, StrCat("quantity_", name, "_int"), true,
                 {QuantityArg(), ArgType::Of(ValueKind::kInt)},
                 [combine](absl::Span<const Value> args) {
                   return combine(*AsQuantity(args[0]),
                                  Quantity::FromInt64(args[1].int_value()));
                 }));
  }
  for (auto& o : overloads) {
    SetParseCost(o);
    if (o.function == "quantity" || o.function == "semver") {
      PrecomputeOnConstants(o);
    }
    if (auto s = registry->Register(std::move(o)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status RegisterSemverFunctions(FunctionRegistry* registry) {
  std::vector<FunctionOverload> overloads;
  overloads.push_back(Overload("semver", "string_to_semver", false,
                               {StringArg()}, [](absl::Span<const Value> args) {
                                 return ParseSemverValue(args[0].string_value(),
                                                         false);
                               }));
  overloads.push_back(Overload("semver", "string_bool_to_semver", false,
                               {StringArg(), ArgType::Of(ValueKind::kBool)},
                               [](absl::Span<const Value> args) {
                                 return ParseSemverValue(args[0].string_value(),
                                                         args[1].bool_value());
                               }));
  overloads.push_back(
      Overload("isSemver", "is_semver_string", false, {StringArg()},
               [](absl::Span<const Value> args) {
                 return Value::Bool(Semver::Parse(args[0].string_value()).ok());
               }));
  overloads.push_back(Overload("isSemver", "is_semver_string_bool", false,
                               {StringArg(), ArgType::Of(ValueKind::kBool)},
                               [](absl::Span<const Value> args) {
                                 std::string_view s = args[0].string_value();
                                 return Value::Bool(
                                     args[1].bool_value()
                                         ? Semver::ParseNormalized(s).ok()
                                         : Semver::Parse(s).ok());
                               }));
  overloads.push_back(Overload(
      "isGreaterThan", "semver_is_greater_than", true,
      {SemverArg(), SemverArg()}, [](absl::Span<const Value> args) {
        return Value::Bool(AsSemver(args[0])->Compare(*AsSemver(args[1])) == 1);
      }));
  overloads.push_back(Overload(
      "isLessThan", "semver_is_less_than", true, {SemverArg(), SemverArg()},
      [](absl::Span<const Value> args) {
        return Value::Bool(AsSemver(args[0])->Compare(*AsSemver(args[1])) ==
                           -1);
      }));
  overloads.push_back(Overload(
      "compareTo", "semver_compare_to", true, {SemverArg(), SemverArg()},
      [](absl::Span<const Value> args) {
        return Value::Int(AsSemver(args[0])->Compare(*AsSemver(args[1])));
      }));
  overloads.push_back(Overload(
      "major", "semver_major", true, {SemverArg()},
      [](absl::Span<const Value> args) {
        return Value::Int(static_cast<int64_t>(AsSemver(args[0])->major()));
      }));
  overloads.push_back(Overload(
      "minor", "semver_minor", true, {SemverArg()},
      [](absl::Span<const Value> args) {
        return Value::Int(static_cast<int64_t>(AsSemver(args[0])->minor()));
      }));
  overloads.push_back(Overload(
      "patch", "semver_patch", true, {SemverArg()},
      [](absl::Span<const Value> args) {
        return Value::Int(static_cast<int64_t>(AsSemver(args[0])->patch()));
      }));
  for (auto& o : overloads) {
    SetParseCost(o);
    if (o.function == "quantity" || o.function == "semver") {
      PrecomputeOnConstants(o);
    }
    if (auto s = registry->Register(std::move(o)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace draplane::cel::internal
