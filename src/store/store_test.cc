#include "store/store.h"

#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/str_cat.h"
#include "gtest/gtest.h"
#include "store/testing/temp_dir.h"

namespace draplane::store {
namespace {

using testing::TempDir;

// Collects watch events (thread-safe).
struct Recorder {
  std::mutex mu;
  std::vector<Event> events;
  WatchSink Sink() {
    return [this](const Event& e) {
      std::lock_guard lock(mu);
      events.push_back(e);
    };
  }
  std::vector<Event> Take() {
    std::lock_guard lock(mu);
    return events;
  }
};

enum class Backend { kMemory, kSqlite };

class StoreTest : public ::testing::TestWithParam<Backend> {
 protected:
  std::unique_ptr<Store> Open(const StoreOptions& options = {}) {
    if (GetParam() == Backend::kMemory) return NewMemoryStore(options);
    auto s = OpenSqliteStore(dir_.File("state.db"), options);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? *std::move(s) : nullptr;
  }
  TempDir dir_;
};

TEST_P(StoreTest, WritesAdvanceTheRevisionByOne) {
  auto store = Open();
  EXPECT_EQ(store->Revision(), 0);
  auto a = store->Create("/r/a", "1");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->mod_revision, 1);
  EXPECT_EQ(a->create_revision, 1);
  EXPECT_EQ(*a->value, "1");
  auto b = store->Create("/r/b", "2");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->mod_revision, 2);
  auto a2 = store->Update("/r/a", "1b", 1);
  ASSERT_TRUE(a2.ok()) << a2.status();
  EXPECT_EQ(a2->mod_revision, 3);
  EXPECT_EQ(a2->create_revision, 1);
  auto got = store->Get("/r/a");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got->value, "1b");
  EXPECT_EQ(got->mod_revision, 3);
  auto del = store->Delete("/r/a", 0);
  ASSERT_TRUE(del.ok());
  EXPECT_EQ(del->mod_revision, 4);
  EXPECT_EQ(*del->value, "1b");
  EXPECT_EQ(store->Revision(), 4);
  EXPECT_TRUE(absl::IsNotFound(store->Get("/r/a").status()));
  // A re-created key starts a new life.
  auto again = store->Create("/r/a", "new");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->create_revision, 5);
  // Each of the five writes, made one after another, was a commit of its
  // own in the durable store; the in-memory one journals nothing.
  const JournalStats journal = store->journal_stats();
  const bool durable = GetParam() == Backend::kSqlite;
  EXPECT_EQ(journal.commits, durable ? 5 : 0);
  EXPECT_EQ(journal.entries, durable ? 5 : 0);
  EXPECT_EQ(journal.commit_nanos > 0, durable);
}

TEST_P(StoreTest, PreconditionsAndErrors) {
  auto store = Open();
  ASSERT_TRUE(store->Create("/k", "v").ok());
  EXPECT_TRUE(absl::IsAlreadyExists(store->Create("/k", "w").status()));
  EXPECT_TRUE(absl::IsNotFound(store->Update("/missing", "v", 0).status()));
  EXPECT_TRUE(absl::IsNotFound(store->Delete("/missing", 0).status()));
  auto stale = store->Update("/k", "w", 7);
  EXPECT_TRUE(IsConflict(stale.status())) << stale.status();
  EXPECT_FALSE(IsCompacted(stale.status()));
  EXPECT_TRUE(IsConflict(store->Delete("/k", 7).status()));
  // Failed writes change nothing.
  EXPECT_EQ(store->Revision(), 1);
  EXPECT_EQ(*store->Get("/k")->value, "v");
  EXPECT_TRUE(absl::IsInvalidArgument(store->Create("", "v").status()));
}

