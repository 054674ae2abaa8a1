#include "apiserver/internal/watch_dispatcher.h"

#include <atomic>
#include <memory>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace draplane::apiserver::internal {
namespace {

// Counts its runs, checks it never runs on two threads at once, and asks
// to be forgotten after `runs` runs (0: never).
class CountingSession : public WatchDispatcher::Session {
 public:
  explicit CountingSession(int runs = 0, absl::Duration work = {})
      : runs_(runs), work_(work) {}
  bool Run() override {
    started_.fetch_add(1);
    EXPECT_EQ(running_.fetch_add(1), 0) << "ran on two threads at once";
    if (work_ > absl::ZeroDuration()) absl::SleepFor(work_);
    running_.fetch_sub(1);
    const int n = ran_.fetch_add(1) + 1;
    return runs_ == 0 || n < runs_;
  }
  int ran() const { return ran_.load(); }
  int started() const { return started_.load(); }

 private:
  const int runs_;
  const absl::Duration work_;
  std::atomic<int> running_{0};
  std::atomic<int> ran_{0};
  std::atomic<int> started_{0};
};

// Waits up to 10 s for `done`.
template <class F>
bool Eventually(F done) {
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (!done()) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(1));
  }
  return true;
}

TEST(WatchDispatcherTest, RunsASessionWhenAddedAndWhenScheduled) {
  WatchDispatcher dispatcher(2, absl::Hours(1));
  auto session = std::make_shared<CountingSession>();
  ASSERT_TRUE(dispatcher.Add(session));
  ASSERT_TRUE(Eventually([&] { return session->ran() == 1; }));
  dispatcher.Schedule(session);
  ASSERT_TRUE(Eventually([&] { return session->ran() == 2; }));
  EXPECT_EQ(dispatcher.SessionCount(), 1u);
}

TEST(WatchDispatcherTest, ForgetsASessionWhoseRunSaysItIsOver) {
  WatchDispatcher dispatcher(2, absl::Hours(1));
  auto session = std::make_shared<CountingSession>(/*runs=*/2);
  ASSERT_TRUE(dispatcher.Add(session));
  ASSERT_TRUE(Eventually([&] { return session->ran() == 1; }));
  dispatcher.Schedule(session);
  ASSERT_TRUE(Eventually([&] { return dispatcher.SessionCount() == 0; }));
  EXPECT_EQ(session->ran(), 2);
  // Scheduling a finished session does nothing.
  dispatcher.Schedule(session);
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_EQ(session->ran(), 2);
  EXPECT_EQ(session.use_count(), 1);
}

TEST(WatchDispatcherTest, TheTickRunsEverySession) {
  WatchDispatcher dispatcher(2, absl::Milliseconds(20));
  std::vector<std::shared_ptr<CountingSession>> sessions;
  for (int i = 0; i < 10; ++i) {
    sessions.push_back(std::make_shared<CountingSession>());
    ASSERT_TRUE(dispatcher.Add(sessions.back()));
  }
  // Added (one run each), then ticks without any Schedule.
  ASSERT_TRUE(Eventually([&] {
    for (const auto& s : sessions) {
      if (s->ran() < 3) return false;
    }
    return true;
  }));
}

TEST(WatchDispatcherTest, SchedulingWhileRunningRunsOnceMoreNeverAtOnce) {
  WatchDispatcher dispatcher(4, absl::Hours(1));
  auto session = std::make_shared<CountingSession>(0, absl::Milliseconds(50));
  ASSERT_TRUE(dispatcher.Add(session));
  ASSERT_TRUE(Eventually([&] { return session->started() == 1; }));
  // Wake-ups while it runs make one more run, on one thread at a time
  // (CountingSession checks), however many there are.
  for (int i = 0; i < 200; ++i) dispatcher.Schedule(session);
  ASSERT_TRUE(Eventually([&] { return session->ran() == 2; }));
  absl::SleepFor(absl::Milliseconds(200));
  EXPECT_EQ(session->ran(), 2);
  // A wake-up after it went idle runs it again.
  dispatcher.Schedule(session);
  ASSERT_TRUE(Eventually([&] { return session->ran() == 3; }));
}

TEST(WatchDispatcherTest, StopDropsSessionsAndRefusesNewOnes) {
  auto dispatcher =
      std::make_unique<WatchDispatcher>(2, absl::Milliseconds(10));
  auto session = std::make_shared<CountingSession>();
  ASSERT_TRUE(dispatcher->Add(session));
  dispatcher->Stop();
  EXPECT_EQ(dispatcher->SessionCount(), 0u);
  EXPECT_EQ(session.use_count(), 1);
  EXPECT_FALSE(dispatcher->Add(std::make_shared<CountingSession>()));
  const int ran = session->ran();
  dispatcher->Schedule(session);
  absl::SleepFor(absl::Milliseconds(30));
  EXPECT_EQ(session->ran(), ran);
}

}  // namespace
}  // namespace draplane::apiserver::internal
