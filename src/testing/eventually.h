// Waiting for asynchronous components in tests: Eventually polls a
// condition every 10 ms until it holds or the timeout passes; Consistently
// polls it for a while and fails as soon as it does not hold. Consistently
// is for the absence of an asynchronous effect (a controller creates no
// more pods than asked), which no clock can prove: it bounds real time.
// Everything that waits for time itself (periods, backoffs, leases) runs on
// a SimulatedClock instead.
#ifndef DRAPLANE_TESTING_EVENTUALLY_H_
#define DRAPLANE_TESTING_EVENTUALLY_H_

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace draplane::testing {

// Returns `done()`'s last value: true as soon as it held.
template <typename F>
bool Eventually(F done, absl::Duration timeout = absl::Seconds(10)) {
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    if (done()) return true;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return done();
}

// Returns false as soon as `holds()` is false; true when it held at every
// poll for `duration`.
template <typename F>
bool Consistently(F holds, absl::Duration duration = absl::Milliseconds(200)) {
  const absl::Time deadline = absl::Now() + duration;
  while (absl::Now() < deadline) {
    if (!holds()) return false;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return holds();
}

}  // namespace draplane::testing

#endif  // DRAPLANE_TESTING_EVENTUALLY_H_
