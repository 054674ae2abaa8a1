#include "component_helpers/work_queue.h"

#include <atomic>
#include <optional>
#include <string>
#include <thread>

#include "clock/simulated_clock.h"
#include "gtest/gtest.h"
#include "testing/async_call.h"

namespace draplane::component_helpers {
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

using draplane::testing::ReturnsAfter;

// Get() on another thread.
class Getter : public draplane::testing::AsyncCall<std::optional<std::string>> {
 public:
  explicit Getter(WorkQueue& q)
      : AsyncCall([&q] { return q.Get(); }, [&q] { q.ShutDown(); }) {}
};

TEST(WorkQueueTest, RateLimitedKeysWaitTheirBackoffExactly) {
  SimulatedClock clock;
  WorkQueue q(absl::Seconds(20), absl::Seconds(60), &clock);
  q.AddRateLimited("a");
  {
    Getter getter(q);
    ASSERT_TRUE(ReturnsAfter(clock, getter, absl::Seconds(20)));
    EXPECT_EQ(getter.Join(), "a");
  }
  q.Done("a");
  q.AddRateLimited("a");  // second failure: 40 s
  {
    Getter getter(q);
    ASSERT_TRUE(ReturnsAfter(clock, getter, absl::Seconds(40)));
    EXPECT_EQ(getter.Join(), "a");
  }
  q.Done("a");
  q.AddRateLimited("a");  // third failure: 80 s, capped at 60 s
  {
    Getter getter(q);
    ASSERT_TRUE(ReturnsAfter(clock, getter, absl::Seconds(60)));
    EXPECT_EQ(getter.Join(), "a");
  }
  q.Done("a");
  q.Forget("a");
  q.AddRateLimited("a");  // forgotten: back to 20 s
  Getter getter(q);
  ASSERT_TRUE(ReturnsAfter(clock, getter, absl::Seconds(20)));
  EXPECT_EQ(getter.Join(), "a");
}

TEST(WorkQueueTest, ShutDownWakesGet) {
  SimulatedClock clock;
  WorkQueue q(absl::Milliseconds(1), absl::Seconds(1), &clock);
  Getter getter(q);
  ASSERT_TRUE(clock.AwaitWaiters(1));  // blocked in Get
  q.ShutDown();
  EXPECT_EQ(getter.Join(), std::nullopt);
}

}  // namespace
}  // namespace draplane::component_helpers
