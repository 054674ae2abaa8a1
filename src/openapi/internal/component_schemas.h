// The `components.schemas` of one group-version's OpenAPI v3 document,
// generated from draplane's object model (api/schema_reflection.h).
#ifndef DRAPLANE_OPENAPI_INTERNAL_COMPONENT_SCHEMAS_H_
#define DRAPLANE_OPENAPI_INTERNAL_COMPONENT_SCHEMAS_H_

#include <map>
#include <set>
#include <string>
#include <string_view>

#include "nlohmann/json.hpp"

namespace draplane::openapi::internal {

// Documents are built with sorted object keys, as upstream's Go encoder
// writes them.
using Schema = nlohmann::json;
using SchemaMap = std::map<std::string, Schema>;

inline constexpr std::string_view kSchemaRefPrefix = "#/components/schemas/";

// {"$ref": "#/components/schemas/<model>"}.
Schema RefSchema(std::string_view model);

// The model name of a kind served in group/version, upstream's naming:
// io.k8s.api.<first label of the group, "core" for "">.<version>.<kind>,
// e.g. ("resource.k8s.io", "v1beta1", "ResourceClaim") ->
// io.k8s.api.resource.v1beta1.ResourceClaim.
std::string KindModelName(std::string_view group, std::string_view version,
                          std::string_view kind);

// Schemas for every model in `roots` and everything they reference.
//
// How a model is described:
//  - kinds served in group/version (api::ServedKinds) and the structs they
//    contain: from the C++ type's JSON mapping. A kind gets apiVersion and
//    kind properties and `x-kubernetes-group-version-kind`. A struct that
//    keeps unmodelled members (api::schema_reflection::KeepsUnknownFields) gets
//    `x-kubernetes-preserve-unknown-fields: true` and, for `kubectl
//    explain`, shallow properties for upstream's fields it does not model
//    (their inner structure is left open);
//  - `<Kind>List` models and apimachinery types the operations use
//    (DeleteOptions, Status, WatchEvent, Scale, Binding, ...): from
//    upstream's field list (upstream_docs.h);
//  - Time, MicroTime, Quantity, IntOrString, RawExtension, FieldsV1,
//    Patch: upstream's fixed shapes.
// resource.k8s.io/v1beta1 is derived from the v1 shape by the structural
// rewrite its codec applies (api/object_codec.cc): flat device requests
// (ExactDeviceRequest's fields on DeviceRequest) and the `basic` device
// wrapper (BasicDevice). Descriptions, `required`, list/map types and patch
// strategies come from upstream's declarations for each version
// (upstream_docs.h).
//
// A model that cannot be described (not in the object model nor upstream's
// table) is left out and references to it stay dangling; callers check
// that the roots they pass exist. Throws only what nlohmann::json throws
// (callers catch).
SchemaMap BuildComponentSchemas(std::string_view group,
                                std::string_view version,
                                const std::set<std::string>& roots);

}  // namespace draplane::openapi::internal

#endif  // DRAPLANE_OPENAPI_INTERNAL_COMPONENT_SCHEMAS_H_
