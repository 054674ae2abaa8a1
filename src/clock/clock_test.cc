#include "clock/clock.h"

#include <atomic>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "clock/simulated_clock.h"
#include "clock/stop_signal.h"
#include "gtest/gtest.h"

namespace draplane {
namespace {

TEST(RealClockTest, WaitUntilAPastDeadlineReturnsAtOnce) {
  absl::Mutex mu;
  absl::CondVar cv;
  absl::MutexLock lock(&mu);
  EXPECT_TRUE(RealClock().WaitUntil(cv, mu, absl::Now() - absl::Seconds(1)));
  mu.AssertHeld();
}

TEST(RealClockTest, WaitForReturnsOnTheCondition) {
  absl::Mutex mu;
  absl::CondVar cv;
  bool done = false;
  std::thread t([&] {
    absl::MutexLock lock(&mu);
    done = true;
    cv.SignalAll();
  });
  {
    absl::MutexLock lock(&mu);
    EXPECT_TRUE(
        RealClock().WaitFor(cv, mu, absl::Hours(1), [&] { return done; }));
  }
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
  absl::Mutex mu;
  absl::CondVar cv;
  std::atomic<bool> returned{false};
  bool result = false;
  std::thread waiter([&] {
    absl::MutexLock lock(&mu);
    result = clock.WaitFor(cv, mu, absl::Hours(1), [] { return false; });
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
  absl::Mutex mu;
  absl::CondVar cv;
  bool done = false;
  bool result = false;
  std::thread waiter([&] {
    absl::MutexLock lock(&mu);
    result = clock.WaitFor(cv, mu, absl::Hours(1), [&] { return done; });
  });
  ASSERT_TRUE(clock.AwaitWaiters(1));
  {
    absl::MutexLock lock(&mu);
    done = true;
  }
  cv.SignalAll();
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

TEST(StopSignalTest, SleepsOnTheClockUntilStopped) {
  SimulatedClock clock;
  StopSignal stop(clock);
  std::atomic<int> rounds{0};
  std::thread loop([&] {
    while (stop.Sleep(absl::Seconds(5))) ++rounds;
  });
  ASSERT_TRUE(clock.AwaitWaiters(1));
  clock.Advance(absl::Seconds(5));
  ASSERT_TRUE(clock.AwaitWaiters(1));
  EXPECT_EQ(rounds.load(), 1);
  EXPECT_TRUE(stop.Stop());  // wakes the sleeper without the clock
  loop.join();
  EXPECT_EQ(rounds.load(), 1);
  EXPECT_FALSE(stop.Stop());                 // once only
  EXPECT_FALSE(stop.Sleep(absl::Hours(1)));  // at once once stopped
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
