#include "allocator/allocation_check.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "allocator/internal/capacity.h"
#include "allocator/internal/node_selection.h"
#include "cel/cel.h"
#include "common/str_cat.h"

namespace draplane::allocator {
namespace {

absl::Status Violation(const std::string& message) {
  return absl::FailedPreconditionError(message);
}

struct Located {
  const api::ResourceSlice* slice = nullptr;
  const api::Device* device = nullptr;
};

bool NodeOk(const api::Node& node, const std::optional<std::string>& name,
            const std::optional<bool>& all,
            const std::optional<api::NodeSelector>& sel) {
  auto m = internal::NodeMatches(node, name.value_or(""), all.value_or(false),
                                 sel ? &*sel : nullptr);
  return m.ok() && *m;
}

// A pool as the node sees it. Slices selecting the node (for per-device
// node selection: one of its devices does; with PartitionableDevices off,
// none with counter sets or per-device selection) decide the generation.
// When they alone do not make up resourceSliceCount, the pool's slices for
// other nodes at that generation complete it, and any newer generation
// anywhere makes it obsolete (upstream's multi-node pools).
struct VisiblePool {
  int64_t generation = INT64_MIN;
  std::vector<const api::ResourceSlice*> visible;  // at `generation`
  std::vector<const api::ResourceSlice*> members;  // the whole pool
  bool usable = false;                             // complete, not obsolete
};
std::map<std::pair<std::string, std::string>, VisiblePool> VisiblePools(
    const AllocationInputs& in) {
  std::map<std::pair<std::string, std::string>, VisiblePool> pools;
  for (const api::ResourceSlice& s : *in.slices) {
    const bool per_device = s.spec.per_device_node_selection.value_or(false);
    if (!in.features.partitionable_devices &&
        (s.spec.per_device_node_selection.has_value() ||
         !s.spec.shared_counters.empty())) {
      continue;
    }
    bool visible = false;
    if (per_device && !s.spec.node_name && !s.spec.all_nodes &&
        !s.spec.node_selector) {
      for (const api::Device& d : s.spec.devices) {
        visible = visible || NodeOk(*in.node, d.rare->node_name,
                                    d.rare->all_nodes, d.rare->node_selector);
      }
    } else {
      visible = NodeOk(*in.node, s.spec.node_name, s.spec.all_nodes,
                       s.spec.node_selector);
    }
    if (!visible) continue;
    VisiblePool& pool = pools[{s.spec.driver, s.spec.pool.name}];
    if (s.spec.pool.generation > pool.generation) {
      pool.generation = s.spec.pool.generation;
      pool.visible.clear();
    }
    if (s.spec.pool.generation == pool.generation) pool.visible.push_back(&s);
  }
  for (auto& [key, pool] : pools) {
    const int64_t want = pool.visible.front()->spec.pool.resource_slice_count;
    if (static_cast<int64_t>(pool.visible.size()) == want) {
      pool.members = pool.visible;
      pool.usable = true;
      continue;
    }
    bool obsolete = false;
    for (const api::ResourceSlice& s : *in.slices) {
      if (s.spec.driver != key.first || s.spec.pool.name != key.second) {
        continue;
      }
      if (s.spec.pool.generation > pool.generation) obsolete = true;
      if (s.spec.pool.generation == pool.generation) pool.members.push_back(&s);
    }
    pool.usable =
        !obsolete && static_cast<int64_t>(pool.members.size()) == want;
  }
  return pools;
}

// The devices usable on the node, by DeviceId: visible slices of complete
// pools, and for per-device node selection the devices selecting the node.
std::map<std::tuple<std::string, std::string, std::string>, Located>
UsableDevices(const AllocationInputs& in) {
  std::map<std::tuple<std::string, std::string, std::string>, Located> out;
  for (const auto& [key, pool] : VisiblePools(in)) {
    if (!pool.usable) continue;
    for (const api::ResourceSlice* s : pool.visible) {
      const bool per_device = s->spec.per_device_node_selection.value_or(false);
      for (const api::Device& d : s->spec.devices) {
        if (per_device && !NodeOk(*in.node, d.rare->node_name,
                                  d.rare->all_nodes, d.rare->node_selector)) {
          continue;
        }
        out[{key.first, key.second, d.name}] = Located{s, &d};
      }
    }
  }
  return out;
}

const api::DeviceAttribute* Attribute(const api::Device& d,
                                      const std::string& driver,
                                      const std::string& name) {
  if (auto it = d.attributes.find(name); it != d.attributes.end())
    return &it->second;
  const size_t slash = name.find('/');
  if (slash == std::string::npos || name.substr(0, slash) != driver)
    return nullptr;
  auto it = d.attributes.find(name.substr(slash + 1));
  return it == d.attributes.end() ? nullptr : &it->second;
}

std::string Value(const api::DeviceAttribute& a) {
  if (a.string_value()) return StrCat("s", *a.string_value());
  if (a.int_value()) return StrCat("i", *a.int_value());
  if (a.bool_value()) return *a.bool_value() ? "btrue" : "bfalse";
  if (a.version_value()) return StrCat("v", *a.version_value());
  return "?";
}

}  // namespace

namespace {

using DeviceKey = std::tuple<std::string, std::string, std::string>;

// The checks of one CheckAllocation call, with what they accumulate across
// the claims: exclusive users and shared consumption per device, counters
// consumed per pool.
class Checker {
 public:
  explicit Checker(const AllocationInputs& in)
      : in_(in),
        usable_(UsableDevices(in)),
        compiler_(cel::Compiler::Shared(
            cel::DeviceFeatures{in.features.consumable_capacity,
                                in.features.list_type_attributes})) {
    for (const api::DeviceClass& c : *in.classes) {
      classes_[c.metadata.name] = &c;
    }
  }

