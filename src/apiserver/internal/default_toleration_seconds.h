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

std::shared_ptr<AdmissionPlugin> NewDefaultTolerationSeconds();

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_DEFAULT_TOLERATION_SECONDS_H_
