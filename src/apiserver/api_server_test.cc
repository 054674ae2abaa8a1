#include "apiserver/api_server.h"

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/meta_types.h"
#include "apiserver/api_server_test_util.h"
#include "apiserver/internal/resources.h"
#include "apiserver/internal/server_side_apply.h"
#include "common/str_cat.h"
#include "common/version.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace draplane::apiserver::api_server_test {
namespace {

TEST_F(ApiServerTest, VersionPinsKubectlsMinor) {
  auto w = Do("GET", "/version");
  EXPECT_EQ(w.code, 200);
  EXPECT_EQ(w.JsonBody()["major"], "1");
  EXPECT_EQ(w.JsonBody()["minor"], "37");
  EXPECT_EQ(w.JsonBody()["emulationMinor"], "37");
  EXPECT_EQ(w.JsonBody()["minCompatibilityMinor"], "36");
  EXPECT_EQ(w.JsonBody()["gitVersion"],
            "v1.37.2+draplane." + std::string(DraplaneVersion()));
}

TEST_F(ApiServerTest, AggregatedAndLegacyDiscovery) {
  http::HttpRequest req = Request("GET", "/apis");
  req.headers["accept"] =
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
      "application/json;g=apidiscovery.k8s.io;v=v2beta1;as="
      "APIGroupDiscoveryList,application/json";
  auto w = Do(req);
  ASSERT_EQ(w.code, 200);
  EXPECT_EQ(w.Header("Content-Type"),
            "application/json;g=apidiscovery.k8s.io;v=v2;as="
            "APIGroupDiscoveryList");
  Json list = w.JsonBody();
  EXPECT_EQ(list["kind"], "APIGroupDiscoveryList");
  const Json& resource_group = list["items"][0];
  EXPECT_EQ(resource_group["metadata"]["name"], "resource.k8s.io");
  ASSERT_EQ(resource_group["versions"].size(), 3u);
  EXPECT_EQ(resource_group["versions"][0]["version"], "v1");
  const Json& classes = resource_group["versions"][0]["resources"][0];
  EXPECT_EQ(classes["resource"], "deviceclasses");
  EXPECT_EQ(classes["scope"], "Cluster");
  EXPECT_EQ(classes["singularResource"], "deviceclass");

  req.path = "/api";
  Json core = Do(req).JsonBody();
  ASSERT_EQ(core["items"].size(), 1u);
  EXPECT_EQ(core["items"][0]["metadata"]["name"], "");

  auto legacy = Do("GET", "/api");
  EXPECT_EQ(legacy.JsonBody()["kind"], "APIVersions");
  Json rl = Do("GET", "/apis/resource.k8s.io/v1").JsonBody();
  EXPECT_EQ(rl["kind"], "APIResourceList");
  bool claim_status = false;
  for (const Json& r : rl["resources"]) {
    if (r["name"] == "resourceclaims/status") claim_status = true;
  }
  EXPECT_TRUE(claim_status);
  EXPECT_EQ(Do("GET", "/apis/nope.example.com/v1").code, 404);
}

// The review kinds are listed as kube-apiserver lists them (create only),
// so that clients map their kinds.
TEST_F(ApiServerTest, ReviewGroupsAreDiscovered) {
  Json authz = Do("GET", "/apis/authorization.k8s.io/v1").JsonBody();
  EXPECT_EQ(authz["groupVersion"], "authorization.k8s.io/v1");
  std::map<std::string, Json> by_name;
  for (const Json& r : authz["resources"]) by_name[r["name"]] = r;
  ASSERT_EQ(by_name.size(), 4u);
  EXPECT_EQ(by_name["subjectaccessreviews"]["kind"], "SubjectAccessReview");
  EXPECT_EQ(by_name["subjectaccessreviews"]["verbs"], Json::array({"create"}));
  EXPECT_EQ(by_name["localsubjectaccessreviews"]["namespaced"], true);
  EXPECT_EQ(by_name["selfsubjectrulesreviews"]["namespaced"], false);
  Json authn = Do("GET", "/apis/authentication.k8s.io/v1").JsonBody();
  ASSERT_EQ(authn["resources"].size(), 2u);
  EXPECT_EQ(authn["resources"][0]["kind"], "SelfSubjectReview");
  EXPECT_EQ(authn["resources"][1]["kind"], "TokenReview");
  EXPECT_EQ(Do("GET", "/apis/authorization.k8s.io").JsonBody()["name"],
            "authorization.k8s.io");
  bool listed = false;
  const Json groups = Do("GET", "/apis").JsonBody();
  for (const Json& g : groups["groups"]) {
    if (g["name"] == "authentication.k8s.io") listed = true;
  }
  EXPECT_TRUE(listed);
  http::HttpRequest req = Request("GET", "/apis");
  req.headers["accept"] =
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
  bool aggregated = false;
  const Json discovery = Do(req).JsonBody();
  for (const Json& item : discovery["items"]) {
    if (item["metadata"]["name"] != "authorization.k8s.io") continue;
    aggregated = item["versions"][0]["resources"].size() == 4;
  }
  EXPECT_TRUE(aggregated);
}

TEST_F(ApiServerTest, OpenApiV3RootAndDocuments) {
  auto root = Do("GET", "/openapi/v3");
  ASSERT_EQ(root.code, 200);
  EXPECT_EQ(root.Header("Content-Type"), "application/json");
  const std::string etag = root.Header("Etag");
  EXPECT_EQ(etag.size(), 130u);
  const Json paths = root.JsonBody()["paths"];
  ASSERT_TRUE(paths.contains("api/v1"));
  ASSERT_TRUE(paths.contains("apis/resource.k8s.io/v1beta1"));
  const std::string url =
      paths["apis/resource.k8s.io/v1beta1"]["serverRelativeURL"];
  const std::string hash = url.substr(url.find("?hash=") + 6);
  EXPECT_EQ(url, "/openapi/v3/apis/resource.k8s.io/v1beta1?hash=" + hash);
  http::HttpRequest again = Request("GET", "/openapi/v3");
  again.headers["if-none-match"] = etag;
  EXPECT_EQ(Do(again).code, 304);

  // The current hash: immutable, cached for a year.
  auto doc = Do("GET", url);
  ASSERT_EQ(doc.code, 200);
  EXPECT_EQ(doc.Header("Content-Type"), "application/json");
  EXPECT_EQ(doc.Header("Etag"), "\"" + hash + "\"");
  EXPECT_EQ(doc.Header("Cache-Control"), "public, immutable");
  EXPECT_EQ(doc.Header("Vary"), "Accept");
  EXPECT_EQ(doc.Header("Expires").size(),
            29u);  // "Mon, 02 Jan 2006 15:04:05 GMT"
  EXPECT_EQ(doc.JsonBody()["openapi"], "3.0.0");
  // Another hash: redirected to the current one.
  auto stale = Do("GET", "/openapi/v3/apis/resource.k8s.io/v1beta1?hash=ABC");
  EXPECT_EQ(stale.code, 301);
  EXPECT_EQ(stale.Header("Location"), url);
  // No hash: served, not immutable.
  auto plain = Do("GET", "/openapi/v3/apis/resource.k8s.io/v1beta1");
  EXPECT_EQ(plain.code, 200);
  EXPECT_EQ(plain.body, doc.body);
  EXPECT_EQ(plain.Header("Cache-Control"), "");
  http::HttpRequest cached = Request("GET", url);
  cached.headers["if-none-match"] = "\"" + hash + "\"";
  EXPECT_EQ(Do(cached).code, 304);
  http::HttpRequest proto = Request("GET", url);
  proto.headers["accept"] =
      "application/com.github.proto-openapi.spec.v3@v1.0+protobuf";
  EXPECT_EQ(Do(proto).code, 406);
  auto unknown = Do("GET", "/openapi/v3/apis/resource.k8s.io/v1alpha3");
  EXPECT_EQ(unknown.code, 404);
  EXPECT_EQ(unknown.JsonBody()["reason"], "NotFound");
  EXPECT_EQ(Do("GET", "/openapi/v2").code, 404);

  // Every subresource the server serves is described.
  for (const Json& gv : {Json("api/v1"), Json("apis/resource.k8s.io/v1"),
                         Json("apis/apps/v1"), Json("apis/batch/v1")}) {
    const Json described =
        Do("GET", "/openapi/v3/" + gv.get<std::string>()).JsonBody()["paths"];
    Json list = Do("GET", "/" + gv.get<std::string>()).JsonBody();
    for (const Json& r : list["resources"]) {
      const std::string name = r["name"];
      const size_t slash = name.find('/');
      std::string path =
          "/" + gv.get<std::string>() + "/" +
          (r["namespaced"] == true ? "namespaces/{namespace}/" : "") +
          name.substr(0, slash) + "/{name}";
      if (slash != std::string::npos) path += name.substr(slash);
      EXPECT_TRUE(described.contains(path)) << path;
    }
  }
}

TEST_F(ApiServerTest, CreateGetListUpdateDelete) {
  auto created = Do("POST", kClasses, DeviceClass("gpu.example.com"));
  ASSERT_EQ(created.code, 201) << created.body;
  Json obj = created.JsonBody();
  const std::string rv = obj["metadata"]["resourceVersion"];
  EXPECT_FALSE(rv.empty());
  EXPECT_EQ(obj["metadata"]["generation"], 1);
  EXPECT_EQ(obj["metadata"]["uid"].get<std::string>().size(), 36u);
  EXPECT_EQ(obj["metadata"]["creationTimestamp"].get<std::string>().size(),
            20u);

  auto again = Do("POST", kClasses, DeviceClass("gpu.example.com"));
  EXPECT_EQ(again.code, 409);
  EXPECT_EQ(again.JsonBody()["reason"], "AlreadyExists");
  EXPECT_EQ(again.JsonBody()["message"],
            "deviceclasses.resource.k8s.io \"gpu.example.com\" already "
            "exists");

  auto got = Do("GET", std::string(kClasses) + "/gpu.example.com");
  ASSERT_EQ(got.code, 200);
  EXPECT_EQ(got.JsonBody()["metadata"]["resourceVersion"], rv);

  // Served in v1beta1 too, converted.
  auto beta =
      Do("GET", "/apis/resource.k8s.io/v1beta1/deviceclasses/gpu.example.com");
  ASSERT_EQ(beta.code, 200) << beta.body;
  EXPECT_EQ(beta.JsonBody()["apiVersion"], "resource.k8s.io/v1beta1");

  auto list = Do("GET", kClasses);
  ASSERT_EQ(list.code, 200);
  EXPECT_EQ(list.JsonBody()["kind"], "DeviceClassList");
  EXPECT_EQ(list.JsonBody()["items"].size(), 1u);

  // A stale resourceVersion conflicts; the current one updates and bumps
  // the generation because the spec changed.
  Json update = Json::parse(
      DeviceClass("gpu.example.com", "device.driver == \"other.example.com\""));
  update["metadata"]["resourceVersion"] = "1";
  auto stale = Do("PUT", std::string(kClasses) + "/gpu.example.com",
                  api::DumpJson(update));
  EXPECT_EQ(stale.code, 409);
  EXPECT_EQ(stale.JsonBody()["message"],
            "Operation cannot be fulfilled on deviceclasses.resource.k8s.io "
            "\"gpu.example.com\": the object has been modified; please apply "
            "your changes to the latest version and try again");
  update["metadata"]["resourceVersion"] = rv;
  auto updated = Do("PUT", std::string(kClasses) + "/gpu.example.com",
                    api::DumpJson(update));
  ASSERT_EQ(updated.code, 200) << updated.body;
  EXPECT_EQ(updated.JsonBody()["metadata"]["generation"], 2);
  EXPECT_NE(updated.JsonBody()["metadata"]["resourceVersion"], rv);
  EXPECT_EQ(updated.JsonBody()["metadata"]["uid"], obj["metadata"]["uid"]);

  auto deleted = Do("DELETE", std::string(kClasses) + "/gpu.example.com");
  EXPECT_EQ(deleted.code, 200);
  auto missing = Do("GET", std::string(kClasses) + "/gpu.example.com");
  EXPECT_EQ(missing.code, 404);
  EXPECT_EQ(missing.JsonBody()["message"],
            "deviceclasses.resource.k8s.io \"gpu.example.com\" not found");
  EXPECT_EQ(missing.JsonBody()["details"]["kind"], "deviceclasses");
}

TEST_F(ApiServerTest, BadInputGetsKubernetesErrorsAndStoresNothing) {
  const int64_t before = store_->Revision();
  auto bad_json = Do("POST", kClasses, "{\"apiVersion\": ");
  EXPECT_EQ(bad_json.code, 400);
  EXPECT_EQ(bad_json.JsonBody()["kind"], "Status");
  EXPECT_EQ(bad_json.JsonBody()["reason"], "BadRequest");

  auto wrong_kind = Do("POST", kClasses, Claim("c"));
  EXPECT_EQ(wrong_kind.code, 400);
  EXPECT_EQ(wrong_kind.JsonBody()["message"],
            "the kind in the data (ResourceClaim) does not match the "
            "expected kind (DeviceClass)");

  auto invalid = Do("POST", kClasses, DeviceClass("Bad_Name", "device.x("));
  EXPECT_EQ(invalid.code, 422);
  Json status = invalid.JsonBody();
  EXPECT_EQ(status["reason"], "Invalid");
  EXPECT_EQ(status["details"]["kind"], "DeviceClass");
  ASSERT_GE(status["details"]["causes"].size(), 2u);
  EXPECT_EQ(status["details"]["causes"][0]["field"], "metadata.name");
  EXPECT_NE(status["message"].get<std::string>().find(
                "DeviceClass.resource.k8s.io \"Bad_Name\" is invalid: ["),
            std::string::npos);

  auto unknown = Do("POST", std::string(kClasses) + "?fieldValidation=Strict",
                    R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass",
                        "metadata":{"name":"x"},"spec":{"bogus":1}})");
  EXPECT_EQ(unknown.code, 400);
  EXPECT_EQ(unknown.JsonBody()["message"],
            "strict decoding error: unknown field \"spec.bogus\"");
  auto warned = Do("POST", std::string(kClasses) + "?dryRun=All",
                   R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass",
                       "metadata":{"name":"x"},"spec":{"bogus":1}})");
  EXPECT_EQ(warned.code, 201);
  EXPECT_EQ(warned.Header("Warning"),
            "299 - \"unknown field \\\"spec.bogus\\\"\"");

  auto no_ns =
      Do("POST", "/apis/resource.k8s.io/v1/namespaces/nope/resourceclaims",
         Claim("c"));
  EXPECT_EQ(no_ns.code, 404);
  EXPECT_EQ(no_ns.JsonBody()["message"], "namespaces \"nope\" not found");

  EXPECT_EQ(Do("GET", "/apis/resource.k8s.io/v1/frobs").code, 404);
  EXPECT_EQ(Do("POST", kClasses, "{}", "application/xml").code, 415);
  EXPECT_EQ(store_->Revision(), before);  // nothing stored
}

