#include "apiserver/internal/allocation_guard.h"

#include "common/str_cat.h"

namespace draplane::apiserver::internal {

std::vector<std::string> ExclusiveDevices(const api::Json& claim) {
  std::vector<std::string> out;
  if (!claim.is_object()) return out;
  auto status = claim.find("status");
  if (status == claim.end() || !status->is_object()) return out;
  auto allocation = status->find("allocation");
  if (allocation == status->end() || !allocation->is_object()) return out;
  auto devices = allocation->find("devices");
  if (devices == allocation->end() || !devices->is_object()) return out;
  auto results = devices->find("results");
  if (results == devices->end() || !results->is_array()) return out;
  for (const api::Json& r : *results) {
    if (!r.is_object()) continue;
    auto admin = r.find("adminAccess");
    if (admin != r.end() && admin->is_boolean() && admin->get<bool>()) continue;
    if (r.contains("shareID")) continue;
    auto str = [&](const char* name) {
      auto it = r.find(name);
      return it != r.end() && it->is_string() ? it->get<std::string>()
                                              : std::string();
    };
    out.push_back(StrCat(str("driver"), "/", str("pool"), "/", str("device")));
  }
  return out;
}

std::shared_ptr<AllocationGuard> AllocationGuard::ForStore(
    store::Store* store) {
  static std::mutex mu;
  static std::map<store::Store*, std::weak_ptr<AllocationGuard>> guards;
  std::lock_guard<std::mutex> lock(mu);
  for (auto it = guards.begin(); it != guards.end();) {
    it = it->second.expired() ? guards.erase(it) : std::next(it);
  }
  std::shared_ptr<AllocationGuard> guard = guards[store].lock();
  if (guard == nullptr) {
    guard = std::make_shared<AllocationGuard>(
        store, "/registry/resource.k8s.io/resourceclaims/");
    guards[store] = guard;
  }
  return guard;
}

AllocationGuard::AllocationGuard(store::Store* store, std::string claims_prefix)
    : store_(store), prefix_(std::move(claims_prefix)) {
  std::lock_guard<std::mutex> lock(mu_);
  LoadLocked();
}

void AllocationGuard::SetLocked(const std::string& key,
                                std::vector<std::string> devices) {
  auto old = devices_.find(key);
  if (old != devices_.end()) {
    for (const std::string& d : old->second) {
      auto h = holder_.find(d);
      if (h != holder_.end() && h->second == key) holder_.erase(h);
    }
    devices_.erase(old);
  }
  if (devices.empty()) return;
  for (const std::string& d : devices) holder_[d] = key;
  devices_[key] = std::move(devices);
}

void AllocationGuard::LoadLocked() {
  if (loaded_) return;
  store::ListOptions options;
  options.prefix = prefix_;
  absl::StatusOr<store::ListResult> list = store_->List(options);
  if (!list.ok()) return;  // retried on the next write
  for (const store::Record& rec : list->records) {
    api::Json object =
        api::Json::parse(*rec.value, nullptr, /*allow_exceptions=*/false);
    SetLocked(rec.key, ExclusiveDevices(object));
  }
  loaded_ = true;
}

absl::Status AllocationGuard::Check(const std::string& key,
                                    const api::Json& object) {
  LoadLocked();
  for (const std::string& device : ExclusiveDevices(object)) {
    auto h = holder_.find(device);
    if (h == holder_.end() || h->second == key) continue;
    // Re-read the holder: the index may be stale (e.g. a claim deleted
    // with its allocation).
    std::string holder = h->second;
    absl::StatusOr<store::Record> rec = store_->Get(holder, 0);
    std::vector<std::string> held;
    if (rec.ok()) {
      held = ExclusiveDevices(
          api::Json::parse(*rec->value, nullptr, /*allow_exceptions=*/false));
    }
    SetLocked(holder, held);
    if (std::find(held.begin(), held.end(), device) != held.end()) {
      std::string name = holder.substr(prefix_.size());
      return absl::FailedPreconditionError(
          StrCat("device ", device, " is already allocated to claim ", name));
    }
  }
  return absl::OkStatus();
}

void AllocationGuard::Record(const std::string& key, const api::Json* object) {
  if (!loaded_) return;
  SetLocked(key, object == nullptr ? std::vector<std::string>{}
                                   : ExclusiveDevices(*object));
}

}  // namespace draplane::apiserver::internal
