// draplane's CEL engine: compile once, evaluate many times.
//
// Two environments, both Kubernetes 1.37's CEL base environment (standard
// library, optional types, cel.bind, two-variable comprehensions, and the
// Kubernetes libraries: quantity, semver, strings, lists, sets, regex, URL,
// IP/CIDR, format — those the build registers, see
// internal/environment.h):
//  - the DRA selector environment: one variable, `device` (see
//    internal/dra_device.h), results must be bool; this is what
//    DeviceClass and ResourceClaim selectors are compiled and run in;
//  - the plain Kubernetes environment with caller-named variables of
//    dynamic type (`draplane cel eval --var`).
//
// Compile errors are absl::Status values with upstream's texts
// ("compilation failed: ERROR: <input>:1:7: undefined field 'foo'\n | ...").
// Evaluation errors are results, never exceptions. Programs are immutable
// and may be shared and evaluated concurrently from any number of threads.
#ifndef DRAPLANE_CEL_CEL_H_
#define DRAPLANE_CEL_CEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "api/object.h"
#include "api/resource_types.h"

namespace draplane::cel {

namespace internal {
class Activation;
class FunctionRegistry;
class Program;
class Value;
}  // namespace internal

// Upstream limits (k8s.io/api resource/v1).
inline constexpr size_t kSelectorMaxLength = 10 * 1024;
inline constexpr uint64_t kSelectorMaxCost = 1'000'000;

// Kubernetes feature gates that change the DRA environment; the defaults
// are Kubernetes 1.37's.
struct DeviceFeatures {
  // DRAConsumableCapacity (beta, on): declares device.allowMultipleAllocations.
  bool consumable_capacity = true;
  // DRAListTypeAttributes (alpha, off): attribute values may be lists.
  bool list_type_attributes = false;
};

// A device as selectors see it: converted once from the API object, then
// evaluated against any number of selectors without further allocation.
class Device {
 public:
  // Fails for an attribute upstream cannot convert either (an unparsable
  // version: "attribute <name>: parse semantic version: ...").
  static absl::StatusOr<Device> Create(std::string_view driver,
                                       const api::Device& device);
  Device(const Device&) = default;
  Device& operator=(const Device&) = default;
  ~Device();

 private:
  friend class Program;
  explicit Device(std::shared_ptr<const internal::Value> value);
  std::shared_ptr<const internal::Value> value_;
};

// The outcome of one evaluation. (Its move constructor is noexcept; the
// check follows api::Json's debug-only invariant assertion.)
// NOLINTNEXTLINE(bugprone-exception-escape)
struct Evaluation {
  // Set when evaluation failed (runtime error, cost limit).
  std::optional<std::string> error;
  // The CEL type name of the result ("bool", "int", "kubernetes.Quantity",
  // "list", ...); empty on error.
  std::string type;
  // The value as JSON: numbers as numbers (NaN/Inf as "NaN"/"+Inf"/"-Inf"),
  // bytes base64, durations ("1.5s") and timestamps (RFC 3339) as strings,
  // quantity and semver as their canonical strings, lists and maps
  // (keys as strings), optionals as their value or null, types by name.
  api::Json value;
  // The runtime cost as cel-go counts it.
  uint64_t cost = 0;
};

// A compiled expression. Thread-safe, immutable.
class Program {
 public:
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  const std::string& expression() const { return expression_; }
  // The estimated worst-case cost (selectors compiled for validation;
  // 0 otherwise).
  uint64_t estimated_max_cost() const { return estimated_max_cost_; }

  // Selector semantics (upstream DeviceMatches): true or false, or an
  // error: a runtime error (with upstream's hint appended to "no such
  // key"), the cost limit, or a result that is not a bool ("CEL result of
  // type int could not be converted to bool: ...").
  absl::StatusOr<bool> Matches(const Device& device,
                               uint64_t cost_limit = kSelectorMaxCost) const;

  // Evaluates with `device` bound (selector programs) or with `variables`
  // (programs compiled with variables; JSON objects become maps, arrays
  // lists, integers without fraction or exponent int, other numbers
  // double); values as for Evaluation.
  Evaluation Evaluate(const Device& device,
                      uint64_t cost_limit = kSelectorMaxCost) const;
  Evaluation Evaluate(const std::map<std::string, api::Json>& variables,
                      uint64_t cost_limit = kSelectorMaxCost) const;

