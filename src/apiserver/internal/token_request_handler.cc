// TokenRequest, the serviceaccounts/token subresource, as upstream's
// pkg/registry/core/serviceaccount/storage/token.go answers it: a signed
// token for the ServiceAccount, optionally bound to a Pod (the Pod's node
// is named in the token too) or a Node, with NodeRestriction's rules for
// requests from nodes.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "apiserver/internal/api_errors.h"
#include "apiserver/internal/handlers.h"
#include "common/field_errors.h"
#include "common/str_cat.h"
#include "common/uuid.h"

namespace draplane::apiserver::internal {
namespace {

constexpr std::string_view kAuthenticationV1 = "authentication.k8s.io/v1";
// Upstream's TokenRequestSpec default and MinTokenAgeSec.
constexpr int64_t kDefaultExpirationSeconds = 3600;
constexpr int64_t kMinExpirationSeconds = 600;
constexpr int64_t kMaxExpirationSeconds = int64_t{1} << 32;

std::string Text(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

const Json& Object(const Json& object, const char* key) {
  static const Json* empty = new Json(Json::object());
  auto it = object.find(key);
  return it != object.end() && it->is_object() ? *it : *empty;
}

// errors.NewConflict(schema.GroupResource{group, resource}, name, err).
absl::Status ConflictOn(std::string_view group, std::string_view resource,
                        std::string_view name, std::string_view detail) {
  const std::string qualified =
      group.empty() ? std::string(resource) : StrCat(resource, ".", group);
  Json details{{"name", std::string(name)}, {"kind", std::string(resource)}};
  if (!group.empty()) details["group"] = std::string(group);
  return ApiError(409, "Conflict",
                  StrCat("Operation cannot be fulfilled on ", qualified, " \"",
                         name, "\": ", detail),
                  std::move(details));
}

absl::Status InvalidTokenRequest(std::string_view name,
                                 const FieldErrorList& errors) {
  return InvalidKind("authentication.k8s.io", "TokenRequest", name, errors);
}

// The TokenRequest's spec, defaulted and validated (upstream's decoding,
// SetDefaults_TokenRequestSpec and ValidateTokenRequest).
absl::StatusOr<Json> ValidSpec(const Json& body,
                               const std::vector<std::string>& audiences) {
  Json spec = Object(body, "spec");
  auto aud = spec.find("audiences");
  if (aud == spec.end() || aud->is_null() ||
      (aud->is_array() && aud->empty())) {
    spec["audiences"] = audiences;
  } else if (!aud->is_array() ||
             std::any_of(aud->begin(), aud->end(),
                         [](const Json& a) { return !a.is_string(); })) {
    return BadRequest("the TokenRequest's spec.audiences must be strings");
  }
  auto exp = spec.find("expirationSeconds");
  if (exp == spec.end() || exp->is_null()) {
    spec["expirationSeconds"] = kDefaultExpirationSeconds;
  } else if (!exp->is_number_integer()) {
    return BadRequest(
        "the TokenRequest's spec.expirationSeconds must be an integer");
  }
  const int64_t seconds = spec["expirationSeconds"].get<int64_t>();
  const FieldPath path("spec");
  FieldErrorList errors;
  if (seconds < kMinExpirationSeconds) {
    errors.push_back(Invalid(path.Child("expirationSeconds"),
                             BadValue::Json(std::to_string(seconds)),
                             "may not specify a duration less than 10 "
                             "minutes"));
  }
  if (seconds > kMaxExpirationSeconds) {
    errors.push_back(Invalid(path.Child("expirationSeconds"),
                             BadValue::Json(std::to_string(seconds)),
                             "may not specify a duration larger than 2^32 "
                             "seconds"));
  }
  if (const Json& a = Object(spec, "attestations"); !a.empty()) {
    return InvalidTokenRequest(
        "", {Invalid(path.Child("attestations"), BadValue::Json(a.dump()),
                     "attestations may only be specified with a webhook "
                     "bound object reference")});
  }
  if (!errors.empty()) return InvalidTokenRequest("", errors);
  return spec;
}

// NodeRestriction's admitServiceAccount: a node's token must be bound to
// a pod of its own.
absl::Status AdmitNodeTokenRequest(const std::string& node,
                                   const std::string& account, const Json& ref,
                                   const Json* pod) {
  auto forbidden = [&account](std::string_view why) {
    return ApiError(
        403, "Forbidden",
        StrCat("serviceaccounts \"", account, "\" is forbidden: ", why),
        Json{{"name", account}, {"kind", "serviceaccounts"}});
  };
  if (Text(ref, "apiVersion") != "v1" || Text(ref, "kind") != "Pod" ||
      Text(ref, "name").empty()) {
    return forbidden("node requested token not bound to a pod");
  }
  if (Text(ref, "uid").empty()) {
    return forbidden("node requested token with a pod binding without a uid");
  }
  if (pod == nullptr) return absl::OkStatus();  // the bound lookup's 404
  if (Text(Object(*pod, "metadata"), "uid") != Text(ref, "uid")) {
    return forbidden(
        StrCat("the UID in the bound object reference (", Text(ref, "uid"),
               ") does not match the UID in record. The object might have been "
               "deleted and then recreated"));
  }
  if (Text(Object(*pod, "spec"), "nodeName") != node) {
    return forbidden(
        "node requested token bound to a pod scheduled on a different node");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Handlers::RequestToken(const http::HttpRequest& req,
                                    const Target& t, Responder& w) {
  if (service_account_tokens_ == nullptr) return PathNotFound();
  auto body = ParseBody(req, w);
  if (!body.ok()) return body.status();
  if (!body->is_object() ||
      (body->contains("kind") && Text(*body, "kind") != "TokenRequest") ||
      (body->contains("apiVersion") &&
       Text(*body, "apiVersion") != kAuthenticationV1)) {
    return BadRequest(StrCat("the body of the request is not a ",
                             kAuthenticationV1, " TokenRequest"));
  }
  const Json& meta = Object(*body, "metadata");
  if (!Text(meta, "name").empty() && Text(meta, "name") != t.name) {
    return InvalidTokenRequest(
        t.name, {Invalid(FieldPath("metadata").Child("name"),
                         BadValue(Text(meta, "name")),
                         "must match the service account name if specified")});
  }
  if (!Text(meta, "namespace").empty() &&
      Text(meta, "namespace") != t.namespace_) {
    return InvalidTokenRequest(
        t.name,
        {Invalid(FieldPath("metadata").Child("namespace"),
                 BadValue(Text(meta, "namespace")),
                 "must match the service account namespace if specified")});
  }
  auto account = registry_.Get(*t.resource, t.namespace_, t.name);
  if (!account.ok()) return account.status();
  const std::string account_uid = Text(Object(*account, "metadata"), "uid");
  if (!Text(meta, "uid").empty() && Text(meta, "uid") != account_uid) {
    return ConflictOn(
        "authentication.k8s.io", "TokenRequest", t.name,
        StrCat("the UID in the token request (", Text(meta, "uid"),
               ") does not match the UID of the service account (", account_uid,
               ")"));
  }
  const absl::Time now = registry_.clock().Now();
  auto spec = ValidSpec(*body, service_account_tokens_->api_audiences());
  if (!spec.ok()) return spec.status();

  auth::ServiceAccountClaims claims;
  claims.namespace_ = t.namespace_;
  claims.service_account = {t.name, account_uid};
  const Json& ref = Object(*spec, "boundObjectRef");
  // NodeRestriction runs before the bound object is looked up.
  if (const auth::NodeIdentity node = auth::NodeIdentityOf(t.user);
      node.is_node && options_.authorization_mode ==
                          ApiServerOptions::AuthorizationMode::kNodeAndRbac) {
    absl::StatusOr<Json> pod = absl::NotFoundError("");
    if (Text(ref, "kind") == "Pod" && !Text(ref, "name").empty()) {
      pod = registry_.Get(*FindResource("", "pods"), t.namespace_,
                          Text(ref, "name"));
      if (!pod.ok() && !absl::IsNotFound(pod.status()) &&
          HttpCode(pod.status()) != 404) {
        return pod.status();
      }
    }
    if (absl::Status s = AdmitNodeTokenRequest(node.name, t.name, ref,
                                               pod.ok() ? &*pod : nullptr);
        !s.ok()) {
      return s;
    }
    if (!pod.ok() && Text(ref, "kind") == "Pod") return pod.status();
  }
  if (!ref.empty()) {
    if (absl::Status s = BindToken(t, ref, claims); !s.ok()) return s;
  }
  std::vector<std::string> warnings;
  int64_t seconds = (*spec)["expirationSeconds"].get<int64_t>();
  const int64_t max_seconds =
      absl::ToInt64Seconds(service_account_tokens_->max_expiration());
  if (max_seconds > 0 && seconds > max_seconds) {
    warnings.push_back(StrCat("requested expiration of ", seconds,
                              " seconds shortened to ", max_seconds,
                              " seconds"));
    seconds = max_seconds;
    (*spec)["expirationSeconds"] = seconds;
  }
  claims.audiences = (*spec)["audiences"].get<std::vector<std::string>>();
  claims.issued_at = claims.not_before =
      absl::FromUnixSeconds(absl::ToUnixSeconds(now));
  claims.expiry = claims.issued_at + absl::Seconds(seconds);
  claims.id = NewRandomUuid();
  auto token = service_account_tokens_->Sign(claims);
  if (!token.ok()) {
    return InternalServerError(
        StrCat("failed to generate token: ", token.status().message()));
  }
  Json out{
      {"kind", "TokenRequest"},
      {"apiVersion", std::string(kAuthenticationV1)},
      {"metadata",
       {{"name", t.name},
        {"namespace", t.namespace_},
        {"uid", account_uid},
        {"creationTimestamp", Timestamp(now)}}},
      {"spec", *spec},
      {"status",
       {{"token", *token},
        {"expirationTimestamp", Timestamp(now + absl::Seconds(seconds))}}}};
  w.SendJson(201, out, warnings);
  return absl::OkStatus();
}

absl::Status Handlers::BindToken(const Target& t, const Json& ref,
                                 auth::ServiceAccountClaims& claims) {
  const std::string api_version = Text(ref, "apiVersion");
  const std::string kind = Text(ref, "kind");
  const std::string name = Text(ref, "name");
  const std::string group = api_version.find('/') == std::string::npos
                                ? ""
                                : api_version.substr(0, api_version.find('/'));
  const std::string version = api_version.substr(
      api_version.find('/') == std::string::npos ? 0
                                                 : api_version.find('/') + 1);
  std::string uid;
  if (group.empty() && kind == "Pod") {
    auto pod = registry_.Get(*FindResource("", "pods"), t.namespace_, name);
    if (!pod.ok()) return pod.status();
    if (Text(Object(*pod, "spec"), "serviceAccountName") != t.name) {
      return BadRequest(StrCat("cannot bind token for serviceaccount \"",
                               t.name,
                               "\" to pod running with different "
                               "serviceaccount name."));
    }
    uid = Text(Object(*pod, "metadata"), "uid");
    claims.pod = auth::TokenObjectRef{name, uid};
    if (const std::string node_name = Text(Object(*pod, "spec"), "nodeName");
        !node_name.empty()) {
      // A node that does not exist is named without a UID.
      auto node = registry_.Get(*FindResource("", "nodes"), "", node_name);
      claims.node = auth::TokenObjectRef{
          node_name, node.ok() ? Text(Object(*node, "metadata"), "uid") : ""};
    }
  } else if (group.empty() && kind == "Node") {
    auto node = registry_.Get(*FindResource("", "nodes"), "", name);
    if (!node.ok()) return node.status();
    uid = Text(Object(*node, "metadata"), "uid");
    claims.node = auth::TokenObjectRef{name, uid};
  } else if (group.empty() && kind == "Secret") {
    // draplane serves no Secrets: none exists to bind to.
    return ApiError(404, "NotFound", StrCat("secrets \"", name, "\" not found"),
                    Json{{"name", name}, {"kind", "secrets"}});
  } else {
    return BadRequest(StrCat("cannot bind token to object of type ", group, "/",
                             version, ", Kind=", kind));
  }
  if (!Text(ref, "uid").empty() && Text(ref, "uid") != uid) {
    return ConflictOn(
        group, kind, name,
        StrCat("the UID in the bound object reference (", Text(ref, "uid"),
               ") does not match the UID in record. The object "
               "might have been deleted and then recreated"));
  }
  return absl::OkStatus();
}

}  // namespace draplane::apiserver::internal
