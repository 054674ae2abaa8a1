#include "apiserver/api_server.h"

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/meta_types.h"
#include "apiserver/internal/resources.h"
#include "apiserver/internal/server_side_apply.h"
#include "common/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace draplane::apiserver {
namespace {

using api::Json;

// Records what a handler answers.
class RecordingWriter : public http::ResponseWriter {
 public:
  void Send(int status, const http::HttpHeaders& headers,
            std::string body) override {
    code = status;
    this->headers = headers;
    this->body = std::move(body);
  }
  bool StartStream(int status, const http::HttpHeaders& headers) override {
    code = status;
    this->headers = headers;
    return true;
  }
  bool WriteChunk(std::string_view data) override {
    std::lock_guard lock(mu);
    chunks.emplace_back(data);
    return true;
  }
  bool Stopping() const override { return stop.load(); }
  bool ClientGone() const override { return false; }

  Json JsonBody() const { return Json::parse(body); }
  std::string Header(const std::string& name) const {
    for (const auto& [k, v] : headers) {
      if (k == name) return v;
    }
    return "";
  }
  std::vector<Json> Events() {
    std::lock_guard lock(mu);
    std::vector<Json> out;
    for (const auto& c : chunks) out.push_back(Json::parse(c));
    return out;
  }

  int code = 0;
  http::HttpHeaders headers;
  std::string body;
  std::mutex mu;
  std::vector<std::string> chunks;
  std::atomic<bool> stop{false};
};

// A finished response (copyable).
struct Response {
  int code = 0;
  http::HttpHeaders headers;
  std::string body;
  Json JsonBody() const { return Json::parse(body); }
  std::string Header(const std::string& name) const {
    for (const auto& [k, v] : headers) {
      if (k == name) return v;
    }
    return "";
  }
};

class ApiServerTest : public ::testing::Test {
 protected:
  ApiServerTest()
      : store_(store::NewMemoryStore()), server_(store_.get(), {}) {}

  http::HttpRequest Request(std::string method, std::string target,
                            std::string body = "",
                            std::string content_type = "application/json") {
    http::HttpRequest req;
    req.method = std::move(method);
    const size_t q = target.find('?');
    req.path = target.substr(0, q);
    if (q != std::string::npos) {
      std::string query = target.substr(q + 1);
      size_t start = 0;
      while (start < query.size()) {
        size_t amp = query.find('&', start);
        if (amp == std::string::npos) amp = query.size();
        std::string pair = query.substr(start, amp - start);
        const size_t eq = pair.find('=');
        req.query.emplace(pair.substr(0, eq),
                          eq == std::string::npos ? "" : pair.substr(eq + 1));
        start = amp + 1;
      }
    }
    req.body = std::move(body);
    if (!req.body.empty()) req.headers["content-type"] = content_type;
    req.headers["accept"] = "application/json";
    return req;
  }

  Response Do(const http::HttpRequest& req) {
    RecordingWriter w;
    server_.Handle(req, w);
    return Response{w.code, w.headers, w.body};
  }
  Response Do(std::string method, std::string target, std::string body = "",
              std::string content_type = "application/json") {
    return Do(Request(std::move(method), std::move(target), std::move(body),
                      std::move(content_type)));
  }
  // Creates pod `name` in "default" with one container and `spec_extra`
  // (JSON members ending in a comma) in its spec; the HTTP code.
  int CreatePod(const std::string& name, const std::string& spec_extra = "") {
    return Do("POST", "/api/v1/namespaces/default/pods",
              R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                  R"("},"spec":{)" + spec_extra +
                  R"("containers":[{"name":"c","image":"busybox"}]}})")
        .code;
  }

  std::unique_ptr<store::Store> store_;
  ApiServer server_;
};

constexpr char kClasses[] = "/apis/resource.k8s.io/v1/deviceclasses";
constexpr char kClaims[] =
    "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims";

