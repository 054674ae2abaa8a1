// Defaulting and validation matching Kubernetes 1.37 (master, mid-2026):
//
//  - k8s.io/kubernetes pkg/apis/resource/validation/validation.go (the
//    hand-written rules; their declarative twins in
//    pkg/apis/resource/v1/zz_generated.validations.go report the same
//    problems),
//  - pkg/apis/core/validation/validation.go (ObjectMeta wrappers, node
//    selectors, pod resource claims, container resources.claims),
//  - k8s.io/apimachinery pkg/api/validation/objectmeta.go,
//    pkg/apis/meta/v1/validation (labels, conditions, managed fields),
//  - pkg/apis/resource/v1 defaults (+ defaulter-gen `+default` tags).
//
// Every check, its order, its field path and its message follow upstream.
// Where upstream prints a Go value with %#v that contains pointer addresses
// (and so is not reproducible), a Go-syntax rendering with a fixed address or
// a JSON rendering is used instead; see the notes at RenderJson and GoPtr.
#include "api/validation/validation.h"

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

namespace draplane::api {

using namespace validation_internal;  // NOLINT(google-build-using-namespace)

namespace {

// ------------------------------------------------ per-kind entry points

bool IsNamespaced(const Object& object) {
  auto [group, version] = SplitApiVersion(object.type.api_version);
  (void)version;
  if (const KindInfo* info = FindKind(group, object.kind())) {
    return info->namespaced;
  }
  return std::visit(
      [](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        return !(std::is_same_v<T, DeviceClass> ||
                 std::is_same_v<T, ResourceSlice> ||
                 std::is_same_v<T, DeviceTaintRule> ||
                 std::is_same_v<T, Namespace> || std::is_same_v<T, Node>);
      },
      object.value);
}

NameFn NameFnFor(const TypedObject& value) {
  if (std::holds_alternative<Namespace>(value)) return nv::NameIsDNSLabel;
  if (std::holds_alternative<Role>(value) ||
      std::holds_alternative<ClusterRole>(value) ||
      std::holds_alternative<RoleBinding>(value) ||
      std::holds_alternative<ClusterRoleBinding>(value)) {
    return ValidateRbacName;
  }
  return nv::NameIsDNSSubdomain;
}

// Create-time rules: object metadata (scope and name format from the kind
// table, generateName per kind), then the kind's own spec rules.
Errs ValidateCreate(const Object& object, const ValidationOptions& options) {
  const FieldPath spec("spec");
  Context ctx{options, false};
  return std::visit(
      [&](const auto& v) -> Errs {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, UnstructuredObject>) {
          return {};
        } else {
          // Only DeviceClass uses ValidateObjectMetaWithOpts upstream.
          Errs errs = ValidateObjectMeta(
              v.metadata, IsNamespaced(object), NameFnFor(object.value),
              std::is_same_v<T, DeviceClass> ? GenerateName::kMustBeResolved
                                             : GenerateName::kValidatePrefix);
          if constexpr (std::is_same_v<T, DeviceClass>) {
            Extend(errs,
                   ValidateDeviceClassSpec(v.spec, nullptr, spec, options));
          } else if constexpr (std::is_same_v<T, ResourceClaim>) {
            // The status of a new claim is cleared by the API server.
            Extend(errs, ValidateResourceClaimSpec(v.spec, spec, ctx));
          } else if constexpr (std::is_same_v<T, ResourceClaimTemplate>) {
            Extend(errs, ValidateTemplateObjectMeta(v.spec->metadata,
                                                    spec.Child("metadata")));
            Extend(errs, ValidateResourceClaimSpec(v.spec->spec,
                                                   spec.Child("spec"), ctx));
          } else if constexpr (std::is_same_v<T, ResourceSlice>) {
            Extend(errs, ValidateResourceSliceSpec(v.spec, nullptr, spec));
          } else if constexpr (std::is_same_v<T, DeviceTaintRule>) {
            Extend(errs, ValidateDeviceTaintRuleSpec(v.spec, nullptr, spec));
          } else if constexpr (std::is_same_v<T, Pod>) {
            Extend(errs, ValidatePodSpecResourceClaims(v.spec, spec));
          } else if constexpr (std::is_same_v<T, Deployment> ||
                               std::is_same_v<T, Job>) {
            Extend(errs, ValidatePodSpecResourceClaims(
                             v.spec.template_->spec,
                             spec.Child("template").Child("spec")));
          } else if constexpr (std::is_same_v<T, Role>) {
            Extend(errs, ValidateRoleRules(v.rules, true));
          } else if constexpr (std::is_same_v<T, ClusterRole>) {
            Extend(errs, ValidateRoleRules(v.rules, false));
            Extend(errs, ValidateAggregationRule(v.aggregation_rule, false));
          } else if constexpr (std::is_same_v<T, RoleBinding>) {
            Extend(errs, ValidateRoleBindingSpec(v));
          } else if constexpr (std::is_same_v<T, ClusterRoleBinding>) {
            Extend(errs, ValidateClusterRoleBindingSpec(v));
          }
          return errs;
        }
      },
      object.value);
}

template <class T>
const T* Same(const Object& old) {
  return std::get_if<T>(&old.value);
}

// ------------------------------------------------ defaulting

void DefaultToleration(DeviceToleration& t) {
  if (t.operator_.empty()) t.operator_ = "Equal";
}

void DefaultAllocationMode(std::string& mode, int64_t& count) {
  if (mode.empty()) mode = kDeviceAllocationModeExactCount;
  if (mode == kDeviceAllocationModeExactCount && count == 0) count = 1;
}

void DefaultClaimSpec(ResourceClaimSpec& spec) {
  for (DeviceRequest& r : spec.devices.requests) {
    if (r.exactly.has_value()) {
      DefaultAllocationMode(r.exactly->allocation_mode, r.exactly->count);
      for (auto& t : r.exactly->tolerations) DefaultToleration(t);
    }
    for (DeviceSubRequest& s : r.first_available) {
      DefaultAllocationMode(s.allocation_mode, s.count);
      for (auto& t : s.tolerations) DefaultToleration(t);
    }
  }
}

// ------------------------------------------------ v1beta1 error paths

// Rewrites `<prefix>[N].exactly` to `<prefix>[N]` at the start of `path`.
bool DropExactly(std::string& path, std::string_view prefix) {
  if (path.compare(0, prefix.size(), prefix) != 0) return false;
  size_t pos = prefix.size();
  if (pos >= path.size() || path[pos] != '[') return false;
  size_t close = path.find(']', pos);
  if (close == std::string::npos) return false;
  for (size_t i = pos + 1; i < close; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(path[i]))) return false;
  }
  constexpr std::string_view kExactly = ".exactly";
  size_t at = close + 1;
  if (path.compare(at, kExactly.size(), kExactly) != 0) return false;
  size_t end = at + kExactly.size();
  if (end != path.size() && path[end] != '.' && path[end] != '[') return false;
  path.erase(at, kExactly.size());
  return true;
}