TEST_F(ApiServerTest, StatusSubresourceSeparatesSpecAndStatus) {
  ASSERT_EQ(Do("POST", kClaims, Claim("c1")).code, 201);
  Json claim = Do("GET", std::string(kClaims) + "/c1").JsonBody();
  // Status sent to the main resource is ignored.
  Json with_status = claim;
  with_status["status"] =
      Json{{"reservedFor",
            Json::array(
                {Json{{"resource", "pods"}, {"name", "p"}, {"uid", "u1"}}})}};
  auto main =
      Do("PUT", std::string(kClaims) + "/c1", api::DumpJson(with_status));
  ASSERT_EQ(main.code, 200) << main.body;
  EXPECT_FALSE(
      main.JsonBody().value("status", Json::object()).contains("reservedFor"));
  // ...and written through /status (the claim must be allocated to be
  // reserved, so validation refuses it: upstream's rule).
  auto status = Do("PUT", std::string(kClaims) + "/c1/status",
                   api::DumpJson(with_status));
  EXPECT_EQ(status.code, 422) << status.body;
  // A claim's spec is immutable.
  Json changed = claim;
  changed["spec"]["devices"]["requests"][0]["name"] = "other";
  auto immutable =
      Do("PUT", std::string(kClaims) + "/c1", api::DumpJson(changed));
  EXPECT_EQ(immutable.code, 422);
}

