// kube-apiserver's DefaultTolerationSeconds admission plugin (on by
// default upstream): a pod created without a toleration for
// node.kubernetes.io/not-ready:NoExecute (or for unreachable) gets
// {key, operator: Exists, effect: NoExecute, tolerationSeconds: 300}, so
// that taint-based eviction waits 5 minutes after a node fails. A
// toleration with an empty key (or empty effect) counts as one for the
// taint, as upstream. Creates of pods only; updates are left alone.
#ifndef DRAPLANE_APISERVER_INTERNAL_DEFAULT_TOLERATION_SECONDS_H_
#define DRAPLANE_APISERVER_INTERNAL_DEFAULT_TOLERATION_SECONDS_H_

#include <cstdint>
#include <memory>

#include "apiserver/admission.h"

namespace draplane::apiserver::internal {

inline constexpr int64_t kDefaultTolerationSeconds = 300;

// kube-apiserver's --default-not-ready-toleration-seconds and
// --default-unreachable-toleration-seconds (both 300 by default).
std::shared_ptr<AdmissionPlugin> NewDefaultTolerationSeconds(
    int64_t not_ready_seconds = kDefaultTolerationSeconds,
    int64_t unreachable_seconds = kDefaultTolerationSeconds);

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_DEFAULT_TOLERATION_SECONDS_H_
