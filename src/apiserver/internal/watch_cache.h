// Watch events decoded once and watch lines encoded once, shared by every
// watcher: with many watchers of one resource each event is parsed and
// serialised once instead of once per watcher. Bounded by events and by
// bytes (oldest revisions are forgotten first; a typed object is counted
// as the size of its stored value); thread-safe.
#ifndef DRAPLANE_APISERVER_INTERNAL_WATCH_CACHE_H_
#define DRAPLANE_APISERVER_INTERNAL_WATCH_CACHE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "api/object.h"
#include "apiserver/internal/registry.h"
#include "store/store.h"

namespace draplane::apiserver::internal {

class WatchCache {
 public:
  explicit WatchCache(size_t capacity = 4096,
                      size_t byte_capacity = size_t{64} << 20)
      : capacity_(capacity), byte_capacity_(byte_capacity) {}

  // The decoded form of `event` (registry.ToObjectEvent).
  std::shared_ptr<const ObjectEvent> Decoded(const Registry& registry,
                                             const store::Event& event);

  // The watch line for the event at `revision` sent as `type` in the
  // served `version`; `encode` makes it when no watcher has yet. Errors are
  // not cached.
  absl::StatusOr<std::shared_ptr<const std::string>> Line(
      int64_t revision, std::string_view type, std::string_view version,
      const std::function<absl::StatusOr<std::string>()>& encode);

  // The typed object of the event at `revision` in the served `version`,
  // with or without managedFields, for in-process watchers;
  // `decode` makes it when no watcher has yet. Errors are not cached.
  absl::StatusOr<std::shared_ptr<const api::Object>> Typed(
      int64_t revision, std::string_view version, bool drop_managed_fields,
      const std::function<absl::StatusOr<api::Object>()>& decode);

 private:
  struct Entry {
    std::shared_ptr<const ObjectEvent> decoded;
    std::map<std::string, std::shared_ptr<const std::string>> lines;
    std::map<std::string, std::shared_ptr<const api::Object>> typed;
    size_t value_bytes = 0;  // of the stored value(s), once decoded
    size_t bytes = 0;        // what the entry's forms are counted as
  };
  using Entries = std::map<int64_t, Entry>;
  // Entries dropped under the lock, destroyed by the caller after it (they
  // hold decoded objects).
  using Evicted = std::vector<Entries::node_type>;
  // The entry of `revision`, made when missing (the oldest entry then moves
  // to `evicted` when over capacity); null for a revision older than every
  // entry of a full cache (nothing is cached for it).
  Entry* EntryLocked(int64_t revision, Evicted& evicted)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Counts `bytes` more for the entry of `revision`, then drops the oldest
  // other entries while the cache holds more than its byte capacity.
  void ChargeLocked(int64_t revision, Entry& entry, size_t bytes,
                    Evicted& evicted) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The form `key` of the event at `revision` from `forms`, made by `make`
  // (outside the lock) when missing; errors are not cached.
  template <class T>
  absl::StatusOr<std::shared_ptr<const T>> Memo(
      int64_t revision,
      std::map<std::string, std::shared_ptr<const T>> Entry::*forms,
      const std::string& key, const std::function<absl::StatusOr<T>()>& make);

  const size_t capacity_;
  const size_t byte_capacity_;
  absl::Mutex mu_;
  Entries entries_ ABSL_GUARDED_BY(mu_);
  size_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_WATCH_CACHE_H_
