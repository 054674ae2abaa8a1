// The non-DRA node filters and scorers of kube-scheduler's default profile,
// with upstream's exact failure reasons, and the FailedScheduling message
// (upstream FitError.Error()).
//
// Upstream sources (kubernetes/kubernetes, pkg/scheduler/...):
//   framework/plugins/nodename/node_name.go
//   framework/plugins/nodeunschedulable/node_unschedulable.go
//   framework/plugins/tainttoleration/taint_toleration.go
//   framework/plugins/nodeaffinity/node_affinity.go
//   framework/plugins/noderesources/{fit,least_allocated,most_allocated,
//                                     resource_allocation}.go
//   framework/types.go (Resource, CalculateResource, FitError.Error)
//   framework/preemption/preemption.go, schedule_one.go
// and k8s.io/component-helpers scheduling/corev1 + resource/helpers.go.
//
// Usage, per pod: Parse() once; per node: RunAll() (or the single filters),
// keeping a NodeUsage per node with the pods already on (or assumed to) it;
// on failure feed every rejected node into a FitErrorBuilder.
//
// Thread safety: everything here is a value type or a pure function; const
// objects may be shared between threads.
#ifndef DRAPLANE_SCHEDULER_NODE_FILTERS_NODE_FILTERS_H_
#define DRAPLANE_SCHEDULER_NODE_FILTERS_NODE_FILTERS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "api/core_types.h"
#include "api/meta_types.h"

namespace draplane::scheduler::node_filters {

// ----------------------------------------------------------- reasons
// Upstream's reason strings, byte for byte.
inline constexpr std::string_view kReasonNodeName =
    "node(s) didn't match the requested node name";
inline constexpr std::string_view kReasonNodeUnschedulable =
    "node(s) were unschedulable";
inline constexpr std::string_view kReasonNodeAffinity =
    "node(s) didn't match Pod's node affinity/selector";
// Since kubernetes#134740 (1.35, cherry-picked to 1.34) upstream no longer
// names the taint ("node(s) had untolerated taint {key: value}" before).
inline constexpr std::string_view kReasonUntoleratedTaint =
    "node(s) had untolerated taint(s)";
// draplane's own (see FilterNodeReady).
inline constexpr std::string_view kReasonNodeNotReady =
    "node(s) were not ready";
inline constexpr std::string_view kReasonTooManyPods = "Too many pods";
// NodeAffinity PreFilter: the pod's required terms all pin metadata.name and
// no name is common to every term.
inline constexpr std::string_view kReasonAffinityTermsConflict =
    "pod affinity terms conflict";
// Absent-node status when NodeAffinity's PreFilter restricted the candidate
// nodes (schedule_one.go: "node(s) didn't satisfy plugin(s) %v" with the
// sorted plugin names).
inline constexpr std::string_view kReasonNotInPreFilterNodes =
    "node(s) didn't satisfy plugin(s) [NodeAffinity]";
// DefaultPreemption's per-node reasons.
inline constexpr std::string_view kReasonNoPreemptionVictims =
    "No preemption victims found for incoming pod";
inline constexpr std::string_view kReasonPreemptionNotHelpful =
    "Preemption is not helpful for scheduling";
// schedule_one.go ErrNoNodesAvailable: the whole message when the cluster
// has no nodes.
inline constexpr std::string_view kNoNodesAvailableMessage =
    "no nodes available to schedule pods";
// The taint NodeUnschedulable checks tolerations against.
inline constexpr std::string_view kTaintNodeUnschedulable =
    "node.kubernetes.io/unschedulable";

// Upstream's scheduler plugin names, as they appear in FilterResult::plugin.
inline constexpr std::string_view kPluginNodeUnschedulable =
    "NodeUnschedulable";
inline constexpr std::string_view kPluginNodeName = "NodeName";
inline constexpr std::string_view kPluginTaintToleration = "TaintToleration";
inline constexpr std::string_view kPluginNodeReady = "NodeReady";
inline constexpr std::string_view kPluginNodeAffinity = "NodeAffinity";
inline constexpr std::string_view kPluginNodeResourcesFit = "NodeResourcesFit";

// ----------------------------------------------------------- options
struct FilterOptions {
  // Toleration operators Lt/Gt (feature gate
  // TaintTolerationComparisonOperators: alpha since 1.35, off by default up
  // to 1.37). When false such a toleration tolerates nothing.
  bool enable_taint_toleration_comparison_operators = false;
};

// ----------------------------------------------------------- resources
// Upstream framework.Resource: integral amounts, cpu in millicores, the
// others in units (a fraction rounds up, Quantity::Value()). `scalar` holds
// the resources upstream calls scalar (IsScalarResourceName): extended
// resources ("nvidia.com/gpu"), hugepages-*, attachable-volumes-* and
// "kubernetes.io/"-prefixed names. Other names (e.g. "foo") are ignored,
// as upstream ignores them.
struct ResourceAmounts {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  std::map<std::string, int64_t> scalar;

