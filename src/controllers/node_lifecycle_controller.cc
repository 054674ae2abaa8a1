#include "controllers/node_lifecycle_controller.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "common/rfc3339.h"
#include "common/str_cat.h"
#include "component_helpers/taints.h"
#include "logging/log.h"

namespace draplane::controllers {

namespace {

// The node conditions upstream sets to Unknown when heartbeats stop.
constexpr std::string_view kMonitoredConditions[] = {
    "Ready", "MemoryPressure", "DiskPressure", "PIDPressure"};

std::optional<absl::Time> ParseTime(const std::optional<std::string>& s) {
  absl::Time t;
  std::string error;
  if (!s.has_value() || !absl::ParseTime(absl::RFC3339_full, *s, &t, &error)) {
    return std::nullopt;
  }
  return t;
}

const api::NodeCondition* Ready(const api::Node& node) {
  for (const auto& c : node.status.conditions) {
    if (c.type == "Ready") return &c;
  }
  return nullptr;
}

bool Managed(const api::Taint& t) {
  return (t.key == kTaintUnreachable || t.key == kTaintNotReady) &&
         (t.effect == "NoSchedule" || t.effect == "NoExecute");
}

}  // namespace

class NodeLifecycleController::Impl {
 public:
  Impl(client::Client* client, NodeLifecycleOptions options)
      : client_(client),
        options_(options),
        clock_(options.clock != nullptr ? *options.clock : RealClock()) {}

  absl::Status Start(absl::Duration sync_timeout) {
    nodes_ = client::NewInformer(client_, "Node");
    leases_ =
        client::NewInformer(client_, "Lease", std::string(kNodeLeaseNamespace));
    pods_ = client::NewInformer(client_, "Pod");
    if (!client::StartAndSync({nodes_.get(), leases_.get(), pods_.get()},
                              sync_timeout)) {
      return absl::DeadlineExceededError(
          "node lifecycle controller: informers did not sync in time");
    }
    if (options_.record_events) {
      recorder_ = std::make_unique<client::EventRecorder>(
          client_, client::EventRecorderOptions{.component = "node-controller",
                                                .clock = &clock_});
    }
    thread_ = std::thread([this] { Loop(); });
    return absl::OkStatus();
  }

  void Stop() {
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
    }
    cv_.SignalAll();
    if (thread_.joinable()) thread_.join();
    for (client::Informer* i : {pods_.get(), leases_.get(), nodes_.get()}) {
      if (i != nullptr) i->Stop();
    }
    recorder_.reset();
  }

  NodeLifecycleStats stats() const {
    return {marked_unknown_.load(), evicted_.load()};
  }

 private:
  void Loop() {
    while (true) {
      {
        absl::MutexLock lock(&mu_);
        if (stopping_) return;
      }
      MonitorNodes();
      EvictPods();
      absl::MutexLock lock(&mu_);
      clock_.WaitFor(cv_, mu_, options_.monitor_period, [this] {
        mu_.AssertHeld();
        return stopping_;
      });
    }
  }

  // --------------------------------------------------------- heartbeats

  void MonitorNodes() {
    const absl::Time now = clock_.Now();
    std::set<std::string> seen;
    for (const client::ObjectPtr& o : nodes_->List()) {
      api::Node node = std::get<api::Node>(o->value);
      const std::string name = node.metadata.name;
      client::ObjectPtr lease = leases_->Get(kNodeLeaseNamespace, name);
      if (lease == nullptr) continue;  // not heartbeating: not monitored
      seen.insert(name);
      const api::NodeCondition* ready = Ready(node);
      std::string renew =
          std::get<api::Lease>(lease->value).spec.renew_time.value_or("");
      std::string heartbeat =
          ready ? ready->last_heartbeat_time.value_or("") : "";
      // Upstream's probe timestamps: when this controller saw the
      // heartbeat change, by its own clock (no trust in node clocks).
      Observed& seen_at = observed_[name];
      if (seen_at.when == absl::InfinitePast() || seen_at.renew != renew ||
          seen_at.heartbeat != heartbeat) {
        seen_at = {renew, heartbeat, now};
      }
      api::Object current = *o;
      if (now - seen_at.when > options_.grace_period &&
          (ready == nullptr || ready->status != "Unknown")) {
        absl::StatusOr<api::Object> written = MarkUnknown(current, now);
        if (!written.ok()) {
          logging::Error("Marking the node's Ready condition Unknown failed",
                         {{"node", name}, {"err", written.status()}});
          continue;
        }
        ++marked_unknown_;
        current = *std::move(written);
      }
      ReconcileTaints(current, now);
    }
    for (auto it = observed_.begin(); it != observed_.end();) {
      it = seen.count(it->first) ? std::next(it) : observed_.erase(it);
    }
  }

