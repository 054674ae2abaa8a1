// `draplane explain pod|claim`: why a pod or claim is pending, for every
// node of the cluster (or one), computed from a snapshot with the
// scheduler's own filters and the one allocator, the way the scheduler
// decides (its in-memory state is rebuilt from the snapshot: devices in use
// are the claims' allocations; decisions in flight elsewhere are not seen).
//
// For each node: the first node filter that rejects the pod (upstream's
// texts), or the allocator's explanation per claim and request (devices
// offered, what each selector, other claims, taints, capacity, counters
// and constraints removed), or the devices it would get. Problems that
// apply before any node is looked at (a claim missing, being deleted,
// reserved by other pods; a DeviceClass missing) are reported as the
// blocker.
#ifndef DRAPLANE_OPERATOR_TOOLS_PENDING_EXPLAINER_H_
#define DRAPLANE_OPERATOR_TOOLS_PENDING_EXPLAINER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "allocator/explain.h"
#include "api/meta_types.h"
#include "operator_tools/cluster_snapshot.h"

namespace draplane::operator_tools {

struct NodeVerdict {
  std::string node;
  bool fits = false;
  // Why not (node filter reasons, an allocator error), or "" when `claims`
  // says it.
  std::string reason;
  std::vector<allocator::ClaimExplanation> claims;
  // fits: "claim: driver/pool/device" the allocator would hand out.
  std::vector<std::string> devices;
};

struct Explanation {
  std::string kind;  // "pod" | "claim"
  std::string namespace_;
  std::string name;
  // "Pending", "Scheduled on node1 (Running)", "Allocated on node2", ...
  std::string state;
  // Lines of context: the claims and their state, consumers, events.
  std::vector<std::string> facts;
  // A reason that holds on every node (see above), "" if none.
  std::string blocker;
  // Empty when the subject is not pending or `blocker` is set.
  std::vector<NodeVerdict> nodes;
};

struct ExplainOptions {
  std::string node;  // only this node ("" = every node)
};

// Explains many pods and claims of one snapshot, building the
// scheduler's state from it once. Not thread-safe.
class PendingExplainer {
 public:
  // `snapshot` outlives the explainer.
  explicit PendingExplainer(const ClusterSnapshot& snapshot);
  ~PendingExplainer();
  PendingExplainer(const PendingExplainer&) = delete;
  PendingExplainer& operator=(const PendingExplainer&) = delete;

  // NotFound when the pod or claim (or --node) does not exist.
  absl::StatusOr<Explanation> Pod(std::string_view ns, std::string_view name,
                                  const ExplainOptions& options);
  absl::StatusOr<Explanation> Claim(std::string_view ns, std::string_view name,
                                    const ExplainOptions& options);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// One-off forms of the above.
absl::StatusOr<Explanation> ExplainPod(const ClusterSnapshot& snapshot,
                                       std::string_view ns,
                                       std::string_view name,
                                       const ExplainOptions& options);
absl::StatusOr<Explanation> ExplainClaim(const ClusterSnapshot& snapshot,
                                         std::string_view ns,
                                         std::string_view name,
                                         const ExplainOptions& options);

// For people: the state, facts, blocker, then nodes that fit and nodes
// that do not (alike reasons grouped).
std::string ExplanationText(const Explanation& e);
// {"kind", "namespace", "name", "state", "facts", "blocker"?, "nodes":
//  [{"node", "fits", "reason"?, "claims"? (allocator explanations),
//  "devices"?}]}
api::Json ExplanationJson(const Explanation& e);

}  // namespace draplane::operator_tools

#endif  // DRAPLANE_OPERATOR_TOOLS_PENDING_EXPLAINER_H_
