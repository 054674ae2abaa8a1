// The CEL type checker: parsed AST -> static types, or the errors cel-go's
// checker reports.
//
// Check() reproduces what Kubernetes' env.Compile does after parsing a DRA
// selector (cel-go v0.29.2 checker/checker.go and cel/validator.go, in the
// environment of k8s.io/dynamic-resource-allocation v0.37.2): identifier
// and function resolution (qualified names, namespaced functions such as
// optional.of, comprehension scopes), overload resolution with type
// parameters and dyn, field selection on maps and declared object types,
// optional field selection and optional literal entries, comprehension
// variable typing (a list binds its element type, a map its key type),
// homogeneous aggregate literals, cross-type numeric comparisons, and then
// the AST validators Kubernetes enables: constant duration(), timestamp()
// and matches() arguments, and homogeneous list/map literals.
//
// Functions come from the runtime FunctionRegistry: a function is declared
// to the checker when the registry has it (or the interpreter evaluates it
// itself, like `_==_`). Each registered overload is typed by its static
// declaration (checker_declarations.h, looked up by overload id); a
// registered overload without a declaration is checked leniently (any
// arguments, result dyn), so that libraries added later still compile.
//
// Where this differs from cel-go (deliberately):
//  * `[?e]` and `{?k: e}` with a dyn `e`: cel-go's homogeneous literal
//    validator panics (it takes the optional's type parameter of dyn); here
//    the entry counts with type dyn.
//  * Protobuf messages, wrapper types and enums are not modelled (no DRA
//    expression can reach them); `google.protobuf.Int64Value` and the like
//    are undeclared here.
//  * Not implemented: the ext.Strings `format` clause validator (draplane
//    has no `format` yet) and compile-time errors that cel-go raises when
//    building the program rather than when checking (a constant invalid
//    regex passed to `find`/`findAll`): those belong to Plan().
//  * Free type variables are named _var0, _var1, ... in allocation order;
//    cel-go allocates them in Go map order for overloads with several type
//    parameters, so messages that show an unresolved variable may name it
//    differently.
//
// Thread-safe: Check keeps no state between calls.
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_CHECKER_H_
#define DRAPLANE_CEL_INTERNAL_CHECKER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "cel/internal/ast.h"
#include "cel/internal/interpreter.h"
#include "cel/internal/types.h"

namespace draplane::cel::internal {

struct CheckerEnvironment {
  // The functions available (must outlive the Check call). nullptr: only
  // the operators the interpreter evaluates itself.
  const FunctionRegistry* functions = nullptr;
  // Declared variables; names may be qualified ("a.b"). When a name is
  // declared twice the later declaration wins (as in cel-go).
  std::vector<std::pair<std::string, Type>> variables;
  // cel.HomogeneousAggregateLiterals(): after a successful check, every
  // list literal's elements and every map literal's keys and values must
  // have equivalent types (cel-go's homogeneous literal AST validator;
  // dyn() is the escape). Without it mixed literals are list(dyn) etc.
  bool homogeneous_aggregate_literals = true;
  // cel.CrossTypeNumericComparisons(true): `<`, `<=`, `>`, `>=` accept
  // int/uint/double mixes (`==` never does).
  bool cross_type_numeric_comparisons = true;
  // The Kubernetes AST validators for constant arguments: duration('..'),
  // timestamp(..) and matches() patterns are checked at compile time.
  bool validate_literal_arguments = true;
};

struct CheckedExpr {
  // The type of the whole expression; free type variables become dyn.
  Type output_type;
  // The type of every node, by node id (free type variables become dyn).
  std::unordered_map<int64_t, Type> types;
  // Call nodes: the ids of the overloads that matched the argument types,
  // in declaration order (cel-go's reference map); `_?._` calls have
  // "select_optional_field".
  std::unordered_map<int64_t, std::vector<std::string>> overload_ids;
  // Call nodes whose receiver was read as a namespace (`optional.of(x)`,
  // `sets.contains(a, b)`): the resolved global function name. For these
  // the call's target is not an argument.
  std::unordered_map<int64_t, std::string> namespaced_functions;
  // Identifier and select nodes that resolved to a declared variable or a
  // type identifier: the resolved (possibly qualified) name. Comprehension
  // variables are not listed.
  std::unordered_map<int64_t, std::string> references;
};

// Type-checks `root`, parsed from `source` (the parser's
// ParsedExpr::source, used to render error positions), in `env`.
//
// Errors: kInvalidArgument with cel-go's issue text, each issue rendered as
// the parser renders errors (FormatError in parser.h), sorted by position
// and joined by '\n', at most 100 followed by "N more errors were
// truncated", e.g.
//
//   ERROR: <input>:1:7: undefined field 'foo'
//    | device.foo
//    | ......^
absl::StatusOr<CheckedExpr> Check(const Expr& root, std::string_view source,
                                  const CheckerEnvironment& env);

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_CHECKER_H_
