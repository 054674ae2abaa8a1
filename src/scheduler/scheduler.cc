#include "scheduler/scheduler.h"

#include <atomic>
#include <deque>
#include <map>
#include <set>
#include <thread>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "api/object_codec.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "common/rfc3339.h"
#include "common/str_cat.h"
#include "logging/log.h"
#include "prometheus/counter.h"
#include "prometheus/histogram.h"
#include "scheduler/cluster_state.h"
#include "scheduler/internal/scheduling_queue.h"
#include "scheduler/scoring_policy.h"

namespace draplane::scheduler {

namespace {

using client::Informer;
using internal::SchedulingQueue;

// The claim writes' options: the written claim comes back as the informers
// keep claims, without managedFields (in process: the server's shared
// typed object, not a decoded copy of its reply).
const client::WriteOptions kClaimWrite = [] {
  client::WriteOptions options;
  options.drop_managed_fields = true;
  return options;
}();

int32_t PodPriority(const api::Pod& pod) {
  const api::Json& u = pod.spec.unknown_fields;
  auto it = u.find("priority");
  if (it != u.end() && it->is_number_integer()) return it->get<int32_t>();
  return 0;
}

// An event to write, and maybe a PodScheduled condition to set.
struct Record {
  api::Pod pod;  // namespace, name, uid, conditions
  std::string type;
  std::string reason;
  std::string message;
  // Also set PodScheduled=False with `condition_reason`.
  std::string condition_reason;
};

internal::QueueOptions QueueOptionsWith(Clock* clock) {
  internal::QueueOptions options;
  options.clock = clock;
  return options;
}

}  // namespace

class Scheduler::Impl {
 public:
  Impl(client::Client* client, SchedulerOptions options,
       std::unique_ptr<ScoringPolicy> policy)
      : client_(client),
        options_(std::move(options)),
        policy_(std::move(policy)),
        clock_(options_.clock != nullptr ? *options_.clock : RealClock()),
        state_(options_.features),
        cycle_(&state_, policy_.get(), options_.cycle),
        queue_(QueueOptionsWith(&clock_)) {
    InitMetrics();
  }

  ~Impl() { Stop(); }

  absl::Status Start(absl::Duration sync_timeout);
  void Stop();
  SchedulerStats stats() const;

  // Call after Start().
  absl::Status LeaderElectionCheck() const {
    return elector_ != nullptr ? elector_->Check() : absl::OkStatus();
  }

 private:
  bool Ours(const api::Pod& pod) const {
    const std::string& name = pod.spec.scheduler_name;
    if (name == options_.scheduler_name) return true;
    return options_.also_default_scheduler &&
           (name.empty() || name == "default-scheduler");
  }
  void AddInformer(const api::KindInfo& kind, client::EventHandler handler);
  void OnPod(const client::ObjectPtr& object);
  void OnPodDelete(const client::ObjectPtr& object);
  void OnClaim(const client::ObjectPtr& old_object,
               const client::ObjectPtr& object);
  void OnClaimDelete(const client::ObjectPtr& object);

  void StartScheduling();
  void StopScheduling();
  void ScheduleLoop();
  void BindLoop();
  void RecordLoop();

  struct BindTask {
    ObjectPtr pod;
    Decision decision;
    absl::Time attempt_start;
  };
  void Bind(BindTask task);
  // Writes the plan's allocation and the pod's reservation; sets `added`
  // when this call put the pod into reservedFor.
  absl::StatusOr<ObjectPtr> WriteClaim(const api::Pod& pod,
                                       const ClaimPlan& plan, bool& added);
  void DropReservation(const api::Pod& pod, const std::string& claim_key);
  void Submit(Record record);
  void WriteRecord(const Record& record);

  client::Client* client_;
  SchedulerOptions options_;
  std::unique_ptr<ScoringPolicy> policy_;
  Clock& clock_;

  absl::Mutex mu_;
  ClusterState state_ ABSL_GUARDED_BY(mu_);
  SchedulingCycle cycle_ ABSL_GUARDED_BY(mu_);
  // claim key -> pods waiting for it to exist
  std::map<std::string, std::set<std::string>> gated_ ABSL_GUARDED_BY(mu_);

