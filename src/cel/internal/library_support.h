// What the CEL function libraries share: building an overload, and the
// opaque value that holds one C++ value (Kubernetes' Quantity, Semver, IP
// and CIDR types).
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_LIBRARY_SUPPORT_H_
#define DRAPLANE_CEL_INTERNAL_LIBRARY_SUPPORT_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cel/internal/interpreter.h"
#include "cel/internal/value.h"

namespace draplane::cel::internal {

// A strict overload of `function` with cel-go's overload `id`,
// receiver-style when `member`; `cost` null is cost 1.
inline FunctionOverload Overload(std::string function, std::string id,
                                 bool member, std::vector<ArgType> params,
                                 FunctionImpl impl, CallCostFn cost = nullptr) {
  FunctionOverload o;
  o.function = std::move(function);
  o.overload_id = std::move(id);
  o.receiver_style = member;
  o.params = std::move(params);
  o.impl = std::move(impl);
  o.cost = cost;
  return o;
}

// The same with one parameter.
inline FunctionOverload Overload(std::string function, std::string id,
                                 bool member, ArgType param, FunctionImpl impl,
                                 CallCostFn cost = nullptr) {
  return Overload(std::move(function), std::move(id), member,
                  std::vector<ArgType>{std::move(param)}, std::move(impl),
                  cost);
}

// An opaque value holding a `T`: `Derived` gives kTypeName (its CEL type
// name) and DebugString; two values are equal when their T's are (T's
// operator==, or Derived::SameValue where Derived declares one).
template <class Derived, class T>
class TypedOpaque : public OpaqueValue {
 public:
  explicit TypedOpaque(T value) : value_(std::move(value)) {}
  std::string_view TypeName() const override { return Derived::kTypeName; }
  bool Equals(const OpaqueValue& other) const override {
    return Derived::SameValue(value_,
                              static_cast<const Derived&>(other).value_);
  }
  static bool SameValue(const T& a, const T& b) { return a == b; }
  const T& value() const { return value_; }

 protected:
  T value_;
};

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_LIBRARY_SUPPORT_H_
