#include "clock/simulated_clock.h"

#include <chrono>

#include "absl/time/clock.h"
#include "logging/log.h"

namespace draplane {
namespace {

// How often a waiter re-reads the simulated time (real time). A poll rather
// than a notification from Advance: Advance cannot safely reach the
// waiter's condition variable, which may be destroyed as soon as its wait
// returns.
constexpr auto kPoll = std::chrono::milliseconds(1);

}  // namespace

class SimulatedClock::WaitScope {
 public:
  explicit WaitScope(SimulatedClock& clock) : clock_(clock) {
    std::lock_guard<std::mutex> lock(clock_.mu_);
    generation_ = clock_.generation_;
    ++clock_.waiting_[generation_];
    clock_.changed_.notify_all();
  }
  ~WaitScope() {
    std::lock_guard<std::mutex> lock(clock_.mu_);
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
  std::lock_guard<std::mutex> lock(mu_);
  return now_;
}

bool SimulatedClock::WaitUntil(std::condition_variable& cv,
                               std::unique_lock<std::mutex>& lock,
                               absl::Time deadline) {
  if (Now() >= deadline) return true;
  {
    WaitScope scope(*this);
    cv.wait_for(lock, kPoll);
  }
  return Now() >= deadline;
}

void SimulatedClock::SleepFor(absl::Duration d) {
  std::unique_lock<std::mutex> lock(mu_);
  const absl::Time until = now_ + d;
  // Registered anew at each generation, as a polling waiter would be.
  while (now_ < until) {
    const uint64_t generation = generation_;
    ++waiting_[generation];
    changed_.notify_all();
    changed_.wait(lock, [&] { return generation_ != generation; });
    if (--waiting_[generation] == 0) waiting_.erase(generation);
  }
}

void SimulatedClock::Advance(absl::Duration d) {
  if (d < absl::ZeroDuration()) {
    logging::Fatal("SimulatedClock::Advance: time does not go back",
                   {{"by", d}});
  }
  std::lock_guard<std::mutex> lock(mu_);
  now_ += d;
  ++generation_;
  changed_.notify_all();
}

bool SimulatedClock::AwaitWaiters(int n, absl::Duration real_timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return changed_.wait_for(lock, absl::ToChronoNanoseconds(real_timeout), [&] {
    auto it = waiting_.find(generation_);
    return it != waiting_.end() && it->second >= n;
  });
}

}  // namespace draplane
