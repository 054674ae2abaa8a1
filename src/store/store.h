// A revisioned key-value store with watch: the storage model Kubernetes'
// API server expects from etcd, embedded.
//
// Semantics (etcd v3, as kube-apiserver uses it):
//  - One global revision, incremented by exactly 1 by every successful
//    write; it is the resourceVersion of everything the API server returns.
//  - Each key has a create_revision (kept until it is deleted) and a
//    mod_revision (the revision of its last write). Writes can be made
//    conditional on the mod_revision (optimistic concurrency).
//  - Reads at an older revision and watches from an older revision work
//    until that revision is compacted; then they fail with IsCompacted().
//  - Watch delivers every change under a key prefix in revision order,
//    first the retained history after the start revision, then live
//    changes, with no gap and no duplicate.
//
// Backends: the in-memory store (tests, simulation) and the SQLite store
// (standalone server: one file, WAL, every acknowledged write is on disk
// before the call returns). Both share one implementation of the
// semantics; SQLite only adds durability. Thread-safe: any number of
// readers, writers and watchers at once.
#ifndef DRAPLANE_STORE_STORE_H_
#define DRAPLANE_STORE_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace draplane::store {

// Values are immutable once written and shared between the index, the
// event history and every watcher.
using Value = std::shared_ptr<const std::string>;

// The version of a key visible at some revision.
struct Record {
  std::string key;
  Value value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
};

enum class EventType { kCreated, kUpdated, kDeleted };

struct Event {
  EventType type = EventType::kCreated;
  int64_t revision = 0;  // the write's revision
  std::string key;
  // kCreated/kUpdated: the new value. kDeleted: the value that was deleted.
  Value value;
  // kUpdated/kDeleted: the value before the write. kCreated: null.
  Value prev_value;
  int64_t create_revision = 0;  // of the key (of the deleted key for kDeleted)
};

struct ListOptions {
  std::string prefix;       // keys starting with this
  std::string start_after;  // only keys > this (pagination); "" = from start
  int64_t limit = 0;        // at most this many records; 0 = all
  int64_t revision = 0;     // read at this revision; 0 = the current one
};

struct ListResult {
  std::vector<Record> records;  // in key order
  int64_t revision = 0;         // the revision read at
  int64_t remaining = 0;        // matching keys after the last record
};

// Called for each event of a watch, in revision order. Runs on the thread
// of the write that made the event (or of Watch() for history) while the
// store holds an internal lock: it must be quick (queue the event) and must
// not call the store.
using WatchSink = std::function<void(const Event&)>;

// Called once with the record of a create or update when it is applied,
// before any watcher is told of it (so that what the writer derives from
// the value, e.g. its parsed form, is in place before a watcher asks).
// Runs while the store holds an internal lock: it must be quick and must
// not call the store. Not called for a write that fails.
using AppliedFn = std::function<void(const Record&)>;

// A live watch. Destroying it cancels it: once the destructor returns the
// sink is never called again.
class Watch {
 public:
  virtual ~Watch() = default;
};

// What a durable store's journal has done since the store was opened (all
// zero for the in-memory store): the figures behind etcd's
// etcd_disk_wal_fsync_duration_seconds, for benchmarks and metrics.
struct JournalStats {
  int64_t commits = 0;       // group commits: one transaction and one sync each
  int64_t entries = 0;       // writes those commits journaled
  int64_t commit_nanos = 0;  // wall time spent in them, in total
};

// How much a store holds, for metrics and `draplane store` commands.
struct StoreUsage {
  // Every retained version's key and value bytes: the live objects and the
  // history not compacted yet (what etcd's quota counts as its database).
  int64_t stored_bytes = 0;
  int64_t quota_bytes = 0;  // 0: no quota
  // The space alarm (etcd's NOSPACE) is raised: writes other than deletes
  // are refused until compaction brings stored_bytes under the quota.
  bool space_alarm = false;
  int64_t live_keys = 0;
  int64_t retained_versions = 0;  // live, superseded and deleted versions
};

struct StoreOptions {
  // Revisions of history kept for watches and old reads; older history is
  // compacted automatically (in batches, so up to twice this is kept).
  // 0 keeps everything until Compact() is called. Compaction by age is
  // PeriodicCompactor's (compactor.h).
  int64_t retain_revisions = 100000;
  // The quota on stored bytes (StoreUsage::stored_bytes), etcd's
  // --quota-backend-bytes with its 2 GiB default; 0: none. A create or
  // update that would take the stored bytes past it is refused with
  // IsNoSpace() and raises the space alarm; while the alarm is raised every
  // write but a delete is refused. The alarm clears itself when a
  // compaction leaves the stored bytes at or under the quota.
  int64_t quota_bytes = int64_t{2} << 30;
  // The SQLite VFS the SQLite store opens its file with ("" = SQLite's
  // default); tests inject power loss and full disks with one.
  std::string sqlite_vfs = {};
};

