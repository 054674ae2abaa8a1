// The CEL planner and evaluator.
//
// Plan() turns a parsed (macro-expanded) AST into an immutable Program:
// functions are resolved to their overload sets, comprehension variables
// to frame slots, type names to constants, and qualified names to lookup
// candidates. A Program may be evaluated any number of times, concurrently
// from any number of threads, against different Activations.
//
// Two error channels, as in cel-cpp/cel-go: problems with the expression
// itself that the planner can see (no function of that name and arity,
// message construction) are absl::Status from Plan(); everything that
// depends on the data (no such key, overflow, no matching overload for the
// runtime argument kinds, cost limit) is an error Value in EvalResult.
// Evaluation never throws and never aborts the process.
//
// Runtime cost follows cel-go interpreter/runtimecost.go exactly (see the
// comment on EvalResult::actual_cost).
//
// Internal to the cel component.
#ifndef DRAPLANE_CEL_INTERNAL_INTERPRETER_H_
#define DRAPLANE_CEL_INTERNAL_INTERPRETER_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cel/internal/ast.h"
#include "cel/internal/value.h"

namespace draplane::cel::internal {

// Variables visible to an evaluation.
//
// Find is called with simple names ("device") and, for dotted expressions
// such as `a.b.c`, with the dotted candidates ("a.b.c", then "a.b", then
// "a"; the longest bound name wins, as in cel-go). Implementations may
// compute values lazily. Find must be safe to call concurrently if the same
// Activation is shared between threads.
class Activation {
 public:
  virtual ~Activation() = default;
  // The value bound to `name`, or std::nullopt when unbound.
  virtual std::optional<Value> Find(std::string_view name) const = 0;
};

// An Activation backed by a hash map.
class MapActivation final : public Activation {
 public:
  void Insert(std::string name, Value value);
  std::optional<Value> Find(std::string_view name) const override;

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      return std::hash<std::string_view>()(s);
    }
  };
  std::unordered_map<std::string, Value, Hash, std::equal_to<>> values_;
};

// One parameter of an overload: a kind, optionally narrowed to an opaque
// type name, or any value.
struct ArgType {
  static ArgType Any() { return ArgType{ValueKind::kNull, true, {}}; }
  static ArgType Of(ValueKind kind) { return ArgType{kind, false, {}}; }
  // An opaque value whose TypeName() is `type_name`.
  static ArgType Opaque(std::string type_name) {
    return ArgType{ValueKind::kOpaque, false, std::move(type_name)};
  }
  bool Matches(const Value& v) const;

  ValueKind kind;
  bool any;
  std::string opaque_type;  // empty: any opaque type
};

// Implementation of an overload. `args` holds the receiver first for
// receiver-style calls. Returns the result or an error value; must be
// thread-safe and must not throw.
using FunctionImpl = std::function<Value(absl::Span<const Value> args)>;

// Runtime cost of one call given its arguments and result, replacing the
// default of 1 (cel-go CostTracker.costCall).
using CallCostFn = uint64_t (*)(absl::Span<const Value> args,
                                const Value& result);

// Plan-time specialisation: given the arguments that are constants
// (nullptr for the others), returns an implementation to use at this call
// site instead of the generic one (e.g. a precompiled regular expression),
// or nullptr to keep the generic one.
using Specializer =
    std::function<FunctionImpl(absl::Span<const Value* const> constant_args)>;

struct FunctionOverload {
  // Function name as written ("contains", "_+_", "optional.of").
  std::string function;
  // cel-go overload id ("contains_string"), for diagnostics.
  std::string overload_id;
  // `target.function(args)` rather than `function(args)`.
  bool receiver_style = false;
  // Parameter kinds, receiver first for receiver-style overloads.
  std::vector<ArgType> params;
  // Strict overloads never see error arguments: the first error argument
  // is the call's result. Non-strict ones receive them.
  bool strict = true;
  FunctionImpl impl;
  CallCostFn cost = nullptr;  // nullptr: cost 1
  Specializer specialize;     // optional
  // Optional, with PlanOptions::optimize: given the call site's constant
  // arguments (nullptr for the others), the error that makes the call fail
  // whatever the other arguments are, e.g. an invalid constant regex
  // (cel-go's regex optimisation fails env.Program with it); Plan then
  // fails with "program instantiation failed: <error>".
  std::function<std::optional<std::string>(
      absl::Span<const Value* const> constant_args)>
      plan_time_error;
};