TEST_F(ApiServerTest, FinalizersDeferDeletion) {
  Json claim = Json::parse(Claim("held"));
  claim["metadata"]["finalizers"] = Json::array({"example.com/hold"});
  ASSERT_EQ(Do("POST", kClaims, api::DumpJson(claim)).code, 201);
  auto marked = Do("DELETE", std::string(kClaims) + "/held");
  ASSERT_EQ(marked.code, 200);
  EXPECT_TRUE(marked.JsonBody()["metadata"].contains("deletionTimestamp"));
  auto still = Do("GET", std::string(kClaims) + "/held");
  ASSERT_EQ(still.code, 200);
  Json current = still.JsonBody();
  // No new finalizers on an object being deleted.
  Json more = current;
  more["metadata"]["finalizers"].push_back("example.com/more");
  EXPECT_EQ(Do("PUT", std::string(kClaims) + "/held", api::DumpJson(more)).code,
            422);
  current["metadata"]["finalizers"] = Json::array();
  auto released =
      Do("PUT", std::string(kClaims) + "/held", api::DumpJson(current));
  EXPECT_EQ(released.code, 200) << released.body;
  EXPECT_EQ(Do("GET", std::string(kClaims) + "/held").code, 404);
}

TEST_F(ApiServerTest, ListsPageAndSelect) {
  for (int i = 0; i < 5; ++i) {
    Json c = Json::parse(DeviceClass("c" + std::to_string(i)));
    c["metadata"]["labels"]["tier"] = i % 2 == 0 ? "even" : "odd";
    ASSERT_EQ(Do("POST", kClasses, api::DumpJson(c)).code, 201);
  }
  auto page1 = Do("GET", std::string(kClasses) + "?limit=2");
  Json p1 = page1.JsonBody();
  ASSERT_EQ(p1["items"].size(), 2u);
  EXPECT_EQ(p1["metadata"]["remainingItemCount"], 3);
  const std::string token = p1["metadata"]["continue"];
  // Pages read at the first page's revision.
  ASSERT_EQ(Do("POST", kClasses, DeviceClass("c9")).code, 201);
  Json p2 = Do("GET", std::string(kClasses) + "?limit=10&continue=" + token)
                .JsonBody();
  ASSERT_EQ(p2["items"].size(), 3u);
  EXPECT_EQ(p2["items"][0]["metadata"]["name"], "c2");
  EXPECT_FALSE(p2["metadata"].contains("continue"));
  EXPECT_EQ(Do("GET", std::string(kClasses) + "?continue=garbage").code, 400);

  // (Request() does not percent-decode: selectors are written raw.)
  Json odd =
      Do("GET", std::string(kClasses) + "?labelSelector=tier=odd").JsonBody();
  EXPECT_EQ(odd["items"].size(), 2u);
  Json by_name =
      Do("GET", std::string(kClasses) + "?fieldSelector=metadata.name=c3")
          .JsonBody();
  ASSERT_EQ(by_name["items"].size(), 1u);
  auto bad = Do("GET", std::string(kClasses) + "?fieldSelector=spec.x=1");
  EXPECT_EQ(bad.code, 400);
  EXPECT_EQ(bad.JsonBody()["reason"], "BadRequest");
}

