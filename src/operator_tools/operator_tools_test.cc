// inventory, explain and doctor against a live draplane API server (in
// process, the same server `draplane server` runs) holding a cluster with
// one seeded instance of every problem doctor looks for.
#include <memory>

#include "api/object_codec.h"
#include "gtest/gtest.h"
#include "operator_tools/cluster_snapshot.h"
#include "operator_tools/doctor.h"
#include "operator_tools/inventory_report.h"
#include "operator_tools/pending_explainer.h"
#include "scheduler/testing/cluster_builder.h"
#include "testing/in_process_cluster.h"

namespace draplane::operator_tools {
namespace {

using api::Json;
namespace tb = scheduler::testing;

Json NotReadyNode(std::string_view name) {
  Json node = tb::NodeJson(name);
  node["status"]["conditions"][0]["status"] = "False";
  node["status"]["conditions"][0]["reason"] = "NodeStatusUnknown";
  return node;
}

Json PodOn(std::string_view ns, std::string_view name, std::string_view node) {
  return Json{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"namespace", ns}}},
      {"spec",
       {{"nodeName", node},
        {"containers", Json::array({{{"name", "c"}, {"image", "busybox"}}})}}}};
}

class OperatorToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cluster = testing::InProcessCluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
  }

  api::Object Create(const Json& json) { return cluster_->MustCreate(json); }

  void Namespace(std::string_view name) {
    Create({{"apiVersion", "v1"},
            {"kind", "Namespace"},
            {"metadata", {{"name", name}}}});
  }

  // Allocates `claim` to `devices` ("pool/device" of gpu.nvidia.com),
  // reserved for `pods` (name, uid).
  void Allocate(api::Object claim, const std::vector<std::string>& devices,
                const std::vector<std::pair<std::string, std::string>>& pods) {
    auto& c = std::get<api::ResourceClaim>(claim.value);
    api::AllocationResult allocation;
    for (const std::string& d : devices) {
      api::DeviceRequestAllocationResult r;
      r.request = "gpu";
      r.driver = "gpu.nvidia.com";
      r.pool = d.substr(0, d.find('/'));
      r.device = d.substr(d.find('/') + 1);
      allocation.devices.results.push_back(r);
    }
    c.status.allocation = allocation;
    for (const auto& [name, uid] : pods) {
      c.status.reserved_for.push_back({"", "pods", name, uid});
    }
    auto updated = cluster_->client().UpdateStatus(claim);
    ASSERT_TRUE(updated.ok()) << updated.status();
  }

  void SetPodPhase(api::Object pod, std::string phase) {
    std::get<api::Pod>(pod.value).status.phase = std::move(phase);
    auto updated = cluster_->client().UpdateStatus(pod);
    ASSERT_TRUE(updated.ok()) << updated.status();
  }

  // The cluster of the tests: every problem doctor checks, once.
  void SeedProblems() {
    Create(tb::NodeJson("node1"));
    Create(tb::SliceJson("node1", "gpu.nvidia.com",
                         tb::NvidiaGpus(2, "NVIDIA A100 80GB PCIe")));
    Create(tb::NodeJson("node2"));
    Json h100 = tb::SliceJson("node2", "gpu.nvidia.com",
                              tb::NvidiaGpus(4, "NVIDIA H100 80GB HBM3"));
    h100["spec"]["devices"][3]["taints"] =
        Json::array({{{"key", "gpu.nvidia.com/xid"},
                      {"value", "79"},
                      {"effect", "NoSchedule"}}});
    Create(h100);
    // GPUs by device plugin, no DRA driver.
    Json node3 = NotReadyNode("node3");
    node3["status"]["conditions"][0]["status"] = "True";
    node3["status"]["capacity"]["nvidia.com/gpu"] = "8";
    node3["status"]["allocatable"]["nvidia.com/gpu"] = "8";
    Create(node3);
    // A failed node with an allocated device.
    Create(NotReadyNode("node4"));
    Create(tb::SliceJson("node4", "gpu.nvidia.com",
                         tb::NvidiaGpus(1, "NVIDIA A100 80GB PCIe")));
    // An incomplete pool of a node that does not exist, and a stale slice.
    Json ghost = tb::SliceJson("ghost", "gpu.nvidia.com",
                               tb::NvidiaGpus(1, "NVIDIA A100 80GB PCIe"));
    ghost["spec"]["pool"]["resourceSliceCount"] = 2;
    Create(ghost);
    Json old = tb::SliceJson("node1", "gpu.nvidia.com",
                             tb::NvidiaGpus(1, "NVIDIA A100 80GB PCIe"));
    old["metadata"]["name"] = "node1-old";
    old["spec"]["pool"]["generation"] = 0;
    Create(old);

    Create(tb::GpuClassJson());
    Create({{"apiVersion", "resource.k8s.io/v1"},
            {"kind", "DeviceClass"},
            {"metadata", {{"name", "typo"}}},
            {"spec",
             {{"selectors",
               Json::array(
                   {{{"cel",
                      {{"expression",
                        "device.attributes['gpu.nvidia.com']."
                        "productname == 'NVIDIA A100 80GB PCIe'"}}}}})}}}});

    Namespace("ml");
    Namespace("old");
    // Pending: 8 GPUs fit nowhere.
    Create(tb::ClaimJson("ml", "big", "gpu", 8));
    Create(tb::ClaimPodJson("ml", "trainer", "big"));
    // Pending, fits.
    Create(tb::ClaimJson("ml", "small", "gpu", 1));
    Create(tb::ClaimPodJson("ml", "small", "small"));
    // Leaks.
    Allocate(Create(tb::ClaimJson("ml", "leaked", "gpu", 1)), {"node1/gpu-0"},
             {{"gone", "uid-of-a-deleted-pod"}});
    Allocate(Create(tb::ClaimJson("ml", "idle", "gpu", 1)), {"node2/gpu-0"},
             {});
    api::Object runner = Create(PodOn("ml", "runner", "node4"));
    SetPodPhase(runner, "Running");
    Allocate(Create(tb::ClaimJson("ml", "on-dead-node", "gpu", 1)),
             {"node4/gpu-0"}, {{"runner", runner.metadata()->uid}});
    // A pod of the extended-resource world.
    Json legacy = PodOn("old", "legacy", "node3");
    legacy["spec"]["containers"][0]["resources"] = {
        {"limits", {{"nvidia.com/gpu", "1"}}}};
    Create(legacy);
    // A quota used up.
    api::Object quota =
        Create({{"apiVersion", "v1"},
                {"kind", "ResourceQuota"},
                {"metadata", {{"name", "claims"}, {"namespace", "ml"}}},
                {"spec",
                 {{"hard", {{"count/resourceclaims.resource.k8s.io", "5"}}}}}});
    auto& q = std::get<api::ResourceQuota>(quota.value);
    q.status.hard["count/resourceclaims.resource.k8s.io"] =
        Quantity::FromInt64(5);
    q.status.used["count/resourceclaims.resource.k8s.io"] =
        Quantity::FromInt64(5);
    ASSERT_TRUE(cluster_->client().UpdateStatus(quota).ok());
    // The kubelet could not prepare a pod's claim, six times.
    Create({{"apiVersion", "v1"},
            {"kind", "Event"},
            {"metadata", {{"name", "small.1"}, {"namespace", "ml"}}},
            {"involvedObject",
             {{"kind", "Pod"}, {"namespace", "ml"}, {"name", "small"}}},
            {"reason", "FailedPrepareDynamicResources"},
            {"message",
             "prepare dynamic resources: NodePrepareResources "
             "failed: CDI spec write failed"},
            {"source", {{"component", "kubelet"}, {"host", "node2"}}},
            {"count", 6},
            {"type", "Warning"}});
  }

  // A snapshot as of ten minutes from now (the pending threshold is five).
  ClusterSnapshot Snapshot() {
    auto snapshot = TakeSnapshot(cluster_->client(), {});
    EXPECT_TRUE(snapshot.ok()) << snapshot.status();
    snapshot->taken_at += absl::Minutes(10);
    return *std::move(snapshot);
  }

  std::unique_ptr<testing::InProcessCluster> cluster_;
};