// Rewrites `spec.devices[N].x` to `spec.devices[N].basic.x` (x != name).
bool AddBasic(std::string& path) {
  constexpr std::string_view kPrefix = "spec.devices[";
  if (path.compare(0, kPrefix.size(), kPrefix) != 0) return false;
  size_t close = path.find(']', kPrefix.size());
  if (close == std::string::npos || close == kPrefix.size()) return false;
  for (size_t i = kPrefix.size(); i < close; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(path[i]))) return false;
  }
  size_t at = close + 1;
  if (at >= path.size() || path[at] != '.') return false;
  std::string_view rest(path);
  rest.remove_prefix(at + 1);
  if (rest == "name" || rest.substr(0, 5) == "name." ||
      rest.substr(0, 5) == "name[") {
    return false;
  }
  path.insert(at, ".basic");
  return true;
}

}  // namespace

void SetDefaults(Object& object) {
  std::visit(
      [](auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, ResourceClaim>) {
          DefaultClaimSpec(v.spec);
          if (v.status.allocation.has_value()) {
            for (auto& r : v.status.allocation->devices.results) {
              for (auto& t : r.tolerations) DefaultToleration(t);
            }
          }
        } else if constexpr (std::is_same_v<T, ResourceClaimTemplate>) {
          DefaultClaimSpec(v.spec.Mutable().spec);
        } else if constexpr (std::is_same_v<T, RoleBinding> ||
                             std::is_same_v<T, ClusterRoleBinding>) {
          DefaultRbac(v.subjects, v.role_ref);
        } else if constexpr (std::is_same_v<T, Pod>) {
          // Upstream SetDefaults_Pod: a container's requests default to its
          // limits, resource by resource (only on a Pod, not on templates).
          for (auto* list : {&v.spec.containers, &v.spec.init_containers}) {
            for (Container& c : *list) {
              for (const auto& [name, q] : c.resources.limits) {
                if (c.resources.requests.find(name) ==
                    c.resources.requests.end()) {
                  c.resources.requests[name] = q;
                }
              }
            }
          }
        } else if constexpr (std::is_same_v<T, ResourceSlice>) {
          for (Device& d : v.spec.devices) {
            if (!d.rare.allocated()) continue;
            for (auto& [name, m] :
                 d.rare.Mutable().node_allocatable_resource_mappings) {
              if (!m.allocation_multiplier.has_value()) {
                m.allocation_multiplier = Quantity::FromInt64(1);
              }
            }
          }
        }
      },
      object.value);
}

FieldErrorList ValidateObject(const Object& object,
                              const ValidationOptions& options) {
  return ValidateCreate(object, options);
}

