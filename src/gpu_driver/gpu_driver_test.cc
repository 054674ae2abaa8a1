// The GPU driver against the fake backend: prepare/unprepare, CDI specs,
// opaque configs, conflicts and restarts at every point of a prepare.
#include "gpu_driver/gpu_driver.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cdi/cdi_spec.h"
#include "common/str_cat.h"
#include "devices/fake_backend.h"
#include "gpu_driver/gpu_driver_test_util.h"
#include "gtest/gtest.h"
#include "testing/in_process_cluster.h"

namespace draplane::gpu_driver {
namespace {

namespace fs = std::filesystem;
using devices::FakeDeviceBackend;

devices::NodeGpuFacts Gpus(std::string_view model, int count,
                           bool mig_enabled = false) {
  auto inv = devices::ParseInventory(
      StrCat("nodes:\n- name: node1\n  gpus:\n  - {model: ", model, ", count: ",
             count, ", migEnabled: ", mig_enabled ? "true" : "false", "}\n"),
      "test");
  return inv->nodes[0].gpus;
}

api::ResourceClaim Claim(const std::string& name, const std::string& uid,
                         const std::vector<std::string>& devices) {
  return TestClaim(name, uid, devices);
}

void AddConfig(api::ResourceClaim& c, const std::string& source,
               const std::string& parameters) {
  api::DeviceAllocationConfiguration config;
  config.source = source;
  config.opaque = api::OpaqueDeviceConfiguration{"gpu.nvidia.com",
                                                 api::Json::parse(parameters)};
  c.status.allocation->devices.config.push_back(config);
}

class GpuDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/dpgd-XXXXXX";
    dir_ = mkdtemp(tmpl);
    std::ofstream(dir_ + "/boot_id") << "boot-1\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  GpuDriverOptions Options() {
    GpuDriverOptions o;
    o.node_name = "node1";
    o.plugin_data_dir = dir_ + "/plugin";
    o.cdi_root = dir_ + "/cdi";
    o.boot_id_path = dir_ + "/boot_id";
    return o;
  }
  std::unique_ptr<GpuDriver> Start(FakeDeviceBackend& backend) {
    auto d = GpuDriver::Start(Options(), &backend);
    EXPECT_TRUE(d.ok()) << d.status();
    return d.ok() ? *std::move(d) : nullptr;
  }
  std::string CdiFile(const std::string& uid) {
    return dir_ + "/cdi/k8s.gpu.nvidia.com-claim_" + uid + ".json";
  }
  absl::StatusOr<cdi::CdiSpec> ReadCdi(const std::string& uid) {
    std::ifstream in(CdiFile(uid));
    std::stringstream ss;
    ss << in.rdbuf();
    return cdi::CdiSpecFromText(ss.str());
  }

  std::string dir_;
};

TEST_F(GpuDriverTest, PreparesAWholeGpuWithACdiSpec) {
  FakeDeviceBackend backend(Gpus("H100", 2));
  auto driver = Start(backend);
  const std::string uid = "0c5e0a52-3f9b-4c1e-9d65-7b2f3ad8e001";
  auto r = driver->PrepareResourceClaim(Claim("train", uid, {"gpu-1"}));
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].device, "gpu-1");
  EXPECT_EQ(r.devices[0].pool, "node1");
  EXPECT_EQ(
      r.devices[0].cdi_device_ids,
      std::vector<std::string>{"k8s.gpu.nvidia.com/claim=" + uid + "-gpu-1"});
  auto spec = ReadCdi(uid);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(cdi::ValidateCdiSpec(*spec).ok());
  EXPECT_EQ(spec->kind, "k8s.gpu.nvidia.com/claim");
  EXPECT_EQ(spec->cdi_version, cdi::MinimumCdiVersion(*spec));
  ASSERT_EQ(spec->devices.size(), 1u);
  EXPECT_EQ(spec->devices[0].name, uid + "-gpu-1");
  EXPECT_EQ(spec->devices[0].container_edits.device_nodes.at(0).path,
            "/dev/nvidia1");
  // TimeSlicingSettings is on: the default GpuConfig is time-slicing.
  EXPECT_EQ(spec->devices[0].annotations.at("gpu.nvidia.com/sharing-strategy"),
            "TimeSlicing");
  EXPECT_EQ(
      spec->devices[0].annotations.at("gpu.nvidia.com/timeslice-interval"),
      "Default");
  EXPECT_EQ(fs::status(CdiFile(uid)).permissions() & fs::perms::all,
            fs::perms(0644));

  // Idempotent, and unprepare removes everything; twice is fine.
  auto again = driver->PrepareResourceClaim(Claim("train", uid, {"gpu-1"}));
  EXPECT_EQ(again.devices[0].cdi_device_ids, r.devices[0].cdi_device_ids);
  ASSERT_TRUE(driver->UnprepareResourceClaim({"ml", "train", uid}).ok());
  EXPECT_FALSE(fs::exists(CdiFile(uid)));
  EXPECT_TRUE(driver->Claims(ClaimState::kPrepareCompleted).empty());
  EXPECT_TRUE(driver->UnprepareResourceClaim({"ml", "train", uid}).ok());
}

