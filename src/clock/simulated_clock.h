// A Clock for tests: time moves only when the test says so (Advance), so a
// test of a backoff, a lease or a grace period runs in microseconds and
// never depends on the machine's speed. Waiters notice an Advance within a
// millisecond of real time; AwaitWaiters lets a test advance only once the
// component under test is blocked on the clock.
#ifndef DRAPLANE_CLOCK_SIMULATED_CLOCK_H_
#define DRAPLANE_CLOCK_SIMULATED_CLOCK_H_

#include <cstdint>
#include <map>

#include "absl/time/time.h"
#include "clock/clock.h"

namespace draplane {

class SimulatedClock : public Clock {
 public:
  // Starts at `start` (by default 2026-01-01T00:00:00Z).
  explicit SimulatedClock(absl::Time start = absl::FromUnixSeconds(1767225600));

  absl::Time Now() const override;
  bool WaitUntil(absl::CondVar& cv, absl::Mutex& mu,
                 absl::Time deadline) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  using Clock::WaitUntil;
  // Returns once another thread has advanced this clock by `d`.
  void SleepFor(absl::Duration d) override;

  // Moves time forward by `d` (>= 0) and wakes the threads waiting on this
  // clock.
  void Advance(absl::Duration d);

  // Blocks until at least `n` threads are waiting on this clock
  // (WaitUntil, SleepFor) having started their wait after the last
  // Advance, i.e. they saw the current time. Gives up after `real_timeout`
  // of real time; returns whether they did.
  bool AwaitWaiters(int n, absl::Duration real_timeout = absl::Seconds(30));

 private:
  // Registers a waiter at the current generation for the life of a wait.
  class WaitScope;

  mutable absl::Mutex mu_;
  absl::CondVar changed_;  // time advanced or a waiter came
  absl::Time now_ ABSL_GUARDED_BY(mu_);
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;  // Advance count
  // generation -> waiters
  std::map<uint64_t, int> waiting_ ABSL_GUARDED_BY(mu_);
};

}  // namespace draplane

#endif  // DRAPLANE_CLOCK_SIMULATED_CLOCK_H_
