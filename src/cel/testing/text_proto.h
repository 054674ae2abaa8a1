// A reader for protocol-buffer text format into a generic tree, enough for
// the cel-spec conformance files (../shared/conformance/cel-spec/*.textproto)
// without compiling their .proto schemas: messages, repeated fields, list
// syntax, C-escaped and adjacent string literals, numbers and enum names
// kept as their token text, `[type.googleapis.com/...]` Any/extension names,
// `#` comments. Test support code; not part of the product.
#ifndef DRAPLANE_CEL_TESTING_TEXT_PROTO_H_
#define DRAPLANE_CEL_TESTING_TEXT_PROTO_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace draplane::cel::testing {

struct TextProtoMessage;

// One field occurrence. Exactly one of `message` (for `name { ... }`) or a
// scalar is set: `text` holds the decoded bytes of a string literal
// (`is_string`) or the raw token of a number/identifier (e.g. "inf",
// "-12.5", "0x10", "NULL_VALUE").
struct TextProtoField {
  std::string name;
  std::unique_ptr<TextProtoMessage> message;
  std::string text;
  bool is_string = false;
};

struct TextProtoMessage {
  std::vector<TextProtoField> fields;

  // First field named `name`, or nullptr.
  const TextProtoField* Find(std::string_view name) const;
  // All fields named `name`, in order.
  std::vector<const TextProtoField*> FindAll(std::string_view name) const;
  // The message of the first field named `name`, or nullptr.
  const TextProtoMessage* Message(std::string_view name) const;
  // The scalar text of the first field named `name`.
  std::optional<std::string> Scalar(std::string_view name) const;
};

// Parses a whole text-format document. Errors name line and column.
absl::StatusOr<TextProtoMessage> ParseTextProto(std::string_view text);

}  // namespace draplane::cel::testing

#endif  // DRAPLANE_CEL_TESTING_TEXT_PROTO_H_
