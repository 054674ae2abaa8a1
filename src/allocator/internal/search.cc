#include "allocator/internal/search.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "allocator/internal/capacity.h"
#include "allocator/internal/explainer.h"
#include "allocator/internal/node_selection.h"
#include "allocator/internal/pools.h"
#include "allocator/internal/search_state.h"
#include "common/str_cat.h"
#include "common/uuid.h"

namespace draplane::allocator::internal {
namespace {

constexpr int kMaxResults = 32;  // resourceapi.AllocationResultsMaxSize

// allocateOne's outcomes.
enum Step : int8_t {
  kFail = 0,
  kDone = 1,
  kMaxSizeExceeded = 2,  // upstream errAllocationResultMaxSizeExceeded
  kError = 3,            // fatal; text in Search::error_
  // A complete allocation AllocateOptions::visit_allocation declined: look
  // for the next one. Not a failure: prunes nothing.
  kDeclined = 4,
};

class Search {
 public:
  Search(Catalog& catalog, AllocatorCache& cache, NodeView& view,
         const Features& features, const api::Node& node,
         const std::vector<const api::ResourceClaim*>& claims,
         const AllocatedState& state, const AllocateOptions& options)
      : s_(catalog, cache, view, features, node, claims, state, options),
        undo_stack_(cache.scratch().undo),
        signatures_(cache.scratch().signatures) {}

  Outcome Run();

 private:
  Step AllocateOne(int claim, int request, int sub, int device_index,
                   bool allocate_sub_request, int start);
  // upstream allocateDevice; on success pushes an undo record.
  Step AllocateDevice(int claim, RequestData& rd, int dev, bool must,
                      bool* allocated);
  void Rollback(const Undo& undo);
  bool CheckAvailableCounters(int dev);
  void ChargeCounters(int dev, int sign);
  Step Fatal(std::string message) {
    error_ = std::move(message);
    return kError;
  }
  // Pruning (never changes the answer).
  bool ProvablyInfeasible(RequestData& rd);
  static constexpr int64_t kNoSignature = INT64_MIN;
  int64_t Signature(int dev);

  Outcome BuildResults();
  // At a complete allocation: kDone when there is no visitor or it takes
  // the allocation (kept in accepted_), else kDeclined.
  Step Complete();

