// The filters, RunAll and the scorers.
#include "scheduler/node_filters/node_filters.h"

#include <charconv>
#include <string>
#include <vector>

#include "allocator/node_selector.h"
#include "common/str_cat.h"
#include "component_helpers/taints.h"

namespace draplane::scheduler::node_filters {
namespace {

constexpr int64_t kMaxNodeScore = 100;

FilterResult Reject(std::string_view plugin, std::string reason,
                    bool unresolvable) {
  FilterResult r;
  r.ok = false;
  r.reasons.push_back(std::move(reason));
  r.unresolvable = unresolvable;
  r.plugin = std::string(plugin);
  return r;
}

bool TolerationsTolerate(const std::vector<api::Toleration>& tolerations,
                         const api::Taint& taint,
                         const FilterOptions& options) {
  component_helpers::TolerationOptions toleration_options;
  toleration_options.enable_comparison_operators =
      options.enable_taint_toleration_comparison_operators;
  return component_helpers::TolerationsTolerateTaint(tolerations, taint,
                                                     toleration_options);
}

// Upstream labels.SelectorFromSet(nodeSelector).Matches(node labels).
bool MatchesNodeSelectorMap(const std::map<std::string, std::string>& wanted,
                            const std::map<std::string, std::string>& labels) {
  for (const auto& [key, value] : wanted) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return true;
}

// LazyErrorNodeSelector.Match with errors ignored: terms ORed, a term that
// does not parse matches nothing.
bool MatchesRequiredAffinity(const api::NodeSelector& selector,
                             const api::Node& node) {
  for (const api::NodeSelectorTerm& term : selector.node_selector_terms) {
    if (term.match_expressions.empty() && term.match_fields.empty()) continue;
    api::NodeSelector one;
    one.node_selector_terms.push_back(term);
    absl::StatusOr<bool> match = allocator::MatchesNodeSelector(node, one);
    if (match.ok() && *match) return true;
  }
  return false;
}

// Requested vs allocatable of cpu and memory for the scorers
// (calculateResourceAllocatableRequest with NonZeroRequested).
struct ScoreInputs {
  int64_t requested[2];
  int64_t allocatable[2];
};

ScoreInputs GetScoreInputs(const PodNodeRequirements& pod,
                           const NodeAllocatable& alloc,
                           const NodeUsage& usage) {
  ScoreInputs in;
  in.allocatable[0] = alloc.amounts.milli_cpu;
  in.requested[0] = usage.non_zero_milli_cpu + pod.score_milli_cpu;
  in.allocatable[1] = alloc.amounts.memory;
  in.requested[1] = usage.non_zero_memory + pod.score_memory;
  return in;
}

template <typename PerResource>
int64_t WeightedScore(const ScoreInputs& in, PerResource per_resource) {
  int64_t node_score = 0;
  int64_t weight_sum = 0;
  for (int i = 0; i < 2; ++i) {
    if (in.allocatable[i] == 0) continue;
    const int64_t weight = 1;
    node_score += per_resource(in.requested[i], in.allocatable[i]) * weight;
    weight_sum += weight;
  }
  if (weight_sum == 0) return 0;
  return node_score / weight_sum;
}

}  // namespace

FilterResult FilterNodeName(const PodNodeRequirements& pod,
                            const api::Node& node) {
  if (pod.node_name.empty() || pod.node_name == node.metadata.name) {
    return FilterResult::Pass();
  }
  return Reject(kPluginNodeName, std::string(kReasonNodeName), true);
}

FilterResult FilterNodeUnschedulable(const PodNodeRequirements& pod,
                                     const api::Node& node,
                                     const FilterOptions& options) {
  if (!node.spec.unschedulable) return FilterResult::Pass();
  api::Taint unschedulable;
  unschedulable.key = std::string(kTaintNodeUnschedulable);
  unschedulable.effect = "NoSchedule";
  if (TolerationsTolerate(pod.tolerations, unschedulable, options)) {
    return FilterResult::Pass();
  }
  return Reject(kPluginNodeUnschedulable, std::string(kReasonNodeUnschedulable),
                true);
}

FilterResult FilterTaintToleration(const PodNodeRequirements& pod,
                                   const api::Node& node,
                                   const FilterOptions& options) {
  for (const api::Taint& taint : node.spec.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    if (!TolerationsTolerate(pod.tolerations, taint, options)) {
      return Reject(kPluginTaintToleration,
                    std::string(kReasonUntoleratedTaint), true);
    }
  }
  return FilterResult::Pass();
}

FilterResult FilterNodeReady(const api::Node& node) {
  for (const api::NodeCondition& c : node.status.conditions) {
    if (c.type != "Ready") continue;
    if (c.status == "True") return FilterResult::Pass();
    return Reject(kPluginNodeReady, std::string(kReasonNodeNotReady), true);
  }
  return FilterResult::Pass();
}

FilterResult FilterNodeAffinity(const PodNodeRequirements& pod,
                                const api::Node& node) {
  bool match = MatchesNodeSelectorMap(pod.node_selector, node.metadata.labels);
  if (match && pod.required_node_affinity.has_value()) {
    match = MatchesRequiredAffinity(*pod.required_node_affinity, node);
  }
  if (match) return FilterResult::Pass();
  return Reject(kPluginNodeAffinity, std::string(kReasonNodeAffinity), true);
}

FilterResult FilterNodeResourcesFit(const PodNodeRequirements& pod,
                                    const api::Node& node,
                                    const NodeUsage& usage) {
  return FilterNodeResourcesFit(pod, ComputeNodeAllocatable(node), usage);
}

FilterResult FilterNodeResourcesFit(const PodNodeRequirements& pod,
                                    const NodeAllocatable& alloc,
                                    const NodeUsage& usage) {
  FilterResult r;
  auto insufficient = [&](std::string reason, bool unresolvable) {
    r.ok = false;
    r.reasons.push_back(std::move(reason));
    r.unresolvable = r.unresolvable || unresolvable;
  };
  // Deviation: upstream checks the pod count even without allocatable pods
  // (then 0 pods fit); draplane skips the check for such nodes.
  if (alloc.pods.has_value() && usage.pods + 1 > *alloc.pods) {
    insufficient(std::string(kReasonTooManyPods), false);
  }
  const ResourceAmounts& req = pod.requests;
  const ResourceAmounts& have = alloc.amounts;
  const ResourceAmounts& used = usage.requested;
  if (req.milli_cpu > 0 && req.milli_cpu > have.milli_cpu - used.milli_cpu) {
    insufficient("Insufficient cpu", req.milli_cpu > have.milli_cpu);
  }
  if (req.memory > 0 && req.memory > have.memory - used.memory) {
    insufficient("Insufficient memory", req.memory > have.memory);
  }
  if (req.ephemeral_storage > 0 &&
      req.ephemeral_storage > have.ephemeral_storage - used.ephemeral_storage) {
    insufficient("Insufficient ephemeral-storage",
                 req.ephemeral_storage > have.ephemeral_storage);
  }
  for (const auto& [name, amount] : req.scalar) {
    if (amount == 0) continue;
    auto a = have.scalar.find(name);
    auto u = used.scalar.find(name);
    const int64_t allocatable = a == have.scalar.end() ? 0 : a->second;
    const int64_t in_use = u == used.scalar.end() ? 0 : u->second;
    if (amount > allocatable - in_use) {
      insufficient(StrCat("Insufficient ", name), amount > allocatable);
    }
  }
  if (!r.ok) r.plugin = std::string(kPluginNodeResourcesFit);
  return r;
}

FilterResult RunAll(const PodNodeRequirements& pod, const api::Node& node,
                    const NodeUsage& usage, const FilterOptions& options) {
  return RunAll(pod, node, ComputeNodeAllocatable(node), usage, options);
}

NodeFacts ComputeNodeFacts(const api::Node& node) {
  NodeFacts facts;
  facts.unschedulable = node.spec.unschedulable;
  for (const api::Taint& taint : node.spec.taints) {
    facts.has_hard_taints |=
        taint.effect == "NoSchedule" || taint.effect == "NoExecute";
  }
  facts.not_ready = !FilterNodeReady(node).ok;
  return facts;
}

FilterResult RunAll(const PodNodeRequirements& pod, const api::Node& node,
                    const NodeAllocatable& allocatable, const NodeUsage& usage,
                    const FilterOptions& options) {
  return RunAll(pod, node, allocatable, ComputeNodeFacts(node), usage, options);
}

FilterResult RunAll(const PodNodeRequirements& pod, const api::Node& node,
                    const NodeAllocatable& allocatable, const NodeFacts& facts,
                    const NodeUsage& usage, const FilterOptions& options) {
  FilterResult r;
  if (facts.unschedulable) {
    r = FilterNodeUnschedulable(pod, node, options);
    if (!r.ok) return r;
  }
  if (!pod.node_name.empty()) {
    r = FilterNodeName(pod, node);
    if (!r.ok) return r;
  }
  if (facts.has_hard_taints) {
    r = FilterTaintToleration(pod, node, options);
    if (!r.ok) return r;
  }
  if (facts.not_ready) {
    r = FilterNodeReady(node);
    if (!r.ok) return r;
  }
  if (!pod.node_selector.empty() || pod.required_node_affinity.has_value()) {
    r = FilterNodeAffinity(pod, node);
    if (!r.ok) return r;
  }
  return FilterNodeResourcesFit(pod, allocatable, usage);
}

int64_t LeastAllocatedScore(const PodNodeRequirements& pod,
                            const api::Node& node, const NodeUsage& usage) {
  return LeastAllocatedScore(pod, ComputeNodeAllocatable(node), usage);
}

int64_t LeastAllocatedScore(const PodNodeRequirements& pod,
                            const NodeAllocatable& allocatable,
                            const NodeUsage& usage) {
  return WeightedScore(GetScoreInputs(pod, allocatable, usage),
                       [](int64_t requested, int64_t capacity) -> int64_t {
                         if (requested > capacity) return 0;
                         return (capacity - requested) * kMaxNodeScore /
                                capacity;
                       });
}

int64_t MostAllocatedScore(const PodNodeRequirements& pod,
                           const api::Node& node, const NodeUsage& usage) {
  return MostAllocatedScore(pod, ComputeNodeAllocatable(node), usage);
}

int64_t MostAllocatedScore(const PodNodeRequirements& pod,
                           const NodeAllocatable& allocatable,
                           const NodeUsage& usage) {
  return WeightedScore(GetScoreInputs(pod, allocatable, usage),
                       [](int64_t requested, int64_t capacity) -> int64_t {
                         if (requested > capacity) requested = capacity;
                         return requested * kMaxNodeScore / capacity;
                       });
}

int64_t CountIntolerablePreferNoScheduleTaints(const PodNodeRequirements& pod,
                                               const api::Node& node,
                                               const FilterOptions& options) {
  std::vector<api::Toleration> prefer;
  for (const api::Toleration& t : pod.tolerations) {
    if (t.effect.empty() || t.effect == "PreferNoSchedule") prefer.push_back(t);
  }
  int64_t count = 0;
  for (const api::Taint& taint : node.spec.taints) {
    if (taint.effect != "PreferNoSchedule") continue;
    if (!TolerationsTolerate(prefer, taint, options)) ++count;
  }
  return count;
}

void DefaultNormalizeScore(int64_t max_priority, bool reverse,
                           std::vector<int64_t>& scores) {
  int64_t max_count = 0;
  for (int64_t s : scores) max_count = std::max(max_count, s);
  if (max_count == 0) {
    if (reverse) {
      for (int64_t& s : scores) s = max_priority;
    }
    return;
  }
  for (int64_t& s : scores) {
    s = max_priority * s / max_count;
    if (reverse) s = max_priority - s;
  }
}

int32_t NumFeasibleNodesToFind(int32_t num_all_nodes, int32_t percentage) {
  constexpr int32_t kMinFeasibleNodesToFind = 100;
  constexpr int32_t kMinFeasibleNodesPercentageToFind = 5;
  if (num_all_nodes < kMinFeasibleNodesToFind) return num_all_nodes;
  if (percentage == 0) {
    percentage = 50 - num_all_nodes / 125;
    if (percentage < kMinFeasibleNodesPercentageToFind) {
      percentage = kMinFeasibleNodesPercentageToFind;
    }
  }
  // int32 arithmetic as upstream; the product fits for any realistic
  // cluster (it is computed in 64 bits here and narrowed).
  const int32_t num_nodes = static_cast<int32_t>(
      static_cast<int64_t>(num_all_nodes) * percentage / 100);
  if (num_nodes < kMinFeasibleNodesToFind) return kMinFeasibleNodesToFind;
  return num_nodes;
}

}  // namespace draplane::scheduler::node_filters
