#include "allocator/internal/search_state.h"

#include <algorithm>
#include <limits>

#include "allocator/internal/node_selection.h"
#include "common/str_cat.h"

namespace draplane::allocator::internal {
namespace {

constexpr int kMaxResults = 32;

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

bool Constraint::Applies(const std::string& base,
                         const std::string& sub) const {
  if (requests.empty()) return true;
  if (sub.empty()) return Contains(requests, base);
  return Contains(requests, base) || Contains(requests, StrCat(base, "/", sub));
}

bool Constraint::Add(int slot, const api::DeviceAttribute* a) {
  if (!applies[slot]) return true;
  if (a == nullptr) return false;
  if (match) {
    if (num == 0) {
      reference = a;
      num = 1;
      return true;
    }
    const api::DeviceAttribute& r = *reference;
    if (a->string_value()) {
      if (!r.string_value() || *a->string_value() != *r.string_value())
        return false;
    } else if (a->int_value()) {
      if (!r.int_value() || *a->int_value() != *r.int_value()) return false;
    } else if (a->bool_value()) {
      if (!r.bool_value() || *a->bool_value() != *r.bool_value()) return false;
    } else if (a->version_value()) {
      if (!r.version_value() || *a->version_value() != *r.version_value())
        return false;
    } else {
      return false;
    }
    ++num;
    return true;
  }
  for (const api::DeviceAttribute* s : seen) {
    if (a->string_value()) {
      if (s->string_value() && *a->string_value() == *s->string_value())
        return false;
    } else if (a->int_value()) {
      if (s->int_value() && *a->int_value() == *s->int_value()) return false;
    } else if (a->bool_value()) {
      if (s->bool_value() && *a->bool_value() == *s->bool_value()) return false;
    } else if (a->version_value()) {
      if (s->version_value() && *a->version_value() == *s->version_value())
        return false;
    } else {
      return false;
    }
  }
  seen.push_back(a);
  return true;
}

void Constraint::Remove(int slot) {
  if (!applies[slot]) return;
  if (match) {
    --num;
  } else {
    seen.pop_back();
  }
}

const api::DeviceAttribute* LookupAttribute(const api::Device& device,
                                            DeviceIdView id,
                                            const std::string& name) {
  auto it = device.attributes.find(name);
  if (it != device.attributes.end()) return &it->second;
  const size_t slash = name.find('/');
  if (slash == std::string::npos) return nullptr;
  if (name.compare(0, slash, id.driver) != 0 || slash != id.driver.size()) {
    return nullptr;
  }
  it = device.attributes.find(name.substr(slash + 1));
  return it == device.attributes.end() ? nullptr : &it->second;
}

std::string AttributeKey(const api::DeviceAttribute* a) {
  if (a == nullptr) return "-";
  if (a->string_value()) return StrCat("s:", *a->string_value());
  if (a->int_value()) return StrCat("i:", *a->int_value());
  if (a->bool_value()) return *a->bool_value() ? "b:true" : "b:false";
  if (a->version_value()) return StrCat("v:", *a->version_value());
  std::string out = "l:";
  for (int64_t v : a->ints()) StrAppend(&out, v, ",");
  for (bool v : a->bools()) StrAppend(&out, v ? "true" : "false", ",");
  for (const std::string& v : a->strings()) StrAppend(&out, v, ",");
  for (const std::string& v : a->versions()) StrAppend(&out, v, ",");
  return out;
}

AllocatorCache::AllocatorCache() : scratch_(std::make_unique<Scratch>()) {}
AllocatorCache::~AllocatorCache() = default;

NodeView& AllocatorCache::ViewFor(Catalog& catalog, const api::Node& node,
                                  const Features& features) {
  // Pools depend on the node's name and labels only.
  CachedView& cached = views_[node.metadata.name];
  if (cached.view != nullptr && cached.labels == node.metadata.labels) {
    return *cached.view;
  }
  cached.labels = node.metadata.labels;
  cached.view = std::make_unique<NodeView>();
  NodeView& view = *cached.view;
  auto pools = GatherPools(catalog, node, features);
  if (!pools.ok()) {
    view.error = StrCat("gather pool information: ",
                        std::string(pools.status().message()));
    return view;
  }
  view.pools = *std::move(pools);
  for (int p = 0; p < static_cast<int>(view.pools.size()); ++p) {
    const Pool& pool = view.pools[p];
    if (pool.incomplete || pool.invalid) continue;
    for (uint32_t s : pool.device_slices) {
      const Catalog::Slice& slice = catalog.slice(s);
      for (size_t i = 0; i < slice.slice.spec.devices.size(); ++i) {
        LocalDevice d;
        d.global = slice.first_device + static_cast<uint32_t>(i);
        d.pool = p;
        d.device = &slice.slice.spec.devices[i];
        d.slice = &slice.slice;
        view.devices.push_back(d);
      }
    }
  }
  view.available_counters.resize(view.pools.size());
  view.over_consumed.resize(view.pools.size());
  return view;
}

const DeviceState& AllocatorCache::StateOf(const Catalog& catalog,
                                           const AllocatedState& state,
                                           uint32_t global) {
  if (state.Version() != state_version_ ||
      state_stamp_.size() != catalog.num_devices()) {
    state_version_ = state.Version();
    if (++current_stamp_ == 0 || state_stamp_.size() != catalog.num_devices()) {
      state_stamp_.assign(catalog.num_devices(), 0);
      device_states_.resize(catalog.num_devices());
      current_stamp_ = 1;
    }
  }
  DeviceState& st = device_states_[global];
  if (state_stamp_[global] != current_stamp_) {
    state_stamp_[global] = current_stamp_;
    const AllocatedState::Entry* e = state.Find(catalog.device_id(global));
    st = e == nullptr ? DeviceState{}
                      : DeviceState{e->exclusive, e->shared, e->aggregated};
  }
  return st;
}

std::string SearchState::ClaimName(int claim) const {
  const api::ObjectMeta& m = claims[claim]->metadata;
  return m.namespace_.empty() ? m.name : StrCat(m.namespace_, "/", m.name);
}

bool SearchState::AllocatingForClaim(int dev, int claim) const {
  const auto& v = allocating[dev];
  return std::find(v.begin(), v.end(), claim) != v.end();
}

namespace {

// A request (sub == nullptr) or subrequest `sub` of request `request`.
RequestData NewRequestData(
    int claim, const std::string& request, const std::string* sub,
    const std::string& class_name,
    const std::vector<api::DeviceSelector>& selectors,
    const std::vector<api::DeviceToleration>& tolerations,
    const std::optional<api::CapacityRequirements>& capacity,
    const std::string& mode, int64_t count) {
  RequestData rd;
  rd.claim = claim;
  rd.is_sub = sub != nullptr;
  rd.name = sub != nullptr ? *sub : request;
  rd.full_name = sub != nullptr ? StrCat(request, "/", *sub) : request;
  rd.base_name = request;
  if (sub != nullptr) rd.sub_name = *sub;
  rd.class_name = class_name;
  rd.selectors = &selectors;
  rd.tolerations = &tolerations;
  rd.capacity = capacity ? &*capacity : nullptr;
  rd.mode = mode;
  rd.count = count;
  return rd;
}

}  // namespace

std::string SearchState::Prepare() {
  selection.clear();
  requests.resize(claims.size());
  constraints.resize(claims.size());
  int slots = 0;
  for (int ci = 0; ci < static_cast<int>(claims.size()); ++ci) {
    const api::ResourceClaim& claim = *claims[ci];
    auto claim_name = [&] { return ClaimName(ci); };
    int min_per_claim = 0;
    auto& claim_requests = requests[ci];
    claim_requests.resize(claim.spec.devices.requests.size());
    for (size_t ri = 0; ri < claim.spec.devices.requests.size(); ++ri) {
      const api::DeviceRequest& request = claim.spec.devices.requests[ri];
      const bool has_subs = !request.first_available.empty();
      if (!features.prioritized_list && has_subs) {
        return StrCat("claim ", claim_name(), ", request ", request.name,
                      ": has subrequests, but the DRAPrioritizedList feature "
                      "is disabled");
      }
      if (!features.consumable_capacity) {
        if (request.exactly && request.exactly->capacity) {
          return StrCat("claim ", claim_name(), ", request ", request.name,
                        ": has capacity requests, but the "
                        "DRAConsumableCapacity feature is disabled");
        }
        for (const api::DeviceSubRequest& sub : request.first_available) {
          if (sub.capacity) {
            return StrCat("claim ", claim_name(), ", subrequest ", sub.name,
                          ": has capacity requests, but the "
                          "DRAConsumableCapacity feature is disabled");
          }
        }
      }
      auto& alternatives = claim_requests[ri];
      int min_per_request;
      if (has_subs) {
        min_per_request = std::numeric_limits<int>::max();
        for (const api::DeviceSubRequest& sub : request.first_available) {
          RequestData rd = NewRequestData(
              ci, request.name, &sub.name, sub.device_class_name, sub.selectors,
              sub.tolerations, sub.capacity, sub.allocation_mode, sub.count);
          rd.slot = slots++;
          if (auto err = ValidateRequest(ci, rd); !err.empty()) return err;
          min_per_request = std::min(min_per_request, rd.num_devices);
          alternatives.push_back(std::move(rd));
        }
      } else {
        if (!request.exactly) {
          return StrCat("claim ", claim_name(), ", request ", request.name,
                        ": missing device class name (unsupported request "
                        "type?)");
        }
        const api::ExactDeviceRequest& e = *request.exactly;
        RequestData rd = NewRequestData(
            ci, request.name, nullptr, e.device_class_name, e.selectors,
            e.tolerations, e.capacity, e.allocation_mode, e.count);
        rd.admin = e.admin_access.value_or(false);
        rd.has_admin_field = e.admin_access.has_value();
        rd.slot = slots++;
        if (auto err = ValidateRequest(ci, rd); !err.empty()) return err;
        min_per_request = rd.num_devices;
        alternatives.push_back(std::move(rd));
      }
      if (min_per_request > kMaxResults - min_per_claim) {
        return StrCat("claim ", claim_name(), ", request ", request.name,
                      ": adding ", min_per_request,
                      " devices exceeds the claim limit of ", kMaxResults,
                      ", with ", min_per_claim, " already accounted for");
      }
      min_per_claim += min_per_request;
    }
    auto& claim_constraints = constraints[ci];
    for (size_t i = 0; i < claim.spec.devices.constraints.size(); ++i) {
      const api::DeviceConstraint& c = claim.spec.devices.constraints[i];
      Constraint constraint;
      constraint.requests = c.requests;
      if (c.match_attribute) {
        constraint.match = true;
        constraint.attribute = *c.match_attribute;
      } else if (c.distinct_attribute) {
        constraint.match = false;
        constraint.attribute = *c.distinct_attribute;
      } else {
        return StrCat("claim ", claim_name(), ", constraint #", i,
                      ": empty constraint (unsupported constraint type?)");
      }
      claim_constraints.push_back(std::move(constraint));
    }
  }
  selection.resize(static_cast<size_t>(slots) * devices.size(), 2);
  for (int ci = 0; ci < static_cast<int>(claims.size()); ++ci) {
    for (Constraint& c : constraints[ci]) {
      c.applies.assign(slots, 0);
      for (const auto& alternatives : requests[ci]) {
        for (const RequestData& rd : alternatives) {
          c.applies[rd.slot] = c.Applies(rd.base_name, rd.sub_name) ? 1 : 0;
        }
      }
      c.column = &cache.Column(catalog, c.attribute);
    }
  }
  in_all_list.assign(devices.size(), false);
  counters_fit.assign(devices.size(), -1);
  for (const auto& claim_requests : requests) {
    for (const auto& alternatives : claim_requests) {
      for (const RequestData& rd : alternatives) {
        for (int dev : rd.all_devices) in_all_list[dev] = true;
      }
    }
  }
  return "";
}

// Upstream validateDeviceRequest.
std::string SearchState::ValidateRequest(int claim, RequestData& rd) {
  auto claim_name = [&] { return ClaimName(claim); };
  for (size_t i = 0; i < rd.selectors->size(); ++i) {
    if (!(*rd.selectors)[i].cel) {
      return StrCat("claim ", claim_name(), ", request ", rd.name,
                    ", selector #", i,
                    ": CEL expression empty (unsupported selector type?)");
    }
  }
  if (!features.admin_access && rd.has_admin_field) {
    return StrCat("claim ", claim_name(), ", request ", rd.name,
                  ": admin access is requested, but the feature is disabled");
  }
  if (rd.class_name.empty()) {
    return StrCat("claim ", claim_name(), ", request ", rd.name,
                  ": missing device class name (unsupported request type?)");
  }
  rd.cls = catalog.FindClass(rd.class_name);
  if (rd.cls == nullptr) {
    return StrCat("claim ", claim_name(), ", request ", rd.name,
                  ": could not retrieve device class ", rd.class_name,
                  ": deviceclass.resource.k8s.io \"", rd.class_name,
                  "\" not found");
  }
  for (const api::DeviceSelector& s : rd.cls->spec.selectors) {
    rd.class_selectors.push_back(s.cel ? catalog.SelectorId(s.cel->expression)
                                       : -1);
  }
  for (const api::DeviceSelector& s : *rd.selectors) {
    rd.request_selectors.push_back(catalog.SelectorId(s.cel->expression));
  }

  if (rd.mode == api::kDeviceAllocationModeExactCount) {
    rd.num_devices = static_cast<int>(
        std::clamp<int64_t>(rd.count, std::numeric_limits<int>::min(),
                            std::numeric_limits<int>::max()));
    return "";
  }
  if (rd.mode != api::kDeviceAllocationModeAll) {
    return StrCat("claim ", claim_name(), ", request ", rd.name,
                  ": unsupported count mode ", rd.mode);
  }
  // The memo is not sized yet: evaluate through a temporary slot table.
  if (selection.size() < static_cast<size_t>(rd.slot + 1) * devices.size()) {
    selection.resize(static_cast<size_t>(rd.slot + 1) * devices.size(), 2);
  }
  int dev = 0;
  for (const Pool& pool : pools) {
    if (pool.incomplete) {
      return StrCat("claim ", claim_name(), ", request ", rd.name,
                    ": asks for all devices, but resource pool ",
                    pool.IdString(), " is currently being updated");
    }
    if (pool.invalid) {
      return StrCat("claim ", claim_name(), ", request ", rd.name,
                    ": asks for all devices, but resource pool ",
                    pool.IdString(), " is currently invalid");
    }
    for (uint32_t s : pool.device_slices) {
      const size_t n = catalog.slice(s).slice.spec.devices.size();
      for (size_t i = 0; i < n; ++i, ++dev) {
        const std::string* err = nullptr;
        const int sel = Selectable(rd, dev, &err);
        if (sel < 0) return *err;
        if (sel == 0) continue;
        if (features.consumable_capacity) {
          const api::Device& d = *devices[dev].device;
          auto fits = PlanFits(Plan(rd, dev), nullptr, d.capacity, nullptr);
          if (!fits.ok()) {
            return StrCat("claim ", claim_name(), ", request ", rd.name,
                          ": checking capacity for device ", d.name, ": ",
                          std::string(fits.status().message()));
          }
          if (!*fits) continue;
        }
        rd.all_devices.push_back(dev);
      }
    }
  }
  rd.num_devices = static_cast<int>(rd.all_devices.size());
  return "";
}

int SearchState::Selectable(const RequestData& rd, int dev,
                            const std::string** error) {
  const LocalDevice& d = devices[dev];
  if (!features.device_binding_and_status &&
      !d.device->rare->binding_conditions.empty()) {
    return 0;
  }
  const int64_t key =
      static_cast<int64_t>(rd.slot) * static_cast<int64_t>(devices.size()) +
      dev;
  if (static_cast<size_t>(key) >= selection.size()) {
    selection.resize(static_cast<size_t>(key) + 1, 2);
  }
  int8_t& memo = selection[key];
  if (memo != 2) {
    if (memo < 0) *error = &selection_errors.at(key);
    return memo;
  }
  auto fail = [&](std::string message) {
    memo = -1;
    auto [it, inserted] =
        selection_errors.insert_or_assign(key, std::move(message));
    *error = &it->second;
    return -1;
  };
  for (size_t i = 0; i < rd.class_selectors.size(); ++i) {
    const int sel = rd.class_selectors[i];
    if (sel < 0) {
      return fail(
          StrCat("class ", rd.cls->metadata.name, ", selector #", i,
                 ": CEL expression empty (unsupported selector type?)"));
    }
    if (const std::string* ce = catalog.CompileError(sel)) {
      return fail(StrCat("class ", rd.cls->metadata.name, ": selector #", i,
                         ": CEL compile error: ", *ce));
    }
    const std::string* re = nullptr;
    const int r = catalog.Evaluate(sel, d.global, &re);
    if (r < 0) {
      return fail(StrCat("class ", rd.cls->metadata.name, ": selector #", i,
                         " on device ", d.id().ToString(),
                         ": CEL runtime error: ", *re));
    }
    if (r == 0) return memo = 0;
  }
  for (size_t i = 0; i < rd.request_selectors.size(); ++i) {
    const int sel = rd.request_selectors[i];
    // The claim is found by the request's slot owner; the message names it.
    if (const std::string* ce = catalog.CompileError(sel)) {
      return fail(StrCat("claim ", ClaimName(rd.claim), ": selector #", i,
                         ": CEL compile error: ", *ce));
    }
    const std::string* re = nullptr;
    const int r = catalog.Evaluate(sel, d.global, &re);
    if (r < 0) {
      return fail(StrCat("claim ", ClaimName(rd.claim), ": selector #", i,
                         " on device ", d.id().ToString(),
                         ": CEL runtime error: ", *re));
    }
    if (r == 0) return memo = 0;
  }
  if (d.slice->spec.per_device_node_selection.value_or(false)) {
    auto m = NodeMatches(node, d.device->rare->node_name.value_or(""),
                         d.device->rare->all_nodes.value_or(false),
                         d.device->rare->node_selector
                             ? &*d.device->rare->node_selector
                             : nullptr);
    if (!m.ok()) {
      return fail(StrCat("failed to parse node selector ",
                         NodeSelectorGoString(*d.device->rare->node_selector),
                         ": ", std::string(m.status().message())));
    }
    if (!*m) return memo = 0;
  }
  return memo = 1;
}

int AllocatorCache::CounterClass(const Catalog& catalog, uint32_t global) {
  if (counter_classes_.size() != catalog.num_devices()) {
    counter_classes_.assign(catalog.num_devices(), -1);
  }
  int& cls = counter_classes_[global];
  if (cls >= 0) return cls;
  std::string key;
  for (const auto& c : catalog.device(global).rare->consumes_counters) {
    StrAppend(&key, c.counter_set, "{");
    for (const auto& [name, v] : c.counters) {
      StrAppend(&key, name, "=", v.value.ToString(), ",");
    }
    key.push_back('}');
  }
  auto [it, inserted] = counter_class_ids_.emplace(
      std::move(key), static_cast<int>(counter_class_ids_.size()));
  cls = it->second;
  return cls;
}

AttributeColumn& AllocatorCache::Column(const Catalog& catalog,
                                        const std::string& name) {
  auto& column = columns_[name];
  if (column == nullptr) column = std::make_unique<AttributeColumn>();
  if (column->known.size() != catalog.num_devices()) {
    column->attribute.assign(catalog.num_devices(), nullptr);
    column->value.assign(catalog.num_devices(), -1);
    column->known.assign(catalog.num_devices(), 0);
  }
  return *column;
}

void AllocatorCache::FillColumn(const Catalog& catalog, const std::string& name,
                                AttributeColumn& column, uint32_t global) {
  column.known[global] = 1;
  const api::DeviceAttribute* a =
      LookupAttribute(catalog.device(global), catalog.device_id(global), name);
  column.attribute[global] = a;
  if (a == nullptr) {
    column.value[global] = -1;
    return;
  }
  auto [it, inserted] =
      value_ids_.emplace(AttributeKey(a), static_cast<int>(value_ids_.size()));
  column.value[global] = it->second;
}

const CapacityPlan& AllocatorCache::DefaultPlan(const Catalog& catalog,
                                                uint32_t global,
                                                bool fractional_range) {
  if (default_plans_.size() != catalog.num_devices()) {
    default_plans_.clear();
    default_plans_.resize(catalog.num_devices());
  }
  auto& plan = default_plans_[global];
  if (!plan) {
    plan = std::make_unique<CapacityPlan>(PlanCapacity(
        nullptr, catalog.device(global).capacity, fractional_range));
  }
  return *plan;
}

const CapacityPlan& SearchState::Plan(const RequestData& rd, int dev) {
  if (rd.capacity == nullptr || rd.capacity->requests.empty()) {
    return cache.DefaultPlan(catalog, devices[dev].global,
                             features.fractional_capacity_range);
  }
  const size_t key = static_cast<size_t>(rd.slot) * devices.size() + dev;
  if (key >= plans.size()) plans.resize(key + 1);
  auto& plan = plans[key];
  if (!plan) {
    plan = std::make_unique<CapacityPlan>(
        PlanCapacity(rd.capacity, devices[dev].device->capacity,
                     features.fractional_capacity_range));
  }
  return *plan;
}

absl::StatusOr<bool> SearchState::CapacityFits(const RequestData& rd, int dev) {
  const auto& allocating = allocating_capacity[dev];
  return PlanFits(Plan(rd, dev), StateOf(dev).aggregated,
                  devices[dev].device->capacity,
                  allocating ? &*allocating : nullptr);
}

bool SearchState::Tolerated(const RequestData& rd, int dev) const {
  for (const api::DeviceTaint& taint : devices[dev].device->rare->taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    bool tolerated = false;
    if (rd.tolerations != nullptr) {
      for (const api::DeviceToleration& t : *rd.tolerations) {
        if (!t.effect.empty() && t.effect != taint.effect) continue;
        if (!t.key.empty() && t.key != taint.key) continue;
        if (t.operator_.empty() || t.operator_ == "Equal") {
          if (t.value != taint.value) continue;
        } else if (t.operator_ != "Exists") {
          continue;
        }
        tolerated = true;
        break;
      }
    }
    if (!tolerated) return false;
  }
  return true;
}

const api::DeviceAttribute* SearchState::ConstraintAttribute(Constraint& c,
                                                             int dev) {
  const uint32_t g = devices[dev].global;
  if (!c.column->known[g]) cache.FillColumn(catalog, c.attribute, *c.column, g);
  return c.column->attribute[g];
}

int SearchState::ConstraintValue(Constraint& c, int dev) {
  const uint32_t g = devices[dev].global;
  if (!c.column->known[g]) cache.FillColumn(catalog, c.attribute, *c.column, g);
  return c.column->value[g];
}

const CounterSets& SearchState::AvailableCounters(int p) {
  if (view.counters_state != state.Version()) {
    view.counters_state = state.Version();
    for (auto& c : view.available_counters) c.reset();
  }
  auto& cached = view.available_counters[p];
  if (cached) return *cached;
  CounterSets available;
  const Pool& pool = pools[p];
  for (const auto& [name, set] : pool.counter_sets) {
    auto& counters = available[name];
    for (const auto& [counter, value] : set->counters) {
      counters.emplace(counter, value.value);
    }
  }
  for (const auto* group : {&pool.device_slices, &pool.other_slices}) {
    for (uint32_t s : *group) {
      const Catalog::Slice& slice = catalog.slice(s);
      for (size_t i = 0; i < slice.slice.spec.devices.size(); ++i) {
        const api::Device& d = slice.slice.spec.devices[i];
        if (d.rare->consumes_counters.empty()) continue;
        if (!state.IsAllocated(catalog.device_id(slice.first_device + i))) {
          continue;
        }
        for (const api::DeviceCounterConsumption& c :
             d.rare->consumes_counters) {
          auto set = available.find(c.counter_set);
          if (set == available.end()) continue;
          for (const auto& [counter, value] : c.counters) {
            auto it = set->second.find(counter);
            if (it == set->second.end()) continue;
            (void)it->second.Sub(value.value);
          }
        }
      }
    }
  }
  bool negative = false;
  for (const auto& [set_name, counters] : available) {
    for (const auto& [name, value] : counters) {
      if (value.Sign() < 0) negative = true;
    }
  }
  view.over_consumed[p] = negative ? 1 : 0;
  cached = std::move(available);
  return *cached;
}

bool SearchState::PoolOverConsumed(int pool) {
  AvailableCounters(pool);
  return view.over_consumed[pool] != 0;
}

bool SearchState::CountersCouldFit(int dev) {
  int8_t& memo = counters_fit[dev];
  if (memo < 0) memo = CountersFitAlone(dev) ? 1 : 0;
  return memo == 1;
}

bool SearchState::CountersFitAlone(int dev) {
  const LocalDevice& d = devices[dev];
  const CounterSets& available = AvailableCounters(d.pool);
  if (PoolOverConsumed(d.pool)) return false;
  for (const auto& c : d.device->rare->consumes_counters) {
    auto set = available.find(c.counter_set);
    if (set == available.end()) continue;
    for (const auto& [name, counter] : c.counters) {
      auto it = set->second.find(name);
      if (it == set->second.end()) continue;
      // Every consumption of this set counts (a device may list a set
      // twice in invalid input; upstream adds them all).
      Quantity used;
      for (const auto& other : d.device->rare->consumes_counters) {
        if (other.counter_set != c.counter_set) continue;
        auto o = other.counters.find(name);
        if (o != other.counters.end()) (void)used.Add(o->second.value);
      }
      if (it->second.Compare(used) < 0) return false;
    }
  }
  return true;
}

void SearchState::InsertAllocatingCapacity(int dev,
                                           const CapacityMap& consumed) {
  auto& entry = allocating_capacity[dev];
  if (!entry) {
    entry = consumed;
    return;
  }
  for (const auto& [name, q] : consumed) {
    auto it = entry->find(name);
    if (it == entry->end()) {
      entry->emplace(name, q);
    } else {
      (void)it->second.Add(q);
    }
  }
}

void SearchState::RemoveAllocatingCapacity(int dev,
                                           const CapacityMap& consumed) {
  auto& entry = allocating_capacity[dev];
  if (!entry) return;
  for (const auto& [name, q] : consumed) {
    auto it = entry->find(name);
    if (it != entry->end()) (void)it->second.Sub(q);
  }
  for (const auto& [name, q] : *entry) {
    if (!q.IsZero()) return;
  }
  entry.reset();
}

}  // namespace draplane::allocator::internal
