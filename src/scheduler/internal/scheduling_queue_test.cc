#include "scheduler/internal/scheduling_queue.h"

#include <atomic>
#include <optional>
#include <string>
#include <thread>

#include "clock/simulated_clock.h"
#include "gtest/gtest.h"
#include "testing/async_call.h"

namespace draplane::scheduler::internal {
namespace {

// Upstream's backoffs (1 s doubling to 10 s, 5 min unschedulable) on a
// simulated clock.
QueueOptions On(SimulatedClock& clock) {
  QueueOptions o;
  o.clock = &clock;
  return o;
}

// Pop() on another thread.
using draplane::testing::ReturnsAfter;

class Popper : public draplane::testing::AsyncCall<std::optional<std::string>> {
 public:
  explicit Popper(SchedulingQueue& q)
      : AsyncCall([&q] { return q.Pop(); }, [&q] { q.Close(); }) {}
};

TEST(SchedulingQueueTest, HigherPriorityFirstThenArrival) {
  SchedulingQueue q;
  q.Add("a", 0);
  q.Add("b", 10);
  q.Add("c", 0);
  q.Add("d", 10);
  EXPECT_EQ(*q.Pop(), "b");
  EXPECT_EQ(*q.Pop(), "d");
  EXPECT_EQ(*q.Pop(), "a");
  EXPECT_EQ(*q.Pop(), "c");
}

TEST(SchedulingQueueTest, UnschedulablePodsWaitForAnEvent) {
  SimulatedClock clock;
  SchedulingQueue q(On(clock));
  q.Add("a", 0);
  ASSERT_EQ(*q.Pop(), "a");
  q.Finish("a", SchedulingQueue::Outcome::kUnschedulable);
  EXPECT_EQ(q.counts().unschedulable, 1u);
  q.MoveAllToActiveOrBackoff();
  SchedulingQueue::Counts c = q.counts();
  EXPECT_EQ(c.unschedulable, 0u);
  EXPECT_EQ(c.backoff, 1u);
  // After its 1 s backoff it is handed out again.
  Popper popper(q);
  ASSERT_TRUE(ReturnsAfter(clock, popper, absl::Seconds(1)));
  EXPECT_EQ(popper.Join(), "a");
}

// Without any event, an unschedulable pod is retried after
// max_unschedulable (upstream's podMaxInUnschedulablePodsDuration), found
// by the periodic scan (at most once a second).
TEST(SchedulingQueueTest, UnschedulablePodsAreRetriedAfterTheLimit) {
  SimulatedClock clock;
  SchedulingQueue q(On(clock));
  q.Add("a", 0);
  ASSERT_EQ(*q.Pop(), "a");
  q.Finish("a", SchedulingQueue::Outcome::kUnschedulable);
  q.Add("b", 0);
  ASSERT_EQ(*q.Pop(), "b");  // "a" is not handed out before its time
  Popper popper(q);
  for (int second = 1; second < 300; ++second) {
    ASSERT_TRUE(clock.AwaitWaiters(1));
    clock.Advance(absl::Seconds(1));
  }
  ASSERT_TRUE(clock.AwaitWaiters(1));
  EXPECT_FALSE(popper.done()) << "handed out before 5 minutes";
  // At 5 minutes the scan finds it; its backoff (1 s, it was tried once)
  // has long passed.
  clock.Advance(absl::Seconds(1));
  EXPECT_EQ(popper.Join(), "a");
}

TEST(SchedulingQueueTest, EventDuringAttemptRetriesWithBackoff) {
  SimulatedClock clock;
  SchedulingQueue q(On(clock));
  q.Add("a", 0);
  ASSERT_EQ(*q.Pop(), "a");
  q.MoveAllToActiveOrBackoff();  // while "a" is being scheduled
  q.Finish("a", SchedulingQueue::Outcome::kUnschedulable);
  EXPECT_EQ(q.counts().backoff, 1u);
  Popper popper(q);
  ASSERT_TRUE(ReturnsAfter(clock, popper, absl::Seconds(1)));
  EXPECT_EQ(popper.Join(), "a");
}

TEST(SchedulingQueueTest, BackoffDoublesUpToItsLimit) {
  SimulatedClock clock;
  SchedulingQueue q(On(clock));
  q.Add("a", 0);
  ASSERT_EQ(*q.Pop(), "a");
  // Attempts 1..6 back off 1, 2, 4, 8, 10 and 10 seconds (capped).
  for (int seconds : {1, 2, 4, 8, 10, 10}) {
    q.Finish("a", SchedulingQueue::Outcome::kBackoff);
    Popper popper(q);
    ASSERT_TRUE(ReturnsAfter(clock, popper, absl::Seconds(seconds)))
        << seconds << " s";
    ASSERT_EQ(popper.Join(), "a");  // in flight again
  }
}

TEST(SchedulingQueueTest, GatedPodsSkipBackoff) {
  SchedulingQueue q;
  q.Add("a", 0);
  ASSERT_EQ(*q.Pop(), "a");
  q.Finish("a", SchedulingQueue::Outcome::kGated);
  EXPECT_EQ(q.counts().unschedulable, 1u);
  q.MoveToActiveOrBackoff("a");
  EXPECT_EQ(q.counts().active, 1u);
}

TEST(SchedulingQueueTest, DoneForgetsAndRemoveDrops) {
  SchedulingQueue q;
  q.Add("a", 0);
  q.Add("b", 0);
  ASSERT_EQ(*q.Pop(), "a");
  q.Finish("a", SchedulingQueue::Outcome::kDone);
  q.Remove("b");
  SchedulingQueue::Counts c = q.counts();
  EXPECT_EQ(c.active + c.backoff + c.unschedulable + c.in_flight, 0u);
}

TEST(SchedulingQueueTest, APodUpdatedWhileBeingBoundIsNotScheduledAgain) {
  SchedulingQueue q;
  q.Add("a", 0);
  ASSERT_EQ(*q.Pop(), "a");
  q.Add("a", 0);  // e.g. the claim controller wrote its status
  q.Finish("a", SchedulingQueue::Outcome::kDone);
  SchedulingQueue::Counts c = q.counts();
  EXPECT_EQ(c.active + c.backoff + c.unschedulable + c.in_flight, 0u);
  // A new pod of the same name, added after the bound one was removed
  // while its binding was in flight, stays queued.
  q.Add("b", 0);
  ASSERT_EQ(*q.Pop(), "b");
  q.Remove("b");
  q.Add("b", 0);
  q.Finish("b", SchedulingQueue::Outcome::kDone);
  EXPECT_EQ(q.counts().active, 1u);
}

TEST(SchedulingQueueTest, CloseWakesPop) {
  SimulatedClock clock;
  SchedulingQueue q(On(clock));
  Popper popper(q);
  ASSERT_TRUE(clock.AwaitWaiters(1));  // blocked in Pop
  q.Close();
  EXPECT_EQ(popper.Join(), std::nullopt);
}

}  // namespace
}  // namespace draplane::scheduler::internal
