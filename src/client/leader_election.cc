// client-go's leaderelection (LeaseLock) on the typed client.
#include "client/leader_election.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <random>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/rfc3339.h"
#include "common/str_cat.h"
#include "logging/log.h"

namespace draplane::client {
namespace {

// The fields of a lease record client-go compares.
struct Record {
  std::string holder;
  int32_t duration_seconds = 0;
  std::string acquire_time;
  std::string renew_time;
  int32_t transitions = 0;

  bool operator==(const Record&) const = default;
};

Record RecordOf(const api::Lease& lease) {
  Record r;
  r.holder = lease.spec.holder_identity.value_or("");
  r.duration_seconds = lease.spec.lease_duration_seconds.value_or(0);
  r.acquire_time = lease.spec.acquire_time.value_or("");
  r.renew_time = lease.spec.renew_time.value_or("");
  r.transitions = lease.spec.lease_transitions.value_or(0);
  return r;
}

void SetRecord(api::Lease& lease, const Record& r) {
  lease.spec.holder_identity = r.holder;
  lease.spec.lease_duration_seconds = r.duration_seconds;
  if (r.acquire_time.empty()) {
    lease.spec.acquire_time.reset();
  } else {
    lease.spec.acquire_time = r.acquire_time;
  }
  if (r.renew_time.empty()) {
    lease.spec.renew_time.reset();
  } else {
    lease.spec.renew_time = r.renew_time;
  }
  lease.spec.lease_transitions = r.transitions;
}

}  // namespace

absl::Status ValidateLeaderElectionConfig(const LeaderElectionConfig& config) {
  if (config.lease_duration <= config.renew_deadline) {
    return absl::InvalidArgumentError(
        "leaseDuration must be greater than renewDeadline");
  }
  // As Go's time.Duration(JitterFactor*float64(RetryPeriod)): nanoseconds
  // scaled in floating point, then truncated.
  const absl::Duration jittered_retry = absl::Nanoseconds(static_cast<int64_t>(
      kLeaderElectionJitterFactor *
      static_cast<double>(absl::ToInt64Nanoseconds(config.retry_period))));
  if (config.renew_deadline <= jittered_retry) {
    return absl::InvalidArgumentError(
        "renewDeadline must be greater than retryPeriod*JitterFactor");
  }
  if (config.lease_duration <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "leaseDuration must be greater than zero");
  }
  if (config.renew_deadline <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "renewDeadline must be greater than zero");
  }
  if (config.retry_period <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("retryPeriod must be greater than zero");
  }
  if (config.identity.empty()) {
    return absl::InvalidArgumentError("Lock identity is empty");
  }
  return absl::OkStatus();
}

class LeaderElector::Impl {
 public:
  Impl(Client* client, LeaderElectionConfig config, LeaderCallbacks callbacks)
      : client_(client),
        config_(std::move(config)),
        callbacks_(std::move(callbacks)),
        clock_(config_.clock != nullptr ? *config_.clock : RealClock()) {}

  ~Impl() { Stop(); }

  void Start() {
    absl::MutexLock lock(&mu_);
    if (started_ || stopping_) return;
    started_ = true;
    thread_ = std::thread([this] { Run(); });
  }