std::string DeviceClass(
    const std::string& name,
    const std::string& expr = "device.driver == \"gpu.example.com\"") {
  return api::DumpJson(
      Json{{"apiVersion", "resource.k8s.io/v1"},
           {"kind", "DeviceClass"},
           {"metadata", Json{{"name", name}, {"labels", Json{{"tier", "a"}}}}},
           {"spec",
            Json{{"selectors",
                  Json::array({Json{{"cel", Json{{"expression", expr}}}}})}}}});
}

std::string Claim(const std::string& name) {
  return api::DumpJson(Json{
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "ResourceClaim"},
      {"metadata", Json{{"name", name}}},
      {"spec", Json{{"devices",
                     Json{{"requests",
                           Json::array({Json{
                               {"name", "gpu"},
                               {"exactly", Json{{"deviceClassName",
                                                 "gpu.example.com"}}}}})}}}}}});
}

TEST_F(ApiServerTest, VersionPinsKubectlsMinor) {
  auto w = Do("GET", "/version");
  EXPECT_EQ(w.code, 200);
  EXPECT_EQ(w.JsonBody()["major"], "1");
  EXPECT_EQ(w.JsonBody()["minor"], "32");
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
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
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
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
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

TEST_F(ApiServerTest, PodBindingAssignsANodeOnce) {
  ASSERT_EQ(CreatePod("p"), 201);
  // An earlier failed attempt left PodScheduled=False with a reason.
  auto unschedulable =
      Do("PUT", "/api/v1/namespaces/default/pods/p/status",
         R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
          "status":{"phase":"Pending","nominatedNodeName":"node9",
           "conditions":[
            {"type":"Ready","status":"False"},
            {"type":"PodScheduled","status":"False","reason":"Unschedulable",
             "message":"no nodes"}]}})");
  ASSERT_EQ(unschedulable.code, 200) << unschedulable.body;
  Json pod = Do("GET", "/api/v1/namespaces/default/pods/p").JsonBody();
  EXPECT_EQ(pod["status"]["phase"], "Pending");
  const std::string rv = pod["metadata"]["resourceVersion"];
  const std::string binding =
      R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"p",
          "annotations":{"scheduled-by":"test",
                         "pod.beta.kubernetes.io/init-containers":"[]"},
          "labels":{"topology.kubernetes.io/zone":"z1"}},
          "target":{"kind":"Node","name":"node1"}})";
  auto bound = Do("POST", "/api/v1/namespaces/default/pods/p/binding", binding);
  ASSERT_EQ(bound.code, 201) << bound.body;
  const Json before = pod;
  pod = Do("GET", "/api/v1/namespaces/default/pods/p").JsonBody();
  // As upstream 1.37: the Binding's labels are copied, its legacy
  // init-container annotations dropped, the nomination cleared. Nothing
  // else changes (the stored managedFields included: upstream's binding
  // writes to storage, recording no manager).
  ASSERT_EQ(before["status"]["nominatedNodeName"], "node9");
  ASSERT_TRUE(before["metadata"].contains("managedFields")) << before.dump();
  Json expected = before;
  expected["spec"]["nodeName"] = "node1";
  expected["metadata"]["annotations"]["scheduled-by"] = "test";
  expected["metadata"]["labels"]["topology.kubernetes.io/zone"] = "z1";
  expected["status"].erase("nominatedNodeName");
  expected["metadata"]["resourceVersion"] = pod["metadata"]["resourceVersion"];
  expected["status"]["conditions"][1] = pod["status"]["conditions"][1];
  // (Compared as unordered JSON: the binding's members go in Go's order.)
  EXPECT_EQ(nlohmann::json::parse(pod.dump()),
            nlohmann::json::parse(expected.dump()))
      << "before: " << before.dump() << "\nafter: " << pod.dump();
  // managedFields stay metadata's last member (Go's order).
  ASSERT_FALSE(pod["metadata"].empty());
  EXPECT_EQ((--pod["metadata"].end()).key(), "managedFields");
  EXPECT_EQ(pod["spec"]["nodeName"], "node1");
  EXPECT_EQ(pod["metadata"]["annotations"]["scheduled-by"], "test");
  // As upstream: one write (the status is part of it), no generation bump,
  // the condition replaced in place without its old reason and message.
  EXPECT_EQ(std::stoll(pod["metadata"]["resourceVersion"].get<std::string>()),
            std::stoll(rv) + 1);
  EXPECT_EQ(pod["metadata"]["generation"], 1);
  ASSERT_EQ(pod["status"]["conditions"].size(), 2u) << pod.dump();
  const Json& scheduled = pod["status"]["conditions"][1];
  EXPECT_EQ(scheduled["type"], "PodScheduled");
  EXPECT_EQ(scheduled["status"], "True");
  EXPECT_FALSE(scheduled.contains("reason")) << scheduled.dump();
  EXPECT_FALSE(scheduled.contains("message")) << scheduled.dump();
  EXPECT_TRUE(scheduled["lastProbeTime"].is_null());
  EXPECT_TRUE(scheduled["lastTransitionTime"].is_string());

  auto twice = Do("POST", "/api/v1/namespaces/default/pods/p/binding", binding);
  EXPECT_EQ(twice.code, 409);
  EXPECT_EQ(twice.JsonBody()["message"],
            "Operation cannot be fulfilled on pods/binding \"p\": pod p is "
            "already assigned to node \"node1\"");
  EXPECT_EQ(twice.JsonBody()["details"]["kind"], "pods/binding");
}

