#include "scheduler/internal/node_views.h"

#include "scheduler/packing_policies.h"

namespace draplane::scheduler::internal {

const NodeView& NodeViews::Of(const NodeCandidate& c) {
  static const NodeView kEmpty;
  if (c.info == nullptr) return kEmpty;
  // The placements of one node are scored one after another.
  if (last_id_ != c.info->id || last_ == nullptr) {
    last_ = &views_[c.info->id];
    last_id_ = c.info->id;
  }
  NodeView& v = *last_;
  const int64_t requested = c.info->usage.requested.milli_cpu;
  if (v.cpu_requested == requested && v.epoch == c.info->epoch) return v;
  v.epoch = c.info->epoch;
  v.cpu_requested = requested;
  v.cpu_left = c.info->allocatable.amounts.milli_cpu - requested;
  v.left.clear();
  v.left_total = 0;
  v.free_gpus = 0;
  v.frag = -1;
  if (c.devices != nullptr) {
    v.model = NodeGpuModel(*c.devices);
    for (const auto& d : *c.devices) {
      v.left.push_back(d.free_milli);
      v.left_total += d.free_milli;
      v.free_gpus += d.free_milli == 1000 ? 1 : 0;
    }
  }
  v.model_id = ModelId(v.model);
  return v;
}

void NodeViews::Bound(size_t live_nodes) {
  if (views_.size() <= 2 * live_nodes + 64) return;
  views_.clear();
  last_ = nullptr;
  last_id_ = 0;
}

int NodeViews::ModelId(std::string_view model) {
  auto [it, inserted] = model_ids_.try_emplace(
      std::string(model), static_cast<int>(model_ids_.size()));
  return it->second;
}

}  // namespace draplane::scheduler::internal