  void Stop() {
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
      cv_.SignalAll();
    }
    if (thread_.joinable()) thread_.join();
  }

  bool IsLeader() const { return leading_.load(); }

  absl::Status Check() const {
    if (!leading_.load()) return absl::OkStatus();
    absl::Time renewed;
    {
      absl::MutexLock lock(&mu_);
      renewed = renewed_at_;
    }
    if (clock_.Now() - renewed >
        config_.lease_duration + kMaxTolerableExpiredLease) {
      return absl::UnavailableError(StrCat(
          "failed election to renew leadership on lease ", config_.lease_name));
    }
    return absl::OkStatus();
  }

 private:
  bool Stopping() {
    absl::MutexLock lock(&mu_);
    return stopping_;
  }

  // Waits `d` unless stopped first; false when stopping.
  bool Sleep(absl::Duration d) {
    absl::MutexLock lock(&mu_);
    clock_.WaitFor(cv_, mu_, d, [this] {
      mu_.AssertHeld();
      return stopping_;
    });
    return !stopping_;
  }

  // client-go's wait.JitterUntil with jitter factor 1.2 for acquiring.
  absl::Duration Jittered(absl::Duration d) {
    std::uniform_real_distribution<double> dist(0, 1.2);
    return d + d * dist(rng_);
  }

  int32_t DurationSeconds() const {
    return static_cast<int32_t>(std::clamp<double>(
        std::ceil(absl::ToDoubleSeconds(config_.lease_duration)), 1,
        std::numeric_limits<int32_t>::max()));
  }

  void ReportLeader(const std::string& holder) {
    if (holder == reported_leader_) return;
    reported_leader_ = holder;
    if (callbacks_.on_new_leader) callbacks_.on_new_leader(holder);
  }

  // One attempt (client-go tryAcquireOrRenew); true when we hold the lease.
  bool TryAcquireOrRenew() {
    const absl::Time now = clock_.Now();
    Record desired;
    desired.holder = config_.identity;
    desired.duration_seconds = DurationSeconds();
    desired.renew_time = Rfc3339Micro(now);
    desired.acquire_time = Rfc3339Micro(now);

    auto got = client_->Get(Kind("Lease"), config_.lease_namespace,
                            config_.lease_name);
    if (!got.ok()) {
      if (!client::IsNotFound(got.status())) {
        Log("error retrieving lease", got.status());
        return false;
      }
      api::Lease lease;
      lease.metadata.name = config_.lease_name;
      lease.metadata.namespace_ = config_.lease_namespace;
      SetRecord(lease, desired);
      api::Object object{{"coordination.k8s.io/v1", "Lease"}, lease};
      auto created = client_->Create(object);
      if (!created.ok()) {
        if (!client::IsAlreadyExists(created.status())) {
          Log("error creating lease", created.status());
        }
        return false;
      }
      observed_ = desired;
      observed_time_ = now;
      Renewed(now);
      ReportLeader(desired.holder);
      return true;
    }
    auto* lease = std::get_if<api::Lease>(&got->value);
    if (lease == nullptr) return false;
    const Record old = RecordOf(*lease);
    if (old != observed_) {
      observed_ = old;
      observed_time_ = now;
    }
    ReportLeader(old.holder);
    if (!old.holder.empty() && old.holder != config_.identity &&
        observed_time_ + absl::Seconds(old.duration_seconds) > now) {
      return false;  // held by another and not expired
    }
    if (old.holder == config_.identity) {
      desired.acquire_time = old.acquire_time;
      desired.transitions = old.transitions;
    } else {
      desired.transitions = old.transitions + 1;
    }
    SetRecord(*lease, desired);
    auto updated = client_->Update(*got);
    if (!updated.ok()) {
      if (!IsConflict(updated.status())) {
        Log("error updating lease", updated.status());
      }
      return false;
    }
    observed_ = desired;
    observed_time_ = now;
    Renewed(now);
    ReportLeader(desired.holder);
    return true;
  }

  void Renewed(absl::Time now) {
    absl::MutexLock lock(&mu_);
    renewed_at_ = now;
  }

  // Gives the lease up (client-go release): holder cleared, duration 1 s.
  void Release() {
    auto got = client_->Get(Kind("Lease"), config_.lease_namespace,
                            config_.lease_name);
    if (!got.ok()) return;
    auto* lease = std::get_if<api::Lease>(&got->value);
    if (lease == nullptr ||
        lease->spec.holder_identity.value_or("") != config_.identity) {
      return;
    }
    const absl::Time now = clock_.Now();
    Record released;
    released.holder = "";
    released.duration_seconds = 1;
    released.renew_time = Rfc3339Micro(now);
    released.acquire_time = Rfc3339Micro(now);
    released.transitions = RecordOf(*lease).transitions;
    SetRecord(*lease, released);
    auto updated = client_->Update(*got);
    if (!updated.ok()) {
      Log("failed to release lease", updated.status());
      return;
    }
    observed_ = released;
    observed_time_ = now;
  }

  void Log(std::string_view what, const absl::Status& st) {
    logging::Error(
        StrCat("Leader election: ", what),
        {{"lease", StrCat(config_.lease_namespace, "/", config_.lease_name)},
         {"err", st}});
  }

  // One term at most, as client-go's Run: after leadership ends (lost or
  // released) the elector campaigns no more; a process that lost its
  // lease restarts as a fresh candidate.
  void Run() {
    // Acquire: try every retry period (jittered).
    while (!TryAcquireOrRenew()) {
      if (!Sleep(Jittered(config_.retry_period))) return;
    }
    if (Stopping()) {
      // Acquired as Stop() came: give it back at once.
      if (config_.release_on_cancel) Release();
      return;
    }
    leading_ = true;
    if (callbacks_.on_started_leading) callbacks_.on_started_leading();
    // Renew every retry period; give up when no renewal succeeds within
    // the renew deadline.
    bool lost = false;
    while (!lost) {
      if (!Sleep(config_.retry_period)) break;
      const absl::Time deadline = clock_.Now() + config_.renew_deadline;
      while (true) {
        if (TryAcquireOrRenew()) break;
        if (clock_.Now() + config_.retry_period >= deadline) {
          lost = true;
          break;
        }
        if (!Sleep(config_.retry_period)) break;
      }
      if (Stopping()) break;
    }
    leading_ = false;
    if (lost) {
      logging::Error(
          "Leader election lost",
          {{"lease", StrCat(config_.lease_namespace, "/", config_.lease_name)},
           {"identity", config_.identity}});
    } else if (config_.release_on_cancel) {
      Release();
    }
    if (callbacks_.on_stopped_leading) {
      callbacks_.on_stopped_leading(lost ? LeadershipEnd::kLost
                                         : LeadershipEnd::kReleased);
    }
  }

  Client* const client_;
  const LeaderElectionConfig config_;
  const LeaderCallbacks callbacks_;
  Clock& clock_;

  mutable absl::Mutex mu_;
  absl::CondVar cv_;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // When the lease was last acquired or renewed (for Check()).
  absl::Time renewed_at_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
  std::atomic<bool> leading_{false};

  // Elector thread only.
  std::mt19937 rng_{std::random_device{}()};
  Record observed_;
  absl::Time observed_time_;
  std::string reported_leader_;
};

LeaderElector::LeaderElector(Client* client, LeaderElectionConfig config,
                             LeaderCallbacks callbacks)
    : impl_(std::make_unique<Impl>(client, std::move(config),
                                   std::move(callbacks))) {}

LeaderElector::~LeaderElector() { impl_->Stop(); }

void LeaderElector::Start() { impl_->Start(); }
void LeaderElector::Stop() { impl_->Stop(); }
bool LeaderElector::IsLeader() const { return impl_->IsLeader(); }
absl::Status LeaderElector::Check() const { return impl_->Check(); }

}  // namespace draplane::client
