// The GPU driver stopped at every step of a prepare and of an unprepare:
// after each backend call (MIG creation and destruction, time-slices,
// discovery) and after each durable write (checkpoint, CDI spec), then
// started again and retried as the kubelet retries. A stop is simulated by
// an exception thrown from the backend or the write hook: it unwinds the
// driver's stack without running another line of its logic, which is what
// a killed process leaves behind (the GPUs and files as they were at that
// point). The fake GPU reuses MIG instance IDs, as NVML does. Last, a
// driver upgrade: a new driver started on the previous release's
// checkpoint with a claim prepared.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "common/str_cat.h"
#include "devices/fake_backend.h"
#include "gpu_driver/gpu_driver.h"
#include "gpu_driver/gpu_driver_test_util.h"
#include "gtest/gtest.h"

namespace draplane::gpu_driver {
namespace {

namespace fs = std::filesystem;

struct Crash {};

// Counts crash points; when armed, the `at`th throws Crash (once).
class CrashPoints {
 public:
  void Arm(int at) {
    at_ = at;
    count_ = 0;
  }
  void Disarm() { at_ = 0; }
  void Hit() {
    ++count_;
    if (at_ > 0 && count_ == at_) {
      at_ = 0;
      throw Crash{};
    }
  }

 private:
  int at_ = 0;
  int count_ = 0;
};

// Every call reaches the fake GPUs, then counts as a crash point.
class CrashingBackend : public devices::DeviceBackend {
 public:
  CrashingBackend(devices::FakeDeviceBackend* inner, CrashPoints* points)
      : inner_(inner), points_(points) {}
  absl::StatusOr<devices::NodeGpuFacts> Discover() override {
    auto r = inner_->Discover();
    points_->Hit();
    return r;
  }
  absl::StatusOr<devices::MigDeviceFacts> CreateMigDevice(
      std::string_view parent_uuid, uint32_t gi_profile_id,
      uint32_t placement_start) override {
    auto r =
        inner_->CreateMigDevice(parent_uuid, gi_profile_id, placement_start);
    points_->Hit();
    return r;
  }
  absl::Status DestroyMigDevice(std::string_view parent_uuid,
                                uint32_t gpu_instance_id,
                                uint32_t compute_instance_id) override {
    auto r = inner_->DestroyMigDevice(parent_uuid, gpu_instance_id,
                                      compute_instance_id);
    points_->Hit();
    if (r.ok() && fail_next_destroy_) {
      fail_next_destroy_ = false;
      return absl::DeadlineExceededError("timed out (the device is gone)");
    }
    return r;
  }
  // The next MIG destruction happens but reports a failure.
  void FailNextDestroyAfterDoingIt() { fail_next_destroy_ = true; }
  absl::Status SetTimeSlice(std::string_view gpu_uuid,
                            devices::TimeSliceInterval interval) override {
    auto r = inner_->SetTimeSlice(gpu_uuid, interval);
    points_->Hit();
    return r;
  }
  absl::Status StartMpsDaemon(const devices::MpsDaemonSpec& spec) override {
    auto r = inner_->StartMpsDaemon(spec);
    points_->Hit();
    return r;
  }
  absl::Status StopMpsDaemon(const devices::MpsDaemonSpec& spec) override {
    auto r = inner_->StopMpsDaemon(spec);
    points_->Hit();
    return r;
  }

