#include "node_agent/simulated_kubelet.h"

#include <algorithm>
#include <set>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "api/helpers/pod_claims.h"
#include "api/object.h"
#include "api/object_codec.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "clock/stop_signal.h"
#include "common/rfc3339.h"
#include "common/str_cat.h"
#include "component_helpers/work_queue.h"
#include "kubelet_plugin/plugin_client.h"
#include "logging/log.h"
#include "node_agent/internal/allocated_resources_status.h"

namespace draplane::node_agent {
namespace {

using api::Json;
using kubelet_plugin::ClaimRef;

absl::StatusOr<api::Object> Decode(const Json& json) {
  auto decoded = api::DecodeObject(json);
  if (!decoded.ok()) return decoded.status();
  return std::move(decoded->object);
}

// The containerStatuses of a simulated pod: every container in `state`
// (running or terminated), ready or not.
Json ContainerStatuses(const api::Pod& pod, const Json& state, bool ready) {
  Json statuses = Json::array();
  for (const api::Container& c : pod.spec.containers) {
    statuses.push_back(
        {{"name", c.name},
         {"image", c.image},
         {"imageID", ""},
         {"containerID", StrCat("draplane://", pod.metadata.uid, "/", c.name)},
         {"ready", ready},
         {"started", ready},
         {"restartCount", 0},
         {"state", state}});
  }
  return statuses;
}

// A pod's prepared claims, remembered for unprepare: the claims may be
// gone from the API server by then.
struct PreparedPod {
  std::string uid;
  std::vector<ClaimRef> claims;
};

}  // namespace

class SimulatedKubelet::Impl {
 public:
  Impl(const SimulatedKubeletOptions& options, client::Client* api)
      : options_(options),
        clock_(options.clock != nullptr ? *options.clock : RealClock()),
        api_(api),
        queue_(absl::Milliseconds(200), absl::Seconds(30), &clock_) {}

  absl::Status Start() {
    if (absl::Status s = EnsureNode(); !s.ok()) return s;
    // A plugin that is not there yet is registered later (PodLoop), as the
    // kubelet's plugin watcher does when its socket appears.
    if (absl::Status s = RegisterPlugin(); !s.ok()) {
      logging::Verbose(2).Info(
          "DRA plugin not registered yet",
          {{"socket", options_.registration_socket}, {"err", s}});
    }
    events_ = std::make_unique<client::EventRecorder>(
        api_,
        client::EventRecorderOptions{.component = "kubelet", .clock = &clock_});
    client::InformerOptions io;
    io.kind = &client::Kind("Pod");
    io.field_selector = StrCat("spec.nodeName=", options_.node_name);
    io.resync = absl::Seconds(30);
    pods_ = std::make_unique<client::Informer>(api_, io);
    auto enqueue = [this](const client::ObjectPtr& o) {
      if (const api::ObjectMeta* m = o->metadata()) {
        queue_.Add(StrCat(m->namespace_, "/", m->name));
      }
    };
    pods_->AddHandler({enqueue,
                       [enqueue](const client::ObjectPtr&,
                                 const client::ObjectPtr& o) { enqueue(o); },
                       enqueue});
    pods_->Start();
    threads_.emplace_back([this] { HeartbeatLoop(); });
    threads_.emplace_back([this] { PodLoop(); });
    threads_.emplace_back([this] { HealthLoop(); });
    threads_.emplace_back([this] {
      component_helpers::RunWorker(
          queue_, StrCat("node ", options_.node_name, " kubelet"),
          [this](const std::string& key) { return SyncPod(key); });
    });
    return absl::OkStatus();
  }

  void Stop() {
    if (!stop_.Stop()) return;
    health_cancel_.Cancel();
    queue_.ShutDown();
    if (pods_) pods_->Stop();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
    if (events_) events_->Flush(absl::Seconds(2));
    events_.reset();
    absl::MutexLock lock(&plugin_mu_);
    plugin_.reset();
  }