TEST_F(ApiServerTest, PodBindingChecksItsInputAndPreconditions) {
  ASSERT_EQ(CreatePod("p"), 201);
  ASSERT_EQ(CreatePod("gated", R"("schedulingGates":[{"name":"wait"}],)"), 201);
  auto bind = [&](const std::string& pod, const std::string& meta,
                  const std::string& target) {
    return Do("POST", "/api/v1/namespaces/default/pods/" + pod + "/binding",
              R"({"apiVersion":"v1","kind":"Binding","metadata":)" + meta +
                  R"(,"target":)" + target + "}");
  };
  auto renamed = bind("p", R"({"name":"q"})", R"({"name":"n"})");
  EXPECT_EQ(renamed.code, 400);
  EXPECT_EQ(renamed.JsonBody()["message"],
            "name in URL does not match name in Binding object");
  auto invalid = bind("p", R"({"name":"p"})", R"({"kind":"Pod"})");
  EXPECT_EQ(invalid.code, 422);
  EXPECT_EQ(invalid.JsonBody()["message"],
            "Pod \"p\" is invalid: [target.kind: Unsupported value: \"Pod\": "
            "supported values: \"Node\", \"<empty>\", target.name: Required "
            "value]");
  // Mistyped members are refused, as upstream's decoding does.
  EXPECT_EQ(bind("p", R"("p")", R"({"name":"n"})").code, 400);
  EXPECT_EQ(bind("p", R"({"name":"p","uid":7})", R"({"name":"n"})").code, 400);
  EXPECT_EQ(bind("p", R"({"name":"p"})", R"({"name":["n"]})").code, 400);
  EXPECT_EQ(
      bind("p", R"({"name":"p","annotations":{"a":1}})", R"({"name":"n"})")
          .code,
      400);
  EXPECT_EQ(bind("p", R"({"name":"p","labels":["a"]})", R"({"name":"n"})")
                .JsonBody()["message"],
            "the Binding's metadata.labels must map strings to strings");
  auto uid = bind("p", R"({"name":"p","uid":"other"})", R"({"name":"n"})");
  EXPECT_EQ(uid.code, 409);
  EXPECT_THAT(uid.JsonBody()["message"].get<std::string>(),
              testing::StartsWith("Operation cannot be fulfilled on pods "
                                  "\"p\": Precondition failed: UID in "
                                  "precondition: other, UID in object meta: "));
  auto stale =
      bind("p", R"({"name":"p","resourceVersion":"1"})", R"({"name":"n"})");
  EXPECT_EQ(stale.code, 409);
  EXPECT_THAT(stale.JsonBody()["message"].get<std::string>(),
              testing::HasSubstr("Precondition failed: ResourceVersion in "
                                 "precondition: 1, ResourceVersion in object "
                                 "meta: "));
  auto gated = bind("gated", R"({"name":"gated"})", R"({"name":"n"})");
  EXPECT_EQ(gated.code, 409);
  EXPECT_EQ(gated.JsonBody()["message"],
            "Operation cannot be fulfilled on pods/binding \"gated\": pod "
            "gated has non-empty .spec.schedulingGates");
  auto dry = Do("POST", "/api/v1/namespaces/default/pods/p/binding?dryRun=All",
                R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"p"},
                    "target":{"name":"n"}})");
  EXPECT_EQ(dry.code, 201) << dry.body;
  // None of these assigned the pod.
  EXPECT_FALSE(Do("GET", "/api/v1/namespaces/default/pods/p")
                   .JsonBody()["spec"]
                   .contains("nodeName"));
}

