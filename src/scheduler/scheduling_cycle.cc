#include "scheduler/scheduling_cycle.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/base/attributes.h"
#include "absl/time/clock.h"
#include "allocator/node_selector.h"
#include "api/helpers/pod_claims.h"
#include "api/object_codec.h"
#include "common/str_cat.h"
#include "scheduler/node_filters/node_filters.h"

namespace draplane::scheduler {

namespace {

namespace nf = node_filters;

// DynamicResources' Filter reasons.
constexpr std::string_view kCannotAllocate = "cannot allocate all claims";
constexpr std::string_view kNotAvailable =
    "resourceclaim not available on the node";
constexpr std::string_view kTimedOut = "timed out trying to allocate devices";

std::string KObj(const api::ObjectMeta& meta) {
  return meta.namespace_.empty() ? meta.name
                                 : StrCat(meta.namespace_, "/", meta.name);
}

int64_t PrioritizedListScore(
    const std::vector<const api::ResourceClaim*>& claims,
    const std::vector<api::AllocationResult>& results) {
  int64_t score = 0;
  for (size_t c = 0; c < claims.size() && c < results.size(); ++c) {
    std::vector<std::string> seen;
    for (const auto& r : results[c].devices.results) {
      size_t slash = r.request.find('/');
      if (slash == std::string::npos) continue;
      std::string parent = r.request.substr(0, slash);
      std::string sub = r.request.substr(slash + 1);
      if (std::find(seen.begin(), seen.end(), parent) != seen.end()) continue;
      seen.push_back(parent);
      for (const auto& req : claims[c]->spec.devices.requests) {
        if (req.name != parent) continue;
        for (size_t i = 0; i < req.first_available.size(); ++i) {
          if (req.first_available[i].name == sub) {
            score += 8 - static_cast<int64_t>(i);
          }
        }
      }
    }
  }
  return score;
}

}  // namespace

std::string MissingDeviceClass(const api::ResourceClaim& claim,
                               const ClusterState& state) {
  for (const auto& r : claim.spec.devices.requests) {
    if (r.exactly.has_value() &&
        state.FindDeviceClass(r.exactly->device_class_name) == nullptr) {
      return StrCat("request ", r.name, ": device class ",
                    r.exactly->device_class_name, " does not exist");
    }
    for (const auto& sub : r.first_available) {
      if (state.FindDeviceClass(sub.device_class_name) == nullptr) {
        return StrCat("request ", r.name, "/", sub.name, ": device class ",
                      sub.device_class_name, " does not exist");
      }
    }
  }
  return "";
}

std::string AdminAccessRefused(const api::ResourceClaim& claim,
                               const ClusterState& state) {
  for (const auto& r : claim.spec.devices.requests) {
    if (!r.exactly.has_value() || !r.exactly->admin_access.value_or(false)) {
      continue;
    }
    if (state.AdminAccessAllowed(claim.metadata.namespace_)) return "";
    return StrCat("request ", r.name,
                  ": admin access to devices requires the `",
                  api::kLabelAdminAccess, ": true` label on namespace ",
                  claim.metadata.namespace_);
  }
  return "";
}

SchedulingCycle::SchedulingCycle(ClusterState* state,
                                 const ScoringPolicy* policy,
                                 CycleOptions options)
    : state_(state), policy_(policy), options_(options), rng_(options.seed) {}

const SchedulingCycle::Answer& SchedulingCycle::AnswerFor(
    NodeAnswers& per_node, const ClusterState::NodeInfo& node,
    const PodClaims& claims, Decision& decision) {
  auto it = per_node.find(node.id);
  if (options_.cache_answers && it != per_node.end() &&
      it->second.node_epoch == node.epoch &&
      it->second.global_epoch == state_->GlobalEpoch()) {
    return it->second;
  }
  Answer answer;
  allocator::AllocateOptions allocate;
  allocate.fixes = options_.fixes;
  if (options_.filter_timeout > absl::ZeroDuration()) {
    allocate.deadline = absl::Now() + options_.filter_timeout;
  }
  Allocate(answer, node, claims, allocate, decision);
  for (const auto& result : answer.results) {
    for (const auto& r : result.devices.results) {
      if (!r.admin_access.value_or(false)) ++answer.devices_new;
    }
  }
  answer.prioritized_list =
      PrioritizedListScore(claims.to_allocate, answer.results);
  answer.node_epoch = node.epoch;
  answer.global_epoch = state_->GlobalEpoch();
  auto& slot = per_node[node.id];
  slot = std::move(answer);
  return slot;
}

void SchedulingCycle::Allocate(Answer& answer,
                               const ClusterState::NodeInfo& node,
                               const PodClaims& claims,
                               const allocator::AllocateOptions& allocate,
                               Decision& decision) {
  allocator::Allocator& alloc = state_->Allocator();
  const allocator::AllocatedState& allocated = state_->Allocated();
  for (size_t v = 0; v < claims.soft_variant_claims.size(); ++v) {
    ++decision.allocate_calls;
    allocator::Outcome outcome = alloc.Allocate(
        node.node(), claims.soft_variant_claims[v], allocated, allocate);
    if (outcome.kind == allocator::OutcomeKind::kAllocated) {
      // Results name devices and the claim's own config; the variant
      // steered the search only.
      answer.kind = outcome.kind;
      answer.results = std::move(outcome.results);
      answer.soft_match = static_cast<int>(v) + 1;
      break;
    }
  }
  const DevicePreference* preference = policy_->device_preference();
  // A DevicePreference with one device asked for: every allocation the
  // allocator can offer on the node, upstream's answer first.
  std::vector<std::vector<api::AllocationResult>> offered;
  if (answer.soft_match == 0) {
    ++decision.allocate_calls;
    allocator::Outcome outcome;
    if (preference != nullptr && claims.one_device) {
      allocator::AllocateOptions every = allocate;
      every.visit_allocation =
          [&offered](const std::vector<api::AllocationResult>& results) {
            offered.push_back(results);
            return false;
          };
      outcome =
          alloc.Allocate(node.node(), claims.to_allocate, allocated, every);
    } else {
      outcome =
          alloc.Allocate(node.node(), claims.to_allocate, allocated, allocate);
    }
    if (!offered.empty()) {
      answer.kind = allocator::OutcomeKind::kAllocated;
      answer.results = offered.front();
    } else {
      answer.kind = outcome.kind;
      answer.message = std::move(outcome.message);
      answer.results = std::move(outcome.results);
    }
  }
  if (preference == nullptr ||
      answer.kind != allocator::OutcomeKind::kAllocated) {
    return;
  }
  const std::vector<ClusterState::DeviceUse>& devices =
      state_->NodeDevices(node);
  std::vector<NodeCandidate::Take> first = TakesOf(devices, answer.results);
  if (offered.empty() || first.size() != 1 || first.front().device < 0) {
    answer.placements.push_back({answer.results, std::move(first)});
    return;
  }
  // One placement per device of the node, in device order; devices that
  // others use in full offer none besides upstream's answer.
  for (size_t i = 0; i < offered.size(); ++i) {
    std::vector<NodeCandidate::Take> takes = TakesOf(devices, offered[i]);
    if (takes.size() != 1 || takes.front().device < 0) continue;
    if (i > 0 && devices[takes.front().device].free_milli == 0) continue;
    answer.placements.push_back({std::move(offered[i]), std::move(takes)});
  }
  std::stable_sort(answer.placements.begin(), answer.placements.end(),
                   [](const Answer::Placement& a, const Answer::Placement& b) {
                     return a.takes.front().device < b.takes.front().device;
                   });
}

std::vector<NodeCandidate::Take> SchedulingCycle::TakesOf(
    const std::vector<ClusterState::DeviceUse>& devices,
    const std::vector<api::AllocationResult>& results) const {
  std::vector<NodeCandidate::Take> takes;
  for (const auto& result : results) {
    for (const auto& r : result.devices.results) {
      if (r.admin_access.value_or(false)) continue;
      NodeCandidate::Take take;
      take.device = -1;
      for (size_t i = 0; i < devices.size(); ++i) {
        const auto& id = devices[i].id;
        if (id.device == r.device && id.pool == r.pool &&
            id.driver == r.driver) {
          take.device = static_cast<int>(i);
          break;
        }
      }
      if (take.device < 0) continue;  // another node's (shared) pool
      if (!r.consumed_capacity.empty()) {
        const api::Device& device = *devices[take.device].device;
        take.milli = 0;
        for (const auto& [name, consumed] : r.consumed_capacity) {
          auto cap = device.capacity.find(name);
          if (cap == device.capacity.end()) continue;
          const int64_t total = cap->second.value.MilliValue();
          if (total <= 0) continue;
          take.milli =
              std::max(take.milli, consumed.MilliValue() * 1000 / total);
        }
      }
      takes.push_back(take);
    }
  }
  return takes;
}

bool SchedulingCycle::PreFilter(const api::Pod& pod, PodClaims& claims,
                                Decision& d) {
  for (const auto& prc : pod.spec.resource_claims) {
    absl::StatusOr<api::PodClaimName> ref = api::ResolvePodClaimName(pod, prc);
    if (!ref.ok()) {
      d.kind = Decision::Kind::kWaiting;
      d.message = std::string(ref.status().message());
      return false;
    }
    if (!ref->name.has_value()) continue;  // not needed
    const std::string& claim_name = *ref->name;
    const bool must_check_owner = ref->must_check_owner;
    ObjectPtr object =
        state_->FindClaimObject(pod.metadata.namespace_, claim_name);
    if (object == nullptr) {
      d.kind = Decision::Kind::kWaiting;
      d.message = StrCat("resourceclaim.resource.k8s.io \"", claim_name,
                         "\" not found");
      d.waiting_for_claim = StrCat(pod.metadata.namespace_, "/", claim_name);
      return false;
    }
    const auto& claim = std::get<api::ResourceClaim>(object->value);
    if (claim.metadata.deletion_timestamp.has_value()) {
      d.kind = Decision::Kind::kWaiting;
      d.message = StrCat("resourceclaim \"", claim_name, "\" is being deleted");
      return false;
    }
    if (must_check_owner) {
      if (absl::Status owned = api::IsForPod(pod, claim); !owned.ok()) {
        d.kind = Decision::Kind::kWaiting;
        d.message = std::string(owned.message());
        return false;
      }
    }
    std::string& prefilter_message = claims.prefilter_message;
    ClaimPlan plan;
    plan.claim_key = ObjectKey(claim.metadata);
    plan.claim = object;
    plan.reserve = !api::IsReservedForPod(pod, claim);
    if (plan.reserve && !api::CanBeReserved(claim) &&
        prefilter_message.empty()) {
      prefilter_message = "resourceclaim in use";
    }
    if (claim.status.allocation.has_value()) {
      claims.allocated.push_back(&claim);
    } else {
      const std::string* owner = state_->InFlightOwner(plan.claim_key);
      if (owner != nullptr && *owner != pod.metadata.uid &&
          prefilter_message.empty()) {
        prefilter_message = StrCat("resource claim ", KObj(claim.metadata),
                                   " is in the process of being allocated");
      }
      if (prefilter_message.empty()) {
        prefilter_message = MissingDeviceClass(claim, *state_);
      }
      if (prefilter_message.empty()) {
        prefilter_message = AdminAccessRefused(claim, *state_);
      }
      claims.to_allocate.push_back(&claim);
      claims.to_allocate_plan.push_back(d.claims.size());
    }
    d.claims.push_back(std::move(plan));
  }
  return true;
}

void SchedulingCycle::PrepareAllocation(PodClaims& claims) const {
  claims.soft_variants = policy_->SoftVariants(claims.to_allocate);
  claims.soft_variant_claims.clear();
  for (const auto& variant : claims.soft_variants) {
    auto& pointers = claims.soft_variant_claims.emplace_back();
    pointers.reserve(variant.size());
    for (const api::ResourceClaim& c : variant) pointers.push_back(&c);
  }
  int64_t asked = 0;
  bool one_by_one = true;
  for (const api::ResourceClaim* c : claims.to_allocate) {
    asked += DevicesAsked(*c);
    for (const auto& r : c->spec.devices.requests) {
      one_by_one &= r.exactly.has_value();
    }
  }
  claims.one_device = asked == 1 && one_by_one;
}

SchedulingCycle::NodeAnswers& SchedulingCycle::AnswersForSpecs(
    const std::vector<const api::ResourceClaim*>& to_allocate) {
  std::string signature;
  for (const api::ResourceClaim* c : to_allocate) {
    api::Object o{{"resource.k8s.io/v1", "ResourceClaim"}, *c};
    std::get<api::ResourceClaim>(o.value).metadata = {};
    std::get<api::ResourceClaim>(o.value).status = {};
    absl::StatusOr<api::Json> json = api::EncodeObject(o);
    if (json.ok()) StrAppend(&signature, api::DumpJson((*json)["spec"]), "\n");
  }
  if (answers_.size() >= static_cast<size_t>(options_.max_cached_specs) &&
      answers_.count(signature) == 0) {
    answers_.clear();
  }
  return answers_[signature];
}

// FilterNode and ScoreNode run once per node and pod (2.5 million times in
// scheduler_benchmark's decision mode): inlined into FilterAndScore, as
// the loop body they are, rather than called.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline const SchedulingCycle::Answer*
SchedulingCycle::FilterNode(
    const ClusterState::NodeInfo& info,
    const node_filters::PodNodeRequirements& requirements,
    const PodClaims& claims, NodeAnswers& node_answers, Decision& d,
    Search& search, bool& feasible) {
  feasible = false;
  const api::Node& node = info.node();
  const std::string& node_name = node.metadata.name;
  nf::FilterResult fit =
      nf::RunAll(requirements, node, info.allocatable, info.facts, info.usage);
  if (!fit.ok) {
    rejections_.push_back({&node_name, false, {}, std::move(fit)});
    return nullptr;
  }
  for (const api::ResourceClaim* c : claims.allocated) {
    if (!allocator::AllocationAvailableOn(*c->status.allocation, node)) {
      rejections_.push_back({&node_name, true, kNotAvailable, {}});
      return nullptr;
    }
  }
  if (claims.to_allocate.empty()) {
    feasible = true;
    return nullptr;
  }
  const Answer* answer = &AnswerFor(node_answers, info, claims, d);
  switch (answer->kind) {
    case allocator::OutcomeKind::kAllocated:
      feasible = true;
      return answer;
    case allocator::OutcomeKind::kUnallocatable:
      rejections_.push_back({&node_name, true, kCannotAllocate, {}});
      if (static_cast<int>(search.dra_failed.size()) <
          options_.max_explained_nodes) {
        search.dra_failed.push_back(&info);
      }
      return nullptr;
    case allocator::OutcomeKind::kTimeout:
      rejections_.push_back({&node_name, true, kTimedOut, {}});
      return nullptr;
    case allocator::OutcomeKind::kInvalidPools:
      rejections_.push_back({&node_name, true, answer->message, {}});
      return nullptr;
    case allocator::OutcomeKind::kFatal:
      search.any_error = true;
      search.error_message = answer->message;
      return nullptr;
  }
  return nullptr;
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline int64_t SchedulingCycle::ScoreNode(
    const ClusterState::NodeInfo& info,
    const node_filters::PodNodeRequirements& requirements, const Answer* answer,
    const DevicePreference* device_preference,
    const Answer::Placement*& placement) {
  NodeCandidate candidate;
  candidate.node = &info.node();
  candidate.devices_total = info.devices_total;
  candidate.devices_used = info.devices_used;
  candidate.least_allocated =
      nf::LeastAllocatedScore(requirements, info.allocatable, info.usage);
  candidate.most_allocated =
      nf::MostAllocatedScore(requirements, info.allocatable, info.usage);
  if (answer != nullptr) {
    candidate.devices_new = answer->devices_new;
    candidate.prioritized_list = answer->prioritized_list;
    candidate.soft_match = answer->soft_match;
  }
  placement = nullptr;
  if (device_preference == nullptr) return policy_->Score(candidate);
  candidate.info = &info;
  candidate.pod = &requirements;
  candidate.devices = &state_->NodeDevices(info);
  if (answer == nullptr || answer->placements.empty()) {
    return policy_->Score(candidate);
  }
  int64_t score = 0;
  int64_t preference = 0;
  for (const Answer::Placement& p : answer->placements) {
    candidate.takes = absl::MakeConstSpan(p.takes);
    const int64_t s = policy_->Score(candidate);
    const int64_t pref = device_preference->Prefer(candidate);
    if (placement == nullptr || s > score ||
        (s == score && pref > preference)) {
      placement = &p;
      score = s;
      preference = pref;
    }
  }
  return score;
}

void SchedulingCycle::FilterAndScore(
    const node_filters::PodNodeRequirements& requirements,
    const PodClaims& claims, NodeAnswers& node_answers, Decision& d,
    Search& search) {
  const auto& nodes = state_->Nodes();
  const size_t n = nodes.size();
  const NodeSample sample = policy_->SampleNodes(
      static_cast<int32_t>(n), options_.percentage_of_nodes_to_score);
  const size_t to_find = sample.feasible_to_find;
  const size_t start = !sample.rotate_start || n == 0 ? 0 : next_start_ % n;
  const auto& prefilter_names = requirements.prefilter_node_names;
  const DevicePreference* device_preference = policy_->device_preference();
  policy_->StartPod(*state_);
  size_t feasible = 0;
  size_t processed = 0;
  Best& best = search.best;
  for (size_t k = 0; k < n && feasible < to_find; ++k) {
    // The nodes are scattered over the heap and evaluating one is quick,
    // so the walk waits on memory: fetch the next ones' NodeInfo and
    // Node ahead of time.
    __builtin_prefetch(nodes[(start + k + 8) % n]);
    __builtin_prefetch(nodes[(start + k + 4) % n]->node_ptr);
    const ClusterState::NodeInfo& info = *nodes[(start + k) % n];
    ++processed;
    if (prefilter_names.has_value() &&
        prefilter_names->count(info.node().metadata.name) == 0) {
      continue;  // NodeAffinity's PreFilter left it out
    }
    bool fits = false;
    const Answer* answer =
        FilterNode(info, requirements, claims, node_answers, d, search, fits);
    if (!fits) continue;
    ++feasible;
    const Answer::Placement* placement = nullptr;
    const int64_t score =
        ScoreNode(info, requirements, answer, device_preference, placement);
    if (best.node == nullptr || score > best.score) {
      best = Best{&info, answer, placement, score, 1};
    } else if (score == best.score) {
      ++best.ties;
      if (policy_->TakeTiedNode(best.ties, rng_)) {
        best.node = &info;
        best.answer = answer;
        best.placement = placement;
      }
    }
  }
  d.nodes_evaluated = static_cast<int>(processed);
  if (n > 0) next_start_ = (start + processed) % n;
}

void SchedulingCycle::ExplainUnschedulable(
    const Search& search,
    const std::vector<const api::ResourceClaim*>& to_allocate,
    node_filters::FitErrorBuilder& diagnosis, Decision& d) {
  for (Rejection& r : rejections_) {
    if (r.by_dra) {
      diagnosis.SetNodeStatus(*r.node_name, {std::string(r.dra_reason)}, true);
    } else {
      diagnosis.SetNodeStatus(*r.node_name, r.filter);
    }
  }
  d.kind = Decision::Kind::kUnschedulable;
  d.message = diagnosis.Message();
  // The allocator's explanation of the DRA failures, grouped.
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (const ClusterState::NodeInfo* info : search.dra_failed) {
    allocator::AllocateOptions explain;
    explain.explain = true;
    explain.fixes = options_.fixes;
    allocator::Outcome outcome = state_->Allocator().Allocate(
        info->node(), to_allocate, state_->Allocated(), explain);
    std::string text;
    for (const auto& e : outcome.explanations) {
      StrAppend(&text, text.empty() ? "" : " ", allocator::ClaimSummary(e));
    }
    if (text.empty()) continue;
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const auto& x) { return x.first == text; });
    if (g == groups.end()) {
      groups.emplace_back(text, std::vector<std::string>{});
      g = groups.end() - 1;
    }
    g->second.push_back(info->node().metadata.name);
  }
  for (const auto& [text, node_names] : groups) {
    StrAppend(&d.message, " On node ", node_names.front());
    if (node_names.size() > 1) {
      StrAppend(&d.message, " (and ", node_names.size() - 1, " more alike)");
    }
    StrAppend(&d.message, ": ", text);
  }
}

