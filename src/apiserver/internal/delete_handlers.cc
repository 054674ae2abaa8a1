// DELETE of an object and of a collection, with DeleteOptions (upstream's
// handlers/delete.go).
#include <memory>
#include <string>
#include <utility>

#include "api/manifest.h"
#include "apiserver/internal/api_errors.h"
#include "apiserver/internal/garbage_collector.h"
#include "apiserver/internal/handlers.h"
#include "apiserver/internal/negotiation.h"
#include "apiserver/internal/request_scope.h"
#include "common/str_cat.h"

namespace draplane::apiserver::internal {

absl::StatusOr<internal::DeleteOptions> Handlers::DeleteOptionsOf(
    const http::HttpRequest& req, const Target& t) {
  internal::DeleteOptions options;
  options.user = t.user;
  auto dry = ParseDryRun(req);
  if (!dry.ok()) return dry.status();
  options.dry_run = *dry;
  if (!req.body.empty()) {
    auto body = api::ParseJsonText(req.body, "request body");
    if (!body.ok() || !body->is_object()) {
      return internal::BadRequest("the body of DeleteOptions is invalid");
    }
    if (body->contains("dryRun")) {
      for (const Json& v : (*body)["dryRun"]) {
        if (v != "All") {
          return internal::BadRequest("Invalid dry run value");
        }
        options.dry_run = true;
      }
    }
    if (body->contains("propagationPolicy") &&
        (*body)["propagationPolicy"].is_string()) {
      options.propagation = (*body)["propagationPolicy"].get<std::string>();
    }
    if (body->contains("orphanDependents") &&
        (*body)["orphanDependents"].is_boolean() &&
        options.propagation.empty()) {
      options.propagation =
          (*body)["orphanDependents"].get<bool>() ? "Orphan" : "Background";
    }
    if (body->contains("preconditions") &&
        (*body)["preconditions"].is_object()) {
      const Json& p = (*body)["preconditions"];
      if (p.contains("uid") && p["uid"].is_string()) {
        options.precondition_uid = p["uid"].get<std::string>();
      }
      if (p.contains("resourceVersion") && p["resourceVersion"].is_string()) {
        options.precondition_resource_version =
            p["resourceVersion"].get<std::string>();
      }
    }
  }
  if (req.HasQuery("propagationPolicy")) {
    options.propagation = req.Query("propagationPolicy");
  }
  if (!options.propagation.empty() && options.propagation != "Background" &&
      options.propagation != "Foreground" && options.propagation != "Orphan") {
    return internal::ApiError(
        422, "Invalid",
        StrCat("DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: "
               "Unsupported value: \"",
               options.propagation,
               "\": supported values: \"Foreground\", \"Background\", "
               "\"Orphan\", \"nil\""));
  }
  return options;
}

absl::Status Handlers::Delete(const http::HttpRequest& req, const Target& t,
                              Responder& w) {
  auto options = DeleteOptionsOf(req, t);
  if (!options.ok()) return options.status();
  auto object = registry_.Delete(*t.resource, t.namespace_, t.name, *options);
  if (!object.ok()) return object.status();
  if (t.resource->kind->kind == "Namespace" && !options->dry_run) {
    internal::FinalizeNamespaces(registry_);
    if (auto again = registry_.Get(*t.resource, "", t.name); again.ok()) {
      *object = *std::move(again);
    }
  }
  return SendObject(req, t, std::make_shared<const Json>(*std::move(object)),
                    200, {}, w);
}

absl::Status Handlers::DeleteCollection(const http::HttpRequest& req,
                                        const Target& t, Responder& w) {
  auto options = DeleteOptionsOf(req, t);
  if (!options.ok()) return options.status();
  internal::ListQuery q;
  q.namespace_ = t.namespace_;
  auto filter = Filter(req, t);
  if (!filter.ok()) return filter.status();
  q.filter = *filter;
  auto list = registry_.List(*t.resource, q);
  if (!list.ok()) return list.status();
  Json items = Json::array();
  for (const Json& item : list->items) {
    auto deleted = registry_.Delete(*t.resource, internal::NamespaceOf(item),
                                    internal::NameOf(item), *options);
    if (!deleted.ok() && !absl::IsNotFound(deleted.status())) {
      return deleted.status();
    }
    if (deleted.ok()) {
      auto v = ToVersion(*t.resource, *deleted, t.version);
      if (v.ok()) items.push_back(*std::move(v));
    }
  }
  w.SendJson(
      200,
      Json{{"kind", t.resource->ListKind()},
           {"apiVersion", t.resource->ApiVersion(t.version)},
           {"metadata", Json{{"resourceVersion",
                              std::to_string(registry_.store().Revision())}}},
           {"items", std::move(items)}},
      {});
  return absl::OkStatus();
}

}  // namespace draplane::apiserver::internal
