// The store's bounds and life cycle: the quota and its space alarm,
// compaction by age, backups and restores, file format versions.
#include <sqlite3.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "clock/simulated_clock.h"
#include "common/str_cat.h"
#include "gtest/gtest.h"
#include "store/compactor.h"
#include "store/store.h"
#include "store/testing/temp_dir.h"

namespace draplane::store {
namespace {

using testing::TempDir;

enum class Backend { kMemory, kSqlite };

class StoreLimitsTest : public ::testing::TestWithParam<Backend> {
 protected:
  std::unique_ptr<Store> Open(const StoreOptions& options = {}) {
    if (GetParam() == Backend::kMemory) return NewMemoryStore(options);
    auto s = OpenSqliteStore(dir_.File("state.db"), options);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? *std::move(s) : nullptr;
  }
  TempDir dir_;
};

INSTANTIATE_TEST_SUITE_P(Backends, StoreLimitsTest,
                         ::testing::Values(Backend::kMemory, Backend::kSqlite),
                         [](const auto& info) {
                           return info.param == Backend::kMemory ? "Memory"
                                                                 : "Sqlite";
                         });

TEST_P(StoreLimitsTest, UsageCountsEveryRetainedVersion) {
  auto store = Open({.retain_revisions = 0});
  ASSERT_TRUE(store->Create("/a", "1234").ok());       // 2 + 4
  ASSERT_TRUE(store->Update("/a", "123456", 0).ok());  // 2 + 6
  ASSERT_TRUE(store->Create("/b", "xy").ok());         // 2 + 2
  ASSERT_TRUE(store->Delete("/b", 0).ok());            // tombstone: 2
  StoreUsage u = store->Usage();
  EXPECT_EQ(u.stored_bytes, 6 + 8 + 4 + 2);
  EXPECT_EQ(u.retained_versions, 4);
  EXPECT_EQ(u.live_keys, 1);
  EXPECT_FALSE(u.space_alarm);
  ASSERT_TRUE(store->Compact(store->Revision()).ok());
  u = store->Usage();
  EXPECT_EQ(u.stored_bytes, 8);  // /a's newest version only
  EXPECT_EQ(u.retained_versions, 1);
}

// The CI-sized form: 2,000 accepted rewrites of a 250 KiB object
// against a 64 MiB quota, compacting whenever the alarm stops them.
TEST_P(StoreLimitsTest, QuotaRaisesTheAlarmDeletesPassCompactionClearsIt) {
  constexpr int64_t kQuota = int64_t{64} << 20;
  const std::string big(250 * 1024, 'x');
  auto store = Open({.retain_revisions = 0, .quota_bytes = kQuota});
  ASSERT_TRUE(store->Create("/small/keep", "v").ok());
  ASSERT_TRUE(store->Create("/big", big).ok());
  int accepted = 0;
  int alarms = 0;
  while (accepted < 2000) {
    auto w = store->Update("/big", big, 0);
    if (w.ok()) {
      ++accepted;
      EXPECT_LE(store->Usage().stored_bytes, kQuota);
      continue;
    }
    ASSERT_TRUE(IsNoSpace(w.status())) << w.status();
    EXPECT_EQ(w.status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_NE(std::string(w.status().message()).find("quota"),
              std::string::npos);
    ++alarms;
    ASSERT_TRUE(store->Usage().space_alarm);
    // While the alarm is raised even a small create is refused...
    EXPECT_TRUE(
        IsNoSpace(store->Create(StrCat("/small/", alarms), "v").status()));
    // ...and deletes are accepted.
    ASSERT_TRUE(store->Delete("/small/keep", 0).ok());
    // Reads go on.
    EXPECT_EQ(store->Get("/big")->value->size(), big.size());
    // Compaction brings the stored bytes under the quota: the alarm clears
    // itself and writes resume.
    ASSERT_TRUE(store->Compact(store->Revision()).ok());
    EXPECT_FALSE(store->Usage().space_alarm);
    ASSERT_TRUE(store->Create("/small/keep", "v").ok());
  }
  // 64 MiB holds 262 versions of 250 KiB: about one alarm per 260 writes.
  EXPECT_GE(alarms, 7);
  EXPECT_LE(alarms, 9);
}

TEST_P(StoreLimitsTest, AWriteLargerThanTheQuotaIsRefused) {
  auto store = Open({.quota_bytes = 1000});
  auto w = store->Create("/k", std::string(2000, 'x'));
  EXPECT_TRUE(IsNoSpace(w.status())) << w.status();
  EXPECT_TRUE(absl::IsNotFound(store->Get("/k").status()));
  EXPECT_EQ(store->Revision(), 0);
  EXPECT_TRUE(store->Usage().space_alarm);
  EXPECT_TRUE(IsNoSpace(store->Create("/small", "v").status()));
  // Nothing to compact, but a compaction checks the alarm: the stored bytes
  // are under the quota, so it clears and small writes pass.
  ASSERT_TRUE(store->Compact(0).ok());
  EXPECT_FALSE(store->Usage().space_alarm);
  EXPECT_TRUE(store->Create("/small", "v").ok());
}

TEST(PeriodicCompactorTest, ATickClearsAnAlarmOnAStoreNoWriteAdvanced) {
  SimulatedClock clock;
  auto store = NewMemoryStore({.quota_bytes = 1000});
  ASSERT_TRUE(store->Create("/k", "v").ok());
  PeriodicCompactor compactor(*store, clock, absl::Minutes(5));
  ASSERT_TRUE(compactor.Tick().ok());
  ASSERT_TRUE(compactor.Tick().ok());  // compacted to the current revision
  EXPECT_TRUE(
      IsNoSpace(store->Create("/big", std::string(2000, 'x')).status()));
  EXPECT_TRUE(store->Usage().space_alarm);
  ASSERT_TRUE(compactor.Tick().ok());
  EXPECT_FALSE(store->Usage().space_alarm);
  EXPECT_EQ(compactor.compactions(), 1);
}

TEST_P(StoreLimitsTest, BackupCopiesEveryVersionAndRevisionWhileWritesGoOn) {
  auto store = Open({.retain_revisions = 0});
  ASSERT_TRUE(store->Create("/a", "1").ok());     // 1
  ASSERT_TRUE(store->Update("/a", "2", 0).ok());  // 2
  ASSERT_TRUE(store->Create("/b", "b").ok());     // 3
  ASSERT_TRUE(store->Delete("/b", 0).ok());       // 4
  ASSERT_TRUE(store->Create("/c", "c").ok());     // 5
  ASSERT_TRUE(store->Compact(2).ok());
  ASSERT_TRUE(store->Delete("/c", 0).ok());  // 6
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; !stop.load(); ++i) {
      ASSERT_TRUE(store->Create(StrCat("/w/", i), std::string(100, 'w')).ok());
    }
  });
  while (store->Count("/w/") < 50) std::this_thread::yield();
  const std::string backup = dir_.File("backup.db");
  auto taken = store->Backup(backup);
  stop = true;
  writer.join();
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_TRUE(absl::IsAlreadyExists(store->Backup(backup).status()));

