// Kubernetes protobuf request bodies (Content-Type
// application/vnd.kubernetes.protobuf) decoded to the object's JSON.
//
// client-go's typed clients send built-in kinds as protobuf: kubectl 1.32
// does so for `create namespace`, `create quota`, `create deployment`,
// `create job`, `create serviceaccount`, `create token`, `create
// role/clusterrole/rolebinding/clusterrolebinding`, `auth can-i` and `auth
// whoami` (and create configmap/secret/service/cronjob, kinds this decoder
// does not know), and kubelets, controllers and schedulers built on
// client-go do so for every write. draplane's API server stores and
// validates objects as JSON, so it turns such a body into exactly the JSON a
// client would have sent for the same object, and answers in JSON (clients
// accept that).
//
// The body is the 4-byte magic "k8s\0" followed by a runtime.Unknown whose
// `raw` holds the object's protobuf encoding and whose typeMeta names its
// apiVersion and kind (k8s.io/apimachinery/pkg/runtime/serializer/protobuf).
// The messages are declared in kube.proto with upstream's field numbers and
// types; see README.md for how it is generated and checked.
//
// Thread safety: all functions are thread-safe.
#ifndef DRAPLANE_PROTOBUF_KUBE_PROTOBUF_H_
#define DRAPLANE_PROTOBUF_KUBE_PROTOBUF_H_

#include <cstddef>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/meta_types.h"

namespace draplane::protobuf {

// The media type of Kubernetes protobuf bodies.
inline constexpr std::string_view kKubeProtobufContentType =
    "application/vnd.kubernetes.protobuf";

// Bodies larger than this are refused (InvalidArgument) without parsing.
// Far above the 3 MiB upstream's API server accepts for a write; the caller
// is expected to bound request bodies itself.
inline constexpr size_t kMaxKubeProtobufBytes = 64 << 20;

// An apiVersion/kind pair DecodeKubeProtobuf accepts.
struct KubeProtobufKind {
  std::string_view api_version;  // "apps/v1"
  std::string_view kind;         // "Deployment"
};

// The kinds DecodeKubeProtobuf accepts: v1 Namespace, ResourceQuota, Pod,
// Node, Event, ServiceAccount; apps/v1 Deployment; batch/v1 Job;
// coordination.k8s.io/v1 Lease; rbac.authorization.k8s.io/v1 Role,
// ClusterRole, RoleBinding, ClusterRoleBinding; authorization.k8s.io/v1
// SelfSubjectAccessReview, SubjectAccessReview, SelfSubjectRulesReview,
// LocalSubjectAccessReview; authentication.k8s.io/v1 SelfSubjectReview,
// TokenReview, TokenRequest.
const std::vector<KubeProtobufKind>& KubeProtobufKinds();

// Decodes a protobuf request body into the object's JSON.
//
// The result is what Go's encoding/json writes for the object upstream's
// serializer decodes from `body`, key order included: "kind" and
// "apiVersion" from the envelope's typeMeta, then the fields in Go struct
// order with Go's omitempty/omitzero rules (creationTimestamp is left out
// when unset, other unset times are null, empty non-omitempty slices and maps
// are null but an ExtraValue map value without items is [], pointers are
// written exactly when present, map keys sorted);
// quantities in canonical form, times as RFC 3339 in UTC (MicroTime with 6
// fractional digits), int64 as JSON numbers, invalid UTF-8 replaced by
// U+FFFD like encoding/json does.
//
// `default_api_version` / `default_kind` fill an empty typeMeta.apiVersion /
// typeMeta.kind the way upstream's serializer applies the request's default
// kind (copyKindDefaults); pass the endpoint's apiVersion and kind, or leave
// them empty to require both in the body.
//
// Errors, all InvalidArgument with a message naming the problem:
//  - an empty body, a missing "k8s\0" prefix, or a body over
//    kMaxKubeProtobufBytes;
//  - bytes that are not a valid protobuf encoding of the messages (truncated,
//    bad lengths or wire types);
//  - a missing kind or apiVersion (upstream's "Object 'Kind' is missing in
//    ..." texts);
//  - an apiVersion/kind not in KubeProtobufKinds();
//  - a field draplane does not declare (named by message, field number and
//    JSON path): upstream would decode it, so dropping it would lose data;
//  - values encoding/json could not write or draplane could not read back: a
//    malformed quantity, an IntOrString type other than 0/1, a time outside
//    years 0..9999, managedFields fieldsV1 that are not JSON.
// Never throws; hostile input is bounded by the body size and by the
// (non-recursive) message schema.
absl::StatusOr<api::Json> DecodeKubeProtobuf(
    std::string_view body, std::string_view default_api_version = {},
    std::string_view default_kind = {});

}  // namespace draplane::protobuf

#endif  // DRAPLANE_PROTOBUF_KUBE_PROTOBUF_H_