TEST_F(ApiServerTest, GarbageCollectionFollowsThePropagationPolicy) {
  auto make = [&](const std::string& pod, const std::string& claim) {
    auto created =
        Do("POST", "/api/v1/namespaces/default/pods",
           R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + pod +
               R"("},"spec":{"containers":[{"name":"c","image":"x"}]}})");
    EXPECT_EQ(created.code, 201) << created.body;
    const std::string uid = created.JsonBody()["metadata"]["uid"];
    Json c = Json::parse(Claim(claim));
    c["metadata"]["ownerReferences"] =
        Json::array({Json{{"apiVersion", "v1"},
                          {"kind", "Pod"},
                          {"name", pod},
                          {"uid", uid},
                          {"blockOwnerDeletion", true}}});
    EXPECT_EQ(Do("POST", kClaims, api::DumpJson(c)).code, 201);
  };
  const std::string pods = "/api/v1/namespaces/default/pods/";
  // Background (the default): the owner goes at once, the dependent after.
  make("bg", "bg-claim");
  EXPECT_EQ(Do("DELETE", pods + "bg").code, 200);
  EXPECT_EQ(Do("GET", pods + "bg").code, 404);
  server_.RunControllersOnce();
  EXPECT_EQ(Do("GET", std::string(kClaims) + "/bg-claim").code, 404);

  // Foreground: the owner waits for its dependents.
  make("fg", "fg-claim");
  auto fg = Do("DELETE", pods + "fg",
               R"({"kind":"DeleteOptions","apiVersion":"v1",
                   "propagationPolicy":"Foreground"})");
  ASSERT_EQ(fg.code, 200) << fg.body;
  EXPECT_EQ(fg.JsonBody()["metadata"]["finalizers"][0], "foregroundDeletion");
  EXPECT_EQ(Do("GET", pods + "fg").code, 200);
  server_.RunControllersOnce();
  EXPECT_EQ(Do("GET", std::string(kClaims) + "/fg-claim").code, 404);
  server_.RunControllersOnce();
  EXPECT_EQ(Do("GET", pods + "fg").code, 404);

  // Orphan: the dependent stays, without the reference.
  make("or", "or-claim");
  ASSERT_EQ(Do("DELETE", pods + "or?propagationPolicy=Orphan").code, 200);
  server_.RunControllersOnce();
  EXPECT_EQ(Do("GET", pods + "or").code, 404);
  auto orphan = Do("GET", std::string(kClaims) + "/or-claim");
  ASSERT_EQ(orphan.code, 200);
  EXPECT_FALSE(orphan.JsonBody()["metadata"].contains("ownerReferences"));
  server_.RunControllersOnce();
  EXPECT_EQ(Do("GET", std::string(kClaims) + "/or-claim").code, 200);

  EXPECT_EQ(Do("DELETE", pods + "x?propagationPolicy=Sideways").code, 422);
}

