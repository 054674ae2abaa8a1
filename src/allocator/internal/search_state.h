#ifndef DRAPLANE_ALLOCATOR_INTERNAL_SEARCH_STATE_H_
#define DRAPLANE_ALLOCATOR_INTERNAL_SEARCH_STATE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "allocator/allocator.h"
#include "allocator/internal/capacity.h"
#include "allocator/internal/catalog.h"
#include "allocator/internal/pools.h"

namespace draplane::allocator::internal {

// Counter set name -> counter name -> value.
using CounterSets = std::map<std::string, std::map<std::string, Quantity>>;

// A candidate device of one Allocate call: a device of a complete, valid
// pool relevant to the node. Local indices follow upstream's search order
// (pool, slice, device), so "the devices after this one" is index + 1.
struct LocalDevice {
  uint32_t global = 0;
  int pool = 0;
  const api::Device* device = nullptr;
  const api::ResourceSlice* slice = nullptr;
  // The device's identity (strings of `slice` and `device`).
  DeviceIdView id() const {
    return DeviceIdView(slice->spec.driver, slice->spec.pool.name,
                        device->name);
  }
};

// What the allocated state says about one device.
struct DeviceState {
  bool exclusive = false;  // allocated to another claim
  bool shared = false;     // has shared (allowMultipleAllocations) allocations
  const CapacityMap* aggregated = nullptr;  // their summed consumption
};

// A node's pools and candidate devices: depend only on the catalog, the
// features and the node (name and labels), so they are computed once per
// node and reused by later Allocate calls.
struct NodeView {
  std::string error;  // GatherPools failed: the fatal error text
  std::vector<Pool> pools;
  std::vector<LocalDevice> devices;
  // Per pool: counters left after the devices the allocated state holds,
  // valid for `counters_state`.
  std::vector<std::optional<CounterSets>> available_counters;
  // Per pool: some counter is already below zero (valid with the above).
  std::vector<int8_t> over_consumed;
  std::pair<uint64_t, uint64_t> counters_state{0, 0};
};

// One attribute name's value on every catalog device, filled on first use:
// the attribute (LookupAttribute) and an interned id of its type and value
// (equal ids = equal typed values; -1 = no such attribute).
struct AttributeColumn {
  std::vector<const api::DeviceAttribute*> attribute;
  std::vector<int> value;
  std::vector<int8_t> known;
};

struct Scratch;

// Caches an Allocator keeps across Allocate calls.
class AllocatorCache {
 public:
  AllocatorCache();
  ~AllocatorCache();
  Scratch& scratch() { return *scratch_; }

  // The view of `node`, computed on first use.
  NodeView& ViewFor(Catalog& catalog, const api::Node& node,
                    const Features& features);
  // The state of catalog device `global` under `state`, looked up once per
  // state version.
  const DeviceState& StateOf(const Catalog& catalog,
                             const AllocatedState& state, uint32_t global);
  // Interned id of catalog device `global`'s counter consumption (equal
  // ids = equal consumption of the same counter sets).
  int CounterClass(const Catalog& catalog, uint32_t global);
  // The column of attribute `name` (fully qualified), sized to the catalog.
  AttributeColumn& Column(const Catalog& catalog, const std::string& name);
  // Fills entry `global` of `column` (attribute `name`) if needed.
  void FillColumn(const Catalog& catalog, const std::string& name,
                  AttributeColumn& column, uint32_t global);
  // The capacity plan of a request without capacity requests on catalog
  // device `global` (the same for every such request).
  const CapacityPlan& DefaultPlan(const Catalog& catalog, uint32_t global,
                                  bool fractional_range);