// The writer's AppliedFn sees its record before any watcher sees the
// event, and is not called for a write that fails.
TEST_P(StoreTest, AppliedFnRunsBeforeWatchersAreTold) {
  auto store = Open();
  std::vector<std::string> order;  // under the store's lock only
  auto w = store->WatchPrefix("/", 0, [&](const Event& e) {
    order.push_back(StrCat("watch ", e.revision));
  });
  ASSERT_TRUE(w.ok());
  Record seen;
  auto record = [&](const Record& r) {
    seen = r;
    order.push_back(StrCat("applied ", r.mod_revision));
  };
  auto created = store->Create("/k", "v1", record);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(seen.key, "/k");
  EXPECT_EQ(seen.value, created->value);  // the very value stored
  EXPECT_EQ(seen.mod_revision, 1);
  EXPECT_EQ(seen.create_revision, 1);
  auto updated = store->Update("/k", "v2", 1, record);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(seen.value, updated->value);
  EXPECT_EQ(*seen.value, "v2");
  EXPECT_EQ(seen.mod_revision, 2);
  EXPECT_EQ(seen.create_revision, 1);
  EXPECT_FALSE(store->Update("/k", "v3", 1, record).ok());  // stale
  EXPECT_FALSE(store->Create("/k", "v3", record).ok());     // exists
  EXPECT_EQ(order, (std::vector<std::string>{"applied 1", "watch 1",
                                             "applied 2", "watch 2"}));
}

TEST_P(StoreTest, ListPagesAndReadsOldRevisions) {
  auto store = Open();
  for (const char* k : {"/p/c", "/p/a", "/q/x", "/p/b"}) {
    ASSERT_TRUE(store->Create(k, k).ok());
  }
  auto all = store->List({.prefix = "/p/", .start_after = ""});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->records.size(), 3u);
  EXPECT_EQ(all->records[0].key, "/p/a");
  EXPECT_EQ(all->records[2].key, "/p/c");
  EXPECT_EQ(all->revision, 4);
  EXPECT_EQ(all->remaining, 0);

  auto page1 = store->List({.prefix = "/p/", .start_after = "", .limit = 2});
  ASSERT_TRUE(page1.ok());
  ASSERT_EQ(page1->records.size(), 2u);
  EXPECT_EQ(page1->remaining, 1);
  // Changes after the first page do not show in the next one when it is
  // read at the first page's revision.
  ASSERT_TRUE(store->Update("/p/c", "changed", 0).ok());
  ASSERT_TRUE(store->Create("/p/d", "d").ok());
  auto page2 = store->List({.prefix = "/p/",
                            .start_after = page1->records.back().key,
                            .limit = 2,
                            .revision = page1->revision});
  ASSERT_TRUE(page2.ok());
  ASSERT_EQ(page2->records.size(), 1u);
  EXPECT_EQ(*page2->records[0].value, "/p/c");
  EXPECT_EQ(page2->remaining, 0);

  ASSERT_TRUE(store->Delete("/p/a", 0).ok());
  EXPECT_EQ(store->List({.prefix = "/p/", .start_after = ""})->records.size(),
            3u);
  EXPECT_EQ(store->Count("/p/"), 3);
  auto old = store->Get("/p/a", 3);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(*old->value, "/p/a");
  EXPECT_TRUE(absl::IsNotFound(store->Get("/p/d", 4).status()));
  EXPECT_TRUE(IsFutureRevision(store->Get("/p/a", 99).status()));
}

TEST_P(StoreTest, CompactionForgetsOldRevisions) {
  auto store = Open({.retain_revisions = 0});
  ASSERT_TRUE(store->Create("/k", "1").ok());     // 1
  ASSERT_TRUE(store->Update("/k", "2", 0).ok());  // 2
  ASSERT_TRUE(store->Create("/d", "x").ok());     // 3
  ASSERT_TRUE(store->Delete("/d", 0).ok());       // 4
  ASSERT_TRUE(store->Update("/k", "3", 0).ok());  // 5
  ASSERT_TRUE(store->Compact(4).ok());
  EXPECT_EQ(store->CompactRevision(), 4);
  EXPECT_TRUE(IsCompacted(store->Get("/k", 2).status()));
  EXPECT_EQ(*store->Get("/k", 4)->value, "2");
  EXPECT_EQ(*store->Get("/k")->value, "3");
  EXPECT_TRUE(absl::IsNotFound(store->Get("/d", 4).status()));
  Recorder r;
  EXPECT_TRUE(IsCompacted(store->WatchPrefix("/", 3, r.Sink()).status()));
  auto w = store->WatchPrefix("/", 4, r.Sink());
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(r.Take().size(), 1u);
  EXPECT_EQ(r.Take()[0].revision, 5);
  EXPECT_FALSE(store->Compact(99).ok());
}

