#include "cmd/simulated_nodes.h"

#include <filesystem>
#include <fstream>
#include <random>

#include "common/private_files.h"
#include "common/str_cat.h"
#include "devices/nvml/gpu_facts_json.h"
#include "logging/log.h"

namespace draplane::cmd {
namespace {

constexpr char kStateFile[] = "simulated-gpus.json";

// The simulated machine's GPUs as its last run left them, or NotFound.
absl::StatusOr<devices::NodeGpuFacts> LoadSavedGpus(const std::string& path) {
  auto text = ReadPrivateFile(path);
  if (!text.ok()) return text.status();
  auto json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return absl::DataLossError(StrCat(path, ": not JSON"));
  }
  auto facts = devices::GpuFactsFromJson(json);
  if (!facts.ok()) {
    return absl::DataLossError(StrCat(path, ": ", facts.status().message()));
  }
  return facts;
}

// The fake backend, its state saved after every change to the hardware
// (MIG devices created or destroyed), so that the simulated machine
// outlives the process.
class SavingBackend : public devices::DeviceBackend {
 public:
  SavingBackend(devices::FakeDeviceBackend* backend, std::string path)
      : backend_(backend), path_(std::move(path)) {}

  // Health written into the state file by someone else (a test, an
  // operator simulating a failure) reaches the GPUs first: new XIDs and
  // lost GPUs, as NVML would report them.
  absl::StatusOr<devices::NodeGpuFacts> Discover() override {
    TakeHealthEdits();
    return backend_->Discover();
  }
  absl::StatusOr<devices::MigDeviceFacts> CreateMigDevice(
      std::string_view parent_uuid, uint32_t gi_profile_id,
      uint32_t placement_start) override {
    auto created =
        backend_->CreateMigDevice(parent_uuid, gi_profile_id, placement_start);
    if (created.ok()) Save();
    return created;
  }
  absl::Status DestroyMigDevice(std::string_view parent_uuid,
                                uint32_t gpu_instance_id,
                                uint32_t compute_instance_id) override {
    absl::Status s = backend_->DestroyMigDevice(parent_uuid, gpu_instance_id,
                                                compute_instance_id);
    if (s.ok()) Save();
    return s;
  }
  absl::Status SetTimeSlice(std::string_view gpu_uuid,
                            devices::TimeSliceInterval interval) override {
    return backend_->SetTimeSlice(gpu_uuid, interval);
  }
  absl::Status StartMpsDaemon(const devices::MpsDaemonSpec& spec) override {
    return backend_->StartMpsDaemon(spec);
  }
  absl::Status StopMpsDaemon(const devices::MpsDaemonSpec& spec) override {
    return backend_->StopMpsDaemon(spec);
  }

 private:
  // A failure is logged: the machine goes on, and its next start finds
  // the state of the last save.
  void Save() {
    auto facts = backend_->Discover();
    absl::Status s =
        facts.ok()
            ? WritePrivateFile(path_, devices::GpuFactsToJson(*facts).dump(1))
            : facts.status();
    if (!s.ok()) {
      logging::Error("Saving the simulated GPUs failed",
                     {{"file", path_}, {"err", s}});
    }
    std::error_code ec;
    saved_mtime_ = std::filesystem::last_write_time(path_, ec);
  }

  void TakeHealthEdits() {
    std::error_code ec;
    const auto mtime = std::filesystem::last_write_time(path_, ec);
    if (ec || mtime == saved_mtime_) return;
    saved_mtime_ = mtime;
    auto edited = LoadSavedGpus(path_);
    auto current = backend_->Discover();
    if (!edited.ok() || !current.ok()) return;
    bool changed = false;
    for (size_t i = 0; i < edited->gpus.size() && i < current->gpus.size();
         ++i) {
      const devices::GpuFacts& want = edited->gpus[i];
      const devices::GpuFacts& have = current->gpus[i];
      if (want.uuid != have.uuid) continue;
      // XIDs are events: the ones beyond those already seen are new.
      for (size_t x = have.xids.size(); x < want.xids.size(); ++x) {
        backend_->InjectXid(static_cast<uint32_t>(i), want.xids[x]);
        changed = true;
      }
      if (want.lost != have.lost) {
        backend_->SetLost(static_cast<uint32_t>(i), want.lost);
        changed = true;
      }
    }
    if (changed) Save();
  }

