#include "operator_tools/pending_explainer.h"

#include <algorithm>
#include <map>

#include "allocator/node_selector.h"
#include "api/helpers/pod_claims.h"
#include "common/str_cat.h"
#include "scheduler/cluster_state.h"
#include "scheduler/node_filters/node_filters.h"
#include "scheduler/scheduling_cycle.h"

namespace draplane::operator_tools {
namespace {

namespace nf = scheduler::node_filters;

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const std::string& p : parts) {
    StrAppend(&out, out.empty() ? "" : sep, p);
  }
  return out;
}

void Load(const ClusterSnapshot& s, scheduler::ClusterState& state) {
  for (const ObjectPtr& o : s.nodes) state.SetNode(o);
  for (const ObjectPtr& o : s.slices) state.SetSlice(o);
  for (const ObjectPtr& o : s.device_classes) state.SetDeviceClass(o);
  for (const ObjectPtr& o : s.taint_rules) state.SetTaintRule(o);
  for (const ObjectPtr& o : s.claims) state.SetClaim(o);
  for (const ObjectPtr& o : s.pods) state.SetPod(o);
  for (const ObjectPtr& o : s.namespaces) state.SetNamespace(o);
}

// Why the scheduler's PreFilter refuses `claim` outright, "" if it does
// not (admin access checked only where the namespaces could be listed).
std::string ClaimBlocker(const api::ResourceClaim& claim,
                         const ClusterSnapshot& snapshot,
                         const scheduler::ClusterState& state) {
  std::string blocker = scheduler::MissingDeviceClass(claim, state);
  if (blocker.empty() && snapshot.namespaces_listed) {
    blocker = scheduler::AdminAccessRefused(claim, state);
  }
  return blocker;
}

std::string DevicesText(const api::AllocationResult& allocation) {
  std::vector<std::string> devices;
  for (const auto& r : allocation.devices.results) {
    devices.push_back(StrCat(r.driver, "/", r.pool, "/", r.device));
  }
  return devices.empty() ? "no devices" : Join(devices, ", ");
}

// "gpu: 4 x gpu.nvidia.com-a100" per request.
std::string RequestsText(const api::ResourceClaim& claim) {
  std::vector<std::string> parts;
  for (const auto& r : claim.spec.devices.requests) {
    if (r.exactly.has_value()) {
      std::string count = r.exactly->allocation_mode == "All"
                              ? "all"
                              : std::to_string(r.exactly->count);
      parts.push_back(
          StrCat(r.name, ": ", count, " x ", r.exactly->device_class_name));
    } else {
      std::vector<std::string> subs;
      for (const auto& s : r.first_available) {
        subs.push_back(StrCat(s.count, " x ", s.device_class_name));
      }
      parts.push_back(StrCat(r.name, ": first of [", Join(subs, " | "), "]"));
    }
  }
  return Join(parts, "; ");
}

// Runs the allocator for `claims` on every selected node.
absl::Status ExplainNodes(
    scheduler::ClusterState& state, const ExplainOptions& options,
    const nf::PodNodeRequirements* pod,
    const std::vector<const api::ResourceClaim*>& allocated_claims,
    const std::vector<const api::ResourceClaim*>& to_allocate, Explanation& e) {
  bool found = options.node.empty();
  for (const scheduler::ClusterState::NodeInfo* info : state.Nodes()) {
    const api::Node& node = info->node();
    if (!options.node.empty() && node.metadata.name != options.node) continue;
    found = true;
    NodeVerdict v;
    v.node = node.metadata.name;
    if (pod != nullptr) {
      nf::FilterResult fit =
          nf::RunAll(*pod, node, info->allocatable, info->facts, info->usage);
      if (!fit.ok) {
        v.reason = Join(fit.reasons, ", ");
        e.nodes.push_back(std::move(v));
        continue;
      }
    }
    for (const api::ResourceClaim* c : allocated_claims) {
      if (!allocator::AllocationAvailableOn(*c->status.allocation, node)) {
        v.reason = StrCat("resourceclaim not available on the node (claim ",
                          c->metadata.name,
                          " is already allocated to devices of other nodes)");
        break;
      }
    }
    if (!v.reason.empty()) {
      e.nodes.push_back(std::move(v));
      continue;
    }
    if (to_allocate.empty()) {
      v.fits = true;
      e.nodes.push_back(std::move(v));
      continue;
    }
    allocator::AllocateOptions allocate;
    allocate.explain = true;
    allocate.deadline = absl::Now() + absl::Seconds(10);
    allocator::Outcome outcome = state.Allocator().Allocate(
        node, to_allocate, state.Allocated(), allocate);
    switch (outcome.kind) {
      case allocator::OutcomeKind::kAllocated:
        v.fits = true;
        for (size_t i = 0; i < outcome.results.size(); ++i) {
          v.devices.push_back(StrCat(to_allocate[i]->metadata.name, ": ",
                                     DevicesText(outcome.results[i])));
        }
        break;
      case allocator::OutcomeKind::kUnallocatable:
        v.claims = std::move(outcome.explanations);
        if (v.claims.empty()) v.reason = "cannot allocate all claims";
        break;
      case allocator::OutcomeKind::kFatal:
        e.blocker = outcome.message;
        e.nodes.clear();
        return absl::OkStatus();
      default:
        v.reason = outcome.message;
        break;
    }
    e.nodes.push_back(std::move(v));
  }
  if (!found) {
    return absl::NotFoundError(
        StrCat("nodes \"", options.node, "\" not found"));
  }
  return absl::OkStatus();
}

}  // namespace