const CheckResult& Check(const std::vector<CheckResult>& results,
                         std::string_view id) {
  for (const CheckResult& r : results) {
    if (r.id == id) return r;
  }
  ADD_FAILURE() << "no check " << id;
  static CheckResult none;
  return none;
}

// "object: message" of every finding of a check.
std::vector<std::string> Lines(const CheckResult& r) {
  std::vector<std::string> out;
  for (const Finding& f : r.findings)
    out.push_back(f.object + ": " + f.message);
  return out;
}

bool AnyContains(const std::vector<std::string>& lines, std::string_view a,
                 std::string_view b = "") {
  for (const std::string& l : lines) {
    if (l.find(a) != std::string::npos && l.find(b) != std::string::npos) {
      return true;
    }
  }
  return false;
}

TEST_F(OperatorToolsTest, DoctorFindsEverySeededProblem) {
  SeedProblems();
  std::vector<CheckResult> results = RunDoctor(Snapshot(), DoctorOptions{});
  SCOPED_TRACE(DoctorText(results));
  EXPECT_TRUE(HasProblems(results));
  EXPECT_TRUE(Check(results, "dra-api").findings.empty());

  auto drivers = Lines(Check(results, "drivers"));
  EXPECT_EQ(drivers.size(), 1u);
  EXPECT_TRUE(AnyContains(drivers, "node node3", "nvidia.com/gpu=8"));

  auto pools = Lines(Check(results, "pools"));
  EXPECT_TRUE(AnyContains(pools, "pool gpu.nvidia.com/ghost", "incomplete"));
  EXPECT_TRUE(AnyContains(pools, "pool gpu.nvidia.com/ghost",
                          "node ghost, which does not exist"));
  EXPECT_TRUE(AnyContains(pools, "resourceslice node1-old", "stale"));
  EXPECT_TRUE(AnyContains(pools, "pool gpu.nvidia.com/node4", "not Ready"));
  EXPECT_EQ(pools.size(), 4u);

  auto classes = Lines(Check(results, "device-classes"));
  ASSERT_EQ(classes.size(), 1u);
  EXPECT_TRUE(AnyContains(classes, "deviceclass typo", "selects none"));
  EXPECT_TRUE(AnyContains(classes, "typo", "productName"))
      << "the closest attribute name is suggested";

  auto pending = Lines(Check(results, "pending-claims"));
  EXPECT_TRUE(AnyContains(pending, "resourceclaim ml/big",
                          "0/4 nodes could allocate it"));
  EXPECT_TRUE(AnyContains(pending, "resourceclaim ml/small",
                          "nodes could allocate it"));
  EXPECT_EQ(pending.size(), 2u);

  auto leaks = Lines(Check(results, "leaks"));
  EXPECT_TRUE(AnyContains(leaks, "resourceclaim ml/leaked", "gone (deleted)"));
  EXPECT_TRUE(AnyContains(leaks, "resourceclaim ml/idle", "reserved for no"));
  EXPECT_TRUE(AnyContains(leaks, "resourceclaim ml/on-dead-node",
                          "node node4, which is not Ready"));
  EXPECT_EQ(leaks.size(), 3u);

  auto quota = Check(results, "quota");
  ASSERT_EQ(quota.findings.size(), 1u);
  EXPECT_EQ(quota.findings[0].severity, Severity::kError);
  EXPECT_TRUE(AnyContains(Lines(quota), "resourcequota ml/claims", "5 of 5"));

  auto plugin = Check(results, "plugin-errors");
  ASSERT_EQ(plugin.findings.size(), 1u);
  EXPECT_EQ(plugin.findings[0].severity, Severity::kError);  // 6 >= 5
  EXPECT_TRUE(AnyContains(Lines(plugin), "node node2", "CDI spec write"));

  auto taints = Lines(Check(results, "device-taints"));
  ASSERT_EQ(taints.size(), 1u);
  EXPECT_TRUE(AnyContains(taints, "gpu.nvidia.com/node2/gpu-3",
                          "gpu.nvidia.com/xid=79:NoSchedule"));

  // Every finding says how to fix it.
  for (const CheckResult& r : results) {
    for (const Finding& f : r.findings) EXPECT_FALSE(f.fix.empty()) << f.object;
  }
  api::Json json = DoctorJson(results);
  EXPECT_EQ(json["checks"].size(), 9u);
  EXPECT_EQ(json["checks"][0]["status"], "ok");
}

