#include "clock/clock.h"

#include "absl/time/clock.h"

namespace draplane {
namespace {

class RealClockImpl : public Clock {
 public:
  absl::Time Now() const override { return absl::Now(); }

  bool WaitUntil(absl::CondVar& cv, absl::Mutex& mu,
                 absl::Time deadline) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (absl::Now() >= deadline) return true;
    cv.WaitWithDeadline(&mu, deadline);
    return absl::Now() >= deadline;
  }
  void SleepFor(absl::Duration d) override { absl::SleepFor(d); }
};

}  // namespace

Clock& RealClock() {
  static RealClockImpl* clock = new RealClockImpl();
  return *clock;
}

}  // namespace draplane