FieldErrorList ValidateObjectUpdate(const Object& updated, const Object& old,
                                    const ValidationOptions& options) {
  if (updated.value.index() != old.value.index()) {
    return {InternalError(FieldPath(), "the kind of an object cannot change")};
  }
  const FieldPath spec("spec");
  return std::visit(
      [&](const auto& v) -> Errs {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, UnstructuredObject>) {
          return {};
        } else {
          const T& o = *Same<T>(old);
          if constexpr (std::is_same_v<T, DeviceClass>) {
            Errs errs =
                ValidateObjectMeta(v.metadata, false, nv::NameIsDNSSubdomain,
                                   GenerateName::kMustBeResolved);
            Extend(errs, ValidateObjectMetaUpdate(v.metadata, o.metadata));
            Extend(errs,
                   ValidateDeviceClassSpec(v.spec, &o.spec, spec, options));
            return errs;
          } else if constexpr (std::is_same_v<T, ResourceClaim>) {
            // The spec is immutable; it is not validated again.
            Errs errs =
                ValidateObjectMeta(v.metadata, true, nv::NameIsDNSSubdomain,
                                   GenerateName::kValidatePrefix);
            Extend(errs, ValidateObjectMetaUpdate(v.metadata, o.metadata));
            if (!Eq(v.spec, o.spec)) {
              errs.push_back(
                  Invalid(spec, RenderJson(v.spec), kFieldImmutable));
            }
            return errs;
          } else if constexpr (std::is_same_v<T, ResourceClaimTemplate>) {
            Errs errs = ValidateObjectMetaUpdate(v.metadata, o.metadata);
            if (!Eq(v.spec, o.spec)) {
              errs.push_back(
                  Invalid(spec, RenderJson(v.spec), kFieldImmutable));
            }
            return errs;
          } else if constexpr (std::is_same_v<T, ResourceSlice>) {
            Errs errs = ValidateObjectMetaUpdate(v.metadata, o.metadata);
            Extend(errs, ValidateResourceSliceSpec(v.spec, &o.spec, spec));
            return errs;
          } else if constexpr (std::is_same_v<T, DeviceTaintRule>) {
            Errs errs = ValidateObjectMetaUpdate(v.metadata, o.metadata);
            Extend(errs, ValidateDeviceTaintRuleSpec(v.spec, &o.spec, spec));
            return errs;
          } else if constexpr (std::is_same_v<T, ClusterRole>) {
            Errs errs = ValidateObjectMeta(v.metadata, false, ValidateRbacName,
                                           GenerateName::kValidatePrefix);
            Extend(errs, ValidateRoleRules(v.rules, false));
            Extend(errs,
                   ValidateAggregationRule(v.aggregation_rule,
                                           HasInvalidLabelValueInSelector(o)));
            Extend(errs, ValidateObjectMetaUpdate(v.metadata, o.metadata));
            return errs;
          } else {
            Errs errs = ValidateCreate(updated, options);
            Extend(errs, ValidateObjectMetaUpdate(v.metadata, o.metadata));
            if constexpr (std::is_same_v<T, RoleBinding> ||
                          std::is_same_v<T, ClusterRoleBinding>) {
              Extend(errs, ValidateRoleRefUpdate(v.role_ref, o.role_ref));
            }
            return errs;
          }
        }
      },
      updated.value);
}

FieldErrorList ValidateObjectStatusUpdate(const Object& updated,
                                          const Object& old,
                                          const ValidationOptions& options) {
  (void)options;
  if (updated.value.index() != old.value.index()) {
    return {InternalError(FieldPath(), "the kind of an object cannot change")};
  }
  return std::visit(
      [&](const auto& v) -> Errs {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, UnstructuredObject>) {
          return {};
        } else {
          const T& o = *Same<T>(old);
          Errs errs = ValidateObjectMetaUpdate(v.metadata, o.metadata);
          if constexpr (std::is_same_v<T, ResourceClaim>) {
            Extend(errs, ValidateResourceClaimStatusUpdate(v, o));
          } else if constexpr (std::is_same_v<T, DeviceTaintRule>) {
            FieldPath conditions = FieldPath("status").Child("conditions");
            Extend(errs, ValidateConditions(v.status.conditions, conditions));
            if (v.status.conditions.size() >
                static_cast<size_t>(kDeviceTaintRuleStatusMaxConditions)) {
              errs.push_back(TooMany(
                  conditions, static_cast<int64_t>(v.status.conditions.size()),
                  kDeviceTaintRuleStatusMaxConditions));
            }
          }
          return errs;
        }
      },
      updated.value);
}

void NormalizeErrorPaths(std::string_view kind, std::string_view api_version,
                         FieldErrorList& errors) {
  if (api_version != "resource.k8s.io/v1beta1") return;
  for (FieldError& e : errors) {
    if (kind == "ResourceClaim") {
      DropExactly(e.field, "spec.devices.requests");
    } else if (kind == "ResourceClaimTemplate") {
      DropExactly(e.field, "spec.spec.devices.requests");
    } else if (kind == "ResourceSlice") {
      AddBasic(e.field);
    }
  }
}

}  // namespace draplane::api
