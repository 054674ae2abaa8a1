// kube-apiserver's max-in-flight filter (WithMaxInFlightLimit, the limit
// used when API Priority and Fairness is off): at most `read_only` get,
// list and watch requests and `mutating` other requests are served at
// once; long-running requests (watches; proxy, attach, exec, log and
// portforward) are not counted. A request over the limit is answered 429
// with `Retry-After: 1` and upstream's text, unless its user is in
// system:masters (upstream serves those anyway). Thread-safe.
#ifndef DRAPLANE_APISERVER_INTERNAL_MAX_IN_FLIGHT_H_
#define DRAPLANE_APISERVER_INTERNAL_MAX_IN_FLIGHT_H_

#include <atomic>
#include <cstdint>

#include "auth/request_attributes.h"

namespace draplane::apiserver::internal {

class MaxInFlight {
 public:
  // A limit of 0 does not limit that kind of request.
  MaxInFlight(int read_only, int mutating);

  // Held while a request is served; releases its place when destroyed.
  class Slot {
   public:
    Slot() = default;
    explicit Slot(std::atomic<int>* counter) : counter_(counter) {}
    Slot(Slot&& other) noexcept : counter_(other.counter_) {
      other.counter_ = nullptr;
    }
    Slot& operator=(Slot&& other) noexcept {
      if (this != &other) {
        Release();
        counter_ = other.counter_;
        other.counter_ = nullptr;
      }
      return *this;
    }
    ~Slot() { Release(); }

   private:
    void Release() {
      if (counter_ != nullptr) counter_->fetch_sub(1);
      counter_ = nullptr;
    }
    std::atomic<int>* counter_ = nullptr;
  };

  // A place for the request `a` (resolved and authenticated, after
  // impersonation); false when it must be refused with 429.
  bool Admit(const auth::RequestAttributes& a, Slot* slot);

  // Requests refused so far, read-only and mutating.
  int64_t dropped_read_only() const { return dropped_read_only_; }
  int64_t dropped_mutating() const { return dropped_mutating_; }

 private:
  const int read_only_limit_;
  const int mutating_limit_;
  std::atomic<int> read_only_{0};
  std::atomic<int> mutating_{0};
  std::atomic<int64_t> dropped_read_only_{0};
  std::atomic<int64_t> dropped_mutating_{0};
};

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_MAX_IN_FLIGHT_H_
