// Group commit of journaled writes (RevisionedStore with a fake journal):
// writes that arrive while a commit is in progress are checked against
// the staged ones and journaled together in the next transaction; a
// failed transaction fails its writes and every write checked against
// them, and nothing of them becomes visible.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "store/internal/revisioned_store.h"

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
    if (shared_->fail) return absl::UnavailableError("disk gone");
    std::vector<int64_t> revisions;
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
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (store_.StagedWrites() < staged) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(store_.StagedWrites(), staged);
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
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(answered);
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

// Many writers on few keys, with conflicts (retried after a read, as the
// API server does): every write returns, each success has its own
// revision, every commit journals the writes it applied, and each key
// ends at its last committed value.
TEST_F(GroupCommitTest, ManyConcurrentWritersAllReturn) {
  constexpr int kWriters = 12, kWrites = 300, kKeys = 4;
  for (int k = 0; k < kKeys; ++k) {
    ASSERT_TRUE(store_.Create("/k" + std::to_string(k), "0").ok());
  }
  std::mutex mu;
  std::vector<int64_t> revisions;
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kWrites; ++i) {
        const std::string key = "/k" + std::to_string((w + i) % kKeys);
        for (;;) {
          auto current = store_.Get(key, 0);
          ASSERT_TRUE(current.ok()) << current.status();
          auto written = store_.Update(key, std::to_string(w * kWrites + i),
                                       current->mod_revision);
          if (IsConflict(written.status())) {
            continue;
          }
          ASSERT_TRUE(written.ok()) << written.status();
          std::lock_guard lock(mu);
          revisions.push_back(written->mod_revision);
          break;
        }
      }
    });
  }
  for (auto& t : writers) t.join();
  std::sort(revisions.begin(), revisions.end());
  ASSERT_EQ(revisions.size(), size_t{kWriters * kWrites});
  EXPECT_EQ(std::adjacent_find(revisions.begin(), revisions.end()),
            revisions.end());
  EXPECT_EQ(store_.Revision(), kKeys + kWriters * kWrites);
  EXPECT_EQ(store_.StagedWrites(), 0u);
  size_t journaled = 0;
  for (const auto& batch : journal_.batches) journaled += batch.size();
  EXPECT_EQ(journaled, size_t{kKeys + kWriters * kWrites});
  const JournalStats stats = store_.journal_stats();
  EXPECT_EQ(stats.entries, kKeys + kWriters * kWrites);
  EXPECT_EQ(stats.commits, static_cast<int64_t>(journal_.batches.size()));
}

}  // namespace
}  // namespace draplane::store::internal
