// A standalone cluster in one process, as `draplane server --nodes` runs
// it: API server, scheduler, resourceclaim controller and simulated GPU
// nodes whose kubelet prepares claims over the real gRPC socket.
#include "node_agent/node_agent.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "api/object.h"
#include "common/str_cat.h"
#include "controllers/job_controller.h"
#include "controllers/resource_claim_controller.h"
#include "devices/fake_backend.h"
#include "gtest/gtest.h"
#include "scheduler/scheduler.h"
#include "testing/eventually.h"
#include "testing/in_process_cluster.h"

namespace draplane::node_agent {
namespace {

namespace fs = std::filesystem;
using api::Json;
using testing::Consistently;
using testing::Eventually;

constexpr char kInventory[] = R"(
nodes:
- name: node1
  gpus:
  - {model: A100-80GB-PCIE, count: 2, migEnabled: true}
- name: node2
  gpus:
  - {model: H100, count: 2}
)";

class StandaloneClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/dpna-XXXXXX";
    dir_ = mkdtemp(tmpl);
    std::ofstream(dir_ + "/boot_id") << "boot-1\n";
    cluster_ = *testing::InProcessCluster::Start();
    controller_client_ = cluster_->NewClient();
    claims_ = std::make_unique<controllers::ResourceClaimController>(
        controller_client_.get());
    ASSERT_TRUE(claims_->Start().ok());
    scheduler_client_ = cluster_->NewClient();
    scheduler::SchedulerOptions so;
    so.also_default_scheduler = true;
    scheduler_ = *scheduler::Scheduler::Create(scheduler_client_.get(), so);
    ASSERT_TRUE(scheduler_->Start().ok());
    inventory_ = *devices::ParseInventory(kInventory, "inventory");
    for (const devices::InventoryNode& n : inventory_.nodes) {
      backends_[n.name] = std::make_unique<devices::FakeDeviceBackend>(n.gpus);
      StartNode(n.name);
    }
    Apply(R"({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
      "metadata": {"name": "gpu.nvidia.com"},
      "spec": {"selectors": [{"cel": {"expression":
        "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"}}]}})");
    Apply(R"({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
      "metadata": {"name": "mig-3g40gb"},
      "spec": {"selectors": [{"cel": {"expression":
        "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].profile == '3g.40gb'"}}]}})");
  }
  void TearDown() override {
    agents_.clear();
    scheduler_->Stop();
    claims_->Stop();
    fs::remove_all(dir_);
  }

  void StartNode(const std::string& name) {
    NodeAgentOptions o;
    o.node_name = name;
    o.root_dir = StrCat(dir_, "/", name);
    o.boot_id_path = dir_ + "/boot_id";
    o.heartbeat_period = absl::Milliseconds(200);
    o.device_poll_period = absl::Milliseconds(100);
    clients_[name] = cluster_->NewClient();
    auto agent =
        NodeAgent::Start(o, clients_[name].get(), backends_[name].get());
    ASSERT_TRUE(agent.ok()) << agent.status();
    agents_[name] = *std::move(agent);
  }

  void Apply(const std::string& json) {
    cluster_->MustCreate(Json::parse(json));
  }

  void CreatePod(const std::string& name, const std::string& template_name) {
    Apply(R"({"apiVersion": "v1", "kind": "Pod",
      "metadata": {"name": ")" +
          name + R"(", "namespace": "default"},
      "spec": {"containers": [{"name": "main", "image": "cuda",
                               "resources": {"claims": [{"name": "gpu"}]}},
                              {"name": "sidecar", "image": "busybox"}],
               "resourceClaims": [{"name": "gpu",
                                   "resourceClaimTemplateName": ")" +
          template_name + R"("}]}})");
  }

  void CreateTemplate(const std::string& name, const std::string& cls) {
    Apply(
        R"({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
      "metadata": {"name": ")" +
        name + R"(", "namespace": "default"},
      "spec": {"spec": {"devices": {"requests": [{"name": "gpu",
        "exactly": {"deviceClassName": ")" +
        cls + R"("}}]}}}})");
  }

  std::optional<api::Pod> GetPod(const std::string& name) {
    auto o = cluster_->client().Get(client::Kind("Pod"), "default", name);
    if (!o.ok()) return std::nullopt;
    return std::get<api::Pod>(o->value);
  }

  bool Running(const std::string& name) {
    auto pod = GetPod(name);
    return pod && pod->status.phase == "Running";
  }

  std::string dir_;
  std::unique_ptr<testing::InProcessCluster> cluster_;
  std::unique_ptr<client::Client> controller_client_, scheduler_client_;
  std::unique_ptr<controllers::ResourceClaimController> claims_;
  std::unique_ptr<scheduler::Scheduler> scheduler_;
  devices::Inventory inventory_;
  std::map<std::string, std::unique_ptr<devices::FakeDeviceBackend>> backends_;
  std::map<std::string, std::unique_ptr<client::Client>> clients_;
  std::map<std::string, std::unique_ptr<NodeAgent>> agents_;
};

