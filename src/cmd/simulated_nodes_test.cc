// The simulated machines of `draplane node --backend fake`: booted with the
// process, or outliving it (their GPUs' state in the node's folder).
#include "cmd/simulated_nodes.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/object.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "testing/in_process_cluster.h"

namespace draplane::cmd {
namespace {

namespace fs = std::filesystem;

constexpr char kInventory[] = R"(
nodes:
- name: node1
  gpus:
  - {model: H100, count: 1}
)";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class SimulatedNodesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/dpsn-XXXXXX";
    dir_ = mkdtemp(tmpl);
    cluster_ = *testing::InProcessCluster::Start();
    inventory_ = *devices::ParseInventory(kInventory, "inventory");
  }
  void TearDown() override { fs::remove_all(dir_); }

  absl::StatusOr<std::unique_ptr<SimulatedNodes>> Start(
      SimulatedNodes::Hardware hardware) {
    node_agent::NodeAgentOptions o;
    o.simulate_kubelet = false;
    return SimulatedNodes::Start(
        inventory_, "node1", dir_,
        [this](const std::string&) { return cluster_->NewClient(); }, o,
        hardware);
  }

  std::string node_dir() const { return dir_ + "/node1"; }

  // The devices node1 publishes with a taint.
  int TaintedDevices() {
    auto slices = cluster_->client().List(client::Kind("ResourceSlice"), "");
    if (!slices.ok()) return -1;
    int n = 0;
    for (const api::Object& o : slices->items) {
      for (const api::Device& d :
           std::get<api::ResourceSlice>(o.value).spec.devices) {
        n += d.rare->taints.empty() ? 0 : 1;
      }
    }
    return n;
  }

  // The devices node1 publishes.
  int PublishedDevices() {
    auto slices = cluster_->client().List(client::Kind("ResourceSlice"), "");
    if (!slices.ok()) return -1;
    int n = 0;
    for (const api::Object& o : slices->items) {
      n += static_cast<int>(
          std::get<api::ResourceSlice>(o.value).spec.devices.size());
    }
    return n;
  }

  std::string dir_;
  std::unique_ptr<testing::InProcessCluster> cluster_;
  devices::Inventory inventory_;
};

TEST_F(SimulatedNodesTest, EachStartIsANewBootByDefault) {
  auto first = Start(SimulatedNodes::Hardware::kBootsWithProcess);
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string boot = ReadFile(node_dir() + "/boot_id");
  (*first)->Stop();
  auto second = Start(SimulatedNodes::Hardware::kBootsWithProcess);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_NE(ReadFile(node_dir() + "/boot_id"), boot);
  EXPECT_FALSE(fs::exists(node_dir() + "/simulated-gpus.json"));
}

TEST_F(SimulatedNodesTest, HealthWrittenIntoTheStateReachesTheRunningDriver) {
  node_agent::NodeAgentOptions o;
  o.simulate_kubelet = false;
  o.device_poll_period = absl::Milliseconds(50);
  auto nodes = SimulatedNodes::Start(
      inventory_, "node1", dir_,
      [this](const std::string&) { return cluster_->NewClient(); }, o,
      SimulatedNodes::Hardware::kOutlivesProcess);
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  EXPECT_EQ(TaintedDevices(), 0);
  const std::string state_file = node_dir() + "/simulated-gpus.json";
  auto state = nlohmann::json::parse(ReadFile(state_file));
  state["gpus"][0]["xids"] = {79};
  // A later modification time than the file's last write.
  std::ofstream(state_file + ".new") << state.dump();
  fs::rename(state_file + ".new", state_file);
  fs::last_write_time(
      state_file, fs::file_time_type::clock::now() + std::chrono::seconds(1));
  for (int i = 0; i < 200 && TaintedDevices() == 0; ++i) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_EQ(TaintedDevices(), 26);  // every device of the GPU
  // The XID is part of the machine now: the driver's saves keep it.
  EXPECT_EQ(nlohmann::json::parse(ReadFile(state_file))["gpus"][0]["xids"],
            nlohmann::json::array({79}));
}

TEST_F(SimulatedNodesTest, HardwareThatOutlivesTheProcessKeepsItsBootAndGpus) {
  auto first = Start(SimulatedNodes::Hardware::kOutlivesProcess);
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string boot = ReadFile(node_dir() + "/boot_id");
  const std::string state_file = node_dir() + "/simulated-gpus.json";
  auto state = nlohmann::json::parse(ReadFile(state_file));
  ASSERT_EQ(state["gpus"].size(), 1u);
  (*first)->Stop();
  first->reset();

  EXPECT_EQ(PublishedDevices(), 26);  // an H100 and its MIG placements

  // The machine lost its GPU: the saved state is what the next start
  // finds, not the inventory.
  state["gpus"] = nlohmann::json::array();
  std::ofstream(state_file) << state.dump();
  auto second = Start(SimulatedNodes::Hardware::kOutlivesProcess);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(ReadFile(node_dir() + "/boot_id"), boot);
  EXPECT_EQ(PublishedDevices(), 0);
  (*second)->Stop();
  second->reset();

  // A damaged state file is an error naming it, not a silent reboot.
  std::ofstream(state_file) << "{not json";
  auto third = Start(SimulatedNodes::Hardware::kOutlivesProcess);
  ASSERT_FALSE(third.ok());
  EXPECT_NE(third.status().message().find("simulated-gpus.json"),
            std::string::npos)
      << third.status();

  // Deleting the node's folder reboots it.
  fs::remove_all(node_dir());
  auto fourth = Start(SimulatedNodes::Hardware::kOutlivesProcess);
  ASSERT_TRUE(fourth.ok()) << fourth.status();
  EXPECT_NE(ReadFile(node_dir() + "/boot_id"), boot);
  EXPECT_FALSE(nlohmann::json::parse(ReadFile(state_file))["gpus"][0].value(
      "lost", false));
}

}  // namespace
}  // namespace draplane::cmd