TEST_P(StoreTest, AutomaticCompactionKeepsTheRetainedWindow) {
  auto store = Open({.retain_revisions = 10});
  for (int i = 0; i < 45; ++i) {
    ASSERT_TRUE(store->Create("/k" + std::to_string(i), "v").ok());
  }
  EXPECT_GE(store->CompactRevision(), 45 - 20);
  EXPECT_LE(store->CompactRevision(), 45 - 10);
  EXPECT_EQ(store->Count("/"), 45);
}

TEST_P(StoreTest, WatchReplaysHistoryThenLiveEventsInOrder) {
  auto store = Open();
  ASSERT_TRUE(store->Create("/a/1", "x").ok());      // 1
  ASSERT_TRUE(store->Create("/b/1", "y").ok());      // 2
  ASSERT_TRUE(store->Update("/a/1", "x2", 1).ok());  // 3
  Recorder r;
  auto w = store->WatchPrefix("/a/", 1, r.Sink());
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE(store->Delete("/a/1", 0).ok());    // 4
  ASSERT_TRUE(store->Create("/b/2", "z").ok());  // 5
  ASSERT_TRUE(store->Create("/a/2", "w").ok());  // 6
  auto events = r.Take();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, EventType::kUpdated);
  EXPECT_EQ(events[0].revision, 3);
  EXPECT_EQ(*events[0].value, "x2");
  EXPECT_EQ(*events[0].prev_value, "x");
  EXPECT_EQ(events[1].type, EventType::kDeleted);
  EXPECT_EQ(events[1].revision, 4);
  EXPECT_EQ(*events[1].value, "x2");
  EXPECT_EQ(events[2].type, EventType::kCreated);
  EXPECT_EQ(events[2].key, "/a/2");
  EXPECT_EQ(events[2].prev_value, nullptr);
  w->reset();
  ASSERT_TRUE(store->Create("/a/3", "v").ok());
  EXPECT_EQ(r.Take().size(), 3u);
  // A watch from the future waits for its revision.
  Recorder later;
  auto f = store->WatchPrefix("/", 8, later.Sink());
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(store->Create("/a/4", "v").ok());  // 8: not after 8
  ASSERT_TRUE(store->Create("/a/5", "v").ok());  // 9
  ASSERT_EQ(later.Take().size(), 1u);
  EXPECT_EQ(later.Take()[0].revision, 9);
}

