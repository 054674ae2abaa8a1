// The seam to time, as LevelDB's Env and Envoy's TimeSource: every
// component that reads the time, sleeps or waits with a timeout does it
// through a Clock it is given, so that tests drive time with a
// SimulatedClock (simulated_clock.h) instead of sleeping.
//
// What goes through a Clock: timestamps written into objects, timeouts,
// backoffs, periods of control loops, lease durations. What does not:
// measurements of the program's own speed (latency histograms, benchmark
// timers), which read the real clock on purpose.
//
// Usage:
//   std::unique_lock<std::mutex> lock(mu_);
//   clock_.WaitFor(cv_, lock, period, [&] { return stopping_; });
#ifndef DRAPLANE_CLOCK_CLOCK_H_
#define DRAPLANE_CLOCK_CLOCK_H_

#include <condition_variable>
#include <mutex>

#include "absl/time/time.h"

namespace draplane {

// Thread-safe. Implementations outlive every component given them.
class Clock {
 public:
  virtual ~Clock() = default;

  // The current time.
  virtual absl::Time Now() const = 0;

  // Blocks until `cv` is notified, this clock reaches `deadline`, or a
  // spurious wake-up; callers re-check their condition. REQUIRES: `lock`
  // holds its mutex; it is released while waiting and held again on
  // return. Returns true when the clock has reached `deadline`.
  virtual bool WaitUntil(std::condition_variable& cv,
                         std::unique_lock<std::mutex>& lock,
                         absl::Time deadline) = 0;

  // Blocks until this clock has advanced by `d`.
  virtual void SleepFor(absl::Duration d) = 0;

  // Waits on `cv` until `done()` or `deadline`; returns done() (evaluated
  // with `lock` held), like std::condition_variable::wait_until.
  template <class Predicate>
  bool WaitUntil(std::condition_variable& cv,
                 std::unique_lock<std::mutex>& lock, absl::Time deadline,
                 Predicate done) {
    while (!done()) {
      if (WaitUntil(cv, lock, deadline)) return done();
    }
    return true;
  }
  // The same with a timeout from now.
  template <class Predicate>
  bool WaitFor(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
               absl::Duration timeout, Predicate done) {
    return WaitUntil(cv, lock, Now() + timeout, std::move(done));
  }
};

// The process's real clock (absl::Now, condition variables' own timeouts).
// Never destroyed.
Clock& RealClock();

}  // namespace draplane

#endif  // DRAPLANE_CLOCK_CLOCK_H_