 private:
  friend class Compiler;
  Program(std::string expression, std::unique_ptr<internal::Program> program,
          std::shared_ptr<const internal::FunctionRegistry> functions,
          uint64_t estimated_max_cost);
  Evaluation EvaluateActivation(const internal::Activation& activation,
                                uint64_t cost_limit) const;

  std::string expression_;
  std::shared_ptr<const internal::FunctionRegistry> functions_;
  std::unique_ptr<internal::Program> program_;
  uint64_t estimated_max_cost_;
};

class Compiler {
 public:
  explicit Compiler(DeviceFeatures features = {});
  ~Compiler();

  // The 1.37-default compiler, shared by the process.
  static const Compiler& Default();
  // The compiler for `features`, one per feature set, shared by the
  // process (a compiler holds the function registries, about 200 KiB).
  static const Compiler& Shared(DeviceFeatures features);

  // Compiles a DRA device selector. Errors (upstream texts):
  //  - InvalidArgument "compilation failed: ERROR: <input>:L:C: ..." for
  //    syntax, undeclared names, undefined fields, type errors;
  //  - InvalidArgument "must evaluate to bool or the unknown type, not int";
  //  - InvalidArgument "program instantiation failed: ..." for constant
  //    arguments that cannot be converted (`int('x')`);
  //  - with `for_validation`: ResourceExhausted "too complex, exceeds cost
  //    limit" when the estimated cost exceeds kSelectorMaxCost.
  // `for_validation` selects upstream's NewExpressions environment, which
  // API validation uses for new or changed selectors: the device type
  // follows the feature gates (attribute values are `any` without
  // DRAListTypeAttributes) and the cost is estimated. Without it, the
  // StoredExpressions environment the scheduler uses: every library and
  // device field ever introduced, no cost estimate.
  // The length limit (kSelectorMaxLength) is API validation's, not checked
  // here, as upstream.
  absl::StatusOr<std::shared_ptr<const Program>> CompileSelector(
      std::string_view expression, bool for_validation = false) const;

  // Compiles an expression of any result type in the DRA environment
  // (`device` declared): for looking at attribute values while debugging.
  absl::StatusOr<std::shared_ptr<const Program>> CompileDeviceExpression(
      std::string_view expression) const;

  // Compiles an expression of any result type in the Kubernetes base
  // environment with the named variables declared as dyn.
  absl::StatusOr<std::shared_ptr<const Program>> CompileExpression(
      std::string_view expression,
      const std::vector<std::string>& variables) const;

 private:
  enum class Mode {
    kSelectorStored,      // scheduler: StoredExpressions, result bool
    kSelectorValidation,  // admission: NewExpressions, result bool, cost
    kDeviceExpression,    // `cel eval --device-file`: any result
    kPlainExpression,     // `cel eval [--var]`: no device
  };
  absl::StatusOr<std::shared_ptr<const Program>> Compile(
      std::string_view expression, Mode mode,
      const std::vector<std::string>& variables) const;

  DeviceFeatures features_;
  // StoredExpressions: every library.
  std::shared_ptr<const internal::FunctionRegistry> functions_;
  // NewExpressions (validation): Lists v0, plus `includes` with
  // DRAListTypeAttributes.
  std::shared_ptr<const internal::FunctionRegistry> validation_functions_;
};

// What a selector reads from `device` (for explanations; see
// internal/device_references.h for the recognised forms).
struct DeviceReference {
  enum class Kind { kDriver, kAttribute, kCapacity };
  Kind kind = Kind::kDriver;
  std::string domain;  // attributes and capacities
  std::string name;
  // The constant the reference is compared with by `==`, as JSON.
  std::optional<api::Json> equals;

  // "driver", "attribute gpu.nvidia.com/productName", ...
  std::string Describe() const;
};

// The device references of `expression`, in source order. Fails only when
// the expression does not parse.
absl::StatusOr<std::vector<DeviceReference>> FindDeviceReferences(
    std::string_view expression);

}  // namespace draplane::cel

#endif  // DRAPLANE_CEL_CEL_H_