class Store {
 public:
  virtual ~Store() = default;

  // The current revision (0 for an empty new store).
  virtual int64_t Revision() const = 0;
  // The revision up to which history is compacted (0 = none).
  virtual int64_t CompactRevision() const = 0;

  // The key at `revision` (0 = current). NotFound when absent then;
  // IsCompacted() / IsFutureRevision() for revisions out of range.
  virtual absl::StatusOr<Record> Get(std::string_view key,
                                     int64_t revision = 0) const = 0;
  virtual absl::StatusOr<ListResult> List(const ListOptions& options) const = 0;
  // Number of keys under `prefix` now.
  virtual int64_t Count(std::string_view prefix) const = 0;

  // Creates `key`; AlreadyExists when it exists.
  virtual absl::StatusOr<Record> Create(
      std::string_view key, std::string value,
      const AppliedFn& on_applied = nullptr) = 0;
  // Replaces `key`'s value. `expected_mod_revision` 0 = unconditional;
  // otherwise IsConflict() unless it equals the key's mod_revision.
  // NotFound when the key does not exist.
  virtual absl::StatusOr<Record> Update(
      std::string_view key, std::string value, int64_t expected_mod_revision,
      const AppliedFn& on_applied = nullptr) = 0;
  // Deletes `key`, with the same precondition as Update. Returns the
  // deleted record with mod_revision set to the deletion's revision.
  virtual absl::StatusOr<Record> Delete(std::string_view key,
                                        int64_t expected_mod_revision) = 0;

  // Watches keys under `prefix`: events with revision > after_revision,
  // history first. IsCompacted() when after_revision < CompactRevision().
  // A start revision in the future is allowed (events arrive when made).
  virtual absl::StatusOr<std::unique_ptr<Watch>> WatchPrefix(
      std::string_view prefix, int64_t after_revision, WatchSink sink) = 0;

  // Drops history at or below `revision` (<= the current revision), then
  // clears the space alarm if the stored bytes are at or under the quota
  // (also when `revision` is at or below CompactRevision(): nothing is
  // dropped then, but the alarm is checked).
  virtual absl::Status Compact(int64_t revision) = 0;

  virtual JournalStats journal_stats() const = 0;
  virtual StoreUsage Usage() const = 0;

  // Writes a consistent copy of the store (every retained version, the
  // compact revision, so every resourceVersion) as a new SQLite store file
  // at `path`, which must not exist; written to a temporary file beside it,
  // synced and renamed. Writes go on meanwhile. Returns the revision the
  // copy was taken at.
  virtual absl::StatusOr<int64_t> Backup(const std::string& path) const = 0;
};

// A store that keeps everything in memory.
std::unique_ptr<Store> NewMemoryStore(const StoreOptions& options = {});

// A durable store in the SQLite database file `path` (created when
// missing; its directory must exist). Holds an exclusive lock on the file
// for the store's lifetime: a second open fails with FailedPrecondition.
absl::StatusOr<std::unique_ptr<Store>> OpenSqliteStore(
    const std::string& path, const StoreOptions& options = {});

// Installs the SQLite store file `backup` (made by Store::Backup) as the
// store file `path`, which must not exist: checks that it opens as a store
// of a format this draplane reads (upgrading it to the current format),
// then renames it into place. Returns the restored store's revision.
absl::StatusOr<int64_t> RestoreSqliteStore(const std::string& backup,
                                           const std::string& path);

// The store format this draplane writes; it opens files of this format and
// of the earlier ones, upgrading them in place, and refuses newer ones.
inline constexpr int64_t kSqliteStoreFormat = 1;

// Error classification (the API server maps these to HTTP statuses).
// Conflict: a conditional write's expected mod_revision was stale (409).
bool IsConflict(const absl::Status& status);
// Compacted: the revision asked for is no longer retained (410 Gone).
bool IsCompacted(const absl::Status& status);
// Future revision: a read at a revision not reached yet.
bool IsFutureRevision(const absl::Status& status);
// No space: the store's quota is used up (etcd's NOSPACE alarm); writes
// other than deletes are refused. (A full disk fails writes with an
// Internal status instead: deletes need space too.)
bool IsNoSpace(const absl::Status& status);

}  // namespace draplane::store

#endif  // DRAPLANE_STORE_STORE_H_
