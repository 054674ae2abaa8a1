#include "controllers/node_lifecycle_controller.h"

#include <optional>
#include <set>
#include <string>

#include "api/object_codec.h"
#include "clock/simulated_clock.h"
#include "controllers/resource_claim_controller.h"
#include "gtest/gtest.h"
#include "testing/eventually.h"
#include "testing/in_process_cluster.h"

namespace draplane::controllers {
namespace {

using api::Json;
using draplane::testing::Eventually;

// The controllers' time in these tests: upstream's periods, simulated.
SimulatedClock& TestClock() {
  static SimulatedClock* clock = new SimulatedClock();
  return *clock;
}

std::string Now() {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", TestClock().Now(),
                          absl::UTCTimeZone());
}

Json Node(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}}},
          {"status",
           {{"conditions",
             Json::array({{{"type", "Ready"},
                           {"status", "True"},
                           {"reason", "KubeletReady"},
                           {"message", "kubelet is posting ready status"},
                           {"lastHeartbeatTime", Now()},
                           {"lastTransitionTime", Now()}}})}}}};
}

Json Lease(const std::string& node) {
  return {{"apiVersion", "coordination.k8s.io/v1"},
          {"kind", "Lease"},
          {"metadata", {{"name", node}, {"namespace", "kube-node-lease"}}},
          {"spec",
           {{"holderIdentity", node},
            {"leaseDurationSeconds", 40},
            {"renewTime", Now()}}}};
}

Json Pod(const std::string& name, const std::string& node,
         const Json& tolerations, const std::string& claim = "") {
  Json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"namespace", "default"}}},
      {"spec",
       {{"nodeName", node},
        {"containers", Json::array({{{"name", "c"}, {"image", "x"}}})}}}};
  if (!tolerations.is_null()) pod["spec"]["tolerations"] = tolerations;
  if (!claim.empty()) {
    pod["spec"]["resourceClaims"] =
        Json::array({{{"name", "gpu"}, {"resourceClaimName", claim}}});
    pod["spec"]["containers"][0]["resources"] = {
        {"claims", Json::array({{{"name", "gpu"}}})}};
  }
  return pod;
}

Json Tolerate(const char* key, std::optional<int> seconds) {
  Json t = {{"key", key}, {"operator", "Exists"}, {"effect", "NoExecute"}};
  if (seconds.has_value()) t["tolerationSeconds"] = *seconds;
  return Json::array({t});
}

// The node's kubelet, driven by the test: Renew() renews its Lease.
class Heartbeat {
 public:
  Heartbeat(client::Client* c, std::string node)
      : c_(c), node_(std::move(node)) {}
  void set_beating(bool b) { beating_ = b; }
  bool beating() const { return beating_; }
  void Renew() {
    Json patch = {{"spec", {{"renewTime", Now()}}}};
    (void)c_->Patch(client::Kind("Lease"), "kube-node-lease", node_,
                    client::PatchType::kMerge, api::DumpJson(patch));
  }

 private:
  client::Client* c_;
  std::string node_;
  bool beating_ = true;
};

// Moves the controllers' simulated time. Each Step renews the Lease of a
// heartbeating node, waits until every thread that runs on the clock
// (`waiters`: control loops and work-queue workers) is idle on it, so the
// last pass has finished, and advances the clock.
class Timeline {
 public:
  Timeline(int waiters, Heartbeat* heartbeat = nullptr)
      : waiters_(waiters), heartbeat_(heartbeat) {}

  void Step(absl::Duration d) {
    if (heartbeat_ != nullptr && heartbeat_->beating()) heartbeat_->Renew();
    Settle();
    TestClock().Advance(d);
    Settle();
  }
  // Every clock thread idle: what the last Advance started has finished.
  void Settle() { ASSERT_TRUE(TestClock().AwaitWaiters(waiters_)); }
  // Steps until `done()` holds; false after `max_steps`.
  template <typename F>
  bool StepUntil(F done, absl::Duration step, int max_steps) {
    for (int i = 0; i < max_steps; ++i) {
      if (done()) return true;
      Step(step);
    }
    return done();
  }

 private:
  int waiters_;
  Heartbeat* heartbeat_;
};

api::Node GetNode(client::Client& c, const std::string& name) {
  auto o = c.Get(client::Kind("Node"), "", name);
  return o.ok() ? std::get<api::Node>(o->value) : api::Node{};
}

std::string ReadyStatus(const api::Node& node) {
  for (const auto& cond : node.status.conditions) {
    if (cond.type == "Ready") return cond.status;
  }
  return "";
}

std::set<std::string> Taints(const api::Node& node) {
  std::set<std::string> out;
  for (const auto& t : node.spec.taints) out.insert(t.key + ":" + t.effect);
  return out;
}

