// Group commit of journaled writes (RevisionedStore with a fake journal):
// writes that arrive while a commit is in progress are checked against
// the staged ones and journaled together in the next transaction; a
// failed transaction fails its writes and every write checked against
// them, and nothing of them becomes visible.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "store/internal/revisioned_store.h"
#include "testing/eventually.h"

namespace draplane::store::internal {
namespace {

// Records each transaction's revisions. Append blocks while `hold` is set
// and fails while `fail` is set.
class FakeJournal : public Journal {
 public:
  struct Shared {
    std::mutex mu;
    std::condition_variable cv;
    bool hold = false;
    int waiting = 0;  // Appends blocked by `hold`
    bool fail = false;
    // Each Append takes this long; every fail_every-th one fails (0: none).
    std::chrono::microseconds delay{0};
    int fail_every = 0;
    int appends = 0;
    std::vector<std::vector<int64_t>> batches;
  };
  explicit FakeJournal(Shared* shared) : shared_(shared) {}

  absl::Status Append(
      const std::vector<const JournalEntry*>& entries) override {
    std::unique_lock lock(shared_->mu);
    ++shared_->waiting;
    shared_->cv.notify_all();
    shared_->cv.wait(lock, [&] { return !shared_->hold; });
    --shared_->waiting;
    if (shared_->delay.count() > 0) {
      lock.unlock();
      std::this_thread::sleep_for(shared_->delay);
      lock.lock();
    }
    ++shared_->appends;
    if (shared_->fail || (shared_->fail_every > 0 &&
                          shared_->appends % shared_->fail_every == 0)) {
      return absl::UnavailableError("disk gone");
    }
    std::vector<int64_t> revisions;
    revisions.reserve(entries.size());
    for (const JournalEntry* e : entries) revisions.push_back(e->revision);
    shared_->batches.push_back(revisions);
    return absl::OkStatus();
  }
  absl::Status Compact(int64_t) override { return absl::OkStatus(); }

 private:
  Shared* shared_;
};

class GroupCommitTest : public ::testing::Test {
 protected:
  GroupCommitTest()
      : store_({.retain_revisions = 0},
               std::make_unique<FakeJournal>(&journal_)) {}

  void Hold() {
    std::lock_guard lock(journal_.mu);
    journal_.hold = true;
  }
  void Release() {
    std::lock_guard lock(journal_.mu);
    journal_.hold = false;
    journal_.cv.notify_all();
  }
  // Waits until a commit blocks in the journal and `staged` writes wait
  // for the next one.
  void AwaitCommitAndStaged(size_t staged) {
    {
      std::unique_lock lock(journal_.mu);
      ASSERT_TRUE(journal_.cv.wait_for(lock, std::chrono::seconds(30),
                                       [&] { return journal_.waiting == 1; }));
    }
    ASSERT_TRUE(draplane::testing::Eventually(
        [&] { return store_.StagedWrites() >= staged; }, absl::Seconds(30)));
    EXPECT_EQ(store_.StagedWrites(), staged);
  }

  // Keys /k0../k<keys-1>, and a journal slow enough (200 us a commit) that
  // concurrent writes pile up behind each commit.
  void CreateKeysForLoad(int keys) {
    for (int k = 0; k < keys; ++k) {
      ASSERT_TRUE(store_.Create("/k" + std::to_string(k), "0").ok());
    }
    journal_.delay = std::chrono::microseconds(200);
  }
  // Writes in every transaction journaled so far.
  size_t JournaledWrites() const {
    size_t n = 0;
    for (const auto& batch : journal_.batches) n += batch.size();
    return n;
  }