 private:
  struct CachedView {
    std::map<std::string, std::string> labels;  // the node's, when computed
    std::unique_ptr<NodeView> view;
  };
  absl::flat_hash_map<std::string, CachedView> views_;  // by node name
  std::pair<uint64_t, uint64_t> state_version_{0, 0};
  // device_states_[g] is valid iff state_stamp_[g] == current_stamp_.
  uint32_t current_stamp_ = 0;
  std::vector<uint32_t> state_stamp_;
  std::vector<DeviceState> device_states_;
  std::vector<std::unique_ptr<CapacityPlan>> default_plans_;
  std::unique_ptr<Scratch> scratch_;
  std::vector<int> counter_classes_;  // per catalog device, -1 = unknown
  absl::flat_hash_map<std::string, int> counter_class_ids_;
  absl::flat_hash_map<std::string, std::unique_ptr<AttributeColumn>> columns_;
  absl::flat_hash_map<std::string, int> value_ids_;
};

// One request or subrequest of a claim (upstream requestData).
struct RequestData {
  int claim = 0;
  bool is_sub = false;
  std::string name;       // the request's or subrequest's own name
  std::string full_name;  // "req" or "req/sub"
  std::string base_name;  // the top-level request name
  std::string sub_name;   // the subrequest name, "" for a request
  std::string class_name;
  const api::DeviceClass* cls = nullptr;
  const std::vector<api::DeviceSelector>* selectors = nullptr;
  const std::vector<api::DeviceToleration>* tolerations = nullptr;
  const api::CapacityRequirements* capacity = nullptr;
  std::string mode;
  int64_t count = 0;
  bool admin = false;
  bool has_admin_field = false;        // adminAccess set (true or false)
  std::vector<int> class_selectors;    // catalog selector ids
  std::vector<int> request_selectors;  // catalog selector ids
  int num_devices = 0;
  std::vector<int> all_devices;  // "All": the local devices, fixed up front
  int selected_sub = 0;          // on alternative 0: the chosen subrequest
  int slot = 0;                  // row in the selection memo
  int8_t feasibility = -1;       // pruning: -1 unknown, 0 infeasible, 1 maybe
};

// matchAttribute / distinctAttribute of one claim (upstream constraint.go
// with the 1.37 fixes: distinct keeps a stack of values).
struct Constraint {
  bool match = true;
  std::vector<std::string> requests;  // empty: every request
  std::string attribute;              // fully qualified
  const api::DeviceAttribute* reference = nullptr;
  int num = 0;
  std::vector<const api::DeviceAttribute*> seen;

  // Per request slot: the constraint covers that (sub)request.
  std::vector<int8_t> applies;
  // The allocator's per-device cache of this attribute.
  struct AttributeColumn* column = nullptr;

  bool Applies(const std::string& base, const std::string& sub) const;
  // Upstream add/remove for a candidate of request slot `slot`; `attribute`
  // is the device's value of `attribute` (LookupAttribute), or nullptr.
  bool Add(int slot, const api::DeviceAttribute* attribute);
  void Remove(int slot);
};

// Upstream lookupAttribute: the fully qualified name, else the short name
// when the domain is the device's driver.
const api::DeviceAttribute* LookupAttribute(const api::Device& device,
                                            DeviceIdView id,
                                            const std::string& name);
// The attribute's type and value as text ("-" when null), for comparisons
// and explanations.
std::string AttributeKey(const api::DeviceAttribute* attribute);

struct DeviceResult {
  int dev = 0;
  const RequestData* rd = nullptr;
  std::optional<std::string> share_id;
  bool admin = false;
  CapacityMap consumed;
};

// What allocateDevice changed, for backtracking.
struct Undo {
  int claim = 0;
  int dev = 0;
  const RequestData* rd = nullptr;
  bool counters_reserved = false;
  int constraints_added = 0;
  bool device_marked = false;
  bool capacity_inserted = false;
  bool capacity_entry_existed = false;
  bool result_added = false;
  size_t previous_results = 0;
  CapacityMap consumed;
};

// Buffers of one Allocate call, kept by the Allocator so that later calls
// reuse their memory (contents are reset by every call).
struct Scratch {
  std::vector<int8_t> selection;
  std::vector<bool> in_all_list;
  std::vector<std::vector<int>> allocating;
  std::vector<std::optional<CapacityMap>> allocating_capacity;
  std::vector<CounterSets> consumed_counters;
  std::vector<std::vector<DeviceResult>> results;
  std::vector<int64_t> signatures;
  std::vector<Undo> undo;
  std::vector<int8_t> counters_fit;
};

// The data of one Allocate call shared by the search and the explainer.
struct SearchState {
  SearchState(Catalog& catalog, AllocatorCache& cache, NodeView& view,
              const Features& features, const api::Node& node,
              const std::vector<const api::ResourceClaim*>& claims,
              const AllocatedState& state, const AllocateOptions& options)
      : catalog(catalog),
        cache(cache),
        view(view),
        features(features),
        node(node),
        claims(claims),
        state(state),
        options(options),
        pools(view.pools),
        devices(view.devices),
        allocating(cache.scratch().allocating),
        allocating_capacity(cache.scratch().allocating_capacity),
        consumed_counters(cache.scratch().consumed_counters),
        results(cache.scratch().results),
        selection(cache.scratch().selection),
        in_all_list(cache.scratch().in_all_list),
        counters_fit(cache.scratch().counters_fit) {}

