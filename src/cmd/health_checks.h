// A component's health endpoints, as k8s.io/apiserver's healthz serves
// them for kube-scheduler and kube-controller-manager: /healthz and /livez
// run every named check ("ping" always passes), /healthz/<check> and
// /livez/<check> one of them.
//   - all pass: 200 "ok" (with ?verbose, "[+]<check> ok" per check, then
//     "<endpoint> check passed");
//   - one fails: 500 with "[+]<check> ok" / "[-]<check> failed: reason
//     withheld" per check, then "<endpoint> check failed"; the reason goes
//     to the log, not to the (unauthenticated) caller;
//   - an unknown check: 404.
#ifndef DRAPLANE_CMD_HEALTH_CHECKS_H_
#define DRAPLANE_CMD_HEALTH_CHECKS_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "http/http_server.h"

namespace draplane::cmd {

class HealthChecks {
 public:
  // Adds a check; `check` must be thread-safe and must not block.
  void Add(std::string name, std::function<absl::Status()> check);

  // Answers GET /healthz, /livez and their /<check> forms; false (nothing
  // sent) for any other path.
  bool Serve(const http::HttpRequest& req, http::ResponseWriter& w) const;

 private:
  mutable absl::Mutex mu_;
  std::vector<std::pair<std::string, std::function<absl::Status()>>> checks_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace draplane::cmd

#endif  // DRAPLANE_CMD_HEALTH_CHECKS_H_
