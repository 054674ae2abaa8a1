// Rules shared by the DRA kinds: CEL selectors, opaque configuration,
// device taints and tolerations, binding parameters.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <ctime>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/object_codec.h"
#include "api/validation/internal/validation_rules.h"
#include "common/go_strconv.h"
#include "common/name_validation.h"
#include "common/str_cat.h"

namespace draplane::api::validation_internal {

namespace {

// ------------------------------------------------ shared DRA pieces

Errs ValidateCELExpression(const std::string& expression, const FieldPath& path,
                           const Context& ctx) {
  // A stored expression was valid when it was stored; it is never
  // re-validated.
  if (ctx.stored) return {};
  if (expression.size() >
      static_cast<size_t>(kCELSelectorExpressionMaxLength)) {
    return {TooLong(path, kCELSelectorExpressionMaxLength)};
  }
  if (ctx.options.compile_cel) {
    absl::Status status = ctx.options.compile_cel(expression);
    if (status.code() == absl::StatusCode::kResourceExhausted) {
      return {Forbidden(path, "too complex, exceeds cost limit")};
    }
    if (!status.ok()) {
      return {Invalid(
          path, expression,
          std::string(status.message().data(), status.message().size()))};
    }
  }
  return {};
}

}  // namespace

Errs ValidateSelector(const DeviceSelector& selector, const FieldPath& path,
                      const Context& ctx) {
  if (!selector.cel.has_value()) return {Required(path.Child("cel"))};
  return ValidateCELExpression(selector.cel->expression,
                               path.Child("cel").Child("expression"), ctx);
}

Errs ValidateSelectorSlice(const std::vector<DeviceSelector>& selectors,
                           const FieldPath& path, const Context& ctx) {
  return ValidateSlice(
      selectors, kDeviceSelectorsMaxSize,
      [&](const DeviceSelector& s, const FieldPath& p) {
        return ValidateSelector(s, p, ctx);
      },
      path);
}

// validateRawExtension: `json` stands for the raw bytes (null == empty).
Errs ValidateRawExtension(const Json& json, const FieldPath& path, bool stored,
                          int max_length) {
  if (json.is_null()) return {Required(path)};
  if (!stored && DumpJson(json).size() > static_cast<size_t>(max_length)) {
    return {TooLong(path, max_length)};
  }
  if (!json.is_object()) {
    return {Invalid(path, "<value omitted>", "must be a valid JSON object")};
  }
  return {};
}

namespace {

Errs ValidateOpaqueConfiguration(const OpaqueDeviceConfiguration& config,
                                 const FieldPath& path, bool stored) {
  Errs errs = ValidateDriverName(config.driver, path.Child("driver"));
  Extend(errs, ValidateRawExtension(config.parameters, path.Child("parameters"),
                                    stored, kOpaqueParametersMaxLength));
  return errs;
}

}  // namespace

Errs ValidateDeviceConfiguration(
    const std::optional<OpaqueDeviceConfiguration>& opaque,
    const FieldPath& path, bool stored) {
  if (!opaque.has_value()) return {Required(path.Child("opaque"))};
  return ValidateOpaqueConfiguration(*opaque, path.Child("opaque"), stored);
}

namespace {

const std::vector<std::string>& TaintEffects() {
  static const std::vector<std::string> kEffects = {"NoExecute", "NoSchedule",
                                                    "None"};
  return kEffects;
}
bool IsTaintEffect(const std::string& e) {
  return e == "NoExecute" || e == "NoSchedule" || e == "None";
}

}  // namespace

Errs ValidateDeviceTaint(const DeviceTaint& taint, const DeviceTaint* old,
                         const FieldPath& path) {
  Errs errs = ValidateLabelName(taint.key, path.Child("key"));
  if (!taint.value.empty()) {
    Extend(errs, ValidateLabelValue(taint.value, path.Child("value")));
  }
  if (old == nullptr || old->effect != taint.effect) {
    if (taint.effect.empty()) {
      errs.push_back(Required(path.Child("effect")));
    } else if (!IsTaintEffect(taint.effect)) {
      errs.push_back(
          NotSupported(path.Child("effect"), taint.effect, TaintEffects()));
    }
  }
  return errs;
}

namespace {

Errs ValidateDeviceToleration(const DeviceToleration& t,
                              const FieldPath& path) {
  Errs errs;
  if (!t.key.empty()) Extend(errs, ValidateLabelName(t.key, path.Child("key")));
  if (t.operator_ == "Exists") {
    if (!t.value.empty()) {
      errs.push_back(Invalid(path.Child("value"), t.value,
                             "must be empty for operator `Exists`"));
    }
  } else if (t.operator_ == "Equal") {
    Extend(errs, ValidateLabelValue(t.value, path.Child("value")));
  } else if (t.operator_.empty()) {
    errs.push_back(Required(path.Child("operator")));
  } else {
    errs.push_back(
        NotSupported(path.Child("operator"), t.operator_, {"Equal", "Exists"}));
  }
  if (!t.effect.empty() && !IsTaintEffect(t.effect)) {
    errs.push_back(
        NotSupported(path.Child("effect"), t.effect, TaintEffects()));
  }
  return errs;
}

}  // namespace

Errs ValidateTolerations(const std::vector<DeviceToleration>& tolerations,
                         const FieldPath& path) {
  Errs errs;
  for (size_t i = 0; i < tolerations.size(); ++i) {
    Extend(errs, ValidateDeviceToleration(tolerations[i],
                                          path.Index(static_cast<int64_t>(i))));
  }
  return errs;
}

Errs ValidateDeviceBindingParameters(const std::vector<std::string>& conditions,
                                     const std::vector<std::string>& failures,
                                     const FieldPath& path) {
  FieldPath cp = path.Child("bindingConditions");
  FieldPath fp = path.Child("bindingFailureConditions");
  auto label_name = [](const std::string& s, const FieldPath& p) {
    return ValidateLabelName(s, p);
  };
  Errs errs =
      ValidateSlice(conditions, kBindingConditionsMaxSize, label_name, cp);
  Extend(errs, ValidateSlice(failures, kBindingFailureConditionsMaxSize,
                             label_name, fp));
  std::set<std::string> seen;
  for (size_t i = 0; i < conditions.size(); ++i) {
    if (!seen.insert(conditions[i]).second) {
      errs.push_back(
          Duplicate(cp.Index(static_cast<int64_t>(i)), conditions[i]));
    }
  }
  std::set<std::string> all_conditions(conditions.begin(), conditions.end());
  std::set<std::string> seen_failures;
  for (size_t i = 0; i < failures.size(); ++i) {
    FieldPath p = fp.Index(static_cast<int64_t>(i));
    if (!seen_failures.insert(failures[i]).second) {
      errs.push_back(Duplicate(p, failures[i]));
    }
    if (all_conditions.count(failures[i])) {
      errs.push_back(Invalid(p, failures[i],
                             "bindingFailureConditions must not overlap with "
                             "bindingConditions"));
    }
  }
  if (conditions.empty() && !failures.empty()) {
    errs.push_back(Invalid(cp, BadValue::Json(GoStrings(conditions)),
                           "bindingConditions are required to use "
                           "bindingFailureConditions"));
  }
  if (failures.empty() && !conditions.empty()) {
    errs.push_back(Invalid(fp, BadValue::Json(GoStrings(failures)),
                           "bindingFailureConditions are required to use "
                           "bindingConditions"));
  }
  return errs;
}

}  // namespace draplane::api::validation_internal