TEST_F(OperatorToolsTest, DoctorOnAHealthyClusterFindsNothing) {
  Create(tb::NodeJson("node1"));
  Create(tb::SliceJson("node1", "gpu.nvidia.com",
                       tb::NvidiaGpus(2, "NVIDIA A100 80GB PCIe")));
  Create(tb::GpuClassJson());
  Namespace("ml");
  api::Object pod = Create(PodOn("ml", "runner", "node1"));
  SetPodPhase(pod, "Running");
  Allocate(Create(tb::ClaimJson("ml", "used", "gpu", 1)), {"node1/gpu-0"},
           {{"runner", pod.metadata()->uid}});
  std::vector<CheckResult> results = RunDoctor(Snapshot(), DoctorOptions{});
  EXPECT_FALSE(HasProblems(results)) << DoctorText(results);
  EXPECT_NE(DoctorText(results).find("No problems found."), std::string::npos);
}

TEST_F(OperatorToolsTest, DoctorWithoutDriversSaysSo) {
  Create(tb::NodeJson("node1"));
  std::vector<CheckResult> results = RunDoctor(Snapshot(), DoctorOptions{});
  auto drivers = Lines(Check(results, "drivers"));
  EXPECT_TRUE(AnyContains(drivers, "cluster", "no ResourceSlices"));
  ClusterSnapshot not_served;
  not_served.dra_served = false;
  not_served.dra_error = "the server could not find the requested resource";
  auto r = RunDoctor(not_served, DoctorOptions{});
  EXPECT_EQ(Check(r, "dra-api").findings.size(), 1u);
}

