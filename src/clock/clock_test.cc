#include "clock/clock.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "absl/time/clock.h"
#include "clock/simulated_clock.h"
#include "gtest/gtest.h"

namespace draplane {
namespace {

TEST(RealClockTest, WaitUntilAPastDeadlineReturnsAtOnce) {
  std::mutex mu;
  std::condition_variable cv;
  std::unique_lock<std::mutex> lock(mu);
  EXPECT_TRUE(RealClock().WaitUntil(cv, lock, absl::Now() - absl::Seconds(1)));
  EXPECT_TRUE(lock.owns_lock());
}

TEST(RealClockTest, WaitForReturnsOnTheCondition) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::thread t([&] {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  EXPECT_TRUE(
      RealClock().WaitFor(cv, lock, absl::Hours(1), [&] { return done; }));
  lock.unlock();
  t.join();
}

TEST(SimulatedClockTest, TimeMovesOnlyWhenAdvanced) {
  SimulatedClock clock(absl::FromUnixSeconds(1000));
  EXPECT_EQ(clock.Now(), absl::FromUnixSeconds(1000));
  clock.Advance(absl::Seconds(5));
  EXPECT_EQ(clock.Now(), absl::FromUnixSeconds(1005));
}

TEST(SimulatedClockTest, AWaitEndsWhenTheClockReachesItsDeadline) {
  SimulatedClock clock;
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<bool> returned{false};
  bool result = false;
  std::thread waiter([&] {
    std::unique_lock<std::mutex> lock(mu);
    result = clock.WaitFor(cv, lock, absl::Hours(1), [] { return false; });
    returned = true;
  });
  ASSERT_TRUE(clock.AwaitWaiters(1));
  clock.Advance(absl::Minutes(59));
  ASSERT_TRUE(clock.AwaitWaiters(1));  // still waiting, at the new time
  EXPECT_FALSE(returned.load());
  clock.Advance(absl::Minutes(1));
  waiter.join();
  EXPECT_TRUE(returned.load());
  EXPECT_FALSE(result);  // timed out: the condition never held
}

TEST(SimulatedClockTest, ANotifiedWaitSeesItsCondition) {
  SimulatedClock clock;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  bool result = false;
  std::thread waiter([&] {
    std::unique_lock<std::mutex> lock(mu);
    result = clock.WaitFor(cv, lock, absl::Hours(1), [&] { return done; });
  });
  ASSERT_TRUE(clock.AwaitWaiters(1));
  {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
  }
  cv.notify_all();
  waiter.join();
  EXPECT_TRUE(result);
}

TEST(SimulatedClockTest, SleepForReturnsAfterTheAdvance) {
  SimulatedClock clock;
  std::atomic<bool> woke{false};
  std::thread sleeper([&] {
    clock.SleepFor(absl::Seconds(10));
    woke = true;
  });
  ASSERT_TRUE(clock.AwaitWaiters(1));
  clock.Advance(absl::Seconds(9));
  ASSERT_TRUE(clock.AwaitWaiters(1));
  EXPECT_FALSE(woke.load());
  clock.Advance(absl::Seconds(1));
  sleeper.join();
  EXPECT_TRUE(woke.load());
}

TEST(SimulatedClockTest, AwaitWaitersGivesUpWithoutWaiters) {
  SimulatedClock clock;
  EXPECT_FALSE(clock.AwaitWaiters(1, absl::Milliseconds(5)));
}

TEST(SimulatedClockDeathTest, TimeDoesNotGoBack) {
  SimulatedClock clock;
  EXPECT_DEATH(clock.Advance(-absl::Seconds(1)), "time does not go back");
}

}  // namespace
}  // namespace draplane
