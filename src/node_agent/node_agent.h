// One GPU node: what runs on a node of a real cluster (the GPU driver
// serving the kubelet plugin protocol and publishing ResourceSlices), and,
// for draplane's simulated nodes, the kubelet's part too
// (simulated_kubelet.h):
//  - the GPU driver (gpu_driver.h) behind a PluginServer on
//    <root>/plugins/<driver>/dra.sock with its registration socket in
//    <root>/plugins_registry, CDI specs in <root>/cdi;
//  - ResourceSlices from the driver, republished when the devices or
//    their health change (polled every `device_poll_period`), and again
//    when they were deleted (e.g. by a restarted kubelet);
//  - with `simulate_kubelet`: the Node object and its heartbeat Lease, and
//    the node's pods prepared over the plugin's real gRPC socket and marked
//    Running (SimulatedKubelet, with the driver's checkpoint as the
//    prepared claims it cleans up after).
// Stop() halts everything without cleaning up (a node failure); Start()
// on the same root resumes (the driver's checkpoint keeps what is
// prepared).
#ifndef DRAPLANE_NODE_AGENT_NODE_AGENT_H_
#define DRAPLANE_NODE_AGENT_NODE_AGENT_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/client.h"
#include "clock/clock.h"
#include "devices/device_backend.h"
#include "gpu_driver/gpu_driver.h"
#include "node_agent/simulated_kubelet.h"

namespace draplane::node_agent {

struct NodeAgentOptions {
  std::string node_name;
  // The simulated kubelet's Node object: labels merged in.
  std::map<std::string, std::string> labels;
  std::string cpu = "64";
  std::string memory = "512Gi";
  std::string pods = "110";
  // <root>/plugins/<driver>, <root>/plugins_registry, <root>/cdi unless
  // the paths below are set.
  std::string root_dir;
  std::string plugins_dir;    // default <root>/plugins
  std::string registrar_dir;  // default <root>/plugins_registry
  std::string cdi_root;       // default <root>/cdi
  // The plugin's gRPC liveness service on TCP (kubelet_plugin/
  // plugin_health_server.h) on 0.0.0.0 and this port; < 0: not served,
  // 0: any free port (healthcheck_port() says which).
  int healthcheck_port = -1;
  nvidia_config::FeatureGates gates = gpu_driver::DefaultFeatureGates();
  std::string boot_id_path = "/proc/sys/kernel/random/boot_id";
  std::vector<uint32_t> additional_ignored_xids;
  // The driver's metrics (dra_plugin_errors_total) go here; null: none.
  metrics::Registry* metrics = nullptr;
  bool simulate_kubelet = true;
  absl::Duration heartbeat_period = absl::Seconds(10);
  absl::Duration device_poll_period = absl::Seconds(5);
  absl::Duration stale_claim_period = absl::Minutes(10);
  // What the agent's timestamps, periods and simulated run times read and
  // wait on (null: RealClock()); outlives the agent.
  Clock* clock = nullptr;
};

class NodeAgent {
 public:
  // `api` and `backend` must outlive the agent; `api` is used from the
  // agent's threads only through thread-safe calls.
  static absl::StatusOr<std::unique_ptr<NodeAgent>> Start(
      const NodeAgentOptions& options, client::Client* api,
      devices::DeviceBackend* backend);
  ~NodeAgent();  // Stop()

  // Stops heartbeats, publishing, the plugin server and the simulated
  // kubelet. Nothing is deleted from the API server.
  void Stop();

  // Republishes now (also done periodically); returns the generation.
  absl::StatusOr<int64_t> PublishNow();

  gpu_driver::GpuDriver& driver();
  const std::string& dra_socket() const;
  // The kubelet plugin's registration socket.
  const std::string& registration_socket() const;
  // The port of the gRPC liveness service; 0 when not served.
  int healthcheck_port() const;

  class Impl;

 private:
  explicit NodeAgent(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace draplane::node_agent

#endif  // DRAPLANE_NODE_AGENT_NODE_AGENT_H_
