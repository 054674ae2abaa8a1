#include "apiserver/internal/watch_cache.h"

#include "common/str_cat.h"

namespace draplane::apiserver::internal {

WatchCache::Entry* WatchCache::EntryLocked(int64_t revision,
                                           Entries::node_type& evicted) {
  if (capacity_ == 0 ||
      (entries_.size() >= capacity_ && revision < entries_.begin()->first)) {
    return nullptr;  // older than everything kept: it would go first
  }
  auto [it, inserted] = entries_.try_emplace(revision);
  if (inserted && entries_.size() > capacity_) {
    evicted = entries_.extract(entries_.begin());  // the oldest (not `it`)
  }
  return &it->second;
}

std::shared_ptr<const ObjectEvent> WatchCache::Decoded(
    const Registry& registry, const store::Event& event) {
  {
    absl::MutexLock lock(&mu_);
    auto it = entries_.find(event.revision);
    if (it != entries_.end() && it->second.decoded) return it->second.decoded;
  }
  auto decoded =
      std::make_shared<const ObjectEvent>(registry.ToObjectEvent(event));
  Entries::node_type evicted;  // destroyed after the lock is released
  absl::MutexLock lock(&mu_);
  Entry* entry = EntryLocked(event.revision, evicted);
  if (entry == nullptr) return decoded;
  if (!entry->decoded) entry->decoded = decoded;
  return entry->decoded;
}

template <class T>
absl::StatusOr<std::shared_ptr<const T>> WatchCache::Memo(
    int64_t revision,
    std::map<std::string, std::shared_ptr<const T>> Entry::*forms,
    const std::string& key, const std::function<absl::StatusOr<T>()>& make) {
  {
    absl::MutexLock lock(&mu_);
    auto it = entries_.find(revision);
    if (it != entries_.end()) {
      auto found = (it->second.*forms).find(key);
      if (found != (it->second.*forms).end()) return found->second;
    }
  }
  auto made = make();
  if (!made.ok()) return made.status();
  auto value = std::make_shared<const T>(*std::move(made));
  Entries::node_type evicted;  // destroyed after the lock is released
  absl::MutexLock lock(&mu_);
  Entry* entry = EntryLocked(revision, evicted);
  if (entry == nullptr) return value;
  auto& slot = (entry->*forms)[key];
  if (!slot) slot = value;
  return slot;
}

absl::StatusOr<std::shared_ptr<const std::string>> WatchCache::Line(
    int64_t revision, std::string_view type, std::string_view version,
    const std::function<absl::StatusOr<std::string>()>& encode) {
  return Memo(revision, &Entry::lines, StrCat(type, "/", version), encode);
}

absl::StatusOr<std::shared_ptr<const api::Object>> WatchCache::Typed(
    int64_t revision, std::string_view version, bool drop_managed_fields,
    const std::function<absl::StatusOr<api::Object>()>& decode) {
  return Memo(revision, &Entry::typed,
              StrCat(version, drop_managed_fields ? "/-managedFields" : ""),
              decode);
}

}  // namespace draplane::apiserver::internal