TEST_F(StandaloneClusterTest, NodesPublishAndPodsRunWithTheirCdiDevices) {
  // Each node published its pool: node1 two A100s in MIG mode (25
  // placements each), node2 two H100s (26 devices each, one counter set
  // each).
  auto slices = cluster_->client().List(client::Kind("ResourceSlice"), "");
  ASSERT_TRUE(slices.ok());
  std::map<std::string, int> devices;
  for (const api::Object& o : slices->items) {
    const auto& s = std::get<api::ResourceSlice>(o.value);
    devices[*s.spec.node_name] += static_cast<int>(s.spec.devices.size());
  }
  EXPECT_EQ(devices["node1"], 50);
  EXPECT_EQ(devices["node2"], 52);

  CreateTemplate("whole-gpu", "gpu.nvidia.com");
  CreateTemplate("mig", "mig-3g40gb");
  for (int i = 0; i < 2; ++i) CreatePod(StrCat("trainer-", i), "whole-gpu");
  for (int i = 0; i < 4; ++i) CreatePod(StrCat("infer-", i), "mig");
  for (const char* pod :
       {"trainer-0", "trainer-1", "infer-0", "infer-1", "infer-2", "infer-3"}) {
    ASSERT_TRUE(Eventually([&] { return Running(pod); }, absl::Seconds(20)))
        << pod << " is not Running";
  }
  auto pod = GetPod("infer-2");
  EXPECT_EQ(pod->spec.node_name, "node1");  // A100s only serve 3g.40gb
  const std::string cdi = pod->metadata.annotations.at(kCdiDevicesAnnotation);
  Json ids = Json::parse(cdi);
  ASSERT_EQ(ids["main"].size(), 1u);
  EXPECT_EQ(ids.count("sidecar"), 0u);
  EXPECT_EQ(
      ids["main"][0].get<std::string>().rfind("k8s.gpu.nvidia.com/claim=", 0),
      0u);
  // Four 3g.40gb instances exist on node1's GPUs; a fifth does not fit.
  int migs = 0;
  const auto facts = backends_["node1"]->Discover();
  ASSERT_TRUE(facts.ok());
  for (const auto& g : facts->gpus) {
    migs += static_cast<int>(g.mig_devices.size());
  }
  EXPECT_EQ(migs, 4);
  CreatePod("infer-4", "mig");
  EXPECT_TRUE(Consistently([&] { return !Running("infer-4"); },
                           absl::Milliseconds(500)));
  EXPECT_TRUE(GetPod("infer-4")->spec.node_name.empty());

  // Deleting a pod unprepares its claim: its MIG device and CDI spec go,
  // and the waiting pod gets the freed placement.
  const auto cdi_files = [&] {
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir_ + "/node1/cdi")) {
      n += e.path().extension() == ".json";
    }
    return n;
  };
  EXPECT_EQ(cdi_files(), 4);
  ASSERT_TRUE(cluster_->client()
                  .Delete(client::Kind("Pod"), "default", "infer-0")
                  .ok());
  ASSERT_TRUE(
      Eventually([&] { return Running("infer-4"); }, absl::Seconds(20)));
  EXPECT_TRUE(Eventually([&] { return cdi_files() == 4; }));
}