class PendingExplainer::Impl {
 public:
  explicit Impl(const ClusterSnapshot& snapshot)
      : snapshot_(snapshot), state_(allocator::Features::Defaults()) {
    Load(snapshot_, state_);
  }
  absl::StatusOr<Explanation> Pod(std::string_view ns, std::string_view name,
                                  const ExplainOptions& options);
  absl::StatusOr<Explanation> Claim(std::string_view ns, std::string_view name,
                                    const ExplainOptions& options);

 private:
  const ClusterSnapshot& snapshot_;
  scheduler::ClusterState state_;
};

absl::StatusOr<Explanation> PendingExplainer::Impl::Pod(
    std::string_view ns, std::string_view name, const ExplainOptions& options) {
  const ClusterSnapshot& snapshot = snapshot_;
  scheduler::ClusterState& state = state_;
  const api::Pod* pod = snapshot.FindPod(ns, name);
  if (pod == nullptr) {
    return absl::NotFoundError(
        StrCat("pods \"", name, "\" not found in ", "namespace \"", ns, "\""));
  }
  Explanation e;
  e.kind = "pod";
  e.namespace_ = std::string(ns);
  e.name = std::string(name);

  std::vector<const api::ResourceClaim*> allocated_claims;
  std::vector<const api::ResourceClaim*> to_allocate;
  for (const api::PodResourceClaim& prc : pod->spec.resource_claims) {
    absl::StatusOr<api::PodClaimName> ref = api::ResolvePodClaimName(*pod, prc);
    if (!ref.ok()) {
      if (e.blocker.empty()) {
        e.blocker = std::string(ref.status().message());
        if (prc.resource_claim_template_name.has_value()) {
          StrAppend(&e.blocker,
                    " (the resourceclaim controller creates it from template ",
                    *prc.resource_claim_template_name,
                    ": is the controller running and the template there?)");
        }
      }
      continue;
    }
    if (!ref->name.has_value()) {
      e.facts.push_back(StrCat("claim ", prc.name, ": not needed"));
      continue;
    }
    const api::ResourceClaim* claim = snapshot.FindClaim(ns, *ref->name);
    std::string head = StrCat("claim ", prc.name, " -> ", ns, "/", *ref->name);
    if (claim == nullptr) {
      e.facts.push_back(StrCat(head, ": not found"));
      if (e.blocker.empty()) {
        e.blocker = StrCat("resourceclaim.resource.k8s.io \"", *ref->name,
                           "\" not found");
      }
      continue;
    }
    if (claim->metadata.deletion_timestamp.has_value() && e.blocker.empty()) {
      e.blocker = StrCat("resourceclaim \"", *ref->name, "\" is being deleted");
    }
    if (ref->must_check_owner) {
      if (absl::Status owned = api::IsForPod(*pod, *claim);
          !owned.ok() && e.blocker.empty()) {
        e.blocker = std::string(owned.message());
      }
    }
    if (!api::IsReservedForPod(*pod, *claim) && !api::CanBeReserved(*claim) &&
        e.blocker.empty()) {
      e.blocker = StrCat("resourceclaim ", ns, "/", *ref->name,
                         " is in use by the maximum number of consumers (",
                         claim->status.reserved_for.size(), ")");
    }
    if (claim->status.allocation.has_value()) {
      e.facts.push_back(StrCat(head, ": allocated (",
                               DevicesText(*claim->status.allocation), ")"));
      allocated_claims.push_back(claim);
    } else {
      e.facts.push_back(StrCat(head, ": pending (", RequestsText(*claim), ")"));
      std::string missing = ClaimBlocker(*claim, snapshot, state);
      if (!missing.empty() && e.blocker.empty()) e.blocker = missing;
      to_allocate.push_back(claim);
    }
  }

  if (!pod->spec.node_name.empty()) {
    const std::string phase =
        pod->status.phase.empty() ? "Pending" : pod->status.phase;
    e.state = StrCat("Scheduled on ", pod->spec.node_name, " (", phase, ")");
    if (phase == "Pending") {
      // Scheduled but not started: the kubelet's DRA step is next.
      std::string last = snapshot.LastEventMessage(
          "Pod", ns, name, "FailedPrepareDynamicResources");
      if (!last.empty()) {
        e.facts.push_back(StrCat("the kubelet said: ", last));
      }
    }
    return e;
  }
  e.state = "Pending";
  std::string said;
  for (const api::PodCondition& c : pod->status.conditions) {
    if (c.type == "PodScheduled" && c.status == "False") said = c.message;
  }
  if (said.empty()) {
    said = snapshot.LastEventMessage("Pod", ns, name, "FailedScheduling");
  }
  if (!said.empty()) {
    // Its per-node details follow below, computed now.
    size_t details = said.find(" On node ");
    e.facts.push_back(StrCat("the scheduler said: ", said.substr(0, details)));
  }
  if (!pod->spec.scheduler_name.empty() &&
      pod->spec.scheduler_name != "default-scheduler") {
    e.facts.push_back(StrCat("scheduler name: ", pod->spec.scheduler_name,
                             " (a scheduler of that name must be running)"));
  }
  if (!e.blocker.empty()) return e;
  absl::StatusOr<nf::PodNodeRequirements> requirements =
      nf::PodNodeRequirements::Parse(*pod);
  if (!requirements.ok()) {
    e.blocker = std::string(requirements.status().message());
    return e;
  }
  if (absl::Status s = ExplainNodes(state, options, &*requirements,
                                    allocated_claims, to_allocate, e);
      !s.ok()) {
    return s;
  }
  if (e.nodes.empty() && e.blocker.empty()) {
    e.blocker = "0/0 nodes are available: no nodes available to schedule pods";
  }
  return e;
}

