#include "cel/cel.h"

#include <cmath>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "cel/internal/checker.h"
#include "cel/internal/checker_declarations.h"
#include "cel/internal/cost_estimator.h"
#include "cel/internal/device_references.h"
#include "cel/internal/dra_device.h"
#include "cel/internal/environment.h"
#include "cel/internal/format_library.h"
#include "cel/internal/interpreter.h"
#include "cel/internal/kubernetes_library.h"
#include "cel/internal/parser.h"
#include "cel/internal/value.h"
#include "cel/internal/value_json.h"
#include "common/str_cat.h"

namespace draplane::cel {
namespace {

using internal::Value;
using internal::ValueKind;

// Binds `device` only.
class DeviceActivation final : public internal::Activation {
 public:
  explicit DeviceActivation(const Value& device) : device_(device) {}
  std::optional<Value> Find(std::string_view name) const override {
    if (name == internal::kDeviceVariable) return device_;
    return std::nullopt;
  }

 private:
  const Value& device_;
};

// cel-go's ConvertToNative(bool) failure text for a result of v's type, as
// DeviceMatches reports it (the text differs per cel-go type).
std::string NotBoolDetail(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kInt:
      return "unsupported type conversion from 'int' to bool";
    case ValueKind::kUint:
      return "unsupported type conversion from 'uint' to bool";
    case ValueKind::kString:
      return "unsupported native conversion from string to 'bool'";
    case ValueKind::kDouble:
      return "type conversion error from Double to 'bool'";
    case ValueKind::kBytes:
      return "type conversion error from Bytes to 'bool'";
    case ValueKind::kList:
      return "type conversion error from list to 'bool'";
    case ValueKind::kMap:
      return "type conversion error from map to 'bool'";
    case ValueKind::kNull:
      return "type conversion error from 'null_type' to 'bool'";
    case ValueKind::kType:
      return "type conversion not supported for 'type'";
    case ValueKind::kTimestamp:
      return "type conversion error from 'Timestamp' to 'bool'";
    case ValueKind::kDuration:
      return "type conversion error from 'Duration' to 'bool'";
    case ValueKind::kOptional:
      return v.optional_has_value() ? NotBoolDetail(v.optional_value())
                                    : "optional.none() dereference";
    case ValueKind::kOpaque: {
      // "kubernetes.Quantity" -> 'Quantity', "net.IP" -> 'IP'; the Go
      // type behind kubernetes.NamedFormat is cel.Format.
      std::string_view name = v.opaque().TypeName();
      if (name == internal::kNamedFormatTypeName) name = "Format";
      size_t dot = name.rfind('.');
      if (dot != std::string_view::npos) name = name.substr(dot + 1);
      return StrCat("type conversion error from '", name, "' to 'bool'");
    }
    default:
      return "unsupported type conversion";
  }
}

// dynamic-resource-allocation/cel EnhanceRuntimeError.
std::string EnhanceRuntimeError(std::string_view message) {
  std::string out(message);
  if (out.find("no such key:") != std::string::npos) {
    out.append(
        ". consider using CEL optional chaining (.? followed by orValue()) or "
        "guarding the check with has() for optional fields");
  }
  return out;
}

}  // namespace

// --- Device ---

Device::Device(std::shared_ptr<const internal::Value> value)
    : value_(std::move(value)) {}
Device::~Device() = default;

absl::StatusOr<Device> Device::Create(std::string_view driver,
                                      const api::Device& device) {
  absl::StatusOr<Value> v = internal::MakeDeviceValue(driver, device);
  if (!v.ok()) return v.status();
  return Device(std::make_shared<const Value>(*std::move(v)));
}

// --- Program ---

Program::Program(std::string expression,
                 std::unique_ptr<internal::Program> program,
                 std::shared_ptr<const internal::FunctionRegistry> functions,
                 uint64_t estimated_max_cost)
    : expression_(std::move(expression)),
      functions_(std::move(functions)),
      program_(std::move(program)),
      estimated_max_cost_(estimated_max_cost) {}

Program::~Program() = default;

absl::StatusOr<bool> Program::Matches(const Device& device,
                                      uint64_t cost_limit) const {
  internal::EvalOptions options;
  options.cost_limit = cost_limit;
  options.presence_test_has_cost = false;
  internal::EvalResult r =
      program_->Evaluate(DeviceActivation(*device.value_), options);
  const Value& v = r.value;
  if (v.is_bool()) return v.bool_value();
  if (v.is_error()) {
    return absl::InvalidArgumentError(EnhanceRuntimeError(v.error_message()));
  }
  if (v.kind() == ValueKind::kOptional && v.optional_has_value() &&
      v.optional_value().is_bool()) {
    // cel-go converts optional.of(b) to b.
    return v.optional_value().bool_value();
  }
  return absl::InvalidArgumentError(
      StrCat("CEL result of type ", v.TypeName(),
             " could not be converted to bool: ", NotBoolDetail(v)));
}

