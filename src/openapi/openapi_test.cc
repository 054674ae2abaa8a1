#include "openapi/openapi.h"

#include <openssl/sha.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "api/object.h"
#include "common/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "openapi/internal/component_schemas.h"
#include "openapi/internal/operations.h"
#include "openapi/internal/upstream_docs.h"
#include "patch/patch.h"

namespace draplane::openapi {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;
using Json = nlohmann::json;

constexpr char kRefPrefix[] = "#/components/schemas/";

const std::vector<std::string> kPatchTypes = {
    "application/apply-patch+yaml", "application/json-patch+json",
    "application/merge-patch+json", "application/strategic-merge-patch+json"};

std::string GroupVersionKey(std::string_view group, std::string_view version) {
  return group.empty()
             ? "api/" + std::string(version)
             : "apis/" + std::string(group) + "/" + std::string(version);
}

std::string PathPrefix(std::string_view group, std::string_view version) {
  return "/" + GroupVersionKey(group, version);
}

const Json& Document(std::string_view gv) {
  static auto* cache = new std::map<std::string, Json, std::less<>>;
  auto it = cache->find(gv);
  if (it == cache->end()) {
    const OpenApiDocument* doc = OpenApiV3Document(gv);
    EXPECT_NE(doc, nullptr) << gv;
    it = cache
             ->emplace(std::string(gv),
                       doc == nullptr ? Json() : Json::parse(doc->bytes))
             .first;
  }
  return it->second;
}

const Json& Schemas(std::string_view gv) {
  return Document(gv)["components"]["schemas"];
}

// The schema a property or item refers to: $ref, or allOf[0].$ref, as
// kubectl's strategicpatch.PatchMetaFromOpenAPIV3 resolves it.
const Json* Resolve(const Json& schemas, const Json& schema) {
  const Json* s = &schema;
  if (s->contains("allOf")) s = &(*s)["allOf"][0];
  if (s->contains("$ref")) {
    std::string ref = (*s)["$ref"];
    auto it = schemas.find(ref.substr(std::string(kRefPrefix).size()));
    return it == schemas.end() ? nullptr : &*it;
  }
  return s;
}

std::string Sha512Hex(const std::string& bytes) {
  unsigned char digest[SHA512_DIGEST_LENGTH];
  SHA512(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
         digest);
  std::string out;
  char buf[3];
  for (unsigned char b : digest) {
    std::snprintf(buf, sizeof buf, "%02X", b);
    out += buf;
  }
  return out;
}

// Every $ref in `j`.
void CollectRefs(const Json& j, std::vector<std::string>& out) {
  if (j.is_object()) {
    for (auto& [k, v] : j.items()) {
      if (k == "$ref" && v.is_string()) {
        out.push_back(v);
      } else {
        CollectRefs(v, out);
      }
    }
  } else if (j.is_array()) {
    for (const Json& v : j) CollectRefs(v, out);
  }
}

struct ServedGv {
  std::string group, version;
};

std::vector<ServedGv> ServedGroupVersions() {
  std::vector<ServedGv> out;
  for (const api::KindInfo& k : api::ServedKinds()) {
    for (std::string_view v : k.versions) {
      bool seen = false;
      for (const ServedGv& gv : out) {
        seen = seen || (gv.group == k.group && gv.version == v);
      }
      if (!seen) out.push_back({std::string(k.group), std::string(v)});
    }
  }
  return out;
}

TEST(OpenApiTest, GroupVersions) {
  EXPECT_THAT(
      OpenApiV3GroupVersions(),
      ElementsAre("api/v1", "apis/resource.k8s.io/v1",
                  "apis/resource.k8s.io/v1beta2",
                  "apis/resource.k8s.io/v1beta1", "apis/coordination.k8s.io/v1",
                  "apis/apps/v1", "apis/batch/v1",
                  "apis/rbac.authorization.k8s.io/v1"));
  EXPECT_EQ(OpenApiV3Document("apis/resource.k8s.io/v1alpha3"), nullptr);
  EXPECT_EQ(OpenApiV3Document("apis/apps/v1beta1"), nullptr);
  EXPECT_EQ(OpenApiV3Document("/api/v1"), nullptr);
  EXPECT_EQ(OpenApiV3Document(""), nullptr);
}

TEST(OpenApiTest, RootListsEveryDocumentWithItsHash) {
  const api::Json root = OpenApiV3Root();
  ASSERT_EQ(root.size(), 1u);
  const api::Json& paths = root["paths"];
  ASSERT_EQ(paths.size(), OpenApiV3GroupVersions().size());
  for (std::string_view gv : OpenApiV3GroupVersions()) {
    const OpenApiDocument* doc = OpenApiV3Document(gv);
    ASSERT_NE(doc, nullptr);
    EXPECT_EQ(doc->group_version, gv);
    EXPECT_EQ(doc->hash, Sha512Hex(doc->bytes)) << gv;
    EXPECT_EQ(doc->hash.size(), 128u);
    const api::Json& entry = paths[std::string(gv)];
    EXPECT_EQ(
        entry,
        api::Json({{"serverRelativeURL",
                    "/openapi/v3/" + std::string(gv) + "?hash=" + doc->hash}}));
  }
}

TEST(OpenApiTest, Sha512IsUpperCaseHex) {
  // FIPS 180-2 test vector, as kube-openapi formats it (%X).
  EXPECT_EQ(Sha512Hex("abc"),
            "DDAF35A193617ABACC417349AE20413112E6FA4E89A97EA20A9EEEE64B55D39A"
            "2192992A274FC1A836BA3C23A3FEEBBD454D4423643CE80E2A9AC94FA54CA49F");
}

TEST(OpenApiTest, DocumentsAreBuiltOnceAndDeterministic) {
  EXPECT_EQ(OpenApiV3Document("api/v1"), OpenApiV3Document("api/v1"));
  // A fresh build gives the same paths and schemas (the hash is a stable
  // ETag across restarts).
  for (const auto& [group, version] :
       {std::pair<std::string, std::string>{"", "v1"},
        {"resource.k8s.io", "v1beta1"}}) {
    internal::Paths paths = internal::BuildPaths(group, version);
    internal::SchemaMap schemas =
        internal::BuildComponentSchemas(group, version, paths.models);
    const Json& doc = Document(GroupVersionKey(group, version));
    EXPECT_EQ(doc["paths"], paths.paths);
    Json fresh = Json::object();
    for (auto& [model, schema] : schemas) fresh[model] = schema;
    EXPECT_EQ(doc["components"]["schemas"], fresh);
  }
}

TEST(OpenApiTest, RootDocument) {
  const OpenApiDocument& root = OpenApiV3RootDocument();
  EXPECT_EQ(root.group_version, "");
  EXPECT_EQ(Json::parse(root.bytes),
            Json::parse(api::DumpJson(OpenApiV3Root())));
  EXPECT_EQ(root.hash, Sha512Hex(root.bytes));
  EXPECT_EQ(&root, &OpenApiV3RootDocument());
}

TEST(OpenApiTest, DocumentHeader) {
  for (std::string_view gv : OpenApiV3GroupVersions()) {
    const Json& doc = Document(gv);
    EXPECT_EQ(doc["openapi"], "3.0.0");
    EXPECT_EQ(doc["info"],
              Json({{"title", "Kubernetes"}, {"version", "unversioned"}}));
    EXPECT_TRUE(doc["paths"].is_object());
    EXPECT_TRUE(doc["components"]["schemas"].is_object());
  }
}

TEST(OpenApiTest, EveryRefResolves) {
  for (std::string_view gv : OpenApiV3GroupVersions()) {
    std::vector<std::string> refs;
    CollectRefs(Document(gv), refs);
    EXPECT_GT(refs.size(), 10u);
    for (const std::string& ref : refs) {
      ASSERT_EQ(ref.rfind(kRefPrefix, 0), 0u) << ref;
      EXPECT_TRUE(
          Schemas(gv).contains(ref.substr(std::string(kRefPrefix).size())))
          << gv << ": dangling " << ref;
    }
  }
}

// Every schema is referenced from the paths, directly or not.
TEST(OpenApiTest, NoUnreferencedSchemas) {
  for (std::string_view gv : OpenApiV3GroupVersions()) {
    const Json& schemas = Schemas(gv);
    std::set<std::string> reached;
    std::vector<std::string> todo;
    CollectRefs(Document(gv)["paths"], todo);
    while (!todo.empty()) {
      std::string name = todo.back().substr(std::string(kRefPrefix).size());
      todo.pop_back();
      if (!reached.insert(name).second) continue;
      CollectRefs(schemas[name], todo);
    }
    for (auto& [name, schema] : schemas.items()) {
      EXPECT_TRUE(reached.count(name)) << gv << ": unreferenced " << name;
    }
  }
}

TEST(OpenApiTest, EveryServedKindHasSchemaAndOperations) {
  int kinds = 0;
  for (const api::KindInfo& k : api::ServedKinds()) {
    for (std::string_view version : k.versions) {
      SCOPED_TRACE(std::string(k.kind) + " " + std::string(version));
      const std::string gv = GroupVersionKey(k.group, version);
      const Json& schemas = Schemas(gv);
      const std::string model =
          internal::KindModelName(k.group, version, k.kind);
      const Json gvk = {
          {"group", k.group}, {"kind", k.kind}, {"version", version}};
      ASSERT_TRUE(schemas.contains(model)) << model;
      EXPECT_EQ(schemas[model]["x-kubernetes-group-version-kind"],
                Json::array({gvk}));
      EXPECT_FALSE(schemas[model].value("description", "").empty());
      EXPECT_EQ(schemas[model]["properties"]["apiVersion"]["type"], "string");
      EXPECT_EQ(schemas[model]["properties"]["kind"]["type"], "string");
      EXPECT_TRUE(schemas[model]["properties"].contains("metadata"));
      ASSERT_TRUE(schemas.contains(model + "List"));
      Json list_gvk = gvk;
      list_gvk["kind"] = std::string(k.kind) + "List";
      EXPECT_EQ(schemas[model + "List"]["x-kubernetes-group-version-kind"],
                Json::array({list_gvk}));
      EXPECT_EQ(schemas[model + "List"]["required"], Json::array({"items"}));

      const Json& paths = Document(gv)["paths"];
      const std::string prefix = PathPrefix(k.group, version);
      const std::string base =
          prefix + (k.namespaced ? "/namespaces/{namespace}/" : "/") +
          std::string(k.resource);
      ASSERT_TRUE(paths.contains(base)) << base;
      ASSERT_TRUE(paths.contains(base + "/{name}")) << base;
      EXPECT_EQ(paths[base]["get"]["x-kubernetes-action"], "list");
      EXPECT_EQ(paths[base]["post"]["x-kubernetes-action"], "post");
      EXPECT_EQ(paths[base]["delete"]["x-kubernetes-action"],
                "deletecollection");
      for (const char* m : {"get", "put", "patch", "delete"}) {
        EXPECT_EQ(paths[base + "/{name}"][m]["x-kubernetes-group-version-kind"],
                  gvk)
            << m;
      }
      EXPECT_EQ(paths[base + "/{name}"]["get"]["responses"]["200"]["content"]
                     ["application/json"]["schema"]["$ref"],
                kRefPrefix + model);
      EXPECT_EQ(paths[base]["get"]["responses"]["200"]["content"]
                     ["application/json"]["schema"]["$ref"],
                kRefPrefix + model + "List");
      if (k.namespaced) {
        const std::string all = prefix + "/" + std::string(k.resource);
        ASSERT_TRUE(paths.contains(all));
        EXPECT_EQ(paths[all]["get"]["operationId"],
                  paths[base]["get"]["operationId"].get<std::string>().replace(
                      paths[base]["get"]["operationId"].get<std::string>().find(
                          "Namespaced"),
                      10, "") +
                      "ForAllNamespaces");
      }
      for (std::string_view sub :
           internal::ServedSubresources(k.group, k.kind)) {
        EXPECT_TRUE(paths.contains(base + "/{name}/" + std::string(sub)))
            << sub;
      }
      ++kinds;
    }
  }
  // resource.k8s.io: 4 kinds in 3 versions, DeviceTaintRule in 2; 9 kinds
  // of other groups, 4 of rbac.authorization.k8s.io.
  EXPECT_EQ(kinds, 4 * 3 + 2 + 9 + 4);
}

TEST(OpenApiTest, EveryPatchOperationLetsKubectlUseServerValidationAndSmp) {
  int patches = 0;
  for (std::string_view gv : OpenApiV3GroupVersions()) {
    for (auto& [path, item] : Document(gv)["paths"].items()) {
      for (auto& [method, op] : item.items()) {
        if (method == "parameters") continue;
        SCOPED_TRACE(StrCat(path, " ", method));
        EXPECT_TRUE(op.contains("x-kubernetes-action"));
        EXPECT_TRUE(op["x-kubernetes-group-version-kind"].is_object());
        EXPECT_FALSE(op.value("operationId", "").empty());
        EXPECT_TRUE(op["responses"].contains("200") ||
                    op["responses"].contains("201"));
        if (method != "patch") continue;
        ++patches;
        EXPECT_EQ(op["x-kubernetes-action"], "patch");
        std::vector<std::string> params;
        for (const Json& p : op["parameters"]) {
          EXPECT_EQ(p["in"], "query");
          params.push_back(p["name"]);
        }
        EXPECT_THAT(params, ElementsAre("dryRun", "fieldManager",
                                        "fieldValidation", "force"));
        std::vector<std::string> types;
        for (auto& [type, body] : op["requestBody"]["content"].items()) {
          types.push_back(type);
          EXPECT_EQ(body["schema"]["$ref"],
                    "#/components/schemas/"
                    "io.k8s.apimachinery.pkg.apis.meta.v1.Patch");
        }
        EXPECT_EQ(types, kPatchTypes);
      }
    }
  }
  // 27 kind-versions, 11 status subresources, Deployment's scale.
  EXPECT_EQ(patches, 27 + 11 + 1);
}

TEST(OpenApiTest, PatchOperationShape) {
  const Json& op = Document("apis/resource.k8s.io/v1beta1")
      ["paths"]
      ["/apis/resource.k8s.io/v1beta1/namespaces/{namespace}/"
       "resourceclaims/{name}"]["patch"];
  EXPECT_EQ(op["operationId"], "patchResourceV1beta1NamespacedResourceClaim");
  EXPECT_EQ(op["description"], "partially update the specified ResourceClaim");
  EXPECT_EQ(op["tags"], Json::array({"resource_v1beta1"}));
  EXPECT_EQ(op["x-kubernetes-group-version-kind"],
            Json({{"group", "resource.k8s.io"},
                  {"kind", "ResourceClaim"},
                  {"version", "v1beta1"}}));
  const Json& validation = op["parameters"][2];
  EXPECT_EQ(validation["name"], "fieldValidation");
  EXPECT_EQ(validation["schema"],
            Json({{"type", "string"}, {"uniqueItems", true}}));
  EXPECT_EQ(
      validation["description"].get<std::string>().rfind(
          "fieldValidation instructs the server on how to handle objects", 0),
      0u);
  EXPECT_EQ(op["parameters"][3]["schema"]["type"], "boolean");  // force
  EXPECT_EQ(op["responses"]["201"]["content"]["application/json"]["schema"],
            Json({{"$ref",
                   "#/components/schemas/"
                   "io.k8s.api.resource.v1beta1.ResourceClaim"}}));
}

TEST(OpenApiTest, ListOperationParameters) {
  const Json& op = Document("api/v1")["paths"]["/api/v1/pods"];
  std::vector<std::string> params;
  for (const Json& p : op["parameters"]) params.push_back(p["name"]);
  EXPECT_THAT(params,
              ElementsAre("allowWatchBookmarks", "continue", "fieldSelector",
                          "labelSelector", "limit", "resourceVersion",
                          "resourceVersionMatch", "sendInitialEvents",
                          "timeoutSeconds", "watch", "pretty"));
  EXPECT_EQ(op["get"]["operationId"], "listCoreV1PodForAllNamespaces");
  EXPECT_EQ(op["parameters"][4]["schema"]["type"], "integer");  // limit
  EXPECT_EQ(op["parameters"][9]["schema"]["type"], "boolean");  // watch
  EXPECT_TRUE(op["get"]["responses"]["200"]["content"].contains(
      "application/json;stream=watch"));
}

TEST(OpenApiTest, Subresources) {
  const Json& core = Document("api/v1")["paths"];
  const Json& binding =
      core["/api/v1/namespaces/{namespace}/pods/{name}/binding"];
  EXPECT_EQ(binding["post"]["operationId"], "createCoreV1NamespacedPodBinding");
  EXPECT_EQ(binding["post"]["x-kubernetes-group-version-kind"],
            Json({{"group", ""}, {"kind", "Binding"}, {"version", "v1"}}));
  EXPECT_FALSE(binding.contains("patch"));
  const Json& token =
      core["/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token"];
  EXPECT_EQ(token["post"]["operationId"],
            "createCoreV1NamespacedServiceAccountToken");
  EXPECT_EQ(token["post"]["x-kubernetes-group-version-kind"],
            Json({{"group", "authentication.k8s.io"},
                  {"kind", "TokenRequest"},
                  {"version", "v1"}}));
  const Json& schemas = Document("api/v1")["components"]["schemas"];
  ASSERT_TRUE(schemas.contains("io.k8s.api.authentication.v1.TokenRequest"));
  EXPECT_TRUE(schemas["io.k8s.api.authentication.v1.TokenRequest"]["properties"]
                  .contains("spec"));
  const Json& status = core["/api/v1/nodes/{name}/status"];
  EXPECT_EQ(status["patch"]["operationId"], "patchCoreV1NodeStatus");
  EXPECT_EQ(status["get"]["description"], "read status of the specified Node");
  EXPECT_FALSE(status.contains("delete"));
  EXPECT_EQ(core["/api/v1/namespaces/{name}/finalize"]["put"]["operationId"],
            "replaceCoreV1NamespaceFinalize");
  const Json& scale = Document(
      "apis/apps/v1")["paths"]
                     ["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/"
                      "scale"];
  EXPECT_EQ(
      scale["patch"]["x-kubernetes-group-version-kind"],
      Json({{"group", "autoscaling"}, {"kind", "Scale"}, {"version", "v1"}}));
  const Json& scale_schema =
      Schemas("apis/apps/v1")["io.k8s.api.autoscaling.v1.Scale"];
  EXPECT_EQ(scale_schema["x-kubernetes-group-version-kind"][0]["kind"],
            "Scale");
  EXPECT_EQ(Resolve(Schemas("apis/apps/v1"), scale_schema["properties"]["spec"])
                ->at("properties")["replicas"]["format"],
            "int32");
  // Kinds without subresources have none.
  EXPECT_FALSE(Document("apis/resource.k8s.io/v1")["paths"].contains(
      "/apis/resource.k8s.io/v1/deviceclasses/{name}/status"));
  EXPECT_TRUE(Document("apis/resource.k8s.io/v1")["paths"].contains(
      "/apis/resource.k8s.io/v1/namespaces/{namespace}/resourceclaims/{name}/"
      "status"));
}

TEST(OpenApiTest, ScalarShapesFollowUpstream) {
  const Json& s = Schemas("api/v1");
  EXPECT_EQ(s["io.k8s.apimachinery.pkg.api.resource.Quantity"]["oneOf"],
            Json::parse(R"([{"type":"string"},{"type":"number"}])"));
  EXPECT_EQ(s["io.k8s.apimachinery.pkg.apis.meta.v1.Time"]["format"],
            "date-time");
  EXPECT_EQ(s["io.k8s.apimachinery.pkg.apis.meta.v1.Time"]["type"], "string");
  const Json& meta = s["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"];
  EXPECT_EQ(meta["properties"]["generation"],
            Json({{"description",
                   "A sequence number representing a specific generation of "
                   "the desired state. Populated by the system. Read-only."},
                  {"format", "int64"},
                  {"type", "integer"}}));
  EXPECT_EQ(meta["properties"]["creationTimestamp"]["allOf"],
            Json::parse(R"([{"$ref":"#/components/schemas/)"
                        R"(io.k8s.apimachinery.pkg.apis.meta.v1.Time"}])"));
  EXPECT_EQ(meta["properties"]["labels"]["additionalProperties"],
            Json({{"type", "string"}}));
  EXPECT_EQ(
      meta["properties"]["ownerReferences"]["x-kubernetes-patch-strategy"],
      "merge");
  EXPECT_EQ(
      meta["properties"]["ownerReferences"]["x-kubernetes-patch-merge-key"],
      "uid");
  EXPECT_EQ(meta["properties"]["finalizers"]["x-kubernetes-list-type"], "set");
  // Lease times are MicroTime; Event.count is int32.
  EXPECT_EQ(
      Schemas(
          "apis/coordination.k8s.io/v1")["io.k8s.api.coordination.v1.LeaseSpec"]
                                        ["properties"]["renewTime"]["allOf"][0]
                                        ["$ref"],
      "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime");
  EXPECT_EQ(s["io.k8s.api.core.v1.Event"]["properties"]["count"]["format"],
            "int32");
  // An opaque driver configuration is any object.
  EXPECT_EQ(
      Schemas("apis/resource.k8s.io/v1")
          ["io.k8s.api.resource.v1.OpaqueDeviceConfiguration"]["properties"]
          ["parameters"]["allOf"][0]["$ref"],
      "#/components/schemas/io.k8s.apimachinery.pkg.runtime.RawExtension");
  EXPECT_EQ(Schemas("apis/resource.k8s.io/v1")
                ["io.k8s.apimachinery.pkg.runtime.RawExtension"]["type"],
            "object");
}

