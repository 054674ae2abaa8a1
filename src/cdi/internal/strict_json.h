// Strict decoding of JSON (and YAML read as JSON) into typed structs, with
// Kubernetes-style field paths in the errors. Private to the cdi target.
#ifndef DRAPLANE_CDI_INTERNAL_STRICT_JSON_H_
#define DRAPLANE_CDI_INTERNAL_STRICT_JSON_H_

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/field_errors.h"
#include "nlohmann/json.hpp"

namespace draplane::cdi::internal {

struct ParsedText {
  nlohmann::json json;
  bool from_yaml = false;
};

// Parses one JSON document, or one YAML document (a leading "---" and a
// single document only). Text starting with '{' is read as JSON (falling
// back to YAML, which is a superset); anything else as YAML. YAML plain
// scalars resolve like YAML 1.1 core as go-yaml v2 does for ints (decimal,
// 0x, 0o and a leading-0 octal), null (~, null, empty), bools
// (true/false in any of the usual cases) and floats; quoted scalars are
// strings. Duplicate mapping keys and non-scalar keys are errors. All
// errors are InvalidArgument.
absl::StatusOr<ParsedText> ParseJsonOrYaml(std::string_view text);

// Decodes values field by field. The first type error wins; unknown fields
// are collected and reported together by Finish(), like Kubernetes' strict
// decoder. A JSON null counts as an absent field (Go's encoding/json).
class StrictDecoder {
 public:
  // `yaml_scalars_as_strings`: a number or bool where a string is expected
  // is taken as its text, as sigs.k8s.io/yaml converts YAML for a string
  // target.
  explicit StrictDecoder(bool yaml_scalars_as_strings)
      : yaml_scalars_as_strings_(yaml_scalars_as_strings) {}

  // `obj`[key], or nullptr if absent or null. REQUIRES: obj is an object.
  static const nlohmann::json* Field(const nlohmann::json& obj,
                                     std::string_view key);

  // Each returns false (recording a type error) if `v` has the wrong type.
  // Object() also records every key not in `known` as an unknown field.
  bool Object(const nlohmann::json& v, const FieldPath& path,
              std::initializer_list<std::string_view> known);
  bool Array(const nlohmann::json& v, const FieldPath& path);
  bool String(const nlohmann::json& v, const FieldPath& path, std::string& out);
  bool Int64(const nlohmann::json& v, const FieldPath& path, int64_t& out);
  bool Uint32(const nlohmann::json& v, const FieldPath& path, uint32_t& out);
  bool Bool(const nlohmann::json& v, const FieldPath& path, bool& out);
  bool StringList(const nlohmann::json& v, const FieldPath& path,
                  std::vector<std::string>& out);
  bool StringMap(const nlohmann::json& v, const FieldPath& path,
                 std::map<std::string, std::string>& out);

  // OK, or InvalidArgument: the first type error, else
  // `unknown field "a", unknown field "b.c"`.
  absl::Status Finish() const;

 private:
  void TypeError(const FieldPath& path, std::string_view want,
                 const nlohmann::json& got);

  bool yaml_scalars_as_strings_;
  std::optional<std::string> type_error_;
  std::vector<std::string> unknown_fields_;
};

}  // namespace draplane::cdi::internal

#endif  // DRAPLANE_CDI_INTERNAL_STRICT_JSON_H_
