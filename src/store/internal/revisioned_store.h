// The one implementation of the Store semantics (store.h): an in-memory
// multi-version index of every key, the retained event history and the
// watchers, with an optional journal for durability.
#ifndef DRAPLANE_STORE_INTERNAL_REVISIONED_STORE_H_
#define DRAPLANE_STORE_INTERNAL_REVISIONED_STORE_H_

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "store/internal/journal.h"
#include "store/store.h"

namespace draplane::store::internal {

class RevisionedStore : public Store {
 public:
  // `journal` may be null (memory only).
  RevisionedStore(const StoreOptions& options,
                  std::unique_ptr<Journal> journal);
  ~RevisionedStore() override;

  // Rebuilding from a journal, before the store is shared: entries in
  // revision order, then the compact revision.
  void Replay(const JournalEntry& entry);
  void FinishReplay(int64_t compact_revision);

  int64_t Revision() const override;
  int64_t CompactRevision() const override;
  absl::StatusOr<Record> Get(std::string_view key,
                             int64_t revision) const override;
  absl::StatusOr<ListResult> List(const ListOptions& options) const override;
  int64_t Count(std::string_view prefix) const override;
  // The same defaults as Store's.
  absl::StatusOr<Record> Create(std::string_view key, std::string value,
                                const AppliedFn& on_applied = nullptr) override;
  absl::StatusOr<Record> Update(std::string_view key, std::string value,
                                int64_t expected_mod_revision,
                                const AppliedFn& on_applied = nullptr) override;
  absl::StatusOr<Record> Delete(std::string_view key,
                                int64_t expected_mod_revision) override;
  absl::StatusOr<std::unique_ptr<Watch>> WatchPrefix(std::string_view prefix,
                                                     int64_t after_revision,
                                                     WatchSink sink) override;
  absl::Status Compact(int64_t revision) override;
  JournalStats journal_stats() const override;
  StoreUsage Usage() const override;
  absl::StatusOr<int64_t> Backup(const std::string& path) const override;

  // Journaled writes checked and waiting for the next group commit (not
  // counting the batch being committed); for tests and metrics.
  size_t StagedWrites() const;

 private:
  struct Version {
    int64_t revision = 0;
    int64_t create_revision = 0;
    Value value;  // null: deleted at `revision`
  };
  struct Watcher {
    std::string prefix;
    int64_t after_revision = 0;
    WatchSink sink;
  };
  class WatchHandle;
  enum class Op { kCreate, kUpdate, kDelete };

  absl::StatusOr<Record> Write(Op op, std::string_view key, std::string value,
                               int64_t expected_mod_revision,
                               const AppliedFn* on_applied);
  // A journaled write between its checks and its commit.
  struct Staged {
    JournalEntry entry;
    // The outcome, set by the committer before `done` (release); read
    // once `done` is (acquire).
    std::atomic<bool> done{false};
    absl::Status status;
    Record record;
    // Bumped (and its waiters woken) when the write is done or when its
    // writer should look whether it must commit; waited on by the writer
    // and by writers refused because of it.
    std::atomic<uint32_t> signal{0};
    // The writer's, called by the committer when applying (the writer
    // waits until then); null when none.
    const AppliedFn* on_applied = nullptr;
  };
  // Group commit: returns when `mine` is done. While no commit is under
  // way a waiting writer becomes the committer: it journals every staged
  // write in one transaction (CommitBatch) and applies them, then wakes
  // the writers of that batch only, and the writer of the oldest write
  // staged meanwhile to commit the next batch (the others sleep on, and
  // nobody queues for the journal).
  void CommitStaged(Staged& mine);
  // Bumps `staged.signal` and wakes its waiters.
  static void Wake(Staged& staged);
  // The committer's part: the writes it took, with status and record set.
  std::vector<std::shared_ptr<Staged>> CommitBatch();
  // Caller holds state_mu_ (shared or exclusive).
  absl::Status CheckReadRevision(int64_t revision) const;
  const Version* VersionAt(const std::vector<Version>& versions,
                           int64_t revision) const;
  // Caller holds state_mu_ exclusively.
  // `on_applied` (may be null) gets the applied record before watchers
  // are notified.
  void ApplyLocked(const JournalEntry& entry, bool notify,
                   const AppliedFn* on_applied = nullptr);
  void CompactLocked(int64_t revision);
  // Caller holds write_mu_ and state_mu_ exclusively.
  void ClearSpaceAlarmIfUnderQuotaLocked();
  // The bytes a version of `key` counts against the quota.
  static int64_t VersionBytes(std::string_view key, const std::string* value);
  // Caller holds write_mu_: the NOSPACE refusal of a write of `bytes`
  // more, or OK (raising the alarm when refusing).
  absl::Status CheckQuotaLocked(int64_t bytes);
  void RemoveWatcher(uint64_t id);

  const StoreOptions options_;
  std::unique_ptr<Journal> journal_;

  // Lock order: commit_mu_, write_mu_, state_mu_; group_mu_ is never held
  // with another.
  // Guards `committing_` (a committer is at work).
  std::mutex group_mu_;
  bool committing_ = false;
  // One journal user at a time (the group committer, compaction).
  std::mutex commit_mu_;
  // Written by the group committer, read by journal_stats() at any time.
  std::atomic<int64_t> journal_commits_{0};
  std::atomic<int64_t> journal_entries_{0};
  std::atomic<int64_t> journal_commit_nanos_{0};
  // Serialises writers' checks; the state below changes only under both
  // write_mu_ and state_mu_, so a holder of write_mu_ reads it freely.
  // Never held across a journal append, so a slow disk blocks neither
  // readers nor the checks of the writes that join the next commit.
  mutable std::mutex write_mu_;
  // Guarded by write_mu_: journaled writes waiting for a commit, the
  // newest staged write of each key (what later writes are checked
  // against), and the newest revision handed out.
  std::vector<std::shared_ptr<Staged>> staged_;
  std::map<std::string, std::shared_ptr<Staged>, std::less<>> staged_keys_;
  int64_t staged_revision_ = 0;
  // Guarded by write_mu_: the quota bytes of the staged writes, and the
  // space alarm (read by Usage() under state_mu_ too, so changed only
  // with both held).
  int64_t staged_bytes_ = 0;
  bool space_alarm_ = false;
  // Guards everything below.
  mutable std::shared_mutex state_mu_;
  int64_t revision_ = 0;
  int64_t compact_revision_ = 0;
  int64_t live_keys_ = 0;
  int64_t stored_bytes_ = 0;
  int64_t retained_versions_ = 0;
  std::map<std::string, std::vector<Version>, std::less<>> keys_;
  std::deque<Event> history_;  // events with revision > compact_revision_
  std::map<uint64_t, Watcher> watchers_;
  uint64_t next_watcher_ = 1;
};

}  // namespace draplane::store::internal

#endif  // DRAPLANE_STORE_INTERNAL_REVISIONED_STORE_H_
