// The GPU driver behind the real kubelet plugin server, driven by a test
// client playing the kubelet over the unix sockets (registration, v1),
// with claims in an in-process API server: prepare, repeat, conflicting
// claims, bad opaque config, unprepare, and a plugin restart between
// calls and in the middle of a prepare.
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "api/object.h"
#include "common/str_cat.h"
#include "devices/fake_backend.h"
#include "gpu_driver/gpu_driver.h"
#include "gtest/gtest.h"
#include "kubelet_plugin/plugin_client.h"
#include "kubelet_plugin/plugin_server.h"
#include "testing/in_process_cluster.h"

namespace draplane::gpu_driver {
namespace {

namespace fs = std::filesystem;
using kubelet_plugin::ClaimRef;
using kubelet_plugin::PluginClient;
using kubelet_plugin::PluginServer;

class GpuDriverGrpcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/dpgg-XXXXXX";
    dir_ = mkdtemp(tmpl);
    std::ofstream(dir_ + "/boot_id") << "boot-1\n";
    cluster_ = *testing::InProcessCluster::Start();
    api_ = cluster_->NewClient();
    auto inv = devices::ParseInventory(
        "nodes:\n- name: node1\n  gpus:\n  - {model: H100, count: 2}\n", "t");
    backend_ = std::make_unique<devices::FakeDeviceBackend>(inv->nodes[0].gpus);
    StartPlugin();
  }
  void TearDown() override {
    kubelet_.reset();
    server_.reset();
    driver_.reset();
    fs::remove_all(dir_);
  }

  // The plugin as a process would start it: driver (checkpoint), server,
  // and the kubelet registering it.
  void StartPlugin() {
    GpuDriverOptions o;
    o.node_name = "node1";
    o.plugin_data_dir = dir_ + "/plugins/gpu.nvidia.com";
    o.cdi_root = dir_ + "/cdi";
    o.boot_id_path = dir_ + "/boot_id";
    auto driver = GpuDriver::Start(o, backend_.get());
    ASSERT_TRUE(driver.ok()) << driver.status();
    driver_ = *std::move(driver);
    kubelet_plugin::PluginServerOptions so{"gpu.nvidia.com", o.plugin_data_dir,
                                           dir_ + "/plugins_registry"};
    auto server = PluginServer::Start(so, api_.get(), driver_.get());
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    auto kubelet = PluginClient::Register(server_->registration_socket());
    ASSERT_TRUE(kubelet.ok()) << kubelet.status();
    kubelet_ = *std::move(kubelet);
  }
  void StopPlugin() {
    kubelet_.reset();
    server_.reset();
    driver_.reset();
  }

  // An allocated claim in the API server; returns its reference.
  ClaimRef Claim(const std::string& name, const std::string& device,
                 const std::string& config = "") {
    api::Object o = cluster_->MustCreate(api::Json::parse(R"({
      "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
      "metadata": {"name": ")" + name + R"(", "namespace": "default"},
      "spec": {"devices": {"requests": [{"name": "gpu",
        "exactly": {"deviceClassName": "gpu"}}]}}})"));
    auto& claim = std::get<api::ResourceClaim>(o.value);
    api::AllocationResult a;
    a.devices.results.push_back(
        {"gpu", "gpu.nvidia.com", "node1", device, {}, {}, {}, {}, {}, {}});
    if (!config.empty()) {
      api::DeviceAllocationConfiguration c;
      c.source = "FromClaim";
      c.opaque = api::OpaqueDeviceConfiguration{"gpu.nvidia.com",
                                                api::Json::parse(config)};
      a.devices.config.push_back(c);
    }
    claim.status.allocation = a;
    EXPECT_TRUE(cluster_->client().UpdateStatus(o).ok());
    return {"default", name, o.metadata()->uid};
  }

  kubelet_plugin::PrepareResult Prepare(const ClaimRef& ref) {
    auto results = kubelet_->Prepare({ref});
    EXPECT_TRUE(results.ok()) << results.status();
    return results.ok() ? results->at(ref.uid)
                        : kubelet_plugin::PrepareResult{};
  }

  std::string dir_;
  std::unique_ptr<testing::InProcessCluster> cluster_;
  std::unique_ptr<client::Client> api_;
  std::unique_ptr<devices::FakeDeviceBackend> backend_;
  std::unique_ptr<GpuDriver> driver_;
  std::unique_ptr<PluginServer> server_;
  std::unique_ptr<PluginClient> kubelet_;
};