// The set of functions a program may call. Build it before planning; it is
// read-only (and thread-safe) afterwards. Programs keep references to the
// overloads, so the registry must outlive every Program planned with it.
class FunctionRegistry {
 public:
  FunctionRegistry() = default;
  FunctionRegistry(const FunctionRegistry&) = delete;
  FunctionRegistry& operator=(const FunctionRegistry&) = delete;

  // Adds an overload. Fails with kAlreadyExists when an overload with the
  // same function, style and parameter kinds exists.
  absl::Status Register(FunctionOverload overload);

  // Overloads of `function` with the given style and arity (receiver
  // counted), in registration order.
  std::vector<const FunctionOverload*> Find(std::string_view function,
                                            bool receiver_style,
                                            size_t arity) const;
  // Whether any overload named `function` exists.
  bool HasFunction(std::string_view function) const;
  // Every registered overload of `function` (both call styles, all
  // arities), in registration order; empty when there is none.
  std::vector<const FunctionOverload*> Overloads(
      std::string_view function) const;
  // Names of all functions with at least one overload, sorted.
  std::vector<std::string> FunctionNames() const;

  // Declares `name` ("net.IP") as a library type: the planner resolves the
  // identifier to that type value, as cel-go does for types added with
  // cel.Types(). Declaring a name twice is harmless.
  void RegisterTypeName(std::string name);
  // Whether `name` was declared with RegisterTypeName.
  bool HasTypeName(std::string_view name) const;

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      return std::hash<std::string_view>()(s);
    }
  };
  std::unordered_map<std::string,
                     std::vector<std::unique_ptr<FunctionOverload>>, Hash,
                     std::equal_to<>>
      overloads_;
  std::unordered_set<std::string, Hash, std::equal_to<>> type_names_;
};

struct PlanOptions {
  // When set, the names of declared variables: qualified names then
  // resolve at plan time to the longest declared prefix (as a checked
  // cel-go program does), saving lookups at evaluation. When unset, every
  // candidate is tried at evaluation, longest first.
  std::function<bool(std::string_view)> is_declared_variable;
  // How calls of functions the registry does not know (by name, or by
  // arity and call style) are treated. false: a Plan error, as for a
  // type-checked program (the DRA path: Kubernetes compiles with the
  // checker). true: planned as a call that evaluates to the error
  // "no such overload", as cel-go does for unchecked programs (so
  // `f_unknown(1) || true` is true); used by the conformance suite's
  // disable_check tests.
  bool unknown_functions_are_runtime_errors = false;
  // cel-go's OptOptimize, which Kubernetes enables (environment/base.go):
  // list and map literals of constants are built once (and then cost
  // nothing at run time), type conversions of a constant are evaluated at
  // plan time (an error there fails Plan with FailedPrecondition
  // "program instantiation failed: <error>", as cel-go's env.Program
  // does), and `x in <constant list of primitives>` becomes a set
  // membership test without the call's cost (an empty constant list makes
  // it the constant false).
  bool optimize = false;
};

struct EvalOptions {
  // Evaluation stops with the error "operation cancelled: actual cost limit
  // exceeded" as soon as the running cost exceeds this.
  uint64_t cost_limit = std::numeric_limits<uint64_t>::max();
  // Whether has() costs 1 (cel-go's default) or 0 (cel-go option
  // PresenceTestHasCost(false)).
  bool presence_test_has_cost = true;
};

struct EvalResult {
  // The result, possibly an error value.
  Value value;
  // Runtime cost as cel-go's CostTracker counts it: constants 0; each
  // identifier, field selection, index step and has() 1 (an identifier or
  // selection used directly as an index operand or as the chosen branch of
  // ?: is not charged its own unit, as in cel-go's attribute model); list
  // literal 10, map literal 30; &&, ||, ?: and comprehensions nothing
  // themselves; each call its overload's cost (default 1).
  uint64_t actual_cost = 0;
};

class Program {
 public:
  virtual ~Program() = default;
  // Evaluates the program. Thread-safe.
  virtual EvalResult Evaluate(const Activation& activation,
                              const EvalOptions& options = {}) const = 0;
};

// Plans `root` against `functions`. `root` is only read during the call;
// `functions` must outlive the program. Errors: kInvalidArgument for
// expressions that can never evaluate (unknown function or arity, message
// construction, malformed comprehension).
absl::StatusOr<std::unique_ptr<Program>> Plan(const Expr& root,
                                              const FunctionRegistry& functions,
                                              const PlanOptions& options = {});

// The exact error message cel-go produces when the cost limit is exceeded.
inline constexpr char kCostLimitExceededMessage[] =
    "operation cancelled: actual cost limit exceeded";

}  // namespace draplane::cel::internal

#endif  // DRAPLANE_CEL_INTERNAL_INTERPRETER_H_