TEST_F(ApiServerTest, InlineDeviceRequestBecomesAnOwnedTemplate) {
  // The seed guide's example 5 (v1beta1-style flat request under source).
  const std::string pod = R"({"apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"quick-gpu-job"},
    "spec":{"containers":[{"name":"compute","image":"cuda",
      "resources":{"claims":[{"name":"gpu-req"}]}}],
      "resourceClaims":[{"name":"gpu-req","resourceClaimTemplateName":"",
        "source":{"devices":{"requests":[{"name":"gpu",
          "deviceClassName":"gpu.nvidia.com-h100","count":1}]}}}],
      "restartPolicy":"Never"}})";
  auto created = Do("POST", "/api/v1/namespaces/default/pods", pod);
  ASSERT_EQ(created.code, 201) << created.body;
  EXPECT_NE(created.Header("Warning").find(
                "spec.resourceClaims[0].source: draplane extension"),
            std::string::npos);
  Json p = created.JsonBody();
  EXPECT_EQ(p["spec"]["resourceClaims"][0],
            (Json{{"name", "gpu-req"},
                  {"resourceClaimTemplateName", "quick-gpu-job-gpu-req"}}));
  const std::string templates =
      "/apis/resource.k8s.io/v1/namespaces/default/resourceclaimtemplates/";
  auto t = Do("GET", templates + "quick-gpu-job-gpu-req");
  ASSERT_EQ(t.code, 200);
  Json tj = t.JsonBody();
  EXPECT_EQ(tj["spec"]["spec"]["devices"]["requests"][0]["exactly"]
              ["deviceClassName"],
            "gpu.nvidia.com-h100");
  EXPECT_EQ(tj["metadata"]["ownerReferences"][0]["uid"], p["metadata"]["uid"]);
  // The template goes with its pod.
  ASSERT_EQ(Do("DELETE", "/api/v1/namespaces/default/pods/quick-gpu-job").code,
            200);
  server_.RunControllersOnce();
  EXPECT_EQ(Do("GET", templates + "quick-gpu-job-gpu-req").code, 404);
  // A malformed source is refused and nothing is stored.
  auto bad = Do("POST", "/api/v1/namespaces/default/pods",
                R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"b"},
                    "spec":{"containers":[{"name":"c","image":"x"}],
                    "resourceClaims":[{"name":"r","source":{"x":1}}]}})");
  EXPECT_EQ(bad.code, 400);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/pods/b").code, 404);
}

TEST_F(ApiServerTest, DeploymentScaleSubresource) {
  const std::string deployments =
      "/apis/apps/v1/namespaces/default/deployments";
  ASSERT_EQ(Do("POST", deployments,
               R"({"apiVersion":"apps/v1","kind":"Deployment",
                   "metadata":{"name":"d"},
                   "spec":{"replicas":6,"selector":{"matchLabels":{"app":"x"}},
                     "template":{"metadata":{"labels":{"app":"x"}},
                       "spec":{"containers":[{"name":"c","image":"i"}]}}}})")
                .code,
            201);
  auto scale = Do("GET", deployments + "/d/scale");
  ASSERT_EQ(scale.code, 200) << scale.body;
  Json sj = scale.JsonBody();
  EXPECT_EQ(sj["kind"], "Scale");
  EXPECT_EQ(sj["spec"]["replicas"], 6);
  EXPECT_EQ(sj["status"]["selector"], "app=x");
  auto patched =
      Do("PATCH", deployments + "/d/scale", R"({"spec":{"replicas":2}})",
         "application/merge-patch+json");
  ASSERT_EQ(patched.code, 200) << patched.body;
  EXPECT_EQ(patched.JsonBody()["spec"]["replicas"], 2);
  EXPECT_EQ(Do("GET", deployments + "/d").JsonBody()["spec"]["replicas"], 2);
  EXPECT_EQ(Do("PATCH", deployments + "/d/scale", R"({"spec":{"replicas":-1}})",
               "application/merge-patch+json")
                .code,
            422);
}