// The kubelet's view of device health (DRAResourceHealth) follows the
// taints: a critical XID or a lost GPU is unhealthy, an application XID
// healthy with a message.
TEST_F(GpuDriverTest, ReportsDeviceHealthFromTheTaints) {
  using kubelet_plugin::DeviceHealthStatus;
  FakeDeviceBackend backend(Gpus("A100-80GB-PCIE", 3));
  auto driver = Start(backend);
  ASSERT_NE(driver, nullptr);
  auto report = driver->DeviceHealthReport();
  ASSERT_EQ(report.size(), 3u);
  for (const auto& h : report) {
    EXPECT_EQ(h.pool, "node1");
    EXPECT_EQ(h.health, DeviceHealthStatus::kHealthy) << h.device;
    EXPECT_EQ(h.message, "");
  }
  backend.InjectXid(0, 79);
  backend.InjectXid(1, 13);
  backend.SetLost(2, true);
  // Seen at the next discovery (the device loop's republish).
  ASSERT_TRUE(driver->DesiredSlices().ok());
  report = driver->DeviceHealthReport();
  ASSERT_EQ(report.size(), 3u);
  EXPECT_EQ(report[0].device, "gpu-0");
  EXPECT_EQ(report[0].health, DeviceHealthStatus::kUnhealthy);
  EXPECT_EQ(report[0].message, "NVML reported XID 79 on the GPU");
  EXPECT_EQ(report[1].health, DeviceHealthStatus::kHealthy);
  EXPECT_EQ(report[1].message,
            "NVML reported XID 13 on the GPU (an application error: the "
            "device stays usable)");
  EXPECT_EQ(report[2].health, DeviceHealthStatus::kUnhealthy);
  EXPECT_EQ(report[2].message, "the GPU fell off the bus (NVML: GPU is lost)");
}

TEST_F(GpuDriverTest, CreatesAndDestroysMigDevices) {
  FakeDeviceBackend backend(Gpus("H100", 1));
  auto driver = Start(backend);
  auto r = driver->PrepareResourceClaim(Claim(
      "infer", "uid-1", {"gpu-0-mig-3g40gb-9-4", "gpu-0-mig-1g10gb-19-0"}));
  ASSERT_TRUE(r.status.ok()) << r.status;
  auto facts = backend.Discover();
  ASSERT_EQ(facts->gpus[0].mig_devices.size(), 2u);
  EXPECT_EQ(facts->gpus[0].mig_devices[0].placement,
            (devices::MigPlacement{4, 4}));
  auto spec = ReadCdi("uid-1");
  ASSERT_TRUE(spec.ok());
  const auto& env = spec->devices[0].container_edits.env;
  EXPECT_EQ(env.at(0),
            "DRAPLANE_GPU_UUID=" + facts->gpus[0].mig_devices[0].uuid);
  // Preparing again creates nothing.
  driver->PrepareResourceClaim(Claim(
      "infer", "uid-1", {"gpu-0-mig-3g40gb-9-4", "gpu-0-mig-1g10gb-19-0"}));
  EXPECT_EQ(backend.mig_creations(), 2);
  ASSERT_TRUE(driver->UnprepareResourceClaim({"ml", "infer", "uid-1"}).ok());
  EXPECT_TRUE(backend.Discover()->gpus[0].mig_devices.empty());
  EXPECT_FALSE(backend.Discover()->gpus[0].mig_enabled);
}