TEST(OpenApiTest, ResourceClaimV1Shape) {
  const Json& s = Schemas("apis/resource.k8s.io/v1");
  const Json& claim = s["io.k8s.api.resource.v1.ResourceClaim"];
  EXPECT_FALSE(claim.contains("required"));  // spec is +optional in 1.37
  EXPECT_FALSE(claim.contains("x-kubernetes-preserve-unknown-fields"));
  const Json* spec = Resolve(s, claim["properties"]["spec"]);
  ASSERT_NE(spec, nullptr);
  const Json* devices = Resolve(s, (*spec)["properties"]["devices"]);
  ASSERT_NE(devices, nullptr);
  const Json& requests = (*devices)["properties"]["requests"];
  EXPECT_EQ(requests["type"], "array");
  EXPECT_EQ(requests["x-kubernetes-list-type"], "atomic");
  EXPECT_EQ(requests["items"]["$ref"],
            "#/components/schemas/io.k8s.api.resource.v1.DeviceRequest");
  const Json& request = s["io.k8s.api.resource.v1.DeviceRequest"];
  std::vector<std::string> props;
  for (auto& [k, v] : request["properties"].items()) props.push_back(k);
  EXPECT_THAT(props, ElementsAre("exactly", "firstAvailable", "name"));
  EXPECT_EQ(request["required"], Json::array({"name"}));
  const Json& exact = s["io.k8s.api.resource.v1.ExactDeviceRequest"];
  EXPECT_EQ(exact["properties"]["count"]["format"], "int64");
  EXPECT_EQ(exact["required"], Json::array({"deviceClassName"}));
  EXPECT_FALSE(s.contains("io.k8s.api.resource.v1.BasicDevice"));
  EXPECT_TRUE(
      s["io.k8s.api.resource.v1.Device"]["properties"].contains("attributes"));
  EXPECT_EQ(s["io.k8s.api.resource.v1.ResourceClaimStatus"]["properties"]
             ["reservedFor"]["x-kubernetes-patch-merge-key"],
            "uid");
  EXPECT_EQ(s["io.k8s.api.resource.v1.ResourceClaimStatus"]["properties"]
             ["reservedFor"]["x-kubernetes-list-map-keys"],
            Json::array({"uid"}));
  // The v1beta2 document has the v1 shape, under v1beta2 names.
  const Json& b2 = Schemas("apis/resource.k8s.io/v1beta2");
  EXPECT_TRUE(
      b2["io.k8s.api.resource.v1beta2.DeviceRequest"]["properties"].contains(
          "exactly"));
  EXPECT_TRUE(b2.contains("io.k8s.api.resource.v1beta2.ExactDeviceRequest"));
  EXPECT_FALSE(b2.contains("io.k8s.api.resource.v1.DeviceRequest"));
}

