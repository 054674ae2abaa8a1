// Internal to the validation library: the pieces its per-kind files share.
// Every function follows the upstream function named in its comment.
#ifndef DRAPLANE_API_VALIDATION_INTERNAL_VALIDATION_RULES_H_
#define DRAPLANE_API_VALIDATION_INTERNAL_VALIDATION_RULES_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/typed_json.h"
#include "api/validation/validation.h"
#include "common/field_errors.h"
#include "common/name_validation.h"
#include "common/str_cat.h"

namespace draplane::api::validation_internal {

namespace nv = ::draplane::name_validation;
using Errs = FieldErrorList;

constexpr std::string_view kFieldImmutable = "field is immutable";
constexpr std::string_view kIsNegative = "must be greater than or equal to 0";
constexpr int kDeviceTaintRuleStatusMaxConditions = 8;
constexpr int kTotalAnnotationSizeLimit = 256 * 1024;
constexpr int kMaxConditionReasonLength = 1024;
constexpr int kMaxConditionMessageLength = 32 * 1024;
constexpr int kFieldManagerMaxLength = 128;
constexpr int kMaxSubresourceNameLength = 256;
constexpr int kAttributeAndCapacityMaxKeyLength =
    kDeviceMaxDomainLength + 1 + kDeviceMaxIdLength;

// Appends `more` to `list`.
inline void Extend(Errs& list, Errs more) { Append(list, std::move(more)); }

// A map key shortened for its field path (validation.go truncateIfTooLong).
std::string TruncateIfTooLong(std::string_view s, int max_len);

// ------------------------------------------------ structural equality and
// JSON rendering. Eq is apimachinery's Semantic.DeepEqual (quantities
// compare by value); RenderJson is a compact JSON rendering used for
// struct-valued bad values (upstream prints those with %#v, including
// pointer addresses that differ on every run).

template <class T>
bool Eq(const T& a, const T& b) {
  return typed_json::SemanticEqual(a, b);
}

template <class T>
BadValue RenderJson(const T& v) {
  return BadValue::Json(DumpJson(typed_json::ToJson(v)));
}

// ------------------------------------------------ list helpers
// validateSlice / validateSet / validateMap of resource validation.go.

template <class T, class ItemFn>
Errs ValidateSlice(const std::vector<T>& items, int max_size, ItemFn item,
                   const FieldPath& path) {
  if (max_size >= 0 && static_cast<int64_t>(items.size()) > max_size) {
    return {TooMany(path, static_cast<int64_t>(items.size()), max_size)};
  }
  Errs errs;
  for (size_t i = 0; i < items.size(); ++i) {
    Extend(errs, item(items[i], path.Index(static_cast<int64_t>(i))));
  }
  return errs;
}

// The key of a set item: compared by `id`, reported as `shown`.
struct SetKey {
  std::string id;
  BadValue shown;
};

template <class T, class ItemFn, class KeyFn>
Errs ValidateSet(const std::vector<T>& items, int max_size, ItemFn item,
                 KeyFn key, const FieldPath& path) {
  if (max_size >= 0 && static_cast<int64_t>(items.size()) > max_size) {
    return {TooMany(path, static_cast<int64_t>(items.size()), max_size)};
  }
  Errs errs;
  for (size_t i = 0; i < items.size(); ++i) {
    Extend(errs, item(items[i], path.Index(static_cast<int64_t>(i))));
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < items.size(); ++i) {
    SetKey k = key(items[i]);
    if (!seen.insert(k.id).second) {
      errs.push_back(Duplicate(path.Index(static_cast<int64_t>(i)), k.shown));
    }
  }
  return errs;
}

inline SetKey StringKey(const std::string& s) { return {s, BadValue(s)}; }

// `m`: a std::map or FlatMap of string keys.
template <class Map, class KeyFn, class ItemFn>
Errs ValidateMap(const Map& m, int max_size, int truncate_key_len, KeyFn key_fn,
                 ItemFn item_fn, const FieldPath& path) {
  if (max_size >= 0 && static_cast<int64_t>(m.size()) > max_size) {
    return {TooMany(path, static_cast<int64_t>(m.size()), max_size)};
  }
  Errs errs;
  for (const auto& [key, item] : m) {
    FieldPath key_path = path.Key(TruncateIfTooLong(key, truncate_key_len));
    Extend(errs, key_fn(key, path));
    Extend(errs, item_fn(item, key_path));
  }
  return errs;
}

// A name check of apimachinery's (name, prefix) -> messages shape.
using NameFn = std::vector<std::string> (*)(std::string_view, bool);

// How generateName is treated: corevalidation.ValidateObjectMeta validates
// it as a name prefix; ValidateObjectMetaWithOpts (used by the DRA kinds)
// expects the server to have generated a name from it already.
enum class GenerateName { kValidatePrefix, kMustBeResolved };

// How one call runs its rules: `stored` is true for a value that was
// valid when it was stored (upstream never re-validates stored CEL).
struct Context {
  const ValidationOptions& options;
  bool stored = false;
};

// ------------------------------------------------ helpers
// (internal/validation_helpers.cc)

std::string Join(const std::vector<std::string>& items, std::string_view sep);

std::string GoStrings(const std::vector<std::string>& v);

std::string GoNodeSelectorTerms(const std::vector<NodeSelectorTerm>& terms);

std::string GoPodResourceClaim(const PodResourceClaim& c);

std::string GoDeviceAttribute(const DeviceAttributeFields& a);

Errs InvalidEach(const FieldPath& path, std::string_view value,
                 const std::vector<std::string>& msgs);

Errs ValidateDNS1123Label(std::string_view v, const FieldPath& p);

Errs ValidateDNS1123Subdomain(std::string_view v, const FieldPath& p);

// metav1validation.ValidateLabelName.
Errs ValidateLabelName(std::string_view v, const FieldPath& p);

Errs ValidateLabelValue(std::string_view v, const FieldPath& p);

// corevalidation.ValidateCSIDriverName (used for DRA driver names).
Errs ValidateDriverName(std::string_view name, const FieldPath& path);

Errs ValidatePoolName(std::string_view name, const FieldPath& path);

Errs ValidateUID(std::string_view uid, const FieldPath& path);

Errs ValidateNodeName(std::string_view name, const FieldPath& path);

Errs ValidateQualifiedName(std::string_view name, const FieldPath& path);

Errs ValidateFullyQualifiedName(std::string_view name, const FieldPath& path);

// v1helper.IsExtendedResourceName.
bool IsExtendedResourceName(std::string_view name);

// corevalidation.ValidateObjectMeta / ValidateObjectMetaWithOpts.
Errs ValidateObjectMeta(const ObjectMeta& meta, bool namespaced, NameFn name_fn,
                        GenerateName generate_name,
                        const FieldPath& path = FieldPath("metadata"));

// corevalidation.ValidateObjectMetaUpdate.
Errs ValidateObjectMetaUpdate(const ObjectMeta& meta, const ObjectMeta& old,
                              const FieldPath& path = FieldPath("metadata"));

// corevalidation.ValidateTemplateObjectMeta: only labels and annotations.
Errs ValidateTemplateObjectMeta(const ObjectMeta& meta, const FieldPath& path);

Errs ValidateConditions(const std::vector<Condition>& conditions,
                        const FieldPath& path);

Errs ValidateNodeSelector(const NodeSelector& ns, const FieldPath& path);

// ------------------------------------------------ shared DRA rules
// (internal/device_rules.cc)

Errs ValidateSelector(const DeviceSelector& selector, const FieldPath& path,
                      const Context& ctx);

Errs ValidateSelectorSlice(const std::vector<DeviceSelector>& selectors,
                           const FieldPath& path, const Context& ctx);

// validateRawExtension: `json` stands for the raw bytes (null == empty).
Errs ValidateRawExtension(const Json& json, const FieldPath& path, bool stored,
                          int max_length);

Errs ValidateDeviceConfiguration(
    const std::optional<OpaqueDeviceConfiguration>& opaque,
    const FieldPath& path, bool stored);

Errs ValidateDeviceTaint(const DeviceTaint& taint, const DeviceTaint* old,
                         const FieldPath& path);

Errs ValidateTolerations(const std::vector<DeviceToleration>& tolerations,
                         const FieldPath& path);

Errs ValidateDeviceBindingParameters(const std::vector<std::string>& conditions,
                                     const std::vector<std::string>& failures,
                                     const FieldPath& path);

// ------------------------------------------------ ResourceClaim
// (resource_claim_validation.cc)

Errs ValidateResourceClaimSpec(const ResourceClaimSpec& spec,
                               const FieldPath& path, const Context& ctx);

Errs ValidateResourceClaimStatusUpdate(const ResourceClaim& claim,
                                       const ResourceClaim& old);

// ------------------------------------------------ DeviceClass
// (device_class_validation.cc)

Errs ValidateDeviceClassSpec(const DeviceClassSpec& spec,
                             const DeviceClassSpec* old, const FieldPath& path,
                             const ValidationOptions& options);

// ------------------------------------------------ ResourceSlice
// (resource_slice_validation.cc)

Errs ValidateResourceSliceSpec(const ResourceSliceSpec& spec,
                               const ResourceSliceSpec* old,
                               const FieldPath& path);

// ------------------------------------------------ DeviceTaintRule
// (device_taint_rule_validation.cc)

Errs ValidateDeviceTaintRuleSpec(const DeviceTaintRuleSpec& spec,
                                 const DeviceTaintRuleSpec* old,
                                 const FieldPath& path);

// ------------------------------------------------ Pod
// (pod_validation.cc)

Errs ValidatePodSpecResourceClaims(const PodSpec& spec, const FieldPath& path);

// ------------------------------------------------ RBAC
// (rbac_validation.cc, pkg/apis/rbac/validation)

// ValidateRBACName: content.IsPathSegmentName.
std::vector<std::string> ValidateRbacName(std::string_view name, bool prefix);
Errs ValidatePolicyRule(const PolicyRule& rule, bool namespaced,
                        const FieldPath& path);
// The rules of a Role (`namespaced`) or ClusterRole, at "rules[i]".
Errs ValidateRoleRules(const std::vector<PolicyRule>& rules, bool namespaced);
Errs ValidateAggregationRule(const std::optional<AggregationRule>& rule,
                             bool allow_invalid_label_value);
// hasInvalidLabelValueInLabelSelector: an update may keep such a selector.
bool HasInvalidLabelValueInSelector(const ClusterRole& role);
Errs ValidateRoleBindingSpec(const RoleBinding& binding);
Errs ValidateClusterRoleBindingSpec(const ClusterRoleBinding& binding);
// roleRef is immutable.
Errs ValidateRoleRefUpdate(const RoleRef& ref, const RoleRef& old);
// SetDefaults_RoleBinding/ClusterRoleBinding and SetDefaults_Subject.
void DefaultRbac(std::vector<Subject>& subjects, RoleRef& ref);

}  // namespace draplane::api::validation_internal

#endif  // DRAPLANE_API_VALIDATION_INTERNAL_VALIDATION_RULES_H_