TEST_F(GpuDriverTest, RefusesDevicesOfAnotherClaimAndOfOtherNodes) {
  FakeDeviceBackend backend(Gpus("H100", 2));
  metrics::Registry registry;
  GpuDriverOptions options = Options();
  options.metrics = &registry;
  auto started = GpuDriver::Start(options, &backend);
  ASSERT_TRUE(started.ok());
  auto& driver = *started;
  ASSERT_TRUE(
      driver->PrepareResourceClaim(Claim("a", "uid-a", {"gpu-0"})).status.ok());
  auto conflict = driver->PrepareResourceClaim(Claim("b", "uid-b", {"gpu-0"}));
  EXPECT_EQ(conflict.status.message(),
            "error preparing devices for claim ml/b:uid-b: requested device "
            "gpu-0 is already allocated to different claim ml/a:uid-a");
  auto unknown = driver->PrepareResourceClaim(Claim("c", "uid-c", {"gpu-7"}));
  EXPECT_NE(unknown.status.message().find(
                "allocated device gpu-7 is not a device of this node"),
            std::string::npos);
  api::ResourceClaim elsewhere = Claim("d", "uid-d", {"gpu-1"});
  elsewhere.status.allocation->devices.results[0].pool = "node2";
  EXPECT_NE(driver->PrepareResourceClaim(elsewhere).status.message().find(
                "from pool node2"),
            std::string::npos);
  // A failed prepare leaves no CDI spec behind.
  EXPECT_FALSE(fs::exists(CdiFile("uid-b")));
  // The guide's plugin error metric counts the three failures.
  EXPECT_NE(registry.Text().find("dra_plugin_errors_total{driver=\"gpu.nvidia."
                                 "com\",node=\"node1\"} 3"),
            std::string::npos)
      << registry.Text();
}

TEST_F(GpuDriverTest, AppliesOpaqueConfigsAndRejectsBadOnes) {
  FakeDeviceBackend backend(Gpus("H100", 2));
  auto driver = Start(backend);
  api::ResourceClaim c = Claim("a", "uid-a", {"gpu-0"});
  AddConfig(
      c, "FromClass",
      R"({"apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig",
                "sharing": {"strategy": "TimeSlicing",
                            "timeSlicingConfig": {"interval": "Long"}}})");
  AddConfig(
      c, "FromClaim",
      R"({"apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig",
                "sharing": {"strategy": "TimeSlicing",
                            "timeSlicingConfig": {"interval": "Short"}}})");
  ASSERT_TRUE(driver->PrepareResourceClaim(c).status.ok());
  EXPECT_EQ(ReadCdi("uid-a")->devices[0].annotations.at(
                "gpu.nvidia.com/timeslice-interval"),
            "Short");  // the claim's config wins over the class's
  const std::string gpu0 = backend.Discover()->gpus[0].uuid;
  EXPECT_EQ(backend.time_slice(gpu0), devices::TimeSliceInterval::kShort);
  ASSERT_TRUE(driver->UnprepareResourceClaim({"ml", "a", "uid-a"}).ok());
  EXPECT_EQ(backend.time_slice(gpu0), devices::TimeSliceInterval::kDefault);
  ASSERT_TRUE(driver->PrepareResourceClaim(c).status.ok());

  // The guide's DeviceClass config.
  api::ResourceClaim seed = Claim("b", "uid-b", {"gpu-1"});
  AddConfig(seed, "FromClass",
            R"({"apiVersion": "gpu.nvidia.com/v1alpha1", "kind": "GpuConfig",
                "sharing": {"strategy": "TimeSlicing",
                            "timeSlicingConfig": {"interval": "Long"}}})");
  auto r = driver->PrepareResourceClaim(seed);
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("the accepted apiVersion is "
                                    "\"resource.nvidia.com/v1beta1\""),
            std::string::npos)
      << r.status;
  // MPS is off (DynamicMIG excludes it). gpu-1 stays reserved by the
  // failed claim until it is unprepared, so this one asks for a MIG device.
  api::ResourceClaim mps = Claim("c", "uid-c", {"gpu-0-mig-1g10gb-19-1"});
  AddConfig(mps, "FromClaim",
            R"({"apiVersion": "resource.nvidia.com/v1beta1",
                "kind": "MigDeviceConfig", "sharing": {"strategy": "MPS"}})");
  auto mps_result = driver->PrepareResourceClaim(mps);
  EXPECT_NE(mps_result.status.message().find("feature gate is not enabled"),
            std::string::npos)
      << mps_result.status;
  // A GpuConfig for a MIG device is refused, and the MIG device created
  // meanwhile is destroyed again.
  api::ResourceClaim mig = Claim("d", "uid-d", {"gpu-1-mig-1g10gb-19-0"});
  AddConfig(
      mig, "FromClaim",
      R"({"apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig"})");
  mig.status.allocation->devices.config.back().requests = {"gpu"};
  EXPECT_NE(driver->PrepareResourceClaim(mig).status.message().find(
                "cannot apply GpuConfig"),
            std::string::npos);
  EXPECT_TRUE(backend.Discover()->gpus[1].mig_devices.empty());
}