TEST(OpenApiTest, ResourceV1beta1IsTheConvertedShape) {
  const Json& s = Schemas("apis/resource.k8s.io/v1beta1");
  EXPECT_FALSE(s.contains("io.k8s.api.resource.v1beta1.ExactDeviceRequest"));
  const Json& request = s["io.k8s.api.resource.v1beta1.DeviceRequest"];
  std::vector<std::string> props;
  for (auto& [k, v] : request["properties"].items()) props.push_back(k);
  EXPECT_THAT(props, ElementsAre("adminAccess", "allocationMode", "capacity",
                                 "count", "deviceClassName", "firstAvailable",
                                 "name", "selectors", "tolerations"));
  // Required as upstream declares v1beta1's DeviceRequest.
  EXPECT_EQ(request["required"], Json::array({"name"}));
  EXPECT_FALSE(request["properties"]["deviceClassName"]
                   .value("description", "")
                   .empty());
  const Json& device = s["io.k8s.api.resource.v1beta1.Device"];
  props.clear();
  for (auto& [k, v] : device["properties"].items()) props.push_back(k);
  EXPECT_THAT(props, ElementsAre("basic", "name"));
  EXPECT_EQ(device["properties"]["basic"]["allOf"][0]["$ref"],
            "#/components/schemas/io.k8s.api.resource.v1beta1.BasicDevice");
  const Json& basic = s["io.k8s.api.resource.v1beta1.BasicDevice"];
  EXPECT_FALSE(basic["properties"].contains("name"));
  EXPECT_TRUE(basic["properties"].contains("attributes"));
  EXPECT_TRUE(basic["properties"].contains("consumesCounters"));
  EXPECT_EQ(basic["description"], internal::FindUpstreamType(
                                      "io.k8s.api.resource.v1beta1.BasicDevice")
                                      ->description);
  // v1beta1 serves no DeviceTaintRule.
  EXPECT_FALSE(s.contains("io.k8s.api.resource.v1beta1.DeviceTaintRule"));
}