TEST_F(OperatorToolsTest, ExplainPodNodeByNode) {
  SeedProblems();
  ClusterSnapshot snapshot = Snapshot();
  auto e = ExplainPod(snapshot, "ml", "trainer", {});
  ASSERT_TRUE(e.ok()) << e.status();
  SCOPED_TRACE(ExplanationText(*e));
  EXPECT_EQ(e->state, "Pending");
  EXPECT_TRUE(e->blocker.empty());
  EXPECT_TRUE(AnyContains(e->facts, "claim resource -> ml/big: pending",
                          "gpu: 8 x gpu"));
  ASSERT_EQ(e->nodes.size(), 4u);
  for (const NodeVerdict& v : e->nodes) {
    EXPECT_FALSE(v.fits) << v.node;
    if (v.node == "node1") {
      ASSERT_EQ(v.claims.size(), 1u);
      ASSERT_EQ(v.claims[0].requests.size(), 1u);
      EXPECT_EQ(v.claims[0].requests[0].needed, 8);
      EXPECT_EQ(v.claims[0].requests[0].offered, 2);
      EXPECT_EQ(v.claims[0].requests[0].in_use, 1);  // ml/leaked
    }
    if (v.node == "node4") {
      EXPECT_EQ(v.reason, "node(s) were not ready");
    }
  }
  // --node
  auto one = ExplainPod(snapshot, "ml", "trainer", {"node2"});
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->nodes.size(), 1u);
  EXPECT_EQ(one->nodes[0].node, "node2");
  EXPECT_EQ(ExplainPod(snapshot, "ml", "trainer", {"nope"}).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(ExplainPod(snapshot, "ml", "nope", {}).status().code(),
            absl::StatusCode::kNotFound);

  // A pod that fits says where and with which devices.
  auto small = ExplainPod(snapshot, "ml", "small", {"node1"});
  ASSERT_TRUE(small.ok());
  ASSERT_EQ(small->nodes.size(), 1u);
  EXPECT_TRUE(small->nodes[0].fits);
  EXPECT_TRUE(
      AnyContains(small->nodes[0].devices, "gpu.nvidia.com/node1/gpu-1"));
  api::Json json = ExplanationJson(*small);
  EXPECT_EQ(json["nodes"][0]["fits"], true);
}