// The guide's failure case 3: the driver restarts (upgrade) while claims
// are prepared and while one is half-prepared.
TEST_F(GpuDriverTest, RestartKeepsPreparedClaimsAndRollsBackHalfPrepared) {
  FakeDeviceBackend backend(Gpus("H100", 1));
  {
    auto driver = Start(backend);
    ASSERT_TRUE(driver
                    ->PrepareResourceClaim(
                        Claim("done", "uid-done", {"gpu-0-mig-3g40gb-9-0"}))
                    .status.ok());
  }
  // A crash in the middle of preparing "half": PrepareStarted is on disk
  // and its MIG device exists, nothing else.
  {
    CheckpointFile file(dir_ + "/plugin/checkpoint.json");
    Checkpoint cp = *file.Read();
    ClaimRecord half;
    half.namespace_ = "ml";
    half.name = "half";
    half.allocated_devices = {"gpu-0-mig-3g40gb-9-4"};
    cp.claims["uid-half"] = half;
    ASSERT_TRUE(file.Write(cp).ok());
    ASSERT_TRUE(
        backend.CreateMigDevice(backend.Discover()->gpus[0].uuid, 9, 4).ok());
  }
  auto restarted = Start(backend);
  ASSERT_NE(restarted, nullptr);
  EXPECT_EQ(restarted->Claims(ClaimState::kPrepareCompleted),
            std::vector<std::string>{"uid-done"});
  EXPECT_TRUE(restarted->Claims(ClaimState::kPrepareStarted).empty());
  auto migs = backend.Discover()->gpus[0].mig_devices;
  ASSERT_EQ(migs.size(), 1u);  // the completed claim's, still running
  EXPECT_EQ(migs[0].placement.start, 0u);
  // The kubelet retries the half-prepared claim: it succeeds now.
  auto retry = restarted->PrepareResourceClaim(
      Claim("half", "uid-half", {"gpu-0-mig-3g40gb-9-4"}));
  EXPECT_TRUE(retry.status.ok()) << retry.status;
  // The completed claim's devices come back without being recreated.
  const int created = backend.mig_creations();
  auto done = restarted->PrepareResourceClaim(
      Claim("done", "uid-done", {"gpu-0-mig-3g40gb-9-0"}));
  EXPECT_TRUE(done.status.ok());
  EXPECT_EQ(backend.mig_creations(), created);
}

TEST_F(GpuDriverTest, StartDestroysUnknownMigDevicesAndForgetsOtherBoots) {
  FakeDeviceBackend backend(Gpus("H100", 1));
  ASSERT_TRUE(
      backend.CreateMigDevice(backend.Discover()->gpus[0].uuid, 19, 3).ok());
  {
    auto driver = Start(backend);
    EXPECT_TRUE(backend.Discover()->gpus[0].mig_devices.empty());
    ASSERT_TRUE(driver->PrepareResourceClaim(Claim("a", "uid-a", {"gpu-0"}))
                    .status.ok());
  }
  EXPECT_TRUE(fs::exists(CdiFile("uid-a")));
  std::ofstream(dir_ + "/boot_id", std::ios::trunc) << "boot-2\n";
  auto rebooted = Start(backend);
  EXPECT_TRUE(rebooted->Claims(ClaimState::kPrepareCompleted).empty());
  EXPECT_FALSE(fs::exists(CdiFile("uid-a")));
}

TEST_F(GpuDriverTest, ConcurrentPreparesOfDifferentClaims) {
  FakeDeviceBackend backend(Gpus("H200", 8));
  auto driver = Start(backend);
  std::vector<std::thread> threads;
  threads.reserve(8);
  std::vector<absl::Status> results(8);
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      results[i] = driver
                       ->PrepareResourceClaim(
                           Claim(StrCat("c", i), StrCat("uid-", i),
                                 {StrCat("gpu-", i, "-mig-1g18gb-19-", i % 7)}))
                       .status;
    });
  }
  for (auto& t : threads) t.join();
  for (const absl::Status& s : results) EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(driver->Claims(ClaimState::kPrepareCompleted).size(), 8u);
  auto restarted = Start(backend);
  EXPECT_EQ(restarted->Claims(ClaimState::kPrepareCompleted).size(), 8u);
}

