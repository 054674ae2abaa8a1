#include "allocator/internal/pools.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "allocator/internal/node_selection.h"
#include "common/str_cat.h"

namespace draplane::allocator::internal {
namespace {

using PoolKey = std::pair<std::string, std::string>;

// Builds the pool from its relevant slices (`slices`) and, when some of its
// slices do not target the node, all slices of its generation (`all`).
Pool BuildPool(const Catalog& catalog, const PoolKey& key,
               std::vector<uint32_t> slices, const std::vector<uint32_t>* all,
               const Features& features) {
  Pool pool;
  pool.driver = key.first;
  pool.name = key.second;
  auto by_name = [&](uint32_t a, uint32_t b) {
    return catalog.slice(a).slice.metadata.name <
           catalog.slice(b).slice.metadata.name;
  };
  std::sort(slices.begin(), slices.end(), by_name);

  std::vector<uint32_t> counter_slices;
  for (uint32_t s : slices) {
    if (features.partitionable_devices &&
        !catalog.slice(s).slice.spec.shared_counters.empty()) {
      counter_slices.push_back(s);
    } else {
      pool.device_slices.push_back(s);
    }
  }
  if (all != nullptr && slices.size() < all->size()) {
    std::set<std::string> targeting;
    for (uint32_t s : slices)
      targeting.insert(catalog.slice(s).slice.metadata.name);
    for (uint32_t s : *all) {
      const api::ResourceSlice& slice = catalog.slice(s).slice;
      if (targeting.contains(slice.metadata.name)) continue;
      if (features.partitionable_devices &&
          !slice.spec.shared_counters.empty()) {
        counter_slices.push_back(s);
      } else {
        pool.other_slices.push_back(s);
      }
    }
  }

  auto invalid = [&](std::string reason) {
    Pool p;
    p.driver = pool.driver;
    p.name = pool.name;
    p.invalid = true;
    p.invalid_reason = std::move(reason);
    return p;
  };

  std::set<std::string> names;
  for (uint32_t s : pool.device_slices) {
    for (const api::Device& d : catalog.slice(s).slice.spec.devices) {
      if (!names.insert(d.name).second) {
        return invalid(StrCat("duplicate device name ", d.name));
      }
    }
  }
  if (!features.partitionable_devices) {
    pool.other_slices.clear();
    return pool;
  }
  for (uint32_t s : counter_slices) {
    for (const api::CounterSet& set :
         catalog.slice(s).slice.spec.shared_counters) {
      if (!pool.counter_sets.emplace(set.name, &set).second) {
        return invalid(StrCat("duplicate counter set name ", set.name));
      }
    }
  }
  for (const auto* group : {&pool.device_slices, &pool.other_slices}) {
    for (uint32_t s : *group) {
      for (const api::Device& d : catalog.slice(s).slice.spec.devices) {
        for (const api::DeviceCounterConsumption& c :
             d.rare->consumes_counters) {
          auto it = pool.counter_sets.find(c.counter_set);
          if (it == pool.counter_sets.end()) {
            return invalid(StrCat("counter set ", c.counter_set, " not found"));
          }
          for (const auto& [counter, value] : c.counters) {
            if (!it->second->counters.contains(counter)) {
              return invalid(StrCat("counter ", counter,
                                    " not found in counter set ",
                                    it->second->name));
            }
          }
        }
      }
    }
  }
  return pool;
}

bool HasBindingConditions(const Catalog& catalog, const Pool& pool) {
  for (uint32_t s : pool.device_slices) {
    for (const api::Device& d : catalog.slice(s).slice.spec.devices) {
      if (!d.rare->binding_conditions.empty()) return true;
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<std::vector<Pool>> GatherPools(const Catalog& catalog,
                                              const api::Node& node,
                                              const Features& features) {
  // Pools in first-seen order; each with its slices of the newest generation.
  std::vector<PoolKey> order;
  absl::flat_hash_map<PoolKey, std::vector<uint32_t>> pools;

  for (uint32_t s : catalog.SlicesForNode(node.metadata.name)) {
    const api::ResourceSliceSpec& spec = catalog.slice(s).slice.spec;
    if (!features.partitionable_devices &&
        (spec.per_device_node_selection.has_value() ||
         !spec.shared_counters.empty())) {
      continue;
    }
    const std::string node_name = spec.node_name.value_or("");
    const bool all_nodes = spec.all_nodes.value_or(false);
    bool relevant = false;
    if (!node_name.empty() || all_nodes || spec.node_selector.has_value()) {
      auto match =
          NodeMatches(node, node_name, all_nodes,
                      spec.node_selector ? &*spec.node_selector : nullptr);
      if (!match.ok()) {
        return absl::InvalidArgumentError(
            StrCat("failed to perform node selection for slice ",
                   catalog.slice(s).slice.metadata.name,
                   ": failed to parse node selector ",
                   NodeSelectorGoString(*spec.node_selector), ": ",
                   std::string(match.status().message())));
      }
      relevant = *match;
    } else if (spec.per_device_node_selection.value_or(false)) {
      for (const api::Device& d : spec.devices) {
        auto match = NodeMatches(
            node, d.rare->node_name.value_or(""),
            d.rare->all_nodes.value_or(false),
            d.rare->node_selector ? &*d.rare->node_selector : nullptr);
        if (!match.ok()) {
          return absl::InvalidArgumentError(
              StrCat("failed to perform node selection for device ", d.name,
                     " in slice ", catalog.slice(s).slice.metadata.name,
                     ": failed to parse node selector ",
                     NodeSelectorGoString(*d.rare->node_selector), ": ",
                     std::string(match.status().message())));
        }
        if (*match) {
          relevant = true;
          break;
        }
      }
    } else {
      continue;
    }
    if (!relevant) continue;

    PoolKey key{spec.driver, spec.pool.name};
    auto it = pools.find(key);
    if (it == pools.end()) {
      order.push_back(key);
      pools.emplace(key, std::vector<uint32_t>{s});
      continue;
    }
    const int64_t current =
        catalog.slice(it->second.front()).slice.spec.pool.generation;
    if (spec.pool.generation < current) continue;
    if (spec.pool.generation > current) {
      it->second = {s};
      continue;
    }
    it->second.push_back(s);
  }

  std::vector<Pool> result;
  std::vector<Pool> with_binding_conditions;
  auto add = [&](Pool pool) {
    if (!pool.incomplete && !pool.invalid &&
        HasBindingConditions(catalog, pool)) {
      with_binding_conditions.push_back(std::move(pool));
    } else {
      result.push_back(std::move(pool));
    }
  };
  for (const PoolKey& key : order) {
    const std::vector<uint32_t>& slices = pools.at(key);
    const api::ResourcePool& first =
        catalog.slice(slices.front()).slice.spec.pool;
    if (static_cast<int64_t>(slices.size()) == first.resource_slice_count) {
      add(BuildPool(catalog, key, slices, nullptr, features));
      continue;
    }
    // Look at every slice of the pool, also those for other nodes.
    bool obsolete = false;
    std::vector<uint32_t> all;
    for (uint32_t s = 0; s < catalog.slices().size(); ++s) {
      const api::ResourceSliceSpec& spec = catalog.slice(s).slice.spec;
      if (spec.driver != key.first || spec.pool.name != key.second) continue;
      if (spec.pool.generation == first.generation) {
        all.push_back(s);
      } else if (spec.pool.generation > first.generation) {
        obsolete = true;
        break;
      }
    }
    if (obsolete) continue;
    if (static_cast<int64_t>(all.size()) != first.resource_slice_count) {
      Pool pool;
      pool.driver = key.first;
      pool.name = key.second;
      pool.incomplete = true;
      result.push_back(std::move(pool));
      continue;
    }
    add(BuildPool(catalog, key, slices, &all, features));
  }
  auto by_id = [](const Pool& a, const Pool& b) {
    if (a.driver != b.driver) return a.driver < b.driver;
    return a.name < b.name;
  };
  std::sort(result.begin(), result.end(), by_id);
  std::sort(with_binding_conditions.begin(), with_binding_conditions.end(),
            by_id);
  for (Pool& p : with_binding_conditions) result.push_back(std::move(p));
  return result;
}

}  // namespace draplane::allocator::internal