TEST_F(ApiServerTest, ServerSideApplyTracksFieldManagers) {
  const std::string url = std::string(kClasses) + "/ssa";
  auto apply = [&](const std::string& manager, const std::string& labels,
                   bool force = false) {
    return Do("PATCH",
              url + "?fieldManager=" + manager + (force ? "&force=true" : ""),
              "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n"
              "  name: ssa\n  labels: " +
                  labels + "\n",
              "application/apply-patch+yaml");
  };
  auto created = apply("a", "{x: '1', w: '2'}");
  ASSERT_EQ(created.code, 201) << created.body;
  Json managed = created.JsonBody()["metadata"]["managedFields"];
  ASSERT_EQ(managed.size(), 1u);
  EXPECT_EQ(managed[0]["manager"], "a");
  EXPECT_EQ(managed[0]["operation"], "Apply");
  EXPECT_EQ(managed[0]["fieldsV1"],
            Json::parse(R"({"f:metadata":{"f:labels":{"f:x":{},"f:w":{}}}})"));

  // Another applier setting x differently conflicts...
  auto conflict = apply("b", "{x: '3'}");
  EXPECT_EQ(conflict.code, 409);
  EXPECT_EQ(conflict.JsonBody()["message"],
            "Apply failed with 1 conflict: conflict with \"a\": "
            ".metadata.labels.x");
  // ...unless it forces, which takes the field over.
  auto forced = apply("b", "{x: '3'}", true);
  ASSERT_EQ(forced.code, 200) << forced.body;
  EXPECT_EQ(forced.JsonBody()["metadata"]["labels"]["x"], "3");
  // Agreeing on a value is no conflict.
  EXPECT_EQ(apply("c", "{x: '3'}").code, 200);

  // a stops applying w (only a owned it: removed) and x (owned by b and c:
  // kept).
  auto dropped = apply("a", "{z: '4'}");
  ASSERT_EQ(dropped.code, 200) << dropped.body;
  EXPECT_EQ(dropped.JsonBody()["metadata"]["labels"],
            (Json{{"x", "3"}, {"z", "4"}}));
  EXPECT_EQ(Do("PATCH", url, "{}", "application/apply-patch+yaml").code, 400);
}

// Upstream's field manager: an update without managedFields keeps the live
// ones (clients that trim them from their caches must not erase them); an
// explicit empty list resets them, and updates of an object without
// managedFields are not tracked (skipNonAppliedManager).
TEST_F(ApiServerTest, UpdateWithoutManagedFieldsKeepsTheLiveOnes) {
  const std::string url = std::string(kClasses) + "/mf";
  auto created = Do("PATCH", url + "?fieldManager=applier",
                    "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
                    "metadata:\n  name: mf\n  labels: {a: '1'}\n",
                    "application/apply-patch+yaml");
  ASSERT_EQ(created.code, 201) << created.body;
  Json object = created.JsonBody();
  object["metadata"].erase("managedFields");
  object["metadata"]["labels"]["b"] = "2";
  auto updated = Do("PUT", url + "?fieldManager=writer", api::DumpJson(object));
  ASSERT_EQ(updated.code, 200) << updated.body;
  Json managed = updated.JsonBody()["metadata"]["managedFields"];
  ASSERT_EQ(managed.size(), 2u) << managed;
  EXPECT_EQ(managed[0]["manager"], "applier");
  EXPECT_EQ(managed[1]["manager"], "writer");
  EXPECT_EQ(managed[1]["fieldsV1"],
            Json::parse(R"({"f:metadata":{"f:labels":{"f:b":{}}}})"));

  object = updated.JsonBody();
  object["metadata"]["managedFields"] = Json::array();
  object["metadata"]["labels"]["c"] = "3";
  auto reset = Do("PUT", url + "?fieldManager=writer", api::DumpJson(object));
  ASSERT_EQ(reset.code, 200) << reset.body;
  EXPECT_FALSE(reset.JsonBody()["metadata"].contains("managedFields"))
      << reset.body;
  object = reset.JsonBody();
  object["metadata"]["labels"]["d"] = "4";
  auto untracked =
      Do("PUT", url + "?fieldManager=writer", api::DumpJson(object));
  ASSERT_EQ(untracked.code, 200) << untracked.body;
  EXPECT_FALSE(untracked.JsonBody()["metadata"].contains("managedFields"))
      << untracked.body;
}