absl::StatusOr<Explanation> PendingExplainer::Impl::Claim(
    std::string_view ns, std::string_view name, const ExplainOptions& options) {
  const ClusterSnapshot& snapshot = snapshot_;
  scheduler::ClusterState& state = state_;
  const api::ResourceClaim* claim = snapshot.FindClaim(ns, name);
  if (claim == nullptr) {
    return absl::NotFoundError(StrCat("resourceclaims.resource.k8s.io \"", name,
                                      "\" not found in namespace \"", ns,
                                      "\""));
  }
  Explanation e;
  e.kind = "claim";
  e.namespace_ = std::string(ns);
  e.name = std::string(name);
  e.facts.push_back(StrCat("requests: ", RequestsText(*claim)));
  if (std::optional<api::OwnerPod> owner = api::OwningPod(*claim)) {
    e.facts.push_back(StrCat("generated for pod ", ns, "/", owner->name));
  }
  for (const auto& ref : claim->status.reserved_for) {
    const api::Pod* p = snapshot.FindPodByUid(ref.uid);
    e.facts.push_back(StrCat(
        "reserved for ", ref.resource, " ", ref.name,
        p == nullptr
            ? " (gone)"
            : StrCat(" (",
                     p->status.phase.empty() ? "Pending" : p->status.phase,
                     ")")));
  }
  const std::vector<const api::Pod*>& users = snapshot.PodsUsingClaim(ns, name);
  for (const api::Pod* p : users) {
    e.facts.push_back(StrCat("used by pod ", p->metadata.name,
                             p->spec.node_name.empty()
                                 ? " (not scheduled)"
                                 : StrCat(" on ", p->spec.node_name)));
  }
  if (claim->metadata.deletion_timestamp.has_value()) {
    e.state = "Deleting";
    std::vector<std::string> finalizers = claim->metadata.finalizers;
    if (!finalizers.empty()) {
      e.facts.push_back(StrCat("finalizers: ", Join(finalizers, ", ")));
    }
    return e;
  }
  if (claim->status.allocation.has_value()) {
    e.state =
        StrCat("Allocated (", DevicesText(*claim->status.allocation), ")");
    if (claim->status.reserved_for.empty()) {
      e.facts.push_back(
          "not reserved for any consumer: the resourceclaim controller "
          "deallocates it");
    }
    return e;
  }
  e.state = "Pending";
  if (users.empty()) {
    e.facts.push_back(
        "no pod uses it: a claim is allocated when a pod that uses it is "
        "scheduled");
  } else {
    e.facts.push_back(StrCat("for node filters too: draplane explain pod ",
                             users.front()->metadata.name, " -n ", ns));
  }
  std::string last =
      snapshot.LastEventMessage("ResourceClaim", ns, name, "FailedScheduling");
  if (!last.empty()) e.facts.push_back(StrCat("the scheduler said: ", last));
  e.blocker = ClaimBlocker(*claim, snapshot, state);
  if (!e.blocker.empty()) return e;
  if (absl::Status s = ExplainNodes(state, options, nullptr, {}, {claim}, e);
      !s.ok()) {
    return s;
  }
  return e;
}