bool PodExists(client::Client& c, const std::string& name) {
  return c.Get(client::Kind("Pod"), "default", name).ok();
}

TEST(NodeLifecycleControllerTest,
     ANodeThatStopsHeartbeatingIsTaintedItsPodsEvictedItsClaimsFreed) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate(Node("gpu-1"));
  cluster->MustCreate(Lease("gpu-1"));
  // A node applied from a manifest, with no Lease: never monitored.
  cluster->MustCreate(Node("static-1"));
  Heartbeat heartbeat(&c, "gpu-1");

  // A claim allocated to a pod on gpu-1 (as the scheduler would leave it).
  cluster->MustCreate(
      {{"apiVersion", "resource.k8s.io/v1"},
       {"kind", "ResourceClaim"},
       {"metadata",
        {{"name", "gpu-claim"},
         {"namespace", "default"},
         {"finalizers",
          Json::array({"resource.kubernetes.io/delete-protection"})}}},
       {"spec",
        {{"devices",
          {{"requests",
            Json::array({{{"name", "gpu"},
                          {"exactly", {{"deviceClassName", "gpu"}}}}})}}}}}});
  api::Object victim = cluster->MustCreate(
      Pod("victim", "gpu-1", Tolerate("node.kubernetes.io/unreachable", 1),
          "gpu-claim"));
  Json status = {
      {"status",
       {{"allocation",
         {{"devices",
           {{"results", Json::array({{{"request", "gpu"},
                                      {"driver", "gpu.nvidia.com"},
                                      {"pool", "gpu-1"},
                                      {"device", "gpu-0"}}})}}}}},
        {"reservedFor", Json::array({{{"resource", "pods"},
                                      {"name", "victim"},
                                      {"uid", victim.metadata()->uid}}})}}}};
  client::PatchOptions po;
  po.subresource = "status";
  ASSERT_TRUE(c.Patch(client::Kind("ResourceClaim"), "default", "gpu-claim",
                      client::PatchType::kMerge, api::DumpJson(status), po)
                  .ok());
  // Tolerates unreachable forever: stays.
  cluster->MustCreate(
      Pod("patient", "gpu-1", Tolerate("node.kubernetes.io/unreachable", {})));
  // No toleration of its own: the API server's DefaultTolerationSeconds
  // gives it 300 s.
  api::Object defaulted =
      cluster->MustCreate(Pod("defaulted", "gpu-1", nullptr));
  const auto& tolerations =
      std::get<api::Pod>(defaulted.value).spec.tolerations;
  ASSERT_EQ(tolerations.size(), 2u);
  EXPECT_EQ(tolerations[0].key, "node.kubernetes.io/not-ready");
  EXPECT_EQ(tolerations[1].key, "node.kubernetes.io/unreachable");
  EXPECT_EQ(tolerations[1].toleration_seconds, 300);
  cluster->MustCreate(Pod("elsewhere", "static-1", nullptr));

  NodeLifecycleOptions options;  // upstream's 5 s period, 50 s grace
  options.clock = &TestClock();
  NodeLifecycleController nodes(&c, options);
  ASSERT_TRUE(nodes.Start().ok());
  ResourceClaimControllerOptions claim_options;
  claim_options.workers = 1;
  claim_options.clock = &TestClock();
  ResourceClaimController claims(&c, claim_options);
  ASSERT_TRUE(claims.Start().ok());
  // On the clock: the monitor, the claim worker and the leak check.
  Timeline timeline(3, &heartbeat);

  // Heartbeating: healthy for three grace periods.
  for (int i = 0; i < 30; ++i) timeline.Step(options.monitor_period);
  EXPECT_EQ(ReadyStatus(GetNode(c, "gpu-1")), "True");
  EXPECT_TRUE(Taints(GetNode(c, "gpu-1")).empty());

  // The node dies: nothing happens within the grace period, then it is
  // marked Unknown.
  heartbeat.set_beating(false);
  for (int i = 0; i < 9; ++i) timeline.Step(options.monitor_period);
  EXPECT_EQ(ReadyStatus(GetNode(c, "gpu-1")), "True");
  ASSERT_TRUE(timeline.StepUntil(
      [&] { return ReadyStatus(GetNode(c, "gpu-1")) == "Unknown"; },
      options.monitor_period, 4));
  api::Node dead = GetNode(c, "gpu-1");
  for (const auto& cond : dead.status.conditions) {
    if (cond.type != "Ready") continue;
    EXPECT_EQ(cond.reason, "NodeStatusUnknown");
    EXPECT_EQ(cond.message, "Kubelet stopped posting node status.");
  }
  ASSERT_TRUE(timeline.StepUntil(
      [&] {
        return Taints(GetNode(c, "gpu-1")) ==
               std::set<std::string>{
                   "node.kubernetes.io/unreachable:NoExecute",
                   "node.kubernetes.io/unreachable:NoSchedule"};
      },
      absl::Seconds(1), 10));
  // After its 1 s toleration the victim is evicted and its claim freed.
  ASSERT_TRUE(timeline.StepUntil([&] { return !PodExists(c, "victim"); },
                                 absl::Seconds(1), 10));
  ASSERT_TRUE(timeline.StepUntil(
      [&] {
        auto claim =
            c.Get(client::Kind("ResourceClaim"), "default", "gpu-claim");
        if (!claim.ok()) return false;
        const auto& rc = std::get<api::ResourceClaim>(claim->value);
        return !rc.status.allocation.has_value() &&
               rc.status.reserved_for.empty();
      },
      absl::Milliseconds(100), 100))
      << "the evicted pod's claim is deallocated";
  EXPECT_TRUE(PodExists(c, "patient"));
  EXPECT_TRUE(PodExists(c, "defaulted")) << "300 s have not passed";
  EXPECT_TRUE(PodExists(c, "elsewhere"));
  EXPECT_EQ(ReadyStatus(GetNode(c, "static-1")), "True");
  EXPECT_EQ(nodes.stats().pods_evicted, 1);
  EXPECT_EQ(nodes.stats().nodes_marked_unknown, 1);
  bool evicted_event = false;
  ASSERT_TRUE(Eventually([&] {
    auto events = c.List(client::Kind("Event"), "default");
    for (const auto& e : events->items) {
      const auto& ev = std::get<api::Event>(e.value);
      evicted_event |= ev.reason == "TaintManagerEviction" &&
                       ev.message == "Marking for deletion Pod default/victim";
    }
    return evicted_event;
  }));

  // The node comes back: its agent posts Ready=True and renews the Lease;
  // the taints go, its devices can be allocated again.
  api::Object back = *c.Get(client::Kind("Node"), "", "gpu-1");
  for (auto& cond : std::get<api::Node>(back.value).status.conditions) {
    cond.status = "True";
    cond.reason = "KubeletReady";
    cond.last_heartbeat_time = Now();
  }
  ASSERT_TRUE(c.UpdateStatus(back).ok());
  heartbeat.set_beating(true);
  ASSERT_TRUE(
      timeline.StepUntil([&] { return Taints(GetNode(c, "gpu-1")).empty(); },
                         options.monitor_period, 4));
  // Healthy again for two grace periods; the pods it kept stay.
  for (int i = 0; i < 20; ++i) timeline.Step(options.monitor_period);
  EXPECT_EQ(ReadyStatus(GetNode(c, "gpu-1")), "True");
  EXPECT_EQ(nodes.stats().nodes_marked_unknown, 1);
  EXPECT_TRUE(PodExists(c, "defaulted"));
}