// Every modelled property exists upstream with the same shape: the
// documents describe upstream's API, not an invention.
//
// The one exception: Device.nodeAllocatableResourceMappings (and its
// NodeAllocatableResourceMapping), a 1.36 alpha field tombstoned in 1.37,
// which draplane still models so that 1.36 objects round-trip.
TEST(OpenApiTest, PropertiesExistUpstreamWithTheSameType) {
  std::vector<std::string> draplane_only;
  for (std::string_view gv : OpenApiV3GroupVersions()) {
    for (auto& [model, schema] : Schemas(gv).items()) {
      const internal::UpstreamType* t = internal::FindUpstreamType(model);
      if (!schema.contains("properties")) continue;
      if (t == nullptr) {
        draplane_only.push_back(model);
        continue;
      }
      for (auto& [name, prop] : schema["properties"].items()) {
        const internal::UpstreamField* f = t->FindField(name);
        if (f == nullptr) {
          draplane_only.push_back(StrCat(model, ".", name));
          continue;
        }
        std::string_view shape = f->shape;
        const Json* p = &prop;
        while (shape.substr(0, 2) == "[]") {
          EXPECT_EQ((*p)["type"], "array") << model << "." << name;
          p = &(*p)["items"];
          shape.remove_prefix(2);
        }
        while (shape.substr(0, 5) == "map[]") {
          EXPECT_EQ((*p)["type"], "object") << model << "." << name;
          p = &(*p)["additionalProperties"];
          shape.remove_prefix(5);
        }
        if (shape == "int32" || shape == "int64") {
          EXPECT_EQ((*p)["format"], shape) << model << "." << name;
        } else if (shape == "string") {
          EXPECT_EQ((*p)["type"], "string") << model << "." << name;
        } else if (shape == "bool") {
          EXPECT_EQ((*p)["type"], "boolean") << model << "." << name;
        } else if (shape.substr(0, 4) == "ref:" || shape == "Time" ||
                   shape == "MicroTime" || shape == "Quantity") {
          const Json* target = p->contains("allOf") ? &(*p)["allOf"][0] : p;
          if (target->contains("$ref")) {
            std::string ref = (*target)["$ref"];
            std::string want(shape.substr(0, 4) == "ref:" ? shape.substr(4)
                                                          : "");
            if (!want.empty()) {
              EXPECT_EQ(ref, kRefPrefix + want) << model << "." << name;
            }
          } else {
            // Not described: an open object.
            EXPECT_EQ(target->value("type", ""), "object")
                << model << "." << name;
            EXPECT_EQ(
                target->value("x-kubernetes-preserve-unknown-fields", false),
                true)
                << model << "." << name;
          }
        }
      }
    }
  }
  EXPECT_THAT(
      draplane_only,
      UnorderedElementsAre(
          "io.k8s.api.resource.v1.Device.nodeAllocatableResourceMappings",
          "io.k8s.api.resource.v1.NodeAllocatableResourceMapping",
          "io.k8s.api.resource.v1beta2.Device.nodeAllocatableResourceMappings",
          "io.k8s.api.resource.v1beta2.NodeAllocatableResourceMapping",
          "io.k8s.api.resource.v1beta1.BasicDevice."
          "nodeAllocatableResourceMappings",
          "io.k8s.api.resource.v1beta1.NodeAllocatableResourceMapping"));
}