  const std::string restored_path = dir_.File("restored/state.db");
  std::filesystem::create_directories(dir_.File("restored"));
  auto restored_revision = RestoreSqliteStore(backup, restored_path);
  ASSERT_TRUE(restored_revision.ok()) << restored_revision.status();
  EXPECT_EQ(*restored_revision, *taken);
  EXPECT_TRUE(absl::IsAlreadyExists(
      RestoreSqliteStore(backup, restored_path).status()));
  auto restored = OpenSqliteStore(restored_path, {.retain_revisions = 0});
  ASSERT_TRUE(restored.ok()) << restored.status();
  Store& r = **restored;
  EXPECT_EQ(r.Revision(), *taken);
  EXPECT_EQ(r.CompactRevision(), 2);
  // Every key, value and revision as the original had them at the backup's
  // revision, and the history after the compact revision.
  ListOptions at_backup;
  at_backup.prefix = "/";
  at_backup.revision = *taken;
  auto want = store->List(at_backup);
  ListOptions now;
  now.prefix = "/";
  auto got = r.List(now);
  ASSERT_TRUE(want.ok() && got.ok());
  ASSERT_EQ(got->records.size(), want->records.size());
  for (size_t i = 0; i < got->records.size(); ++i) {
    EXPECT_EQ(got->records[i].key, want->records[i].key);
    EXPECT_EQ(*got->records[i].value, *want->records[i].value);
    EXPECT_EQ(got->records[i].mod_revision, want->records[i].mod_revision);
    EXPECT_EQ(got->records[i].create_revision,
              want->records[i].create_revision);
  }
  EXPECT_EQ(*r.Get("/a", 2)->value, "2");
  EXPECT_EQ(*r.Get("/c", 5)->value, "c");
  EXPECT_TRUE(absl::IsNotFound(r.Get("/c").status()));
  EXPECT_EQ(r.Usage().live_keys, static_cast<int64_t>(want->records.size()));
}

