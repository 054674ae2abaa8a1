#include "scheduler/internal/scheduling_queue.h"

#include <thread>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace draplane::scheduler::internal {
namespace {

QueueOptions Fast() {
  QueueOptions o;
  o.initial_backoff = absl::Milliseconds(20);
  o.max_backoff = absl::Milliseconds(80);
  return o;
}

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
  SchedulingQueue q(Fast());
  q.Add("a", 0);
  ASSERT_EQ(*q.Pop(), "a");
  q.Finish("a", SchedulingQueue::Outcome::kUnschedulable);
  EXPECT_EQ(q.counts().unschedulable, 1u);
  q.MoveAllToActiveOrBackoff();
  SchedulingQueue::Counts c = q.counts();
  EXPECT_EQ(c.unschedulable, 0u);
  EXPECT_EQ(c.active + c.backoff, 1u);
  // After the backoff it is handed out again.
  EXPECT_EQ(*q.Pop(), "a");
}

// Without any event, an unschedulable pod is retried after
// max_unschedulable (upstream's podMaxInUnschedulablePodsDuration), found
// by the periodic scan (at most once a second).
TEST(SchedulingQueueTest, UnschedulablePodsAreRetriedAfterTheLimit) {
  QueueOptions o = Fast();
  o.max_unschedulable = absl::Milliseconds(100);
  SchedulingQueue q(o);
  q.Add("a", 0);
  ASSERT_EQ(*q.Pop(), "a");
  q.Finish("a", SchedulingQueue::Outcome::kUnschedulable);
  q.Add("b", 0);
  ASSERT_EQ(*q.Pop(), "b");  // "a" is not handed out before its time
  const absl::Time start = absl::Now();
  EXPECT_EQ(*q.Pop(), "a");
  const absl::Duration waited = absl::Now() - start;
  EXPECT_GE(waited, absl::Milliseconds(50));
  EXPECT_LE(waited, absl::Seconds(10));
}

TEST(SchedulingQueueTest, EventDuringAttemptRetriesWithBackoff) {
  SchedulingQueue q(Fast());
  q.Add("a", 0);
  ASSERT_EQ(*q.Pop(), "a");
  q.MoveAllToActiveOrBackoff();  // while "a" is being scheduled
  q.Finish("a", SchedulingQueue::Outcome::kUnschedulable);
  EXPECT_EQ(q.counts().backoff, 1u);
  absl::Time start = absl::Now();
  EXPECT_EQ(*q.Pop(), "a");
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(15));
}

TEST(SchedulingQueueTest, GatedPodsSkipBackoff) {
  SchedulingQueue q(Fast());
  q.Add("a", 0);
  ASSERT_EQ(*q.Pop(), "a");
  q.Finish("a", SchedulingQueue::Outcome::kGated);
  EXPECT_EQ(q.counts().unschedulable, 1u);
  q.MoveToActiveOrBackoff("a");
  EXPECT_EQ(q.counts().active, 1u);
}

TEST(SchedulingQueueTest, DoneForgetsAndRemoveDrops) {
  SchedulingQueue q(Fast());
  q.Add("a", 0);
  q.Add("b", 0);
  ASSERT_EQ(*q.Pop(), "a");
  q.Finish("a", SchedulingQueue::Outcome::kDone);
  q.Remove("b");
  SchedulingQueue::Counts c = q.counts();
  EXPECT_EQ(c.active + c.backoff + c.unschedulable + c.in_flight, 0u);
}

TEST(SchedulingQueueTest, APodUpdatedWhileBeingBoundIsNotScheduledAgain) {
  SchedulingQueue q(Fast());
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
  SchedulingQueue q;
  std::thread t([&] { EXPECT_FALSE(q.Pop().has_value()); });
  absl::SleepFor(absl::Milliseconds(20));
  q.Close();
  t.join();
}

}  // namespace
}  // namespace draplane::scheduler::internal