TEST(OpenApiTest, PartiallyModelledCoreTypesKeepUnknownFields) {
  const Json& s = Schemas("api/v1");
  const Json& pod_spec = s["io.k8s.api.core.v1.PodSpec"];
  EXPECT_EQ(pod_spec["x-kubernetes-preserve-unknown-fields"], true);
  // Modelled fields are described in full ...
  EXPECT_EQ(pod_spec["properties"]["containers"]["items"]["$ref"],
            "#/components/schemas/io.k8s.api.core.v1.Container");
  EXPECT_EQ(
      pod_spec["properties"]["containers"]["x-kubernetes-patch-merge-key"],
      "name");
  EXPECT_EQ(pod_spec["properties"]["containers"]["x-kubernetes-patch-strategy"],
            "merge");
  EXPECT_EQ(pod_spec["required"], Json::array({"containers"}));
  // ... upstream's other fields are listed, their contents left open.
  const Json& volumes = pod_spec["properties"]["volumes"];
  EXPECT_EQ(volumes["x-kubernetes-patch-strategy"], "merge,retainKeys");
  EXPECT_EQ(volumes["x-kubernetes-patch-merge-key"], "name");
  EXPECT_EQ(volumes["items"],
            Json({{"type", "object"},
                  {"x-kubernetes-preserve-unknown-fields", true}}));
  EXPECT_EQ(pod_spec["properties"]["hostNetwork"]["type"], "boolean");
  EXPECT_EQ(pod_spec["properties"]["activeDeadlineSeconds"]["format"], "int64");
  EXPECT_EQ(pod_spec["properties"]["affinity"]["type"], "object");
  const Json& container = s["io.k8s.api.core.v1.Container"];
  EXPECT_EQ(container["x-kubernetes-preserve-unknown-fields"], true);
  EXPECT_EQ(container["properties"]["ports"]["x-kubernetes-list-map-keys"],
            Json::array({"containerPort", "protocol"}));
  // Fully modelled core types are strict.
  EXPECT_FALSE(s["io.k8s.api.core.v1.PodResourceClaim"].contains(
      "x-kubernetes-preserve-unknown-fields"));
  EXPECT_FALSE(s["io.k8s.api.core.v1.Pod"].contains(
      "x-kubernetes-preserve-unknown-fields"));
  // Unmodelled fields referring to modelled types use them.
  const Json& job_spec =
      Schemas("apis/batch/v1")["io.k8s.api.batch.v1.JobSpec"];
  EXPECT_EQ(job_spec["properties"]["selector"]["allOf"][0]["$ref"],
            "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1."
            "LabelSelector");
}