 private:
  absl::Status EnsureNode() {
    Json labels = {{"kubernetes.io/hostname", options_.node_name},
                   {"kubernetes.io/os", "linux"},
                   {"nvidia.com/gpu.present", "true"}};
    for (const auto& [k, v] : options_.labels) labels[k] = v;
    Json resources = {{"cpu", options_.cpu},
                      {"memory", options_.memory},
                      {"pods", options_.pods}};
    Json node = {
        {"apiVersion", "v1"},
        {"kind", "Node"},
        {"metadata", {{"name", options_.node_name}, {"labels", labels}}},
        {"status", {{"capacity", resources}, {"allocatable", resources}}}};
    auto parsed = Decode(node);
    if (!parsed.ok()) return parsed.status();
    auto created = api_->Create(*parsed);
    if (!created.ok() && !client::IsAlreadyExists(created.status())) {
      return created.status();
    }
    if (!created.ok()) {
      Json patch = {{"metadata", {{"labels", labels}}}};
      auto patched =
          api_->Patch(client::Kind("Node"), "", options_.node_name,
                      client::PatchType::kMerge, api::DumpJson(patch));
      if (!patched.ok()) return patched.status();
    }
    // kube-node-lease is the API server's to create, as kube-apiserver's
    // system namespaces controller does; a node may not create namespaces.
    return Heartbeat();
  }

  // Renews the Lease (creating it once) and posts Ready=True when the node
  // does not say so (at start, and after the node lifecycle controller
  // marked it Unknown while this agent was away).
  absl::Status Heartbeat() {
    const std::string now = Rfc3339(clock_.Now());
    Json patch = {{"spec",
                   {{"holderIdentity", options_.node_name},
                    {"leaseDurationSeconds", 40},
                    {"renewTime", Rfc3339Micro(clock_.Now())}}}};
    auto renewed = api_->Patch(client::Kind("Lease"), "kube-node-lease",
                               options_.node_name, client::PatchType::kMerge,
                               api::DumpJson(patch));
    if (client::IsNotFound(renewed.status())) {
      Json lease = {
          {"apiVersion", "coordination.k8s.io/v1"},
          {"kind", "Lease"},
          {"metadata",
           {{"name", options_.node_name}, {"namespace", "kube-node-lease"}}},
          {"spec", patch["spec"]}};
      auto object = Decode(lease);
      if (!object.ok()) return object.status();
      auto created = api_->Create(*object);
      if (!created.ok() && !client::IsAlreadyExists(created.status())) {
        return created.status();
      }
    } else if (!renewed.ok()) {
      return renewed.status();
    }
    auto node = api_->Get(client::Kind("Node"), "", options_.node_name);
    if (!node.ok()) return node.status();
    const auto& n = std::get<api::Node>(node->value);
    for (const api::NodeCondition& c : n.status.conditions) {
      if (c.type == "Ready" && c.status == "True") return absl::OkStatus();
    }
    Json status = {
        {"status",
         {{"conditions", Json::array({{{"type", "Ready"},
                                       {"status", "True"},
                                       {"reason", "KubeletReady"},
                                       {"message",
                                        "draplane's simulated kubelet is "
                                        "posting ready status"},
                                       {"lastHeartbeatTime", now},
                                       {"lastTransitionTime", now}}})}}}};
    client::PatchOptions po;
    po.subresource = "status";
    auto posted = api_->Patch(client::Kind("Node"), "", options_.node_name,
                              client::PatchType::kStrategicMerge,
                              api::DumpJson(status), po);
    return posted.status();
  }

  void HeartbeatLoop() {
    while (stop_.Sleep(options_.heartbeat_period)) {
      if (absl::Status s = Heartbeat(); !s.ok()) {
        logging::Error("Heartbeat failed",
                       {{"node", options_.node_name}, {"err", s}});
      }
    }
  }