// A filtered watch reports an object entering its selector as ADDED and
// leaving it as DELETED (upstream's watch cache), judged on the previous
// object of each change.
TEST_F(ApiServerTest, FilteredWatchSeesObjectsEnterAndLeaveTheSelector) {
  auto created = Do("POST", kClasses, DeviceClass("f1"));
  ASSERT_EQ(created.code, 201);
  const std::string rv = created.JsonBody()["metadata"]["resourceVersion"];
  RecordingWriter w;
  std::thread watcher([&] {
    server_.Handle(Request("GET", std::string(kClasses) +
                                      "?watch=true&labelSelector=tier=b&"
                                      "resourceVersion=" +
                                      rv + "&timeoutSeconds=2"),
                   w);
  });
  // The watch starts at `rv`: it sees the changes below however late it
  // opens (replayed from the store's history, with their previous objects).
  const std::string path = std::string(kClasses) + "/f1";
  auto relabel = [&](const std::string& tier, const std::string& extra) {
    Json object = Do("GET", path).JsonBody();
    object["metadata"]["labels"]["tier"] = tier;
    object["metadata"]["labels"]["extra"] = extra;
    ASSERT_EQ(Do("PUT", path, api::DumpJson(object)).code, 200);
  };
  relabel("b", "1");  // enters: ADDED
  relabel("b", "2");  // stays: MODIFIED
  relabel("a", "3");  // leaves: DELETED
  relabel("a", "4");  // outside: nothing
  relabel("b", "5");  // enters again: ADDED
  watcher.join();
  std::vector<std::pair<std::string, std::string>> seen;
  for (const Json& e : w.Events()) {
    if (e["type"] == "BOOKMARK") continue;
    seen.emplace_back(e["type"], e["object"]["metadata"]["labels"]["extra"]);
  }
  EXPECT_EQ(seen,
            (std::vector<std::pair<std::string, std::string>>{{"ADDED", "1"},
                                                              {"MODIFIED", "2"},
                                                              {"DELETED", "3"},
                                                              {"ADDED", "5"}}));
}

