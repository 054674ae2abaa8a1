#include "http/internal/handler_pool.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace draplane::http::internal {
namespace {

TEST(HandlerPoolTest, RunsTasksOnThreadsUpToTheMaximum) {
  HandlerPool pool(2);
  absl::Notification release;
  std::atomic<int> ran{0};
  auto blocked = [&] {
    release.WaitForNotification();
    ++ran;
  };
  EXPECT_TRUE(pool.Run(blocked));
  EXPECT_TRUE(pool.Run(blocked));
  // Both threads are busy and no third may be made.
  EXPECT_FALSE(pool.Run([&] { ++ran; }));
  EXPECT_EQ(pool.threads(), 2u);
  release.Notify();
  // A thread freed takes the next task.
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (ran.load() < 2 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  ASSERT_EQ(ran.load(), 2);
  bool queued = false;
  while (!queued && absl::Now() < deadline) {
    queued = pool.Run([&] { ++ran; });
    if (!queued) absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_TRUE(queued);
}

TEST(HandlerPoolTest, RunOrQueueWaitsForABusyThreadUpToALimit) {
  HandlerPool pool(1);
  absl::Notification started, release;
  std::atomic<int> ran{0};
  ASSERT_TRUE(pool.Run([&] {
    started.Notify();
    release.WaitForNotification();
    ++ran;
  }));
  started.WaitForNotification();
  EXPECT_FALSE(pool.Run([&] { ++ran; }));
  // One may wait for the busy thread; a second may not.
  EXPECT_TRUE(pool.RunOrQueue([&] { ++ran; }, 1));
  EXPECT_FALSE(pool.RunOrQueue([&] { ++ran; }, 1));
  EXPECT_EQ(pool.threads(), 1u);
  release.Notify();
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (ran.load() < 2 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_EQ(ran.load(), 2);
}

TEST(HandlerPoolTest, IdleThreadsLeave) {
  HandlerPool pool(4, std::chrono::milliseconds(20));
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(pool.Run([] { absl::SleepFor(absl::Milliseconds(10)); }));
  }
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (pool.threads() != 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_EQ(pool.threads(), 0u);
  // And come back when there is work.
  absl::Notification ran;
  ASSERT_TRUE(pool.Run([&] { ran.Notify(); }));
  EXPECT_TRUE(ran.WaitForNotificationWithTimeout(absl::Seconds(30)));
}

TEST(HandlerPoolTest, DestructionWaitsForQueuedAndRunningTasks) {
  std::atomic<int> ran{0};
  {
    HandlerPool pool(1);
    ASSERT_TRUE(pool.Run([&] {
      absl::SleepFor(absl::Milliseconds(50));
      ++ran;
    }));
  }
  EXPECT_EQ(ran.load(), 1);
}

}  // namespace
}  // namespace draplane::http::internal