TEST_F(StandaloneClusterTest, ARestartedNodeKeepsItsPreparedClaims) {
  CreateTemplate("whole-gpu", "gpu.nvidia.com");
  CreatePod("trainer", "whole-gpu");
  ASSERT_TRUE(
      Eventually([&] { return Running("trainer"); }, absl::Seconds(20)));
  const std::string node = GetPod("trainer")->spec.node_name;
  EXPECT_EQ(agents_[node]
                ->driver()
                .Claims(gpu_driver::ClaimState::kPrepareCompleted)
                .size(),
            1u);
  agents_.erase(node);  // the agent goes away (upgrade, crash)
  StartNode(node);
  EXPECT_EQ(agents_[node]
                ->driver()
                .Claims(gpu_driver::ClaimState::kPrepareCompleted)
                .size(),
            1u);
  EXPECT_TRUE(Running("trainer"));
  // The restarted kubelet still unprepares when the pod goes.
  ASSERT_TRUE(cluster_->client()
                  .Delete(client::Kind("Pod"), "default", "trainer")
                  .ok());
  EXPECT_TRUE(Eventually([&] {
    return agents_[node]
        ->driver()
        .Claims(gpu_driver::ClaimState::kPrepareCompleted)
        .empty();
  }));
}

TEST_F(StandaloneClusterTest, FailedPrepareIsAnEventOnThePod) {
  // The guide's DeviceClass config (an apiVersion NVIDIA's driver does not
  // know): scheduled, but the node cannot prepare it.
  Apply(R"({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
    "metadata": {"name": "seed-h100"},
    "spec": {"selectors": [{"cel": {"expression":
      "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H100 80GB HBM3' && device.attributes['gpu.nvidia.com'].type == 'gpu'"}}],
      "config": [{"opaque": {"driver": "gpu.nvidia.com", "parameters": {
        "apiVersion": "gpu.nvidia.com/v1alpha1", "kind": "GpuConfig",
        "sharing": {"strategy": "TimeSlicing",
                    "timeSlicingConfig": {"interval": "Short"}}}}}]}})");
  CreateTemplate("seed", "seed-h100");
  CreatePod("quick", "seed");
  std::string message;
  ASSERT_TRUE(Eventually(
      [&] {
        auto events = cluster_->client().List(client::Kind("Event"), "default");
        for (const api::Object& o : events->items) {
          const auto& e = std::get<api::Event>(o.value);
          if (e.reason == "FailedPrepareDynamicResources") message = e.message;
        }
        return !message.empty();
      },
      absl::Seconds(20)));
  EXPECT_NE(message.find("unsupported apiVersion \"gpu.nvidia.com/v1alpha1\""),
            std::string::npos)
      << message;
  EXPECT_FALSE(Running("quick"));
}

TEST_F(StandaloneClusterTest, HealthEventsRepublishWithTaints) {
  backends_["node2"]->InjectXid(1, 79);
  ASSERT_TRUE(Eventually([&] {
    auto slices = cluster_->client().List(client::Kind("ResourceSlice"), "");
    for (const api::Object& o : slices->items) {
      const auto& s = std::get<api::ResourceSlice>(o.value);
      for (const api::Device& d : s.spec.devices) {
        if (d.name == "gpu-1" && *s.spec.node_name == "node2" &&
            !d.rare->taints.empty()) {
          return d.rare->taints[0].key == "gpu.nvidia.com/xid";
        }
      }
    }
    return false;
  }));
}

