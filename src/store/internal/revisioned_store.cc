#include "store/internal/revisioned_store.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/cord.h"
#include "common/str_cat.h"
#include "store/internal/sqlite_journal.h"

namespace draplane::store {
namespace {

constexpr char kErrorPayload[] = "draplane.dev/store-error";

absl::Status WithKind(absl::Status status, const char* kind) {
  status.SetPayload(kErrorPayload, absl::Cord(kind));
  return status;
}

bool HasKind(const absl::Status& status, const char* kind) {
  auto payload = status.GetPayload(kErrorPayload);
  return payload.has_value() && *payload == kind;
}

bool HasPrefix(std::string_view key, std::string_view prefix) {
  return key.substr(0, prefix.size()) == prefix;
}

}  // namespace

bool IsConflict(const absl::Status& status) {
  return HasKind(status, "conflict");
}
bool IsCompacted(const absl::Status& status) {
  return HasKind(status, "compacted");
}
bool IsFutureRevision(const absl::Status& status) {
  return HasKind(status, "future");
}
bool IsNoSpace(const absl::Status& status) {
  return HasKind(status, "nospace");
}

namespace internal {

class RevisionedStore::WatchHandle : public Watch {
 public:
  WatchHandle(RevisionedStore* store, uint64_t id) : store_(store), id_(id) {}
  ~WatchHandle() override { store_->RemoveWatcher(id_); }

