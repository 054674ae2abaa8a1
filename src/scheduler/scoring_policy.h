// Node scoring policies, chosen by name (mechanism apart from policy): the
// scheduling cycle finds feasible nodes and the allocation each would get;
// a policy ranks them and says how many nodes to look at.
//
//   upstream  kube-scheduler: look at upstream's adaptive share of nodes
//             (from a rotating start), score = DynamicResources'
//             prioritized-list score + NodeResourcesFit LeastAllocated;
//             ties broken at random.
//   binpack   draplane: every feasible node; prefer nodes whose devices are
//             already most used (and MostAllocated cpu/memory), keeping
//             whole nodes free for large jobs. Ties: node name order.
//   spread    draplane: the opposite of binpack, for availability.
//   topology  draplane: like binpack, but a claim asking for several devices
//             first tries to get them all sharing one value of an
//             interconnect attribute (NVLink domain, PCIe root, ...) and
//             nodes where that works score higher; never a hard constraint.
//
// GPU-sharing policies (scheduler/packing_policies.h): the five baselines
// and FGD of "Beware of Fragmentation" (ATC'23) as its authors' simulator
// implements them, and draplane's own fragmentation-aware policy:
//   random, dotprod, gpu-clustering, gpu-packing, bestfit, fgd, draplane.
// They look at every GPU of a node: a pod that takes one device (a GPU
// share) is tried on each device of the node, and the policy picks the
// device as well as the node.
#ifndef DRAPLANE_SCHEDULER_SCORING_POLICY_H_
#define DRAPLANE_SCHEDULER_SCORING_POLICY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "api/core_types.h"
#include "api/resource_types.h"
#include "scheduler/cluster_state.h"
#include "scheduler/fragmentation.h"
#include "scheduler/node_filters/node_filters.h"

namespace draplane::scheduler {

// What a policy knows about one feasible node.
struct NodeCandidate {
  const api::Node* node = nullptr;
  // The node's non-DRA scores (0..100): NodeResourcesFit least/most
  // allocated for the pod's cpu/memory requests.
  int64_t least_allocated = 0;
  int64_t most_allocated = 0;
  // Devices published for the node and how many are in use before this pod.
  int devices_total = 0;
  int devices_used = 0;
  // Devices the pod's new allocations take on this node.
  int devices_new = 0;
  // Upstream's DynamicResources score: per firstAvailable request,
  // 8 - index of the chosen subrequest.
  int64_t prioritized_list = 0;
  // topology: index+1 of the interconnect attribute all multi-device claims
  // could share on this node (1 = the first preferred attribute), 0 = none.
  int topology_match = 0;

  // ---- Set only for policies that ComparesDevices().
  // The node (its id and epoch key caches: ClusterState::NodeInfo).
  const ClusterState::NodeInfo* info = nullptr;
  // The pod's requests (cpu, memory) as the node filters read them.
  const node_filters::PodNodeRequirements* pod = nullptr;
  // The node's devices before this pod.
  const std::vector<ClusterState::DeviceUse>* devices = nullptr;
  // The devices this placement takes: index into `devices` and the share
  // taken (thousandths; 1000 for a device taken whole).
  struct Take {
    int device = 0;
    int64_t milli = 1000;
  };
  absl::Span<const Take> takes;
};

class ScoringPolicy {
 public:
  virtual ~ScoringPolicy() = default;
  virtual std::string_view name() const = 0;
  // True: score every feasible node. False: stop after upstream's
  // numFeasibleNodesToFind, starting where the previous pod stopped.
  virtual bool ScoresAllNodes() const = 0;
  // True: ties are broken at random (upstream); false: first node wins.
  virtual bool RandomTieBreak() const = 0;
  // Interconnect attributes to try as soft matchAttribute constraints on
  // claims that ask for several devices, most preferred first.
  virtual const std::vector<std::string>& PreferredMatchAttributes() const = 0;
  virtual int64_t Score(const NodeCandidate& candidate) const = 0;

  // True: the cycle fills the device fields of NodeCandidate and, for a
  // pod whose claims ask for exactly one device, asks the allocator for
  // that device on each device of the node (AllocateOptions::only_device)
  // and scores every placement; the node's score is the best placement's.
  virtual bool ComparesDevices() const { return false; }
  // Among a node's placements with the best Score, the one with the
  // highest preference wins (the first on ties). Does not rank nodes.
  virtual int64_t DevicePreference(const NodeCandidate&) const { return 0; }
  // Called once per pod before its nodes are scored, with the cluster
  // they are scored in.
  virtual void StartPod(ClusterState& /*state*/) const {}
};

// What a policy may be given besides its name.
struct PolicyOptions {
  // topology: fully qualified attribute names (empty = the defaults).
  std::vector<std::string> topology_attributes;
  // fgd, draplane: the pods (one shape each) the target workload is drawn
  // from; empty = learn it from the pods the policy scores.
  std::vector<PodShape> pod_shapes;
  // random: the seed of its choices.
  uint64_t seed = 1;
};

// The policy names, in documentation order.
const std::vector<std::string_view>& PolicyNames();

// The default interconnect attributes of the `topology` policy.
const std::vector<std::string>& DefaultTopologyAttributes();

// A policy by name; InvalidArgument (listing the names) for others.
// `topology_attributes` (fully qualified attribute names) overrides the
// defaults of `topology`; ignored by the other policies.
absl::StatusOr<std::unique_ptr<ScoringPolicy>> NewScoringPolicy(
    std::string_view name,
    const std::vector<std::string>& topology_attributes = {});
absl::StatusOr<std::unique_ptr<ScoringPolicy>> NewScoringPolicy(
    std::string_view name, const PolicyOptions& options);

}  // namespace draplane::scheduler

#endif  // DRAPLANE_SCHEDULER_SCORING_POLICY_H_