// Device health reaches the pods using the device, as the kubelet reports
// it (KEP-4680): the plugin's DRAResourceHealth stream, then the pod's
// containerStatuses[].allocatedResourcesStatus.
TEST_F(StandaloneClusterTest, DeviceHealthShowsInThePodStatus) {
  CreateTemplate("whole-gpu", "gpu.nvidia.com");
  Apply(R"({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "trainer", "namespace": "default"},
    "spec": {"nodeSelector": {"kubernetes.io/hostname": "node2"},
             "containers": [{"name": "main", "image": "cuda",
                             "resources": {"claims": [{"name": "gpu"}]}},
                            {"name": "sidecar", "image": "busybox"}],
             "resourceClaims": [{"name": "gpu",
                                 "resourceClaimTemplateName": "whole-gpu"}]}})");
  // The container's resource status: [{name, resources: [{resourceID,
  // health, message?}]}]; null while there is none.
  const auto status = [&](const std::string& container) {
    auto pod = GetPod("trainer");
    if (!pod) return Json();
    const Json& statuses =
        pod->status.unknown_fields.value("containerStatuses", Json::array());
    for (const Json& c : statuses) {
      if (c.value("name", "") == container) {
        return c.value("allocatedResourcesStatus", Json());
      }
    }
    return Json();
  };
  ASSERT_TRUE(Eventually(
      [&] {
        const Json s = status("main");
        return s.is_array() && s.size() == 1 &&
               s[0]["resources"][0].value("health", "") == "Healthy";
      },
      absl::Seconds(20)))
      << status("main").dump();
  const Json healthy = status("main");
  EXPECT_EQ(healthy[0]["name"], "claim:gpu");
  EXPECT_EQ(healthy[0]["resources"].size(), 1u);
  const std::string id = healthy[0]["resources"][0]["resourceID"];
  EXPECT_EQ(id.rfind("k8s.gpu.nvidia.com/claim=", 0), 0u) << id;
  EXPECT_TRUE(status("sidecar").is_null());

  // The GPU the pod holds reports a critical XID.
  auto claims =
      cluster_->client().List(client::Kind("ResourceClaim"), "default");
  ASSERT_TRUE(claims.ok());
  std::string device;
  for (const api::Object& o : claims->items) {
    const auto& c = std::get<api::ResourceClaim>(o.value);
    if (c.status.allocation) {
      device = c.status.allocation->devices.results[0].device;
    }
  }
  ASSERT_EQ(device.rfind("gpu-", 0), 0u) << device;
  backends_["node2"]->InjectXid(std::stoi(device.substr(4)), 79);
  ASSERT_TRUE(Eventually(
      [&] {
        const Json s = status("main");
        return s.is_array() && s.size() == 1 &&
               s[0]["resources"][0].value("health", "") == "Unhealthy";
      },
      absl::Seconds(20)))
      << status("main").dump();
  EXPECT_EQ(status("main")[0]["resources"][0]["message"],
            "NVML reported XID 79 on the GPU");
  EXPECT_EQ(status("main")[0]["resources"][0]["resourceID"], id);
}