  Catalog& catalog;
  AllocatorCache& cache;
  NodeView& view;
  const Features& features;
  const api::Node& node;
  const std::vector<const api::ResourceClaim*>& claims;
  const AllocatedState& state;
  const AllocateOptions& options;

  const std::vector<Pool>& pools;
  const std::vector<LocalDevice>& devices;
  // requests[claim][request] = the request, or its subrequests in order.
  std::vector<std::vector<std::vector<RequestData>>> requests;
  std::vector<std::vector<Constraint>> constraints;  // per claim

  // Search state.
  std::vector<std::vector<int>> allocating;  // per device: claim indices
  std::vector<std::optional<CapacityMap>> allocating_capacity;
  std::vector<CounterSets> consumed_counters;      // per pool
  std::vector<std::vector<DeviceResult>> results;  // per claim

  // Selection memo: [slot * devices + dev]: 2 unknown, 1, 0, -1 error.
  std::vector<int8_t>& selection;
  absl::flat_hash_map<int64_t, std::string> selection_errors;
  // Per device: some "All" request takes it.
  std::vector<bool>& in_all_list;
  // Per device: CountersCouldFit memo (-1 = not computed).
  std::vector<int8_t>& counters_fit;
  // Capacity plans: [slot * devices + dev], created on first use.
  std::vector<std::unique_ptr<CapacityPlan>> plans;

  const DeviceState& StateOf(int dev) const {
    return cache.StateOf(catalog, state, devices[dev].global);
  }
  // Upstream's per-claim preprocessing (request validation, "All"
  // enumeration, the 32-device limit, constraints). Returns the fatal
  // error text, or "".
  std::string Prepare();

  std::string ClaimName(int claim) const;
  bool InUse(int dev) const {
    return !allocating[dev].empty() || StateOf(dev).exclusive;
  }
  bool AllocatingForClaim(int dev, int claim) const;
  bool CapacityInUse(int dev) const {
    const DeviceState& st = StateOf(dev);
    return st.aggregated != nullptr || st.shared ||
           allocating_capacity[dev].has_value();
  }
  // Upstream isSelectable: 1 / 0, or -1 with the fatal error text.
  int Selectable(const RequestData& rd, int dev, const std::string** error);
  absl::StatusOr<bool> CapacityFits(const RequestData& rd, int dev);
  // The request's static consumption of the device, memoized.
  const CapacityPlan& Plan(const RequestData& rd, int dev);
  bool Tolerated(const RequestData& rd, int dev) const;
  const CounterSets& AvailableCounters(int pool);
  // The constraint's attribute on device `dev` and its interned value id.
  const api::DeviceAttribute* ConstraintAttribute(Constraint& c, int dev);
  int ConstraintValue(Constraint& c, int dev);
  // False when the device alone exceeds what its pool has left.
  bool CountersCouldFit(int dev);
  // Upstream compares every counter of every set of the pool after adding
  // a device; with the attempt's consumption within bounds before, that is
  // "no counter of the pool below zero, and the counters this device
  // consumes still within bounds" (this).
  bool PoolOverConsumed(int pool);
  void InsertAllocatingCapacity(int dev, const CapacityMap& consumed);
  void RemoveAllocatingCapacity(int dev, const CapacityMap& consumed);

 private:
  std::string ValidateRequest(int claim, RequestData& rd);
  bool CountersFitAlone(int dev);
};

}  // namespace draplane::allocator::internal

#endif  // DRAPLANE_ALLOCATOR_INTERNAL_SEARCH_STATE_H_
