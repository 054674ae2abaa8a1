// GET of one object (and a Deployment's scale) and of a collection
// (upstream's handlers/get.go).
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "apiserver/internal/api_errors.h"
#include "apiserver/internal/handlers.h"
#include "apiserver/internal/negotiation.h"
#include "apiserver/internal/request_scope.h"
#include "common/str_cat.h"

namespace draplane::apiserver::internal {

absl::Status Handlers::Get(const http::HttpRequest& req, const Target& t,
                           Responder& w) {
  auto object = registry_.Get(*t.resource, t.namespace_, t.name);
  if (!object.ok()) return object.status();
  if (t.subresource == "scale") {
    w.SendJson(200, ScaleOf(*object), {});
    return absl::OkStatus();
  }
  return SendObject(req, t, std::make_shared<const Json>(*std::move(object)),
                    200, {}, w);
}

absl::Status Handlers::List(const http::HttpRequest& req, const Target& t,
                            Responder& w) {
  internal::ListQuery q;
  q.namespace_ = t.namespace_;
  auto filter = Filter(req, t);
  if (!filter.ok()) return filter.status();
  q.filter = *filter;
  if (req.HasQuery("limit")) {
    int64_t limit = 0;
    if (!absl::SimpleAtoi(req.Query("limit"), &limit) || limit < 0) {
      return internal::BadRequest(
          StrCat("invalid limit: ", req.Query("limit")));
    }
    q.limit = limit;
  }
  q.continue_token = req.Query("continue");
  q.resource_version = req.Query("resourceVersion");
  q.resource_version_match = req.Query("resourceVersionMatch");
  auto result = registry_.List(*t.resource, q);
  if (!result.ok()) return result.status();
  const std::string rv = std::to_string(result->revision);
  const Negotiated n = Negotiate(req.Header("accept"));
  if (n.table) {
    auto table = Table(req, t, result->items, rv, result->continue_token, n);
    if (!table.ok()) return table.status();
    w.SendJson(200, *table, {});
    return absl::OkStatus();
  }
  Json items = Json::array();
  for (const Json& item : result->items) {
    auto v = ToVersion(*t.resource, item, t.version);
    if (!v.ok()) return v.status();
    items.push_back(*std::move(v));
  }
  Json meta{{"resourceVersion", rv}};
  if (!result->continue_token.empty()) {
    meta["continue"] = result->continue_token;
    if (result->remaining) meta["remainingItemCount"] = *result->remaining;
  }
  w.SendJson(200,
             Json{{"kind", t.resource->ListKind()},
                  {"apiVersion", t.resource->ApiVersion(t.version)},
                  {"metadata", std::move(meta)},
                  {"items", std::move(items)}},
             {});
  return absl::OkStatus();
}

}  // namespace draplane::apiserver::internal