Decision SchedulingCycle::Schedule(const api::Pod& pod) {
  Decision d;
  // PreEnqueue failures return at once; the first PreFilter failure is
  // kept for after the node count check (upstream checks for nodes first).
  PodClaims claims;
  if (!PreFilter(pod, claims, d)) return d;

  const size_t num_nodes = state_->Nodes().size();
  if (num_nodes == 0) {
    d.kind = Decision::Kind::kUnschedulable;
    d.message = std::string(nf::kNoNodesAvailableMessage);
    return d;
  }
  nf::FitErrorBuilder diagnosis(static_cast<int>(num_nodes));
  if (!claims.prefilter_message.empty()) {
    diagnosis.SetPreFilterMessage(claims.prefilter_message);
    d.kind = Decision::Kind::kUnschedulable;
    d.message = diagnosis.Message();
    return d;
  }
  absl::StatusOr<nf::PodNodeRequirements> requirements =
      nf::PodNodeRequirements::Parse(pod);
  if (!requirements.ok()) {
    d.kind = Decision::Kind::kError;
    d.message = std::string(requirements.status().message());
    return d;
  }
  NodeAnswers& node_answers = AnswersForSpecs(claims.to_allocate);
  if (!claims.to_allocate.empty()) PrepareAllocation(claims);
  if (requirements->affinity_terms_conflict) {
    diagnosis.SetPreFilterMessage(
        std::string(nf::kReasonAffinityTermsConflict));
    d.kind = Decision::Kind::kUnschedulable;
    d.message = diagnosis.Message();
    return d;
  }
  if (requirements->prefilter_node_names.has_value()) {
    diagnosis.SetAbsentNodesStatus(
        {std::string(nf::kReasonNotInPreFilterNodes)});
  }

  // Why each node was rejected, turned into the diagnosis only when no
  // node fits (most pods fit somewhere; the diagnosis map is not cheap).
  rejections_.clear();
  Search search;
  FilterAndScore(*requirements, claims, node_answers, d, search);
  const Best& best = search.best;
  if (best.node == nullptr) {
    if (search.any_error) {
      d.kind = Decision::Kind::kError;
      d.message = search.error_message;
      return d;
    }
    ExplainUnschedulable(search, claims.to_allocate, diagnosis, d);
    return d;
  }
  d.kind = Decision::Kind::kScheduled;
  d.node = best.node->node().metadata.name;
  if (best.answer != nullptr) {
    const auto& results = best.placement != nullptr ? best.placement->results
                                                    : best.answer->results;
    for (size_t i = 0; i < claims.to_allocate_plan.size(); ++i) {
      d.claims[claims.to_allocate_plan[i]].allocation = results[i];
    }
  }
  return d;
}

void SchedulingCycle::Reserve(const api::Pod& pod, const Decision& decision) {
  for (const ClaimPlan& plan : decision.claims) {
    if (plan.allocation.has_value()) {
      state_->AddInFlight(plan.claim_key, pod.metadata.uid, *plan.allocation);
    }
  }
  state_->AssumePod(pod, decision.node);
}

void SchedulingCycle::Unreserve(const api::Pod& pod, const Decision& decision) {
  for (const ClaimPlan& plan : decision.claims) {
    if (plan.allocation.has_value()) state_->RemoveInFlight(plan.claim_key);
  }
  state_->ForgetPod(ObjectKey(pod.metadata));
}

}  // namespace draplane::scheduler