TEST_F(ApiServerTest, WatchStreamsChangesFromAResourceVersion) {
  auto created = Do("POST", kClasses, DeviceClass("w1"));
  const std::string rv = created.JsonBody()["metadata"]["resourceVersion"];
  RecordingWriter w;
  std::thread watcher([&] {
    server_.Handle(
        Request("GET", std::string(kClasses) + "?watch=true&resourceVersion=" +
                           rv + "&timeoutSeconds=2&allowWatchBookmarks=true"),
        w);
  });
  // Started at `rv`: it sees what follows however late it opens.
  ASSERT_EQ(Do("POST", kClasses, DeviceClass("w2")).code, 201);
  ASSERT_EQ(Do("DELETE", std::string(kClasses) + "/w1").code, 200);
  watcher.join();
  auto events = w.Events();
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[0]["object"]["metadata"]["name"], "w2");
  EXPECT_EQ(events[1]["type"], "DELETED");
  EXPECT_EQ(events[1]["object"]["metadata"]["name"], "w1");

  // resourceVersion=0 starts with the current objects.
  RecordingWriter w0;
  server_.Handle(
      Request("GET", std::string(kClasses) +
                         "?watch=1&resourceVersion=0&timeoutSeconds=0"),
      w0);
  auto initial = w0.Events();
  ASSERT_EQ(initial.size(), 1u);
  EXPECT_EQ(initial[0]["type"], "ADDED");
  EXPECT_EQ(initial[0]["object"]["metadata"]["name"], "w2");
}

