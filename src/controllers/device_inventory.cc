#include "controllers/device_inventory.h"

#include <optional>
#include <set>
#include <tuple>

#include "cel/cel.h"
#include "common/str_cat.h"

namespace draplane::controllers {

namespace {

using ObjectPtr = std::shared_ptr<const api::Object>;
using DeviceKey = std::tuple<std::string, std::string, std::string>;

std::string Version(const api::ObjectMeta& m) {
  return StrCat(m.uid, "@", m.resource_version);
}

// The slices of complete pools at their newest generation (what the
// allocator sees).
std::vector<const api::ResourceSlice*> UsableSlices(
    const std::vector<ObjectPtr>& slices) {
  struct Pool {
    int64_t generation = -1;
    std::vector<const api::ResourceSlice*> slices;
  };
  std::map<std::pair<std::string, std::string>, Pool> pools;
  for (const ObjectPtr& o : slices) {
    const auto& s = std::get<api::ResourceSlice>(o->value);
    Pool& p = pools[{s.spec.driver, s.spec.pool.name}];
    if (s.spec.pool.generation > p.generation) {
      p.generation = s.spec.pool.generation;
      p.slices.clear();
    }
    if (s.spec.pool.generation == p.generation) p.slices.push_back(&s);
  }
  std::vector<const api::ResourceSlice*> usable;
  for (auto& [key, p] : pools) {
    if (p.slices.empty() ||
        static_cast<int64_t>(p.slices.size()) !=
            p.slices.front()->spec.pool.resource_slice_count) {
      continue;
    }
    usable.insert(usable.end(), p.slices.begin(), p.slices.end());
  }
  return usable;
}

// Allocated devices, and what is left of the shared counters.
struct Availability {
  Availability(const std::vector<const api::ResourceSlice*>& usable,
               const std::vector<ObjectPtr>& claims) {
    for (const ObjectPtr& o : claims) {
      const auto& c = std::get<api::ResourceClaim>(o->value);
      if (!c.status.allocation.has_value()) continue;
      for (const auto& r : c.status.allocation->devices.results) {
        if (r.admin_access.value_or(false)) continue;
        allocated.emplace(r.driver, r.pool, r.device);
      }
    }
    for (const api::ResourceSlice* s : usable) {
      for (const auto& set : s->spec.shared_counters) {
        for (const auto& [name, counter] : set.counters) {
          remaining[{s->spec.driver, s->spec.pool.name, set.name, name}] =
              counter.value;
        }
      }
    }
    for (const api::ResourceSlice* s : usable) {
      for (const auto& d : s->spec.devices) {
        if (allocated.count({s->spec.driver, s->spec.pool.name, d.name}) == 0) {
          continue;
        }
        for (const auto& use : d.rare->consumes_counters) {
          for (const auto& [name, counter] : use.counters) {
            auto it = remaining.find(
                {s->spec.driver, s->spec.pool.name, use.counter_set, name});
            if (it != remaining.end()) (void)it->second.Sub(counter.value);
          }
        }
      }
    }
  }

  // Neither allocated nor short of a counter it consumes.
  bool Available(const api::ResourceSlice& s, const api::Device& d) const {
    if (allocated.count({s.spec.driver, s.spec.pool.name, d.name}) > 0) {
      return false;
    }
    for (const auto& use : d.rare->consumes_counters) {
      for (const auto& [name, counter] : use.counters) {
        auto it = remaining.find(
            {s.spec.driver, s.spec.pool.name, use.counter_set, name});
        if (it == remaining.end() || it->second.Compare(counter.value) < 0) {
          return false;
        }
      }
    }
    return true;
  }