TEST(NodeLifecycleControllerTest, ANotReadyNodeGetsTheNotReadyTaints) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  Json node = Node("sick");
  node["status"]["conditions"][0]["status"] = "False";
  cluster->MustCreate(node);
  cluster->MustCreate(Lease("sick"));
  cluster->MustCreate(Pod("intolerant", "sick", Json::array()));
  NodeLifecycleOptions options;
  options.clock = &TestClock();
  NodeLifecycleController nodes(&c, options);
  ASSERT_TRUE(nodes.Start().ok());
  Heartbeat heartbeat(&c, "sick");  // its kubelet runs and reports False
  Timeline timeline(1, &heartbeat);
  ASSERT_TRUE(timeline.StepUntil(
      [&] {
        return Taints(GetNode(c, "sick")) ==
               std::set<std::string>{"node.kubernetes.io/not-ready:NoExecute",
                                     "node.kubernetes.io/not-ready:NoSchedule"};
      },
      options.monitor_period, 4));
  // The API server gave the pod 300 s from the taint's timeAdded: there
  // until then, evicted at the first pass after.
  absl::Time added = absl::InfiniteFuture();
  for (const api::Taint& t : GetNode(c, "sick").spec.taints) {
    if (t.effect == "NoExecute") {
      ASSERT_TRUE(absl::ParseTime(absl::RFC3339_full, t.time_added.value_or(""),
                                  &added, nullptr));
    }
  }
  ASSERT_NE(added, absl::InfiniteFuture());
  while (TestClock().Now() + options.monitor_period <
         added + absl::Seconds(300)) {
    timeline.Step(options.monitor_period);
  }
  EXPECT_TRUE(PodExists(c, "intolerant"));
  EXPECT_TRUE(timeline.StepUntil([&] { return !PodExists(c, "intolerant"); },
                                 options.monitor_period, 3));
  EXPECT_GE(TestClock().Now(), added + absl::Seconds(300));
  EXPECT_EQ(nodes.stats().nodes_marked_unknown, 0);
  EXPECT_EQ(nodes.stats().pods_evicted, 1);
}