// The patch strategies kubectl reads agree with the ones draplane's own
// strategic merge patch applies (patch::PatchSchemaFor), wherever the
// document describes the field.
TEST(OpenApiTest, PatchStrategiesAgreeWithTheServer) {
  int checked = 0;
  for (const api::KindInfo& k : api::ServedKinds()) {
    const patch::PatchSchema* server = patch::PatchSchemaFor(k.group, k.kind);
    ASSERT_NE(server, nullptr) << k.kind;
    for (std::string_view version : k.versions) {
      const Json& schemas = Schemas(GroupVersionKey(k.group, version));
      std::function<void(const Json&, const std::string&, int)> walk =
          [&](const Json& schema, const std::string& path, int depth) {
            if (depth > 8 || !schema.contains("properties")) return;
            for (auto& [name, prop] : schema["properties"].items()) {
              const std::string p =
                  path.empty() ? name : StrCat(path, ".", name);
              const patch::PatchSchema::Field* f = server->FindPath(p);
              const std::string strategy =
                  prop.value("x-kubernetes-patch-strategy", "");
              const std::string key =
                  prop.value("x-kubernetes-patch-merge-key", "");
              const bool merge = strategy.find("merge") != std::string::npos;
              const bool server_merge = f != nullptr && f->strategy.merge;
              EXPECT_EQ(merge, server_merge) << k.kind << " " << p;
              if (server_merge) {
                EXPECT_EQ(key, f->strategy.merge_key) << k.kind << " " << p;
                EXPECT_EQ(strategy.find("retainKeys") != std::string::npos,
                          f->strategy.retain_keys)
                    << k.kind << " " << p;
              }
              ++checked;
              const Json* next = &prop;
              if (next->contains("items")) next = &(*next)["items"];
              const Json* resolved = Resolve(schemas, *next);
              if (resolved != nullptr) walk(*resolved, p, depth + 1);
            }
          };
      walk(schemas[internal::KindModelName(k.group, version, k.kind)], "", 0);
    }
  }
  EXPECT_GT(checked, 1000);
}

