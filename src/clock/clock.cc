#include "clock/clock.h"

#include <chrono>

#include "absl/time/clock.h"

namespace draplane {
namespace {

class RealClockImpl : public Clock {
 public:
  absl::Time Now() const override { return absl::Now(); }

  bool WaitUntil(std::condition_variable& cv,
                 std::unique_lock<std::mutex>& lock,
                 absl::Time deadline) override {
    if (deadline == absl::InfiniteFuture()) {
      cv.wait(lock);
      return false;
    }
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return true;
    // A day at most per wait: chrono's clocks overflow on huge durations.
    cv.wait_for(lock,
                absl::ToChronoNanoseconds(std::min(left, absl::Hours(24))));
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
