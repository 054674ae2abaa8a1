// Static CEL types, as the type checker (checker.h) and the cost estimator
// see them.
//
// The model follows cel-go v0.29.2 common/types.Type: a kind, a runtime type
// name and type parameters. Kinds are the primitives, list(T), map(K, V),
// type(T), type parameters (the free variables of generic overloads and of
// empty literals), `dyn`, the protobuf `google.protobuf.Any` type (which the
// checker treats like dyn), the error type (the type of an expression that
// failed to check), abstract ("opaque") types such as optional_type(T),
// net.IP and net.CIDR, and object ("struct") types such as
// kubernetes.Quantity or kubernetes.DRADevice. Object types optionally carry
// their field declarations; an object type without them is known by name
// only (Kubernetes declares kubernetes.Quantity, Semver, URL and
// NamedFormat this way, and selecting a field of one is a check error).
//
// Protobuf wrapper types (`wrapper(int)`) and enums are not modelled: DRA
// expressions cannot produce them.
//
// Types are immutable values; copying one is cheap (shared
// representation). Thread-safe.
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_TYPES_H_
#define DRAPLANE_CEL_INTERNAL_TYPES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace draplane::cel::internal {

enum class TypeKind : uint8_t {
  kDyn,
  kAny,  // google.protobuf.Any; assignable like dyn
  kError,
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kTimestamp,
  kDuration,
  kList,
  kMap,
  kOpaque,  // abstract types: optional_type(T), net.IP, net.CIDR, ...
  kStruct,  // object types: kubernetes.DRADevice, kubernetes.Quantity, ...
  kType,    // type or type(T)
  kTypeParam,
};

class Type;

// A declared field of an object type.
struct ObjectField {
  std::string name;
  // Shared so that Type can stay an incomplete type here.
  std::shared_ptr<const Type> type;
};

class Type {
 public:
  // dyn.
  Type();

  static Type Dyn();
  static Type Any();
  static Type Error();
  static Type Null();
  static Type Bool();
  static Type Int();
  static Type Uint();
  static Type Double();
  static Type String();
  static Type Bytes();
  static Type Timestamp();
  static Type Duration();
  static Type List(Type element);
  static Type Map(Type key, Type value);
  // optional_type(value).
  static Type Optional(Type value);
  // An abstract type with a name and type parameters (cel-go OpaqueType).
  static Type Opaque(std::string name, std::vector<Type> params = {});
  // An object type known by name only (no field information).
  static Type Struct(std::string name);
  // An object type with declared fields (what cel-go's type provider knows
  // about a declared object type, e.g. Kubernetes' DeclType objects).
  static Type Struct(std::string name,
                     std::vector<std::pair<std::string, Type>> fields);
  // `type` without a parameter.
  static Type TypeType();
  // type(t): the type of the type value `t`.
  static Type TypeOf(Type t);
  // A type parameter (free type variable) named `name`.
  static Type Param(std::string name);

  TypeKind kind() const;
  // The runtime type name: "int", "list", "map", "type", "dyn", "null_type",
  // "google.protobuf.Timestamp", "google.protobuf.Duration",
  // "google.protobuf.Any", "error", "optional_type", "kubernetes.Quantity",
  // or the name of a type parameter.
  const std::string& name() const;
  const std::vector<Type>& params() const;

  bool is_optional() const;
  // For object types: whether fields were declared (Struct(name, fields)).
  bool has_field_declarations() const;
  // The declared field `name` of an object type, or nullptr.
  const Type* FindField(std::string_view name) const;
  const std::vector<ObjectField>& fields() const;

  // cel-go Type.IsExactType: same kind, name and parameters (type parameter
  // names included).
  bool IsExact(const Type& other) const;
  // cel-go Type.IsEquivalentType: like IsExact but type parameters match
  // regardless of their names.
  bool IsEquivalent(const Type& other) const;
  // The checker's isDyn: dyn or google.protobuf.Any.
  bool IsDynOrAny() const;

  // The rendering cel-go's checker uses in messages (FormatCELType): "int",
  // "list(int)", "map(string, dyn)", "optional_type(int)", "type(int)",
  // "duration", "timestamp", "null", "any", "!error!", "kubernetes.Quantity",
  // type parameters by name ("_var0").
  std::string Format() const;
  // cel-go Type.String(), as used by Kubernetes in "must evaluate to bool
  // or the unknown type, not %v": like Format but "null_type",
  // "google.protobuf.Duration", "google.protobuf.Timestamp",
  // "google.protobuf.Any", "error", and type parameters as "<A>".
  std::string ToString() const;

 private:
  struct Rep;
  explicit Type(std::shared_ptr<const Rep> rep) : rep_(std::move(rep)) {}
  static Type Make(TypeKind kind, std::string name, std::vector<Type> params);

  std::shared_ptr<const Rep> rep_;
};

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_TYPES_H_
