#include "allocator/allocated_state.h"

#include <atomic>

#include "common/str_cat.h"

namespace draplane::allocator {

namespace {
std::atomic<uint64_t> next_uid{1};
}  // namespace

AllocatedState::AllocatedState() : uid_(next_uid.fetch_add(1)) {}

AllocatedState::AllocatedState(const AllocatedState& other)
    : uid_(next_uid.fetch_add(1)),
      exclusive_(other.exclusive_),
      shared_(other.shared_),
      aggregated_(other.aggregated_),
      owners_(other.owners_) {}

AllocatedState& AllocatedState::operator=(const AllocatedState& other) {
  if (this != &other) {
    uid_ = next_uid.fetch_add(1);
    generation_ = 0;
    exclusive_ = other.exclusive_;
    shared_ = other.shared_;
    aggregated_ = other.aggregated_;
    owners_ = other.owners_;
  }
  return *this;
}

std::string DeviceId::ToString() const {
  return StrCat(driver, "/", pool, "/", device);
}

void AllocatedState::AddAllocation(const api::AllocationResult& allocation,
                                   bool consumable_capacity,
                                   std::string_view owner) {
  ++generation_;
  for (const api::DeviceRequestAllocationResult& r :
       allocation.devices.results) {
    if (r.admin_access.value_or(false)) continue;
    DeviceId id{r.driver, r.pool, r.device};
    if (!owner.empty()) owners_[id].emplace_back(owner);
    if (consumable_capacity && r.share_id.has_value()) {
      shared_.insert(id);
      if (!r.consumed_capacity.empty()) {
        auto& sum = aggregated_[id];
        for (const auto& [name, q] : r.consumed_capacity) {
          auto it = sum.find(name);
          if (it == sum.end()) {
            sum.emplace(name, q);
          } else {
            // Upstream Quantity.Add; an unrepresentable sum keeps the old one.
            (void)it->second.Add(q);
          }
        }
      }
      continue;
    }
    exclusive_.insert(std::move(id));
  }
}

const std::map<std::string, Quantity>* AllocatedState::AggregatedCapacity(
    const DeviceId& id) const {
  auto it = aggregated_.find(id);
  return it == aggregated_.end() ? nullptr : &it->second;
}

const std::vector<std::string>* AllocatedState::Owners(
    const DeviceId& id) const {
  auto it = owners_.find(id);
  return it == owners_.end() ? nullptr : &it->second;
}

}  // namespace draplane::allocator
