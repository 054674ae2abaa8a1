// Standalone mode's Job controller (draplane server only: a real cluster
// has kube-controller-manager's). Runs min(parallelism, completions -
// succeeded) pods at a time from the pod template (generateName
// "<job>-", labels batch.kubernetes.io/job-name, job-name,
// batch.kubernetes.io/controller-uid, controller-uid, the Job as
// controlling owner); counts succeeded and failed pods; marks the Job
// Complete (SuccessCriteriaMet, then Complete, with completionTime) when
// `completions` pods succeeded, or Failed (FailureTarget, then Failed,
// reason BackoffLimitExceeded, "Job has reached the specified backoff
// limit") when more than backoffLimit pods failed, deleting its running
// pods. Defaults as the API server's: parallelism 1, completions 1,
// backoffLimit 6. Not done: the exponential delay before recreating a
// failed pod, indexed completion, pod failure policy, suspend, TTL.
#ifndef DRAPLANE_CONTROLLERS_JOB_CONTROLLER_H_
#define DRAPLANE_CONTROLLERS_JOB_CONTROLLER_H_

#include <memory>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "client/client.h"
#include "clock/clock.h"
#include "component_helpers/runnable.h"

namespace draplane::controllers {

class JobController : public component_helpers::Runnable {
 public:
  // `client` (and `clock`: start and completion times and backoffs; null:
  // RealClock()) outlive the controller.
  explicit JobController(client::Client* client, Clock* clock = nullptr);
  ~JobController() override;  // Stop()s
  JobController(const JobController&) = delete;
  JobController& operator=(const JobController&) = delete;

  absl::Status Start(absl::Duration sync_timeout =
                         component_helpers::kDefaultSyncTimeout) override;
  void Stop() override;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace draplane::controllers

#endif  // DRAPLANE_CONTROLLERS_JOB_CONTROLLER_H_