  friend bool operator==(const ResourceAmounts&,
                         const ResourceAmounts&) = default;
};

// Upstream IsScalarResourceName (scheduler util / v1helper).
bool IsScalarResourceName(std::string_view name);

// A node's status.allocatable as upstream's NodeInfo.Allocatable.
struct NodeAllocatable {
  ResourceAmounts amounts;
  // allocatable["pods"], or nullopt when the node does not report it.
  std::optional<int64_t> pods;
};
NodeAllocatable ComputeNodeAllocatable(const api::Node& node);

// What the pod-independent filters read of a node, computed once per node
// version so that a node most pods pass need not be read again:
// spec.unschedulable, whether it has NoSchedule/NoExecute taints, and
// whether NodeReady rejects it.
struct NodeFacts {
  bool unschedulable = false;
  bool has_hard_taints = false;
  bool not_ready = false;
};
NodeFacts ComputeNodeFacts(const api::Node& node);

// ----------------------------------------------------------- pod side
// What the node filters need from a pod, computed once per pod.
struct PodNodeRequirements {
  std::string node_name;                             // spec.nodeName
  std::map<std::string, std::string> node_selector;  // spec.nodeSelector
  // spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
  // (nullopt when absent or null; present with no terms matches no node).
  std::optional<api::NodeSelector> required_node_affinity;
  std::vector<api::Toleration> tolerations;  // spec.tolerations

  // Upstream resourcehelper.PodRequests (no status resources): the sum of
  // the containers' requests plus restartable (sidecar, restartPolicy
  // Always) init containers, max'ed with each init container's requests
  // (plus the sidecars started before it); pod-level spec.resources.requests
  // (cpu, memory, hugepages-*) override the aggregate; spec.overhead added.
  // Quantities are summed exactly, then rounded up to integers once.
  ResourceAmounts requests;
  // Upstream PodInfo.CalculateResource Non0CPU/Non0Mem: the same with
  // 100m cpu / 200Mi memory for each container lacking that request (or
  // only the missing ones when pod-level requests are set). What a pod adds
  // to NodeUsage's non-zero totals.
  int64_t non_zero_milli_cpu = 0;
  int64_t non_zero_memory = 0;
  // NodeResourcesFit scoring's own pod request (calculatePodResourceRequest
  // with the defaults always applied per container).
  int64_t score_milli_cpu = 0;
  int64_t score_memory = 0;

  // NodeAffinity PreFilter (node_affinity.go): when every required term has
  // a matchFields metadata.name In requirement, the union over terms of the
  // intersection of their name sets; nodes outside it are not filtered but
  // reported with kReasonNotInPreFilterNodes. nullopt: all nodes.
  std::optional<std::set<std::string>> prefilter_node_names;
  // True when that set is empty: the pod is rejected before filtering, with
  // PreFilter message kReasonAffinityTermsConflict (unresolvable).
  bool affinity_terms_conflict = false;

  // Parses `pod`. Errors (InvalidArgument, message "<field path>: <what>"):
  //  - spec.affinity, .nodeAffinity, .requiredDuringScheduling...,
  //    .nodeSelectorTerms[i], .matchExpressions[j]/.matchFields[j] and their
  //    key/operator/values of the wrong JSON type;
  //  - an unparsable quantity in spec.overhead or spec.resources.requests,
  //    or a wrong JSON type there or in a container's restartPolicy.
  // Selector semantics (unknown operators, value counts) are not errors
  // here: like upstream, a term that does not parse matches no node.
  static absl::StatusOr<PodNodeRequirements> Parse(const api::Pod& pod);
};

// What the pods already bound or assumed on one node request; the caller
// keeps one per node and Add()s/Remove()s pods as they come and go
// (upstream NodeInfo.Requested / NonZeroRequested / len(Pods)).
struct NodeUsage {
  int64_t pods = 0;
  ResourceAmounts requested;
  int64_t non_zero_milli_cpu = 0;
  int64_t non_zero_memory = 0;

  void Add(const PodNodeRequirements& pod);
  // REQUIRES: `pod` was Add()ed before (amounts are subtracted blindly).
  void Remove(const PodNodeRequirements& pod);
};

// ----------------------------------------------------------- filters
// One filter's verdict (upstream *Status of a Filter plugin).
struct FilterResult {
  bool ok = true;
  // Upstream's reasons; one entry except for NodeResourcesFit, which lists
  // every insufficient resource. Empty iff ok.
  std::vector<std::string> reasons;
  // UnschedulableAndUnresolvable (preemption cannot help) vs Unschedulable.
  bool unresolvable = false;
  // The rejecting plugin's name (kPlugin*); empty iff ok.
  std::string plugin;

