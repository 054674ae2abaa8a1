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
//   absl::MutexLock lock(&mu_);
//   clock_.WaitFor(cv_, mu_, period, [&] { return stopping_; });
#ifndef DRAPLANE_CLOCK_CLOCK_H_
#define DRAPLANE_CLOCK_CLOCK_H_

#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace draplane {

// Thread-safe. Implementations outlive every component given them.
class Clock {
 public:
  virtual ~Clock() = default;

  // The current time.
  virtual absl::Time Now() const = 0;

  // Blocks until `cv` is signalled, this clock reaches `deadline`, or a
  // spurious wake-up; callers re-check their condition. `mu` is released
  // while waiting and held again on return. Returns true when the clock
  // has reached `deadline`.
  virtual bool WaitUntil(absl::CondVar& cv, absl::Mutex& mu,
                         absl::Time deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) = 0;

  // Blocks until this clock has advanced by `d`.
  virtual void SleepFor(absl::Duration d) = 0;

  // Waits on `cv` until `done()` or `deadline`; returns done() (evaluated
  // with `mu` held), like absl::CondVar::wait_until.
  template <class Predicate>
  bool WaitUntil(absl::CondVar& cv, absl::Mutex& mu, absl::Time deadline,
                 Predicate done) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    while (!done()) {
      if (WaitUntil(cv, mu, deadline)) return done();
    }
    return true;
  }
  // The same with a timeout from now.
  template <class Predicate>
  bool WaitFor(absl::CondVar& cv, absl::Mutex& mu, absl::Duration timeout,
               Predicate done) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    return WaitUntil(cv, mu, Now() + timeout, std::move(done));
  }
};

// The process's real clock (absl::Now, CondVar's own deadlines).
// Never destroyed.
Clock& RealClock();

}  // namespace draplane

#endif  // DRAPLANE_CLOCK_CLOCK_H_
