// Static declarations for the CEL type checker (checker.h): the signature of
// every overload of the Kubernetes 1.37 DRA CEL environment, keyed by the
// cel-go overload id that the runtime FunctionRegistry also uses
// (FunctionOverload::overload_id), the type identifiers (`int`, `list`,
// `net.IP`, ...) and the `device` variable's object type.
//
// The signatures are those of the environment Kubernetes compiles DRA
// selectors in (k8s.io/dynamic-resource-allocation v0.37.2 cel/compile.go:
// the Kubernetes base environment of k8s.io/apiserver v0.37.2 for stored
// expressions plus ext.Bindings and the DRA `includes`), as cel-go v0.29.2
// declares them: the standard library (common/stdlib), optional types,
// ext.Strings, ext.Sets, ext.Lists, ext.TwoVarComprehensions and the
// Kubernetes libraries (quantity, semver, IP, CIDR, URL, regex, lists,
// format, authz). Within one function the overloads keep cel-go's
// declaration order, which decides the result type when several overloads
// match a call with dyn arguments.
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_CHECKER_DECLARATIONS_H_
#define DRAPLANE_CEL_INTERNAL_CHECKER_DECLARATIONS_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cel/internal/interpreter.h"
#include "cel/internal/types.h"

namespace draplane::cel::internal {

// The static signature of one overload.
struct OverloadDecl {
  std::string function;  // "_+_", "size", "optional.of", ...
  std::string id;        // cel-go overload id, e.g. "add_int64"
  bool receiver_style = false;
  // Parameter types, receiver first for receiver-style overloads. Type
  // parameters (Type::Param) are generic: each call instantiates them with
  // fresh type variables.
  std::vector<Type> params;
  Type result;
  // Names of the type parameters that occur in params and result.
  std::vector<std::string> type_params;
};

// All declared overloads, grouped by function in cel-go declaration order.
const std::vector<OverloadDecl>& AllOverloadDecls();

// The declaration of the overload `id` of `function`, or nullptr. Accepts
// the few ids under which draplane's runtime registers an overload that
// cel-go names differently (see kOverloadIdAliases in the .cc file).
const OverloadDecl* FindOverloadDecl(std::string_view function,
                                     std::string_view id);

// Functions that the interpreter evaluates itself rather than through the
// registry (`_==_`, `_!=_`, `_&&_`, `_||_`, `_?_:_`, `_[_]`, `_[?_]`,
// `_?._`); the checker always declares them.
bool IsInterpreterBuiltin(std::string_view function);

// Whether a registered overload exists only for the runtime and must stay
// invisible to the checker, because cel-go declares no such overload: the
// deprecated aliases `__not_strictly_false__`, `in`, `_in_` (cel-go
// registers them with DisableDeclaration) and the ordering operators on
// opaque values (cel-go has no `<` for Quantity, Semver, ...).
bool IsRuntimeOnlyOverload(std::string_view function, std::string_view id);

// The identifiers that name types in the checker's scope, with their types
// (`int` -> type(int), `list` -> type(list(A)), `net.IP` -> type(net.IP)).
// The standard ones are always present; library ones (optional_type,
// net.IP, net.CIDR) only when `functions` has that library's functions, as
// cel-go declares them with the library.
std::vector<std::pair<std::string, Type>> TypeIdentifiers(
    const FunctionRegistry& functions);

// The DRA `device` variable's object type kubernetes.DRADevice
// (k8s.io/dynamic-resource-allocation cel/compile.go): driver string,
// attributes map(string, map(string, V)), capacity map(string,
// map(string, kubernetes.Quantity)), and with the DRAConsumableCapacity
// feature allowMultipleAllocations bool. V is dyn with the
// DRAListTypeAttributes feature (the declaration Kubernetes 1.37 uses for
// stored expressions) and google.protobuf.Any ("any") without it.
struct DraDeviceTypeOptions {
  bool consumable_capacity = true;
  bool list_type_attributes = true;
};
Type DraDeviceType(const DraDeviceTypeOptions& options = {});

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_CHECKER_DECLARATIONS_H_