 private:
  devices::FakeDeviceBackend* inner_;
  CrashPoints* points_;
  bool fail_next_destroy_ = false;
};

devices::NodeGpuFacts TwoH100s() {
  auto inv = devices::ParseInventory(
      "nodes:\n- name: node1\n  gpus:\n  - {model: H100, count: 2}\n", "test");
  return inv->nodes[0].gpus;
}

api::ResourceClaim Claim(const std::string& name, const std::string& uid,
                         const std::vector<std::string>& devices) {
  return TestClaim(name, uid, devices);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One node's driver world: fake GPUs, a plugin and CDI folder, a claim
// "keep" prepared before anything happens (a MIG device on gpu-0, whose
// instance IDs a claim prepared and unprepared before freed for reuse).
class World {
 public:
  World() {
    char tmpl[] = "/tmp/dpcrash-XXXXXX";
    dir_ = mkdtemp(tmpl);
    std::ofstream(dir_ + "/boot_id") << "boot-1\n";
    auto d = Start();
    EXPECT_TRUE(d->PrepareResourceClaim(Claim("keep", "uid-keep", {kKeep}))
                    .status.ok());
    EXPECT_TRUE(d->PrepareResourceClaim(
                     Claim("warm", "uid-warm", {"gpu-0-mig-1g10gb-19-4"}))
                    .status.ok());
    EXPECT_TRUE(d->UnprepareResourceClaim({"ml", "warm", "uid-warm"}).ok());
    keep_cdi_ = ReadFile(CdiFile("uid-keep"));
    keep_record_ = Checkpointed().claims.at("uid-keep");
  }
  ~World() { fs::remove_all(dir_); }

  static constexpr char kKeep[] = "gpu-0-mig-3g40gb-9-0";

  std::unique_ptr<GpuDriver> Start() {
    GpuDriverOptions o;
    o.node_name = "node1";
    o.plugin_data_dir = dir_ + "/plugin";
    o.cdi_root = dir_ + "/cdi";
    o.boot_id_path = dir_ + "/boot_id";
    o.after_write = [this](std::string_view) { points_.Hit(); };
    auto d = GpuDriver::Start(o, &backend_);
    EXPECT_TRUE(d.ok()) << d.status();
    return d.ok() ? *std::move(d) : nullptr;
  }
  std::string CdiFile(const std::string& uid) const {
    return dir_ + "/cdi/k8s.gpu.nvidia.com-claim_" + uid + ".json";
  }
  Checkpoint Checkpointed() const {
    auto cp = CheckpointFile(dir_ + "/plugin/checkpoint.json").Read();
    EXPECT_TRUE(cp.ok()) << cp.status();
    return cp.ok() ? *cp : Checkpoint{};
  }

  // After a restart and the kubelet's retry: exactly `claims` prepared;
  // every MIG device on the GPUs owned by exactly one of them (no orphan,
  // none owned twice, each where it was recorded); CDI specs exactly the
  // prepared claims'; "keep" untouched.
  void ExpectConsistent(const std::set<std::string>& claims,
                        const std::string& where) {
    SCOPED_TRACE(where);
    const Checkpoint cp = Checkpointed();
    std::set<std::string> uids, cdi_files, owned;
    for (const auto& [uid, c] : cp.claims) {
      uids.insert(uid);
      EXPECT_EQ(c.state, ClaimState::kPrepareCompleted) << uid;
      if (!c.cdi_spec_file.empty()) cdi_files.insert(c.cdi_spec_file);
      for (const PreparedDeviceRecord& d : c.prepared) {
        if (!d.created_mig) continue;
        EXPECT_TRUE(owned.insert(d.created_mig->uuid).second)
            << "MIG device " << d.created_mig->uuid << " owned twice";
      }
    }
    EXPECT_EQ(uids, claims);
    auto facts = fake_.Discover();
    ASSERT_TRUE(facts.ok());
    std::set<std::string> present;
    for (const devices::GpuFacts& g : facts->gpus) {
      for (const devices::MigDeviceFacts& m : g.mig_devices) {
        present.insert(m.uuid);
      }
    }
    EXPECT_EQ(present, owned) << "orphan or missing MIG devices";
    std::set<std::string> files;
    for (const auto& e : fs::directory_iterator(dir_ + "/cdi")) {
      files.insert(e.path().filename().string());
    }
    EXPECT_EQ(files, cdi_files) << "orphan or missing CDI specs";
    ASSERT_TRUE(cp.claims.count("uid-keep"));
    EXPECT_EQ(cp.claims.at("uid-keep"), keep_record_);
    EXPECT_EQ(ReadFile(CdiFile("uid-keep")), keep_cdi_);
  }

  // Right after a restart: every claim the checkpoint calls prepared is
  // whole (its MIG devices and CDI spec exist), so a Prepare the kubelet
  // retries is answered with devices that are there.
  void ExpectPreparedClaimsWhole(const std::string& where) {
    SCOPED_TRACE(where);
    auto facts = fake_.Discover();
    ASSERT_TRUE(facts.ok());
    std::set<std::string> present;
    for (const devices::GpuFacts& g : facts->gpus) {
      for (const devices::MigDeviceFacts& m : g.mig_devices) {
        present.insert(m.uuid);
      }
    }
    for (const auto& [uid, c] : Checkpointed().claims) {
      if (c.state != ClaimState::kPrepareCompleted) continue;
      for (const PreparedDeviceRecord& d : c.prepared) {
        if (d.created_mig) {
          EXPECT_TRUE(present.count(d.created_mig->uuid))
              << uid << " is recorded prepared without its MIG device";
        }
      }
      EXPECT_TRUE(fs::exists(dir_ + "/cdi/" + c.cdi_spec_file))
          << uid << " is recorded prepared without its CDI spec";
    }
  }

  CrashPoints& points() { return points_; }
  CrashingBackend& backend() { return backend_; }

 private:
  std::string dir_;
  CrashPoints points_;
  devices::FakeDeviceBackend fake_{TwoH100s()};
  CrashingBackend backend_{&fake_, &points_};
  std::string keep_cdi_;
  ClaimRecord keep_record_;
};

// Two MIG devices (the second at instance IDs the "warm" claim freed) and
// a whole GPU with a time-slice.
const std::vector<std::string> kDevices = {"gpu-0-mig-1g10gb-19-4",
                                           "gpu-0-mig-1g10gb-19-5", "gpu-1"};

TEST(GpuDriverCrashTest, AStopAfterAnyStepOfAPrepareIsRecovered) {
  int stops = 0;
  for (int at = 1;; ++at) {
    World world;
    bool stopped = false;
    {
      auto driver = world.Start();
      world.points().Arm(at);
      try {
        auto r = driver->PrepareResourceClaim(Claim("a", "uid-a", kDevices));
        EXPECT_TRUE(r.status.ok()) << r.status;
      } catch (const Crash&) {
        stopped = true;
      }
      world.points().Disarm();
    }  // the stopped driver is gone; the GPUs and files stay as they are
    if (!stopped) break;  // past the last step
    ++stops;
    auto restarted = world.Start();
    ASSERT_NE(restarted, nullptr) << "stop after step " << at;
    world.ExpectPreparedClaimsWhole(StrCat("prepare stopped after step ", at));
    auto retry = restarted->PrepareResourceClaim(Claim("a", "uid-a", kDevices));
    ASSERT_TRUE(retry.status.ok())
        << "stop after step " << at << ": " << retry.status;
    world.ExpectConsistent({"uid-keep", "uid-a"},
                           StrCat("prepare stopped after step ", at));
  }
  // PrepareStarted, two MIG creations, a time-slice, the CDI spec,
  // PrepareCompleted, and the reads between them.
  EXPECT_GE(stops, 6);
}

TEST(GpuDriverCrashTest, AStopAfterAnyStepOfAnUnprepareIsRecovered) {
  int stops = 0;
  for (int at = 1;; ++at) {
    World world;
    bool stopped = false;
    {
      auto driver = world.Start();
      ASSERT_TRUE(driver->PrepareResourceClaim(Claim("a", "uid-a", kDevices))
                      .status.ok());
      world.points().Arm(at);
      try {
        EXPECT_TRUE(driver->UnprepareResourceClaim({"ml", "a", "uid-a"}).ok());
      } catch (const Crash&) {
        stopped = true;
      }
      world.points().Disarm();
    }
    if (!stopped) break;
    ++stops;
    auto restarted = world.Start();
    ASSERT_NE(restarted, nullptr) << "stop after step " << at;
    world.ExpectPreparedClaimsWhole(
        StrCat("unprepare stopped after step ", at));
    ASSERT_TRUE(restarted->UnprepareResourceClaim({"ml", "a", "uid-a"}).ok())
        << "stop after step " << at;
    world.ExpectConsistent({"uid-keep"},
                           StrCat("unprepare stopped after step ", at));
    // The freed placements can be prepared again.
    ASSERT_TRUE(restarted->PrepareResourceClaim(Claim("b", "uid-b", kDevices))
                    .status.ok())
        << "stop after step " << at;
  }
  // UnprepareStarted, the time-slice reset, two MIG destructions, the CDI
  // spec's removal, the checkpoint without the claim, and reads.
  EXPECT_GE(stops, 6);
}

// What the UUID check is for: a MIG destruction that happened but was
// reported failed (a timeout), another claim prepared meanwhile on the same
// GPU (the GPU gives it the freed instance IDs), then the kubelet's retry
// of the unprepare. Destroying by instance IDs alone would take the other
// claim's device.
TEST(GpuDriverCrashTest, ARetriedUnprepareLeavesADeviceThatReusedItsIds) {
  World world;
  auto driver = world.Start();
  ASSERT_TRUE(
      driver
          ->PrepareResourceClaim(Claim("a", "uid-a", {"gpu-0-mig-1g10gb-19-4"}))
          .status.ok());
  const CreatedMigDevice a_mig =
      *world.Checkpointed().claims.at("uid-a").prepared[0].created_mig;
  world.backend().FailNextDestroyAfterDoingIt();
  EXPECT_FALSE(driver->UnprepareResourceClaim({"ml", "a", "uid-a"}).ok());
  EXPECT_EQ(world.Checkpointed().claims.at("uid-a").state,
            ClaimState::kUnprepareStarted);
  ASSERT_TRUE(
      driver
          ->PrepareResourceClaim(Claim("b", "uid-b", {"gpu-0-mig-1g10gb-19-5"}))
          .status.ok());
  const CreatedMigDevice b_mig =
      *world.Checkpointed().claims.at("uid-b").prepared[0].created_mig;
  ASSERT_EQ(b_mig.gpu_instance_id, a_mig.gpu_instance_id);  // reused
  ASSERT_NE(b_mig.uuid, a_mig.uuid);
  ASSERT_TRUE(driver->UnprepareResourceClaim({"ml", "a", "uid-a"}).ok());
  world.ExpectConsistent({"uid-keep", "uid-b"}, "retried unprepare");
}

// A driver upgrade with claims prepared: the new driver starts on the
// checkpoint the previous release wrote (the data-directory fixture's
// node1: the guide's four-GPU training claim, its CDI spec beside it),
// keeps the claim prepared, answers the kubelet's Prepare with the same CDI
// devices without touching the GPUs, and unprepares it cleanly.
TEST(GpuDriverUpgradeTest, ClaimsPreparedByThePreviousReleaseStayPrepared) {
  const std::string fixture = std::string(DRAPLANE_SOURCE_DIR) +
                              "/tests/fixtures/data-dir-format-0/nodes/node1";
  char tmpl[] = "/tmp/dpupgrade-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  fs::copy(fixture, dir, fs::copy_options::recursive);
  const std::string uid = "a47b17d6-400a-4f26-bd67-3e35aa5201b3";
  const std::string cdi =
      dir + "/cdi/k8s.gpu.nvidia.com-claim_" + uid + ".json";
  ASSERT_TRUE(fs::exists(cdi));
  auto inv = devices::ReadInventoryFile(std::string(DRAPLANE_SOURCE_DIR) +
                                        "/examples/standalone/inventory.yaml");
  ASSERT_TRUE(inv.ok()) << inv.status();
  devices::FakeDeviceBackend backend(inv->nodes[0].gpus);  // node1
  GpuDriverOptions o;
  o.node_name = "node1";
  o.plugin_data_dir = dir + "/plugins/gpu.nvidia.com";
  o.cdi_root = dir + "/cdi";
  o.boot_id_path = dir + "/boot_id";  // the same boot
  auto driver = GpuDriver::Start(o, &backend);
  ASSERT_TRUE(driver.ok()) << driver.status();
  EXPECT_EQ((*driver)->Claims(ClaimState::kPrepareCompleted),
            std::vector<std::string>{uid});
  auto again = (*driver)->PrepareResourceClaim(
      Claim("training-gpu-claim-corrected", uid,
            {"gpu-0", "gpu-1", "gpu-2", "gpu-3"}));
  ASSERT_TRUE(again.status.ok()) << again.status;
  ASSERT_EQ(again.devices.size(), 4u);
  EXPECT_EQ(
      again.devices[0].cdi_device_ids,
      std::vector<std::string>{"k8s.gpu.nvidia.com/claim=" + uid + "-gpu-0"});
  // The checkpoint is rewritten in the current format.
  std::ifstream in(o.plugin_data_dir + "/checkpoint.json");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("\"version\": 2"), std::string::npos);
  ASSERT_TRUE((*driver)
                  ->UnprepareResourceClaim(
                      {"ml-workloads", "training-gpu-claim-corrected", uid})
                  .ok());
  EXPECT_FALSE(fs::exists(cdi));
  EXPECT_TRUE((*driver)->CheckpointedClaims().empty());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace draplane::gpu_driver