  absl::Status RegisterPlugin() {
    auto client =
        kubelet_plugin::PluginClient::Register(options_.registration_socket);
    if (!client.ok()) return client.status();
    std::string driver = (*client)->info().name;
    if (driver != options_.driver_name) {
      return absl::FailedPreconditionError(
          StrCat("the plugin at ", options_.registration_socket, " is ", driver,
                 ", not ", options_.driver_name));
    }
    logging::Verbose(2).Info(
        "Registered DRA plugin",
        {{"driver", driver}, {"endpoint", (*client)->info().endpoint}});
    absl::MutexLock lock(&plugin_mu_);
    plugin_ = *std::move(client);
    return absl::OkStatus();
  }

  // The registered plugin; Unavailable (retried) before registration, with
  // the kubelet's text.
  absl::StatusOr<std::shared_ptr<kubelet_plugin::PluginClient>> Plugin() {
    absl::MutexLock lock(&plugin_mu_);
    if (plugin_ == nullptr) {
      return absl::UnavailableError(
          StrCat("DRA driver ", options_.driver_name, " is not registered"));
    }
    return plugin_;
  }

  void PodLoop() {
    while (stop_.Sleep(options_.poll_period)) {
      bool registered = false;
      {
        absl::MutexLock lock(&plugin_mu_);
        registered = plugin_ != nullptr;
      }
      if (!registered) {
        if (absl::Status s = RegisterPlugin(); !s.ok()) continue;
      }
      EnqueueDueCompletions();
      if (!pods_->HasSynced()) continue;
      if (absl::Status s = UnprepareOrphans(); !s.ok()) {
        logging::Error("Unpreparing orphaned claims failed",
                       {{"node", options_.node_name}, {"err", s}});
      }
    }
  }

  // The kubelet's health stream (KEP-4680): while the plugin offers a
  // DRAResourceHealth service, its reports are kept and the pods using a
  // device whose health changed get their allocatedResourcesStatus again;
  // a stream that ends forgets the driver's health and is opened again.
  void HealthLoop() {
    while (true) {
      auto plugin = Plugin();
      if (plugin.ok() && !(*plugin)->health_service().empty()) {
        absl::Status s = (*plugin)->WatchHealth(
            [this](const std::vector<kubelet_plugin::DeviceHealth>& report) {
              SetHealth(report);
              return true;
            },
            absl::Hours(24), &health_cancel_);
        if (!s.ok()) {
          logging::Verbose(3).Info("Health stream ended",
                                   {{"node", options_.node_name}, {"err", s}});
        }
        SetHealth({});
      }
      if (!stop_.Sleep(options_.poll_period)) return;
    }
  }

  void SetHealth(const std::vector<kubelet_plugin::DeviceHealth>& report) {
    std::map<std::pair<std::string, std::string>, kubelet_plugin::DeviceHealth>
        health;
    for (const kubelet_plugin::DeviceHealth& d : report) {
      health[{d.pool, d.device}] = d;
    }
    {
      absl::MutexLock lock(&health_mu_);
      if (health == health_) return;
      health_ = std::move(health);
    }
    for (const client::ObjectPtr& o : pods_->List()) {
      if (const api::ObjectMeta* m = o->metadata()) {
        queue_.Add(StrCat(m->namespace_, "/", m->name));
      }
    }
  }

  std::optional<kubelet_plugin::DeviceHealth> Health(
      const std::string& pool, const std::string& device) {
    absl::MutexLock lock(&health_mu_);
    auto it = health_.find({pool, device});
    if (it == health_.end()) return std::nullopt;
    return it->second;
  }

  // A JSON merge patch of the pod through pods/status, as a kubelet writes.
  absl::Status PatchPodStatus(const api::Pod& pod, const Json& patch) {
    client::PatchOptions po;
    po.subresource = "status";
    return api_
        ->Patch(client::Kind("Pod"), pod.metadata.namespace_, pod.metadata.name,
                client::PatchType::kMerge, api::DumpJson(patch), po)
        .status();
  }

