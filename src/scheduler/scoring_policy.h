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
#ifndef DRAPLANE_SCHEDULER_SCORING_POLICY_H_
#define DRAPLANE_SCHEDULER_SCORING_POLICY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "api/core_types.h"
#include "api/resource_types.h"

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

}  // namespace draplane::scheduler

#endif  // DRAPLANE_SCHEDULER_SCORING_POLICY_H_