// kubectl's client-side apply: strategicpatch.PatchMetaFromOpenAPIV3 finds
// every field of the guide's manifests (no "unable to find api field").
TEST(OpenApiTest, KubectlFindsManifestFields) {
  struct Case {
    std::string gv, model;
    std::vector<std::string> path;
  };
  const std::vector<Case> cases = {
      {"apis/resource.k8s.io/v1beta1",
       "io.k8s.api.resource.v1beta1.DeviceClass",
       {"spec", "config", "opaque", "parameters"}},
      {"apis/resource.k8s.io/v1beta1",
       "io.k8s.api.resource.v1beta1.DeviceClass",
       {"spec", "selectors", "cel", "expression"}},
      {"apis/resource.k8s.io/v1",
       "io.k8s.api.resource.v1.ResourceClaim",
       {"spec", "devices", "requests", "exactly", "deviceClassName"}},
      {"apis/resource.k8s.io/v1beta1",
       "io.k8s.api.resource.v1beta1.ResourceClaimTemplate",
       {"spec", "spec", "devices", "requests", "count"}},
      {"apis/resource.k8s.io/v1beta1",
       "io.k8s.api.resource.v1beta1.ResourceSlice",
       {"spec", "devices", "basic", "attributes"}},
      {"api/v1",
       "io.k8s.api.core.v1.Pod",
       {"spec", "containers", "resources", "claims", "name"}},
      {"api/v1", "io.k8s.api.core.v1.Pod", {"metadata", "labels"}},
      {"apis/apps/v1",
       "io.k8s.api.apps.v1.Deployment",
       {"spec", "template", "spec", "resourceClaims",
        "resourceClaimTemplateName"}},
      {"apis/apps/v1",
       "io.k8s.api.apps.v1.Deployment",
       {"spec", "template", "spec", "containers", "ports"}},
      {"apis/apps/v1",
       "io.k8s.api.apps.v1.Deployment",
       {"spec", "selector", "matchLabels"}},
  };
  for (const Case& c : cases) {
    const Json& schemas = Schemas(c.gv);
    const Json* s = &schemas[c.model];
    std::string walked;
    for (const std::string& field : c.path) {
      walked += "." + field;
      ASSERT_TRUE(s->contains("properties") &&
                  (*s)["properties"].contains(field))
          << c.model << walked;
      const Json* next = &(*s)["properties"][field];
      if (next->contains("items")) next = &(*next)["items"];
      s = Resolve(schemas, *next);
      ASSERT_NE(s, nullptr) << c.model << walked;
    }
  }
}