TEST_F(ApiServerTest, NamespaceDeletionRemovesItsContents) {
  ASSERT_EQ(
      Do("POST", "/api/v1/namespaces",
         R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}})")
          .code,
      201);
  ASSERT_EQ(
      Do("POST", "/apis/resource.k8s.io/v1/namespaces/team/resourceclaims",
         Claim("c"))
          .code,
      201);
  auto deleted = Do("DELETE", "/api/v1/namespaces/team");
  EXPECT_EQ(deleted.code, 200);
  server_.RunControllersOnce();
  EXPECT_EQ(Do("GET",
               "/apis/resource.k8s.io/v1/namespaces/team/"
               "resourceclaims/c")
                .code,
            404);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/team").code, 404);
  Json ns = Do("GET", "/api/v1/namespaces/default").JsonBody();
  EXPECT_EQ(ns["status"]["phase"], "Active");
}

TEST_F(ApiServerTest, GenerateNameAndPatches) {
  Json c = Json::parse(Claim(""));
  c["metadata"].erase("name");
  c["metadata"]["generateName"] = "train-";
  auto created = Do("POST", kClaims, api::DumpJson(c));
  ASSERT_EQ(created.code, 201) << created.body;
  const std::string name = created.JsonBody()["metadata"]["name"];
  EXPECT_EQ(name.size(), 11u);
  EXPECT_EQ(name.rfind("train-", 0), 0u);

  auto merged = Do("PATCH", std::string(kClaims) + "/" + name,
                   R"({"metadata":{"labels":{"app":"x"}}})",
                   "application/merge-patch+json");
  ASSERT_EQ(merged.code, 200) << merged.body;
  EXPECT_EQ(merged.JsonBody()["metadata"]["labels"]["app"], "x");
  auto json_patch =
      Do("PATCH", std::string(kClaims) + "/" + name,
         R"([{"op":"add","path":"/metadata/labels/j","value":"2"}])",
         "application/json-patch+json");
  ASSERT_EQ(json_patch.code, 200) << json_patch.body;
  EXPECT_EQ(json_patch.JsonBody()["metadata"]["labels"]["j"], "2");
  // Every built-in kind takes strategic merge patches (kubectl apply sends
  // them); unknown patch types are 415.
  auto strategic = Do("PATCH", std::string(kClaims) + "/" + name,
                      R"({"metadata":{"labels":{"s":"3"}}})",
                      "application/strategic-merge-patch+json");
  ASSERT_EQ(strategic.code, 200) << strategic.body;
  EXPECT_EQ(strategic.JsonBody()["metadata"]["labels"]["s"], "3");
  EXPECT_EQ(Do("PATCH", std::string(kClaims) + "/" + name, "{}",
               "application/x-patch")
                .code,
            415);
  // Apply creates what is missing.
  auto applied =
      Do("PATCH", std::string(kClasses) + "/applied?fieldManager=test",
         "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  "
         "name: applied\n",
         "application/apply-patch+yaml");
  EXPECT_EQ(applied.code, 201) << applied.body;
  EXPECT_EQ(Do("PATCH", std::string(kClaims) + "/missing", "{}",
               "application/merge-patch+json")
                .code,
            404);
}

}  // namespace
}  // namespace draplane::apiserver::api_server_test