TEST_F(GpuDriverGrpcTest, PrepareRepeatConflictBadConfigUnprepare) {
  ASSERT_NE(api_, nullptr);
  const ClaimRef a = Claim("a", "gpu-0-mig-3g40gb-9-4");
  auto first = Prepare(a);
  ASSERT_TRUE(first.status.ok()) << first.status;
  ASSERT_EQ(first.devices.size(), 1u);
  EXPECT_EQ(first.devices[0].cdi_device_ids,
            std::vector<std::string>{"k8s.gpu.nvidia.com/claim=" + a.uid +
                                     "-gpu-0-mig-3g40gb-9-4"});
  EXPECT_TRUE(
      fs::exists(dir_ + "/cdi/k8s.gpu.nvidia.com-claim_" + a.uid + ".json"));
  // The kubelet repeats itself: same answer, nothing created again.
  auto again = Prepare(a);
  EXPECT_EQ(again.devices[0].cdi_device_ids, first.devices[0].cdi_device_ids);
  EXPECT_EQ(backend_->mig_creations(), 1);
  // "a" is deallocated in the API while the node still has it prepared
  // (its unprepare never came); the device goes to "b": the driver
  // refuses to hand it out twice. A bad opaque config is refused with
  // NVIDIA's text.
  {
    auto o =
        cluster_->client().Get(client::Kind("ResourceClaim"), "default", "a");
    ASSERT_TRUE(o.ok());
    std::get<api::ResourceClaim>(o->value).status.allocation.reset();
    ASSERT_TRUE(cluster_->client().UpdateStatus(*o).ok());
  }
  const ClaimRef b = Claim("b", "gpu-0-mig-3g40gb-9-4");
  EXPECT_NE(Prepare(b).status.message().find(
                "is already allocated to different claim default/a:" + a.uid),
            std::string::npos);
  const ClaimRef c = Claim(
      "c", "gpu-1",
      R"({"apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig",
          "sharing": {"strategy": "TimeSlicing",
                      "timeSlicingConfig": {"interval": "Forever"}}})");
  EXPECT_NE(
      Prepare(c).status.message().find("unknown time-slice interval: Forever"),
      std::string::npos);
  // Unprepare, twice, and of a claim never prepared.
  for (int i = 0; i < 2; ++i) {
    auto un = kubelet_->Unprepare({a, {"default", "never", "uid-never"}});
    ASSERT_TRUE(un.ok());
    EXPECT_TRUE(un->at(a.uid).ok());
    EXPECT_TRUE(un->at("uid-never").ok());
  }
  EXPECT_EQ(backend_->mig_destructions(), 1);
  EXPECT_FALSE(
      fs::exists(dir_ + "/cdi/k8s.gpu.nvidia.com-claim_" + a.uid + ".json"));
}

TEST_F(GpuDriverGrpcTest, PluginRestartsBetweenAndDuringPrepares) {
  const ClaimRef done = Claim("done", "gpu-0");
  ASSERT_TRUE(Prepare(done).status.ok());
  // The plugin dies while preparing "half": its checkpoint says
  // PrepareStarted and its MIG device exists.
  const ClaimRef half = Claim("half", "gpu-1-mig-1g10gb-19-2");
  StopPlugin();
  {
    CheckpointFile file(dir_ + "/plugins/gpu.nvidia.com/checkpoint.json");
    Checkpoint cp = *file.Read();
    ClaimRecord r;
    r.namespace_ = "default";
    r.name = "half";
    r.allocated_devices = {"gpu-1-mig-1g10gb-19-2"};
    cp.claims[half.uid] = r;
    ASSERT_TRUE(file.Write(cp).ok());
    ASSERT_TRUE(
        backend_->CreateMigDevice(backend_->Discover()->gpus[1].uuid, 19, 2)
            .ok());
  }
  StartPlugin();
  // The kubelet calls again for both (it always does after a restart).
  auto results = kubelet_->Prepare({done, half});
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_TRUE(results->at(done.uid).status.ok());
  ASSERT_TRUE(results->at(half.uid).status.ok())
      << results->at(half.uid).status;
  // The half-made MIG device was destroyed and made again: one exists.
  const auto facts = backend_->Discover();
  ASSERT_TRUE(facts.ok());
  EXPECT_EQ(facts->gpus[1].mig_devices.size(), 1u);
  EXPECT_EQ(driver_->Claims(ClaimState::kPrepareCompleted).size(), 2u);
}

}  // namespace
}  // namespace draplane::gpu_driver