  static FilterResult Pass() { return FilterResult(); }
};

// NodeName: passes when spec.nodeName is empty or equals the node's name.
// Unresolvable.
FilterResult FilterNodeName(const PodNodeRequirements& pod,
                            const api::Node& node);

// NodeUnschedulable: rejects a node with spec.unschedulable unless the pod
// tolerates {key: node.kubernetes.io/unschedulable, effect: NoSchedule}.
// Unresolvable.
FilterResult FilterNodeUnschedulable(const PodNodeRequirements& pod,
                                     const api::Node& node,
                                     const FilterOptions& options = {});

// TaintToleration: rejects a node with a NoSchedule or NoExecute taint that
// no toleration tolerates (PreferNoSchedule is for scoring). Unresolvable.
FilterResult FilterTaintToleration(const PodNodeRequirements& pod,
                                   const api::Node& node,
                                   const FilterOptions& options = {});

// NodeReady (draplane only; upstream relies on the node lifecycle
// controller's node.kubernetes.io/not-ready / unreachable NoSchedule taints,
// which draplane does not add): rejects a node whose status has a Ready
// condition with a status other than "True". A node without a Ready
// condition passes (nodes registered by hand, tests). Unresolvable.
FilterResult FilterNodeReady(const api::Node& node);

// NodeAffinity: spec.nodeSelector (every key equal) AND the required node
// affinity (terms ORed; a term that fails to parse matches nothing, as
// upstream ignores parse errors here). Unresolvable.
FilterResult FilterNodeAffinity(const PodNodeRequirements& pod,
                                const api::Node& node);

// NodeResourcesFit, reasons in upstream's order: "Too many pods" (only when
// the node reports allocatable pods), "Insufficient cpu", "Insufficient
// memory", "Insufficient ephemeral-storage", then "Insufficient <name>" for
// scalar resources in name order. A resource fails when the request exceeds
// allocatable minus `usage`; the result is unresolvable when some request
// exceeds the node's allocatable outright (preemption cannot free enough),
// otherwise resolvable.
FilterResult FilterNodeResourcesFit(const PodNodeRequirements& pod,
                                    const api::Node& node,
                                    const NodeUsage& usage);
FilterResult FilterNodeResourcesFit(const PodNodeRequirements& pod,
                                    const NodeAllocatable& allocatable,
                                    const NodeUsage& usage);

// All of the above in upstream's default-profile order (NodeUnschedulable,
// NodeName, TaintToleration, NodeAffinity, NodeResourcesFit), with
// NodeReady right after TaintToleration, where upstream's not-ready taint
// would have been caught. Like upstream's RunFilterPlugins it stops at the
// first rejection and returns it (one status per node); Pass() otherwise.
// Does not apply prefilter_node_names / affinity_terms_conflict (the
// caller's PreFilter step).
FilterResult RunAll(const PodNodeRequirements& pod, const api::Node& node,
                    const NodeUsage& usage, const FilterOptions& options = {});
// The same with the node's allocatable computed once by the caller
// (ComputeNodeAllocatable(node)), as a scheduler cache keeps it.
FilterResult RunAll(const PodNodeRequirements& pod, const api::Node& node,
                    const NodeAllocatable& allocatable, const NodeUsage& usage,
                    const FilterOptions& options = {});
// The same with the node's facts computed by the caller
// (ComputeNodeFacts(node)): filters the facts show passing are skipped.
FilterResult RunAll(const PodNodeRequirements& pod, const api::Node& node,
                    const NodeAllocatable& allocatable, const NodeFacts& facts,
                    const NodeUsage& usage, const FilterOptions& options = {});

// ----------------------------------------------------------- scoring
// NodeResourcesFit scores (0..100) with upstream's default resources cpu and
// memory, weight 1 each: requested = usage's non-zero totals + the pod's
// score request; a resource with zero allocatable is left out; no resource
// left gives 0.
// LeastAllocated (the default strategy): mean of (alloc - req) * 100 / alloc,
// 0 when req > alloc.
int64_t LeastAllocatedScore(const PodNodeRequirements& pod,
                            const api::Node& node, const NodeUsage& usage);
int64_t LeastAllocatedScore(const PodNodeRequirements& pod,
                            const NodeAllocatable& allocatable,
                            const NodeUsage& usage);
// MostAllocated: mean of min(req, alloc) * 100 / alloc.
int64_t MostAllocatedScore(const PodNodeRequirements& pod,
                           const api::Node& node, const NodeUsage& usage);
int64_t MostAllocatedScore(const PodNodeRequirements& pod,
                           const NodeAllocatable& allocatable,
                           const NodeUsage& usage);

// TaintToleration raw score: the number of the node's PreferNoSchedule
// taints not tolerated by the pod's tolerations whose effect is empty or
// PreferNoSchedule. Normalise over all feasible nodes with
// DefaultNormalizeScore(100, /*reverse=*/true, scores).
int64_t CountIntolerablePreferNoScheduleTaints(
    const PodNodeRequirements& pod, const api::Node& node,
    const FilterOptions& options = {});

// Upstream helper.DefaultNormalizeScore: scales `scores` to
// [0, max_priority] by the maximum (integer division), reversed if asked;
// all zero gives all max_priority when reversed, unchanged otherwise.
void DefaultNormalizeScore(int64_t max_priority, bool reverse,
                           std::vector<int64_t>& scores);

// Upstream numFeasibleNodesToFind: all nodes below 100; otherwise
// `percentage` of them (0 = adaptive: 50 - num_all_nodes/125, at least 5),
// at least 100.
int32_t NumFeasibleNodesToFind(int32_t num_all_nodes, int32_t percentage = 0);

// ----------------------------------------------------------- messages
// Builds upstream's FitError.Error():
//   "0/<N> nodes are available: <PreFilterMsg>."             (PreFilter)
//   "0/<N> nodes are available: <count> <reason>, ... ."     (Filter)
// followed by " <PostFilterMsg>" when post-filter reasons were added. The
// filter part is the "<count> <reason>" strings sorted bytewise and joined
// with ", "; counts are over nodes, each entry of a node's reasons counting
// once; nodes never given a status count for the absent-node reasons.
class FitErrorBuilder {
 public:
  explicit FitErrorBuilder(int num_all_nodes) : num_all_nodes_(num_all_nodes) {}