// Subresource writes never change managedFields from the request (upstream
// ignores them there): an empty list sent to /status resets nothing.
TEST_F(ApiServerTest, StatusUpdateCannotResetManagedFields) {
  ASSERT_EQ(Do("POST", kClaims, Claim("mfs")).code, 201);
  const std::string url = std::string(kClaims) + "/mfs";
  Json object = Do("GET", url).JsonBody();
  const size_t before = object["metadata"]["managedFields"].size();
  ASSERT_GE(before, 1u);
  object["metadata"]["managedFields"] = Json::array();
  object["status"] = Json::object();
  auto status =
      Do("PUT", url + "/status?fieldManager=writer", api::DumpJson(object));
  ASSERT_EQ(status.code, 200) << status.body;
  EXPECT_GE(status.JsonBody()["metadata"]["managedFields"].size(), before)
      << status.body;
}

TEST(ServerSideApplyTest, ListsFollowThePatchSchema) {
  const auto* pods = internal::FindResource("", "pods");
  Json pod = Json::parse(R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"p","finalizers":["a"]},
      "spec":{"containers":[{"name":"c","image":"i","args":["x"]}],
              "tolerations":[{"key":"k"}]}})");
  EXPECT_EQ(internal::FieldSetOf(*pods, pod),
            Json::parse(R"({"f:metadata":{"f:finalizers":{"v:\"a\"":{}}},
              "f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},
                "f:name":{},"f:image":{},"f:args":{}}},"f:tolerations":{}}})"));
}

// Denies claims labelled deny=yes, labels everything it admits.
class LabelPolicy : public AdmissionPlugin {
 public:
  std::string_view Name() const override { return "label-policy"; }
  absl::Status Admit(const AdmissionRequest& request, Json& object) override {
    seen.push_back(request.kind + "/" + request.name + "/" +
                   std::to_string(static_cast<int>(request.operation)) + "/" +
                   request.user);
    const Json labels = object.value("metadata", Json::object())
                            .value("labels", Json::object());
    if (labels.value("deny", "") == "yes") {
      return AdmissionError(403, "Forbidden", "denied by label-policy");
    }
    if (request.operation != AdmissionRequest::Operation::kDelete) {
      object["metadata"]["labels"]["admitted"] = "true";
    }
    return absl::OkStatus();
  }
  std::vector<std::string> seen;
};

TEST(ApiServerAdmissionTest, PluginsDenyAndMutate) {
  auto store = store::NewMemoryStore();
  auto policy = std::make_shared<LabelPolicy>();
  ApiServerOptions options;
  options.admission = {policy};
  ApiServer server(store.get(), options);
  auto run = [&](std::string method, std::string path, std::string body) {
    http::HttpRequest req;
    req.method = std::move(method);
    req.path = std::move(path);
    req.body = std::move(body);
    req.headers["content-type"] = "application/json";
    RecordingWriter w;
    server.Handle(req, w);
    return Response{w.code, w.headers, w.body};
  };
  Json claim = Json::parse(Claim("ok"));
  auto admitted = run("POST", kClaims, api::DumpJson(claim));
  ASSERT_EQ(admitted.code, 201) << admitted.body;
  EXPECT_EQ(admitted.JsonBody()["metadata"]["labels"]["admitted"], "true");
  claim["metadata"]["name"] = "no";
  claim["metadata"]["labels"] = Json{{"deny", "yes"}};
  auto denied = run("POST", kClaims, api::DumpJson(claim));
  EXPECT_EQ(denied.code, 403);
  EXPECT_EQ(denied.JsonBody()["message"], "denied by label-policy");
  EXPECT_EQ(run("GET", std::string(kClaims) + "/no", "").code, 404);
  EXPECT_EQ(run("DELETE", std::string(kClaims) + "/ok", "").code, 200);
  std::vector<std::string> claims;
  for (const std::string& s : policy->seen) {
    if (s.rfind("ResourceClaim/", 0) == 0) claims.push_back(s);
  }
  EXPECT_EQ(claims,
            (std::vector<std::string>{"ResourceClaim/ok/0/system:anonymous",
                                      "ResourceClaim/no/0/system:anonymous",
                                      "ResourceClaim/ok/2/system:anonymous"}));
}

