#include "cmd/simulated_nodes.h"

#include <filesystem>
#include <fstream>
#include <random>

#include "common/str_cat.h"

namespace draplane::cmd {

absl::StatusOr<std::unique_ptr<SimulatedNodes>> SimulatedNodes::Start(
    const devices::Inventory& inventory, const std::string& only_node,
    const std::string& root_dir,
    const std::function<std::unique_ptr<client::Client>(const std::string&)>&
        new_client,
    const node_agent::NodeAgentOptions& defaults) {
  std::unique_ptr<SimulatedNodes> nodes(new SimulatedNodes());
  std::random_device random;
  for (const devices::InventoryNode& n : inventory.nodes) {
    if (!only_node.empty() && n.name != only_node) continue;
    Node node;
    node.name = n.name;
    node.backend = std::make_unique<devices::FakeDeviceBackend>(n.gpus);
    node.client = new_client(n.name);
    node_agent::NodeAgentOptions o = defaults;
    o.node_name = n.name;
    o.root_dir = StrCat(root_dir, "/", n.name);
    o.labels = n.labels;
    o.cpu = n.cpu;
    o.memory = n.memory;
    // The simulated hardware boots with this process.
    std::error_code ec;
    std::filesystem::create_directories(o.root_dir, ec);
    o.boot_id_path = StrCat(o.root_dir, "/boot_id");
    {
      std::ofstream boot(o.boot_id_path, std::ios::trunc);
      boot << std::hex << random() << random() << "\n";
      if (!boot.flush()) {
        return absl::FailedPreconditionError(
            StrCat("cannot write ", o.boot_id_path));
      }
    }
    auto agent =
        node_agent::NodeAgent::Start(o, node.client.get(), node.backend.get());
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
