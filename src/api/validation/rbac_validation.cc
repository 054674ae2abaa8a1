// Role, ClusterRole, RoleBinding, ClusterRoleBinding
// (pkg/apis/rbac/validation, and metav1 validation's ValidateLabelSelector
// for aggregation rules).

#include <string>
#include <string_view>
#include <vector>

#include "api/rbac_types.h"
#include "api/typed_json.h"
#include "api/validation/internal/validation_rules.h"
#include "common/name_validation.h"
#include "common/str_cat.h"

namespace draplane::api::validation_internal {
namespace {

constexpr std::string_view kUserKind = "User";
constexpr std::string_view kGroupKind = "Group";
constexpr std::string_view kServiceAccountKind = "ServiceAccount";

// metav1validation.ValidateLabelSelectorRequirement over a matchExpressions
// item (kept as JSON by api::LabelSelector).
Errs ValidateRequirement(const Json& expr, bool allow_invalid_label_value,
                         const FieldPath& path) {
  Errs errs;
  auto text = [&expr](const char* key) {
    auto it = expr.find(key);
    return it != expr.end() && it->is_string() ? it->get<std::string>()
                                               : std::string();
  };
  std::vector<std::string> values;
  if (auto it = expr.find("values"); it != expr.end() && it->is_array()) {
    for (const Json& v : *it) {
      if (v.is_string()) values.push_back(v.get<std::string>());
    }
  }
  const std::string op = text("operator");
  if (op == "In" || op == "NotIn") {
    if (values.empty()) {
      errs.push_back(
          Required(path.Child("values"),
                   "must be specified when `operator` is 'In' or 'NotIn'"));
    }
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (!values.empty()) {
      errs.push_back(
          Forbidden(path.Child("values"),
                    "may not be specified when `operator` is 'Exists' or "
                    "'DoesNotExist'"));
    }
  } else {
    errs.push_back(
        Invalid(path.Child("operator"), op, "not a valid selector operator"));
  }
  Extend(errs, ValidateLabelName(text("key"), path.Child("key")));
  if (!allow_invalid_label_value) {
    for (size_t i = 0; i < values.size(); ++i) {
      Extend(errs, ValidateLabelValue(values[i], path.Child("values").Index(
                                                     static_cast<int64_t>(i))));
    }
  }
  return errs;
}

Errs ValidateLabelSelector(const LabelSelector& selector,
                           bool allow_invalid_label_value,
                           const FieldPath& path) {
  Errs errs;
  for (const auto& [key, value] : selector.match_labels) {
    Extend(errs, ValidateLabelName(key, path.Child("matchLabels")));
    Extend(errs, ValidateLabelValue(value, path.Child("matchLabels")));
  }
  auto exprs = selector.unknown_fields.find("matchExpressions");
  if (exprs != selector.unknown_fields.end()) {
    if (!exprs->is_array()) {
      errs.push_back(Invalid(path.Child("matchExpressions"),
                             BadValue::Json(exprs->dump()),
                             "must be a list of label selector requirements"));
      return errs;
    }
    for (size_t i = 0; i < exprs->size(); ++i) {
      const FieldPath item =
          path.Child("matchExpressions").Index(static_cast<int64_t>(i));
      if (!(*exprs)[i].is_object()) {
        errs.push_back(Invalid(item, BadValue::Json((*exprs)[i].dump()),
                               "must be a label selector requirement"));
        continue;
      }
      Extend(errs,
             ValidateRequirement((*exprs)[i], allow_invalid_label_value, item));
    }
  }
  return errs;
}

Errs ValidateRoleRef(const RoleRef& ref, bool cluster_binding) {
  Errs errs;
  const FieldPath path("roleRef");
  if (ref.api_group != kRbacGroup) {
    errs.push_back(NotSupported(path.Child("apiGroup"), ref.api_group,
                                {std::string(kRbacGroup)}));
  }
  if (cluster_binding) {
    if (ref.kind != "ClusterRole") {
      errs.push_back(
          NotSupported(path.Child("kind"), ref.kind, {"ClusterRole"}));
    }
  } else if (ref.kind != "Role" && ref.kind != "ClusterRole") {
    errs.push_back(
        NotSupported(path.Child("kind"), ref.kind, {"Role", "ClusterRole"}));
  }
  if (ref.name.empty()) {
    errs.push_back(Required(path.Child("name"), ""));
  } else {
    for (const std::string& msg : ValidateRbacName(ref.name, false)) {
      errs.push_back(Invalid(path.Child("name"), ref.name, msg));
    }
  }
  return errs;
}

// ValidateRoleBindingSubject.
Errs ValidateSubject(const Subject& subject, bool namespaced,
                     const FieldPath& path) {
  Errs errs;
  if (subject.name.empty()) errs.push_back(Required(path.Child("name"), ""));
  if (subject.kind == kServiceAccountKind) {
    if (!subject.name.empty()) {
      for (const std::string& msg :
           name_validation::NameIsDNSSubdomain(subject.name, false)) {
        errs.push_back(Invalid(path.Child("name"), subject.name, msg));
      }
    }
    if (!subject.api_group.empty()) {
      errs.push_back(
          NotSupported(path.Child("apiGroup"), subject.api_group, {""}));
    }
    if (!namespaced && subject.namespace_.empty()) {
      errs.push_back(Required(path.Child("namespace"), ""));
    }
  } else if (subject.kind == kUserKind || subject.kind == kGroupKind) {
    if (subject.api_group != kRbacGroup) {
      errs.push_back(NotSupported(path.Child("apiGroup"), subject.api_group,
                                  {std::string(kRbacGroup)}));
    }
  } else {
    errs.push_back(
        NotSupported(path.Child("kind"), subject.kind,
                     {std::string(kServiceAccountKind), std::string(kUserKind),
                      std::string(kGroupKind)}));
  }
  return errs;
}

Errs ValidateBinding(const std::vector<Subject>& subjects, const RoleRef& ref,
                     bool cluster_binding) {
  Errs errs = ValidateRoleRef(ref, cluster_binding);
  for (size_t i = 0; i < subjects.size(); ++i) {
    Extend(errs, ValidateSubject(
                     subjects[i], !cluster_binding,
                     FieldPath("subjects").Index(static_cast<int64_t>(i))));
  }
  return errs;
}

}  // namespace

std::vector<std::string> ValidateRbacName(std::string_view name, bool prefix) {
  (void)prefix;
  if (name == "." || name == "..") {
    return {StrCat("may not be '", name, "'")};
  }
  std::vector<std::string> msgs;
  for (const char* bad : {"/", "%"}) {
    if (name.find(bad) != std::string_view::npos) {
      msgs.push_back(StrCat("may not contain '", bad, "'"));
    }
  }
  return msgs;
}

Errs ValidatePolicyRule(const PolicyRule& rule, bool namespaced,
                        const FieldPath& path) {
  Errs errs;
  if (rule.verbs.empty()) {
    errs.push_back(
        Required(path.Child("verbs"), "verbs must contain at least one value"));
  }
  if (!rule.non_resource_urls.empty()) {
    const BadValue urls = BadValue::Json(GoStrings(rule.non_resource_urls));
    if (namespaced) {
      errs.push_back(Invalid(path.Child("nonResourceURLs"), urls,
                             "namespaced rules cannot apply to non-resource "
                             "URLs"));
    }
    if (!rule.api_groups.empty() || !rule.resources.empty() ||
        !rule.resource_names.empty()) {
      errs.push_back(Invalid(path.Child("nonResourceURLs"), urls,
                             "rules cannot apply to both regular resources "
                             "and non-resource URLs"));
    }
    return errs;
  }
  if (rule.api_groups.empty()) {
    errs.push_back(Required(path.Child("apiGroups"),
                            "resource rules must supply at least one api "
                            "group"));
  }
  if (rule.resources.empty()) {
    errs.push_back(Required(path.Child("resources"),
                            "resource rules must supply at least one "
                            "resource"));
  }
  return errs;
}

Errs ValidateRoleRules(const std::vector<PolicyRule>& rules, bool namespaced) {
  Errs errs;
  for (size_t i = 0; i < rules.size(); ++i) {
    Extend(errs, ValidatePolicyRule(
                     rules[i], namespaced,
                     FieldPath("rules").Index(static_cast<int64_t>(i))));
  }
  return errs;
}

Errs ValidateAggregationRule(const std::optional<AggregationRule>& rule,
                             bool allow_invalid_label_value) {
  Errs errs;
  if (!rule.has_value()) return errs;
  const FieldPath path =
      FieldPath("aggregationRule").Child("clusterRoleSelectors");
  if (rule->cluster_role_selectors.empty()) {
    errs.push_back(Required(path,
                            "at least one clusterRoleSelector required if "
                            "aggregationRule is non-nil"));
  }
  for (size_t i = 0; i < rule->cluster_role_selectors.size(); ++i) {
    Extend(errs, ValidateLabelSelector(rule->cluster_role_selectors[i],
                                       allow_invalid_label_value,
                                       path.Index(static_cast<int64_t>(i))));
  }
  return errs;
}

bool HasInvalidLabelValueInSelector(const ClusterRole& role) {
  if (!role.aggregation_rule.has_value()) return false;
  const FieldPath path("aggregationRule");
  for (const LabelSelector& s : role.aggregation_rule->cluster_role_selectors) {
    if (ValidateLabelSelector(s, false, path).size() !=
        ValidateLabelSelector(s, true, path).size()) {
      return true;
    }
  }
  return false;
}

Errs ValidateRoleBindingSpec(const RoleBinding& binding) {
  return ValidateBinding(binding.subjects, binding.role_ref, false);
}

Errs ValidateClusterRoleBindingSpec(const ClusterRoleBinding& binding) {
  return ValidateBinding(binding.subjects, binding.role_ref, true);
}

Errs ValidateRoleRefUpdate(const RoleRef& ref, const RoleRef& old) {
  if (ref.api_group == old.api_group && ref.kind == old.kind &&
      ref.name == old.name) {
    return {};
  }
  return {Invalid(FieldPath("roleRef"), RenderJson(ref), kFieldImmutable)};
}

void DefaultRbac(std::vector<Subject>& subjects, RoleRef& ref) {
  if (ref.api_group.empty()) ref.api_group = kRbacGroup;
  for (Subject& s : subjects) {
    if (s.api_group.empty() && (s.kind == kUserKind || s.kind == kGroupKind)) {
      s.api_group = kRbacGroup;
    }
  }
}

}  // namespace draplane::api::validation_internal
