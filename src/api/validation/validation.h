// Defaulting and validation of the object model, matching upstream
// Kubernetes 1.37 (k8s.io/kubernetes pkg/apis/resource/validation and the
// DRA parts of pkg/apis/core/validation): same limits, same field paths,
// same messages.
//
// All functions are pure: they never modify their inputs (except
// SetDefaults*) and report every problem found, in upstream's order.
#ifndef DRAPLANE_API_VALIDATION_H_
#define DRAPLANE_API_VALIDATION_H_

#include <functional>
#include <string_view>

#include "absl/status/status.h"
#include "api/object.h"
#include "common/field_errors.h"

namespace draplane::api {

// DRA feature gates, defaulted to Kubernetes 1.37's defaults.
struct FeatureGates {
  bool admin_access = true;
  bool prioritized_list = true;
  bool partitionable_devices = true;
  bool device_taints = true;
  bool device_taint_rules = true;
  bool consumable_capacity = true;
  bool device_binding_conditions = true;
  bool resource_claim_device_status = true;
  bool extended_resource = true;
  bool list_type_attributes = false;
  bool node_allocatable_resources = false;
};

struct ValidationOptions {
  FeatureGates features;
  // Compiles one CEL selector expression; a non-OK status is reported as
  // `Invalid value: "<expr>": <message>` on the expression's path, except
  // kResourceExhausted, which is upstream's `Forbidden: too complex,
  // exceeds cost limit`. Callers set it to cel::Compiler's
  // CompileSelector(expression, /*check_cost=*/true) (the api component
  // does not depend on cel); unset, only length limits are checked. Only
  // called for new or changed expressions (upstream never re-validates
  // stored CEL).
  std::function<absl::Status(std::string_view expression)> compile_cel;
};

// Upstream defaulting (pkg/apis/resource/v1/defaults.go and core pod
// defaults relevant to DRA): allocationMode -> ExactCount, count -> 1 for
// ExactCount (requests and subrequests), toleration operator -> Equal.
void SetDefaults(Object& object);

// Create-time validation of any object (metadata + kind-specific rules).
// Kinds without draplane-specific rules get metadata validation only.
FieldErrorList ValidateObject(const Object& object,
                              const ValidationOptions& options = {});

// Update validation: immutability rules plus create-time validation of the
// new object where upstream applies it (e.g. claim spec immutable,
// status.allocation may only be set once or cleared).
FieldErrorList ValidateObjectUpdate(const Object& updated, const Object& old,
                                    const ValidationOptions& options = {});

// Status-subresource update validation (ResourceClaim, DeviceTaintRule).
FieldErrorList ValidateObjectStatusUpdate(
    const Object& updated, const Object& old,
    const ValidationOptions& options = {});

// Rewrites v1 field paths into the shape of `api_version` for objects read
// as resource.k8s.io/v1beta1: `requests[i].exactly.x` -> `requests[i].x`,
// `spec.devices[i].x` -> `spec.devices[i].basic.x`, as upstream reports
// errors in the version the client sent.
void NormalizeErrorPaths(std::string_view kind, std::string_view api_version,
                         FieldErrorList& errors);

}  // namespace draplane::api

#endif  // DRAPLANE_API_VALIDATION_H_
