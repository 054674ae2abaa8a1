#include <string>
#include <string_view>

#include "apiserver/internal/api_errors.h"
#include "apiserver/internal/handlers.h"
#include "common/rfc3339.h"

namespace draplane::apiserver::internal {

void Handlers::SelfSubjectReview(const http::HttpRequest& req,
                                 const auth::UserInfo& user, Responder& w) {
  // The request's body says nothing the answer depends on, but it must be
  // a SelfSubjectReview as far as its media type shows (upstream decodes
  // it): JSON of that kind, or a Kubernetes protobuf envelope.
  const std::string type = req.Header("content-type");
  const bool protobuf =
      type.rfind("application/vnd.kubernetes.protobuf", 0) == 0;
  if (protobuf) {
    if (req.body.compare(0, 4, std::string_view("k8s\0", 4)) != 0) {
      w.SendError(BadRequest("the body of the request is not a Kubernetes "
                             "protobuf object"),
                  {});
      return;
    }
  } else if (!type.empty() && type.rfind("application/json", 0) != 0) {
    w.SendError(UnsupportedMediaType(type), {});
    return;
  } else if (!req.body.empty()) {
    const Json body =
        Json::parse(req.body, nullptr, /*allow_exceptions=*/false);
    // Absent, or the string `want`.
    auto absent_or = [&body](const char* key, std::string_view want) {
      auto it = body.find(key);
      return it == body.end() ||
             (it->is_string() && it->get_ref<const std::string&>() == want);
    };
    if (!body.is_object() || !absent_or("kind", "SelfSubjectReview") ||
        !absent_or("apiVersion", "authentication.k8s.io/v1")) {
      w.SendError(BadRequest("the body of the request is not a "
                             "authentication.k8s.io/v1 SelfSubjectReview"),
                  {});
      return;
    }
  }
  Json info = Json::object();
  if (!user.name.empty()) info["username"] = user.name;
  if (!user.uid.empty()) info["uid"] = user.uid;
  if (!user.groups.empty()) info["groups"] = user.groups;
  if (!user.extra.empty()) info["extra"] = user.extra;
  Json review{
      {"kind", "SelfSubjectReview"},
      {"apiVersion", "authentication.k8s.io/v1"},
      {"metadata", {{"creationTimestamp", Rfc3339(registry_.clock().Now())}}},
      {"status", {{"userInfo", info}}}};
  w.SendJson(201, review, {});
}

}  // namespace draplane::apiserver::internal
