// API server tests of writes beyond plain CRUD: pod binding, garbage
// collection, inline claim templates, the scale subresource, server-side
// apply and admission plugins.
#include <string>
#include <vector>

#include "apiserver/api_server.h"
#include "apiserver/api_server_test_util.h"
#include "apiserver/internal/resources.h"
#include "apiserver/internal/server_side_apply.h"
#include "clock/simulated_clock.h"
#include "common/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace draplane::apiserver::api_server_test {
namespace {

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
  // The guide's example 5 (v1beta1-style flat request under source).
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
                   request.user.name);
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

// A JSON request to `server` as an anonymous caller.
Response RunOn(ApiServer& server, std::string method, std::string path,
               std::string body) {
  http::HttpRequest req;
  req.method = std::move(method);
  req.path = std::move(path);
  req.body = std::move(body);
  req.headers["content-type"] = "application/json";
  RecordingWriter w;
  server.Handle(req, w);
  return Response{w.code, w.headers, w.body};
}

TEST(ApiServerAdmissionTest, PluginsDenyAndMutate) {
  auto store = store::NewMemoryStore();
  auto policy = std::make_shared<LabelPolicy>();
  ApiServerOptions options;
  options.admission = {policy};
  ApiServer server(store.get(), options);
  auto run = [&](std::string method, std::string path, std::string body) {
    return RunOn(server, std::move(method), std::move(path), std::move(body));
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

// Times written into objects come from the server's clock.
TEST(ApiServerClockTest, TimestampsAreTheClocks) {
  auto store = store::NewMemoryStore();
  SimulatedClock clock(absl::FromUnixSeconds(1767225600));
  ApiServerOptions options;
  options.clock = &clock;
  ApiServer server(store.get(), options);
  auto run = [&](std::string method, std::string path, std::string body) {
    http::HttpRequest req;
    req.method = std::move(method);
    req.path = std::move(path);
    req.query.emplace("fieldManager", "kubectl-create");
    req.body = std::move(body);
    req.headers["content-type"] = "application/json";
    RecordingWriter w;
    server.Handle(req, w);
    return Response{w.code, w.headers, w.body};
  };
  auto created = run("POST", kClaims, Claim("timed"));
  ASSERT_EQ(created.code, 201) << created.body;
  const Json meta = created.JsonBody()["metadata"];
  EXPECT_EQ(meta["creationTimestamp"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(meta["managedFields"][0]["time"], "2026-01-01T00:00:00Z");
  clock.Advance(absl::Hours(1));
  Json with_finalizer = created.JsonBody();
  with_finalizer["metadata"]["finalizers"] = Json::array({"example.com/keep"});
  ASSERT_EQ(
      run("PUT", std::string(kClaims) + "/timed", api::DumpJson(with_finalizer))
          .code,
      200);
  auto deleted = run("DELETE", std::string(kClaims) + "/timed", "");
  ASSERT_EQ(deleted.code, 200) << deleted.body;
  EXPECT_EQ(deleted.JsonBody()["metadata"]["deletionTimestamp"],
            "2026-01-01T01:00:00Z");
}

// As kube-apiserver's --event-ttl: an Event goes TTL after its last write.
TEST(ApiServerClockTest, EventsExpireTheirTtlAfterTheirLastWrite) {
  auto store = store::NewMemoryStore();
  SimulatedClock clock(absl::FromUnixSeconds(1767225600));
  ApiServerOptions options;
  options.clock = &clock;
  options.event_ttl = absl::Hours(1);
  ApiServer server(store.get(), options);
  auto run = [&](std::string method, std::string path, std::string body) {
    return RunOn(server, std::move(method), std::move(path), std::move(body));
  };
  const std::string events = "/api/v1/namespaces/default/events";
  auto event = [](const std::string& name, int count) {
    return R"({"apiVersion":"v1","kind":"Event","metadata":{"name":")" + name +
           R"(","namespace":"default"},"involvedObject":{"kind":"Pod",
           "name":"p","namespace":"default"},"reason":"Started",
           "message":"m","type":"Normal","count":)" +
           std::to_string(count) + "}";
  };
  ASSERT_EQ(run("POST", events, event("old", 1)).code, 201);
  ASSERT_EQ(run("POST", events, event("renewed", 1)).code, 201);
  ASSERT_EQ(run("POST", kClaims, Claim("not-an-event")).code, 201);
  server.RunControllersOnce();  // first seen now
  clock.Advance(absl::Minutes(59));
  server.RunControllersOnce();
  EXPECT_EQ(run("GET", events + "/old", "").code, 200);
  // A write restarts its TTL.
  Json renewed = run("GET", events + "/renewed", "").JsonBody();
  renewed["count"] = 2;
  ASSERT_EQ(run("PUT", events + "/renewed", api::DumpJson(renewed)).code, 200);
  server.RunControllersOnce();
  clock.Advance(absl::Minutes(2));
  server.RunControllersOnce();
  EXPECT_EQ(run("GET", events + "/old", "").code, 404);
  EXPECT_EQ(run("GET", events + "/renewed", "").code, 200);
  EXPECT_EQ(run("GET", std::string(kClaims) + "/not-an-event", "").code, 200);
  clock.Advance(absl::Minutes(59));  // an hour after its last write
  server.RunControllersOnce();
  EXPECT_EQ(run("GET", events + "/renewed", "").code, 404);
  EXPECT_EQ(run("GET", std::string(kClaims) + "/not-an-event", "").code, 200);
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

}  // namespace
}  // namespace draplane::apiserver::api_server_test