  std::set<DeviceKey> allocated;
  // (driver, pool, counter set, counter) -> remaining
  std::map<std::tuple<std::string, std::string, std::string, std::string>,
           Quantity>
      remaining;
};

}  // namespace

class DeviceInventory::Cache {
 public:
  // A slice's devices converted for CEL (nullopt: conversion failed).
  using Converted = std::vector<std::optional<cel::Device>>;
  std::map<std::string, std::shared_ptr<const Converted>> devices;  // slice
  std::map<std::string,
           std::shared_ptr<
               const absl::StatusOr<std::shared_ptr<const cel::Program>>>>
      programs;  // by expression
  std::map<std::string, std::shared_ptr<const std::vector<bool>>>
      matches;  // "<class version>|<slice version>"
};

DeviceInventory::DeviceInventory() : cache_(std::make_unique<Cache>()) {}
DeviceInventory::~DeviceInventory() = default;

Inventory DeviceInventory::Compute(const std::vector<ObjectPtr>& slices,
                                   const std::vector<ObjectPtr>& classes,
                                   const std::vector<ObjectPtr>& claims) {
  Inventory out;
  const std::vector<const api::ResourceSlice*> usable = UsableSlices(slices);
  const Availability availability(usable, claims);
  const std::set<DeviceKey>& allocated = availability.allocated;
  auto available = [&](const api::ResourceSlice& s, const api::Device& d) {
    return availability.Available(s, d);
  };

  // ---- devices converted for CEL, per slice version
  Cache next;
  std::vector<std::shared_ptr<const Cache::Converted>> converted;
  for (const api::ResourceSlice* s : usable) {
    out.published_devices += static_cast<int64_t>(s->spec.devices.size());
    std::string v = Version(s->metadata);
    auto it = cache_->devices.find(v);
    std::shared_ptr<const Cache::Converted> c;
    if (it != cache_->devices.end()) {
      c = it->second;
    } else {
      auto fresh = std::make_shared<Cache::Converted>();
      for (const auto& d : s->spec.devices) {
        absl::StatusOr<cel::Device> cd = cel::Device::Create(s->spec.driver, d);
        fresh->push_back(cd.ok() ? std::optional<cel::Device>(*std::move(cd))
                                 : std::nullopt);
      }
      c = std::move(fresh);
    }
    next.devices[v] = c;
    converted.push_back(std::move(c));
  }

  // ---- each class against each device
  for (const ObjectPtr& o : classes) {
    const auto& dc = std::get<api::DeviceClass>(o->value);
    const std::string& class_name = dc.metadata.name;
    out.selected[class_name] = 0;
    std::vector<std::shared_ptr<const cel::Program>> programs;
    bool broken = false;
    for (const auto& sel : dc.spec.selectors) {
      if (!sel.cel.has_value()) continue;
      const std::string& expr = sel.cel->expression;
      auto it = cache_->programs.find(expr);
      std::shared_ptr<const absl::StatusOr<std::shared_ptr<const cel::Program>>>
          p;
      if (it != cache_->programs.end()) {
        p = it->second;
      } else {
        p = std::make_shared<
            const absl::StatusOr<std::shared_ptr<const cel::Program>>>(
            cel::Compiler::Default().CompileSelector(expr));
      }
      next.programs[expr] = p;
      if (!p->ok()) {
        out.class_errors.emplace(class_name,
                                 std::string(p->status().message()));
        broken = true;
        break;
      }
      programs.push_back(**p);
    }
    if (broken) continue;
    std::string class_version = Version(dc.metadata);
    for (size_t i = 0; i < usable.size(); ++i) {
      const api::ResourceSlice& s = *usable[i];
      std::string key = StrCat(class_version, "|", Version(s.metadata));
      auto it = cache_->matches.find(key);
      std::shared_ptr<const std::vector<bool>> m;
      if (it != cache_->matches.end()) {
        m = it->second;
      } else {
        auto fresh = std::make_shared<std::vector<bool>>();
        for (const auto& device : *converted[i]) {
          bool ok = device.has_value();
          for (const auto& p : programs) {
            if (!ok) break;
            absl::StatusOr<bool> r = p->Matches(*device);
            ok = r.ok() && *r;
          }
          fresh->push_back(ok);
        }
        m = std::move(fresh);
      }
      next.matches[key] = m;
      for (size_t d = 0; d < s.spec.devices.size(); ++d) {
        if (!(*m)[d]) continue;
        ClassDriverCounts& counts = out.by_class[{class_name, s.spec.driver}];
        ++counts.devices;
        ++out.selected[class_name];
        if (allocated.count({s.spec.driver, s.spec.pool.name,
                             s.spec.devices[d].name}) > 0) {
          ++counts.allocated;
        } else if (available(s, s.spec.devices[d])) {
          ++counts.available;
        }
      }
    }
  }
  *cache_ = std::move(next);
  return out;
}

}  // namespace draplane::controllers