PendingExplainer::PendingExplainer(const ClusterSnapshot& snapshot)
    : impl_(std::make_unique<Impl>(snapshot)) {}
PendingExplainer::~PendingExplainer() = default;

absl::StatusOr<Explanation> PendingExplainer::Pod(
    std::string_view ns, std::string_view name, const ExplainOptions& options) {
  return impl_->Pod(ns, name, options);
}

absl::StatusOr<Explanation> PendingExplainer::Claim(
    std::string_view ns, std::string_view name, const ExplainOptions& options) {
  return impl_->Claim(ns, name, options);
}

absl::StatusOr<Explanation> ExplainPod(const ClusterSnapshot& snapshot,
                                       std::string_view ns,
                                       std::string_view name,
                                       const ExplainOptions& options) {
  return PendingExplainer(snapshot).Pod(ns, name, options);
}

absl::StatusOr<Explanation> ExplainClaim(const ClusterSnapshot& snapshot,
                                         std::string_view ns,
                                         std::string_view name,
                                         const ExplainOptions& options) {
  return PendingExplainer(snapshot).Claim(ns, name, options);
}

std::string ExplanationText(const Explanation& e) {
  std::string out =
      StrCat(e.kind, " ", e.namespace_, "/", e.name, ": ", e.state, "\n");
  for (const std::string& f : e.facts) StrAppend(&out, "  ", f, "\n");
  if (!e.blocker.empty()) {
    StrAppend(&out, "Blocked on every node: ", e.blocker, "\n");
  }
  if (e.nodes.empty()) return out;
  std::vector<const NodeVerdict*> fit;
  // reason text -> nodes, in first-seen order.
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (const NodeVerdict& v : e.nodes) {
    if (v.fits) {
      fit.push_back(&v);
      continue;
    }
    std::string text = v.reason;
    for (const auto& c : v.claims) {
      StrAppend(&text, text.empty() ? "" : "\n      ",
                allocator::ClaimSummary(c));
    }
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const auto& x) { return x.first == text; });
    if (g == groups.end()) {
      groups.emplace_back(text, std::vector<std::string>{});
      g = groups.end() - 1;
    }
    g->second.push_back(v.node);
  }
  StrAppend(&out, fit.size(), "/", e.nodes.size(), " nodes fit",
            fit.empty() ? "." : ":", "\n");
  for (const NodeVerdict* v : fit) {
    StrAppend(&out, "  ", v->node,
              v->devices.empty() ? "" : StrCat(": ", Join(v->devices, "; ")),
              "\n");
  }
  if (!groups.empty()) StrAppend(&out, "Nodes that do not fit:\n");
  for (const auto& [text, nodes] : groups) {
    StrAppend(&out, "  ", Join(nodes, ", "), ":\n      ", text, "\n");
  }
  return out;
}

api::Json ExplanationJson(const Explanation& e) {
  api::Json out = api::Json::object();
  out["kind"] = e.kind;
  out["namespace"] = e.namespace_;
  out["name"] = e.name;
  out["state"] = e.state;
  out["facts"] = e.facts;
  if (!e.blocker.empty()) out["blocker"] = e.blocker;
  api::Json nodes = api::Json::array();
  for (const NodeVerdict& v : e.nodes) {
    api::Json n = {{"node", v.node}, {"fits", v.fits}};
    if (!v.reason.empty()) n["reason"] = v.reason;
    if (!v.claims.empty()) {
      api::Json claims = api::Json::array();
      for (const auto& c : v.claims) claims.push_back(allocator::ToJson(c));
      n["claims"] = std::move(claims);
    }
    if (!v.devices.empty()) n["devices"] = v.devices;
    nodes.push_back(std::move(n));
  }
  out["nodes"] = std::move(nodes);
  return out;
}

}  // namespace draplane::operator_tools
