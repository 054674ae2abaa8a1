// PUT and PATCH of an object, its status and a Deployment's scale
// (upstream's handlers/update.go and patch.go).
#include <string>
#include <utility>
#include <vector>

#include "apiserver/internal/api_errors.h"
#include "apiserver/internal/handlers.h"
#include "apiserver/internal/negotiation.h"
#include "apiserver/internal/patching.h"
#include "apiserver/internal/request_scope.h"
#include "selectors/selectors.h"

namespace draplane::apiserver::internal {

absl::Status Handlers::Update(const http::HttpRequest& req, const Target& t,
                              Responder& w) {
  if (t.subresource == "scale") {
    auto body = ParseBody(req, w);
    if (!body.ok()) return body.status();
    return WriteScale(
        req, t, w, [&](const Json&) -> absl::StatusOr<Json> { return *body; });
  }
  if (!t.subresource.empty() && t.subresource != "status" &&
      t.subresource != "finalize") {
    return internal::MethodNotSupported(*t.resource, req.method);
  }
  auto validation = ParseFieldValidation(req.Query("fieldValidation"));
  if (!validation.ok()) return validation.status();
  auto dry = ParseDryRun(req);
  if (!dry.ok()) return dry.status();
  auto body = ParseBody(req, w);
  if (!body.ok()) return body.status();
  std::vector<std::string> warnings;
  auto storage = BodyToStorage(t, *std::move(body), *validation, warnings,
                               w.ParsedBodyIsEncodedObject());
  if (!storage.ok()) return storage.status();
  auto result =
      registry_.Update(*t.resource, t.namespace_, t.name, *std::move(storage),
                       WriteOptionsOf(req, t, *dry));
  if (!result.ok()) return result.status();
  return SendWritten(req, t, *result, result->created ? 201 : 200, warnings, w);
}

absl::Status Handlers::Patch(const http::HttpRequest& req, const Target& t,
                             Responder& w) {
  std::string type = req.Header("content-type");
  if (size_t semi = type.find(';'); semi != std::string::npos) {
    type.resize(semi);
  }
  auto kind = internal::ParsePatchType(type, *t.resource);
  if (!kind.ok()) return kind.status();
  if (t.subresource == "scale") {
    if (*kind == internal::PatchType::kApply) {
      return internal::MethodNotSupported(*t.resource, "apply");
    }
    const internal::ResourceInfo* r = t.resource;
    return WriteScale(
        req, t, w, [&](const Json& current) -> absl::StatusOr<Json> {
          return internal::ApplyPatch(*kind, *r, current, req.body, {});
        });
  }
  auto validation = ParseFieldValidation(req.Query("fieldValidation"));
  if (!validation.ok()) return validation.status();
  auto dry = ParseDryRun(req);
  if (!dry.ok()) return dry.status();
  const bool apply = *kind == internal::PatchType::kApply;
  if (apply && req.Query("fieldManager").empty()) {
    return internal::BadRequest(
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required "
        "value: is required for apply patch");
  }
  std::vector<std::string> warnings;
  auto mutate = [&](const Json& current) -> absl::StatusOr<Json> {
    Json versioned;
    if (!current.is_null()) {
      auto v = ToVersion(*t.resource, current, t.version);
      if (!v.ok()) return v.status();
      versioned = *std::move(v);
    }
    internal::ApplyRequest apply;
    apply.manager = req.Query("fieldManager");
    apply.force = req.Query("force") == "true";
    apply.api_version = t.resource->ApiVersion(t.version);
    apply.subresource = t.subresource == "status" ? "status" : "";
    apply.now = registry_.clock().Now();
    auto patched =
        internal::ApplyPatch(*kind, *t.resource, versioned, req.body, apply);
    if (!patched.ok()) return patched.status();
    warnings.clear();
    return BodyToStorage(t, *std::move(patched), *validation, warnings);
  };
  auto result =
      registry_.Modify(*t.resource, t.namespace_, t.name, mutate,
                       WriteOptionsOf(req, t, *dry, /*record_manager=*/!apply),
                       /*create=*/apply && t.subresource.empty());
  if (!result.ok()) return result.status();
  return SendObject(req, t, result->object, result->created ? 201 : 200,
                    warnings, w);
}

// The autoscaling/v1 Scale of a Deployment (upstream's scale
// subresource).
Json Handlers::ScaleOf(const Json& deployment) {
  const Json& meta = deployment.at("metadata");
  Json scale_meta = Json::object();
  for (const char* field :
       {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
    if (meta.contains(field)) scale_meta[field] = meta[field];
  }
  const Json spec = deployment.value("spec", Json::object());
  const Json status = deployment.value("status", Json::object());
  std::string selector;
  if (spec.contains("selector")) {
    auto parsed = selectors::LabelSelectorFromJson(spec["selector"]);
    if (parsed.ok()) selector = parsed->String();
  }
  Json scale_status{{"replicas", status.value("replicas", 0)}};
  if (!selector.empty()) scale_status["selector"] = selector;
  return Json{{"kind", "Scale"},
              {"apiVersion", "autoscaling/v1"},
              {"metadata", std::move(scale_meta)},
              {"spec", Json{{"replicas", spec.value("replicas", 1)}}},
              {"status", std::move(scale_status)}};
}

// PUT or PATCH of a Deployment's scale: `scale` gives the new Scale from
// the current one.
absl::Status Handlers::WriteScale(
    const http::HttpRequest& req, const Target& t, Responder& w,
    const std::function<absl::StatusOr<Json>(const Json&)>& scale) {
  auto dry = ParseDryRun(req);
  if (!dry.ok()) return dry.status();
  auto result = registry_.Modify(
      *t.resource, t.namespace_, t.name,
      [&](const Json& current) -> absl::StatusOr<Json> {
        auto next_scale = scale(ScaleOf(current));
        if (!next_scale.ok()) return next_scale.status();
        const Json spec = next_scale->value("spec", Json::object());
        if (!spec.contains("replicas") ||
            !spec["replicas"].is_number_integer() ||
            spec["replicas"].get<int64_t>() < 0) {
          return internal::Invalid(
              *t.resource, t.name,
              {draplane::Invalid(
                  FieldPath("spec.replicas"),
                  BadValue::Json(api::DumpJson(spec.value("replicas", Json()))),
                  "must be greater than or equal to 0")});
        }
        Json next = current;
        const std::string rv = next_scale->value("metadata", Json::object())
                                   .value("resourceVersion", "");
        internal::MutableMetadata(next)["resourceVersion"] =
            rv.empty() ? current.at("metadata").value("resourceVersion", "")
                       : rv;
        next["spec"]["replicas"] = spec["replicas"];
        return next;
      },
      OwnWrite(*dry));
  if (!result.ok()) return result.status();
  w.SendJson(200, ScaleOf(*result->object), {});
  return absl::OkStatus();
}

}  // namespace draplane::apiserver::internal
