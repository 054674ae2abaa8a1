#include "apiserver/internal/allocation_guard.h"

#include <algorithm>
#include <utility>

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
  static absl::Mutex mu(absl::kConstInit);
  static std::map<store::Store*, std::weak_ptr<AllocationGuard>> guards;
  absl::MutexLock lock(&mu);
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
  absl::MutexLock lock(&mu_);
  LoadLocked();
}

void AllocationGuard::SetLocked(const std::string& key, int64_t revision,
                                std::vector<std::string> devices) {
  Claim& claim = claims_[key];
  if (revision < claim.revision) return;  // a newer write is applied
  claim.revision = revision;
  for (const std::string& d : claim.devices) {
    auto h = holder_.find(d);
    if (h != holder_.end() && h->second == key) holder_.erase(h);
  }
  for (const std::string& d : devices) holder_[d] = key;
  claim.devices = std::move(devices);
  DropIfUnusedLocked(key);
}

void AllocationGuard::DropIfUnusedLocked(const std::string& key) {
  auto it = claims_.find(key);
  if (it != claims_.end() && it->second.devices.empty() &&
      it->second.writes == 0) {
    claims_.erase(it);
  }
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
    SetLocked(rec.key, rec.mod_revision, ExclusiveDevices(object));
  }
  loaded_ = true;
}

absl::StatusOr<AllocationGuard::Reservation> AllocationGuard::Reserve(
    const std::string& key, const api::Json* object) {
  std::vector<std::string> devices;
  if (object != nullptr) devices = ExclusiveDevices(*object);
  absl::MutexLock lock(&mu_);
  LoadLocked();
  for (const std::string& device : devices) {
    if (auto r = reserved_.find(device);
        r != reserved_.end() && r->second.key != key) {
      return absl::FailedPreconditionError(
          StrCat("device ", device, " is being allocated to claim ",
                 r->second.key.substr(prefix_.size())));
    }
    auto h = holder_.find(device);
    if (h == holder_.end() || h->second == key) continue;
    // Re-read the holder: the index may be stale (e.g. a claim deleted
    // with its allocation). What the store says now is as of at least its
    // current revision; a write of the holder still in flight is newer.
    std::string holder = h->second;
    const int64_t read_at = store_->Revision();
    absl::StatusOr<store::Record> rec = store_->Get(holder, 0);
    std::vector<std::string> held;
    if (rec.ok()) {
      held = ExclusiveDevices(
          api::Json::parse(*rec->value, nullptr, /*allow_exceptions=*/false));
    }
    SetLocked(holder, rec.ok() ? rec->mod_revision : read_at, held);
    if (std::find(held.begin(), held.end(), device) != held.end()) {
      return absl::FailedPreconditionError(
          StrCat("device ", device, " is already allocated to claim ",
                 holder.substr(prefix_.size())));
    }
  }
  ++claims_[key].writes;
  for (const std::string& device : devices) {
    Reserved& r = reserved_[device];
    r.key = key;
    ++r.writes;
  }
  Reservation reservation;
  reservation.guard_ = this;
  reservation.key_ = key;
  reservation.devices_ = std::move(devices);
  return reservation;
}

void AllocationGuard::EndLocked(const std::string& key,
                                const std::vector<std::string>& devices,
                                int64_t revision, const api::Json* object) {
  for (const std::string& device : devices) {
    auto r = reserved_.find(device);
    if (r != reserved_.end() && --r->second.writes == 0) reserved_.erase(r);
  }
  --claims_[key].writes;
  // Before the first successful load the store is the index: nothing to
  // apply.
  if (revision > 0 && loaded_) {
    SetLocked(key, revision,
              object == nullptr ? std::vector<std::string>{}
                                : ExclusiveDevices(*object));
  }
  DropIfUnusedLocked(key);
}

std::string AllocationGuard::HolderForTest(const std::string& device) {
  absl::MutexLock lock(&mu_);
  if (auto r = reserved_.find(device); r != reserved_.end()) {
    return r->second.key;
  }
  auto h = holder_.find(device);
  return h == holder_.end() ? "" : h->second;
}

AllocationGuard::Reservation::Reservation(Reservation&& other) noexcept
    : guard_(std::exchange(other.guard_, nullptr)),
      key_(std::move(other.key_)),
      devices_(std::move(other.devices_)) {}

AllocationGuard::Reservation& AllocationGuard::Reservation::operator=(
    Reservation&& other) noexcept {
  if (this != &other) {
    End(0, nullptr);
    guard_ = std::exchange(other.guard_, nullptr);
    key_ = std::move(other.key_);
    devices_ = std::move(other.devices_);
  }
  return *this;
}

AllocationGuard::Reservation::~Reservation() { End(0, nullptr); }

void AllocationGuard::Reservation::Committed(int64_t revision,
                                             const api::Json* object) {
  End(revision, object);
}

void AllocationGuard::Reservation::End(int64_t revision,
                                       const api::Json* object) {
  if (guard_ == nullptr) return;
  AllocationGuard* guard = std::exchange(guard_, nullptr);
  absl::MutexLock lock(&guard->mu_);
  guard->EndLocked(key_, devices_, revision, object);
}

}  // namespace draplane::apiserver::internal
