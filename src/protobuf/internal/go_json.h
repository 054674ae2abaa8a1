// Parsed kube.proto messages to the JSON Go's encoding/json writes for the
// Go structs they mirror, driven by the go_json.proto options on the
// descriptors.
#ifndef DRAPLANE_PROTOBUF_INTERNAL_GO_JSON_H_
#define DRAPLANE_PROTOBUF_INTERNAL_GO_JSON_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "api/meta_types.h"
#include "google/protobuf/message.h"

namespace draplane::protobuf::internal {

// `s` as encoding/json writes a Go string: each byte that does not start a
// valid UTF-8 sequence (Go's utf8.DecodeRuneInString) becomes U+FFFD.
std::string ValidUtf8LikeGo(std::string_view s);

// The Go type a message mirrors ("k8s.io/api/core/v1.PodSpec"), from its
// go_type option; the protobuf full name when it has none.
std::string GoTypeName(const google::protobuf::Descriptor& descriptor);

// OK when neither `message` nor any message inside it holds a field its
// descriptor does not declare (protobuf keeps those in the UnknownFieldSet;
// a declared field sent with another wire type lands there too). Otherwise
// InvalidArgument naming the Go type, the field number, the wire type and
// the JSON path of the message within `message`.
absl::Status CheckNoUnknownFields(const google::protobuf::Message& message);

// Writes the JSON fields of the Go struct `message` mirrors into `*object`
// (REQUIRES: an object), in declaration order, with the rules of the
// go_json.proto options. InvalidArgument (with the JSON path) for values
// encoding/json or draplane could not write or read back; see
// DecodeKubeProtobuf. Never throws.
absl::Status AppendGoJsonFields(const google::protobuf::Message& message,
                                api::Json* object);

}  // namespace draplane::protobuf::internal

#endif  // DRAPLANE_PROTOBUF_INTERNAL_GO_JSON_H_
