#include "apiserver/internal/discovery.h"

#include "apiserver/internal/resources.h"
#include "common/str_cat.h"

namespace draplane::apiserver::internal {
namespace {

using api::Json;

const Json& ObjectVerbs() {
  static const Json* verbs =
      new Json(Json::array({"create", "delete", "deletecollection", "get",
                            "list", "patch", "update", "watch"}));
  return *verbs;
}

std::string GroupVersion(std::string_view group, std::string_view version) {
  return group.empty() ? std::string(version) : StrCat(group, "/", version);
}

// The kind a subresource answers with, and its verbs.
struct SubresourceShape {
  Json response_kind;
  Json verbs;
};

SubresourceShape Shape(const ResourceInfo& r, std::string_view version,
                       std::string_view sub) {
  if (sub == "binding") {
    return {Json{{"group", ""}, {"version", "v1"}, {"kind", "Binding"}},
            Json::array({"create"})};
  }
  if (sub == "token") {
    return {Json{{"group", "authentication.k8s.io"},
                 {"version", "v1"},
                 {"kind", "TokenRequest"}},
            Json::array({"create"})};
  }
  if (sub == "scale") {
    return {
        Json{{"group", "autoscaling"}, {"version", "v1"}, {"kind", "Scale"}},
        Json::array({"get", "patch", "update"})};
  }
  Json kind{{"group", std::string(r.group())},
            {"version", std::string(version)},
            {"kind", std::string(r.kind->kind)}};
  if (sub == "finalize") return {kind, Json::array({"update"})};
  return {kind, Json::array({"get", "patch", "update"})};
}

Json ResourceDiscovery(const ResourceInfo& r, std::string_view version) {
  Json d = Json::object();
  d["resource"] = std::string(r.resource());
  d["responseKind"] = Json{{"group", std::string(r.group())},
                           {"version", std::string(version)},
                           {"kind", std::string(r.kind->kind)}};
  d["scope"] = r.namespaced() ? "Namespaced" : "Cluster";
  d["singularResource"] = r.singular;
  d["verbs"] = ObjectVerbs();
  if (!r.short_names.empty()) d["shortNames"] = r.short_names;
  if (!r.categories.empty()) d["categories"] = r.categories;
  if (!r.subresources.empty()) {
    Json subs = Json::array();
    for (const std::string& sub : r.subresources) {
      SubresourceShape shape = Shape(r, version, sub);
      subs.push_back(Json{{"subresource", sub},
                          {"responseKind", shape.response_kind},
                          {"verbs", shape.verbs}});
    }
    d["subresources"] = std::move(subs);
  }
  return d;
}

// The review kinds: served by create only, never stored
// (review_handlers.cc), listed in discovery as kube-apiserver lists them so
// that clients map their kinds (`kubectl create -f review.yaml`).
struct ReviewResource {
  const char* group;
  const char* resource;
  const char* singular;
  const char* kind;
  bool namespaced;
};

constexpr ReviewResource kReviewResources[] = {
    {"authentication.k8s.io", "selfsubjectreviews", "selfsubjectreview",
     "SelfSubjectReview", false},
    {"authentication.k8s.io", "tokenreviews", "tokenreview", "TokenReview",
     false},
    {"authorization.k8s.io", "localsubjectaccessreviews",
     "localsubjectaccessreview", "LocalSubjectAccessReview", true},
    {"authorization.k8s.io", "selfsubjectaccessreviews",
     "selfsubjectaccessreview", "SelfSubjectAccessReview", false},
    {"authorization.k8s.io", "selfsubjectrulesreviews",
     "selfsubjectrulesreview", "SelfSubjectRulesReview", false},
    {"authorization.k8s.io", "subjectaccessreviews", "subjectaccessreview",
     "SubjectAccessReview", false},
};
constexpr const char* kReviewGroups[] = {"authentication.k8s.io",
                                         "authorization.k8s.io"};
constexpr char kReviewVersion[] = "v1";

Json ReviewDiscovery(const ReviewResource& r) {
  return Json{
      {"resource", r.resource},
      {"responseKind",
       Json{{"group", r.group}, {"version", kReviewVersion}, {"kind", r.kind}}},
      {"scope", r.namespaced ? "Namespaced" : "Cluster"},
      {"singularResource", r.singular},
      {"verbs", Json::array({"create"})}};
}

bool IsReviewGroup(std::string_view group) {
  for (const char* g : kReviewGroups) {
    if (group == g) return true;
  }
  return false;
}

}  // namespace

bool AcceptsAggregatedDiscovery(std::string_view accept) {
  // Each media range: application/json;g=apidiscovery.k8s.io;v=v2;as=...
  size_t start = 0;
  while (start <= accept.size()) {
    size_t end = accept.find(',', start);
    if (end == std::string_view::npos) end = accept.size();
    std::string_view range = accept.substr(start, end - start);
    if (range.find("g=apidiscovery.k8s.io") != std::string_view::npos &&
        range.find("v=v2") != std::string_view::npos &&
        range.find("as=APIGroupDiscoveryList") != std::string_view::npos &&
        range.find("v=v2beta1") == std::string_view::npos) {
      return true;
    }
    start = end + 1;
  }
  return false;
}

Json AggregatedDiscovery(bool core) {
  Json items = Json::array();
  for (const GroupVersions& g : Groups()) {
    if (g.group.empty() != core) continue;
    Json versions = Json::array();
    for (const std::string& v : g.versions) {
      Json resources = Json::array();
      for (const ResourceInfo& r : Resources()) {
        if (r.group() == g.group && r.ServesVersion(v)) {
          resources.push_back(ResourceDiscovery(r, v));
        }
      }
      versions.push_back(Json{{"version", v},
                              {"resources", std::move(resources)},
                              {"freshness", "Current"}});
    }
    Json item = Json::object();
    item["metadata"] = Json{{"name", g.group}, {"creationTimestamp", nullptr}};
    item["versions"] = std::move(versions);
    items.push_back(std::move(item));
  }
  for (const char* group : kReviewGroups) {
    if (core) break;
    Json resources = Json::array();
    for (const ReviewResource& r : kReviewResources) {
      if (std::string_view(r.group) == group) {
        resources.push_back(ReviewDiscovery(r));
      }
    }
    items.push_back(Json{
        {"metadata", Json{{"name", group}, {"creationTimestamp", nullptr}}},
        {"versions", Json::array({Json{{"version", kReviewVersion},
                                       {"resources", std::move(resources)},
                                       {"freshness", "Current"}}})}});
  }
  return Json{{"kind", "APIGroupDiscoveryList"},
              {"apiVersion", "apidiscovery.k8s.io/v2"},
              {"metadata", Json::object()},
              {"items", std::move(items)}};
}

Json LegacyApiVersions() {
  return Json{{"kind", "APIVersions"},
              {"versions", Json::array({"v1"})},
              {"serverAddressByClientCIDRs",
               Json::array({Json{{"clientCIDR", "0.0.0.0/0"},
                                 {"serverAddress", ""}}})}};
}

std::optional<Json> LegacyApiGroup(std::string_view group) {
  if (IsReviewGroup(group)) {
    Json version{{"groupVersion", GroupVersion(group, kReviewVersion)},
                 {"version", kReviewVersion}};
    return Json{{"kind", "APIGroup"},
                {"apiVersion", "v1"},
                {"name", std::string(group)},
                {"versions", Json::array({version})},
                {"preferredVersion", version}};
  }
  for (const GroupVersions& g : Groups()) {
    if (g.group.empty() || g.group != group) continue;
    Json versions = Json::array();
    for (const std::string& v : g.versions) {
      versions.push_back(
          Json{{"groupVersion", GroupVersion(g.group, v)}, {"version", v}});
    }
    return Json{{"kind", "APIGroup"},
                {"apiVersion", "v1"},
                {"name", g.group},
                {"versions", versions},
                {"preferredVersion", versions.front()}};
  }
  return std::nullopt;
}

Json LegacyApiGroupList() {
  Json groups = Json::array();
  for (const GroupVersions& g : Groups()) {
    if (g.group.empty()) continue;
    Json group = *LegacyApiGroup(g.group);
    group.erase("kind");
    group.erase("apiVersion");
    groups.push_back(std::move(group));
  }
  for (const char* name : kReviewGroups) {
    Json group = *LegacyApiGroup(name);
    group.erase("kind");
    group.erase("apiVersion");
    groups.push_back(std::move(group));
  }
  return Json{{"kind", "APIGroupList"},
              {"apiVersion", "v1"},
              {"groups", std::move(groups)}};
}

std::optional<Json> LegacyResourceList(std::string_view group,
                                       std::string_view version) {
  Json resources = Json::array();
  bool served = false;
  if (IsReviewGroup(group) && version == kReviewVersion) {
    served = true;
    for (const ReviewResource& r : kReviewResources) {
      if (std::string_view(r.group) != group) continue;
      resources.push_back(Json{{"name", r.resource},
                               {"singularName", r.singular},
                               {"namespaced", r.namespaced},
                               {"kind", r.kind},
                               {"verbs", Json::array({"create"})}});
    }
  }
  for (const ResourceInfo& r : Resources()) {
    if (r.group() != group || !r.ServesVersion(version)) continue;
    served = true;
    Json item = Json::object();
    item["name"] = std::string(r.resource());
    item["singularName"] = r.singular;
    item["namespaced"] = r.namespaced();
    item["kind"] = std::string(r.kind->kind);
    item["verbs"] = ObjectVerbs();
    if (!r.short_names.empty()) item["shortNames"] = r.short_names;
    if (!r.categories.empty()) item["categories"] = r.categories;
    resources.push_back(std::move(item));
    for (const std::string& sub : r.subresources) {
      SubresourceShape shape = Shape(r, version, sub);
      Json s = Json::object();
      s["name"] = StrCat(r.resource(), "/", sub);
      s["singularName"] = "";
      s["namespaced"] = r.namespaced();
      if (!shape.response_kind["group"].get<std::string>().empty() &&
          shape.response_kind["group"] != std::string(group)) {
        s["group"] = shape.response_kind["group"];
        s["version"] = shape.response_kind["version"];
      }
      s["kind"] = shape.response_kind["kind"];
      s["verbs"] = shape.verbs;
      resources.push_back(std::move(s));
    }
  }
  if (!served) return std::nullopt;
  return Json{{"kind", "APIResourceList"},
              {"apiVersion", "v1"},
              {"groupVersion", GroupVersion(group, version)},
              {"resources", std::move(resources)}};
}

}  // namespace draplane::apiserver::internal
