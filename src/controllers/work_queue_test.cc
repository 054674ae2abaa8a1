#include "controllers/work_queue.h"

#include <thread>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace draplane::controllers {
namespace {

TEST(WorkQueueTest, DeduplicatesWaitingKeys) {
  WorkQueue q(absl::Milliseconds(1), absl::Seconds(1));
  q.Add("a");
  q.Add("b");
  q.Add("a");
  EXPECT_EQ(q.Len(), 2u);
  EXPECT_EQ(*q.Get(), "a");
  EXPECT_EQ(*q.Get(), "b");
}

TEST(WorkQueueTest, KeyAddedWhileProcessingComesBackAfterDone) {
  WorkQueue q(absl::Milliseconds(1), absl::Seconds(1));
  q.Add("a");
  ASSERT_EQ(*q.Get(), "a");
  q.Add("a");  // not handed out twice concurrently
  EXPECT_EQ(q.Len(), 0u);
  q.Done("a");
  EXPECT_EQ(q.Len(), 1u);
  EXPECT_EQ(*q.Get(), "a");
}

TEST(WorkQueueTest, RateLimitedKeysWaitTheirBackoff) {
  WorkQueue q(absl::Milliseconds(20), absl::Seconds(1));
  absl::Time start = absl::Now();
  q.AddRateLimited("a");
  EXPECT_EQ(*q.Get(), "a");
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(15));
  q.Done("a");
  start = absl::Now();
  q.AddRateLimited("a");  // second failure: doubled
  EXPECT_EQ(*q.Get(), "a");
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(35));
}

TEST(WorkQueueTest, ShutDownWakesGet) {
  WorkQueue q(absl::Milliseconds(1), absl::Seconds(1));
  std::thread t([&] { EXPECT_FALSE(q.Get().has_value()); });
  absl::SleepFor(absl::Milliseconds(20));
  q.ShutDown();
  t.join();
}

}  // namespace
}  // namespace draplane::controllers