TEST_F(ApiServerTest, UpdateManagersOwnWhatTheyChanged) {
  http::HttpRequest create = Request("POST", kClasses, DeviceClass("owned"));
  create.query.emplace("fieldManager", "editor");
  ASSERT_EQ(Do(create).code, 201);
  auto patched =
      Do(Request("PATCH", std::string(kClasses) + "/owned?fieldManager=labeler",
                 R"({"metadata":{"labels":{"tier":"b"}}})",
                 "application/merge-patch+json"));
  ASSERT_EQ(patched.code, 200) << patched.body;
  Json managed = patched.JsonBody()["metadata"]["managedFields"];
  ASSERT_EQ(managed.size(), 2u);
  EXPECT_EQ(managed[0]["manager"], "editor");
  EXPECT_EQ(managed[1]["manager"], "labeler");
  EXPECT_EQ(managed[1]["operation"], "Update");
  EXPECT_EQ(managed[1]["fieldsV1"],
            Json::parse(R"({"f:metadata":{"f:labels":{"f:tier":{}}}})"));
  EXPECT_FALSE(
      managed[0]["fieldsV1"]["f:metadata"]["f:labels"].contains("f:tier"));
  // An applier setting the labeler's field differently conflicts with it.
  auto conflict =
      Do("PATCH", std::string(kClasses) + "/owned?fieldManager=applier",
         "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n"
         "  name: owned\n  labels: {tier: c}\n",
         "application/apply-patch+yaml");
  EXPECT_EQ(conflict.code, 409);
  EXPECT_EQ(conflict.JsonBody()["message"],
            "Apply failed with 1 conflict: conflict with \"labeler\": "
            ".metadata.labels.tier");
}

TEST(ApiServerAuthTest, TokensAreRequiredExceptForVersionAndHealth) {
  auto store = store::NewMemoryStore();
  ApiServerOptions options;
  options.tokens = {"secret"};
  ApiServer server(store.get(), options);
  auto request = [&](std::string path, std::string auth) {
    http::HttpRequest req;
    req.method = "GET";
    req.path = std::move(path);
    if (!auth.empty()) req.headers["authorization"] = auth;
    RecordingWriter w;
    server.Handle(req, w);
    return w.code;
  };
  EXPECT_EQ(request("/version", ""), 200);
  EXPECT_EQ(request("/healthz", ""), 200);
  EXPECT_EQ(request("/api/v1/namespaces", ""), 401);
  EXPECT_EQ(request("/api/v1/namespaces", "Bearer wrong"), 401);
  EXPECT_EQ(request("/api/v1/namespaces", "Bearer secret"), 200);
}

}  // namespace
}  // namespace draplane::apiserver

namespace draplane::apiserver {
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
}  // namespace draplane::apiserver

namespace draplane::apiserver {
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
}  // namespace draplane::apiserver

namespace draplane::apiserver {
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

// /metrics serves what the option returns, authenticated.
TEST(ApiServerOptionsTest, MetricsAreServedWhenConfigured) {
  auto store = store::NewMemoryStore();
  ApiServerOptions options;
  options.tokens = {"secret"};
  options.metrics = [] { return std::string("up 1\n"); };
  ApiServer server(store.get(), options);
  http::HttpRequest req;
  req.method = "GET";
  req.path = "/metrics";
  RecordingWriter anonymous;
  server.Handle(req, anonymous);
  EXPECT_EQ(anonymous.code, 401);
  req.headers["authorization"] = "Bearer secret";
  RecordingWriter w;
  server.Handle(req, w);
  EXPECT_EQ(w.code, 200);
  EXPECT_EQ(w.body, "up 1\n");
}

}  // namespace
}  // namespace draplane::apiserver

namespace draplane::apiserver {
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
}  // namespace draplane::apiserver