 private:
  RevisionedStore* store_;
  uint64_t id_;
};

RevisionedStore::RevisionedStore(const StoreOptions& options,
                                 std::unique_ptr<Journal> journal)
    : options_(options), journal_(std::move(journal)) {}

RevisionedStore::~RevisionedStore() = default;

void RevisionedStore::Replay(const JournalEntry& entry) {
  std::unique_lock lock(state_mu_);
  ApplyLocked(entry, /*notify=*/false);
}

void RevisionedStore::FinishReplay(int64_t compact_revision) {
  std::unique_lock lock(state_mu_);
  revision_ = std::max(revision_, compact_revision);
  // The journal keeps the newest version at or below the compact revision
  // of each key: their events are not history any more.
  while (!history_.empty() && history_.front().revision <= compact_revision) {
    history_.pop_front();
  }
  compact_revision_ = compact_revision;
  space_alarm_ =
      options_.quota_bytes > 0 && stored_bytes_ > options_.quota_bytes;
}

int64_t RevisionedStore::Revision() const {
  std::shared_lock lock(state_mu_);
  return revision_;
}

int64_t RevisionedStore::CompactRevision() const {
  std::shared_lock lock(state_mu_);
  return compact_revision_;
}

absl::Status RevisionedStore::CheckReadRevision(int64_t revision) const {
  if (revision < 0) {
    return absl::InvalidArgumentError(StrCat("invalid revision ", revision));
  }
  if (revision > revision_) {
    return WithKind(absl::OutOfRangeError(StrCat(
                        "required revision ", revision,
                        " is a future revision (current ", revision_, ")")),
                    "future");
  }
  if (revision != 0 && revision < compact_revision_) {
    return WithKind(
        absl::OutOfRangeError(StrCat("required revision ", revision,
                                     " has been compacted (compacted to ",
                                     compact_revision_, ")")),
        "compacted");
  }
  return absl::OkStatus();
}

const RevisionedStore::Version* RevisionedStore::VersionAt(
    const std::vector<Version>& versions, int64_t revision) const {
  // Versions are in revision order; the newest at or below `revision`.
  auto it = std::upper_bound(
      versions.begin(), versions.end(), revision,
      [](int64_t r, const Version& v) { return r < v.revision; });
  if (it == versions.begin()) return nullptr;
  --it;
  return it->value == nullptr ? nullptr : &*it;
}

absl::StatusOr<Record> RevisionedStore::Get(std::string_view key,
                                            int64_t revision) const {
  std::shared_lock lock(state_mu_);
  if (auto s = CheckReadRevision(revision); !s.ok()) return s;
  const int64_t at = revision == 0 ? revision_ : revision;
  auto it = keys_.find(key);
  const Version* v = it == keys_.end() ? nullptr : VersionAt(it->second, at);
  if (v == nullptr)
    return absl::NotFoundError(StrCat("key ", key, " not found"));
  return Record{std::string(key), v->value, v->create_revision, v->revision};
}

absl::StatusOr<ListResult> RevisionedStore::List(
    const ListOptions& options) const {
  std::shared_lock lock(state_mu_);
  if (auto s = CheckReadRevision(options.revision); !s.ok()) return s;
  ListResult result;
  result.revision = options.revision == 0 ? revision_ : options.revision;
  auto it = options.start_after.empty() || options.start_after < options.prefix
                ? keys_.lower_bound(options.prefix)
                : keys_.upper_bound(options.start_after);
  for (; it != keys_.end() && HasPrefix(it->first, options.prefix); ++it) {
    const Version* v = VersionAt(it->second, result.revision);
    if (v == nullptr) continue;
    if (options.limit > 0 &&
        static_cast<int64_t>(result.records.size()) >= options.limit) {
      ++result.remaining;
      continue;
    }
    result.records.push_back(
        Record{it->first, v->value, v->create_revision, v->revision});
  }
  return result;
}

int64_t RevisionedStore::Count(std::string_view prefix) const {
  std::shared_lock lock(state_mu_);
  int64_t n = 0;
  for (auto it = keys_.lower_bound(prefix);
       it != keys_.end() && HasPrefix(it->first, prefix); ++it) {
    if (it->second.back().value != nullptr) ++n;
  }
  return n;
}

absl::StatusOr<Record> RevisionedStore::Create(std::string_view key,
                                               std::string value,
                                               const AppliedFn& on_applied) {
  return Write(Op::kCreate, key, std::move(value), 0,
               on_applied ? &on_applied : nullptr);
}

absl::StatusOr<Record> RevisionedStore::Update(std::string_view key,
                                               std::string value,
                                               int64_t expected_mod_revision,
                                               const AppliedFn& on_applied) {
  return Write(Op::kUpdate, key, std::move(value), expected_mod_revision,
               on_applied ? &on_applied : nullptr);
}

absl::StatusOr<Record> RevisionedStore::Delete(std::string_view key,
                                               int64_t expected_mod_revision) {
  return Write(Op::kDelete, key, "", expected_mod_revision, nullptr);
}

absl::StatusOr<Record> RevisionedStore::Write(Op op, std::string_view key,
                                              std::string value,
                                              int64_t expected_mod_revision,
                                              const AppliedFn* on_applied) {
  if (key.empty()) return absl::InvalidArgumentError("empty key");
  std::unique_lock write_lock(write_mu_);
  // The newest version of the key, staged or applied.
  bool known = false;  // the key has a version (possibly a tombstone)
  int64_t latest_revision = 0;
  int64_t latest_create_revision = 0;
  const std::string* latest_value = nullptr;  // null: none or deleted
  // The staged write the latest version comes from, if any: a write it
  // fails waits for its commit, so that the caller's retry reads it.
  std::shared_ptr<Staged> latest_staged;
  auto refuse = [&](absl::Status error) -> absl::StatusOr<Record> {
    if (latest_staged != nullptr) {
      write_lock.unlock();
      CommitStaged(*latest_staged);
    }
    return error;
  };
  if (auto st = staged_keys_.find(key); st != staged_keys_.end()) {
    latest_staged = st->second;
    const JournalEntry& e = st->second->entry;
    known = true;
    latest_revision = e.revision;
    latest_create_revision = e.create_revision;
    if (!e.deleted) latest_value = &e.value;
  } else if (auto it = keys_.find(key); it != keys_.end()) {
    const Version& v = it->second.back();
    known = true;
    latest_revision = v.revision;
    latest_create_revision = v.create_revision;
    latest_value = v.value.get();
  }
  JournalEntry entry;
  entry.revision = std::max(revision_, staged_revision_) + 1;
  entry.key = std::string(key);
  if (op == Op::kCreate) {
    if (latest_value != nullptr) {
      return refuse(
          absl::AlreadyExistsError(StrCat("key ", key, " already exists")));
    }
    entry.create_revision = entry.revision;
    entry.value = std::move(value);
  } else {
    if (latest_value == nullptr) {
      return refuse(absl::NotFoundError(StrCat("key ", key, " not found")));
    }
    if (expected_mod_revision != 0 &&
        expected_mod_revision != latest_revision) {
      return refuse(WithKind(
          absl::AbortedError(StrCat("key ", key, " was modified at revision ",
                                    latest_revision, ", expected ",
                                    expected_mod_revision)),
          "conflict"));
    }
    entry.create_revision = latest_create_revision;
    entry.deleted = op == Op::kDelete;
    if (op == Op::kDelete) {
      entry.value = *latest_value;
    } else {
      entry.value = std::move(value);
    }
  }
  if (known) entry.prev_revision = latest_revision;
  const int64_t bytes =
      VersionBytes(entry.key, entry.deleted ? nullptr : &entry.value);
  if (!entry.deleted) {
    if (absl::Status quota = CheckQuotaLocked(bytes); !quota.ok()) {
      return quota;
    }
  }

  if (journal_ == nullptr) {  // memory only: applied at once
    Record record{entry.key, nullptr, entry.create_revision, entry.revision};
    std::unique_lock lock(state_mu_);
    ApplyLocked(entry, /*notify=*/true, on_applied);
    record.value = entry.deleted ? history_.back().value
                                 : keys_.find(key)->second.back().value;
    if (options_.retain_revisions > 0 &&
        revision_ - compact_revision_ >= 2 * options_.retain_revisions) {
      CompactLocked(revision_ - options_.retain_revisions);
    }
    return record;
  }
  auto staged = std::make_shared<Staged>();
  staged->entry = std::move(entry);
  staged->on_applied = on_applied;
  staged_revision_ = staged->entry.revision;
  staged_bytes_ += bytes;
  staged_keys_[staged->entry.key] = staged;
  staged_.push_back(staged);
  write_lock.unlock();
  CommitStaged(*staged);
  // Moved out: nobody reads it after `done`; no status rep is shared
  // between threads.
  if (!staged->status.ok()) return std::move(staged->status);
  return staged->record;
}

void RevisionedStore::Wake(Staged& staged) {
  staged.signal.fetch_add(1, std::memory_order_release);
  staged.signal.notify_all();
}

void RevisionedStore::CommitStaged(Staged& mine) {
  for (;;) {
    // Read before the checks: a wake after them changes it, so the wait
    // below cannot miss it.
    const uint32_t seen = mine.signal.load(std::memory_order_acquire);
    if (mine.done.load(std::memory_order_acquire)) return;
    {
      std::lock_guard group_lock(group_mu_);
      // A committer marks its writes done before it clears `committing_`.
      if (mine.done.load(std::memory_order_acquire)) return;
      if (!committing_) {
        committing_ = true;
        break;
      }
    }
    mine.signal.wait(seen, std::memory_order_acquire);
  }
  // The committer: `mine` is still staged, so the batch holds it.
  std::vector<std::shared_ptr<Staged>> batch = CommitBatch();
  for (const auto& b : batch) b->done.store(true, std::memory_order_release);
  {
    std::lock_guard group_lock(group_mu_);
    committing_ = false;
  }
  // Whoever staged the oldest write still waiting commits next; a writer
  // arriving meanwhile may have begun already (then this wake is spurious).
  // Read only after `committing_` is cleared (not inside CommitBatch): a
  // write staged before the clear is seen here, one staged after it finds
  // no committer and commits itself.
  std::shared_ptr<Staged> next;
  {
    std::lock_guard write_lock(write_mu_);
    if (!staged_.empty()) next = staged_.front();
  }
  // `mine` too: writers refused because of it may wait on it.
  for (const auto& b : batch) Wake(*b);
  if (next != nullptr) Wake(*next);
}

std::vector<std::shared_ptr<RevisionedStore::Staged>>
RevisionedStore::CommitBatch() {
  std::lock_guard commit_lock(commit_mu_);
  std::vector<std::shared_ptr<Staged>> batch;
  {
    std::lock_guard write_lock(write_mu_);
    batch.swap(staged_);
  }
  std::vector<const JournalEntry*> entries;
  entries.reserve(batch.size());
  for (const auto& b : batch) entries.push_back(&b->entry);
  const auto append_start = std::chrono::steady_clock::now();
  const absl::Status appended = journal_->Append(entries);
  journal_commits_.fetch_add(1, std::memory_order_relaxed);
  journal_entries_.fetch_add(static_cast<int64_t>(entries.size()),
                             std::memory_order_relaxed);
  journal_commit_nanos_.fetch_add(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now() - append_start)
          .count(),
      std::memory_order_relaxed);

