// What the device-comparing scoring policies read of each node, cached per
// node while pods are scored (packing_policies.cc).
#ifndef DRAPLANE_SCHEDULER_INTERNAL_NODE_VIEWS_H_
#define DRAPLANE_SCHEDULER_INTERNAL_NODE_VIEWS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "scheduler/scoring_policy.h"

namespace draplane::scheduler::internal {

// What the policies read of a node, cached per node until its devices
// (epoch) or its cpu requests change.
struct NodeView {
  uint64_t epoch = 0;
  int64_t cpu_requested = -1;
  std::string_view model;
  int model_id = 0;
  int64_t cpu_left = 0;
  std::vector<int64_t> left;  // free share per device
  int64_t left_total = 0;
  int free_gpus = 0;  // devices entirely free
  // fgd: the node's fragmentation and the workload generation it is for
  // (-1 = not computed).
  // A cache filled while scoring, so mutable.
  mutable double frag = -1;
  mutable uint64_t frag_generation = 0;
};

// The views by NodeInfo id. Not thread-safe (one scheduling cycle).
class NodeViews {
 public:
  // The view of the candidate's node, recomputed when the node's epoch or
  // cpu requests changed since it was cached; an empty view when the
  // candidate has no NodeInfo. The reference lives until the next call
  // of Bound().
  const NodeView& Of(const NodeCandidate& c);
  // Forgets every view when more are kept than twice `live_nodes` (plus
  // a slack of 64): the views of removed nodes, whose ids never come
  // back, would otherwise stay for the process's life.
  void Bound(size_t live_nodes);
  // How many views are cached.
  size_t size() const { return views_.size(); }
  // A small dense id per GPU model name ("" included), stable for the
  // object's life.
  int ModelId(std::string_view model);

 private:
  // node_hash_map: `last_` keeps its address while others are added.
  absl::node_hash_map<uint64_t, NodeView> views_;
  absl::flat_hash_map<std::string, int> model_ids_;
  NodeView* last_ = nullptr;
  uint64_t last_id_ = 0;
};

}  // namespace draplane::scheduler::internal

#endif  // DRAPLANE_SCHEDULER_INTERNAL_NODE_VIEWS_H_
