// One pod's scheduling decision, as kube-scheduler's framework takes it
// with the DynamicResources plugin: resolve the pod's claims (PreEnqueue /
// PreFilter), filter nodes (node name, unschedulable, affinity/selector,
// taints, readiness, resources, then the DRA allocation on each node),
// score with the chosen policy, and reserve (in-flight allocations and the
// assumed pod in the ClusterState). No API calls: the binder writes the
// decision. The simulator and benchmarks use this directly.
//
// Beyond upstream: an unschedulable pod's message carries the allocator's
// explanation (which request, which selector or constraint, how many
// devices were left at each step), not only "cannot allocate all claims".
// Allocation answers are cached per node and claim spec until something
// that node's answer depends on changes (ClusterState epochs); the answers
// are the ones the allocator would give.
#ifndef DRAPLANE_SCHEDULER_SCHEDULING_CYCLE_H_
#define DRAPLANE_SCHEDULER_SCHEDULING_CYCLE_H_

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/time/time.h"
#include "allocator/allocator.h"
#include "api/core_types.h"
#include "scheduler/cluster_state.h"
#include "scheduler/node_filters/node_filters.h"
#include "scheduler/scoring_policy.h"

namespace draplane::scheduler {

// What the binder does with one of the pod's claims.
struct ClaimPlan {
  std::string claim_key;  // "ns/name"
  ObjectPtr claim;        // as the decision saw it
  // Set: the claim gets this allocation (it had none).
  std::optional<api::AllocationResult> allocation;
  // The pod is not yet in status.reservedFor.
  bool reserve = true;
};

struct Decision {
  enum class Kind {
    kScheduled,
    // No node fits (PodScheduled=False, reason Unschedulable).
    kUnschedulable,
    // PreEnqueue failed: a claim is missing, being deleted or not the
    // pod's; the pod waits for claim events.
    kWaiting,
    // An error that is not about fit (bad CEL at runtime...): backoff.
    kError,
  };
  Kind kind = Kind::kUnschedulable;
  std::string node;
  std::vector<ClaimPlan> claims;
  // FailedScheduling message (kUnschedulable, kWaiting, kError).
  std::string message;
  // kWaiting for a claim that does not exist yet: its "ns/name".
  std::string waiting_for_claim;
  int nodes_evaluated = 0;
  int allocate_calls = 0;
};

struct CycleOptions {
  allocator::UpstreamFixes fixes;
  // DynamicResourcesArgs.filterTimeout (0 disables).
  absl::Duration filter_timeout = absl::Seconds(10);
  // kube-scheduler's percentageOfNodesToScore; 0 = adaptive.
  int percentage_of_nodes_to_score = 0;
  // Nodes whose failed allocation is explained in the message.
  int max_explained_nodes = 8;
  uint64_t seed = 1;  // random tie-breaks
  // Cache allocation answers per node (off only to prove it changes
  // nothing).
  bool cache_answers = true;
  // Distinct claim specs whose answers are cached (all are dropped when a
  // new one would exceed it).
  int max_cached_specs = 64;
};

// The PreFilter message for the first request (or subrequest) of `claim`
// whose DeviceClass does not exist ("request gpu: device class x does not
// exist"), "" when they all exist.
std::string MissingDeviceClass(const api::ResourceClaim& claim,
                               const ClusterState& state);

// The PreFilter message for the first request of `claim` asking for
// adminAccess when the claim's namespace is not labelled
// resource.kubernetes.io/admin-access=true (ClusterState::
// AdminAccessAllowed), "" otherwise. Upstream's scheduler leaves this to
// the API server's validation; draplane's checks again, so that a claim
// written past validation (an older server, a restored backup) never gets
// another namespace's in-use devices.
std::string AdminAccessRefused(const api::ResourceClaim& claim,
                               const ClusterState& state);

class SchedulingCycle {
 public:
  // `state` and `policy` outlive the cycle.
  SchedulingCycle(ClusterState* state, const ScoringPolicy* policy,
                  CycleOptions options);

  // Decides where `pod` goes. Reads the state (and caches answers).
  Decision Schedule(const api::Pod& pod);
  // Records a kScheduled decision in the state: in-flight allocations,
  // the pod assumed on its node.
  void Reserve(const api::Pod& pod, const Decision& decision);
  // Undoes Reserve (the binder failed).
  void Unreserve(const api::Pod& pod, const Decision& decision);