  SchedulingQueue queue_;
  std::vector<std::unique_ptr<Informer>> informers_;
  std::unique_ptr<client::LeaderElector> elector_;

  absl::Mutex run_mu_;
  bool scheduling_ ABSL_GUARDED_BY(run_mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(run_mu_) = false;
  std::thread schedule_thread_;
  std::vector<std::thread> bind_threads_;
  absl::Mutex bind_mu_;
  absl::CondVar bind_cv_;
  std::deque<BindTask> bind_tasks_ ABSL_GUARDED_BY(bind_mu_);
  bool bind_closed_ ABSL_GUARDED_BY(bind_mu_) = false;

  std::unique_ptr<client::EventRecorder> recorder_;
  std::thread record_thread_;
  absl::Mutex record_mu_;
  absl::CondVar record_cv_;
  std::deque<Record> records_ ABSL_GUARDED_BY(record_mu_);
  bool record_closed_ ABSL_GUARDED_BY(record_mu_) = false;

  // Metrics (null without a registry).
  struct AttemptMetrics {
    prometheus::Counter* count = nullptr;
    prometheus::Histogram* duration = nullptr;
  };
  void InitMetrics();
  void ObserveAttempt(const AttemptMetrics& m, absl::Time start) const;
  void ObserveAllocation(const api::Pod& pod);
  AttemptMetrics scheduled_metrics_, unschedulable_metrics_, error_metrics_;
  prometheus::Histogram* allocation_duration_ = nullptr;
  // Pods by key -> when this scheduler first saw them pending (kept only
  // with metrics).
  std::map<std::string, absl::Time> pending_since_ ABSL_GUARDED_BY(mu_);

  std::atomic<int64_t> scheduled_{0}, unschedulable_{0}, errors_{0},
      attempts_{0}, gated_checks_{0}, allocate_calls_{0};
  std::atomic<bool> leading_{false};
};

// ------------------------------------------------------------- informers

void Scheduler::Impl::AddInformer(const api::KindInfo& kind,
                                  client::EventHandler handler) {
  client::InformerOptions o;
  o.kind = &kind;
  o.resync = options_.resync;
  auto informer = std::make_unique<Informer>(client_, o);
  informer->AddHandler(std::move(handler));
  informers_.push_back(std::move(informer));
}

void Scheduler::Impl::OnPod(const client::ObjectPtr& object) {
  const auto& pod = std::get<api::Pod>(object->value);
  std::string key = ObjectKey(pod.metadata);
  bool pending = pod.spec.node_name.empty() &&
                 !pod.metadata.deletion_timestamp.has_value() &&
                 pod.status.phase != "Succeeded" &&
                 pod.status.phase != "Failed" && Ours(pod);
  {
    absl::MutexLock lock(&mu_);
    state_.SetPod(object);
    // Only the allocation-duration metric reads it.
    if (allocation_duration_ != nullptr && pending) {
      pending_since_.emplace(key, absl::Now());
    } else if (!pending) {
      pending_since_.erase(key);
    }
  }
  if (pending) {
    queue_.Add(key, PodPriority(pod));
  } else {
    queue_.Remove(key);
  }
}

void Scheduler::Impl::OnPodDelete(const client::ObjectPtr& object) {
  const auto& pod = std::get<api::Pod>(object->value);
  std::string key = ObjectKey(pod.metadata);
  {
    absl::MutexLock lock(&mu_);
    state_.RemovePod(key);
    pending_since_.erase(key);
  }
  queue_.Remove(key);
  // A bound pod's resources are free again.
  if (!pod.spec.node_name.empty()) queue_.MoveAllToActiveOrBackoff();
}

void Scheduler::Impl::OnClaim(const client::ObjectPtr& old_object,
                              const client::ObjectPtr& object) {
  const auto& claim = std::get<api::ResourceClaim>(object->value);
  std::string key = ObjectKey(claim.metadata);
  std::set<std::string> waiting;
  {
    absl::MutexLock lock(&mu_);
    state_.SetClaim(object);
    auto it = gated_.find(key);
    if (it != gated_.end()) {
      waiting = std::move(it->second);
      gated_.erase(it);
    }
  }
  for (const std::string& pod : waiting) queue_.MoveToActiveOrBackoff(pod);
  if (old_object == nullptr) return;
  // As upstream's queueing hint: a deallocation or a shrinking reservation
  // can make room (or let a shared claim's pods in).
  const auto& old_claim = std::get<api::ResourceClaim>(old_object->value);
  if ((old_claim.status.allocation.has_value() &&
       !claim.status.allocation.has_value()) ||
      claim.status.reserved_for.size() < old_claim.status.reserved_for.size()) {
    queue_.MoveAllToActiveOrBackoff();
  }
}

void Scheduler::Impl::OnClaimDelete(const client::ObjectPtr& object) {
  const auto& claim = std::get<api::ResourceClaim>(object->value);
  {
    absl::MutexLock lock(&mu_);
    state_.RemoveClaim(ObjectKey(claim.metadata));
  }
  if (claim.status.allocation.has_value()) queue_.MoveAllToActiveOrBackoff();
}

absl::Status Scheduler::Impl::Start(absl::Duration sync_timeout) {
  auto cluster_event = [this](auto set) {
    client::EventHandler h;
    h.on_add = [this, set](const client::ObjectPtr& o) {
      {
        absl::MutexLock lock(&mu_);
        set(o, false);
      }
      queue_.MoveAllToActiveOrBackoff();
    };
    h.on_update = [this, set](const client::ObjectPtr& old_object,
                              const client::ObjectPtr& o) {
      if (old_object->metadata()->resource_version ==
          o->metadata()->resource_version) {
        return;  // resync
      }
      {
        absl::MutexLock lock(&mu_);
        set(o, false);
      }
      queue_.MoveAllToActiveOrBackoff();
    };
    h.on_delete = [this, set](const client::ObjectPtr& o) {
      absl::MutexLock lock(&mu_);
      set(o, true);
    };
    return h;
  };
  AddInformer(client::Kind("Node"),
              cluster_event([this](const client::ObjectPtr& o, bool gone) {
                mu_.AssertHeld();  // cluster_event's handlers hold it
                if (gone) {
                  state_.RemoveNode(o->metadata()->name);
                } else {
                  state_.SetNode(o);
                }
              }));
  AddInformer(client::Kind("ResourceSlice"),
              cluster_event([this](const client::ObjectPtr& o, bool gone) {
                mu_.AssertHeld();  // cluster_event's handlers hold it
                if (gone) {
                  state_.RemoveSlice(o->metadata()->name);
                } else {
                  state_.SetSlice(o);
                }
              }));
  AddInformer(client::Kind("DeviceClass"),
              cluster_event([this](const client::ObjectPtr& o, bool gone) {
                mu_.AssertHeld();  // cluster_event's handlers hold it
                if (gone) {
                  state_.RemoveDeviceClass(o->metadata()->name);
                } else {
                  state_.SetDeviceClass(o);
                }
              }));
  // For the admin-access label only (ClusterState::AdminAccessAllowed).
  AddInformer(client::Kind("Namespace"),
              cluster_event([this](const client::ObjectPtr& o, bool gone) {
                mu_.AssertHeld();  // cluster_event's handlers hold it
                if (gone) {
                  state_.RemoveNamespace(o->metadata()->name);
                } else {
                  state_.SetNamespace(o);
                }
              }));
  if (options_.features.device_taints) {
    // DeviceTaintRules are alpha upstream: watch them only where served.
    client::ListOptions probe;
    probe.limit = 1;
    absl::StatusOr<client::ObjectList> served =
        client_->List(client::Kind("DeviceTaintRule"), "", probe);
    if (served.ok()) {
      AddInformer(client::Kind("DeviceTaintRule"),
                  cluster_event([this](const client::ObjectPtr& o, bool gone) {
                    mu_.AssertHeld();  // cluster_event's handlers hold it
                    if (gone) {
                      state_.RemoveTaintRule(o->metadata()->name);
                    } else {
                      state_.SetTaintRule(o);
                    }
                  }));
    }
  }
  client::EventHandler claims;
  claims.on_add = [this](const client::ObjectPtr& o) { OnClaim(nullptr, o); };
  claims.on_update = [this](const client::ObjectPtr& old_object,
                            const client::ObjectPtr& o) {
    OnClaim(old_object, o);
  };
  claims.on_delete = [this](const client::ObjectPtr& o) { OnClaimDelete(o); };
  AddInformer(client::Kind("ResourceClaim"), std::move(claims));
  client::EventHandler pods;
  pods.on_add = [this](const client::ObjectPtr& o) { OnPod(o); };
  pods.on_update = [this](const client::ObjectPtr&,
                          const client::ObjectPtr& o) { OnPod(o); };
  pods.on_delete = [this](const client::ObjectPtr& o) { OnPodDelete(o); };
  AddInformer(client::Kind("Pod"), std::move(pods));

  std::vector<client::Informer*> informers;
  for (auto& informer : informers_) informers.push_back(informer.get());
  if (!client::StartAndSync(informers, sync_timeout)) {
    return absl::DeadlineExceededError(
        "scheduler: the informers did not sync in time (is the API server "
        "reachable and does it serve resource.k8s.io/v1?)");
  }
  if (options_.record_events) {
    recorder_ = std::make_unique<client::EventRecorder>(
        client_, client::EventRecorderOptions{
                     .component = options_.scheduler_name, .clock = &clock_});
  }
  record_thread_ = std::thread([this] { RecordLoop(); });
  if (options_.leader_election.has_value()) {
    client::LeaderCallbacks callbacks;
    callbacks.on_started_leading = [this] {
      leading_ = true;
      StartScheduling();
    };
    callbacks.on_stopped_leading = [this](client::LeadershipEnd end) {
      leading_ = false;
      // As kube-scheduler (which exits): a scheduler that lost its lease
      // never schedules again in this process.
      StopScheduling();
      if (end == client::LeadershipEnd::kLost && options_.on_leadership_lost) {
        options_.on_leadership_lost();
      }
    };
    elector_ = std::make_unique<client::LeaderElector>(
        client_, *options_.leader_election, std::move(callbacks));
    elector_->Start();
  } else {
    leading_ = true;
    StartScheduling();
  }
  return absl::OkStatus();
}

void Scheduler::Impl::StartScheduling() {
  absl::MutexLock lock(&run_mu_);
  if (scheduling_ || stopped_) return;
  scheduling_ = true;
  for (int i = 0; i < std::max(1, options_.bind_workers); ++i) {
    bind_threads_.emplace_back([this] { BindLoop(); });
  }
  schedule_thread_ = std::thread([this] { ScheduleLoop(); });
}

void Scheduler::Impl::StopScheduling() {
  absl::MutexLock lock(&run_mu_);
  stopped_ = true;
  queue_.Close();
  if (schedule_thread_.joinable()) schedule_thread_.join();
  {
    absl::MutexLock bind_lock(&bind_mu_);
    bind_closed_ = true;
  }
  bind_cv_.SignalAll();
  for (auto& t : bind_threads_) t.join();
  bind_threads_.clear();
}

void Scheduler::Impl::Stop() {
  StopScheduling();
  if (elector_ != nullptr) elector_->Stop();
  for (auto& informer : informers_) informer->Stop();
  {
    absl::MutexLock lock(&record_mu_);
    record_closed_ = true;
  }
  record_cv_.SignalAll();
  if (record_thread_.joinable()) record_thread_.join();
  recorder_.reset();
}

SchedulerStats Scheduler::Impl::stats() const {
  SchedulerStats s;
  s.scheduled = scheduled_;
  s.unschedulable = unschedulable_;
  s.errors = errors_;
  s.attempts = attempts_;
  s.gated = gated_checks_;
  s.allocate_calls = allocate_calls_;
  s.leading = leading_;
  return s;
}

// ------------------------------------------------------------- scheduling

void Scheduler::Impl::ScheduleLoop() {
  while (std::optional<std::string> key = queue_.Pop()) {
    absl::ReleasableMutexLock lock(&mu_);
    ObjectPtr object = state_.FindPod(*key);
    if (object == nullptr) {
      queue_.Remove(*key);
      continue;
    }
    const auto& pod = std::get<api::Pod>(object->value);
    if (!pod.spec.node_name.empty() ||
        pod.metadata.deletion_timestamp.has_value() || !Ours(pod)) {
      queue_.Remove(*key);
      continue;
    }
    const absl::Time attempt_start = absl::Now();
    Decision d = cycle_.Schedule(pod);
    ++(d.kind == Decision::Kind::kWaiting ? gated_checks_ : attempts_);
    allocate_calls_ += d.allocate_calls;
    switch (d.kind) {
      case Decision::Kind::kScheduled:
        cycle_.Reserve(pod, d);
        lock.Release();
        {
          absl::MutexLock bind_lock(&bind_mu_);
          bind_tasks_.push_back(BindTask{object, std::move(d), attempt_start});
        }
        bind_cv_.Signal();
        break;
      case Decision::Kind::kWaiting:
        if (!d.waiting_for_claim.empty())
          gated_[d.waiting_for_claim].insert(*key);
        lock.Release();
        queue_.Finish(*key, SchedulingQueue::Outcome::kGated);
        break;
      case Decision::Kind::kUnschedulable:
        lock.Release();
        ++unschedulable_;
        ObserveAttempt(unschedulable_metrics_, attempt_start);
        queue_.Finish(*key, SchedulingQueue::Outcome::kUnschedulable);
        // The guide's failure case 1: the explanation also on each claim
        // still waiting for an allocation (draplane's; upstream says it
        // on the pod only).
        if (recorder_ != nullptr) {
          for (const ClaimPlan& plan : d.claims) {
            const auto& claim = std::get<api::ResourceClaim>(plan.claim->value);
            if (claim.status.allocation.has_value()) continue;
            recorder_->Event("ResourceClaim", "resource.k8s.io/v1",
                             claim.metadata, "Warning", "FailedScheduling",
                             StrCat("pod ", *key, ": ", d.message));
          }
        }
        Submit(Record{pod, "Warning", "FailedScheduling", d.message,
                      "Unschedulable"});
        break;
      case Decision::Kind::kError:
        lock.Release();
        ++errors_;
        ObserveAttempt(error_metrics_, attempt_start);
        queue_.Finish(*key, SchedulingQueue::Outcome::kBackoff);
        Submit(Record{pod, "Warning", "FailedScheduling", d.message,
                      "SchedulerError"});
        break;
    }
  }
}

// ---------------------------------------------------------------- binding

void Scheduler::Impl::BindLoop() {
  while (true) {
    BindTask task;
    {
      absl::MutexLock lock(&bind_mu_);
      while (!bind_closed_ && bind_tasks_.empty()) bind_cv_.Wait(&bind_mu_);
      if (bind_tasks_.empty()) return;  // closed and drained
      task = std::move(bind_tasks_.front());
      bind_tasks_.pop_front();
    }
    Bind(std::move(task));
  }
}

absl::StatusOr<ObjectPtr> Scheduler::Impl::WriteClaim(const api::Pod& pod,
                                                      const ClaimPlan& plan,
                                                      bool& added) {
  added = false;
  ObjectPtr current = plan.claim;
  for (int attempt = 0; attempt < 8; ++attempt) {
    api::Object object = *current;
    auto& claim = std::get<api::ResourceClaim>(object.value);
    if (claim.metadata.deletion_timestamp.has_value()) {
      return absl::FailedPreconditionError(StrCat(
          "resource claim ", ObjectKey(claim.metadata), " is being deleted"));
    }
    absl::Status conflict;
    if (plan.allocation.has_value()) {
      if (claim.status.allocation.has_value() &&
          !SameDevices(*claim.status.allocation, *plan.allocation)) {
        return absl::AbortedError(
            StrCat("resource claim ", ObjectKey(claim.metadata),
                   " got allocated elsewhere in the meantime"));
      }
      const auto& finalizers = claim.metadata.finalizers;
      if (std::find(finalizers.begin(), finalizers.end(), kClaimFinalizer) ==
          finalizers.end()) {
        claim.metadata.finalizers.emplace_back(kClaimFinalizer);
        absl::StatusOr<api::Object> updated =
            client_->Update(object, kClaimWrite);
        if (!updated.ok()) {
          conflict = updated.status();
        } else {
          object = *std::move(updated);
        }
      }
      if (conflict.ok()) {
        std::get<api::ResourceClaim>(object.value).status.allocation =
            *plan.allocation;
      }
    } else if (!claim.status.allocation.has_value()) {
      return absl::AbortedError(StrCat("resource claim ",
                                       ObjectKey(claim.metadata),
                                       " got deallocated in the meantime"));
    }
    if (conflict.ok()) {
      auto& c = std::get<api::ResourceClaim>(object.value);
      bool reserved = false;
      for (const auto& r : c.status.reserved_for) {
        reserved |= r.resource == "pods" && r.uid == pod.metadata.uid;
      }
      if (!reserved) {
        c.status.reserved_for.push_back(
            {"", "pods", pod.metadata.name, pod.metadata.uid});
      }
      absl::StatusOr<api::Object> written =
          client_->UpdateStatus(object, kClaimWrite);
      if (written.ok()) {
        added = !reserved;
        return std::make_shared<const api::Object>(*std::move(written));
      }
      conflict = written.status();
    }
    if (!client::IsConflict(conflict)) return conflict;
    const std::string sent = object.metadata()->resource_version;
    const auto& meta = std::get<api::ResourceClaim>(current->value).metadata;
    absl::StatusOr<api::Object> fresh =
        client_->Get(client::Kind("ResourceClaim"), meta.namespace_, meta.name);
    if (!fresh.ok()) return fresh.status();
    if (fresh->metadata()->resource_version == sent) {
      // The claim did not change: the conflict is about its devices
      // (draplane's server refuses a device another claim holds).
      return absl::AbortedError(conflict.message());
    }
    current = std::make_shared<const api::Object>(*std::move(fresh));
  }
  return absl::AbortedError("too many conflicts writing the resource claim");
}

void Scheduler::Impl::DropReservation(const api::Pod& pod,
                                      const std::string& claim_key) {
  size_t slash = claim_key.find('/');
  std::string ns = claim_key.substr(0, slash);
  std::string name = claim_key.substr(slash + 1);
  absl::Status s = client::RetryOnConflict([&]() -> absl::Status {
    absl::StatusOr<api::Object> object =
        client_->Get(client::Kind("ResourceClaim"), ns, name);
    if (!object.ok()) {
      return client::IsNotFound(object.status()) ? absl::OkStatus()
                                                 : object.status();
    }
    auto& claim = std::get<api::ResourceClaim>(object->value);
    auto& r = claim.status.reserved_for;
    size_t before = r.size();
    r.erase(std::remove_if(
                r.begin(), r.end(),
                [&](const auto& x) { return x.uid == pod.metadata.uid; }),
            r.end());
    if (r.size() == before) return absl::OkStatus();
    return client_->UpdateStatus(*object).status();
  });
  if (!s.ok()) {
    logging::Error(
        "Removing the pod from the claim's status.reservedFor failed",
        {{"pod", ObjectKey(pod.metadata)}, {"claim", claim_key}, {"err", s}});
  }
}

void Scheduler::Impl::Bind(BindTask task) {
  const auto& pod = std::get<api::Pod>(task.pod->value);
  std::vector<std::string> reserved;
  absl::Status status;
  for (const ClaimPlan& plan : task.decision.claims) {
    if (!plan.reserve && !plan.allocation.has_value()) continue;
    bool added = false;
    absl::StatusOr<ObjectPtr> written = WriteClaim(pod, plan, added);
    if (!written.ok()) {
      status = written.status();
      break;
    }
    if (added) reserved.push_back(plan.claim_key);
    if (plan.allocation.has_value()) ObserveAllocation(pod);
    absl::MutexLock lock(&mu_);
    state_.AssumeClaim(*written);
    if (plan.allocation.has_value()) state_.RemoveInFlight(plan.claim_key);
  }
  if (status.ok()) {
    api::Json binding = {
        {"apiVersion", "v1"},
        {"kind", "Binding"},
        {"metadata",
         {{"name", pod.metadata.name},
          {"namespace", pod.metadata.namespace_},
          {"uid", pod.metadata.uid}}},
        {"target", {{"kind", "Node"}, {"name", task.decision.node}}}};
    absl::StatusOr<api::Json> bound =
        client_->PostSubresource(client::Kind("Pod"), pod.metadata.namespace_,
                                 pod.metadata.name, "binding", binding);
    status = bound.status();
  }
  std::string key = ObjectKey(pod.metadata);
  if (status.ok()) {
    ++scheduled_;
    ObserveAttempt(scheduled_metrics_, task.attempt_start);
    {
      absl::MutexLock lock(&mu_);
      pending_since_.erase(key);
    }
    queue_.Finish(key, SchedulingQueue::Outcome::kDone);
    Submit(Record{
        pod, "Normal", "Scheduled",
        StrCat("Successfully assigned ", key, " to ", task.decision.node), ""});
    return;
  }
  ++errors_;
  ObserveAttempt(error_metrics_, task.attempt_start);
  {
    absl::MutexLock lock(&mu_);
    cycle_.Unreserve(pod, task.decision);
  }
  // A pod another scheduler bound keeps its reservations.
  absl::StatusOr<api::Object> now = client_->Get(
      client::Kind("Pod"), pod.metadata.namespace_, pod.metadata.name);
  bool bound_elsewhere = now.ok() && now->metadata()->uid == pod.metadata.uid &&
                         !std::get<api::Pod>(now->value).spec.node_name.empty();
  if (bound_elsewhere) {
    queue_.Finish(key, SchedulingQueue::Outcome::kDone);
    return;
  }
  for (const std::string& claim_key : reserved) DropReservation(pod, claim_key);
  queue_.Finish(key, SchedulingQueue::Outcome::kBackoff);
  Submit(Record{
      pod, "Warning", "FailedScheduling",
      StrCat("running PreBind plugin \"DynamicResources\": ", status.message()),
      "SchedulerError"});
}

// ---------------------------------------------------------------- metrics

void Scheduler::Impl::InitMetrics() {
  if (options_.metrics == nullptr) return;
  prometheus::Registry& r = options_.metrics->prometheus();
  auto& attempts =
      prometheus::BuildCounter()
          .Name("scheduler_schedule_attempts_total")
          .Help(
              "Number of attempts to schedule pods, by the result. "
              "'unschedulable' means a pod could not be scheduled, while "
              "'error' means an internal scheduler problem.")
          .Register(r);
  auto& durations =
      prometheus::BuildHistogram()
          .Name("scheduler_scheduling_attempt_duration_seconds")
          .Help(
              "Scheduling attempt latency in seconds (scheduling algorithm "
              "+ binding)")
          .Register(r);
  // Upstream: ExponentialBuckets(0.001, 2, 15).
  prometheus::Histogram::BucketBoundaries buckets;
  for (double b = 0.001; buckets.size() < 15; b *= 2) buckets.push_back(b);
  auto init = [&](const char* result) {
    prometheus::Labels labels = {{"profile", options_.scheduler_name},
                                 {"result", result}};
    return AttemptMetrics{&attempts.Add(labels),
                          &durations.Add(labels, buckets)};
  };
  scheduled_metrics_ = init("scheduled");
  unschedulable_metrics_ = init("unschedulable");
  error_metrics_ = init("error");
  allocation_duration_ =
      &prometheus::BuildHistogram()
           .Name("dra_allocation_duration_seconds")
           .Help(
               "Seconds from the scheduler first seeing a pending pod to "
               "the allocation of one of its ResourceClaims written.")
           .Register(r)
           .Add({{"profile", options_.scheduler_name}},
                prometheus::Histogram::BucketBoundaries{
                    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20,
                    30, 60, 120, 300, 600});
}

void Scheduler::Impl::ObserveAttempt(const AttemptMetrics& m,
                                     absl::Time start) const {
  if (m.count == nullptr) return;
  m.count->Increment();
  m.duration->Observe(absl::ToDoubleSeconds(absl::Now() - start));
}

void Scheduler::Impl::ObserveAllocation(const api::Pod& pod) {
  if (allocation_duration_ == nullptr) return;
  absl::Time since;
  {
    absl::MutexLock lock(&mu_);
    auto it = pending_since_.find(ObjectKey(pod.metadata));
    if (it == pending_since_.end()) return;
    since = it->second;
  }
  allocation_duration_->Observe(absl::ToDoubleSeconds(absl::Now() - since));
}

// ----------------------------------------------------- events, conditions

void Scheduler::Impl::Submit(Record record) {
  if (recorder_ != nullptr) {
    recorder_->Event("Pod", "v1", record.pod.metadata, record.type,
                     record.reason, record.message);
  }
  if (record.condition_reason.empty()) return;
  {
    absl::MutexLock lock(&record_mu_);
    // Bounded like the event queue: drop rather than slow scheduling down.
    if (records_.size() >= 1000) return;
    records_.push_back(std::move(record));
  }
  record_cv_.Signal();
}

void Scheduler::Impl::RecordLoop() {
  while (true) {
    Record record;
    {
      absl::MutexLock lock(&record_mu_);
      while (!record_closed_ && records_.empty()) {
        record_cv_.Wait(&record_mu_);
      }
      if (records_.empty()) return;
      record = std::move(records_.front());
      records_.pop_front();
    }
    WriteRecord(record);
  }
}

void Scheduler::Impl::WriteRecord(const Record& r) {
  const api::ObjectMeta& meta = r.pod.metadata;
  for (const auto& c : r.pod.status.conditions) {
    if (c.type == "PodScheduled" && c.status == "False" &&
        c.reason == r.condition_reason && c.message == r.message) {
      return;  // already says so
    }
  }
  api::Json patch = {
      {"status",
       {{"conditions",
         api::Json::array({{{"type", "PodScheduled"},
                            {"status", "False"},
                            {"lastProbeTime", nullptr},
                            {"lastTransitionTime", Rfc3339(clock_.Now())},
                            {"reason", r.condition_reason},
                            {"message", r.message}}})}}}};
  client::PatchOptions o;
  o.subresource = "status";
  absl::StatusOr<api::Object> patched = client_->Patch(
      client::Kind("Pod"), meta.namespace_, meta.name,
      client::PatchType::kStrategicMerge, api::DumpJson(patch), o);
  if (!patched.ok() && !client::IsNotFound(patched.status())) {
    logging::Error("Setting the PodScheduled condition failed",
                   {{"pod", ObjectKey(meta)}, {"err", patched.status()}});
  }
}

// ----------------------------------------------------------------- public

Scheduler::Scheduler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Scheduler::~Scheduler() = default;

absl::StatusOr<std::unique_ptr<Scheduler>> Scheduler::Create(
    client::Client* client, SchedulerOptions options) {
  absl::StatusOr<std::unique_ptr<ScoringPolicy>> policy =
      NewScoringPolicy(options.policy, options.topology_attributes);
  if (!policy.ok()) return policy.status();
  if (!options.features.OnlyIncubating()) {
    return absl::InvalidArgumentError(
        "scheduler: alpha allocator features (ListTypeAttributes, "
        "OptionalNodeOperations, DerivedAttributes, CompatibilityGroups) are "
        "not supported");
  }
  return std::unique_ptr<Scheduler>(new Scheduler(
      std::make_unique<Impl>(client, std::move(options), *std::move(policy))));
}

absl::Status Scheduler::Start(absl::Duration sync_timeout) {
  return impl_->Start(sync_timeout);
}

void Scheduler::Stop() { impl_->Stop(); }

SchedulerStats Scheduler::stats() const { return impl_->stats(); }
absl::Status Scheduler::LeaderElectionCheck() const {
  return impl_->LeaderElectionCheck();
}

}  // namespace draplane::scheduler
