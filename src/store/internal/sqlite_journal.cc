#include "store/internal/sqlite_journal.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>

#include "common/private_files.h"
#include "common/str_cat.h"

namespace draplane::store::internal {
namespace {

constexpr char kSchema[] = R"sql(
CREATE TABLE IF NOT EXISTS log (
  revision INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  value BLOB NOT NULL
);
DROP INDEX IF EXISTS log_prev_revision;
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
)sql";

constexpr char kInsert[] =
    "INSERT INTO log (revision, key, create_revision, prev_revision, "
    "deleted, value) VALUES (?, ?, ?, ?, ?, ?)";

absl::Status SqliteError(sqlite3* db, std::string_view what) {
  return absl::InternalError(StrCat("sqlite: ", what, ": ",
                                    db ? sqlite3_errmsg(db) : "out of memory"));
}

// A prepared statement, finalized on destruction.
class Statement {
 public:
  Statement() = default;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() { sqlite3_finalize(stmt_); }
  absl::Status Prepare(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) {
      return SqliteError(db, StrCat("prepare ", sql));
    }
    return absl::OkStatus();
  }
  sqlite3_stmt* get() const { return stmt_; }
  void Finalize() {
    sqlite3_finalize(stmt_);
    stmt_ = nullptr;
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

class SqliteJournal : public Journal {
 public:
  SqliteJournal(sqlite3* db, int lock_fd) : db_(db), lock_fd_(lock_fd) {}
  ~SqliteJournal() override {
    insert_.Finalize();
    begin_.Finalize();
    commit_.Finalize();
    rollback_.Finalize();
    sqlite3_close_v2(db_);
    if (lock_fd_ >= 0) close(lock_fd_);
  }

  absl::Status Init() {
    if (auto s = insert_.Prepare(db_, kInsert); !s.ok()) {
      return s;
    }
    for (auto [statement, sql] :
         {std::pair{&begin_, "BEGIN IMMEDIATE"}, std::pair{&commit_, "COMMIT"},
          std::pair{&rollback_, "ROLLBACK"}}) {
      if (auto s = statement->Prepare(db_, sql); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status Append(
      const std::vector<const JournalEntry*>& entries) override {
    if (entries.empty()) return absl::OkStatus();
    if (!Step(begin_)) return SqliteError(db_, "begin");
    absl::Status s;
    for (const JournalEntry* e : entries) {
      if (s = Insert(*e); !s.ok()) break;
    }
    if (s.ok() && !Step(commit_)) s = SqliteError(db_, "commit");
    if (!s.ok()) Step(rollback_);
    return s;
  }

  absl::Status Compact(int64_t revision) override {
    if (!Step(begin_)) return SqliteError(db_, "begin");
    Statement del, meta;
    absl::Status s = del.Prepare(
        db_,
        "DELETE FROM log WHERE revision <= ?1 AND (deleted = 1 OR revision "
        "IN (SELECT prev_revision FROM log WHERE revision <= ?1))");
    if (s.ok()) {
      sqlite3_bind_int64(del.get(), 1, revision);
      if (sqlite3_step(del.get()) != SQLITE_DONE)
        s = SqliteError(db_, "compact");
    }
    if (s.ok()) {
      s = meta.Prepare(db_,
                       "INSERT OR REPLACE INTO meta (name, value) VALUES "
                       "('compact_revision', ?)");
    }
    if (s.ok()) {
      sqlite3_bind_int64(meta.get(), 1, revision);
      if (sqlite3_step(meta.get()) != SQLITE_DONE)
        s = SqliteError(db_, "compact");
    }
    if (s.ok() && !Step(commit_)) s = SqliteError(db_, "commit");
    if (!s.ok()) Step(rollback_);
    return s;
  }

 private:
  absl::Status Insert(const JournalEntry& e) {
    sqlite3_stmt* st = insert_.get();
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, e.revision);
    sqlite3_bind_text(st, 2, e.key.data(), static_cast<int>(e.key.size()),
                      SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, e.create_revision);
    sqlite3_bind_int64(st, 4, e.prev_revision);
    sqlite3_bind_int(st, 5, e.deleted ? 1 : 0);
    sqlite3_bind_blob(st, 6, e.value.data(), static_cast<int>(e.value.size()),
                      SQLITE_STATIC);
    const int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) return SqliteError(db_, "append");
    return absl::OkStatus();
  }

  // Runs a prepared statement without results; false on failure.
  static bool Step(const Statement& statement) {
    const int rc = sqlite3_step(statement.get());
    sqlite3_reset(statement.get());
    return rc == SQLITE_DONE;
  }

  sqlite3* db_;
  int lock_fd_;
  Statement insert_, begin_, commit_, rollback_;
};

// The integer `name` of the meta table; nullopt when absent.
absl::StatusOr<std::optional<int64_t>> ReadMeta(sqlite3* db, const char* name) {
  Statement st;
  if (auto s = st.Prepare(db, "SELECT value FROM meta WHERE name = ?");
      !s.ok()) {
    return s;
  }
  sqlite3_bind_text(st.get(), 1, name, -1, SQLITE_STATIC);
  const int rc = sqlite3_step(st.get());
  if (rc == SQLITE_ROW) return sqlite3_column_int64(st.get(), 0);
  if (rc != SQLITE_DONE) return SqliteError(db, "read meta");
  return std::nullopt;
}

absl::Status WriteMeta(sqlite3* db, const char* name, int64_t value) {
  Statement st;
  if (auto s = st.Prepare(
          db, "INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)");
      !s.ok()) {
    return s;
  }
  sqlite3_bind_text(st.get(), 1, name, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st.get(), 2, value);
  if (sqlite3_step(st.get()) != SQLITE_DONE) {
    return SqliteError(db, "write meta");
  }
  return absl::OkStatus();
}

// True when the database has no log table yet (a new file).
absl::StatusOr<bool> IsNewDatabase(sqlite3* db) {
  Statement st;
  if (auto s = st.Prepare(db,
                          "SELECT 1 FROM sqlite_master WHERE type = 'table' "
                          "AND name = 'log'");
      !s.ok()) {
    return s;
  }
  const int rc = sqlite3_step(st.get());
  if (rc == SQLITE_ROW) return false;
  if (rc != SQLITE_DONE) return SqliteError(db, "read schema");
  return true;
}

// Creates the schema of a new file, or checks an existing file's format
// and upgrades an older one. Formats: 0 (no format_version row: draplane
// before store formats were versioned; the same tables) and 1 (the
// format_version row).
absl::Status PrepareSchema(sqlite3* db, const std::string& path) {
  auto fresh = IsNewDatabase(db);
  if (!fresh.ok()) return fresh.status();
  int64_t format = kSqliteStoreFormat;
  if (!*fresh) {
    auto stored = ReadMeta(db, "format_version");
    if (!stored.ok()) return stored.status();
    format = stored->value_or(0);
    if (format > kSqliteStoreFormat) {
      return absl::FailedPreconditionError(StrCat(
          path, " is a draplane store of format ", format,
          ", newer than this draplane reads (format ", kSqliteStoreFormat,
          "): run the draplane release that wrote it, or restore a backup "
          "written by this release"));
    }
  }
  if (sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) !=
      SQLITE_OK) {
    return SqliteError(db, "begin");
  }
  absl::Status s;
  if (sqlite3_exec(db, kSchema, nullptr, nullptr, nullptr) != SQLITE_OK) {
    s = SqliteError(db, "create schema");
  }
  // Format 0 to 1: the tables are the same; the file gains its version.
  if (s.ok() && (*fresh || format < kSqliteStoreFormat)) {
    s = WriteMeta(db, "format_version", kSqliteStoreFormat);
  }
  if (s.ok() &&
      sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    s = SqliteError(db, "commit");
  }
  if (!s.ok()) sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  return s;
}

absl::Status Load(sqlite3* db, RevisionedStore& store) {
  auto compact_meta = ReadMeta(db, "compact_revision");
  if (!compact_meta.ok()) return compact_meta.status();
  const int64_t compact = compact_meta->value_or(0);
  Statement st;
  if (auto s = st.Prepare(db,
                          "SELECT revision, key, create_revision, "
                          "prev_revision, deleted, value FROM log ORDER BY "
                          "revision");
      !s.ok()) {
    return s;
  }
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
    JournalEntry e;
    e.revision = sqlite3_column_int64(st.get(), 0);
    const auto* key = sqlite3_column_text(st.get(), 1);
    e.key.assign(reinterpret_cast<const char*>(key),
                 sqlite3_column_bytes(st.get(), 1));
    e.create_revision = sqlite3_column_int64(st.get(), 2);
    e.prev_revision = sqlite3_column_int64(st.get(), 3);
    e.deleted = sqlite3_column_int(st.get(), 4) != 0;
    const void* blob = sqlite3_column_blob(st.get(), 5);
    const int n = sqlite3_column_bytes(st.get(), 5);
    if (n > 0) e.value.assign(static_cast<const char*>(blob), n);
    store.Replay(e);
  }
  if (rc != SQLITE_DONE) return SqliteError(db, "load");
  store.FinishReplay(compact);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<RevisionedStore>> OpenSqliteJournaledStore(
    const std::string& path, const StoreOptions& options) {
  // An advisory lock on a side file: two processes must never append to
  // one journal (revisions would collide).
  const std::string lock_path = path + ".lock";
  int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        StrCat("cannot open ", lock_path, ": ",
               std::error_code(errno, std::generic_category()).message()));
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    close(fd);
    return absl::FailedPreconditionError(
        StrCat(path, " is in use by another draplane process"));
  }
  // Made 0600 before SQLite opens it: its -wal and -shm files take the
  // database file's mode.
  if (absl::Status s = TouchPrivateFile(path); !s.ok()) {
    close(fd);
    return s;
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(
          path.c_str(), &db,
          SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
          options.sqlite_vfs.empty() ? nullptr : options.sqlite_vfs.c_str()) !=
      SQLITE_OK) {
    absl::Status s = SqliteError(db, StrCat("open ", path));
    sqlite3_close_v2(db);
    close(fd);
    return s;
  }
  auto journal = std::make_unique<SqliteJournal>(db, fd);
  // The exclusive locking mode (set before WAL is entered): this process
  // is the database's only user (the side file's lock), so SQLite takes
  // its file locks once instead of on every transaction and keeps the WAL
  // index in memory rather than in a shared -shm file.
  const char* setup =
      "PRAGMA locking_mode=EXCLUSIVE; PRAGMA journal_mode=WAL; "
      "PRAGMA synchronous=FULL; PRAGMA busy_timeout=30000;";
  if (sqlite3_exec(db, setup, nullptr, nullptr, nullptr) != SQLITE_OK) {
    return SqliteError(db, "configure");
  }
  if (auto s = PrepareSchema(db, path); !s.ok()) return s;
  if (auto s = journal->Init(); !s.ok()) return s;
  // The store owns the journal (and so the connection); Replay never
  // journals.
  auto store = std::make_unique<RevisionedStore>(options, std::move(journal));
  if (auto s = Load(db, *store); !s.ok()) return s;
  return store;
}

