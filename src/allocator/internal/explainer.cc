#include "allocator/internal/explainer.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "common/str_cat.h"

namespace draplane::allocator::internal {
namespace {

constexpr size_t kMaxNamed = 3;

std::string DisplayValue(const std::string& key) {
  // AttributeKey's "s:", "i:", ... prefix is for comparisons only.
  return key.size() > 2 && key[1] == ':' ? key.substr(2) : key;
}

RequestExplanation ExplainRequest(SearchState& s, int claim,
                                  const RequestData& rd) {
  RequestExplanation e;
  e.request = rd.full_name;
  e.device_class = rd.class_name;
  e.mode = rd.mode;
  e.needed =
      rd.mode == api::kDeviceAllocationModeAll ? rd.num_devices : rd.count;
  e.offered = static_cast<int>(s.devices.size());
  for (const Pool& p : s.pools) {
    if (p.incomplete) e.incomplete_pools.push_back(p.IdString());
    if (p.invalid) {
      e.invalid_pools.push_back(
          StrCat(p.IdString(), " (", p.invalid_reason, ")"));
    }
  }

  std::vector<int> kept;
  for (int dev = 0; dev < static_cast<int>(s.devices.size()); ++dev) {
    if (!s.features.device_binding_and_status &&
        !s.devices[dev].device->rare->binding_conditions.empty()) {
      ++e.binding_blocked;
      continue;
    }
    kept.push_back(dev);
  }
  auto filter = [&](int selector, std::string source, std::string expression) {
    std::vector<int> next;
    for (int dev : kept) {
      if (selector >= 0 && s.catalog.CompileError(selector) == nullptr &&
          s.catalog.Evaluate(selector, s.devices[dev].global, nullptr) == 1) {
        next.push_back(dev);
      }
    }
    kept = std::move(next);
    e.selectors.push_back({std::move(source), std::move(expression),
                           static_cast<int>(kept.size())});
  };
  if (rd.cls != nullptr) {
    for (size_t i = 0; i < rd.class_selectors.size(); ++i) {
      const auto& sel = rd.cls->spec.selectors[i];
      filter(rd.class_selectors[i],
             StrCat("class ", rd.class_name, " selector #", i),
             sel.cel ? sel.cel->expression : "");
    }
  }
  for (size_t i = 0; i < rd.request_selectors.size(); ++i) {
    filter(rd.request_selectors[i], StrCat("request selector #", i),
           (*rd.selectors)[i].cel->expression);
  }
  // Per-device node selection and anything else isSelectable checks.
  {
    std::vector<int> next;
    for (int dev : kept) {
      const std::string* err = nullptr;
      if (s.Selectable(rd, dev, &err) == 1) next.push_back(dev);
    }
    kept = std::move(next);
  }
  e.selected = static_cast<int>(kept.size());

  std::set<std::string> holders;
  std::set<std::string> taints;
  std::vector<int> available;
  for (int dev : kept) {
    const LocalDevice& d = s.devices[dev];
    if (!rd.admin && s.StateOf(dev).exclusive) {
      ++e.in_use;
      if (const auto* owners = s.state.Owners(d.id())) {
        holders.insert(owners->begin(), owners->end());
      }
      continue;
    }
    if (s.features.device_taints && !s.Tolerated(rd, dev)) {
      ++e.taint_blocked;
      for (const api::DeviceTaint& t : d.device->rare->taints) {
        if (t.effect == "NoSchedule" || t.effect == "NoExecute") {
          taints.insert(StrCat(t.key, t.value.empty() ? "" : "=", t.value, ":",
                               t.effect));
        }
      }
      continue;
    }
    if (s.features.consumable_capacity) {
      auto fits = RequestFits(s.StateOf(dev).aggregated, rd.capacity,
                              d.device->capacity, nullptr,
                              s.features.fractional_capacity_range);
      if (!fits.ok() || !*fits) {
        ++e.capacity_short;
        continue;
      }
    }
    if (!d.device->rare->consumes_counters.empty() &&
        (!s.features.partitionable_devices || !s.CountersCouldFit(dev))) {
      ++e.counters_short;
      continue;
    }
    available.push_back(dev);
  }
  for (const std::string& h : holders) {
    if (e.in_use_by.size() == kMaxNamed) break;
    e.in_use_by.push_back(h);
  }
  e.taints.assign(taints.begin(), taints.end());
  e.available = static_cast<int>(available.size());

  for (const Constraint& c : s.constraints[claim]) {
    if (!c.Applies(rd.base_name, rd.sub_name)) continue;
    RequestExplanation::Constraint ce;
    ce.kind = c.match ? "matchAttribute" : "distinctAttribute";
    ce.attribute = c.attribute;
    std::map<std::string, int> values;
    for (int dev : available) {
      const LocalDevice& d = s.devices[dev];
      const api::DeviceAttribute* a =
          LookupAttribute(*d.device, d.id(), c.attribute);
      if (a == nullptr) {
        ++ce.missing;
      } else {
        ++values[DisplayValue(AttributeKey(a))];
      }
    }
    ce.values.assign(values.begin(), values.end());
    for (const auto& [value, count] : ce.values) {
      ce.usable = c.match ? std::max(ce.usable, count) : ce.usable + 1;
    }
    e.constraints.push_back(std::move(ce));
  }
  Summarize(e);
  return e;
}

}  // namespace

std::vector<ClaimExplanation> Explain(SearchState& s) {
  std::vector<ClaimExplanation> out;
  for (int ci = 0; ci < static_cast<int>(s.claims.size()); ++ci) {
    ClaimExplanation ce;
    ce.namespace_ = s.claims[ci]->metadata.namespace_;
    ce.name = s.claims[ci]->metadata.name;
    bool each_fits = true;
    for (const auto& alternatives : s.requests[ci]) {
      bool any_fits = false;
      for (const RequestData& rd : alternatives) {
        RequestExplanation e = ExplainRequest(s, ci, rd);
        int usable = e.available;
        for (const auto& c : e.constraints) usable = std::min(usable, c.usable);
        if (e.needed > 0 && usable >= e.needed) any_fits = true;
        ce.requests.push_back(std::move(e));
      }
      each_fits = each_fits && any_fits;
    }
    if (each_fits) {
      ce.combination =
          "every request has enough devices on its own, but not all of them "
          "together: a device serves one request of one claim (unless it "
          "allows multiple allocations), shared counters and capacity are "
          "used up by the earlier picks, and the claim's constraints must "
          "hold across all requests";
    }
    out.push_back(std::move(ce));
  }
  return out;
}

}  // namespace draplane::allocator::internal