  std::lock_guard write_lock(write_mu_);
  if (!appended.ok()) {
    // Writes staged since were checked against these: they fail too, and
    // revisions continue from the last applied one.
    for (auto& later : staged_) batch.push_back(std::move(later));
    staged_.clear();
    staged_keys_.clear();
    staged_revision_ = revision_;
    staged_bytes_ = 0;
    // One status each, not copies sharing one reference-counted rep: the
    // writers take theirs in their own threads.
    for (const auto& b : batch) {
      b->status = absl::Status(appended.code(), appended.message());
    }
    return batch;
  }
  std::unique_lock lock(state_mu_);
  for (const auto& b : batch) {
    const JournalEntry& e = b->entry;
    ApplyLocked(e, /*notify=*/true, b->on_applied);
    staged_bytes_ -= VersionBytes(e.key, e.deleted ? nullptr : &e.value);
    b->record = Record{e.key,
                       e.deleted ? history_.back().value
                                 : keys_.find(e.key)->second.back().value,
                       e.create_revision, e.revision};
    if (auto st = staged_keys_.find(e.key);
        st != staged_keys_.end() && st->second == b) {
      staged_keys_.erase(st);
    }
  }
  if (options_.retain_revisions > 0 &&
      revision_ - compact_revision_ >= 2 * options_.retain_revisions) {
    const int64_t target = revision_ - options_.retain_revisions;
    if (journal_->Compact(target).ok()) CompactLocked(target);
  }
  return batch;
}

JournalStats RevisionedStore::journal_stats() const {
  return JournalStats{journal_commits_.load(std::memory_order_relaxed),
                      journal_entries_.load(std::memory_order_relaxed),
                      journal_commit_nanos_.load(std::memory_order_relaxed)};
}

StoreUsage RevisionedStore::Usage() const {
  std::shared_lock lock(state_mu_);
  return StoreUsage{stored_bytes_, options_.quota_bytes, space_alarm_,
                    live_keys_, retained_versions_};
}

int64_t RevisionedStore::VersionBytes(std::string_view key,
                                      const std::string* value) {
  return static_cast<int64_t>(key.size()) +
         (value == nullptr ? 0 : static_cast<int64_t>(value->size()));
}

absl::Status RevisionedStore::CheckQuotaLocked(int64_t bytes) {
  const int64_t quota = options_.quota_bytes;
  const int64_t used = stored_bytes_ + staged_bytes_;
  if (quota <= 0 || (!space_alarm_ && used + bytes <= quota)) {
    return absl::OkStatus();
  }
  if (!space_alarm_) {
    std::unique_lock lock(state_mu_);
    space_alarm_ = true;
  }
  return WithKind(
      absl::ResourceExhaustedError(StrCat(
          "database space exceeded: the store holds ", used,
          " bytes and its quota is ", quota,
          " bytes (--store-quota-bytes); deletes are accepted, other writes "
          "again once compaction brings the stored bytes under the quota")),
      "nospace");
}

size_t RevisionedStore::StagedWrites() const {
  std::lock_guard write_lock(write_mu_);
  return staged_.size();
}

void RevisionedStore::ApplyLocked(const JournalEntry& entry, bool notify,
                                  const AppliedFn* on_applied) {
  std::vector<Version>& versions = keys_[entry.key];
  Event event;
  event.revision = entry.revision;
  event.key = entry.key;
  event.create_revision = entry.create_revision;
  const bool existed = !versions.empty() && versions.back().value != nullptr;
  if (existed) event.prev_value = versions.back().value;
  Value value = std::make_shared<const std::string>(entry.value);
  stored_bytes_ +=
      VersionBytes(entry.key, entry.deleted ? nullptr : &entry.value);
  ++retained_versions_;
  if (entry.deleted) {
    event.type = EventType::kDeleted;
    event.value = event.prev_value ? event.prev_value : value;
    versions.push_back(Version{entry.revision, entry.create_revision, nullptr});
    if (existed) --live_keys_;
  } else {
    event.type = existed ? EventType::kUpdated : EventType::kCreated;
    event.value = value;
    versions.push_back(Version{entry.revision, entry.create_revision, value});
    if (!existed) ++live_keys_;
  }
  revision_ = std::max(revision_, entry.revision);
  history_.push_back(std::move(event));
  const Event& e = history_.back();
  if (on_applied != nullptr && !entry.deleted) {
    (*on_applied)(Record{e.key, e.value, e.create_revision, e.revision});
  }
  if (!notify) return;
  for (auto& [id, w] : watchers_) {
    if (e.revision > w.after_revision && HasPrefix(e.key, w.prefix)) {
      w.sink(e);
    }
  }
}

absl::StatusOr<std::unique_ptr<Watch>> RevisionedStore::WatchPrefix(
    std::string_view prefix, int64_t after_revision, WatchSink sink) {
  std::unique_lock lock(state_mu_);
  if (after_revision < compact_revision_) {
    return WithKind(
        absl::OutOfRangeError(StrCat("required revision ", after_revision,
                                     " has been compacted (compacted to ",
                                     compact_revision_, ")")),
        "compacted");
  }
  auto first = std::upper_bound(
      history_.begin(), history_.end(), after_revision,
      [](int64_t r, const Event& e) { return r < e.revision; });
  for (auto it = first; it != history_.end(); ++it) {
    if (HasPrefix(it->key, prefix)) sink(*it);
  }
  const uint64_t id = next_watcher_++;
  watchers_.emplace(
      id, Watcher{std::string(prefix), after_revision, std::move(sink)});
  return std::unique_ptr<Watch>(new WatchHandle(this, id));
}

void RevisionedStore::RemoveWatcher(uint64_t id) {
  std::unique_lock lock(state_mu_);
  watchers_.erase(id);
}

absl::Status RevisionedStore::Compact(int64_t revision) {
  std::lock_guard commit_lock(commit_mu_);
  std::lock_guard write_lock(write_mu_);
  {
    std::shared_lock lock(state_mu_);
    if (revision > revision_) {
      return absl::InvalidArgumentError(
          StrCat("cannot compact to revision ", revision,
                 ": the current revision is ", revision_));
    }
  }
  if (revision <= compact_revision_) {
    // Nothing to compact; the space alarm is checked all the same (a
    // refused write may have raised it while the stored bytes stayed
    // under the quota).
    std::unique_lock lock(state_mu_);
    ClearSpaceAlarmIfUnderQuotaLocked();
    return absl::OkStatus();
  }
  if (journal_ != nullptr) {
    if (auto s = journal_->Compact(revision); !s.ok()) return s;
  }
  std::unique_lock lock(state_mu_);
  CompactLocked(revision);
  return absl::OkStatus();
}

void RevisionedStore::CompactLocked(int64_t revision) {
  for (auto it = keys_.begin(); it != keys_.end();) {
    std::vector<Version>& versions = it->second;
    // Keep the newest version at or below `revision` (what reads at
    // `revision` see) unless it is a tombstone, and everything newer.
    size_t keep_from = 0;
    while (keep_from + 1 < versions.size() &&
           versions[keep_from + 1].revision <= revision) {
      ++keep_from;
    }
    if (versions[keep_from].revision <= revision &&
        versions[keep_from].value == nullptr) {
      ++keep_from;
    }
    for (size_t i = 0; i < keep_from; ++i) {
      stored_bytes_ -= VersionBytes(it->first, versions[i].value.get());
    }
    retained_versions_ -= static_cast<int64_t>(keep_from);
    versions.erase(versions.begin(), versions.begin() + keep_from);
    it = versions.empty() ? keys_.erase(it) : std::next(it);
  }
  while (!history_.empty() && history_.front().revision <= revision) {
    history_.pop_front();
  }
  compact_revision_ = revision;
  ClearSpaceAlarmIfUnderQuotaLocked();
}

void RevisionedStore::ClearSpaceAlarmIfUnderQuotaLocked() {
  if (space_alarm_ && stored_bytes_ + staged_bytes_ <= options_.quota_bytes) {
    space_alarm_ = false;
  }
}

absl::StatusOr<int64_t> RevisionedStore::Backup(const std::string& path) const {
  std::vector<SnapshotVersion> versions;
  int64_t compact_revision = 0;
  int64_t revision = 0;
  {
    std::shared_lock lock(state_mu_);
    versions.reserve(static_cast<size_t>(retained_versions_));
    for (const auto& [key, key_versions] : keys_) {
      const Version* prev = nullptr;
      for (const Version& v : key_versions) {
        // A tombstone journals the value it deleted (its predecessor's:
        // compaction never drops the predecessor of a retained tombstone).
        Value value = v.value;
        if (value == nullptr && prev != nullptr) value = prev->value;
        versions.push_back(SnapshotVersion{
            v.revision, key, v.create_revision,
            prev == nullptr ? 0 : prev->revision, v.value == nullptr,
            value == nullptr ? std::make_shared<const std::string>()
                             : std::move(value)});
        prev = &v;
      }
    }
    compact_revision = compact_revision_;
    revision = revision_;
  }
  std::sort(versions.begin(), versions.end(),
            [](const SnapshotVersion& a, const SnapshotVersion& b) {
              return a.revision < b.revision;
            });
  if (absl::Status s = WriteSqliteSnapshot(path, versions, compact_revision);
      !s.ok()) {
    return s;
  }
  return revision;
}

}  // namespace internal

std::unique_ptr<Store> NewMemoryStore(const StoreOptions& options) {
  return std::make_unique<internal::RevisionedStore>(options, nullptr);
}

}  // namespace draplane::store