TEST_F(OperatorToolsTest, ExplainClaimAndBlockers) {
  SeedProblems();
  Create(tb::ClaimJson("old", "no-class", "missing-class", 1));
  Create(tb::ClaimPodJson("old", "waiting", "not-created-yet"));
  ClusterSnapshot snapshot = Snapshot();
  auto leaked = ExplainClaim(snapshot, "ml", "leaked", {});
  ASSERT_TRUE(leaked.ok());
  EXPECT_EQ(leaked->state.rfind("Allocated", 0), 0u) << leaked->state;
  EXPECT_TRUE(AnyContains(leaked->facts, "reserved for pods gone (gone)"));

  auto big = ExplainClaim(snapshot, "ml", "big", {});
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->nodes.size(), 4u);  // no node filters for a claim alone
  EXPECT_TRUE(AnyContains(big->facts, "draplane explain pod trainer"));
  EXPECT_NE(ExplanationText(*big).find("0/4 nodes fit"), std::string::npos);

  auto no_class = ExplainClaim(snapshot, "old", "no-class", {});
  ASSERT_TRUE(no_class.ok());
  EXPECT_EQ(no_class->blocker,
            "request gpu: device class missing-class does not exist");

  auto waiting = ExplainPod(snapshot, "old", "waiting", {});
  ASSERT_TRUE(waiting.ok());
  EXPECT_EQ(waiting->blocker,
            "resourceclaim.resource.k8s.io \"not-created-yet\" not found");
  EXPECT_TRUE(waiting->nodes.empty());
}

TEST_F(OperatorToolsTest, InventoryCountsBothWorlds) {
  SeedProblems();
  InventoryReport r = BuildInventory(Snapshot());
  SCOPED_TRACE(InventoryTable(r));
  ASSERT_EQ(r.extended_pods.size(), 1u);
  EXPECT_EQ(r.extended_pods[0].name, "legacy");
  EXPECT_EQ(r.extended_pods[0].resources, "nvidia.com/gpu=1");
  ASSERT_EQ(r.namespaces.size(), 1u);
  EXPECT_EQ(r.namespaces[0].gpus, 1);
  // node1, node2, node4 publish devices; node3 has capacity only.
  ASSERT_EQ(r.nodes.size(), 4u);
  EXPECT_EQ(r.nodes[2].name, "node3");
  EXPECT_EQ(r.nodes[2].capacity, "nvidia.com/gpu=8");
  EXPECT_EQ(r.nodes[2].dra_devices, 0);
  EXPECT_EQ(r.nodes[0].dra_devices, 2);  // the stale slice is not counted
  // The ghost pool is incomplete: not counted.
  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_EQ(r.devices[0].model, "NVIDIA A100 80GB PCIe");
  EXPECT_EQ(r.devices[0].devices, 3);
  EXPECT_EQ(r.devices[0].allocated, 2);  // leaked, on-dead-node
  EXPECT_EQ(r.devices[0].nodes, 2);
  EXPECT_EQ(r.devices[1].model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(r.devices[1].devices, 4);
  ASSERT_EQ(r.classes.size(), 2u);
  EXPECT_EQ(r.classes[0].name, "gpu");
  EXPECT_EQ(r.classes[0].selected, 7);
  EXPECT_EQ(r.classes[1].name, "typo");
  EXPECT_EQ(r.classes[1].selected, 0);
  ASSERT_EQ(r.claims.size(), 1u);
  EXPECT_EQ(r.claims[0].total, 5);
  EXPECT_EQ(r.claims[0].pending, 2);
  EXPECT_EQ(r.claims[0].allocated, 1);  // idle
  EXPECT_EQ(r.claims[0].in_use, 2);
  api::Json json = InventoryJson(r);
  EXPECT_EQ(json["extendedResourcePods"][0]["gpus"], 1);
  EXPECT_EQ(json["devices"].size(), 2u);
}

}  // namespace
}  // namespace draplane::operator_tools