  // The running pod's allocatedResourcesStatus brought up to date.
  absl::Status UpdateAllocatedResourcesStatus(
      const api::Pod& pod, const std::map<std::string, Json>& allocated) {
    auto current = pod.status.unknown_fields.find("containerStatuses");
    if (current == pod.status.unknown_fields.end() || !current->is_array()) {
      return absl::OkStatus();
    }
    Json statuses = *current;
    bool changed = false;
    for (Json& status : statuses) {
      if (!status.is_object()) continue;
      auto name = status.find("name");
      if (name == status.end() || !name->is_string()) continue;
      auto want = allocated.find(name->get<std::string>());
      auto have = status.find("allocatedResourcesStatus");
      if (want == allocated.end()) {
        if (have != status.end()) {
          status.erase(have);
          changed = true;
        }
      } else if (have == status.end() || *have != want->second) {
        status["allocatedResourcesStatus"] = want->second;
        changed = true;
      }
    }
    if (!changed) return absl::OkStatus();
    return PatchPodStatus(pod, {{"status", {{"containerStatuses", statuses}}}});
  }

  // The kubelet's cleanup of claims prepared for pods it no longer has
  // (deleted while it was down): a prepared claim that is gone, was
  // replaced, or is reserved for no pod of this node is unprepared.
  absl::Status UnprepareOrphans() {
    if (!options_.prepared_claims) return absl::OkStatus();
    std::set<std::string> local_pods;
    for (const client::ObjectPtr& o : pods_->List()) {
      if (const api::ObjectMeta* m = o->metadata()) local_pods.insert(m->uid);
    }
    std::vector<ClaimRef> orphans;
    for (const ClaimRef& ref : options_.prepared_claims()) {
      auto claim =
          api_->Get(client::Kind("ResourceClaim"), ref.namespace_, ref.name);
      bool in_use = false;
      if (claim.ok()) {
        const auto& c = std::get<api::ResourceClaim>(claim->value);
        if (c.metadata.uid == ref.uid) {
          for (const auto& consumer : c.status.reserved_for) {
            in_use = in_use || local_pods.count(consumer.uid) > 0;
          }
        }
      } else if (!client::IsNotFound(claim.status())) {
        continue;  // unknown: next round
      }
      if (!in_use) orphans.push_back(ref);
    }
    if (orphans.empty()) return absl::OkStatus();
    auto plugin = Plugin();
    if (!plugin.ok()) return plugin.status();
    auto results = (*plugin)->Unprepare(orphans);
    if (!results.ok()) return results.status();
    for (const auto& [uid, s] : *results) {
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status Unprepare(const std::string& key) {
    PreparedPod pod;
    {
      absl::MutexLock lock(&pods_mu_);
      auto it = prepared_.find(key);
      if (it == prepared_.end()) return absl::OkStatus();
      pod = it->second;
    }
    if (!pod.claims.empty()) {
      auto plugin = Plugin();
      if (!plugin.ok()) return plugin.status();
      auto results = (*plugin)->Unprepare(pod.claims);
      if (!results.ok()) return results.status();
      for (const auto& [uid, s] : *results) {
        if (!s.ok()) return s;
      }
    }
    absl::MutexLock lock(&pods_mu_);
    prepared_.erase(key);
    return absl::OkStatus();
  }

  absl::Status SyncPod(const std::string& key) {
    const size_t slash = key.find('/');
    const std::string ns = key.substr(0, slash), name = key.substr(slash + 1);
    std::shared_ptr<const api::Object> object;
    for (const client::ObjectPtr& o : pods_->List()) {
      const api::ObjectMeta* m = o->metadata();
      if (m && m->namespace_ == ns && m->name == name) object = o;
    }
    if (!object) return Unprepare(key);
    const auto& pod = std::get<api::Pod>(object->value);
    bool replaced = false;
    {
      absl::MutexLock lock(&pods_mu_);
      auto it = prepared_.find(key);
      replaced = it != prepared_.end() && it->second.uid != pod.metadata.uid;
    }
    if (replaced) {
      // A new pod of the same name: the old one's claims go first.
      if (absl::Status s = Unprepare(key); !s.ok()) return s;
    }
    if (pod.metadata.deletion_timestamp) {
      // Graceful deletion (a real API server): the simulated containers
      // stop at once; once the claims are unprepared, the pod object goes,
      // as the kubelet deletes it with grace period 0.
      if (absl::Status s = Unprepare(key); !s.ok()) return s;
      client::DeleteOptions finish;
      finish.grace_period_seconds = 0;
      finish.precondition_uid = pod.metadata.uid;
      absl::Status deleted =
          api_->Delete(client::Kind("Pod"), ns, name, finish);
      if (!deleted.ok() && !client::IsNotFound(deleted) &&
          !client::IsConflict(deleted)) {
        return deleted;
      }
      return absl::OkStatus();
    }
    if (api::IsPodDone(pod)) return Unprepare(key);
    // The pod's claims, in spec order, as the kubelet resolves them.
    std::vector<ClaimRef> refs;
    std::map<std::string, std::string> uid_by_entry;  // podClaimName -> uid
    for (const api::PodResourceClaim& entry : pod.spec.resource_claims) {
      auto resolved = api::ResolvePodClaimName(pod, entry);
      if (!resolved.ok()) return resolved.status();
      if (!resolved->name) continue;
      auto claim_object =
          api_->Get(client::Kind("ResourceClaim"), ns, *resolved->name);
      if (!claim_object.ok()) return claim_object.status();
      const auto& claim = std::get<api::ResourceClaim>(claim_object->value);
      if (resolved->must_check_owner) {
        if (absl::Status s = api::IsForPod(pod, claim); !s.ok()) return s;
      }
      if (!api::IsReservedForPod(pod, claim)) {
        return absl::FailedPreconditionError(
            StrCat("pod ", key, ": claim ", claim.metadata.name,
                   " is not reserved for it yet"));
      }
      bool ours = false;
      if (claim.status.allocation) {
        for (const auto& r : claim.status.allocation->devices.results) {
          ours = ours || r.driver == options_.driver_name;
        }
      }
      uid_by_entry[entry.name] = claim.metadata.uid;
      if (ours) refs.push_back({ns, claim.metadata.name, claim.metadata.uid});
    }
    std::map<std::string, kubelet_plugin::PrepareResult> prepared;
    if (!refs.empty()) {
      auto plugin = Plugin();
      if (!plugin.ok()) return plugin.status();
      auto results = (*plugin)->Prepare(refs);
      absl::Status failed = results.status();
      if (results.ok()) {
        for (const ClaimRef& r : refs) {
          auto it = results->find(r.uid);
          if (it == results->end()) {
            failed =
                absl::InternalError(StrCat("no result for claim ", r.name));
          } else if (!it->second.status.ok()) {
            failed = it->second.status;
          }
          if (!failed.ok()) break;
        }
      }
      if (!failed.ok()) {
        events_->Event(
            "Pod", "v1", pod.metadata, "Warning",
            "FailedPrepareDynamicResources",
            StrCat("Failed to prepare dynamic resources: ", failed.message()));
        return failed;
      }
      prepared = *std::move(results);
    }
    {
      absl::MutexLock lock(&pods_mu_);
      prepared_[key] = PreparedPod{pod.metadata.uid, refs};
    }
    if (absl::Status s = MarkRunning(pod, uid_by_entry, prepared); !s.ok()) {
      return s;
    }
    return MaybeComplete(key, pod);
  }

  // Pods whose simulated run time is over are synced again (and finish).
  void EnqueueDueCompletions() {
    std::vector<std::string> due;
    {
      absl::MutexLock lock(&pods_mu_);
      const absl::Time now = clock_.Now();
      for (auto it = completions_.begin(); it != completions_.end();) {
        if (it->second <= now) {
          due.push_back(it->first);
          it = completions_.erase(it);
        } else {
          ++it;
        }
      }
    }
    for (const std::string& key : due) queue_.Add(key);
  }

  // Finishes a pod whose kSimulatedRunTimeAnnotation has passed since it
  // started, or remembers when to.
  absl::Status MaybeComplete(const std::string& key, const api::Pod& pod) {
    const auto& annotations = pod.metadata.annotations;
    auto run_time = annotations.find(kSimulatedRunTimeAnnotation);
    if (run_time == annotations.end() ||
        (pod.spec.restart_policy != "Never" &&
         pod.spec.restart_policy != "OnFailure")) {
      return absl::OkStatus();
    }
    absl::Duration duration;
    if (!absl::ParseDuration(run_time->second, &duration) ||
        duration < absl::ZeroDuration()) {
      events_->Event(
          "Pod", "v1", pod.metadata, "Warning", "InvalidAnnotation",
          StrCat(kSimulatedRunTimeAnnotation, ": \"", run_time->second,
                 "\" is not a duration such as 30s or 2m"));
      return absl::OkStatus();
    }
    int exit_code = 0;
    if (auto code = annotations.find(kSimulatedExitCodeAnnotation);
        code != annotations.end() &&
        !absl::SimpleAtoi(
            absl::string_view(code->second.data(), code->second.size()),
            &exit_code)) {
      exit_code = 1;
    }
    absl::Time started = clock_.Now();
    std::string started_text = Rfc3339(started);
    if (auto it = pod.status.unknown_fields.find("startTime");
        it != pod.status.unknown_fields.end() && it->is_string()) {
      std::string error;
      if (absl::ParseTime(absl::RFC3339_full, it->get<std::string>(), &started,
                          &error)) {
        started_text = it->get<std::string>();
      }
    }
    if (clock_.Now() < started + duration) {
      absl::MutexLock lock(&pods_mu_);
      completions_[key] = started + duration;
      return absl::OkStatus();
    }
    const std::string now = Rfc3339(clock_.Now());
    const Json statuses =
        ContainerStatuses(pod,
                          {{"terminated",
                            {{"exitCode", exit_code},
                             {"reason", exit_code == 0 ? "Completed" : "Error"},
                             {"startedAt", started_text},
                             {"finishedAt", now}}}},
                          false);
    Json conditions = Json::array();
    for (const char* type : {"Ready", "ContainersReady"}) {
      conditions.push_back({{"type", type},
                            {"status", "False"},
                            {"reason", "PodCompleted"},
                            {"lastProbeTime", nullptr},
                            {"lastTransitionTime", now}});
    }
    for (const char* type :
         {"PodReadyToStartContainers", "Initialized", "PodScheduled"}) {
      conditions.push_back({{"type", type},
                            {"status", "True"},
                            {"lastProbeTime", nullptr},
                            {"lastTransitionTime", now}});
    }
    Json status = {{"status",
                    {{"phase", exit_code == 0 ? "Succeeded" : "Failed"},
                     {"conditions", conditions},
                     {"containerStatuses", statuses}}}};
    return PatchPodStatus(pod, status);
  }

  // The containers' CDI device IDs, then phase Running with ready
  // containers, unless the pod already says so.
  absl::Status MarkRunning(
      const api::Pod& pod,
      const std::map<std::string, std::string>& uid_by_entry,
      const std::map<std::string, kubelet_plugin::PrepareResult>& prepared) {
    Json cdi = Json::object();
    for (const api::Container& c : pod.spec.containers) {
      Json ids = Json::array();
      for (const api::ResourceClaimReference& ref : c.resources.claims) {
        auto uid = uid_by_entry.find(ref.name);
        if (uid == uid_by_entry.end()) continue;
        auto result = prepared.find(uid->second);
        if (result == prepared.end()) continue;
        for (const auto& d : result->second.devices) {
          const bool wanted = ref.request.empty() || d.requests.empty() ||
                              std::find(d.requests.begin(), d.requests.end(),
                                        ref.request) != d.requests.end();
          if (!wanted) continue;
          for (const std::string& id : d.cdi_device_ids) ids.push_back(id);
        }
      }
      if (!ids.empty()) cdi[c.name] = ids;
    }
    const std::string cdi_text = api::DumpJson(cdi);
    auto annotation = pod.metadata.annotations.find(kCdiDevicesAnnotation);
    const bool annotated = cdi.empty()
                               ? annotation == pod.metadata.annotations.end()
                               : annotation != pod.metadata.annotations.end() &&
                                     annotation->second == cdi_text;
    if (!annotated) {
      Json patch = {{"metadata",
                     {{"annotations",
                       {{kCdiDevicesAnnotation,
                         cdi.empty() ? Json(nullptr) : Json(cdi_text)}}}}}};
      // Through pods/status, as a kubelet may write its pods' metadata.
      if (absl::Status s = PatchPodStatus(pod, patch); !s.ok()) return s;
    }
    const std::map<std::string, Json> allocated =
        internal::AllocatedResourcesStatus(
            pod, uid_by_entry, prepared, options_.driver_name,
            [this](const std::string& pool, const std::string& device) {
              return Health(pool, device);
            });
    if (pod.status.phase == "Running") {
      return UpdateAllocatedResourcesStatus(pod, allocated);
    }
    const std::string now = Rfc3339(clock_.Now());
    Json statuses =
        ContainerStatuses(pod, {{"running", {{"startedAt", now}}}}, true);
    for (Json& status : statuses) {
      auto it = allocated.find(status["name"].get<std::string>());
      if (it != allocated.end()) {
        status["allocatedResourcesStatus"] = it->second;
      }
    }
    Json conditions = Json::array();
    for (const char* type : {"PodReadyToStartContainers", "Initialized",
                             "Ready", "ContainersReady", "PodScheduled"}) {
      conditions.push_back({{"type", type},
                            {"status", "True"},
                            {"lastProbeTime", nullptr},
                            {"lastTransitionTime", now}});
    }
    Json status = {{"status",
                    {{"phase", "Running"},
                     {"conditions", conditions},
                     {"containerStatuses", statuses},
                     {"hostIP", "127.0.0.1"},
                     {"startTime", now}}}};
    if (absl::Status s = PatchPodStatus(pod, status); !s.ok()) return s;
    events_->Event("Pod", "v1", pod.metadata, "Normal", "Started",
                   "Started containers (simulated by draplane's kubelet)");
    return absl::OkStatus();
  }

  const SimulatedKubeletOptions options_;
  Clock& clock_;
  client::Client* const api_;
  absl::Mutex plugin_mu_;
  std::shared_ptr<kubelet_plugin::PluginClient> plugin_
      ABSL_GUARDED_BY(plugin_mu_);
  kubelet_plugin::WatchCanceller health_cancel_;
  absl::Mutex health_mu_;
  // The plugin's last health report, by pool and device.
  std::map<std::pair<std::string, std::string>, kubelet_plugin::DeviceHealth>
      health_ ABSL_GUARDED_BY(health_mu_);
  std::unique_ptr<client::EventRecorder> events_;
  std::unique_ptr<client::Informer> pods_;
  component_helpers::WorkQueue queue_;
  std::vector<std::thread> threads_;

  StopSignal stop_{clock_};

  absl::Mutex pods_mu_;
  // By "ns/name".
  std::map<std::string, PreparedPod> prepared_ ABSL_GUARDED_BY(pods_mu_);
  // When running pods with a simulated run time finish.
  std::map<std::string, absl::Time> completions_ ABSL_GUARDED_BY(pods_mu_);
};

absl::StatusOr<std::unique_ptr<SimulatedKubelet>> SimulatedKubelet::Start(
    const SimulatedKubeletOptions& options, client::Client* api) {
  if (options.node_name.empty() || options.registration_socket.empty() ||
      options.driver_name.empty()) {
    return absl::InvalidArgumentError(
        "a simulated kubelet needs a node name, a plugin registration "
        "socket and a driver name");
  }
  auto impl = std::make_unique<Impl>(options, api);
  if (absl::Status s = impl->Start(); !s.ok()) {
    impl->Stop();
    return s;
  }
  return std::unique_ptr<SimulatedKubelet>(
      new SimulatedKubelet(std::move(impl)));
}

SimulatedKubelet::SimulatedKubelet(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
SimulatedKubelet::~SimulatedKubelet() { Stop(); }
void SimulatedKubelet::Stop() { impl_->Stop(); }

}  // namespace draplane::node_agent