// The guide's failure case 3: while a node's driver restarts (its
// ResourceSlices withdrawn, then published again) the node keeps
// heartbeating, so nothing releases the claims of its running pods.
TEST(NodeLifecycleControllerTest,
     ADriverRestartDoesNotReleaseClaimsOfRunningPods) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate(Node("gpu-1"));
  cluster->MustCreate(Lease("gpu-1"));
  Heartbeat heartbeat(&c, "gpu-1");
  auto slice = [](int generation) {
    return Json{{"apiVersion", "resource.k8s.io/v1"},
                {"kind", "ResourceSlice"},
                {"metadata", {{"name", "gpu-1-gpu.nvidia.com"}}},
                {"spec",
                 {{"driver", "gpu.nvidia.com"},
                  {"nodeName", "gpu-1"},
                  {"pool",
                   {{"name", "gpu-1"},
                    {"generation", generation},
                    {"resourceSliceCount", 1}}},
                  {"devices", Json::array({{{"name", "gpu-0"}}})}}}};
  };
  cluster->MustCreate(slice(1));
  cluster->MustCreate(
      {{"apiVersion", "resource.k8s.io/v1"},
       {"kind", "ResourceClaim"},
       {"metadata",
        {{"name", "held"},
         {"namespace", "default"},
         {"finalizers",
          Json::array({"resource.kubernetes.io/delete-protection"})}}},
       {"spec",
        {{"devices",
          {{"requests",
            Json::array({{{"name", "gpu"},
                          {"exactly", {{"deviceClassName", "gpu"}}}}})}}}}}});
  api::Object pod =
      cluster->MustCreate(Pod("worker", "gpu-1", nullptr, "held"));
  Json running = {{"status", {{"phase", "Running"}}}};
  client::PatchOptions po;
  po.subresource = "status";
  ASSERT_TRUE(c.Patch(client::Kind("Pod"), "default", "worker",
                      client::PatchType::kMerge, api::DumpJson(running), po)
                  .ok());
  Json status = {
      {"status",
       {{"allocation",
         {{"devices",
           {{"results", Json::array({{{"request", "gpu"},
                                      {"driver", "gpu.nvidia.com"},
                                      {"pool", "gpu-1"},
                                      {"device", "gpu-0"}}})}}}}},
        {"reservedFor", Json::array({{{"resource", "pods"},
                                      {"name", "worker"},
                                      {"uid", pod.metadata()->uid}}})}}}};
  ASSERT_TRUE(c.Patch(client::Kind("ResourceClaim"), "default", "held",
                      client::PatchType::kMerge, api::DumpJson(status), po)
                  .ok());
  NodeLifecycleOptions options;
  options.clock = &TestClock();
  NodeLifecycleController nodes(&c, options);
  ASSERT_TRUE(nodes.Start().ok());
  ResourceClaimControllerOptions claim_options;
  claim_options.workers = 1;
  claim_options.leak_check_period = absl::Seconds(10);
  claim_options.clock = &TestClock();
  ResourceClaimController claims(&c, claim_options);
  ASSERT_TRUE(claims.Start().ok());
  Timeline timeline(3, &heartbeat);

  // The plugin goes away and comes back two minutes later (twelve leak
  // checks, more than two grace periods), the node heartbeating.
  ASSERT_TRUE(
      c.Delete(client::Kind("ResourceSlice"), "", "gpu-1-gpu.nvidia.com").ok());
  for (int i = 0; i < 24; ++i) timeline.Step(options.monitor_period);
  cluster->MustCreate(slice(2));
  for (int i = 0; i < 6; ++i) timeline.Step(options.monitor_period);
  auto claim = c.Get(client::Kind("ResourceClaim"), "default", "held");
  ASSERT_TRUE(claim.ok());
  const auto& rc = std::get<api::ResourceClaim>(claim->value);
  EXPECT_TRUE(rc.status.allocation.has_value());
  ASSERT_EQ(rc.status.reserved_for.size(), 1u);
  EXPECT_EQ(rc.status.reserved_for[0].name, "worker");
  EXPECT_TRUE(PodExists(c, "worker"));
  EXPECT_EQ(ReadyStatus(GetNode(c, "gpu-1")), "True");
  EXPECT_EQ(claims.stats().leaked_devices, 0);
}

}  // namespace
}  // namespace draplane::controllers
