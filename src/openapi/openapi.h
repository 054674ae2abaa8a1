// OpenAPI v3 documents of the API draplane serves (`/openapi/v3`), generated
// from draplane's own object model (src/api), for kubectl:
//  - `apply`/`create -f`/`replace`/`edit` validate on the server
//    (fieldValidation=Strict) once the PATCH operation of the object's kind
//    lists a `fieldValidation` query parameter;
//  - client-side `apply` computes strategic merge patches from the
//    `x-kubernetes-patch-strategy`/`-patch-merge-key` extensions;
//  - `explain` prints the component schemas (found by
//    `x-kubernetes-group-version-kind`) and their descriptions.
// Shapes follow k8s.io/kube-openapi pkg/handler3 and the documents
// kube-apiserver 1.37 publishes (see component_schemas.h and operations.h in
// internal/ for what each document holds and how it differs).
//
// Documents are built once, on first use, and are immutable; every function
// is thread-safe.
#ifndef DRAPLANE_OPENAPI_OPENAPI_H_
#define DRAPLANE_OPENAPI_OPENAPI_H_

#include <string>
#include <string_view>
#include <vector>

#include "api/meta_types.h"

namespace draplane::openapi {

// One group-version's document, served verbatim.
struct OpenApiDocument {
  // "api/v1", "apis/resource.k8s.io/v1beta1": the key in the root and the
  // path below /openapi/v3/.
  std::string group_version;
  // The document as compact JSON (UTF-8), keys sorted.
  std::string bytes;
  // Upper-case hex SHA-512 of `bytes` (128 characters): the `hash` query
  // parameter of its serverRelativeURL and, quoted, its ETag.
  std::string hash;
};

// Every served group-version, core first, each group's versions in
// preference order: api/v1, apis/resource.k8s.io/v1, .../v1beta2,
// .../v1beta1, apis/coordination.k8s.io/v1, apis/apps/v1, apis/batch/v1.
std::vector<std::string_view> OpenApiV3GroupVersions();

// The discovery document of GET /openapi/v3:
//   {"paths": {"api/v1": {"serverRelativeURL":
//                           "/openapi/v3/api/v1?hash=<HASH>"}, ...}}
api::Json OpenApiV3Root();

// OpenApiV3Root() serialized compactly, with the SHA-512 of those bytes (an
// ETag for the root, which is not immutable: its hashes change when the
// documents do). `group_version` is empty.
const OpenApiDocument& OpenApiV3RootDocument();

// The document of GET /openapi/v3/<group_version> (no leading slash), or
// nullptr for a group-version draplane does not serve. The pointee lives
// for the whole program.
const OpenApiDocument* OpenApiV3Document(std::string_view group_version);

}  // namespace draplane::openapi

#endif  // DRAPLANE_OPENAPI_OPENAPI_H_