namespace draplane::apiserver::api_server_test {
namespace {

// draplane beyond upstream: a device is allocated to at most one claim
// (exclusively), whoever writes the allocation.
TEST_F(ApiServerTest, AllocationOfADeviceAnotherClaimHoldsIsAConflict) {
  ASSERT_EQ(Do("POST", kClaims, Claim("a")).code, 201);
  ASSERT_EQ(Do("POST", kClaims, Claim("b")).code, 201);
  auto allocate = [&](const std::string& name, const std::string& device,
                      bool admin) {
    Json claim = Do("GET", StrCat(kClaims, "/", name)).JsonBody();
    Json result = {{"request", "gpu"},
                   {"driver", "gpu.example.com"},
                   {"pool", "node-1"},
                   {"device", device}};
    if (admin) result["adminAccess"] = true;
    claim["status"]["allocation"] = {
        {"devices", {{"results", Json::array({result})}}}};
    return Do("PUT", StrCat(kClaims, "/", name, "/status"),
              api::DumpJson(claim));
  };
  ASSERT_EQ(allocate("a", "gpu-0", false).code, 200);
  Response r = allocate("b", "gpu-0", false);
  EXPECT_EQ(r.code, 409);
  EXPECT_EQ(r.JsonBody()["reason"], "Conflict");
  EXPECT_EQ(r.JsonBody()["message"],
            "Operation cannot be fulfilled on resourceclaims.resource.k8s.io "
            "\"b\": device gpu.example.com/node-1/gpu-0 is already allocated "
            "to claim default/a");
  // Nothing was written.
  EXPECT_FALSE(Do("GET", StrCat(kClaims, "/b"))
                   .JsonBody()["status"]
                   .contains("allocation"));
  // Another device is fine; admin access does not take the device.
  EXPECT_EQ(allocate("b", "gpu-1", false).code, 200);
  ASSERT_EQ(Do("POST", kClaims, Claim("c")).code, 201);
  // Admin access needs the namespace's label (admin_access_test.cc).
  Json ns = Do("GET", "/api/v1/namespaces/default").JsonBody();
  ns["metadata"]["labels"]["resource.kubernetes.io/admin-access"] = "true";
  ASSERT_EQ(Do("PUT", "/api/v1/namespaces/default", api::DumpJson(ns)).code,
            200);
  EXPECT_EQ(allocate("c", "gpu-0", true).code, 200);
  // Once "a" is deallocated, its device can go to another claim.
  Json a = Do("GET", StrCat(kClaims, "/a")).JsonBody();
  a["status"].erase("allocation");
  ASSERT_EQ(Do("PUT", StrCat(kClaims, "/a/status"), api::DumpJson(a)).code,
            200);
  ASSERT_EQ(Do("POST", kClaims, Claim("d")).code, 201);
  EXPECT_EQ(allocate("d", "gpu-0", false).code, 200);
}

}  // namespace
}  // namespace draplane::apiserver::api_server_test

namespace draplane::apiserver::api_server_test {
namespace {

TEST_F(ApiServerTest, PagingAcrossAllNamespaces) {
  ASSERT_EQ(
      Do("POST", "/api/v1/namespaces",
         R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"other"}})")
          .code,
      201);
  ASSERT_EQ(Do("POST", kClaims, Claim("a")).code, 201);
  ASSERT_EQ(
      Do("POST", "/apis/resource.k8s.io/v1/namespaces/other/resourceclaims",
         Claim("b"))
          .code,
      201);
  Response first = Do("GET", "/apis/resource.k8s.io/v1/resourceclaims?limit=1");
  ASSERT_EQ(first.code, 200) << first.body;
  ASSERT_EQ(first.JsonBody()["items"].size(), 1u);
  EXPECT_EQ(first.JsonBody()["items"][0]["metadata"]["name"], "a");
  std::string token = first.JsonBody()["metadata"]["continue"];
  ASSERT_FALSE(token.empty());
  Response second = Do(
      "GET", StrCat("/apis/resource.k8s.io/v1/resourceclaims?limit=1&continue=",
                    token));
  ASSERT_EQ(second.code, 200) << second.body;
  ASSERT_EQ(second.JsonBody()["items"].size(), 1u);
  EXPECT_EQ(second.JsonBody()["items"][0]["metadata"]["name"], "b");
  EXPECT_FALSE(
      second.JsonBody()["metadata"].contains("continue") &&
      !second.JsonBody()["metadata"]["continue"].get<std::string>().empty());
}

}  // namespace
}  // namespace draplane::apiserver::api_server_test

