#ifndef DRAPLANE_ALLOCATOR_ALLOCATED_STATE_H_
#define DRAPLANE_ALLOCATOR_ALLOCATED_STATE_H_

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/node_hash_map.h"
#include "api/resource_types.h"
#include "common/quantity.h"

namespace draplane::allocator {

// A device's identity: driver, pool and device name (upstream DeviceID).
struct DeviceId {
  std::string driver;
  std::string pool;
  std::string device;

  // "driver/pool/device", as upstream prints a DeviceID.
  std::string ToString() const;

  friend bool operator==(const DeviceId&, const DeviceId&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const DeviceId& id) {
    return H::combine(std::move(h), id.driver, id.pool, id.device);
  }
};

// A DeviceId whose strings live elsewhere (a slice's driver and pool name,
// a device's name): valid while they are. Every DeviceId converts to one,
// so lookups take either without copying strings.
struct DeviceIdView {
  std::string_view driver;
  std::string_view pool;
  std::string_view device;

  DeviceIdView(std::string_view driver, std::string_view pool,
               std::string_view device)
      : driver(driver), pool(pool), device(device) {}
  DeviceIdView(const DeviceId& id)  // NOLINT: implicit by design
      : driver(id.driver), pool(id.pool), device(id.device) {}

  // "driver/pool/device", as upstream prints a DeviceID.
  std::string ToString() const;
  DeviceId ToId() const {
    return DeviceId{std::string(driver), std::string(pool),
                    std::string(device)};
  }

  friend bool operator==(const DeviceIdView&, const DeviceIdView&) = default;
};

// The devices in use by claims that are already allocated (upstream
// schedulerapi.AllocatedState), gathered the way kube-scheduler does:
// admin-access results never count; with ConsumableCapacity, results with a
// shareID are shared allocations whose consumed capacity adds up per device;
// every other result makes its device unavailable.
class AllocatedState {
 public:
  AllocatedState();
  AllocatedState(const AllocatedState& other);
  AllocatedState& operator=(const AllocatedState& other);
  AllocatedState(AllocatedState&&) = default;
  AllocatedState& operator=(AllocatedState&&) = default;

  // Records the devices of one claim's allocation. `owner` ("ns/name") is
  // remembered for explanations only.
  void AddAllocation(const api::AllocationResult& allocation,
                     bool consumable_capacity, std::string_view owner = "");

  // What the state records for one device.
  struct Entry {
    bool exclusive = false;  // upstream AllocatedDevices
    bool shared = false;     // AllocatedSharedDeviceIDs / AggregatedCapacity
    // Summed consumedCapacity of the shared allocations (upstream
    // AggregatedCapacity), or nullptr when none recorded one.
    const std::map<std::string, Quantity>* aggregated = nullptr;
    std::vector<std::string> owners;  // "ns/name", for explanations
  };
  // The device's entry, or nullptr when no allocation uses it.
  const Entry* Find(DeviceIdView id) const;

  // Upstream AllocatedDevices.Has: allocated exclusively.
  bool IsExclusive(DeviceIdView id) const {
    const Entry* e = Find(id);
    return e != nullptr && e->exclusive;
  }
  // Upstream internal.IsDeviceAllocated: exclusive or shared.
  bool IsAllocated(DeviceIdView id) const {
    const Entry* e = Find(id);
    return e != nullptr && (e->exclusive || e->shared);
  }
  const std::map<std::string, Quantity>* AggregatedCapacity(
      DeviceIdView id) const {
    const Entry* e = Find(id);
    return e == nullptr ? nullptr : e->aggregated;
  }
  // Claims holding the device ("ns/name"), for explanations.
  const std::vector<std::string>* Owners(DeviceIdView id) const {
    const Entry* e = Find(id);
    return e == nullptr ? nullptr : &e->owners;
  }

  // Identifies this content: a process-unique id (new for every copy)
  // and a count of AddAllocation calls. Caches keyed on it stay valid
  // while the state is unchanged.
  std::pair<uint64_t, uint64_t> Version() const { return {uid_, generation_}; }

 private:
  void CopyEntries(const AllocatedState& other);

  uint64_t uid_;
  uint64_t generation_ = 0;
  // Hash and equality over DeviceId and DeviceIdView alike (heterogeneous
  // lookup: finding a device copies no strings).
  struct IdHash {
    using is_transparent = void;
    size_t operator()(DeviceIdView id) const;
  };
  struct IdEq {
    using is_transparent = void;
    bool operator()(DeviceIdView a, DeviceIdView b) const { return a == b; }
  };

  // node_hash_map: entries (and `aggregated`, which points into
  // `capacity_`) keep their addresses while the state grows.
  absl::node_hash_map<DeviceId, Entry, IdHash, IdEq> entries_;
  absl::node_hash_map<DeviceId, std::map<std::string, Quantity>, IdHash, IdEq>
      capacity_;
};

}  // namespace draplane::allocator

#endif  // DRAPLANE_ALLOCATOR_ALLOCATED_STATE_H_