// The kubelet's part alone, in front of a plugin served by another agent
// (as `draplane node --backend none --simulate-kubelet` beside the chart's
// DaemonSet): it waits for the plugin's registration socket, then prepares
// and unprepares over it.
TEST_F(StandaloneClusterTest, AKubeletAloneRegistersThePluginWhenItAppears) {
  agents_.erase("node2");
  const std::string root = dir_ + "/node2-plugin";
  SimulatedKubeletOptions k;
  k.node_name = "node2";
  k.driver_name = "gpu.nvidia.com";
  k.registration_socket = root + "/plugins_registry/gpu.nvidia.com-reg.sock";
  k.heartbeat_period = absl::Milliseconds(200);
  k.poll_period = absl::Milliseconds(100);
  auto kubelet_client = cluster_->NewClient();
  auto kubelet = SimulatedKubelet::Start(k, kubelet_client.get());
  ASSERT_TRUE(kubelet.ok()) << kubelet.status();

  CreateTemplate("whole-gpu", "gpu.nvidia.com");
  Apply(R"({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "on-node2", "namespace": "default"},
    "spec": {"nodeSelector": {"kubernetes.io/hostname": "node2"},
             "containers": [{"name": "main", "image": "cuda",
                             "resources": {"claims": [{"name": "gpu"}]}}],
             "resourceClaims": [{"name": "gpu",
                                 "resourceClaimTemplateName": "whole-gpu"}]}})");
  // Bound (node2's slices are still published) but not Running: no plugin.
  ASSERT_TRUE(Eventually([&] {
    auto pod = GetPod("on-node2");
    return pod && pod->spec.node_name == "node2";
  }));
  EXPECT_TRUE(Consistently([&] { return !Running("on-node2"); },
                           absl::Milliseconds(500)));

  NodeAgentOptions o;
  o.node_name = "node2";
  o.root_dir = root;
  o.boot_id_path = dir_ + "/boot_id";
  o.simulate_kubelet = false;
  o.device_poll_period = absl::Milliseconds(100);
  auto plugin_client = cluster_->NewClient();
  auto plugin =
      NodeAgent::Start(o, plugin_client.get(), backends_["node2"].get());
  ASSERT_TRUE(plugin.ok()) << plugin.status();
  ASSERT_TRUE(
      Eventually([&] { return Running("on-node2"); }, absl::Seconds(20)));
  EXPECT_EQ(
      GetPod("on-node2")->metadata.annotations.count(kCdiDevicesAnnotation),
      1u);
  EXPECT_EQ((*plugin)->driver().CheckpointedClaims().size(), 1u);

  ASSERT_TRUE(cluster_->client()
                  .Delete(client::Kind("Pod"), "default", "on-node2")
                  .ok());
  EXPECT_TRUE(Eventually(
      [&] { return (*plugin)->driver().CheckpointedClaims().empty(); },
      absl::Seconds(20)));
  (*kubelet)->Stop();
  (*plugin)->Stop();
}

}  // namespace
}  // namespace draplane::node_agent

namespace draplane::node_agent {
namespace {

// Simulated run times: a pod finishes, its claim is unprepared on the
// node and released; a Job with such pods completes.
TEST_F(StandaloneClusterTest, SimulatedRunTimesFinishPodsAndJobs) {
  auto jobs =
      std::make_unique<controllers::JobController>(controller_client_.get());
  ASSERT_TRUE(jobs->Start().ok());
  CreateTemplate("mig", "mig-3g40gb");
  Apply(R"({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "bench", "namespace": "default",
                 "annotations": {"dra.draplane.io/simulated-run-time": "1s",
                                 "dra.draplane.io/simulated-exit-code": "3"}},
    "spec": {"restartPolicy": "Never",
             "containers": [{"name": "main", "image": "cuda",
                             "resources": {"claims": [{"name": "gpu"}]}}],
             "resourceClaims": [{"name": "gpu",
                                 "resourceClaimTemplateName": "mig"}]}})");
  ASSERT_TRUE(Eventually(
      [&] {
        auto pod = GetPod("bench");
        return pod && pod->status.phase == "Failed";
      },
      absl::Seconds(20)));
  // Unprepared on the node: no MIG device, no CDI spec, nothing
  // checkpointed.
  EXPECT_TRUE(Eventually([&] {
    const auto facts = backends_["node1"]->Discover();
    for (const auto& g : facts->gpus) {
      if (!g.mig_devices.empty()) return false;
    }
    return agents_["node1"]
        ->driver()
        .Claims(gpu_driver::ClaimState::kPrepareCompleted)
        .empty();
  }));
  Apply(R"({"apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"name": "train", "namespace": "default"},
    "spec": {"completions": 2, "parallelism": 2, "template": {
      "metadata": {"annotations": {"dra.draplane.io/simulated-run-time": "1s"}},
      "spec": {"restartPolicy": "Never",
               "containers": [{"name": "main", "image": "cuda",
                               "resources": {"claims": [{"name": "gpu"}]}}],
               "resourceClaims": [{"name": "gpu",
                                   "resourceClaimTemplateName": "mig"}]}}}})");
  EXPECT_TRUE(Eventually(
      [&] {
        auto o =
            cluster_->client().Get(client::Kind("Job"), "default", "train");
        if (!o.ok()) return false;
        const auto& job = std::get<api::Job>(o->value);
        return job.status.succeeded == 2;
      },
      absl::Seconds(30)));
  jobs->Stop();
}

}  // namespace
}  // namespace draplane::node_agent