TEST(OpenApiTest, KindsHaveDescriptionsForExplain) {
  const Json& s = Schemas("apis/resource.k8s.io/v1");
  EXPECT_EQ(s["io.k8s.api.resource.v1.ResourceClaim"]["description"]
                .get<std::string>()
                .rfind("ResourceClaim describes a request for access to "
                       "resources in the cluster",
                       0),
            0u);
  const Json& spec = s["io.k8s.api.resource.v1.ResourceClaimSpec"];
  EXPECT_EQ(spec["properties"]["devices"]["description"],
            "Devices defines how to request devices.");
  EXPECT_EQ(
      Schemas("api/v1")["io.k8s.api.core.v1.Pod"]["properties"]["kind"]
                       ["description"]
                           .get<std::string>()
                           .rfind(
                               "Kind is a string value representing the REST "
                               "resource",
                               0),
      0u);
}

TEST(OpenApiTest, SizesAndGenerationTime) {
  // Generation cost of all documents (the library builds them once).
  const auto start = std::chrono::steady_clock::now();
  size_t total = 0;
  for (const ServedGv& gv : ServedGroupVersions()) {
    internal::Paths paths = internal::BuildPaths(gv.group, gv.version);
    internal::SchemaMap schemas =
        internal::BuildComponentSchemas(gv.group, gv.version, paths.models);
    total += schemas.size();
  }
  const double ms = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  EXPECT_GT(total, 100u);
  std::string sizes;
  size_t bytes = 0;
  for (std::string_view gv : OpenApiV3GroupVersions()) {
    const OpenApiDocument* doc = OpenApiV3Document(gv);
    bytes += doc->bytes.size();
    sizes += std::string(gv) + "=" + std::to_string(doc->bytes.size()) + " ";
    EXPECT_LT(doc->bytes.size(), 1u << 20) << gv;
  }
  std::printf(
      "openapi: %zu schemas built in %.1f ms; documents: %s(total %zu)\n",
      total, ms, sizes.c_str(), bytes);
}

}  // namespace
}  // namespace draplane::openapi
