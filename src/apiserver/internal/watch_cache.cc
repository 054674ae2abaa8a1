#include "apiserver/internal/watch_cache.h"

#include "common/str_cat.h"

namespace draplane::apiserver::internal {

WatchCache::Entry& WatchCache::EntryLocked(int64_t revision) {
  auto [it, inserted] = entries_.try_emplace(revision);
  if (inserted && entries_.size() > capacity_) {
    entries_.erase(entries_.begin());  // the oldest revision
  }
  return it->second;
}

std::shared_ptr<const ObjectEvent> WatchCache::Decoded(
    const Registry& registry, const store::Event& event) {
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(event.revision);
    if (it != entries_.end() && it->second.decoded) return it->second.decoded;
  }
  auto decoded =
      std::make_shared<const ObjectEvent>(registry.ToObjectEvent(event));
  std::lock_guard lock(mu_);
  Entry& entry = EntryLocked(event.revision);
  if (!entry.decoded) entry.decoded = decoded;
  return entry.decoded;
}

absl::StatusOr<std::shared_ptr<const std::string>> WatchCache::Line(
    int64_t revision, std::string_view type, std::string_view version,
    const std::function<absl::StatusOr<std::string>()>& encode) {
  const std::string key = StrCat(type, "/", version);
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(revision);
    if (it != entries_.end()) {
      auto line = it->second.lines.find(key);
      if (line != it->second.lines.end()) return line->second;
    }
  }
  auto made = encode();
  if (!made.ok()) return made.status();
  auto line = std::make_shared<const std::string>(*std::move(made));
  std::lock_guard lock(mu_);
  auto& slot = EntryLocked(revision).lines[key];
  if (!slot) slot = line;
  return slot;
}

absl::StatusOr<std::shared_ptr<const api::Object>> WatchCache::Typed(
    int64_t revision, std::string_view version, bool drop_managed_fields,
    const std::function<absl::StatusOr<api::Object>()>& decode) {
  const std::string key =
      StrCat(version, drop_managed_fields ? "/-managedFields" : "");
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(revision);
    if (it != entries_.end()) {
      auto typed = it->second.typed.find(key);
      if (typed != it->second.typed.end()) return typed->second;
    }
  }
  auto made = decode();
  if (!made.ok()) return made.status();
  auto object = std::make_shared<const api::Object>(*std::move(made));
  std::lock_guard lock(mu_);
  auto& slot = EntryLocked(revision).typed[key];
  if (!slot) slot = object;
  return slot;
}

}  // namespace draplane::apiserver::internal
