// The `paths` of one group-version's OpenAPI v3 document: the REST
// operations draplane serves for each resource, described as upstream's
// apiserver describes them (k8s.io/apiserver pkg/endpoints/installer.go).
#ifndef DRAPLANE_OPENAPI_INTERNAL_OPERATIONS_H_
#define DRAPLANE_OPENAPI_INTERNAL_OPERATIONS_H_

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "openapi/internal/component_schemas.h"

namespace draplane::openapi::internal {

// Subresources draplane serves for a kind ("status", "scale", "binding",
// "finalize", "token"), as the API server's resource table
// (apiserver/internal/resources.cc) declares them.
const std::vector<std::string_view>& ServedSubresources(std::string_view group,
                                                        std::string_view kind);

struct Paths {
  Schema paths = Schema::object();
  // Models the operations refer to other than the served kinds and their
  // lists (DeleteOptions, Status, Patch, Scale, Binding, TokenRequest).
  std::set<std::string> models;
};

// For every kind served in group/version (api::ServedKinds):
//   <prefix>/<plural>                        list, create, deletecollection
//   <prefix>/<plural>/{name}                 read, replace, patch, delete
//   <prefix>/<plural>/{name}/status          read, replace, patch
//   <prefix>/<plural>/{name}/scale           read, replace, patch (Scale)
//   <prefix>/<plural>/{name}/binding         create (Binding)
//   <prefix>/<plural>/{name}/token           create (TokenRequest)
//   <prefix>/<plural>/{name}/finalize        replace
// with <prefix> = /api/v1 or /apis/<group>/<version>, plus
// namespaces/{namespace}/ before <plural> for namespaced kinds and then
// <prefix>/<plural> listing across namespaces. Each operation carries
// x-kubernetes-action, x-kubernetes-group-version-kind, its query
// parameters (PATCH: dryRun, fieldManager, fieldValidation, force) and, for
// PATCH, the four patch media types. The deprecated /watch/ paths are not
// described.
Paths BuildPaths(std::string_view group, std::string_view version);

}  // namespace draplane::openapi::internal

#endif  // DRAPLANE_OPENAPI_INTERNAL_OPERATIONS_H_