  absl::StatusOr<api::Object> MarkUnknown(api::Object object, absl::Time now) {
    auto& node = std::get<api::Node>(object.value);
    bool had_ready = false;
    for (auto& c : node.status.conditions) {
      bool monitored = false;
      for (std::string_view t : kMonitoredConditions) monitored |= c.type == t;
      if (!monitored) continue;
      had_ready |= c.type == "Ready";
      if (c.status != "Unknown") c.last_transition_time = Rfc3339(now);
      c.status = "Unknown";
      c.reason = "NodeStatusUnknown";
      c.message = "Kubelet stopped posting node status.";
    }
    if (!had_ready) {
      api::NodeCondition c;
      c.type = "Ready";
      c.status = "Unknown";
      c.reason = "NodeStatusNeverUpdated";
      c.message = "Kubelet never posted node status.";
      c.last_heartbeat_time = node.metadata.creation_timestamp;
      c.last_transition_time = Rfc3339(now);
      node.status.conditions.push_back(std::move(c));
    }
    if (recorder_ != nullptr) {
      recorder_->Event(
          "Node", "v1", node.metadata, "Normal", "NodeNotReady",
          StrCat("Node ", node.metadata.name, " status is now: NodeNotReady"));
    }
    return client_->UpdateStatus(object);
  }

  // The not-ready/unreachable taints the Ready condition calls for.
  void ReconcileTaints(api::Object object, absl::Time now) {
    auto& node = std::get<api::Node>(object.value);
    const api::NodeCondition* ready = Ready(node);
    std::string_view want;
    if (ready != nullptr && ready->status == "Unknown")
      want = kTaintUnreachable;
    if (ready != nullptr && ready->status == "False") want = kTaintNotReady;
    std::vector<api::Taint> taints;
    bool changed = false;
    std::set<std::string> have;
    for (const api::Taint& t : node.spec.taints) {
      if (Managed(t) && t.key != want) {
        changed = true;  // dropped
        continue;
      }
      if (Managed(t)) have.insert(t.effect);
      taints.push_back(t);
    }
    if (!want.empty()) {
      for (const char* effect : {"NoSchedule", "NoExecute"}) {
        if (have.count(effect) > 0) continue;
        api::Taint t;
        t.key = std::string(want);
        t.effect = effect;
        if (t.effect == "NoExecute") t.time_added = Rfc3339(now);
        taints.push_back(std::move(t));
        changed = true;
      }
    }
    if (!changed) return;
    node.spec.taints = std::move(taints);
    absl::StatusOr<api::Object> written = client_->Update(object);
    if (!written.ok() && !client::IsConflict(written.status()) &&
        !client::IsNotFound(written.status())) {
      logging::Error("Tainting the node failed",
                     {{"node", node.metadata.name}, {"err", written.status()}});
    }
  }

  // ----------------------------------------------------------- eviction

  // When the pod must go because of the node's NoExecute taints
  // (InfiniteFuture: never).
  static absl::Time EvictionTime(const api::Pod& pod, const api::Node& node,
                                 absl::Time now) {
    absl::Time at = absl::InfiniteFuture();
    for (const api::Taint& taint : node.spec.taints) {
      if (taint.effect != "NoExecute") continue;
      bool tolerated = false;
      // Upstream getMinTolerationTime: the smallest limit of the matching
      // tolerations; none of them limited: tolerated forever.
      std::optional<int64_t> seconds;
      for (const api::Toleration& t : pod.spec.tolerations) {
        if (!component_helpers::ToleratesTaint(t, taint)) continue;
        tolerated = true;
        if (t.toleration_seconds.has_value()) {
          seconds = std::min(seconds.value_or(*t.toleration_seconds),
                             *t.toleration_seconds);
        }
      }
      if (!tolerated) return now;
      if (!seconds.has_value()) continue;
      absl::Time added = ParseTime(taint.time_added).value_or(now);
      at = std::min(at, added + absl::Seconds(std::max<int64_t>(0, *seconds)));
    }
    return at;
  }

