// Leader election through a coordination.k8s.io/v1 Lease, with client-go's
// rules: acquire when the lease is absent, expired (renewTime +
// leaseDurationSeconds in the past, by the local clock since the record was
// last seen changing) or held by us; renew every retry period; give up
// leadership when a renewal has not succeeded within the renew deadline.
#ifndef DRAPLANE_CLIENT_LEADER_ELECTION_H_
#define DRAPLANE_CLIENT_LEADER_ELECTION_H_

#include <functional>
#include <memory>
#include <string>

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

struct LeaderCallbacks {
  // Called on the elector's thread when this process becomes leader.
  std::function<void()> on_started_leading;
  // Called when leadership is lost or released. A process that loses
  // leadership must stop acting as leader.
  std::function<void()> on_stopped_leading;
  // Called whenever the observed leader identity changes.
  std::function<void(const std::string& identity)> on_new_leader;
};

class LeaderElector {
 public:
  LeaderElector(Client* client, LeaderElectionConfig config,
                LeaderCallbacks callbacks);
  ~LeaderElector();  // Stop()s
  // Starts campaigning on a background thread.
  void Start();
  // Stops campaigning; releases the lease when leading.
  void Stop();
  bool IsLeader() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace draplane::client

#endif  // DRAPLANE_CLIENT_LEADER_ELECTION_H_
