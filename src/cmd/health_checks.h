// A component's health endpoints, as k8s.io/apiserver's healthz serves
// them for kube-scheduler and kube-controller-manager: /healthz, /livez and
// /readyz run their named checks ("ping" always passes; readiness checks
// run on /readyz only), /<endpoint>/<check> one of them.
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
  // Adds a check to /healthz, /livez and /readyz; `check` must be
  // thread-safe and must not block.
  void Add(std::string name, std::function<absl::Status()> check);
  // Adds a check to /readyz only (kube-scheduler's "shutdown" and
  // "sched-handler-sync").
  void AddReadiness(std::string name, std::function<absl::Status()> check);

  // Answers GET /healthz, /livez, /readyz and their /<check> forms; false
  // (nothing sent) for any other path.
  bool Serve(const http::HttpRequest& req, http::ResponseWriter& w) const;

 private:
  mutable absl::Mutex mu_;
  struct Check {
    std::string name;
    std::function<absl::Status()> check;
    bool readiness_only = false;
  };
  std::vector<Check> checks_ ABSL_GUARDED_BY(mu_);
};

}  // namespace draplane::cmd

#endif  // DRAPLANE_CMD_HEALTH_CHECKS_H_
