// Parsed forms of stored values. A store::Value is shared by the store's
// index, its event history and every watcher, so its address identifies
// it: the object the registry just wrote (or parsed once) is found again
// for the next read, update or watch event of that revision instead of
// being parsed again. Entries hold the object as read at the value's own
// revision (metadata.resourceVersion set). Bounded by count and by the
// stored size of the values: live values (the oldest forgotten first) and,
// kept apart, the values most recently replaced by an update of their
// object (for watchers a write or two behind), so that the count bound
// counts objects rather than versions and rewrites of large objects cannot
// pin versions the store has compacted away. Thread-safe.
#ifndef DRAPLANE_APISERVER_INTERNAL_DECODED_VALUES_H_
#define DRAPLANE_APISERVER_INTERNAL_DECODED_VALUES_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "api/meta_types.h"
#include "api/object.h"
#include "store/store.h"

namespace draplane::apiserver::internal {

// Sets metadata.resourceVersion (creating metadata when missing), placed
// where Go's ObjectMeta has it (after uid).
void SetResourceVersion(api::Json& object, const std::string& rv);
inline void SetResourceVersion(api::Json& object, int64_t revision) {
  SetResourceVersion(object, std::to_string(revision));
}

// Drops metadata.managedFields (of a modelled kind's ObjectMeta, or of an
// unstructured object's JSON).
void DropManagedFields(api::Object& object);

class DecodedValues {
 public:
  // Bounds on what is remembered; bytes are the stored values' sizes (a
  // parsed object takes a few times more). A live value larger than
  // live_bytes on its own is still remembered while it is the only one.
  struct Limits {
    size_t live_entries = 16384;
    size_t retired_entries = 1024;
    size_t live_bytes = size_t{128} << 20;
    size_t retired_bytes = size_t{32} << 20;
  };
  DecodedValues() : DecodedValues(Limits()) {}
  explicit DecodedValues(Limits limits) : limits_(limits) {}

  // The JSON object `value` holds, with metadata.resourceVersion set to
  // `revision` when parsed now (`revision` must be the value's own
  // revision; 0 leaves it unset and is never remembered). A value that is
  // not a JSON object reads as {"metadata": {}}. Never null. With
  // `remember` false a value parsed now is not kept (for scans over every
  // object, which would push the recent ones out).
  std::shared_ptr<const api::Json> Get(const store::Value& value,
                                       int64_t revision, bool remember = true);

  // The typed object `value` holds as Get(value, revision) reads it, less
  // metadata.managedFields: what an in-process watcher that drops them
  // decodes, and all that update validation reads of the old object.
  // Decoded on first use and shared for as long as the value is
  // remembered; null when the object does not decode.
  std::shared_ptr<const api::Object> Typed(const store::Value& value,
                                           int64_t revision);

  struct Entry {
    store::Value value;  // keeps the address from being reused
    std::shared_ptr<const api::Json> object;
    std::shared_ptr<const api::Object> typed;  // null until Typed() asks
    uint64_t sequence = 0;  // which slot of the insertion order is its own
    bool retired = false;   // replaced by an update of its object
    size_t bytes = 0;       // value->size()
  };
  // What a writer knows of the value it has just stored.
  struct Written {
    // The parsed form of the value: the caller has just serialised it,
    // without resourceVersion, and set resourceVersion to the value's
    // revision. Not null.
    std::shared_ptr<const api::Json> object;
    // What Typed() would decode from it (managedFields dropped), when the
    // writer has it in hand; null to decode on first use.
    std::shared_ptr<const api::Object> typed;
    // The value this one replaces (an update's previous value), null for a
    // create: retired, as only readers lagging behind will ask for it.
    store::Value superseded;
  };
  // Records `written` for `value`. The entries this pushes out are
  // destroyed before it returns, or moved to `evicted` when given (for a
  // caller holding a lock that should not wait for that).
  void Put(const store::Value& value, Written written,
           std::vector<Entry>* evicted = nullptr);

 private:
  // Adds an entry; the entries it pushes out are moved to `evicted`, to
  // be destroyed after the lock is released (freeing a parsed object
  // takes as long as a lookup takes many times over).
  void PutLocked(const store::Value& value,
                 std::shared_ptr<const api::Json> object,
                 std::shared_ptr<const api::Object> typed,
                 std::vector<Entry>& evicted)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // One insertion: an entry's slot while the entry's sequence matches
  // (a forgotten entry leaves its slot behind).
  struct Slot {
    const std::string* key;
    uint64_t sequence;
  };
  // Whether `slot` is still its entry's, and the entry is (not) retired.
  bool Holds(const Slot& slot, bool retired) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void EvictLocked(const std::string* key, std::vector<Entry>& evicted)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Marks the entry of `key` (if any) retired, forgetting the oldest
  // retired entries beyond the retired limits.
  void RetireLocked(const std::string* key, std::vector<Entry>& evicted)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Limits limits_;
  absl::Mutex mu_;
  absl::flat_hash_map<const std::string*, Entry> entries_ ABSL_GUARDED_BY(mu_);
  size_t live_ ABSL_GUARDED_BY(mu_) = 0;  // entries not retired
  size_t live_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  size_t retired_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<Slot> order_
      ABSL_GUARDED_BY(mu_);  // live entries' insertions, oldest first
  std::deque<Slot> retired_
      ABSL_GUARDED_BY(mu_);  // retired entries, oldest first
  uint64_t next_sequence_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_DECODED_VALUES_H_
