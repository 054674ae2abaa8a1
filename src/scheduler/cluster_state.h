// The scheduler's view of the cluster: nodes, pods, ResourceSlices,
// DeviceClasses, DeviceTaintRules and ResourceClaims as the informers
// deliver them, plus what the scheduler itself has decided but the API does
// not show yet (assumed pods, in-flight claim allocations). From it come
// the one Allocator (rebuilt when slices, classes or taint rules change)
// and the allocated-device state it allocates against, so that concurrent
// decisions never hand out a device twice.
//
// Not thread-safe: the scheduler serialises access.
#ifndef DRAPLANE_SCHEDULER_CLUSTER_STATE_H_
#define DRAPLANE_SCHEDULER_CLUSTER_STATE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "allocator/allocated_state.h"
#include "allocator/allocator.h"
#include "allocator/features.h"
#include "api/object.h"
#include "scheduler/node_filters/node_filters.h"

namespace draplane::scheduler {

using ObjectPtr = std::shared_ptr<const api::Object>;

// "namespace/name" (or "name" for cluster-scoped objects).
std::string ObjectKey(const api::ObjectMeta& meta);

// Whether two allocations name the same devices (driver, pool, device,
// share ID, admin access, consumed capacity), in order.
bool SameDevices(const api::AllocationResult& a,
                 const api::AllocationResult& b);

// The finalizer the scheduler puts on claims it allocates (upstream
// resourceapi.Finalizer).
inline constexpr std::string_view kClaimFinalizer =
    api::kFinalizerDeleteProtection;

class ClusterState {
 public:
  explicit ClusterState(allocator::Features features);
  ~ClusterState();
  ClusterState(const ClusterState&) = delete;
  ClusterState& operator=(const ClusterState&) = delete;

  const allocator::Features& features() const { return features_; }

  // ---- informer input (each takes the object's latest state) ----
  void SetNode(ObjectPtr node);
  void RemoveNode(std::string_view name);
  void SetSlice(ObjectPtr slice);
  void RemoveSlice(std::string_view name);
  void SetDeviceClass(ObjectPtr device_class);
  void RemoveDeviceClass(std::string_view name);
  void SetTaintRule(ObjectPtr rule);
  void RemoveTaintRule(std::string_view name);
  // Namespaces matter only for their resource.kubernetes.io/admin-access
  // label (see AdminAccessAllowed).
  void SetNamespace(const ObjectPtr& ns);
  void RemoveNamespace(std::string_view name);
  // Keeps an assumed (newer, written by the scheduler) claim until the
  // informer delivers that resourceVersion or a later one.
  void SetClaim(ObjectPtr claim);
  void RemoveClaim(std::string_view key);
  // Pods bound to a node count towards that node's usage.
  void SetPod(const ObjectPtr& pod);
  void RemovePod(std::string_view key);

  // ---- the scheduler's own decisions ----
  // A claim object the scheduler has just written (what the API answered):
  // shown instead of the informer's until the informer catches up.
  void AssumeClaim(ObjectPtr claim);
  // Devices reserved for `claim_key` by a decision not yet written
  // (upstream SignalClaimPendingAllocation). Other pods' allocations see
  // them in use; pods sharing the claim wait.
  void AddInFlight(const std::string& claim_key, std::string pod_uid,
                   api::AllocationResult allocation);
  void RemoveInFlight(const std::string& claim_key);
  // The pod uid of the in-flight allocation, or nullptr.
  const std::string* InFlightOwner(std::string_view claim_key) const;
  // Counts `pod` on `node` until the informer shows it bound (or Forget).
  void AssumePod(const api::Pod& pod, const std::string& node);
  void ForgetPod(std::string_view pod_key);