Evaluation Program::EvaluateActivation(const internal::Activation& activation,
                                       uint64_t cost_limit) const {
  internal::EvalOptions options;
  options.cost_limit = cost_limit;
  options.presence_test_has_cost = false;
  internal::EvalResult r = program_->Evaluate(activation, options);
  Evaluation out;
  out.cost = r.actual_cost;
  if (r.value.is_error()) {
    out.error = std::string(r.value.error_message());
    return out;
  }
  out.type = std::string(r.value.TypeName());
  out.value = internal::ValueToJson(r.value);
  return out;
}

Evaluation Program::Evaluate(const Device& device, uint64_t cost_limit) const {
  return EvaluateActivation(DeviceActivation(*device.value_), cost_limit);
}

Evaluation Program::Evaluate(const std::map<std::string, api::Json>& variables,
                             uint64_t cost_limit) const {
  internal::MapActivation activation;
  for (const auto& [name, json] : variables) {
    activation.Insert(name, internal::JsonToValue(json));
  }
  return EvaluateActivation(activation, cost_limit);
}

// --- Compiler ---

Compiler::Compiler(DeviceFeatures features) : features_(features) {
  auto build = [](int lists_version) {
    auto registry = std::make_shared<internal::FunctionRegistry>();
    internal::LibraryOptions options;
    options.kubernetes_lists_version = lists_version;
    absl::Status s =
        internal::RegisterKubernetesLibraries(registry.get(), options);
    // The libraries are fixed at build time; a conflict is a programming
    // error caught by the tests.
    if (!s.ok()) std::abort();
    return registry;
  };
  functions_ = build(1);
  validation_functions_ =
      features_.list_type_attributes ? functions_ : build(0);
}

Compiler::~Compiler() = default;

const Compiler& Compiler::Default() {
  static const Compiler* compiler = new Compiler();
  return *compiler;
}

const Compiler& Compiler::Shared(DeviceFeatures features) {
  // One per combination of the two gates, each built on first use
  // (thread-safe static initialisation) and never destroyed, like Default().
  auto make = [](bool consumable_capacity, bool list_type_attributes) {
    return new Compiler(
        DeviceFeatures{consumable_capacity, list_type_attributes});
  };
  if (features.consumable_capacity) {
    if (features.list_type_attributes) {
      static const Compiler* const compiler = make(true, true);
      return *compiler;
    }
    static const Compiler* const compiler = make(true, false);
    return *compiler;
  }
  if (features.list_type_attributes) {
    static const Compiler* const compiler = make(false, true);
    return *compiler;
  }
  static const Compiler* const compiler = make(false, false);
  return *compiler;
}

absl::StatusOr<std::shared_ptr<const Program>> Compiler::CompileSelector(
    std::string_view expression, bool for_validation) const {
  return Compile(
      expression,
      for_validation ? Mode::kSelectorValidation : Mode::kSelectorStored, {});
}

absl::StatusOr<std::shared_ptr<const Program>>
Compiler::CompileDeviceExpression(std::string_view expression) const {
  return Compile(expression, Mode::kDeviceExpression, {});
}

absl::StatusOr<std::shared_ptr<const Program>> Compiler::CompileExpression(
    std::string_view expression,
    const std::vector<std::string>& variables) const {
  return Compile(expression, Mode::kPlainExpression, variables);
}