 private:
  struct Answer {
    uint64_t node_epoch = 0;
    uint64_t global_epoch = 0;
    allocator::OutcomeKind kind = allocator::OutcomeKind::kUnallocatable;
    std::string message;
    std::vector<api::AllocationResult> results;
    int soft_match = 0;  // NodeCandidate::soft_match
    // Derived from `results` once (scoring reads them for every feasible
    // node of every pod): devices the results newly take (admin access
    // takes none) and upstream's prioritized-list score.
    int devices_new = 0;
    int64_t prioritized_list = 0;
    // Policies with a DevicePreference: every placement on the node, in
    // device order (`results` among them), with the devices it takes.
    struct Placement {
      std::vector<api::AllocationResult> results;
      std::vector<NodeCandidate::Take> takes;
    };
    std::vector<Placement> placements;
  };
  struct PodClaims;
  // The allocator's answer for the claims to allocate on `node`, with
  // every placement when the policy has a DevicePreference.
  void Allocate(Answer& answer, const ClusterState::NodeInfo& node,
                const PodClaims& claims,
                const allocator::AllocateOptions& allocate, Decision& decision);
  // What a policy with a DevicePreference reads of a placement.
  std::vector<NodeCandidate::Take> TakesOf(
      const std::vector<ClusterState::DeviceUse>& devices,
      const std::vector<api::AllocationResult>& results) const;
  using NodeAnswers = absl::node_hash_map<uint64_t, Answer>;
  const Answer& AnswerFor(NodeAnswers& answers,
                          const ClusterState::NodeInfo& node,
                          const PodClaims& claims, Decision& decision);

  ClusterState* state_;
  const ScoringPolicy* policy_;
  CycleOptions options_;
  std::mt19937_64 rng_;
  size_t next_start_ = 0;
  // claim-spec signature -> NodeInfo::id -> answer (node_hash_map:
  // answers keep their address while a cycle adds others).
  absl::flat_hash_map<std::string, NodeAnswers> answers_;
  // Why a node was rejected in the cycle running now.
  // Schedule's phases (upstream's PreFilter, Filter, Score, PostFilter).
  // The pod's claims as PreFilter sees them.
  struct PodClaims {
    std::vector<const api::ResourceClaim*> to_allocate;
    std::vector<size_t> to_allocate_plan;  // index into Decision::claims
    std::vector<const api::ResourceClaim*> allocated;
    std::string prefilter_message;  // the first PreFilter failure, if any
    // The policy's soft-constraint variants of to_allocate, and pointers
    // to their claims.
    std::vector<std::vector<api::ResourceClaim>> soft_variants;
    std::vector<std::vector<const api::ResourceClaim*>> soft_variant_claims;
    // The claims ask for exactly one device, by count: a DevicePreference
    // compares every device of the node.
    bool one_device = false;
  };
  // The best node of Filter and Score.
  struct Best {
    const ClusterState::NodeInfo* node = nullptr;
    const Answer* answer = nullptr;
    const Answer::Placement* placement = nullptr;
    int64_t score = 0;
    int ties = 0;
  };
  // What Filter and Score found besides the rejections.
  struct Search {
    Best best;
    std::vector<const ClusterState::NodeInfo*> dra_failed;  // to explain
    bool any_error = false;
    std::string error_message;
  };
  // PreEnqueue and DRA PreFilter: fills `d.claims` and `claims`; false
  // when the pod must wait (`d` says why).
  bool PreFilter(const api::Pod& pod, PodClaims& claims, Decision& d);
  // Fills the soft-constraint variants and one_device of `claims`.
  void PrepareAllocation(PodClaims& claims) const;
  // The cached answers for the claims to allocate, keyed by their specs.
  NodeAnswers& AnswersForSpecs(
      const std::vector<const api::ResourceClaim*>& to_allocate);
  // Filter on one node: sets `feasible`; the allocator's answer when the
  // node fits and claims are to be allocated. A rejection is recorded.
  const Answer* FilterNode(
      const ClusterState::NodeInfo& info,
      const node_filters::PodNodeRequirements& requirements,
      const PodClaims& claims, NodeAnswers& node_answers, Decision& d,
      Search& search, bool& feasible);
  // Score of a feasible node; with device comparison, of its best
  // placement (`placement`).
  int64_t ScoreNode(const ClusterState::NodeInfo& info,
                    const node_filters::PodNodeRequirements& requirements,
                    const Answer* answer,
                    const DevicePreference* device_preference,
                    const Answer::Placement*& placement);
  // Filter and Score over the nodes from next_start_ until enough fit.
  void FilterAndScore(const node_filters::PodNodeRequirements& requirements,
                      const PodClaims& claims, NodeAnswers& node_answers,
                      Decision& d, Search& search);
  // PostFilter's message: the diagnosis, then the allocator's explanation
  // of the DRA failures grouped by text.
  void ExplainUnschedulable(
      const Search& search,
      const std::vector<const api::ResourceClaim*>& to_allocate,
      node_filters::FitErrorBuilder& diagnosis, Decision& d);

  struct Rejection {
    const std::string* node_name;
    bool by_dra;                  // dra_reason says why, else `filter`
    std::string_view dra_reason;  // a constant or in an answer kept
    node_filters::FilterResult filter;
  };
  std::vector<Rejection> rejections_;  // reused from cycle to cycle
};

}  // namespace draplane::scheduler

#endif  // DRAPLANE_SCHEDULER_SCHEDULING_CYCLE_H_