absl::Status WriteSqliteSnapshot(const std::string& path,
                                 const std::vector<SnapshotVersion>& versions,
                                 int64_t compact_revision) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    return absl::AlreadyExistsError(StrCat(path, " exists"));
  }
  const std::string tmp = StrCat(path, ".tmp-", getpid());
  std::filesystem::remove(tmp, ec);
  std::filesystem::remove(tmp + "-journal", ec);
  if (absl::Status s = TouchPrivateFile(tmp); !s.ok()) return s;
  sqlite3* db = nullptr;
  absl::Status s;
  if (sqlite3_open_v2(tmp.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK) {
    s = SqliteError(db, StrCat("open ", tmp));
  }
  // One transaction in a rollback journal (the copy is one file once
  // closed), synced before COMMIT returns.
  if (s.ok() && sqlite3_exec(db, "PRAGMA synchronous=FULL", nullptr, nullptr,
                             nullptr) != SQLITE_OK) {
    s = SqliteError(db, "configure");
  }
  if (s.ok()) s = PrepareSchema(db, tmp);
  if (s.ok() && sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr,
                             nullptr) != SQLITE_OK) {
    s = SqliteError(db, "begin");
  }
  {
    Statement insert;
    if (s.ok()) s = insert.Prepare(db, kInsert);
    for (size_t i = 0; s.ok() && i < versions.size(); ++i) {
      const SnapshotVersion& v = versions[i];
      sqlite3_stmt* st = insert.get();
      sqlite3_reset(st);
      sqlite3_bind_int64(st, 1, v.revision);
      sqlite3_bind_text(st, 2, v.key.data(), static_cast<int>(v.key.size()),
                        SQLITE_STATIC);
      sqlite3_bind_int64(st, 3, v.create_revision);
      sqlite3_bind_int64(st, 4, v.prev_revision);
      sqlite3_bind_int(st, 5, v.deleted ? 1 : 0);
      sqlite3_bind_blob(st, 6, v.value->data(),
                        static_cast<int>(v.value->size()), SQLITE_STATIC);
      if (sqlite3_step(st) != SQLITE_DONE) s = SqliteError(db, "write");
    }
  }
  if (s.ok()) s = WriteMeta(db, "compact_revision", compact_revision);
  if (s.ok() &&
      sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    s = SqliteError(db, "commit");
  }
  if (sqlite3_close_v2(db) != SQLITE_OK && s.ok()) {
    s = absl::InternalError(StrCat("sqlite: cannot close ", tmp));
  }
  if (s.ok()) s = RenameDurably(tmp, path);
  if (!s.ok()) {
    std::filesystem::remove(tmp, ec);
    std::filesystem::remove(tmp + "-journal", ec);
  }
  return s;
}

}  // namespace draplane::store::internal
