// What upstream declares about the Go types whose schemas draplane
// publishes, beside their structure: descriptions, list/map/patch markers,
// optionality, and the shapes of fields draplane does not model. Generated
// from k8s.io/api and k8s.io/apimachinery v0.37.2 by
// src/openapi/tools/gen_upstream_docs.go (see upstream_docs.cc).
#ifndef DRAPLANE_OPENAPI_INTERNAL_UPSTREAM_DOCS_H_
#define DRAPLANE_OPENAPI_INTERNAL_UPSTREAM_DOCS_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace draplane::openapi::internal {

struct UpstreamField {
  std::string_view name;  // JSON name
  std::string_view description;
  // The OpenAPI shape of the Go type: "string", "int32", "int64", "bool",
  // "double", "bytes", "Time", "MicroTime", "Quantity", "IntOrString",
  // "object" (opaque), "ref:<model name>" (a struct), "[]<shape>",
  // "map[]<shape>". Pointers are dereferenced.
  std::string_view shape;
  std::string_view list_type;      // +listType: "atomic", "set", "map" or ""
  std::string_view list_map_keys;  // +listMapKey values, comma-separated
  std::string_view map_type;       // +mapType / +structType
  std::string_view
      patch_strategy;  // patchStrategy tag, e.g. "merge,retainKeys"
  std::string_view patch_merge_key;  // patchMergeKey tag
  // kube-openapi's rule: +optional / +required, else `omitempty`.
  bool optional = true;
};

struct UpstreamType {
  std::string_view model_name;  // "io.k8s.api.core.v1.Pod"
  std::string_view description;
  std::string_view map_type;          // +structType / +mapType of the type
  std::vector<UpstreamField> fields;  // upstream declaration order

  const UpstreamField* FindField(std::string_view name) const {
    for (const UpstreamField& f : fields) {
      if (f.name == name) return &f;
    }
    return nullptr;
  }
};

// nullptr when the generator did not emit `model_name`. Thread-safe; the
// result lives for the whole program.
const UpstreamType* FindUpstreamType(std::string_view model_name);

}  // namespace draplane::openapi::internal

#endif  // DRAPLANE_OPENAPI_INTERNAL_UPSTREAM_DOCS_H_
