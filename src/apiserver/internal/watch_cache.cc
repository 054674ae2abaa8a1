#include "apiserver/internal/watch_cache.h"

#include "common/str_cat.h"

namespace draplane::apiserver::internal {
namespace {

// What a cached form is counted as: a line its size, a typed object the
// size of the stored value it was decoded from.
template <class Entry>
size_t FormBytes(const std::string& line, const Entry&) {
  return line.size();
}
template <class Entry>
size_t FormBytes(const api::Object&, const Entry& entry) {
  return entry.value_bytes;
}

}  // namespace

WatchCache::Entry* WatchCache::EntryLocked(int64_t revision, Evicted& evicted) {
  const bool full = entries_.size() >= capacity_ || bytes_ >= byte_capacity_;
  if (capacity_ == 0 || byte_capacity_ == 0 ||
      (full && !entries_.empty() && revision < entries_.begin()->first)) {
    return nullptr;  // older than everything kept: it would go first
  }
  auto [it, inserted] = entries_.try_emplace(revision);
  if (inserted && entries_.size() > capacity_) {
    Entries::node_type oldest = entries_.extract(entries_.begin());
    bytes_ -= oldest.mapped().bytes;  // the oldest (not `it`)
    evicted.push_back(std::move(oldest));
  }
  return &it->second;
}

void WatchCache::ChargeLocked(int64_t revision, Entry& entry, size_t bytes,
                              Evicted& evicted) {
  entry.bytes += bytes;
  bytes_ += bytes;
  while (bytes_ > byte_capacity_ && entries_.size() > 1 &&
         entries_.begin()->first != revision) {
    Entries::node_type oldest = entries_.extract(entries_.begin());
    bytes_ -= oldest.mapped().bytes;
    evicted.push_back(std::move(oldest));
  }
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
  const size_t value_bytes = (event.value ? event.value->size() : 0) +
                             (event.prev_value ? event.prev_value->size() : 0);
  Evicted evicted;  // destroyed after the lock is released
  absl::MutexLock lock(&mu_);
  Entry* entry = EntryLocked(event.revision, evicted);
  if (entry == nullptr) return decoded;
  if (!entry->decoded) {
    entry->decoded = decoded;
    entry->value_bytes = value_bytes;
    // The decoded objects: counted as their stored form.
    ChargeLocked(event.revision, *entry, value_bytes, evicted);
  }
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
  Evicted evicted;  // destroyed after the lock is released
  absl::MutexLock lock(&mu_);
  Entry* entry = EntryLocked(revision, evicted);
  if (entry == nullptr) return value;
  auto& slot = (entry->*forms)[key];
  if (!slot) {
    slot = value;
    ChargeLocked(revision, *entry, FormBytes(*value, *entry), evicted);
  }
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