// Writers race on shared keys with read-modify-write retries; every
// acknowledged write is seen by a watcher exactly once, in revision order
// with no gaps, and the final counters add up.
TEST_P(StoreTest, ConcurrentWritersAndWatchersAgree) {
  auto store = Open();
  constexpr int kThreads = 4, kIncrements = 60, kKeys = 3;
  for (int k = 0; k < kKeys; ++k) {
    ASSERT_TRUE(store->Create("/c/" + std::to_string(k), "0").ok());
  }
  Recorder r;
  auto w = store->WatchPrefix("/c/", store->Revision(), r.Sink());
  ASSERT_TRUE(w.ok());
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kIncrements; ++i) {
        const std::string key = "/c/" + std::to_string((t + i) % kKeys);
        while (true) {
          auto cur = store->Get(key);
          ASSERT_TRUE(cur.ok());
          const int n = std::stoi(*cur->value);
          auto up =
              store->Update(key, std::to_string(n + 1), cur->mod_revision);
          if (up.ok()) break;
          ASSERT_TRUE(IsConflict(up.status())) << up.status();
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  int total = 0;
  for (int k = 0; k < kKeys; ++k) {
    total += std::stoi(*store->Get("/c/" + std::to_string(k))->value);
  }
  EXPECT_EQ(total, kThreads * kIncrements);
  auto events = r.Take();
  ASSERT_EQ(events.size(), static_cast<size_t>(kThreads * kIncrements));
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].revision, kKeys + 1 + static_cast<int64_t>(i));
    EXPECT_EQ(std::stoi(*events[i].value),
              std::stoi(*events[i].prev_value) + 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreTest,
                         ::testing::Values(Backend::kMemory, Backend::kSqlite),
                         [](const auto& info) {
                           return info.param == Backend::kMemory ? "Memory"
                                                                 : "Sqlite";
                         });

TEST(SqliteStoreTest, ReopeningKeepsEverything) {
  TempDir dir;
  const std::string path = dir.File("state.db");
  {
    auto store = OpenSqliteStore(path, {.retain_revisions = 0});
    ASSERT_TRUE(store.ok()) << store.status();
    Store& s = **store;
    ASSERT_TRUE(s.Create("/a", "1").ok());     // 1
    ASSERT_TRUE(s.Update("/a", "2", 1).ok());  // 2
    ASSERT_TRUE(s.Create("/b", "b").ok());     // 3
    ASSERT_TRUE(s.Delete("/b", 0).ok());       // 4
    ASSERT_TRUE(s.Create("/c", "c").ok());     // 5
    ASSERT_TRUE(s.Update("/a", "3", 0).ok());  // 6
    ASSERT_TRUE(s.Compact(5).ok());
    ASSERT_TRUE(s.Delete("/c", 0).ok());  // 7
  }
  auto store = OpenSqliteStore(path, {.retain_revisions = 0});
  ASSERT_TRUE(store.ok()) << store.status();
  Store& s = **store;
  EXPECT_EQ(s.Revision(), 7);
  EXPECT_EQ(s.CompactRevision(), 5);
  EXPECT_EQ(*s.Get("/a")->value, "3");
  EXPECT_EQ(s.Get("/a")->create_revision, 1);
  EXPECT_EQ(s.Get("/a")->mod_revision, 6);
  EXPECT_EQ(*s.Get("/a", 5)->value, "2");
  EXPECT_TRUE(absl::IsNotFound(s.Get("/b").status()));
  EXPECT_TRUE(absl::IsNotFound(s.Get("/c").status()));
  EXPECT_EQ(*s.Get("/c", 6)->value, "c");
  // History after the compact revision is still watchable.
  Recorder r;
  auto w = s.WatchPrefix("/", 5, r.Sink());
  ASSERT_TRUE(w.ok());
  auto events = r.Take();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].revision, 6);
  EXPECT_EQ(events[1].type, EventType::kDeleted);
  EXPECT_EQ(*events[1].value, "c");
  // Revisions continue where they stopped.
  EXPECT_EQ(s.Create("/d", "d")->mod_revision, 8);
}

TEST(SqliteStoreTest, OneProcessAtATime) {
  TempDir dir;
  auto first = OpenSqliteStore(dir.File("state.db"));
  ASSERT_TRUE(first.ok());
  auto second = OpenSqliteStore(dir.File("state.db"));
  EXPECT_TRUE(absl::IsFailedPrecondition(second.status())) << second.status();
  first->reset();
  EXPECT_TRUE(OpenSqliteStore(dir.File("state.db")).ok());
}

TEST(SqliteStoreTest, UnwritableLocationIsAClearError) {
  auto s = OpenSqliteStore("/nonexistent-dir/state.db");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.status().message()).find("/nonexistent-dir"),
            std::string::npos);
}

}  // namespace
}  // namespace draplane::store