namespace draplane::apiserver::api_server_test {
namespace {

// Upstream's DefaultTolerationSeconds admission plugin.
TEST_F(ApiServerTest, NewPodsTolerateNotReadyAndUnreachableFor300Seconds) {
  auto tolerations = [&](const std::string& name) {
    return Do("GET", "/api/v1/namespaces/default/pods/" + name)
        .JsonBody()["spec"]
        .value("tolerations", Json::array());
  };
  const Json not_ready = {{"key", "node.kubernetes.io/not-ready"},
                          {"operator", "Exists"},
                          {"effect", "NoExecute"},
                          {"tolerationSeconds", 300}};
  const Json unreachable = {{"key", "node.kubernetes.io/unreachable"},
                            {"operator", "Exists"},
                            {"effect", "NoExecute"},
                            {"tolerationSeconds", 300}};
  ASSERT_EQ(CreatePod("plain"), 201);
  EXPECT_EQ(tolerations("plain"), Json::array({not_ready, unreachable}));

  // A pod that says how long to tolerate unreachable keeps that.
  ASSERT_EQ(
      CreatePod("own",
                R"("tolerations":[{"key":"node.kubernetes.io/unreachable",)"
                R"("operator":"Exists","effect":"NoExecute",)"
                R"("tolerationSeconds":10}],)"),
      201);
  Json own = tolerations("own");
  ASSERT_EQ(own.size(), 2u) << own;
  EXPECT_EQ(own[0]["tolerationSeconds"], 10);
  EXPECT_EQ(own[1], not_ready);

  // An empty key with an empty effect tolerates every taint: nothing added.
  ASSERT_EQ(CreatePod("all", R"("tolerations":[{"operator":"Exists"}],)"), 201);
  EXPECT_EQ(tolerations("all").size(), 1u);

  // A NoSchedule toleration does not count.
  ASSERT_EQ(CreatePod("nosched",
                      R"("tolerations":[{"key":"node.kubernetes.io/not-ready",)"
                      R"("operator":"Exists","effect":"NoSchedule"}],)"),
            201);
  EXPECT_EQ(tolerations("nosched").size(), 3u);

  // Updates are not defaulted again: the two tolerations stay two.
  Json pod = Do("GET", "/api/v1/namespaces/default/pods/plain").JsonBody();
  pod["metadata"]["labels"]["x"] = "y";
  auto updated =
      Do("PUT", "/api/v1/namespaces/default/pods/plain", api::DumpJson(pod));
  ASSERT_EQ(updated.code, 200) << updated.body;
  EXPECT_EQ(tolerations("plain").size(), 2u);
}

TEST(ApiServerOptionsTest, DefaultTolerationSecondsCanBeTurnedOff) {
  auto store = store::NewMemoryStore();
  ApiServerOptions options;
  options.default_toleration_seconds = false;
  ApiServer server(store.get(), options);
  http::HttpRequest req;
  req.method = "POST";
  req.path = "/api/v1/namespaces/default/pods";
  req.body = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},)"
             R"("spec":{"containers":[{"name":"c","image":"busybox"}]}})";
  req.headers["content-type"] = "application/json";
  RecordingWriter w;
  server.Handle(req, w);
  ASSERT_EQ(w.code, 201) << w.body;
  EXPECT_FALSE(Json::parse(w.body)["spec"].contains("tolerations")) << w.body;
}

// /metrics serves what the option returns.
TEST(ApiServerOptionsTest, MetricsAreServedWhenConfigured) {
  auto store = store::NewMemoryStore();
  ApiServerOptions options;
  options.metrics = [] { return std::string("up 1\n"); };
  ApiServer server(store.get(), options);
  http::HttpRequest req;
  req.method = "GET";
  req.path = "/metrics";
  RecordingWriter anonymous;
  server.Handle(req, anonymous);
  EXPECT_EQ(anonymous.code, 200);  // AlwaysAllow: see authentication_test
  EXPECT_EQ(anonymous.body, "up 1\n");
}

}  // namespace
}  // namespace draplane::apiserver::api_server_test

namespace draplane::apiserver::api_server_test {
namespace {

// Found by apiserver_request_fuzzer: a TypeMeta member that is not a
// string threw out of the handler.
TEST_F(ApiServerTest, ANonStringApiVersionOrKindIsABadRequest) {
  auto object = Do("POST", kClasses,
                   R"({"apiVersion":{"name":"c"},"metadata":{"name":"x"}})");
  EXPECT_EQ(object.code, 400) << object.body;
  EXPECT_EQ(object.JsonBody()["message"],
            "couldn't get version/kind; json parse error: json: cannot "
            "unmarshal object into Go struct field .apiVersion of type string");
  auto boolean = Do("PUT", std::string(kClasses) + "/x",
                    R"({"kind":true,"metadata":{"name":"x"}})");
  EXPECT_EQ(boolean.code, 400) << boolean.body;
  EXPECT_NE(boolean.body.find("cannot unmarshal bool into Go struct field "
                              ".kind of type string"),
            std::string::npos)
      << boolean.body;
  // null is as good as absent.
  auto null = Do("POST", kClasses,
                 R"({"apiVersion":null,"kind":null,"metadata":{"name":"y"}})");
  EXPECT_EQ(null.code, 201) << null.body;
}

}  // namespace
}  // namespace draplane::apiserver::api_server_test
