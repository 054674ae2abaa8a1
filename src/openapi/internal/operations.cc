#include "openapi/internal/operations.h"

#include <cctype>
#include <initializer_list>
#include <string>
#include <vector>

#include "api/object.h"
#include "openapi/internal/upstream_docs.h"

namespace draplane::openapi::internal {
namespace {

constexpr char kMeta[] = "io.k8s.apimachinery.pkg.apis.meta.v1.";
constexpr char kJsonType[] = "application/json";

std::string Meta(std::string_view name) { return kMeta + std::string(name); }

// One query parameter described by a field of an apimachinery options type
// (ListOptions, CreateOptions, ...), as upstream derives its parameters.
Schema OptionParameter(std::string_view options, std::string_view name) {
  std::string type = "string";
  std::string description;
  if (const UpstreamType* t = FindUpstreamType(Meta(options))) {
    if (const UpstreamField* f = t->FindField(name)) {
      description = std::string(f->description);
      if (f->shape == "bool") type = "boolean";
      if (f->shape == "int32" || f->shape == "int64") type = "integer";
    }
  }
  Schema p = {{"in", "query"},
              {"name", name},
              {"schema", {{"type", type}, {"uniqueItems", true}}}};
  if (!description.empty()) p["description"] = description;
  return p;
}

Schema Parameters(std::string_view options,
                  std::initializer_list<std::string_view> names) {
  Schema out = Schema::array();
  for (std::string_view name : names) {
    out.push_back(OptionParameter(options, name));
  }
  return out;
}

Schema ListParameters() {
  return Parameters(
      "ListOptions",
      {"allowWatchBookmarks", "continue", "fieldSelector", "labelSelector",
       "limit", "resourceVersion", "resourceVersionMatch", "sendInitialEvents",
       "timeoutSeconds", "watch"});
}

Schema WriteParameters(std::string_view options) {
  return Parameters(options, {"dryRun", "fieldManager", "fieldValidation"});
}

Schema PatchParameters() {
  return Parameters("PatchOptions",
                    {"dryRun", "fieldManager", "fieldValidation", "force"});
}

Schema DeleteParameters() {
  return Parameters("DeleteOptions",
                    {"dryRun", "gracePeriodSeconds",
                     "ignoreStoreReadErrorWithClusterBreakingPotential",
                     "orphanDependents", "propagationPolicy"});
}

Schema DeleteCollectionParameters() {
  Schema out = Schema::array();
  for (const char* name :
       {"continue", "dryRun", "fieldSelector", "gracePeriodSeconds",
        "ignoreStoreReadErrorWithClusterBreakingPotential", "labelSelector",
        "limit", "orphanDependents", "propagationPolicy", "resourceVersion",
        "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds"}) {
    std::string_view n = name;
    const bool delete_option =
        n == "dryRun" || n == "gracePeriodSeconds" ||
        n == "ignoreStoreReadErrorWithClusterBreakingPotential" ||
        n == "orphanDependents" || n == "propagationPolicy";
    out.push_back(
        OptionParameter(delete_option ? "DeleteOptions" : "ListOptions", n));
  }
  return out;
}

Schema PathParameter(std::string_view name, std::string_view description) {
  return {{"description", description},
          {"in", "path"},
          {"name", name},
          {"required", true},
          {"schema", {{"type", "string"}, {"uniqueItems", true}}}};
}

Schema PrettyParameter() {
  return {{"description", "If 'true', then the output is pretty printed."},
          {"in", "query"},
          {"name", "pretty"},
          {"schema", {{"type", "string"}, {"uniqueItems", true}}}};
}

Schema Content(std::string_view model, bool watch = false) {
  Schema content = {{kJsonType, {{"schema", RefSchema(model)}}}};
  if (watch) {
    content["application/json;stream=watch"] = {{"schema", RefSchema(model)}};
  }
  return content;
}

// Responses with the given codes, each returning `model`.
Schema Responses(std::string_view model, std::initializer_list<int> codes,
                 bool watch = false) {
  Schema out = {{"401", {{"description", "Unauthorized"}}}};
  for (int code : codes) {
    const char* text = code == 200   ? "OK"
                       : code == 201 ? "Created"
                                     : "Accepted";
    out[std::to_string(code)] = {{"content", Content(model, watch)},
                                 {"description", text}};
  }
  return out;
}

Schema RequestBody(std::string_view model) {
  return {{"content", {{"*/*", {{"schema", RefSchema(model)}}}}},
          {"required", true}};
}

// The four patch media types draplane's PATCH accepts (kubectl looks for
// application/strategic-merge-patch+json before computing a strategic
// merge patch from these documents).
Schema PatchRequestBody() {
  Schema content = Schema::object();
  for (const char* type :
       {"application/apply-patch+yaml", "application/json-patch+json",
        "application/merge-patch+json",
        "application/strategic-merge-patch+json"}) {
    content[type] = {{"schema", RefSchema(Meta("Patch"))}};
  }
  return {{"content", std::move(content)}, {"required", true}};
}

std::string Capitalize(std::string_view s) {
  std::string out(s);
  if (!out.empty()) {
    out[0] =
        static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  }
  return out;
}

// "a Pod", "an Event", as upstream's operation descriptions.
std::string WithArticle(std::string_view kind) {
  const bool vowel = !kind.empty() && std::string_view("AEIOU").find(kind[0]) !=
                                          std::string_view::npos;
  return (vowel ? "an " : "a ") + std::string(kind);
}

struct Resource {
  std::string group, version, kind, plural;
  bool namespaced = false;
  std::string model, list_model;
  std::string tag;       // "core_v1", "resource_v1beta1"
  std::string id_infix;  // "CoreV1", "ResourceV1beta1"
};

Schema Gvk(std::string_view group, std::string_view version,
           std::string_view kind) {
  return {{"group", group}, {"kind", kind}, {"version", version}};
}

Schema Operation(const Resource& r, std::string_view action,
                 std::string_view description, std::string operation_id,
                 const Schema& gvk) {
  return {{"description", description},
          {"operationId", std::move(operation_id)},
          {"tags", Schema::array({r.tag})},
          {"x-kubernetes-action", action},
          {"x-kubernetes-group-version-kind", gvk}};
}

// The group, version and model of what a subresource takes.
struct SubresourceKind {
  std::string group, version, model;
};

// The path item of a subresource that only takes a POST of `kind` (pods'
// binding, serviceaccounts' token).
Schema CreateOnly(const Resource& r, Schema params, const std::string& kind,
                  const std::string& description, std::string operation_id,
                  const SubresourceKind& what) {
  Schema item = Schema::object();
  params[0] = PathParameter("name", "name of the " + kind);
  item["parameters"] = std::move(params);
  Schema op = Operation(r, "post", description, std::move(operation_id),
                        Gvk(what.group, what.version, kind));
  op["parameters"] = WriteParameters("CreateOptions");
  op["requestBody"] = RequestBody(what.model);
  op["responses"] = Responses(what.model, {200, 201, 202});
  item["post"] = std::move(op);
  return item;
}

void AddResource(const Resource& r, Paths& out) {
  const std::string prefix = r.group.empty()
                                 ? "/api/" + r.version
                                 : "/apis/" + r.group + "/" + r.version;
  const std::string ns = r.namespaced ? "Namespaced" : "";
  const std::string base =
      prefix + (r.namespaced ? "/namespaces/{namespace}/" : "/") + r.plural;
  const Schema gvk = Gvk(r.group, r.version, r.kind);
  const std::string& k = r.kind;
  auto id = [&](std::string_view verb, std::string_view middle,
                std::string_view suffix = "") {
    return std::string(verb) + r.id_infix + std::string(middle) + ns + k +
           std::string(suffix);
  };
  Schema scope = Schema::array();
  if (r.namespaced) {
    scope.push_back(PathParameter(
        "namespace",
        "object name and auth scope, such as for teams and projects"));
  }

  // The collection.
  Schema collection = Schema::object();
  {
    Schema params = scope;
    params.push_back(PrettyParameter());
    collection["parameters"] = std::move(params);
    Schema list = Operation(r, "list", "list or watch objects of kind " + k,
                            id("list", ""), gvk);
    list["parameters"] = ListParameters();
    list["responses"] = Responses(r.list_model, {200}, /*watch=*/true);
    collection["get"] = std::move(list);
    Schema create =
        Operation(r, "post", "create " + WithArticle(k), id("create", ""), gvk);
    create["parameters"] = WriteParameters("CreateOptions");
    create["requestBody"] = RequestBody(r.model);
    create["responses"] = Responses(r.model, {200, 201, 202});
    collection["post"] = std::move(create);
    Schema remove =
        Operation(r, "deletecollection", "delete collection of " + k,
                  id("delete", "Collection"), gvk);
    remove["parameters"] = DeleteCollectionParameters();
    remove["requestBody"] = RequestBody(Meta("DeleteOptions"));
    remove["responses"] = Responses(Meta("Status"), {200});
    collection["delete"] = std::move(remove);
  }
  out.paths[base] = std::move(collection);

  // One object.
  Schema item_params =
      Schema::array({PathParameter("name", "name of the " + k)});
  for (const Schema& p : scope) item_params.push_back(p);
  item_params.push_back(PrettyParameter());
  const std::string item_path = base + "/{name}";
  auto add_object_ops = [&](const std::string& path, std::string_view sub,
                            const std::string& model, const Schema& op_gvk,
                            const Schema& params, bool read, bool write,
                            bool patch, bool remove) {
    Schema item = Schema::object();
    item["parameters"] = params;
    const std::string sub_id = Capitalize(sub);
    const std::string of = sub.empty() ? "" : std::string(sub) + " of ";
    if (read) {
      Schema op = Operation(r, "get", "read " + of + "the specified " + k,
                            id("read", "", sub_id), op_gvk);
      op["responses"] = Responses(model, {200});
      item["get"] = std::move(op);
    }
    if (write) {
      Schema op = Operation(r, "put", "replace " + of + "the specified " + k,
                            id("replace", "", sub_id), op_gvk);
      op["parameters"] = WriteParameters("UpdateOptions");
      op["requestBody"] = RequestBody(model);
      op["responses"] = Responses(model, {200, 201});
      item["put"] = std::move(op);
    }
    if (patch) {
      Schema op =
          Operation(r, "patch", "partially update " + of + "the specified " + k,
                    id("patch", "", sub_id), op_gvk);
      op["parameters"] = PatchParameters();
      op["requestBody"] = PatchRequestBody();
      op["responses"] = Responses(model, {200, 201});
      item["patch"] = std::move(op);
    }
    if (remove) {
      Schema op = Operation(r, "delete", "delete " + WithArticle(k),
                            id("delete", ""), op_gvk);
      op["parameters"] = DeleteParameters();
      op["requestBody"] = RequestBody(Meta("DeleteOptions"));
      op["responses"] = Responses(model, {200, 202});
      item["delete"] = std::move(op);
    }
    out.paths[path] = std::move(item);
  };
  add_object_ops(item_path, "", r.model, gvk, item_params, true, true, true,
                 true);

  for (std::string_view sub : ServedSubresources(r.group, r.kind)) {
    const std::string path = item_path + "/" + std::string(sub);
    if (sub == "status") {
      add_object_ops(path, sub, r.model, gvk, item_params, true, true, true,
                     false);
    } else if (sub == "scale") {
      const std::string scale = "io.k8s.api.autoscaling.v1.Scale";
      Schema params = item_params;
      params[0] = PathParameter("name", "name of the Scale");
      add_object_ops(path, sub, scale, Gvk("autoscaling", "v1", "Scale"),
                     params, true, true, true, false);
      out.models.insert(scale);
    } else if (sub == "finalize") {
      Schema item = Schema::object();
      item["parameters"] = item_params;
      Schema op = Operation(r, "put", "replace finalize of the specified " + k,
                            id("replace", "", "Finalize"), gvk);
      op["parameters"] = WriteParameters("UpdateOptions");
      op["requestBody"] = RequestBody(r.model);
      op["responses"] = Responses(r.model, {200, 201});
      item["put"] = std::move(op);
      out.paths[path] = std::move(item);
    } else if (sub == "binding") {
      out.paths[path] = CreateOnly(r, item_params, "Binding",
                                   "create binding of " + WithArticle(k),
                                   id("create", "", "Binding"),
                                   {"", "v1", "io.k8s.api.core.v1.Binding"});
      out.models.insert("io.k8s.api.core.v1.Binding");
    } else if (sub == "token") {
      const std::string request = "io.k8s.api.authentication.v1.TokenRequest";
      out.paths[path] = CreateOnly(
          r, item_params, "TokenRequest", "create token of " + WithArticle(k),
          id("create", "", "Token"), {"authentication.k8s.io", "v1", request});
      out.models.insert(request);
    }
  }

  if (r.namespaced) {  // listing across namespaces
    Schema all = Schema::object();
    Schema params = ListParameters();
    params.push_back(PrettyParameter());
    all["parameters"] = std::move(params);
    Schema list = Operation(r, "list", "list or watch objects of kind " + k,
                            "list" + r.id_infix + k + "ForAllNamespaces", gvk);
    list["responses"] = Responses(r.list_model, {200}, /*watch=*/true);
    all["get"] = std::move(list);
    out.paths[prefix + "/" + r.plural] = std::move(all);
  }
}

}  // namespace

const std::vector<std::string_view>& ServedSubresources(std::string_view group,
                                                        std::string_view kind) {
  static const auto* none = new std::vector<std::string_view>;
  static const auto* status = new std::vector<std::string_view>{"status"};
  static const auto* ns =
      new std::vector<std::string_view>{"status", "finalize"};
  static const auto* pod =
      new std::vector<std::string_view>{"binding", "status"};
  static const auto* token = new std::vector<std::string_view>{"token"};
  static const auto* scalable =
      new std::vector<std::string_view>{"scale", "status"};
  if (group == "resource.k8s.io") {
    return kind == "ResourceClaim" || kind == "DeviceTaintRule" ? *status
                                                                : *none;
  }
  if (group.empty()) {
    if (kind == "Namespace") return *ns;
    if (kind == "Pod") return *pod;
    if (kind == "Node" || kind == "ResourceQuota") return *status;
    if (kind == "ServiceAccount") return *token;
    return *none;
  }
  if (group == "apps" && kind == "Deployment") return *scalable;
  if (group == "batch" && kind == "Job") return *status;
  return *none;
}

Paths BuildPaths(std::string_view group, std::string_view version) {
  Paths out;
  out.models = {Meta("DeleteOptions"), Meta("Status"), Meta("Patch")};
  const std::string group_label =
      group.empty() ? "core" : std::string(group.substr(0, group.find('.')));
  for (const api::KindInfo& kind : api::ServedKinds()) {
    if (kind.group != group) continue;
    bool served = false;
    for (std::string_view v : kind.versions) served = served || v == version;
    if (!served) continue;
    Resource r;
    r.group = std::string(group);
    r.version = std::string(version);
    r.kind = std::string(kind.kind);
    r.plural = std::string(kind.resource);
    r.namespaced = kind.namespaced;
    r.model = KindModelName(group, version, kind.kind);
    r.list_model = r.model + "List";
    r.tag = group_label + "_" + std::string(version);
    r.id_infix = Capitalize(group_label) + Capitalize(version);
    AddResource(r, out);
  }
  return out;
}

}  // namespace draplane::openapi::internal
