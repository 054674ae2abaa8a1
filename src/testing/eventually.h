// Waiting for asynchronous components in tests: polls a condition every
// 10 ms until it holds or the timeout passes.
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

}  // namespace draplane::testing

#endif  // DRAPLANE_TESTING_EVENTUALLY_H_
