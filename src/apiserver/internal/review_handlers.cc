// The review kinds: created, answered and not stored.
// authentication.k8s.io/v1 SelfSubjectReview (`kubectl auth whoami`) and
// TokenReview;
// authorization.k8s.io/v1 SelfSubjectAccessReview (`kubectl auth can-i`),
// SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectRulesReview
// (`kubectl auth can-i --list`), as pkg/registry/authorization answers
// them.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "apiserver/internal/api_errors.h"
#include "apiserver/internal/handlers.h"
#include "auth/rule_resolver.h"
#include "common/field_errors.h"
#include "common/rfc3339.h"
#include "common/str_cat.h"

namespace draplane::apiserver::internal {
namespace {

constexpr std::string_view kAuthorizationV1 = "authorization.k8s.io/v1";

// The review body as JSON (JSON or protobuf), which must be a `kind` of
// `api_version` (either absent in JSON, as upstream's decoder defaults
// them from the URL).
absl::StatusOr<Json> ReviewBody(const http::HttpRequest& req, Responder& w,
                                std::string_view kind,
                                std::string_view api_version) {
  if (req.body.empty()) return Json::object();
  auto body = ParseBody(req, w);
  if (!body.ok()) return body.status();
  auto absent_or = [&body](const char* key, std::string_view want) {
    auto it = body->find(key);
    return it == body->end() ||
           (it->is_string() && it->get_ref<const std::string&>() == want);
  };
  if (!body->is_object() || !absent_or("kind", kind) ||
      !absent_or("apiVersion", api_version)) {
    return BadRequest(
        StrCat("the body of the request is not a ", api_version, " ", kind));
  }
  return *std::move(body);
}

const Json* Member(const Json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::string Text(const Json* object, const char* key) {
  if (object == nullptr || !object->is_object()) return "";
  auto it = object->find(key);
  return it != object->end() && it->is_string() ? it->get<std::string>() : "";
}

// The 422 of an invalid review (ValidateSubjectAccessReview and kin).
absl::Status InvalidReview(std::string_view kind,
                           const FieldErrorList& errors) {
  return InvalidKind("authorization.k8s.io", kind, "", errors);
}

// validateCommonSpec: exactly one of the attribute kinds.
void CheckAttributes(const Json& spec, FieldErrorList& errors) {
  const FieldPath path("spec");
  const bool resource = Member(spec, "resourceAttributes") != nullptr;
  const bool non_resource = Member(spec, "nonResourceAttributes") != nullptr;
  if (resource && non_resource) {
    errors.push_back(
        Invalid(path.Child("nonResourceAttributes"),
                BadValue::Json(spec["nonResourceAttributes"].dump()),
                "cannot be specified in combination with "
                "resourceAttributes"));
  }
  if (!resource && !non_resource) {
    errors.push_back(Invalid(path.Child("resourceAttributes"),
                             BadValue::Json("null"),
                             "exactly one of nonResourceAttributes or "
                             "resourceAttributes must be specified"));
  }
}

// The attributes a review asks about, for `user`.
auth::RequestAttributes AttributesOf(const Json& spec, auth::UserInfo user) {
  auth::RequestAttributes a;
  a.user = std::move(user);
  if (const Json* r = Member(spec, "resourceAttributes")) {
    a.resource_request = true;
    a.namespace_ = Text(r, "namespace");
    a.verb = Text(r, "verb");
    a.api_group = Text(r, "group");
    a.api_version = Text(r, "version");
    a.resource = Text(r, "resource");
    a.subresource = Text(r, "subresource");
    a.name = Text(r, "name");
  } else if (const Json* n = Member(spec, "nonResourceAttributes")) {
    a.path = Text(n, "path");
    a.verb = Text(n, "verb");
  }
  return a;
}

// A SubjectAccessReview's subject (spec.user, groups, uid, extra).
auth::UserInfo SubjectOf(const Json& spec) {
  auth::UserInfo u;
  u.name = Text(&spec, "user");
  u.uid = Text(&spec, "uid");
  if (const Json* groups = Member(spec, "groups");
      groups && groups->is_array()) {
    for (const Json& g : *groups) {
      if (g.is_string()) u.groups.push_back(g.get<std::string>());
    }
  }
  if (const Json* extra = Member(spec, "extra"); extra && extra->is_object()) {
    for (const auto& [k, values] : extra->items()) {
      if (!values.is_array()) continue;
      for (const Json& v : values) {
        if (v.is_string()) u.extra[k].push_back(v.get<std::string>());
      }
    }
  }
  return u;
}

Json RuleJson(const auth::PolicyRule& r, bool resource) {
  Json rule = Json::object();
  rule["verbs"] = r.verbs;
  if (resource) {
    if (!r.api_groups.empty()) rule["apiGroups"] = r.api_groups;
    if (!r.resources.empty()) rule["resources"] = r.resources;
    if (!r.resource_names.empty()) rule["resourceNames"] = r.resource_names;
  } else {
    rule["nonResourceURLs"] = r.non_resource_urls;
  }
  return rule;
}

}  // namespace

bool Handlers::HandleReview(const http::HttpRequest& req,
                            const std::vector<std::string_view>& segments,
                            const auth::UserInfo& user, Responder& w) {
  if (req.method != "POST" || segments.size() < 4 || segments[0] != "apis" ||
      segments[2] != "v1") {
    return false;
  }
  const std::string_view group = segments[1];
  if (group == "authentication.k8s.io" && segments.size() == 4 &&
      segments[3] == "selfsubjectreviews") {
    SelfSubjectReview(req, user, w);
    return true;
  }
  if (group == "authentication.k8s.io" && segments.size() == 4 &&
      segments[3] == "tokenreviews") {
    TokenReview(req, w);
    return true;
  }
  if (group != "authorization.k8s.io") return false;
  if (segments.size() == 4 && (segments[3] == "selfsubjectaccessreviews" ||
                               segments[3] == "subjectaccessreviews")) {
    AccessReview(req, user,
                 segments[3] == "subjectaccessreviews"
                     ? "SubjectAccessReview"
                     : "SelfSubjectAccessReview",
                 "", w);
    return true;
  }
  if (segments.size() == 6 && segments[3] == "namespaces" &&
      segments[5] == "localsubjectaccessreviews") {
    AccessReview(req, user, "LocalSubjectAccessReview",
                 std::string(segments[4]), w);
    return true;
  }
  if (segments.size() == 4 && segments[3] == "selfsubjectrulesreviews") {
    RulesReview(req, user, w);
    return true;
  }
  return false;
}

void Handlers::SelfSubjectReview(const http::HttpRequest& req,
                                 const auth::UserInfo& user, Responder& w) {
  // The request's body says nothing the answer depends on, but it must be
  // a SelfSubjectReview (upstream decodes it).
  auto body =
      ReviewBody(req, w, "SelfSubjectReview", "authentication.k8s.io/v1");
  if (!body.ok()) {
    w.SendError(body.status(), {});
    return;
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

// As pkg/registry/authentication/tokenreview: the token is authenticated
// as a request bearing it would be, for spec.audiences (default: the API
// audiences); a token that does not authenticate is an answer, not an
// error.
void Handlers::TokenReview(const http::HttpRequest& req, Responder& w) {
  auto body = ReviewBody(req, w, "TokenReview", "authentication.k8s.io/v1");
  if (!body.ok()) {
    w.SendError(body.status(), {});
    return;
  }
  Json spec = Member(*body, "spec") != nullptr && (*body)["spec"].is_object()
                  ? (*body)["spec"]
                  : Json::object();
  const std::string token = Text(&spec, "token");
  if (token.empty()) {
    w.SendError(
        BadRequest("token is required for TokenReview in authentication"), {});
    return;
  }
  std::vector<std::string> audiences;
  if (const Json* a = Member(spec, "audiences"); a && a->is_array()) {
    for (const Json& v : *a) {
      if (v.is_string()) audiences.push_back(v.get<std::string>());
    }
  }
  std::vector<std::string> matched;
  auto user = authenticator_.AuthenticateToken(token, audiences, &matched);
  Json status{{"authenticated", user.ok()}, {"user", Json::object()}};
  if (user.ok()) {
    Json& info = status["user"];
    if (!user->name.empty()) info["username"] = user->name;
    if (!user->uid.empty()) info["uid"] = user->uid;
    if (!user->groups.empty()) info["groups"] = user->groups;
    if (!user->extra.empty()) info["extra"] = user->extra;
    if (!matched.empty()) status["audiences"] = matched;
  } else if (!absl::IsUnauthenticated(user.status()) ||
             user.status().message() != "invalid bearer token") {
    status["error"] = std::string(user.status().message());
  }
  Json review{{"kind", "TokenReview"},
              {"apiVersion", "authentication.k8s.io/v1"},
              {"metadata", Json::object()},
              {"spec", spec},
              {"status", status}};
  w.SendJson(201, review, {});
}

void Handlers::AccessReview(const http::HttpRequest& req,
                            const auth::UserInfo& user, std::string_view kind,
                            const std::string& url_namespace, Responder& w) {
  auto body = ReviewBody(req, w, kind, kAuthorizationV1);
  if (!body.ok()) {
    w.SendError(body.status(), {});
    return;
  }
  Json spec = body->contains("spec") && (*body)["spec"].is_object()
                  ? (*body)["spec"]
                  : Json::object();
  FieldErrorList errors;
  CheckAttributes(spec, errors);
  const bool self = kind == "SelfSubjectAccessReview";
  if (!self && Text(&spec, "user").empty() &&
      (Member(spec, "groups") == nullptr || spec["groups"].empty())) {
    errors.push_back(Invalid(FieldPath("spec").Child("user"), "",
                             "at least one of user or group must be "
                             "specified"));
  }
  if (kind == "LocalSubjectAccessReview" &&
      Member(spec, "nonResourceAttributes") != nullptr) {
    errors.push_back(
        Invalid(FieldPath("spec").Child("nonResourceAttributes"),
                BadValue::Json(spec["nonResourceAttributes"].dump()),
                "disallowed on this kind of request"));
  }
  if (!errors.empty()) {
    w.SendError(InvalidReview(kind, errors), {});
    return;
  }
  if (kind == "LocalSubjectAccessReview" &&
      Text(Member(spec, "resourceAttributes"), "namespace") != url_namespace) {
    w.SendError(BadRequest(StrCat(
                    "spec.resourceAttributes.namespace must match namespace: ",
                    url_namespace)),
                {});
    return;
  }
  const auth::RequestAttributes attributes =
      AttributesOf(spec, self ? user : SubjectOf(spec));
  // As kube-apiserver, the review is decided by the authorization chain:
  // the privileged group first, then the authorizer.
  auth::Authorization decision;
  if (attributes.user.InGroup(auth::kSystemPrivilegedGroup)) {
    decision.decision = auth::Decision::kAllow;
  } else {
    decision = authorizer_->Authorize(attributes);
  }
  Json status{{"allowed", decision.decision == auth::Decision::kAllow}};
  if (decision.decision == auth::Decision::kDeny) status["denied"] = true;
  if (!decision.reason.empty()) status["reason"] = decision.reason;
  if (self) {
    // The server fills in nothing of a self review's spec but what it got.
    spec.erase("user");
    spec.erase("groups");
  }
  Json review{{"kind", std::string(kind)},
              {"apiVersion", std::string(kAuthorizationV1)},
              {"metadata", Json::object()},
              {"spec", spec},
              {"status", status}};
  if (kind == "LocalSubjectAccessReview") {
    review["metadata"]["namespace"] = url_namespace;
  }
  w.SendJson(201, review, {});
}

void Handlers::RulesReview(const http::HttpRequest& req,
                           const auth::UserInfo& user, Responder& w) {
  auto body = ReviewBody(req, w, "SelfSubjectRulesReview", kAuthorizationV1);
  if (!body.ok()) {
    w.SendError(body.status(), {});
    return;
  }
  const Json* spec = Member(*body, "spec");
  const std::string ns = Text(spec, "namespace");
  std::vector<auth::PolicyRule> rules;
  std::vector<std::string> errors;
  if (policy_ == nullptr) {
    // AlwaysAllow: everything (upstream's alwaysAllowAuthorizer.RulesFor).
    rules = {{{"*"}, {"*"}, {"*"}, {}, {}}, {{"*"}, {}, {}, {}, {"*"}}};
  } else {
    // The chain's resolvers in order: the Node authorizer cannot list a
    // node's rules (upstream's error), then RBAC.
    if (options_.authorization_mode ==
            ApiServerOptions::AuthorizationMode::kNodeAndRbac &&
        auth::NodeIdentityOf(user).is_node) {
      errors.push_back("node authorizer does not support user rule resolution");
    }
    rules = auth::RulesFor(*policy_->Current(), user, ns, &errors);
  }
  Json resource_rules = Json::array();
  Json non_resource_rules = Json::array();
  for (const auth::PolicyRule& r : rules) {
    if (!r.resources.empty()) resource_rules.push_back(RuleJson(r, true));
    if (!r.non_resource_urls.empty()) {
      non_resource_rules.push_back(RuleJson(r, false));
    }
  }
  Json status{{"resourceRules", resource_rules},
              {"nonResourceRules", non_resource_rules},
              {"incomplete", !errors.empty()}};
  if (!errors.empty()) {
    std::string text;
    for (size_t i = 0; i < errors.size(); ++i) {
      StrAppend(&text, i ? ", " : "", errors[i]);
    }
    status["evaluationError"] =
        errors.size() > 1 ? StrCat("[", text, "]") : text;
  }
  Json review{{"kind", "SelfSubjectRulesReview"},
              {"apiVersion", std::string(kAuthorizationV1)},
              {"metadata", Json::object()},
              {"spec", Json{{"namespace", ns}}},
              {"status", status}};
  if (ns.empty()) review["spec"] = Json::object();
  w.SendJson(201, review, {});
}

}  // namespace draplane::apiserver::internal