  SearchState s_;
  std::string error_;
  bool timed_out_ = false;
  int64_t steps_ = 0;
  std::vector<Undo>& undo_stack_;
  std::vector<int64_t>& signatures_;  // per local device, lazily
  absl::flat_hash_map<std::vector<int32_t>, int64_t> signature_ids_;
  std::optional<Outcome> accepted_;  // the visitor's choice
};

Outcome Search::Run() {
  Outcome out;
  if (!s_.view.error.empty()) {
    out.kind = OutcomeKind::kFatal;
    out.message = s_.view.error;
    return out;
  }

  if (auto err = s_.Prepare(); !err.empty()) {
    out.kind = OutcomeKind::kFatal;
    out.message = std::move(err);
    return out;
  }

  // Reset the reused buffers, keeping their memory.
  signatures_.assign(s_.devices.size(), kNoSignature);
  s_.allocating.resize(s_.devices.size());
  for (auto& claims : s_.allocating) claims.clear();
  s_.allocating_capacity.assign(s_.devices.size(), std::nullopt);
  s_.consumed_counters.resize(s_.pools.size());
  for (auto& counters : s_.consumed_counters) counters.clear();
  s_.results.resize(s_.claims.size());
  for (auto& results : s_.results) results.clear();
  undo_stack_.clear();

  const Step done = AllocateOne(0, 0, 0, 0, false, 0);
  out.steps = steps_;
  if (done == kError) {
    out.kind = timed_out_ ? OutcomeKind::kTimeout : OutcomeKind::kFatal;
    out.message = error_;
    return out;
  }
  if (done != kDone) {
    for (const Pool& p : s_.pools) {
      if (p.invalid) {
        out.kind = OutcomeKind::kInvalidPools;
        out.message = "invalid resource pools were encountered";
        return out;
      }
    }
    out.kind = OutcomeKind::kUnallocatable;
    if (s_.options.explain) out.explanations = Explain(s_);
    return out;
  }
  Outcome built =
      accepted_.has_value() ? std::move(*accepted_) : BuildResults();
  built.steps = steps_;
  return built;
}

Step Search::Complete() {
  if (!s_.options.visit_allocation) return kDone;
  Outcome built = BuildResults();
  if (!s_.options.visit_allocation(built.results)) return kDeclined;
  accepted_ = std::move(built);
  return kDone;
}

Step Search::AllocateOne(int claim, int request, int sub, int device_index,
                         bool allocate_sub_request, int start) {
  ++steps_;
  if ((steps_ & 1023) == 0 && s_.options.deadline != absl::InfiniteFuture() &&
      absl::Now() > s_.options.deadline) {
    timed_out_ = true;
    return Fatal("filter operation aborted: context deadline exceeded");
  }
  if (timed_out_) return kError;

  if (claim >= static_cast<int>(s_.claims.size())) return Complete();
  const api::ResourceClaim& c = *s_.claims[claim];
  if (request >= static_cast<int>(c.spec.devices.requests.size())) {
    Step st = AllocateOne(claim + 1, 0, 0, 0, false, 0);
    if (st == kMaxSizeExceeded) return kFail;
    return st;
  }

  std::vector<RequestData>& alternatives = s_.requests[claim][request];
  if (!allocate_sub_request && alternatives[0].is_sub) {
    bool all_exceeded = true;
    bool declined = false;
    for (int i = 0; i < static_cast<int>(alternatives.size()); ++i) {
      // Set before descending: a visitor sees the allocation being built.
      alternatives[0].selected_sub = i;
      Step st = AllocateOne(claim, request, i, device_index, true, 0);
      if (st == kMaxSizeExceeded) continue;
      all_exceeded = false;
      if (st == kError || st == kDone) return st;
      declined |= st == kDeclined;
    }
    if (declined) return kDeclined;
    return all_exceeded ? kMaxSizeExceeded : kFail;
  }

  RequestData& rd = alternatives[sub];
  const bool all_mode = rd.mode == api::kDeviceAllocationModeAll;
  if (all_mode && rd.all_devices.empty()) return kFail;

  if (device_index >= rd.num_devices) {
    return AllocateOne(claim, request + 1, 0, 0, false, 0);
  }

  const int remaining = rd.num_devices - device_index;
  const int available =
      kMaxResults - static_cast<int>(s_.results[claim].size());
  if (remaining > available) return kMaxSizeExceeded;

  if (all_mode) {
    const int dev = rd.all_devices[device_index];
    bool allocated = false;
    Step st = AllocateDevice(claim, rd, dev, true, &allocated);
    if (st == kError) return st;
    if (!allocated) return kFail;
    const size_t mark = undo_stack_.size() - 1;
    Step next = AllocateOne(claim, request, sub, device_index + 1,
                            allocate_sub_request, 0);
    if (next != kDone) {
      Rollback(undo_stack_[mark]);
      undo_stack_.resize(mark);
      return next == kError || next == kMaxSizeExceeded || next == kDeclined
                 ? next
                 : kFail;
    }
    return kDone;
  }

  const bool prune = s_.options.prune;
  if (prune && device_index == 0 && ProvablyInfeasible(rd)) return kFail;

  // Signatures of candidates whose subtree failed in this loop.
  std::vector<int64_t> failed;
  const int n = static_cast<int>(s_.devices.size());
  bool declined = false;
  for (int dev = start; dev < n; ++dev) {
    if (rd.admin) {
      if (s_.AllocatingForClaim(dev, claim)) continue;
    } else if (s_.InUse(dev)) {
      continue;
    }
    if (prune && !failed.empty() &&
        std::find(failed.begin(), failed.end(), Signature(dev)) !=
            failed.end()) {
      continue;
    }
    const std::string* err = nullptr;
    const int selectable = s_.Selectable(rd, dev, &err);
    if (selectable < 0) return Fatal(*err);
    if (selectable == 0) continue;
    if (s_.features.consumable_capacity) {
      auto fits = s_.CapacityFits(rd, dev);
      if (!fits.ok()) {
        return Fatal(StrCat("claim ", s_.ClaimName(claim), ", request ",
                            rd.name, ": checking capacity for device ",
                            s_.devices[dev].id().ToString(), ": ",
                            std::string(fits.status().message())));
      }
      if (!*fits) continue;
    }
    bool allocated = false;
    Step st = AllocateDevice(claim, rd, dev, false, &allocated);
    if (st == kError) return st;
    if (!allocated) continue;
    const size_t mark = undo_stack_.size() - 1;
    Step next = AllocateOne(claim, request, sub, device_index + 1,
                            allocate_sub_request, dev + 1);
    if (next == kDone) return kDone;
    Rollback(undo_stack_[mark]);
    undo_stack_.resize(mark);
    if (next == kDeclined) {
      declined = true;
      continue;
    }
    if (next != kFail) return next;
    if (prune) failed.push_back(Signature(dev));
  }
  return declined ? kDeclined : kFail;
}

Step Search::AllocateDevice(int claim, RequestData& rd, int dev, bool must,
                            bool* allocated) {
  *allocated = false;
  const LocalDevice& d = s_.devices[dev];
  const api::Device& device = *d.device;
  const bool allow_multiple =
      s_.features.consumable_capacity &&
      device.rare->allow_multiple_allocations.value_or(false);
  if (!allow_multiple && rd.admin && s_.AllocatingForClaim(dev, claim)) {
    return kFail;
  }
  if (!rd.admin && s_.InUse(dev)) return kFail;
  if (!s_.features.partitionable_devices &&
      !device.rare->consumes_counters.empty()) {
    return kFail;
  }
  const bool skip_counters = allow_multiple && s_.CapacityInUse(dev);
  Undo undo;
  undo.claim = claim;
  undo.dev = dev;
  undo.rd = &rd;
  undo.previous_results = s_.results[claim].size();
  const bool admin_exempt =
      rd.admin && s_.options.fixes.admin_access_skips_counters;
  if (!skip_counters && !admin_exempt &&
      !device.rare->consumes_counters.empty()) {
    // A device whose counters exceed what its pool has left even on its
    // own fails upstream's check whatever else is being allocated.
    if (!s_.CountersCouldFit(dev) || !CheckAvailableCounters(dev)) return kFail;
    undo.counters_reserved = true;
  }

  if (s_.features.device_taints && !s_.Tolerated(rd, dev)) {
    Rollback(undo);
    return kFail;
  }

  for (Constraint& constraint : s_.constraints[claim]) {
    const api::DeviceAttribute* attribute =
        constraint.applies[rd.slot] ? s_.ConstraintAttribute(constraint, dev)
                                    : nullptr;
    if (!constraint.Add(rd.slot, attribute)) {
      Rollback(undo);
      if (must) {
        return Fatal(StrCat("claim ", s_.ClaimName(claim), ", request ",
                            rd.name, ": cannot add device ", d.id().ToString(),
                            " because a claim constraint would not be "
                            "satisfied"));
      }
      return kFail;
    }
    ++undo.constraints_added;
  }

  if (!allow_multiple) {
    s_.allocating[dev].push_back(claim);
    undo.device_marked = true;
  }

  CapacityMap consumed;
  std::optional<std::string> share_id;
  if (s_.features.consumable_capacity) {
    auto fits = s_.CapacityFits(rd, dev);
    if (!fits.ok()) {
      Rollback(undo);
      return Fatal(StrCat("claim ", s_.ClaimName(claim), ", request ", rd.name,
                          ": rechecking capacity for device ",
                          d.id().ToString(), ": ",
                          std::string(fits.status().message())));
    }
    if (!*fits) {
      Rollback(undo);
      return kFail;
    }
    if (allow_multiple) {
      // PlanFits succeeded, so the plan has no error: its consumption is
      // upstream's GetConsumedCapacityFromRequest.
      consumed = s_.Plan(rd, dev).consumed;
      share_id = NewRandomUuid();
      undo.capacity_entry_existed = s_.allocating_capacity[dev].has_value();
      s_.InsertAllocatingCapacity(dev, consumed);
      undo.capacity_inserted = true;
      undo.consumed = consumed;
    }
  }

  DeviceResult result;
  result.dev = dev;
  result.rd = &rd;
  result.share_id = std::move(share_id);
  result.admin = rd.admin;
  result.consumed = std::move(consumed);
  s_.results[claim].push_back(std::move(result));
  undo.result_added = true;
  undo_stack_.push_back(std::move(undo));
  *allocated = true;
  return kFail;  // "no error"; *allocated tells success
}

void Search::Rollback(const Undo& undo) {
  if (undo.result_added) s_.results[undo.claim].resize(undo.previous_results);
  if (undo.capacity_inserted) {
    s_.RemoveAllocatingCapacity(undo.dev, undo.consumed);
    if (undo.capacity_entry_existed && !s_.allocating_capacity[undo.dev]) {
      s_.allocating_capacity[undo.dev].emplace();
    }
  }
  if (undo.device_marked) {
    auto& claims = s_.allocating[undo.dev];
    claims.erase(std::find(claims.begin(), claims.end(), undo.claim));
  }
  for (int i = undo.constraints_added - 1; i >= 0; --i) {
    s_.constraints[undo.claim][i].Remove(undo.rd->slot);
  }
  if (undo.counters_reserved) ChargeCounters(undo.dev, -1);
}

// Adds (sign 1) or removes (sign -1) the device's counter consumption to
// or from its pool's "consumed in this attempt" (a missing entry is zero).
void Search::ChargeCounters(int dev, int sign) {
  const LocalDevice& d = s_.devices[dev];
  CounterSets& consumed = s_.consumed_counters[d.pool];
  for (const api::DeviceCounterConsumption& c :
       d.device->rare->consumes_counters) {
    auto& set = consumed[c.counter_set];
    for (const auto& [name, counter] : c.counters) {
      Quantity& q = set[name];
      (void)(sign > 0 ? q.Add(counter.value) : q.Sub(counter.value));
    }
  }
}

bool Search::CheckAvailableCounters(int dev) {
  const LocalDevice& d = s_.devices[dev];
  const CounterSets& available = s_.AvailableCounters(d.pool);
  const CounterSets& consumed = s_.consumed_counters[d.pool];
  ChargeCounters(dev, 1);
  // Upstream checks every counter of every set of the pool; the counters
  // this device does not consume are unchanged and were within bounds
  // unless the pool is over-consumed already (SearchState::PoolOverConsumed).
  bool fits = !s_.PoolOverConsumed(d.pool);
  for (const auto& c : d.device->rare->consumes_counters) {
    if (!fits) break;
    auto set = available.find(c.counter_set);
    if (set == available.end()) continue;
    const auto& used_set = consumed.at(c.counter_set);
    for (const auto& [name, counter] : c.counters) {
      auto it = set->second.find(name);
      if (it == set->second.end()) continue;
      if (it->second.Compare(used_set.at(name)) < 0) {
        fits = false;
        break;
      }
    }
  }
  if (!fits) ChargeCounters(dev, -1);
  return fits;
}

// A request with fewer devices that could ever satisfy it than it needs
// (on their own, or together under the claim's constraints) fails in
// upstream's search too, after trying every combination. Only decided when
// no candidate has a selector or capacity error (upstream would report the
// first one it meets).
bool Search::ProvablyInfeasible(RequestData& rd) {
  if (rd.feasibility >= 0) return rd.feasibility == 0;
  rd.feasibility = 1;
  int eligible = 0;
  // With constraints on this request, the eligible devices are kept to see
  // whether enough of them can satisfy each constraint together.
  std::vector<Constraint*> constraints;
  for (Constraint& c : s_.constraints[rd.claim]) {
    if (c.applies[rd.slot]) constraints.push_back(&c);
  }
  std::vector<int> kept;
  for (int dev = 0; dev < static_cast<int>(s_.devices.size()); ++dev) {
    const LocalDevice& d = s_.devices[dev];
    if (!rd.admin && s_.StateOf(dev).exclusive) continue;
    const std::string* err = nullptr;
    const int sel = s_.Selectable(rd, dev, &err);
    if (sel < 0) return false;
    if (sel == 0) continue;
    const bool allow_multiple =
        s_.features.consumable_capacity &&
        d.device->rare->allow_multiple_allocations.value_or(false);
    if (s_.features.consumable_capacity) {
      auto fits = PlanFits(s_.Plan(rd, dev), s_.StateOf(dev).aggregated,
                           d.device->capacity, nullptr);
      if (!fits.ok()) return false;
      if (!*fits) continue;
    }
    if (!d.device->rare->consumes_counters.empty()) {
      if (!s_.features.partitionable_devices) continue;
      const bool admin_exempt =
          rd.admin && s_.options.fixes.admin_access_skips_counters;
      if (!allow_multiple && !admin_exempt && !s_.CountersCouldFit(dev)) {
        continue;
      }
    }
    if (s_.features.device_taints && !s_.Tolerated(rd, dev)) continue;
    ++eligible;
    if (constraints.empty()) {
      if (eligible >= rd.num_devices) return false;
    } else {
      kept.push_back(dev);
    }
  }
  if (eligible < rd.num_devices) {
    rd.feasibility = 0;
    return true;
  }
  // matchAttribute: the devices must share one value (a device without the
  // attribute never passes); distinctAttribute: they need pairwise
  // different values. Grouping by type and value can only overestimate what
  // upstream accepts (a list value matches nothing), so a shortfall is
  // certain. A value fixed by an earlier request only narrows it further.
  for (Constraint* c : constraints) {
    absl::flat_hash_map<int, int> groups;
    for (int dev : kept) {
      const int value = s_.ConstraintValue(*c, dev);
      if (value >= 0) ++groups[value];
    }
    int usable = 0;
    for (const auto& [value, count] : groups) {
      usable = c->match ? std::max(usable, count) : usable + 1;
    }
    if (usable < rd.num_devices) {
      rd.feasibility = 0;
      return true;
    }
  }
  return false;
}

// Devices with equal signatures are interchangeable for every request of
// this Allocate call: the same outcome of every request's selectors (true,
// false or error; per-device node selection and binding conditions
// included), capacity fit and taint tolerance, the same value (or absence)
// of every constraint attribute, the same counter consumption from the same
// pool, and the same allocation status. Attributes no selector or
// constraint looks at (UUIDs, bus IDs) do not matter. Shared
// (allowMultipleAllocations) devices and devices an "All" request takes are
// never interchangeable: the first depend on their own capacity state, and
// an "All" request takes its devices in a fixed order and reports the first
// constraint violation as an error, so a swap can change it.
int64_t Search::Signature(int dev) {
  int64_t& sig = signatures_[dev];
  if (sig != kNoSignature) return sig;
  const LocalDevice& d = s_.devices[dev];
  const bool allow_multiple =
      s_.features.consumable_capacity &&
      d.device->rare->allow_multiple_allocations.value_or(false);
  const DeviceState& st = s_.StateOf(dev);
  if (allow_multiple || st.shared || st.aggregated != nullptr ||
      s_.in_all_list[dev]) {
    sig = -1 - static_cast<int64_t>(dev);
    return sig;
  }
  std::vector<int32_t> key;
  key.push_back(st.exclusive ? 1 : 0);
  if (d.device->rare->consumes_counters.empty()) {
    key.push_back(-1);
  } else {
    key.push_back(d.pool);
    key.push_back(s_.cache.CounterClass(s_.catalog, d.global));
  }
  for (auto& claim_requests : s_.requests) {
    for (auto& alternatives : claim_requests) {
      for (RequestData& rd : alternatives) {
        const std::string* err = nullptr;
        const int sel = s_.Selectable(rd, dev, &err);
        key.push_back(sel);
        if (sel != 1) continue;
        if (s_.features.consumable_capacity) {
          auto fits =
              PlanFits(s_.Plan(rd, dev), nullptr, d.device->capacity, nullptr);
          key.push_back(!fits.ok() ? 2 : *fits ? 1 : 0);
        }
        if (s_.features.device_taints) key.push_back(s_.Tolerated(rd, dev));
      }
    }
  }
  for (auto& claim_constraints : s_.constraints) {
    for (Constraint& c : claim_constraints) {
      key.push_back(s_.ConstraintValue(c, dev));
    }
  }
  auto [it, inserted] = signature_ids_.emplace(
      std::move(key), static_cast<int64_t>(signature_ids_.size()));
  sig = it->second;
  return sig;
}

Outcome Search::BuildResults() {
  Outcome out;
  out.kind = OutcomeKind::kAllocated;
  for (size_t ci = 0; ci < s_.claims.size(); ++ci) {
    const api::ResourceClaim& claim = *s_.claims[ci];
    api::AllocationResult result;
    for (const DeviceResult& r : s_.results[ci]) {
      const LocalDevice& d = s_.devices[r.dev];
      api::DeviceRequestAllocationResult dr;
      dr.request = r.rd->full_name;
      dr.driver = d.id().driver;
      dr.pool = d.id().pool;
      dr.device = d.id().device;
      if (r.admin) dr.admin_access = true;
      if (r.rd->tolerations != nullptr) dr.tolerations = *r.rd->tolerations;
      dr.share_id = r.share_id;
      dr.consumed_capacity = r.consumed;
      if (s_.features.device_binding_and_status) {
        dr.binding_conditions = d.device->rare->binding_conditions;
        dr.binding_failure_conditions =
            d.device->rare->binding_failure_conditions;
      }
      result.devices.results.push_back(std::move(dr));
    }

    // Class configs once per class, naming the requests that use it.
    std::map<std::string, std::pair<size_t, size_t>> class_configs;
    auto& configs = result.devices.config;
    for (auto& alternatives : s_.requests[ci]) {
      const RequestData& rd =
          alternatives[alternatives[0].is_sub ? alternatives[0].selected_sub
                                              : 0];
      if (rd.cls == nullptr) continue;
      auto it = class_configs.find(rd.cls->metadata.name);
      if (it != class_configs.end()) {
        for (size_t i = it->second.first; i < it->second.second; ++i) {
          configs[i].requests.push_back(rd.full_name);
        }
        continue;
      }
      const size_t begin = configs.size();
      for (const api::DeviceClassConfiguration& cfg : rd.cls->spec.config) {
        api::DeviceAllocationConfiguration out_cfg;
        out_cfg.source = "FromClass";
        out_cfg.requests = {rd.full_name};
        out_cfg.opaque = cfg.opaque;
        configs.push_back(std::move(out_cfg));
      }
      class_configs.emplace(rd.cls->metadata.name,
                            std::make_pair(begin, configs.size()));
    }
    auto selected_name = [&](size_t request_index) -> const std::string* {
      const auto& alternatives = s_.requests[ci][request_index];
      if (!alternatives[0].is_sub) return nullptr;
      return &alternatives[alternatives[0].selected_sub].full_name;
    };
    auto contains = [](const std::vector<std::string>& v,
                       const std::string& s) {
      return std::find(v.begin(), v.end(), s) != v.end();
    };
    const auto& requests = claim.spec.devices.requests;
    for (const api::DeviceClaimConfiguration& cfg : claim.spec.devices.config) {
      bool add = cfg.requests.empty();
      for (size_t i = 0; !add && i < requests.size(); ++i) {
        if (contains(cfg.requests, requests[i].name)) add = true;
        const std::string* sub = selected_name(i);
        if (sub != nullptr && contains(cfg.requests, *sub)) add = true;
      }
      if (!add) continue;
      api::DeviceAllocationConfiguration out_cfg;
      out_cfg.source = "FromClaim";
      out_cfg.requests = cfg.requests;
      out_cfg.opaque = cfg.opaque;
      configs.push_back(std::move(out_cfg));
    }
    for (api::DeviceAllocationConfiguration& cfg : configs) {
      if (cfg.requests.empty()) continue;
      bool all = true;
      for (size_t i = 0; all && i < requests.size(); ++i) {
        if (contains(cfg.requests, requests[i].name)) continue;
        const std::string* sub = selected_name(i);
        if (sub != nullptr && contains(cfg.requests, *sub)) continue;
        all = false;
      }
      if (all) cfg.requests.clear();
    }

    // Node selector.
    api::NodeSelectorTerm term;
    bool node_local = false;
    for (const DeviceResult& r : s_.results[ci]) {
      const LocalDevice& d = s_.devices[r.dev];
      const api::ResourceSliceSpec& spec = d.slice->spec;
      const std::optional<std::string>* node_name;
      const std::optional<api::NodeSelector>* selector;
      if (spec.per_device_node_selection.value_or(false)) {
        node_name = &d.device->rare->node_name;
        selector = &d.device->rare->node_selector;
      } else {
        node_name = &spec.node_name;
        selector = &spec.node_selector;
      }
      if (node_name->has_value() ||
          d.device->rare->binds_to_node.value_or(false)) {
        node_local = true;
        break;
      }
      if (selector->has_value()) {
        const auto& terms = (*selector)->node_selector_terms;
        if (terms.size() == 1) {
          AddNewRequirements(terms[0].match_fields, term.match_fields);
          AddNewRequirements(terms[0].match_expressions,
                             term.match_expressions);
        } else if (terms.size() > 1) {
          out.kind = OutcomeKind::kFatal;
          out.message =
              StrCat("create NodeSelector for claim ", claim.metadata.name,
                     ": unsupported ResourceSlice.NodeSelector with ",
                     terms.size(), " terms");
          out.results.clear();
          return out;
        }
      }
    }
    if (node_local) {
      api::NodeSelector ns;
      ns.node_selector_terms.push_back(api::NodeSelectorTerm{
          {},
          {api::NodeSelectorRequirement{
              "metadata.name", "In", {s_.node.metadata.name}}}});
      result.node_selector = std::move(ns);
    } else if (!term.match_fields.empty() || !term.match_expressions.empty()) {
      api::NodeSelector ns;
      ns.node_selector_terms.push_back(std::move(term));
      result.node_selector = std::move(ns);
    }
    out.results.push_back(std::move(result));
  }
  return out;
}

}  // namespace

Outcome RunAllocation(Catalog& catalog, AllocatorCache& cache,
                      const Features& features, const api::Node& node,
                      const std::vector<const api::ResourceClaim*>& claims,
                      const AllocatedState& state,
                      const AllocateOptions& options) {
  NodeView& view = cache.ViewFor(catalog, node, features);
  Search search(catalog, cache, view, features, node, claims, state, options);
  return search.Run();
}

}  // namespace draplane::allocator::internal