  FakeJournal::Shared journal_;
  RevisionedStore store_;
};

TEST_F(GroupCommitTest, WritesDuringACommitJoinTheNextOne) {
  Hold();
  std::vector<std::thread> writers;
  std::vector<absl::StatusOr<Record>> results(6);
  writers.emplace_back([&] { results[0] = store_.Create("/k0", "v0"); });
  AwaitCommitAndStaged(0);
  for (int i = 1; i < 6; ++i) {
    writers.emplace_back(
        [&, i] { results[i] = store_.Create("/k" + std::to_string(i), "v"); });
  }
  AwaitCommitAndStaged(5);
  // Nothing is visible before its commit.
  EXPECT_EQ(store_.Revision(), 0);
  EXPECT_TRUE(absl::IsNotFound(store_.Get("/k0", 0).status()));
  Release();
  for (auto& t : writers) t.join();
  ASSERT_EQ(journal_.batches.size(), 2u);
  EXPECT_EQ(journal_.batches[0], std::vector<int64_t>{1});
  EXPECT_EQ(journal_.batches[1], (std::vector<int64_t>{2, 3, 4, 5, 6}));
  std::vector<int64_t> revisions;
  for (const auto& r : results) {
    ASSERT_TRUE(r.ok()) << r.status();
    revisions.push_back(r->mod_revision);
  }
  std::sort(revisions.begin(), revisions.end());
  EXPECT_EQ(revisions, (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(store_.Revision(), 6);
  EXPECT_EQ(store_.Count("/"), 6);
  // Two commits journaled the six writes; the first was held for a while.
  const JournalStats stats = store_.journal_stats();
  EXPECT_EQ(stats.commits, 2);
  EXPECT_EQ(stats.entries, 6);
  EXPECT_GT(stats.commit_nanos, 0);
}

TEST_F(GroupCommitTest, StagedWritesAreCheckedAgainstEachOther) {
  ASSERT_TRUE(store_.Create("/a", "1").ok());  // 1
  Hold();
  absl::StatusOr<Record> first, update, del, recreate, stale, duplicate;
  std::thread t1([&] { first = store_.Create("/x", "x"); });  // 2, committing
  AwaitCommitAndStaged(0);
  std::thread t2([&] { update = store_.Update("/a", "2", 1); });  // 3
  AwaitCommitAndStaged(1);
  std::thread t3([&] { del = store_.Delete("/a", 3); });  // 4
  AwaitCommitAndStaged(2);
  std::thread t4([&] { recreate = store_.Create("/a", "new"); });  // 5
  AwaitCommitAndStaged(3);
  // Refused by staged versions: /a is at 5, /x exists.
  std::thread t5([&] { stale = store_.Update("/a", "3", 1); });
  std::thread t6([&] { duplicate = store_.Create("/x", "again"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  Release();
  for (auto* t : {&t1, &t2, &t3, &t4, &t5, &t6}) t->join();
  ASSERT_TRUE(first.ok() && update.ok() && del.ok() && recreate.ok());
  EXPECT_EQ(update->mod_revision, 3);
  EXPECT_EQ(*del->value, "2");  // a deletion returns the deleted value
  EXPECT_EQ(del->mod_revision, 4);
  EXPECT_EQ(recreate->mod_revision, 5);
  EXPECT_EQ(recreate->create_revision, 5);
  EXPECT_TRUE(IsConflict(stale.status())) << stale.status();
  EXPECT_TRUE(absl::IsAlreadyExists(duplicate.status())) << duplicate.status();
  ASSERT_EQ(journal_.batches.size(), 3u);
  EXPECT_EQ(journal_.batches[2], (std::vector<int64_t>{3, 4, 5}));
  EXPECT_EQ(*store_.Get("/a", 0)->value, "new");
  EXPECT_EQ(*store_.Get("/a", 3)->value, "2");
  EXPECT_TRUE(absl::IsNotFound(store_.Get("/a", 4).status()));
  EXPECT_EQ(*store_.Get("/x", 0)->value, "x");
}

TEST_F(GroupCommitTest, AWriteRefusedByAStagedOneReturnsAfterItsCommit) {
  ASSERT_TRUE(store_.Create("/a", "1").ok());  // 1
  Hold();
  absl::StatusOr<Record> first, update, stale;
  std::thread t1([&] { first = store_.Create("/x", "x"); });  // 2
  AwaitCommitAndStaged(0);
  std::thread t2([&] { update = store_.Update("/a", "2", 1); });  // 3
  AwaitCommitAndStaged(1);
  // Refused by the staged update, and answered only once that is
  // committed, so that a retry reading the key sees what refused it.
  std::atomic<bool> answered = false;
  std::thread t3([&] {
    stale = store_.Update("/a", "3", 1);
    answered = true;
  });
  EXPECT_TRUE(draplane::testing::Consistently([&] { return !answered; },
                                              absl::Milliseconds(50)));
  Release();
  for (auto* t : {&t1, &t2, &t3}) t->join();
  EXPECT_TRUE(IsConflict(stale.status())) << stale.status();
  ASSERT_TRUE(update.ok()) << update.status();
  EXPECT_EQ(store_.Get("/a", 0)->mod_revision, 3);
}

TEST_F(GroupCommitTest, AFailedCommitFailsEveryWriteCheckedAgainstIt) {
  ASSERT_TRUE(store_.Create("/a", "1").ok());  // 1
  {
    std::lock_guard lock(journal_.mu);
    journal_.fail = true;
  }
  Hold();
  absl::StatusOr<Record> lost, dependent;
  std::thread t1([&] { lost = store_.Update("/a", "2", 1); });
  AwaitCommitAndStaged(0);
  // Staged behind the failing commit, checked against nothing it needs:
  // it still fails, as its revision would follow the lost one.
  std::thread t2([&] { dependent = store_.Create("/b", "b"); });
  AwaitCommitAndStaged(1);
  Release();
  t1.join();
  t2.join();
  EXPECT_TRUE(absl::IsUnavailable(lost.status())) << lost.status();
  EXPECT_TRUE(absl::IsUnavailable(dependent.status())) << dependent.status();
  EXPECT_EQ(store_.Revision(), 1);
  EXPECT_EQ(*store_.Get("/a", 0)->value, "1");
  EXPECT_TRUE(absl::IsNotFound(store_.Get("/b", 0).status()));
  {
    std::lock_guard lock(journal_.mu);
    journal_.fail = false;
  }
  // Revisions continue from the last applied write.
  auto next = store_.Update("/a", "3", 1);
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(next->mod_revision, 2);
  EXPECT_EQ(store_.StagedWrites(), 0u);
}

// Runs `writers` threads of `body(writer)` and joins them; a writer that
// never returns (a lost wake-up) fails the test by aborting after a
// minute instead of hanging it.
template <class F>
void RunWriters(int writers, F body) {
  std::mutex mu;
  std::condition_variable cv;
  int finished = 0;
  std::vector<std::thread> threads;
  threads.reserve(writers);
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      body(w);
      std::lock_guard lock(mu);
      ++finished;
      cv.notify_all();
    });
  }
  {
    std::unique_lock lock(mu);
    if (!cv.wait_for(lock, std::chrono::seconds(60),
                     [&] { return finished == writers; })) {
      std::fprintf(stderr, "%d of %d writers never returned\n",
                   writers - finished, writers);
      std::abort();
    }
  }
  for (auto& t : threads) t.join();
}

// Many writers on few keys, with conflicts (retried after a read, as the
// API server does) and a journal slow enough that writes pile up during
// each commit (so that committers hand over to the oldest staged write):
// every write returns, each success has its own revision, every commit
// journals the writes it applied, and each key ends at its last
// committed value.
TEST_F(GroupCommitTest, ManyConcurrentWritersAllReturn) {
  constexpr int kWriters = 12, kWrites = 150, kKeys = 4;
  ASSERT_NO_FATAL_FAILURE(CreateKeysForLoad(kKeys));
  std::mutex mu;
  std::vector<int64_t> revisions;
  std::map<std::string, std::pair<int64_t, std::string>> last;  // by key
  std::atomic<int> errors = 0;
  RunWriters(kWriters, [&](int w) {
    for (int i = 0; i < kWrites; ++i) {
      const std::string key = "/k" + std::to_string((w + i) % kKeys);
      const std::string value = std::to_string(w * kWrites + i);
      for (;;) {
        auto current = store_.Get(key, 0);
        if (!current.ok()) {
          ++errors;
          return;
        }
        auto written = store_.Update(key, value, current->mod_revision);
        if (IsConflict(written.status())) continue;
        if (!written.ok()) {
          ++errors;
          return;
        }
        std::lock_guard lock(mu);
        revisions.push_back(written->mod_revision);
        auto& [revision, newest] = last[key];
        if (written->mod_revision > revision) {
          revision = written->mod_revision;
          newest = value;
        }
        break;
      }
    }
  });
  ASSERT_EQ(errors, 0);
  std::sort(revisions.begin(), revisions.end());
  ASSERT_EQ(revisions.size(), size_t{kWriters * kWrites});
  EXPECT_EQ(std::adjacent_find(revisions.begin(), revisions.end()),
            revisions.end());
  EXPECT_EQ(store_.Revision(), kKeys + kWriters * kWrites);
  EXPECT_EQ(store_.StagedWrites(), 0u);
  for (const auto& [key, newest] : last) {
    auto stored = store_.Get(key, 0);
    ASSERT_TRUE(stored.ok()) << stored.status();
    EXPECT_EQ(stored->mod_revision, newest.first) << key;
    EXPECT_EQ(*stored->value, newest.second) << key;
  }
  EXPECT_EQ(JournaledWrites(), size_t{kKeys + kWriters * kWrites});
  const JournalStats stats = store_.journal_stats();
  EXPECT_EQ(stats.entries, kKeys + kWriters * kWrites);
  EXPECT_EQ(stats.commits, static_cast<int64_t>(journal_.batches.size()));
  // The writes piled up: commits were groups, not one write each.
  EXPECT_LT(stats.commits, stats.entries);
}

// The same with every fifth commit failing: every write still returns
// (committed or failed), and exactly the committed ones are in the store
// and the journal.
TEST_F(GroupCommitTest, ConcurrentWritersAllReturnWhenCommitsFail) {
  constexpr int kWriters = 12, kWrites = 100, kKeys = 4;
  ASSERT_NO_FATAL_FAILURE(CreateKeysForLoad(kKeys));
  journal_.fail_every = 5;
  std::atomic<int> committed = 0, failed = 0, errors = 0;
  RunWriters(kWriters, [&](int w) {
    for (int i = 0; i < kWrites; ++i) {
      const std::string key = "/k" + std::to_string((w + i) % kKeys);
      auto current = store_.Get(key, 0);
      if (!current.ok()) {
        ++errors;
        return;
      }
      auto written = store_.Update(key, "v", current->mod_revision);
      if (written.ok()) {
        ++committed;
      } else if (absl::IsUnavailable(written.status())) {
        ++failed;
      } else if (!IsConflict(written.status())) {
        ++errors;
      }
    }
  });
  EXPECT_EQ(errors, 0);
  EXPECT_GT(committed, 0);
  EXPECT_GT(failed, 0);
  EXPECT_EQ(store_.StagedWrites(), 0u);
  EXPECT_EQ(store_.Revision(), kKeys + committed);
  EXPECT_EQ(JournaledWrites(), static_cast<size_t>(kKeys + committed));
}

}  // namespace
}  // namespace draplane::store::internal
