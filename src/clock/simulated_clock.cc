#include "clock/simulated_clock.h"

#include "absl/time/clock.h"
#include "logging/log.h"

namespace draplane {
namespace {

// How often a waiter re-reads the simulated time (real time). A poll rather
// than a signal from Advance: Advance cannot safely reach the waiter's
// condition variable, which may be destroyed as soon as its wait returns.
constexpr absl::Duration kPoll = absl::Milliseconds(1);

}  // namespace

class SimulatedClock::WaitScope {
 public:
  explicit WaitScope(SimulatedClock& clock) : clock_(clock) {
    absl::MutexLock lock(&clock_.mu_);
    generation_ = clock_.generation_;
    ++clock_.waiting_[generation_];
    clock_.changed_.SignalAll();
  }
  ~WaitScope() {
    absl::MutexLock lock(&clock_.mu_);
    auto it = clock_.waiting_.find(generation_);
    if (--it->second == 0) clock_.waiting_.erase(it);
  }
  WaitScope(const WaitScope&) = delete;
  WaitScope& operator=(const WaitScope&) = delete;

 private:
  SimulatedClock& clock_;
  uint64_t generation_;
};

SimulatedClock::SimulatedClock(absl::Time start) : now_(start) {}

absl::Time SimulatedClock::Now() const {
  absl::MutexLock lock(&mu_);
  return now_;
}

bool SimulatedClock::WaitUntil(absl::CondVar& cv, absl::Mutex& mu,
                               absl::Time deadline) {
  if (Now() >= deadline) return true;
  {
    WaitScope scope(*this);
    cv.WaitWithTimeout(&mu, kPoll);
  }
  return Now() >= deadline;
}

void SimulatedClock::SleepFor(absl::Duration d) {
  absl::MutexLock lock(&mu_);
  const absl::Time until = now_ + d;
  // Registered anew at each generation, as a polling waiter would be.
  while (now_ < until) {
    const uint64_t generation = generation_;
    ++waiting_[generation];
    changed_.SignalAll();
    while (generation_ == generation) changed_.Wait(&mu_);
    if (--waiting_[generation] == 0) waiting_.erase(generation);
  }
}

void SimulatedClock::Advance(absl::Duration d) {
  if (d < absl::ZeroDuration()) {
    logging::Fatal("SimulatedClock::Advance: time does not go back",
                   {{"by", d}});
  }
  absl::MutexLock lock(&mu_);
  now_ += d;
  ++generation_;
  changed_.SignalAll();
}

bool SimulatedClock::AwaitWaiters(int n, absl::Duration real_timeout) {
  absl::MutexLock lock(&mu_);
  const absl::Time give_up = absl::Now() + real_timeout;
  auto enough = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = waiting_.find(generation_);
    return it != waiting_.end() && it->second >= n;
  };
  while (!enough()) {
    if (changed_.WaitWithDeadline(&mu_, give_up)) return enough();
  }
  return true;
}

}  // namespace draplane
