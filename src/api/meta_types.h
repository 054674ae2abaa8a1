// Kubernetes object metadata and the small shared types used by every kind.
//
// Field names follow the Go structs of k8s.io/apimachinery (metav1) and
// k8s.io/api/core/v1; the JSON name of each field is given by its mapping in
// api/internal/ (see object_codec.h). Pointer fields in Go are
// std::optional here; slices and maps are std::vector / std::map.
#ifndef DRAPLANE_API_META_TYPES_H_
#define DRAPLANE_API_META_TYPES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_object_map.h"
#include "nlohmann/json.hpp"

namespace draplane::api {

// A JSON value kept verbatim: opaque driver parameters, managedFields'
// fieldsV1, and every field of a core kind that draplane does not model.
// Object key order is preserved (nlohmann's ordered_json with members that
// move: common/json_object_map.h).
using Json = nlohmann::basic_json<JsonObjectMap>;

// Serialises `json` compactly (indent < 0) or indented. Never throws:
// invalid UTF-8 in strings (possible only for values built in code; parsed
// input is checked) is replaced by U+FFFD.
inline std::string DumpJson(const Json& json, int indent = -1) {
  return json.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// The member `key` of `object` without copying it: a reference to a null
// JSON value when `object` is not an object or has no such member.
inline const Json& MemberOrNull(const Json& object, std::string_view key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

// RFC 3339 timestamps are kept as their text (e.g. "2024-01-01T00:00:00Z");
// the decoder checks the format.
using Time = std::string;

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  std::optional<bool> controller;
  std::optional<bool> block_owner_deletion;
};

struct ManagedFieldsEntry {
  std::string manager;
  std::string operation;
  std::string api_version;
  std::optional<Time> time;
  std::string fields_type;
  std::optional<Json> fields_v1;
  std::string subresource;
};

struct ObjectMeta {
  std::string name;
  std::string generate_name;
  std::string namespace_;
  std::string self_link;
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  std::optional<Time> creation_timestamp;
  std::optional<Time> deletion_timestamp;
  std::optional<int64_t> deletion_grace_period_seconds;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::vector<OwnerReference> owner_references;
  std::vector<std::string> finalizers;
  std::vector<ManagedFieldsEntry> managed_fields;
};

// metav1.Condition.
struct Condition {
  std::string type;
  std::string status;
  int64_t observed_generation = 0;
  std::optional<Time> last_transition_time;
  std::string reason;
  std::string message;
};

// core/v1 NodeSelector and its parts (used by ResourceSlices, allocation
// results and pods).
struct NodeSelectorRequirement {
  std::string key;
  std::string operator_;
  std::vector<std::string> values;
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;
};

struct NodeSelector {
  std::vector<NodeSelectorTerm> node_selector_terms;
};

// Type information of a serialized object.
struct TypeMeta {
  std::string api_version;
  std::string kind;
};

}  // namespace draplane::api

#endif  // DRAPLANE_API_META_TYPES_H_
