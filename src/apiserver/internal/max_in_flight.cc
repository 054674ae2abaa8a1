#include "apiserver/internal/max_in_flight.h"

#include <string_view>

namespace draplane::apiserver::internal {
namespace {

// Upstream's BasicLongRunningRequestCheck with kube-apiserver's verbs
// (watch, proxy) and subresources.
bool LongRunning(const auth::RequestAttributes& a) {
  if (a.verb == "watch" || a.verb == "proxy") return true;
  if (!a.resource_request) return false;
  for (std::string_view sub :
       {"attach", "exec", "proxy", "log", "portforward"}) {
    if (a.subresource == sub) return true;
  }
  return false;
}

}  // namespace

MaxInFlight::MaxInFlight(int read_only, int mutating)
    : read_only_limit_(read_only), mutating_limit_(mutating) {}

bool MaxInFlight::Admit(const auth::RequestAttributes& a, Slot* slot) {
  if (LongRunning(a)) return true;
  const bool mutating = a.verb != "get" && a.verb != "list";
  const int limit = mutating ? mutating_limit_ : read_only_limit_;
  if (limit <= 0) return true;
  std::atomic<int>& counter = mutating ? mutating_ : read_only_;
  if (counter.fetch_add(1) < limit) {
    *slot = Slot(&counter);
    return true;
  }
  counter.fetch_sub(1);
  // A system:masters user always gets an answer (a super-admin or the
  // loopback client), as upstream.
  if (a.user.InGroup(auth::kSystemPrivilegedGroup)) return true;
  (mutating ? dropped_mutating_ : dropped_read_only_).fetch_add(1);
  return false;
}

}  // namespace draplane::apiserver::internal