  void EvictPods() {
    const absl::Time now = clock_.Now();
    for (const client::ObjectPtr& o : pods_->List()) {
      const auto& pod = std::get<api::Pod>(o->value);
      if (pod.spec.node_name.empty() ||
          pod.metadata.deletion_timestamp.has_value() ||
          pod.status.phase == "Succeeded" || pod.status.phase == "Failed") {
        continue;
      }
      client::ObjectPtr node = nodes_->Get("", pod.spec.node_name);
      if (node == nullptr) continue;
      if (EvictionTime(pod, std::get<api::Node>(node->value), now) > now) {
        continue;
      }
      if (evicted_uids_.count(pod.metadata.uid) > 0) continue;
      if (Evict(pod)) evicted_uids_.insert(pod.metadata.uid);
    }
    // Forget uids of pods the informer no longer has.
    std::set<std::string> live;
    for (const client::ObjectPtr& o : pods_->List()) {
      live.insert(o->metadata()->uid);
    }
    for (auto it = evicted_uids_.begin(); it != evicted_uids_.end();) {
      it = live.count(*it) ? std::next(it) : evicted_uids_.erase(it);
    }
  }

  bool Evict(const api::Pod& pod) {
    const auto& meta = pod.metadata;
    api::Json patch = {
        {"status",
         {{"conditions",
           api::Json::array({{{"type", "DisruptionTarget"},
                              {"status", "True"},
                              {"lastProbeTime", nullptr},
                              {"lastTransitionTime", Rfc3339(clock_.Now())},
                              {"reason", "DeletionByTaintManager"},
                              {"message",
                               "Taint manager: deleting due to NoExecute "
                               "taint"}}})}}}};
    client::PatchOptions o;
    o.subresource = "status";
    absl::StatusOr<api::Object> patched = client_->Patch(
        client::Kind("Pod"), meta.namespace_, meta.name,
        client::PatchType::kStrategicMerge, api::DumpJson(patch), o);
    if (!patched.ok()) {
      if (!client::IsNotFound(patched.status())) {
        logging::Error("Marking the pod for eviction failed",
                       {{"pod", StrCat(meta.namespace_, "/", meta.name)},
                        {"err", patched.status()}});
      }
      return false;
    }
    if (recorder_ != nullptr) {
      recorder_->Event(
          "Pod", "v1", meta, "Normal", "TaintManagerEviction",
          StrCat("Marking for deletion Pod ", meta.namespace_, "/", meta.name));
    }
    client::DeleteOptions d;
    d.precondition_uid = meta.uid;
    absl::Status deleted =
        client_->Delete(client::Kind("Pod"), meta.namespace_, meta.name, d);
    if (!deleted.ok() && !client::IsNotFound(deleted)) {
      logging::Error(
          "Deleting the evicted pod failed",
          {{"pod", StrCat(meta.namespace_, "/", meta.name)}, {"err", deleted}});
      return false;
    }
    ++evicted_;
    return true;
  }

  struct Observed {
    std::string renew;
    std::string heartbeat;
    absl::Time when = absl::InfinitePast();
  };

  client::Client* client_;
  NodeLifecycleOptions options_;
  Clock& clock_;
  std::unique_ptr<client::Informer> nodes_, leases_, pods_;
  std::unique_ptr<client::EventRecorder> recorder_;
  std::thread thread_;
  absl::Mutex mu_;
  absl::CondVar cv_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // Loop thread only:
  std::map<std::string, Observed> observed_;
  std::set<std::string> evicted_uids_;
  std::atomic<int64_t> marked_unknown_{0};
  std::atomic<int64_t> evicted_{0};
};

NodeLifecycleController::NodeLifecycleController(client::Client* client,
                                                 NodeLifecycleOptions options)
    : impl_(std::make_unique<Impl>(client, options)) {}
NodeLifecycleController::~NodeLifecycleController() { Stop(); }
absl::Status NodeLifecycleController::Start(absl::Duration sync_timeout) {
  return impl_->Start(sync_timeout);
}
void NodeLifecycleController::Stop() { impl_->Stop(); }
NodeLifecycleStats NodeLifecycleController::stats() const {
  return impl_->stats();
}

}  // namespace draplane::controllers
