#include "allocator/allocated_state.h"

#include <atomic>

#include "common/str_cat.h"

namespace draplane::allocator {

namespace {
std::atomic<uint64_t> next_uid{1};
}  // namespace

AllocatedState::AllocatedState() : uid_(next_uid.fetch_add(1)) {}

AllocatedState::AllocatedState(const AllocatedState& other)
    : uid_(next_uid.fetch_add(1)), capacity_(other.capacity_) {
  CopyEntries(other);
}

void AllocatedState::CopyEntries(const AllocatedState& other) {
  entries_ = other.entries_;
  for (auto& [id, entry] : entries_) {
    if (entry.aggregated != nullptr) entry.aggregated = &capacity_.at(id);
  }
}

AllocatedState& AllocatedState::operator=(const AllocatedState& other) {
  if (this != &other) {
    uid_ = next_uid.fetch_add(1);
    generation_ = 0;
    capacity_ = other.capacity_;
    CopyEntries(other);
  }
  return *this;
}

std::string DeviceId::ToString() const {
  return StrCat(driver, "/", pool, "/", device);
}

std::string DeviceIdView::ToString() const {
  return StrCat(driver, "/", pool, "/", device);
}

size_t AllocatedState::IdHash::operator()(DeviceIdView id) const {
  // Debian's abseil hashes its own string_view, not std::string_view.
  return absl::HashOf(absl::string_view(id.driver.data(), id.driver.size()),
                      absl::string_view(id.pool.data(), id.pool.size()),
                      absl::string_view(id.device.data(), id.device.size()));
}

void AllocatedState::AddAllocation(const api::AllocationResult& allocation,
                                   bool consumable_capacity,
                                   std::string_view owner) {
  ++generation_;
  for (const api::DeviceRequestAllocationResult& r :
       allocation.devices.results) {
    if (r.admin_access.value_or(false)) continue;
    DeviceId id{r.driver, r.pool, r.device};
    Entry& entry = entries_[id];
    if (!owner.empty()) entry.owners.emplace_back(owner);
    if (consumable_capacity && r.share_id.has_value()) {
      entry.shared = true;
      if (!r.consumed_capacity.empty()) {
        auto& sum = capacity_[id];
        for (const auto& [name, q] : r.consumed_capacity) {
          auto it = sum.find(name);
          if (it == sum.end()) {
            sum.emplace(name, q);
          } else {
            // Upstream Quantity.Add; an unrepresentable sum keeps the old one.
            (void)it->second.Add(q);
          }
        }
        entry.aggregated = &sum;
      }
      continue;
    }
    entry.exclusive = true;
  }
}

const AllocatedState::Entry* AllocatedState::Find(DeviceIdView id) const {
  auto it = entries_.find(id);
  return it == entries_.end() ? nullptr : &it->second;
}

}  // namespace draplane::allocator