  devices::FakeDeviceBackend* const backend_;
  const std::string path_;
  // The state file's time as of our last read or write.
  std::filesystem::file_time_type saved_mtime_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<SimulatedNodes>> SimulatedNodes::Start(
    const devices::Inventory& inventory, const std::string& only_node,
    const std::string& root_dir,
    const std::function<std::unique_ptr<client::Client>(const std::string&)>&
        new_client,
    const node_agent::NodeAgentOptions& defaults, Hardware hardware) {
  std::unique_ptr<SimulatedNodes> nodes(new SimulatedNodes());
  std::random_device random;
  for (const devices::InventoryNode& n : inventory.nodes) {
    if (!only_node.empty() && n.name != only_node) continue;
    Node node;
    node.name = n.name;
    node.client = new_client(n.name);
    node_agent::NodeAgentOptions o = defaults;
    o.node_name = n.name;
    o.root_dir = StrCat(root_dir, "/", n.name);
    o.labels = n.labels;
    o.cpu = n.cpu;
    o.memory = n.memory;
    std::error_code ec;
    std::filesystem::create_directories(o.root_dir, ec);
    o.boot_id_path = StrCat(o.root_dir, "/boot_id");
    const std::string state_file = StrCat(o.root_dir, "/", kStateFile);
    bool booted = false;  // this start is a new boot
    if (hardware == Hardware::kOutlivesProcess &&
        std::filesystem::exists(o.boot_id_path, ec)) {
      auto saved = LoadSavedGpus(state_file);
      if (saved.ok()) {
        node.backend =
            std::make_unique<devices::FakeDeviceBackend>(*std::move(saved));
      } else if (!absl::IsNotFound(saved.status())) {
        return absl::Status(
            saved.status().code(),
            StrCat("node ", n.name, ": ", saved.status().message(),
                   " (delete the file to reboot the node)"));
      }
    }
    if (node.backend == nullptr) {
      booted = true;
      node.backend = std::make_unique<devices::FakeDeviceBackend>(n.gpus);
    }
    if (hardware == Hardware::kOutlivesProcess) {
      node.saving_backend =
          std::make_unique<SavingBackend>(node.backend.get(), state_file);
    }
    if (booted && hardware == Hardware::kOutlivesProcess) {
      // Saved before the boot id: a boot id without its state file is a
      // machine whose state was lost (booted again).
      absl::Status saved =
          WritePrivateFile(state_file, devices::GpuFactsToJson(n.gpus).dump(1));
      if (!saved.ok()) return saved;
    }
    if (booted) {
      std::ofstream boot(o.boot_id_path, std::ios::trunc);
      boot << std::hex << random() << random() << "\n";
      if (!boot.flush()) {
        return absl::FailedPreconditionError(
            StrCat("cannot write ", o.boot_id_path));
      }
    }
    devices::DeviceBackend* backend =
        node.saving_backend ? node.saving_backend.get() : node.backend.get();
    auto agent = node_agent::NodeAgent::Start(o, node.client.get(), backend);
    if (!agent.ok()) {
      return absl::Status(
          agent.status().code(),
          StrCat("node ", n.name, ": ", agent.status().message()));
    }
    node.agent = *std::move(agent);
    nodes->nodes_.push_back(std::move(node));
  }
  if (nodes->nodes_.empty()) {
    return absl::NotFoundError(
        StrCat("no node ", only_node, " in the inventory"));
  }
  return nodes;
}

SimulatedNodes::~SimulatedNodes() { Stop(); }

void SimulatedNodes::Stop() {
  for (Node& n : nodes_) {
    if (n.agent) n.agent->Stop();
  }
}

std::vector<std::string> SimulatedNodes::names() const {
  std::vector<std::string> out;
  for (const Node& n : nodes_) out.push_back(n.name);
  return out;
}

}  // namespace draplane::cmd
