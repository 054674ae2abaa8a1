#include "allocator/device_taint_rules.h"

#include <utility>

namespace draplane::allocator {

std::vector<api::ResourceSlice> ApplyTaintRules(
    std::vector<api::ResourceSlice> slices,
    const std::vector<api::DeviceTaintRule>& rules) {
  for (api::ResourceSlice& slice : slices) {
    for (const api::DeviceTaintRule& rule : rules) {
      if (!rule.spec.device_selector) continue;
      const api::DeviceTaintSelector& sel = *rule.spec.device_selector;
      if (sel.driver && *sel.driver != slice.spec.driver) continue;
      if (sel.pool && *sel.pool != slice.spec.pool.name) continue;
      for (api::Device& d : slice.spec.devices) {
        if (sel.device && *sel.device != d.name) continue;
        d.rare.Mutable().taints.push_back(rule.spec.taint);
      }
    }
  }
  return slices;
}

}  // namespace draplane::allocator