  // ---- queries ----
  struct NodeInfo {
    // Unique per NodeInfo in the process (never reused): keys caches.
    uint64_t id = 0;
    ObjectPtr object;
    const api::Node& node() const { return *node_ptr; }
    const api::Node* node_ptr = nullptr;
    // ComputeNodeAllocatable(node()), kept with the node.
    node_filters::NodeAllocatable allocatable;
    node_filters::NodeFacts facts;  // ComputeNodeFacts(node())
    node_filters::NodeUsage usage;
    int devices_total = 0;  // devices in slices published for this node
    int devices_used = 0;   // of those, allocated (incl. in flight)
    // Bumped whenever something the node's allocation answers depend on
    // changes (the node, its pools' allocations).
    uint64_t epoch = 0;
    // The slices published for this node (spec.nodeName), by slice name.
    std::vector<std::shared_ptr<const api::ResourceSlice>> slices;
  };
  // One device published for a node and how much of it is in use, for
  // device-aware scoring policies.
  struct DeviceUse {
    allocator::DeviceIdView id;
    const api::Device* device;
    // The share of the device still free, in thousandths: 1000 when no
    // allocation uses it, 0 when one has it exclusively; for shared
    // (allowMultipleAllocations) devices, the smallest free share of its
    // capacities (1000 when it has none).
    int64_t free_milli = 1000;
    // The claims ("ns/name") holding the device, nullptr when none.
    const std::vector<std::string>* owners = nullptr;
  };
  // The devices of `node`'s slices in slice then device order, as of now
  // (recomputed when the node's epoch changes).
  const std::vector<DeviceUse>& NodeDevices(const NodeInfo& node);
  // Nodes in a stable order (by name).
  const std::vector<const NodeInfo*>& Nodes();
  const api::ResourceClaim* FindClaim(std::string_view ns,
                                      std::string_view name) const;
  ObjectPtr FindClaimObject(std::string_view ns, std::string_view name) const;
  const api::DeviceClass* FindDeviceClass(std::string_view name) const;
  // Whether namespace `ns` is known and labelled
  // resource.kubernetes.io/admin-access=true: only its claims may be
  // allocated with adminAccess (the API server's admission refuses the
  // others; the scheduler checks again, as defence in depth).
  bool AdminAccessAllowed(std::string_view ns) const;
  ObjectPtr FindPod(std::string_view key) const;

  // The allocator over the current slices and classes (rebuilt lazily).
  allocator::Allocator& Allocator();
  // Devices in use: allocated claims plus in-flight allocations.
  const allocator::AllocatedState& Allocated();
  // Changes when slices, classes, taint rules or any allocation outside a
  // single node's pools change: together with NodeInfo::epoch it keys
  // cached per-node allocation answers.
  uint64_t GlobalEpoch() const { return global_epoch_; }

 private:
  struct ClaimEntry {
    ObjectPtr informer;
    ObjectPtr assumed;  // newer than `informer` while set
    const api::ResourceClaim& claim() const;
    const ObjectPtr& latest() const { return assumed ? assumed : informer; }
  };
  struct InFlight {
    std::string pod_uid;
    api::AllocationResult allocation;
  };

  void SlicesChanged();
  // Recomputes the claim's effective allocation (in flight, else the
  // claim's) and applies the difference to the allocated state.
  void Refresh(const std::string& claim_key);
  void TouchDevices(const api::AllocationResult& allocation, int delta);
  void CountPod(const std::string& key, const ObjectPtr& pod,
                const std::string& node);
  void UncountPod(const std::string& key);
  void RebuildAllocatorIfNeeded();
  NodeInfo& EnsureNode(std::string_view name);

  allocator::Features features_;
  std::map<std::string, std::unique_ptr<NodeInfo>, std::less<>> nodes_;
  std::vector<const NodeInfo*> node_order_;
  bool node_order_dirty_ = true;
  std::map<std::string, ObjectPtr, std::less<>> slices_;
  std::map<std::string, ObjectPtr, std::less<>> classes_;
  std::map<std::string, ObjectPtr, std::less<>> taint_rules_;
  // Namespaces labelled resource.kubernetes.io/admin-access=true.
  std::set<std::string, std::less<>> admin_namespaces_;
  std::map<std::string, ClaimEntry, std::less<>> claims_;
  std::map<std::string, InFlight, std::less<>> in_flight_;
  std::map<std::string, ObjectPtr, std::less<>> pods_;
  // pod key -> the node the pod is counted on (bound or assumed) and the
  // pod object whose requests were counted.
  struct Counted {
    std::string node;
    node_filters::PodNodeRequirements requirements;
  };
  std::map<std::string, Counted, std::less<>> counted_pods_;
  std::map<std::string, std::string, std::less<>> assumed_pods_;
  // Per claim key: the allocation whose devices are in `allocated_`.
  std::map<std::string, api::AllocationResult, std::less<>> effective_;

  struct NodeDeviceCache {
    bool valid = false;
    uint64_t state_uid = 0;
    uint64_t epoch = 0;
    uint64_t global_epoch = 0;
    std::vector<DeviceUse> devices;
  };
  absl::flat_hash_map<uint64_t, NodeDeviceCache> node_devices_;  // by id

  std::unique_ptr<allocator::Allocator> allocator_;
  bool allocator_dirty_ = true;
  std::unique_ptr<allocator::AllocatedState> allocated_;
  bool allocated_dirty_ = true;
  // "driver/pool" -> the node whose slices publish it ("" = shared pool).
  absl::flat_hash_map<std::string, std::string> pool_nodes_;
  uint64_t global_epoch_ = 1;
};

}  // namespace draplane::scheduler

#endif  // DRAPLANE_SCHEDULER_CLUSTER_STATE_H_