  // Records the status of one rejected node (upstream NodeToStatus.Set: a
  // later call for the same node replaces the earlier status). The reasons
  // may come from any plugin (e.g. the DRA plugin's "cannot allocate all
  // claims").
  void SetNodeStatus(const std::string& node_name,
                     std::vector<std::string> reasons, bool unresolvable);
  void SetNodeStatus(const std::string& node_name, const FilterResult& result) {
    SetNodeStatus(node_name, result.reasons, result.unresolvable);
  }
  // The status of every node without an explicit one (upstream
  // NodeToStatus.SetAbsentNodesStatus), e.g. kReasonNotInPreFilterNodes.
  // Default: no reasons.
  void SetAbsentNodesStatus(std::vector<std::string> reasons,
                            bool unresolvable = true);
  // The PreFilter rejection (e.g. kReasonAffinityTermsConflict); when set
  // the per-node reasons are not printed, as upstream.
  void SetPreFilterMessage(std::string message);
  // Appends a PostFilter plugin's reason; upstream joins them with ", " in
  // plugin order (DynamicResources, then DefaultPreemption).
  void AddPostFilterReason(std::string reason);

  // Nodes where upstream's preemption might help: those whose status is
  // resolvable (Unschedulable), absent nodes included when the absent
  // status is resolvable.
  int NumNodesWherePreemptionMightHelp() const;

  // FitError.Error(); also the PodScheduled condition's message.
  std::string Message() const;
  // The FailedScheduling event's note: Message() cut to 1024 bytes with
  // " ..." (schedule_one.go truncateMessage).
  std::string EventMessage() const;

 private:
  struct Status {
    std::vector<std::string> reasons;
    bool unresolvable = false;
  };
  int num_all_nodes_;
  absl::flat_hash_map<std::string, Status> nodes_;
  Status absent_;
  std::string prefilter_message_;
  std::vector<std::string> postfilter_reasons_;
};

// DefaultPreemption's PostFilter reason when no pod anywhere has a lower
// priority than the incoming pod (so no node has victims):
//   "preemption: 0/<N> nodes are available: <K> No preemption victims found
//    for incoming pod, <N-K> Preemption is not helpful for scheduling."
// K = `diagnosis`.NumNodesWherePreemptionMightHelp() (counts of 0 are left
// out, as upstream's histogram has no such entry).
std::string NoVictimsPreemptionReason(const FitErrorBuilder& diagnosis,
                                      int num_all_nodes);

// schedule_one.go truncateMessage (validation.NoteLengthLimit = 1024).
std::string TruncateEventMessage(const std::string& message);

}  // namespace draplane::scheduler::node_filters

#endif  // DRAPLANE_SCHEDULER_NODE_FILTERS_NODE_FILTERS_H_
