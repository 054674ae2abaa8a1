// draplane's pod scheduler: watches pods, nodes and the resource.k8s.io
// objects through the Kubernetes API (client::Client: draplane's own
// server in-process, or any kube-apiserver over HTTPS), decides where each
// pending pod goes with SchedulingCycle, writes each claim's allocation and
// reservedFor, and binds the pod through pods/binding, as kube-scheduler
// with its DynamicResources plugin does. Unschedulable pods get the
// PodScheduled=False condition and a FailedScheduling event with the
// allocator's explanation.
//
// With leader election on, only the Lease holder schedules; the others keep
// their caches warm and take over when the leader stops renewing.
#ifndef DRAPLANE_SCHEDULER_SCHEDULER_H_
#define DRAPLANE_SCHEDULER_SCHEDULER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "allocator/features.h"
#include "client/client.h"
#include "client/leader_election.h"
#include "clock/clock.h"
#include "component_helpers/runnable.h"
#include "metrics/metrics.h"
#include "scheduler/scheduling_cycle.h"

namespace draplane::scheduler {

struct SchedulerOptions {
  // Pods with this spec.schedulerName are ours.
  std::string scheduler_name = "draplane";
  // Also take pods for "default-scheduler" (and pods without a name):
  // standalone mode, where no other scheduler runs.
  bool also_default_scheduler = false;
  // upstream | binpack | spread | topology (scoring_policy.h).
  std::string policy = "upstream";
  std::vector<std::string> topology_attributes;  // empty: the defaults
  allocator::Features features = allocator::Features::Defaults();
  CycleOptions cycle;
  // Concurrent binding goroutines' worth of threads: claim writes and
  // pods/binding run here, off the scheduling thread.
  int bind_workers = 16;
  // Write Scheduled / FailedScheduling events (core/v1) as kube-scheduler.
  bool record_events = true;
  // Set: campaign for this Lease and schedule only while leading.
  std::optional<client::LeaderElectionConfig> leader_election;
  // Called on the elector's thread when the lease is lost: the scheduler
  // has stopped scheduling for good (`draplane scheduler` then exits 1, as
  // kube-scheduler does). Unset: nothing more happens.
  std::function<void()> on_leadership_lost;
  // Informer resync period (0 = none).
  absl::Duration resync = absl::ZeroDuration();
  // Where the scheduler's metrics go (null: none); it must outlive the
  // scheduler. Upstream's scheduler_schedule_attempts_total and
  // scheduler_scheduling_attempt_duration_seconds{profile,result}, and the
  // guide's dra_allocation_duration_seconds: from the scheduler first
  // seeing a pending pod to each claim allocation for it written.
  metrics::Registry* metrics = nullptr;
  // What the scheduling queue's backoffs and the conditions' timestamps
  // read (null: RealClock()); outlives the scheduler. Latency metrics
  // always measure real time.
  Clock* clock = nullptr;
};

struct SchedulerStats {
  int64_t scheduled = 0;      // pods bound
  int64_t unschedulable = 0;  // attempts that found no node
  int64_t errors = 0;         // attempts or bindings that failed
  int64_t attempts = 0;       // scheduling cycles run
  // Pods held back before a cycle (upstream's PreEnqueue: a claim missing
  // or not yet recorded in the pod's status); not attempts.
  int64_t gated = 0;
  int64_t allocate_calls = 0;  // allocator invocations
  bool leading = false;
};

class Scheduler : public component_helpers::Runnable {
 public:
  // `client` outlives the scheduler. Fails on bad options (policy name).
  static absl::StatusOr<std::unique_ptr<Scheduler>> Create(
      client::Client* client, SchedulerOptions options);
  ~Scheduler() override;  // Stop()s

  // Starts the informers, waits for them to sync (up to `sync_timeout`),
  // then schedules (or campaigns for leadership first).
  absl::Status Start(absl::Duration sync_timeout =
                         component_helpers::kDefaultSyncTimeout) override;
  // Stops scheduling, waits for in-flight bindings, stops the informers and
  // releases the lease.
  void Stop() override;

  SchedulerStats stats() const;
  // The leader-election health check (client::LeaderElector::Check); OK
  // without leader election.
  absl::Status LeaderElectionCheck() const;

 private:
  class Impl;
  explicit Scheduler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace draplane::scheduler

#endif  // DRAPLANE_SCHEDULER_SCHEDULER_H_