  absl::Status CheckClaim(const api::ResourceClaim& claim,
                          const api::AllocationResult& result) {
    cname_ = StrCat(claim.metadata.namespace_, "/", claim.metadata.name);
    const auto& rs = result.devices.results;
    if (rs.size() > 32)
      return Violation(StrCat(cname_, ": more than 32 results"));
    if (result.node_selector) {
      auto m =
          internal::NodeMatches(*in_.node, "", false, &*result.node_selector);
      if (!m.ok() || !*m) {
        return Violation(StrCat(cname_, ": node selector excludes the node"));
      }
    }
    in_claim_.clear();
    by_request_.clear();
    for (const auto& r : rs) {
      if (absl::Status s = CheckResult(r); !s.ok()) return s;
    }
    for (const api::DeviceRequest& req : claim.spec.devices.requests) {
      if (absl::Status s = CheckRequest(req); !s.ok()) return s;
    }
    for (const api::DeviceConstraint& c : claim.spec.devices.constraints) {
      if (absl::Status s = CheckConstraint(c, rs); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  // Shared capacity: earlier shares plus the new ones fit every capacity.
  absl::Status CheckSharedCapacity() const {
    for (const auto& [key, use] : shared_use_) {
      const api::Device& dev = *usable_.at(key).device;
      const auto* agg = in_.state->AggregatedCapacity(
          DeviceId{std::get<0>(key), std::get<1>(key), std::get<2>(key)});
      for (const auto& [name, cap] : dev.capacity) {
        Quantity sum;
        if (auto it = use.find(name); it != use.end()) {
          (void)sum.Add(it->second);
        }
        if (agg != nullptr) {
          if (auto it = agg->find(name); it != agg->end()) {
            (void)sum.Add(it->second);
          }
        }
        if (sum.Compare(cap.value) > 0) {
          return Violation(
              StrCat(std::get<2>(key), ": capacity ", name, " exceeded"));
        }
      }
    }
    return absl::OkStatus();
  }

  // Counters: the pool's sets minus what allocated devices and the new
  // results consume never go below zero.
  absl::Status CheckCounters() const {
    const auto visible = VisiblePools(in_);
    for (const auto& [pool, sets] : counters_) {
      std::map<std::string, std::map<std::string, Quantity>> left;
      std::map<std::string, std::map<std::string, Quantity>> used = sets;
      for (const api::ResourceSlice* slice : visible.at(pool).members) {
        const api::ResourceSlice& s = *slice;
        for (const auto& set : s.spec.shared_counters) {
          for (const auto& [name, v] : set.counters) {
            left[set.name][name] = v.value;
          }
        }
        for (const api::Device& d : s.spec.devices) {
          if (!in_.state->IsAllocated(
                  DeviceId{pool.first, pool.second, d.name})) {
            continue;
          }
          for (const auto& c : d.rare->consumes_counters) {
            for (const auto& [name, v] : c.counters) {
              (void)used[c.counter_set][name].Add(v.value);
            }
          }
        }
      }
      for (const auto& [set, cs] : sets) {
        for (const auto& [name, q] : cs) {
          auto sit = left.find(set);
          if (sit == left.end() || !sit->second.contains(name)) {
            return Violation(
                StrCat(pool.second, ": unknown counter ", set, "/", name));
          }
          if (used[set][name].Compare(sit->second.at(name)) > 0) {
            return Violation(
                StrCat(pool.second, ": counter ", set, "/", name, " exceeded"));
          }
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  // One device result: usable, not taken twice, shared with a shareID,
  // its taints tolerated; records its consumption.
  absl::Status CheckResult(const api::DeviceRequestAllocationResult& r) {
    DeviceKey key = std::make_tuple(r.driver, r.pool, r.device);
    auto loc = usable_.find(key);
    const std::string dname = StrCat(r.driver, "/", r.pool, "/", r.device);
    if (loc == usable_.end()) {
      return Violation(
          StrCat(cname_, ": ", dname, " is not a usable device on the node"));
    }
    const api::Device& dev = *loc->second.device;
    const bool admin = r.admin_access.value_or(false);
    const bool multiple = in_.features.consumable_capacity &&
                          dev.rare->allow_multiple_allocations.value_or(false);
    DeviceId id{r.driver, r.pool, r.device};
    if (!admin && !multiple) {
      if (in_.state->IsExclusive(id)) {
        return Violation(
            StrCat(cname_, ": ", dname, " is allocated to another claim"));
      }
      if (++exclusive_users_[key] > 1) {
        return Violation(StrCat(cname_, ": ", dname, " allocated twice"));
      }
    }
    if (admin && !in_claim_.insert(key).second) {
      return Violation(StrCat(cname_, ": ", dname, " twice in one claim"));
    }
    if (multiple) {
      if (!r.share_id) {
        return Violation(
            StrCat(cname_, ": ", dname, " shared without shareID"));
      }
      auto& use = shared_use_[key];
      for (const auto& [name, q] : r.consumed_capacity) {
        auto it = use.find(name);
        if (it == use.end()) {
          use.emplace(name, q);
        } else {
          (void)it->second.Add(q);
        }
      }
    }
    // Counters: every non-admin, non-shared result consumes its device's.
    if (!multiple && !admin) {
      auto& pool = counters_[{r.driver, r.pool}];
      for (const auto& c : dev.rare->consumes_counters) {
        for (const auto& [name, v] : c.counters) {
          (void)pool[c.counter_set][name].Add(v.value);
        }
      }
    }
    const std::string base = r.request.substr(0, r.request.find('/'));
    by_request_[base].push_back(&r);
    return CheckTaints(r, dev, dname);
  }

  absl::Status CheckTaints(const api::DeviceRequestAllocationResult& r,
                           const api::Device& dev,
                           const std::string& dname) const {
    if (!in_.features.device_taints) return absl::OkStatus();
    for (const api::DeviceTaint& t : dev.rare->taints) {
      if (t.effect != "NoSchedule" && t.effect != "NoExecute") continue;
      bool ok = false;
      for (const auto& tol : r.tolerations) {
        if (!tol.effect.empty() && tol.effect != t.effect) continue;
        if (!tol.key.empty() && tol.key != t.key) continue;
        if (tol.operator_ == "Exists" ||
            ((tol.operator_.empty() || tol.operator_ == "Equal") &&
             tol.value == t.value)) {
          ok = true;
        }
      }
      if (!ok) {
        return Violation(
            StrCat(cname_, ": ", dname, " has untolerated taint ", t.key));
      }
    }
    return absl::OkStatus();
  }

  // One request: one subrequest, the right count, selectors true.
  absl::Status CheckRequest(const api::DeviceRequest& req) {
    const auto& got = by_request_[req.name];
    std::string chosen = req.name;
    std::string class_name;
    const std::vector<api::DeviceSelector>* selectors = nullptr;
    std::string mode;
    int64_t count = 0;
    if (req.exactly) {
      class_name = req.exactly->device_class_name;
      selectors = &req.exactly->selectors;
      mode = req.exactly->allocation_mode;
      count = req.exactly->count;
    } else {
      if (got.empty()) {
        return Violation(
            StrCat(cname_, ": request ", req.name, " got nothing"));
      }
      chosen = got[0]->request;
      for (const auto& sub : req.first_available) {
        if (StrCat(req.name, "/", sub.name) == chosen) {
          class_name = sub.device_class_name;
          selectors = &sub.selectors;
          mode = sub.allocation_mode;
          count = sub.count;
        }
      }
      if (selectors == nullptr) {
        return Violation(StrCat(cname_, ": unknown subrequest ", chosen));
      }
    }
    for (const auto* r : got) {
      if (r->request != chosen) {
        return Violation(StrCat(cname_, ": request ", req.name, " mixes ",
                                chosen, " and ", r->request));
      }
    }
    if (mode == "ExactCount" && static_cast<int64_t>(got.size()) != count) {
      return Violation(StrCat(cname_, ": request ", chosen, " got ", got.size(),
                              " devices, wants ", count));
    }
    if (mode == "All" && got.empty()) {
      return Violation(
          StrCat(cname_, ": request ", chosen, " (All) got nothing"));
    }
    auto cls = classes_.find(class_name);
    if (cls == classes_.end()) {
      return Violation(StrCat(cname_, ": unknown class ", class_name));
    }
    std::vector<std::string> exprs;
    for (const auto& s : cls->second->spec.selectors) {
      exprs.push_back(s.cel->expression);
    }
    for (const auto& s : *selectors) exprs.push_back(s.cel->expression);
    for (const auto* r : got) {
      const api::Device& dev =
          *usable_.at({r->driver, r->pool, r->device}).device;
      auto cd = cel::Device::Create(r->driver, dev);
      if (!cd.ok()) return Violation(std::string(cd.status().message()));
      for (const std::string& e : exprs) {
        auto p = compiler_.CompileSelector(e);
        if (!p.ok()) return Violation(StrCat("selector does not compile: ", e));
        auto m = (*p)->Matches(*cd);
        if (!m.ok() || !*m) {
          return Violation(
              StrCat(cname_, ": ", r->device, " does not satisfy ", e));
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckConstraint(
      const api::DeviceConstraint& c,
      const std::vector<api::DeviceRequestAllocationResult>& rs) const {
    const std::string attr = c.match_attribute
                                 ? *c.match_attribute
                                 : c.distinct_attribute.value_or("");
    std::vector<std::string> values;
    for (const auto& r : rs) {
      const std::string base = r.request.substr(0, r.request.find('/'));
      bool applies = c.requests.empty();
      for (const auto& name : c.requests) {
        if (name == base || name == r.request) applies = true;
      }
      if (!applies) continue;
      const api::Device& dev = *usable_.at({r.driver, r.pool, r.device}).device;
      const api::DeviceAttribute* a = Attribute(dev, r.driver, attr);
      if (a == nullptr) {
        return Violation(StrCat(cname_, ": ", r.device, " lacks ", attr));
      }
      values.push_back(Value(*a));
    }
    if (c.match_attribute) {
      for (const auto& v : values) {
        if (v != values[0]) {
          return Violation(
              StrCat(cname_, ": matchAttribute ", attr, " differs"));
        }
      }
      return absl::OkStatus();
    }
    std::set<std::string> distinct(values.begin(), values.end());
    if (distinct.size() != values.size()) {
      return Violation(
          StrCat(cname_, ": distinctAttribute ", attr, " repeats"));
    }
    return absl::OkStatus();
  }

  const AllocationInputs& in_;
  const decltype(UsableDevices(
      std::declval<const AllocationInputs&>())) usable_;
  const cel::Compiler& compiler_;
  std::map<std::string, const api::DeviceClass*> classes_;
  // Device -> exclusive users, shared consumption, across all claims.
  std::map<DeviceKey, int> exclusive_users_;
  std::map<DeviceKey, internal::CapacityMap> shared_use_;
  // Pool -> counter set -> counter -> consumed (by new non-shared results).
  std::map<std::pair<std::string, std::string>,
           std::map<std::string, std::map<std::string, Quantity>>>
      counters_;
  // Of the claim being checked: its name, admin-access devices, results
  // per request name.
  std::string cname_;
  std::set<DeviceKey> in_claim_;
  std::map<std::string, std::vector<const api::DeviceRequestAllocationResult*>>
      by_request_;
};

}  // namespace

absl::Status CheckAllocation(
    const AllocationInputs& in,
    const std::vector<api::AllocationResult>& results) {
  if (results.size() != in.claims->size()) {
    return Violation(
        StrCat(results.size(), " results for ", in.claims->size(), " claims"));
  }
  Checker checker(in);
  for (size_t ci = 0; ci < results.size(); ++ci) {
    absl::Status s = checker.CheckClaim(*(*in.claims)[ci], results[ci]);
    if (!s.ok()) return s;
  }
  if (absl::Status s = checker.CheckSharedCapacity(); !s.ok()) return s;
  return checker.CheckCounters();
}

}  // namespace draplane::allocator
