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
#include <random>
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
  // 1 + the index of the soft-constraint variant (ScoringPolicy::
  // SoftVariants) the node's allocation satisfies; 0 = none.
  int soft_match = 0;

  // ---- Set only for policies with a DevicePreference.
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

// ---- Extension points. A policy is a node score plus what it tells the
// cycle's mechanism at four points: which nodes to sample, which soft
// constraints to try, how to choose a device within a node, how to break
// ties. The defaults are draplane's plain behaviour; `upstream` overrides
// them with kube-scheduler's.

// Candidate sampling: how many feasible nodes one pod's cycle looks for,
// and where its walk over the nodes starts.
struct NodeSample {
  size_t feasible_to_find = 0;
  // Start where the previous pod's walk stopped (upstream's
  // nextStartNodeIndex); false: at the first node.
  bool rotate_start = false;
};

// Device preference: for policies that choose the device as well as the
// node. The cycle then fills the device fields of NodeCandidate and, for a
// pod whose claims ask for exactly one device, has the allocator offer
// every placement on the node (AllocateOptions::visit_allocation), scores
// each, and the node's score is its best placement's.
class DevicePreference {
 public:
  virtual ~DevicePreference() = default;
  // Among a node's placements with the best Score, the one with the
  // highest preference wins (the first in device order on ties). Does not
  // rank nodes.
  virtual int64_t Prefer(const NodeCandidate& placement) const = 0;
};

class ScoringPolicy {
 public:
  virtual ~ScoringPolicy() = default;
  virtual std::string_view name() const = 0;

  // Candidate sampling. Default: every node, from the first.
  virtual NodeSample SampleNodes(int32_t num_nodes,
                                 int32_t percentage_of_nodes_to_score) const;

  // Soft constraints: variants of the claims to allocate (all of them, in
  // the given order), most preferred first. On each node the allocator
  // tries them in turn before the claims as they are; the first that
  // succeeds gives the node's allocation, whose results name the devices
  // and the claims' own configuration only, and NodeCandidate::soft_match
  // says which. Default: none.
  virtual std::vector<std::vector<api::ResourceClaim>> SoftVariants(
      const std::vector<const api::ResourceClaim*>& /*claims*/) const {
    return {};
  }

  // Node scoring. StartPod is called once per pod before its nodes are
  // scored, with the cluster they are scored in.
  virtual void StartPod(ClusterState& /*state*/) const {}
  virtual int64_t Score(const NodeCandidate& candidate) const = 0;

  // Device preference; nullptr (the default): the node's score is that of
  // the allocator's one answer.
  virtual const DevicePreference* device_preference() const { return nullptr; }

  // Tie-breaking: whether a node scoring the same as the best so far, the
  // `ties`-th such node counting the best, takes its place. Default: no
  // (the first node in walk order wins).
  virtual bool TakeTiedNode(int /*ties*/, std::mt19937_64& /*rng*/) const {
    return false;
  }
};

// Upstream's candidate sampling: numFeasibleNodesToFind (adaptive when
// `percentage_of_nodes_to_score` is 0) from a rotating start.
NodeSample UpstreamNodeSample(int32_t num_nodes,
                              int32_t percentage_of_nodes_to_score);

// Upstream's tie-breaking (selectHost): reservoir sampling, so each of the
// nodes with the best score wins with equal probability.
bool RandomTieBreak(int ties, std::mt19937_64& rng);

// Devices a claim asks for, counting AllocationMode All as two.
int64_t DevicesAsked(const api::ResourceClaim& claim);

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