TEST_F(GpuDriverTest, CleansUpStaleHalfPreparedClaims) {
  auto cluster = *testing::InProcessCluster::Start();
  FakeDeviceBackend backend(Gpus("H100", 1));
  {
    CheckpointFile file(dir_ + "/plugin/checkpoint.json");
    Checkpoint cp;
    cp.boot_id = "boot-1";
    ASSERT_TRUE(file.Write(cp).ok());
  }
  auto driver = Start(backend);
  // A prepare that fails leaves the claim PrepareStarted (the kubelet
  // would retry); its ResourceClaim is then deleted.
  api::ResourceClaim bad = Claim("gone", "uid-gone", {"gpu-0"});
  AddConfig(bad, "FromClaim", R"({"apiVersion": "v9", "kind": "GpuConfig"})");
  ASSERT_FALSE(driver->PrepareResourceClaim(bad).status.ok());
  EXPECT_EQ(driver->Claims(ClaimState::kPrepareStarted).size(), 1u);
  auto cleaned = driver->CleanupStaleClaims(cluster->client());
  ASSERT_TRUE(cleaned.ok()) << cleaned.status();
  EXPECT_EQ(*cleaned, 1);
  EXPECT_TRUE(driver->Claims(ClaimState::kPrepareStarted).empty());
}

}  // namespace
}  // namespace draplane::gpu_driver

namespace draplane::gpu_driver {
namespace {

// NVIDIA's MPS strategy (gate MPSSupport; DynamicMIG off, as NVIDIA
// requires): one control daemon per config group with the group's
// limits, its pipe and shm directories mounted into the containers,
// stopped and removed at unprepare.
TEST_F(GpuDriverTest, MpsStartsOneDaemonPerConfigGroup) {
  FakeDeviceBackend backend(Gpus("H100", 2));
  GpuDriverOptions options = Options();
  options.gates.dynamic_mig = false;
  options.gates.mps_support = true;
  auto driver = GpuDriver::Start(options, &backend);
  ASSERT_TRUE(driver.ok()) << driver.status();
  api::ResourceClaim c = Claim("shared", "uid-s", {"gpu-0", "gpu-1"});
  AddConfig(
      c, "FromClaim",
      R"({"apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig",
                "sharing": {"strategy": "MPS", "mpsConfig": {
                  "defaultActiveThreadPercentage": 50,
                  "defaultPinnedDeviceMemoryLimit": "10Gi",
                  "defaultPerDevicePinnedMemoryLimit": {"1": "1Gi"}}}})");
  auto r = (*driver)->PrepareResourceClaim(c);
  ASSERT_TRUE(r.status.ok()) << r.status;
  auto daemons = backend.mps_daemons();
  ASSERT_EQ(daemons.size(), 1u);
  const devices::MpsDaemonSpec& d = daemons.begin()->second;
  auto facts = backend.Discover();
  std::vector<std::string> uuids = {facts->gpus[0].uuid, facts->gpus[1].uuid};
  std::sort(uuids.begin(), uuids.end());
  EXPECT_EQ(d.device_uuids, uuids);
  EXPECT_EQ(d.whole_gpu_uuids.size(), 2u);
  EXPECT_EQ(d.active_thread_percentage, 50);
  EXPECT_EQ(d.default_pinned_memory_limit, "10240M");
  EXPECT_EQ(d.pinned_memory_limits,
            (std::map<std::string, std::string>{{uuids[1], "1024M"}}));
  EXPECT_EQ(
      fs::path(d.pipe_dir).parent_path().filename().string().rfind("uid-s-", 0),
      0u);
  EXPECT_TRUE(fs::is_directory(fs::path(d.pipe_dir).parent_path() / "shm"));
  auto spec = ReadCdi("uid-s");
  ASSERT_TRUE(spec.ok()) << spec.status();
  const cdi::ContainerEdits& edits = spec->devices[0].container_edits;
  ASSERT_EQ(edits.mounts.size(), 2u);
  EXPECT_EQ(edits.mounts[0].host_path, d.pipe_dir);
  EXPECT_EQ(edits.mounts[0].container_path, "/tmp/nvidia-mps");
  EXPECT_EQ(edits.mounts[1].container_path, "/dev/shm");
  EXPECT_NE(std::find(edits.env.begin(), edits.env.end(),
                      "CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps"),
            edits.env.end());
  EXPECT_TRUE(cdi::ValidateCdiSpec(*spec).ok());
  // Kept across a restart; stopped at unprepare.
  driver->reset();
  auto restarted = GpuDriver::Start(options, &backend);
  ASSERT_TRUE(restarted.ok());
  ASSERT_TRUE(
      (*restarted)->UnprepareResourceClaim({"ml", "shared", "uid-s"}).ok());
  EXPECT_TRUE(backend.mps_daemons().empty());
  EXPECT_FALSE(fs::exists(fs::path(d.pipe_dir).parent_path()));
}

}  // namespace
}  // namespace draplane::gpu_driver
