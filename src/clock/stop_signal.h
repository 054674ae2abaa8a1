// The stop request a component's loops wait on: Sleep(d) returns after
// `d` on the component's clock, or as soon as Stop() is called.
//   while (stop_.Sleep(period)) Poll();
#ifndef DRAPLANE_CLOCK_STOP_SIGNAL_H_
#define DRAPLANE_CLOCK_STOP_SIGNAL_H_

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "clock/clock.h"

namespace draplane {

class StopSignal {
 public:
  explicit StopSignal(Clock& clock) : clock_(clock) {}

  // Waits `d`; false when stopped (before or while waiting).
  bool Sleep(absl::Duration d) {
    absl::MutexLock lock(&mu_);
    return !clock_.WaitFor(cv_, mu_, d, [this] {
      mu_.AssertHeld();
      return stopped_;
    });
  }

  bool stopped() {
    absl::MutexLock lock(&mu_);
    return stopped_;
  }

  // Wakes every Sleep. True for the first call only, so that the caller's
  // shutdown runs once.
  bool Stop() {
    absl::MutexLock lock(&mu_);
    if (stopped_) return false;
    stopped_ = true;
    cv_.SignalAll();
    return true;
  }

 private:
  Clock& clock_;
  absl::Mutex mu_;
  absl::CondVar cv_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace draplane

#endif  // DRAPLANE_CLOCK_STOP_SIGNAL_H_
