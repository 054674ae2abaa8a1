// The guide's failure case 2 (a node fails while its pods hold devices),
// recovered the way kube-controller-manager's node lifecycle and taint
// eviction controllers do:
// - Heartbeats: a node's kubelet (or draplane's node agent) renews the
//   Lease kube-node-lease/<node> and posts the Ready condition. A node
//   whose Lease and Ready heartbeat have not changed for `grace_period`
//   (upstream --node-monitor-grace-period, 50 s) by this controller's own
//   clock gets Ready (and its other conditions) set to Unknown, reason
//   NodeStatusUnknown, "Kubelet stopped posting node status.".
// - Taints: Ready Unknown -> node.kubernetes.io/unreachable NoSchedule and
//   NoExecute; Ready False -> node.kubernetes.io/not-ready NoSchedule and
//   NoExecute; Ready True -> neither. NoSchedule keeps new pods (and so
//   the node's devices) away; the node agent setting Ready=True again
//   removes them and its devices are allocatable again.
// - Eviction: a pod on a node with a NoExecute taint it does not tolerate
//   is evicted at once; one that tolerates it with tolerationSeconds (the
//   API server's DefaultTolerationSeconds gives every pod 300 s for
//   not-ready and unreachable) when that time has passed since the taint
//   was added; one that tolerates it without a limit stays. Eviction is
//   upstream's: the DisruptionTarget condition (DeletionByTaintManager),
//   a TaintManagerEviction event, then the pod is deleted; the
//   resourceclaim controller then releases and deallocates its claims.
//
// Beyond upstream: only nodes that have a Lease in kube-node-lease are
// monitored. A Node object nobody renews a Lease for (a simulated node
// applied from a manifest) is never marked Unknown.
#ifndef DRAPLANE_CONTROLLERS_NODE_LIFECYCLE_CONTROLLER_H_
#define DRAPLANE_CONTROLLERS_NODE_LIFECYCLE_CONTROLLER_H_

#include <cstdint>
#include <memory>
#include <string_view>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "client/client.h"
#include "clock/clock.h"
#include "component_helpers/runnable.h"

namespace draplane::controllers {

inline constexpr std::string_view kNodeLeaseNamespace = "kube-node-lease";
inline constexpr std::string_view kTaintUnreachable =
    "node.kubernetes.io/unreachable";
inline constexpr std::string_view kTaintNotReady =
    "node.kubernetes.io/not-ready";

struct NodeLifecycleOptions {
  // Upstream --node-monitor-period and --node-monitor-grace-period.
  absl::Duration monitor_period = absl::Seconds(5);
  absl::Duration grace_period = absl::Seconds(50);
  bool record_events = true;
  // What the monitor reads and waits on (null: RealClock()); outlives the
  // controller.
  Clock* clock = nullptr;
};

struct NodeLifecycleStats {
  int64_t nodes_marked_unknown = 0;  // Ready set to Unknown
  int64_t pods_evicted = 0;
};

class NodeLifecycleController : public component_helpers::Runnable {
 public:
  // `client` outlives the controller.
  NodeLifecycleController(client::Client* client,
                          NodeLifecycleOptions options = {});
  ~NodeLifecycleController() override;  // Stop()s
  NodeLifecycleController(const NodeLifecycleController&) = delete;
  NodeLifecycleController& operator=(const NodeLifecycleController&) = delete;

  absl::Status Start(absl::Duration sync_timeout =
                         component_helpers::kDefaultSyncTimeout) override;
  void Stop() override;

  NodeLifecycleStats stats() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace draplane::controllers

#endif  // DRAPLANE_CONTROLLERS_NODE_LIFECYCLE_CONTROLLER_H_