absl::StatusOr<std::shared_ptr<const Program>> Compiler::Compile(
    std::string_view expression, Mode mode,
    const std::vector<std::string>& variables) const {
  bool device_environment = mode != Mode::kPlainExpression;
  internal::ParserOptions parser_options = internal::KubernetesParserOptions();
  // cel.bind (ext.Bindings) is DRA's addition to the base environment.
  parser_options.enable_bind_macro = device_environment;
  absl::StatusOr<internal::ParsedExpr> parsed =
      internal::Parse(expression, parser_options);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        StrCat("compilation failed: ", std::string(parsed.status().message())));
  }
  // The StoredExpressions environment declares every variant of the
  // device type (feature gates are ignored there) and the last one wins:
  // allowMultipleAllocations present, attribute values dyn.
  internal::DraDeviceTypeOptions device_type;
  if (mode == Mode::kSelectorValidation) {
    device_type.consumable_capacity = features_.consumable_capacity;
    device_type.list_type_attributes = features_.list_type_attributes;
  }
  const std::shared_ptr<const internal::FunctionRegistry>& functions =
      mode == Mode::kSelectorValidation ? validation_functions_ : functions_;
  internal::CheckerEnvironment env;
  env.functions = functions.get();
  if (device_environment) {
    env.variables.emplace_back(internal::kDeviceVariable,
                               internal::DraDeviceType(device_type));
  }
  for (const std::string& v : variables) {
    env.variables.emplace_back(v, internal::Type::Dyn());
  }
  absl::StatusOr<internal::CheckedExpr> checked =
      internal::Check(*parsed->root, parsed->source, env);
  if (!checked.ok()) {
    return absl::InvalidArgumentError(StrCat(
        "compilation failed: ", std::string(checked.status().message())));
  }
  bool selector =
      mode == Mode::kSelectorStored || mode == Mode::kSelectorValidation;
  if (selector) {
    // dynamic-resource-allocation/cel validateOutputType.
    internal::Type attribute = device_type.list_type_attributes
                                   ? internal::Type::Dyn()
                                   : internal::Type::Any();
    const internal::Type& out = checked->output_type;
    if (!out.IsExact(internal::Type::Bool()) && !out.IsExact(attribute)) {
      return absl::InvalidArgumentError(StrCat(
          "must evaluate to bool or the unknown type, not ", out.ToString()));
    }
  }
  uint64_t estimated_max_cost = 0;
  if (mode == Mode::kSelectorValidation) {
    std::unique_ptr<internal::SizeEstimator> sizes =
        internal::NewDraDeviceSizeEstimator(device_type);
    internal::CostOptions cost_options;
    cost_options.sizes = sizes.get();
    cost_options.presence_test_has_cost = false;
    absl::StatusOr<internal::CostEstimate> cost =
        internal::EstimateCost(*parsed->root, *checked, cost_options);
    if (!cost.ok()) {
      return absl::InternalError(StrCat("cost estimation failed: ",
                                        std::string(cost.status().message())));
    }
    estimated_max_cost = cost->max;
    if (cost->max > kSelectorMaxCost) {
      return absl::ResourceExhaustedError("too complex, exceeds cost limit");
    }
  }
  internal::PlanOptions plan_options;
  plan_options.optimize = true;  // Kubernetes: cel.EvalOptions(OptOptimize)
  plan_options.is_declared_variable = [&](std::string_view name) {
    if (device_environment && name == internal::kDeviceVariable) return true;
    for (const std::string& v : variables) {
      if (v == name) return true;
    }
    return false;
  };
  absl::StatusOr<std::unique_ptr<internal::Program>> program =
      internal::Plan(*parsed->root, *functions, plan_options);
  if (!program.ok()) {
    if (program.status().code() == absl::StatusCode::kFailedPrecondition) {
      // "program instantiation failed: ..." as upstream's env.Program.
      return absl::InvalidArgumentError(program.status().message());
    }
    return absl::InvalidArgumentError(StrCat(
        "compilation failed: ", std::string(program.status().message())));
  }
  return std::shared_ptr<const Program>(
      new Program(std::string(expression), *std::move(program), functions,
                  estimated_max_cost));
}

// --- References ---

std::string DeviceReference::Describe() const {
  switch (kind) {
    case Kind::kDriver:
      return "driver";
    case Kind::kAttribute:
      return StrCat("attribute ", domain, "/", name);
    case Kind::kCapacity:
      return StrCat("capacity ", domain, "/", name);
  }
  return "";
}

absl::StatusOr<std::vector<DeviceReference>> FindDeviceReferences(
    std::string_view expression) {
  absl::StatusOr<internal::ParsedExpr> parsed =
      internal::Parse(expression, internal::KubernetesParserOptions());
  if (!parsed.ok()) return parsed.status();
  std::vector<DeviceReference> out;
  for (const internal::DeviceReference& r :
       internal::FindDeviceReferences(*parsed->root)) {
    DeviceReference ref;
    ref.kind = static_cast<DeviceReference::Kind>(r.kind);
    ref.domain = r.domain;
    ref.name = r.name;
    if (r.equals) {
      ref.equals = std::visit(
          [](const auto& c) -> api::Json {
            using T = std::decay_t<decltype(c)>;
            if constexpr (std::is_same_v<T, internal::NullValue>) {
              return nullptr;
            } else if constexpr (std::is_same_v<T, internal::BytesValue>) {
              return c.bytes;
            } else {
              return c;
            }
          },
          *r.equals);
    }
    out.push_back(std::move(ref));
  }
  return out;
}

}  // namespace draplane::cel