TEST(SqliteStoreFormatTest, NewFilesCarryTheFormatOlderOnesAreUpgraded) {
  TempDir dir;
  const std::string path = dir.File("state.db");
  {
    auto store = OpenSqliteStore(path);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->Create("/k", "v").ok());
  }
  auto format = [&]() -> int64_t {
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db,
                       "SELECT value FROM meta WHERE name = 'format_version'",
                       -1, &st, nullptr);
    int64_t v =
        sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
  };
  auto exec = [&](const char* sql) {
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  };
  EXPECT_EQ(format(), kSqliteStoreFormat);
  // A file of format 0 (no version row) opens and is upgraded in place.
  exec("DELETE FROM meta WHERE name = 'format_version'");
  EXPECT_EQ(format(), -1);
  {
    auto store = OpenSqliteStore(path);
    ASSERT_TRUE(store.ok()) << store.status();
    EXPECT_EQ(*(*store)->Get("/k")->value, "v");
  }
  EXPECT_EQ(format(), kSqliteStoreFormat);
  // A newer format is refused, and the file left as it is.
  exec("UPDATE meta SET value = 99 WHERE name = 'format_version'");
  auto refused = OpenSqliteStore(path);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(refused.status()));
  EXPECT_NE(std::string(refused.status().message())
                .find("format 99, newer than this draplane reads (format 1)"),
            std::string::npos)
      << refused.status();
  EXPECT_EQ(format(), 99);
}

TEST(PeriodicCompactorTest, CompactsToTheRevisionOfThePreviousTick) {
  SimulatedClock clock;
  auto store = NewMemoryStore({.retain_revisions = 0});
  PeriodicCompactor compactor(*store, clock, absl::Minutes(5));
  ASSERT_TRUE(store->Create("/a", "1").ok());  // 1
  ASSERT_TRUE(compactor.Tick().ok());          // remembers 1
  EXPECT_EQ(store->CompactRevision(), 0);
  ASSERT_TRUE(store->Update("/a", "2", 0).ok());  // 2
  ASSERT_TRUE(store->Update("/a", "3", 0).ok());  // 3
  ASSERT_TRUE(compactor.Tick().ok());             // compacts to 1
  EXPECT_EQ(store->CompactRevision(), 1);
  ASSERT_TRUE(compactor.Tick().ok());  // to 3
  EXPECT_EQ(store->CompactRevision(), 3);
  ASSERT_TRUE(compactor.Tick().ok());  // nothing new
  EXPECT_EQ(compactor.compactions(), 2);

  // The thread ticks on the clock.
  compactor.Start();
  ASSERT_TRUE(store->Update("/a", "4", 0).ok());  // 4
  ASSERT_TRUE(clock.AwaitWaiters(1));
  clock.Advance(absl::Minutes(5));  // remembers 4
  ASSERT_TRUE(clock.AwaitWaiters(1));
  ASSERT_TRUE(store->Update("/a", "5", 0).ok());  // 5
  clock.Advance(absl::Minutes(5));                // compacts to 4
  ASSERT_TRUE(clock.AwaitWaiters(1));
  EXPECT_EQ(store->CompactRevision(), 4);
  compactor.Stop();
}

}  // namespace
}  // namespace draplane::store
