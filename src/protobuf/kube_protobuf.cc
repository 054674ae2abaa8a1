#include "protobuf/kube_protobuf.h"

#include <exception>
#include <memory>
#include <string>

#include "common/go_strconv.h"
#include "common/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/stubs/logging.h"
#include "kube.pb.h"
#include "protobuf/internal/go_json.h"

namespace draplane::protobuf {
namespace {

namespace gp = ::google::protobuf;

// upstream's protoEncodingPrefix (serializer/protobuf/protobuf.go).
constexpr std::string_view kMagic("k8s\0", 4);

struct KindEntry {
  KubeProtobufKind kind;
  const gp::Descriptor* (*descriptor)();
};

// Naming the generated classes here also links kube.pb.cc into binaries.
const std::vector<KindEntry>& KindTable() {
  static const auto* table = new std::vector<KindEntry>{
      {{"v1", "Namespace"}, &kube::Namespace::descriptor},
      {{"v1", "ResourceQuota"}, &kube::ResourceQuota::descriptor},
      {{"v1", "Pod"}, &kube::Pod::descriptor},
      {{"v1", "Node"}, &kube::Node::descriptor},
      {{"v1", "Event"}, &kube::Event::descriptor},
      {{"v1", "ServiceAccount"}, &kube::ServiceAccount::descriptor},
      {{"apps/v1", "Deployment"}, &kube::Deployment::descriptor},
      {{"batch/v1", "Job"}, &kube::Job::descriptor},
      {{"coordination.k8s.io/v1", "Lease"}, &kube::Lease::descriptor},
      {{"rbac.authorization.k8s.io/v1", "Role"}, &kube::Role::descriptor},
      {{"rbac.authorization.k8s.io/v1", "ClusterRole"},
       &kube::ClusterRole::descriptor},
      {{"rbac.authorization.k8s.io/v1", "RoleBinding"},
       &kube::RoleBinding::descriptor},
      {{"rbac.authorization.k8s.io/v1", "ClusterRoleBinding"},
       &kube::ClusterRoleBinding::descriptor},
      {{"authorization.k8s.io/v1", "SelfSubjectAccessReview"},
       &kube::SelfSubjectAccessReview::descriptor},
      {{"authorization.k8s.io/v1", "SubjectAccessReview"},
       &kube::SubjectAccessReview::descriptor},
      {{"authorization.k8s.io/v1", "SelfSubjectRulesReview"},
       &kube::SelfSubjectRulesReview::descriptor},
      {{"authorization.k8s.io/v1", "LocalSubjectAccessReview"},
       &kube::LocalSubjectAccessReview::descriptor},
      {{"authentication.k8s.io/v1", "SelfSubjectReview"},
       &kube::SelfSubjectReview::descriptor},
      {{"authentication.k8s.io/v1", "TokenReview"},
       &kube::TokenReview::descriptor},
      {{"authentication.k8s.io/v1", "TokenRequest"},
       &kube::TokenRequest::descriptor},
  };
  return *table;
}

// Go's %#v of a runtime.TypeMeta, as upstream's missing-kind errors print it.
std::string GoTypeMeta(std::string_view api_version, std::string_view kind) {
  return StrCat("runtime.TypeMeta{APIVersion:", StrconvQuote(api_version),
                ", Kind:", StrconvQuote(kind), "}");
}

absl::StatusOr<api::Json> Decode(std::string_view body,
                                 std::string_view default_api_version,
                                 std::string_view default_kind) {
  // The first three checks and texts are upstream's Serializer.Decode.
  if (body.empty()) return absl::InvalidArgumentError("empty data");
  if (body.size() < kMagic.size() || body.substr(0, kMagic.size()) != kMagic) {
    return absl::InvalidArgumentError(
        "provided data does not appear to be a protobuf message, expected "
        "prefix [107 56 115 0]");
  }
  if (body.size() == kMagic.size()) {
    return absl::InvalidArgumentError("empty body");
  }
  if (body.size() > kMaxKubeProtobufBytes) {
    return absl::InvalidArgumentError(StrCat("protobuf body of ", body.size(),
                                             " bytes is larger than ",
                                             kMaxKubeProtobufBytes));
  }

  // Debian's libprotobuf is built with UTF-8 checks that log (but accept)
  // invalid UTF-8 in strings; Go accepts it silently and encoding/json
  // replaces it, and a log line per hostile request would only be noise.
  gp::LogSilencer silence_utf8_warnings;
  kube::Unknown unknown;
  const std::string_view envelope = body.substr(kMagic.size());
  if (!unknown.ParseFromArray(envelope.data(),
                              static_cast<int>(envelope.size()))) {
    return absl::InvalidArgumentError(
        "malformed protobuf body: the bytes after the k8s\\0 prefix are not a "
        "valid runtime.Unknown");
  }
  if (absl::Status status = internal::CheckNoUnknownFields(unknown);
      !status.ok()) {
    return absl::InvalidArgumentError(
        StrCat("protobuf envelope: ", status.message()));
  }

  // copyKindDefaults; contentEncoding and contentType are ignored, as
  // upstream does.
  std::string api_version = unknown.typemeta().apiversion();
  std::string kind = unknown.typemeta().kind();
  if (kind.empty()) kind = std::string(default_kind);
  if (api_version.empty() && !default_api_version.empty()) {
    api_version = std::string(default_api_version);
  }
  if (kind.empty()) {
    return absl::InvalidArgumentError(StrCat(
        "Object 'Kind' is missing in '", GoTypeMeta(api_version, kind), "'"));
  }
  if (api_version.empty()) {
    return absl::InvalidArgumentError(
        StrCat("Object 'apiVersion' is missing in '",
               GoTypeMeta(api_version, kind), "'"));
  }

  const gp::Descriptor* descriptor = nullptr;
  for (const KindEntry& entry : KindTable()) {
    if (entry.kind.api_version == api_version && entry.kind.kind == kind) {
      descriptor = entry.descriptor();
      break;
    }
  }
  if (descriptor == nullptr) {
    return absl::InvalidArgumentError(
        StrCat("no kind ", StrconvQuote(kind), " is registered for version ",
               StrconvQuote(api_version),
               " in draplane's protobuf decoder; send the object as "
               "application/json"));
  }

  const gp::Message* prototype =
      gp::MessageFactory::generated_factory()->GetPrototype(descriptor);
  std::unique_ptr<gp::Message> object(prototype->New());
  if (!object->ParseFromString(unknown.raw())) {
    return absl::InvalidArgumentError(
        StrCat("malformed protobuf body: raw is not a valid ", api_version, " ",
               kind));
  }
  const std::string what = StrCat("protobuf ", api_version, " ", kind, ": ");
  if (absl::Status status = internal::CheckNoUnknownFields(*object);
      !status.ok()) {
    return absl::InvalidArgumentError(StrCat(
        what, status.message(), "; send the object as application/json"));
  }

  // TypeMeta is inline first in every kind: "kind", then "apiVersion".
  api::Json json = api::Json::object();
  json["kind"] = kind;
  json["apiVersion"] = api_version;
  if (absl::Status status = internal::AppendGoJsonFields(*object, &json);
      !status.ok()) {
    return absl::InvalidArgumentError(StrCat(what, status.message()));
  }
  return json;
}

}  // namespace

const std::vector<KubeProtobufKind>& KubeProtobufKinds() {
  static const auto* kinds = [] {
    auto* out = new std::vector<KubeProtobufKind>;
    for (const KindEntry& entry : KindTable()) out->push_back(entry.kind);
    return out;
  }();
  return *kinds;
}

absl::StatusOr<api::Json> DecodeKubeProtobuf(
    std::string_view body, std::string_view default_api_version,
    std::string_view default_kind) {
  try {
    return Decode(body, default_api_version, default_kind);
  } catch (const std::exception& e) {
    return absl::InternalError(
        StrCat("decoding a protobuf body failed: ", e.what()));
  } catch (...) {
    return absl::InternalError("decoding a protobuf body failed");
  }
}

}  // namespace draplane::protobuf
