// The simulated GPU nodes of `draplane server --nodes` and
// `draplane node --backend fake`: one node agent per inventory node, each
// with a fake device backend built from the inventory.
//
// A simulated machine either boots with the process (the default: each
// start is a new boot, MIG devices created before are gone, and the agents
// prepare the claims of their running pods again) or outlives it
// (`Hardware::kOutlivesProcess`, for a driver that runs apart from its
// kubelet, as a kubelet-plugin Pod: the GPUs' state, MIG devices included,
// is kept in <root>/<node>/simulated-gpus.json with the boot id beside it,
// so a restarted driver finds what it prepared, as after a driver upgrade
// on a real node). Deleting the node's root directory is a reboot. Health
// edited into that file (a GPU's "xids" grown, "lost") reaches the GPUs at
// the driver's next poll, as NVML events would: a way to simulate a
// failure of a running node.
#ifndef DRAPLANE_CMD_SIMULATED_NODES_H_
#define DRAPLANE_CMD_SIMULATED_NODES_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/client.h"
#include "devices/fake_backend.h"
#include "node_agent/node_agent.h"

namespace draplane::cmd {

class SimulatedNodes {
 public:
  // Starts an agent for each node of `inventory` (or only `only_node` when
  // set) under `<root_dir>/<node>`, each with a client from
  // `new_client(node name)`.
  enum class Hardware { kBootsWithProcess, kOutlivesProcess };
  static absl::StatusOr<std::unique_ptr<SimulatedNodes>> Start(
      const devices::Inventory& inventory, const std::string& only_node,
      const std::string& root_dir,
      const std::function<std::unique_ptr<client::Client>(const std::string&)>&
          new_client,
      const node_agent::NodeAgentOptions& defaults,
      Hardware hardware = Hardware::kBootsWithProcess);
  ~SimulatedNodes();

  void Stop();
  std::vector<std::string> names() const;

 private:
  struct Node {
    std::string name;
    std::unique_ptr<devices::FakeDeviceBackend> backend;
    // Saves the backend's state (kOutlivesProcess), else null.
    std::unique_ptr<devices::DeviceBackend> saving_backend;
    std::unique_ptr<client::Client> client;
    std::unique_ptr<node_agent::NodeAgent> agent;
  };
  SimulatedNodes() = default;
  std::vector<Node> nodes_;
};

}  // namespace draplane::cmd

#endif  // DRAPLANE_CMD_SIMULATED_NODES_H_
