// The durability seam of the store: every write is appended to a journal
// before it becomes visible, and a store is rebuilt from its journal on
// open. The in-memory store has no journal.
#ifndef DRAPLANE_STORE_INTERNAL_JOURNAL_H_
#define DRAPLANE_STORE_INTERNAL_JOURNAL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "store/store.h"

namespace draplane::store::internal {

// One write: the new version of a key (or its tombstone).
struct JournalEntry {
  int64_t revision = 0;
  std::string key;
  int64_t create_revision = 0;
  bool deleted = false;
  std::string value;          // the new value; for deletions the old one
  int64_t prev_revision = 0;  // the key's previous version, 0 if none
};

// A retained version, for writing a snapshot: as a JournalEntry, with the
// value shared with the store rather than copied.
struct SnapshotVersion {
  int64_t revision = 0;
  std::string key;
  int64_t create_revision = 0;
  int64_t prev_revision = 0;
  bool deleted = false;
  Value value;  // never null; for deletions the deleted value
};

class Journal {
 public:
  virtual ~Journal() = default;
  // Appends `entries` (consecutive revisions, in order) as one
  // transaction: all durable when it returns OK; on error none is kept.
  virtual absl::Status Append(
      const std::vector<const JournalEntry*>& entries) = 0;
  // Forgets versions at or below `revision` that a newer version at or
  // below it supersedes, and tombstones at or below it; remembers
  // `revision` as the compact revision.
  virtual absl::Status Compact(int64_t revision) = 0;
};

}  // namespace draplane::store::internal

#endif  // DRAPLANE_STORE_INTERNAL_JOURNAL_H_
