// Typed decoding and encoding of single objects, with version conversion.
//
// resource.k8s.io objects are read from v1, v1beta2 or v1beta1 and always
// held in the v1 form; EncodeObject writes any served version. The
// conversion is lossless for every field the target version has (v1beta1's
// `basic` device wrapper and flat device requests map one-to-one onto v1).
#ifndef DRAPLANE_API_OBJECT_CODEC_H_
#define DRAPLANE_API_OBJECT_CODEC_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "api/object.h"
#include "common/field_errors.h"

namespace draplane::api {

struct DecodeResult {
  Object object;
  // Members upstream's strict field validation rejects: unknown fields in
  // fully-modelled types (e.g. the guide's `source:` in a pod's
  // resourceClaims). The object is still usable; the API server and
  // `draplane validate` report these as errors, as kubectl's default
  // `--validate=strict` does.
  FieldErrorList unknown_fields;
};

// Decodes one JSON object. Fails with InvalidArgument when apiVersion/kind
// are missing, or a field has the wrong JSON type or an unparsable value;
// the message lists every such field with its path, e.g.
//   ResourceClaim in version "v1" cannot be handled as a ResourceClaim:
//   spec.devices.requests[0].exactly.count: Invalid value: "four": must be
//   of type integer, got string
// A kind draplane does not serve decodes to an UnstructuredObject.
absl::StatusOr<DecodeResult> DecodeObject(const Json& json);

// Encodes `object` in `api_version` (e.g. "resource.k8s.io/v1beta1"); an
// empty api_version keeps `object.type.api_version`. Fails with
// InvalidArgument when the kind is not served in that version.
absl::StatusOr<Json> EncodeObject(const Object& object,
                                  std::string_view api_version = "");

// The v1beta1 <-> v1 structural conversions on JSON (exposed for tests and
// for the API server's conversion of watch events). `json` is a whole
// object of the given kind; the result has the same apiVersion text
// rewritten.
// The resource.k8s.io/v1 JSON of an allocation result (Go encoding/json
// rules, as in a ResourceClaim's status.allocation).
Json EncodeAllocationResult(const AllocationResult& allocation);

Json ConvertV1beta1ToV1(std::string_view kind, const Json& json);
Json ConvertV1ToV1beta1(std::string_view kind, const Json& json);

}  // namespace draplane::api

#endif  // DRAPLANE_API_OBJECT_CODEC_H_
