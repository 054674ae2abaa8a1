// Leader election through a coordination.k8s.io/v1 Lease, with client-go's
// rules: acquire when the lease is absent, expired (renewTime +
// leaseDurationSeconds in the past, by the local clock since the record was
// last seen changing) or held by us; renew every retry period; give up
// leadership when a renewal has not succeeded within the renew deadline.
// As client-go's LeaderElector.Run, an elector that lost its lease does not
// campaign again: the process is expected to exit non-zero (as
// kube-scheduler and kube-controller-manager do), so that it restarts as a
// fresh candidate and never holds the lease without acting on it.
#ifndef DRAPLANE_CLIENT_LEADER_ELECTION_H_
#define DRAPLANE_CLIENT_LEADER_ELECTION_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "client/client.h"
#include "clock/clock.h"

namespace draplane::client {

struct LeaderElectionConfig {
  std::string lease_namespace = "kube-system";
  std::string lease_name;  // e.g. "draplane-scheduler"
  std::string identity;    // unique per process, e.g. "host_uuid"
  absl::Duration lease_duration = absl::Seconds(15);
  absl::Duration renew_deadline = absl::Seconds(10);
  absl::Duration retry_period = absl::Seconds(2);
  // On release (Stop while leading) the lease is given up at once
  // (client-go ReleaseOnCancel) so another candidate takes over quickly.
  bool release_on_cancel = true;
  // What lease times are read from and retries wait on (null:
  // RealClock()); outlives the elector.
  Clock* clock = nullptr;
};

// client-go's JitterFactor: the renew deadline must exceed the retry
// period times this.
inline constexpr double kLeaderElectionJitterFactor = 1.2;

// How long past the lease duration a leader may go without renewing before
// its health check fails (client-go's HealthzAdaptor tolerance).
inline constexpr absl::Duration kMaxTolerableExpiredLease = absl::Seconds(20);

// client-go's checks of a configuration, with its messages:
// "leaseDuration must be greater than renewDeadline", "renewDeadline must
// be greater than retryPeriod*JitterFactor", "... must be greater than
// zero", "Lock identity is empty".
absl::Status ValidateLeaderElectionConfig(const LeaderElectionConfig& config);

// How a term of leadership ended.
enum class LeadershipEnd {
  kReleased,  // Stop() while leading (the lease is given up)
  kLost,      // no renewal succeeded within the renew deadline
};

struct LeaderCallbacks {
  // Called on the elector's thread when this process becomes leader.
  std::function<void()> on_started_leading;
  // Called when leadership ends, with how. A process that loses leadership
  // must stop acting as leader; after kLost the elector campaigns no more.
  std::function<void(LeadershipEnd)> on_stopped_leading;
  // Called whenever the observed leader identity changes.
  std::function<void(const std::string& identity)> on_new_leader;
};

class LeaderElector {
 public:
  // `config` must pass ValidateLeaderElectionConfig.
  LeaderElector(Client* client, LeaderElectionConfig config,
                LeaderCallbacks callbacks);
  ~LeaderElector();  // Stop()s
  // Starts campaigning on a background thread.
  void Start();
  // Stops campaigning; releases the lease when leading.
  void Stop();
  bool IsLeader() const;
  // client-go's leader-election health check ("leaderElection" in
  // /healthz and /livez): fails with "failed election to renew leadership
  // on lease <name>" while this process leads but has not renewed for
  // the lease duration plus kMaxTolerableExpiredLease (its elector is
  // stuck); OK otherwise.
  absl::Status Check() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace draplane::client

#endif  // DRAPLANE_CLIENT_LEADER_ELECTION_H_
