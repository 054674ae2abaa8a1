// The kubelet's part of a simulated node (KWOK-style), in front of any
// DRA kubelet plugin reached through its registration socket:
//  - the Node object (labels, capacity, Ready condition), created when
//    missing, and its heartbeat Lease kube-node-lease/<node> renewed every
//    `heartbeat_period` (the node lifecycle controller marks the node
//    Unknown when it stops, and Ready again when it comes back);
//  - for each pod bound to the node, its claims prepared over the real
//    gRPC socket (as the kubelet does: registration, NodePrepareResources),
//    then the pod marked Running with its containers' CDI device IDs in the
//    annotation `dra.draplane.io/cdi-devices` ({"<container>": ["<id>",
//    ...]}); a failure is a FailedPrepareDynamicResources event and a retry
//    with backoff; when the pod goes away or finishes (see
//    kSimulatedRunTimeAnnotation) its claims are unprepared.
// It writes only what a kubelet may (its Node, its Lease, its pods' status
// and Events, deleting its pods once stopped), so it runs with a node's
// identity (system:node:<name>) under kube-apiserver's Node authorizer and
// NodeRestriction admission.
#ifndef DRAPLANE_NODE_AGENT_SIMULATED_KUBELET_H_
#define DRAPLANE_NODE_AGENT_SIMULATED_KUBELET_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/client.h"
#include "clock/clock.h"
#include "kubelet_plugin/dra_driver.h"

namespace draplane::node_agent {

inline constexpr char kCdiDevicesAnnotation[] = "dra.draplane.io/cdi-devices";
// Simulated nodes only: a pod with restartPolicy Never or OnFailure and
// this annotation (a duration, "30s", "2m") finishes that long after it
// started, with the exit code of kSimulatedExitCodeAnnotation (default
// 0): phase Succeeded (0) or Failed, containers terminated. So Jobs
// complete and finished pods release their claims, as on a real node.
inline constexpr char kSimulatedRunTimeAnnotation[] =
    "dra.draplane.io/simulated-run-time";
inline constexpr char kSimulatedExitCodeAnnotation[] =
    "dra.draplane.io/simulated-exit-code";

struct SimulatedKubeletOptions {
  std::string node_name;
  // The plugin's registration socket (plugins_registry/<driver>-reg.sock).
  // The endpoint it names is connected to as given.
  std::string registration_socket;
  // Claims whose results name this driver are prepared by the plugin;
  // others are left alone.
  std::string driver_name;
  // The Node object: labels merged in; capacity and allocatable.
  std::map<std::string, std::string> labels;
  std::string cpu = "64";
  std::string memory = "512Gi";
  std::string pods = "110";
  absl::Duration heartbeat_period = absl::Seconds(10);
  // How often finished simulated pods and orphaned claims are looked for.
  absl::Duration poll_period = absl::Seconds(5);
  // The claims the plugin holds prepared (its checkpoint), for the
  // kubelet's cleanup of claims whose pods went away while it was down.
  // Empty: only the claims this kubelet prepared itself are unprepared.
  std::function<std::vector<kubelet_plugin::ClaimRef>()> prepared_claims;
  // What timestamps, periods and simulated run times read and wait on
  // (null: RealClock()); outlives the kubelet.
  Clock* clock = nullptr;
};

class SimulatedKubelet {
 public:
  // Creates or updates the Node, renews its Lease, registers with the
  // plugin and starts syncing the node's pods. `api` must outlive the
  // kubelet and is used from its threads.
  static absl::StatusOr<std::unique_ptr<SimulatedKubelet>> Start(
      const SimulatedKubeletOptions& options, client::Client* api);
  ~SimulatedKubelet();  // Stop()

  // Stops heartbeats and pod syncing; nothing is deleted or unprepared.
  void Stop();

  class Impl;

 private:
  explicit SimulatedKubelet(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace draplane::node_agent

#endif  // DRAPLANE_NODE_AGENT_SIMULATED_KUBELET_H_
