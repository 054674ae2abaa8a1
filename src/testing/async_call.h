// A blocking call run on a thread of its own, for tests of components that
// block (queues, waits on a simulated clock): done() says whether it has
// returned,
// Join() waits for its result. A test that ends before the call returns
// (a failed assertion) runs `unblock` (e.g. the queue's ShutDown) so that
// the thread ends instead of hanging the test.
#ifndef DRAPLANE_TESTING_ASYNC_CALL_H_
#define DRAPLANE_TESTING_ASYNC_CALL_H_

#include <atomic>
#include <functional>
#include <thread>
#include <utility>

#include "absl/time/time.h"
#include "clock/simulated_clock.h"

namespace draplane::testing {

template <class T>
class AsyncCall {
 public:
  AsyncCall(std::function<T()> call, std::function<void()> unblock)
      : unblock_(std::move(unblock)), thread_([this, call = std::move(call)] {
          result_ = call();
          done_ = true;
        }) {}
  ~AsyncCall() {
    if (!done_) unblock_();
    if (thread_.joinable()) thread_.join();
  }
  AsyncCall(const AsyncCall&) = delete;
  AsyncCall& operator=(const AsyncCall&) = delete;

  bool done() const { return done_; }
  T Join() {
    if (thread_.joinable()) thread_.join();
    return result_;
  }

 private:
  std::function<void()> unblock_;
  T result_{};
  std::atomic<bool> done_{false};
  std::thread thread_;  // last: it starts once the members above exist
};

// For a call blocked on `clock` (waiting out a backoff, say): true when it
// is still blocked `d` less a millisecond of simulated time later and has
// returned at `d`; Join() then gives its result.
template <class T>
bool ReturnsAfter(SimulatedClock& clock, AsyncCall<T>& call, absl::Duration d) {
  const absl::Duration tick = absl::Milliseconds(1);
  if (!clock.AwaitWaiters(1)) return false;
  clock.Advance(d - tick);
  if (!clock.AwaitWaiters(1) || call.done()) return false;
  clock.Advance(tick);
  call.Join();
  return true;
}

}  // namespace draplane::testing

#endif  // DRAPLANE_TESTING_ASYNC_CALL_H_
