#include "controllers/deployment_controller.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "api/object_codec.h"
#include "client/informer.h"
#include "common/str_cat.h"
#include "component_helpers/work_queue.h"
#include "controllers/internal/owned_pods.h"

namespace draplane::controllers {

namespace {

constexpr char kTemplateHashLabel[] = "pod-template-hash";

// A short label-safe hash of the pod template (fnv-1a of its JSON, its
// decimal digits spelled in the alphabet of upstream's SafeEncodeString).
std::string TemplateHash(const api::Object& deployment) {
  absl::StatusOr<api::Json> json = api::EncodeObject(deployment);
  std::string text =
      json.ok() ? api::DumpJson((*json)["spec"]["template"]) : std::string();
  uint32_t h = 2166136261u;
  for (unsigned char c : text) {
    h ^= c;
    h *= 16777619u;
  }
  constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  for (char d : std::to_string(h)) out.push_back(kAlphabet[(d - '0') % 27]);
  return out;
}

bool PodReady(const api::Pod& pod) {
  for (const auto& c : pod.status.conditions) {
    if (c.type == "Ready") return c.status == "True";
  }
  return false;
}

}  // namespace

class DeploymentController::Impl {
 public:
  explicit Impl(client::Client* client)
      : client_(client), queue_(absl::Milliseconds(5), absl::Seconds(30)) {}

  absl::Status Start(absl::Duration sync_timeout) {
    deployments_ = client::NewInformer(client_, "Deployment");
    pods_ = client::NewInformer(client_, "Pod");
    auto add = [this](const std::string& key) { queue_.Add(key); };
    deployments_->AddHandler(internal::QueueKeys(add));
    pods_->AddHandler(internal::QueueOwnerKeys("Deployment", add));
    if (!client::StartAndSync({deployments_.get(), pods_.get()},
                              sync_timeout)) {
      return absl::DeadlineExceededError(
          "deployment controller: informers did not sync in time");
    }
    worker_ = std::thread([this] {
      component_helpers::RunWorker(
          queue_, "deployment controller",
          [this](const std::string& key) { return Sync(key); });
    });
    return absl::OkStatus();
  }

  void Stop() {
    queue_.ShutDown();
    if (worker_.joinable()) worker_.join();
    for (client::Informer* i : {pods_.get(), deployments_.get()}) {
      if (i != nullptr) i->Stop();
    }
  }

 private:
  absl::Status Sync(const std::string& key) {
    const size_t slash = key.find('/');
    const std::string ns = key.substr(0, slash);
    client::ObjectPtr object = deployments_->Get(ns, key.substr(slash + 1));
    if (object == nullptr) {
      expected_.erase(key);
      return absl::OkStatus();  // the garbage collector deletes its pods
    }
    const auto& d = std::get<api::Deployment>(object->value);
    if (d.metadata.deletion_timestamp.has_value()) return absl::OkStatus();
    const std::string hash = TemplateHash(*object);
    Expected& expected = expected_[key];

    std::vector<client::ObjectPtr> active;
    std::set<std::string> seen;
    for (const client::ObjectPtr& o :
         internal::OwnedPods(*pods_, ns, d.metadata.uid)) {
      const auto& pod = std::get<api::Pod>(o->value);
      seen.insert(pod.metadata.name);
      if (internal::IsActivePod(pod) &&
          expected.deleted.count(pod.metadata.name) == 0) {
        active.push_back(o);
      }
    }
    // Forget expectations the informer has caught up with.
    for (auto it = expected.created.begin(); it != expected.created.end();) {
      it = seen.count(*it) ? expected.created.erase(it) : std::next(it);
    }
    for (auto it = expected.deleted.begin(); it != expected.deleted.end();) {
      it = seen.count(*it) ? std::next(it) : expected.deleted.erase(it);
    }
    const int want = std::max(0, d.spec.replicas.value_or(1));
    const int have = static_cast<int>(active.size() + expected.created.size());
    if (have < want) {
      api::OwnerReference owner;
      owner.api_version = "apps/v1";
      owner.kind = "Deployment";
      owner.name = d.metadata.name;
      owner.uid = d.metadata.uid;
      for (int i = have; i < want; ++i) {
        absl::StatusOr<api::Object> created =
            client_->Create(internal::PodFromTemplate(
                *d.spec.template_, ns, StrCat(d.metadata.name, "-", hash, "-"),
                {{kTemplateHashLabel, hash}}, owner));
        if (!created.ok()) return created.status();
        expected.created.insert(created->metadata()->name);
      }
    } else if (have > want) {
      // Older templates first, then unscheduled pods, then the newest.
      std::sort(active.begin(), active.end(),
                [&](const client::ObjectPtr& a, const client::ObjectPtr& b) {
                  const auto& pa = std::get<api::Pod>(a->value);
                  const auto& pb = std::get<api::Pod>(b->value);
                  auto rank = [&](const api::Pod& p) {
                    auto l = p.metadata.labels.find(kTemplateHashLabel);
                    bool old =
                        l == p.metadata.labels.end() || l->second != hash;
                    return std::make_tuple(!old, !p.spec.node_name.empty());
                  };
                  if (rank(pa) != rank(pb)) return rank(pa) < rank(pb);
                  return pa.metadata.creation_timestamp.value_or("") >
                         pb.metadata.creation_timestamp.value_or("");
                });
      for (int i = 0; i < have - want && i < static_cast<int>(active.size());
           ++i) {
        const auto& m = *active[i]->metadata();
        client::DeleteOptions o;
        o.precondition_uid = m.uid;
        absl::Status s = client_->Delete(client::Kind("Pod"), ns, m.name, o);
        if (!s.ok() && !client::IsNotFound(s)) return s;
        expected.deleted.insert(m.name);
      }
    }
    return WriteStatus(*object, hash);
  }

  absl::Status WriteStatus(const api::Object& object, const std::string& hash) {
    const auto& d = std::get<api::Deployment>(object.value);
    int32_t replicas = 0, updated = 0, ready = 0;
    for (const client::ObjectPtr& o :
         internal::OwnedPods(*pods_, d.metadata.namespace_, d.metadata.uid)) {
      const auto& pod = std::get<api::Pod>(o->value);
      if (!internal::IsActivePod(pod)) continue;
      ++replicas;
      auto l = pod.metadata.labels.find(kTemplateHashLabel);
      if (l != pod.metadata.labels.end() && l->second == hash) ++updated;
      if (PodReady(pod)) ++ready;
    }
    api::Object next = object;
    auto& status = std::get<api::Deployment>(next.value).status;
    status.observed_generation = d.metadata.generation;
    status.replicas = replicas;
    status.ready_replicas = ready;
    status.available_replicas = ready;
    status.unknown_fields["updatedReplicas"] = updated;
    status.unknown_fields["unavailableReplicas"] =
        std::max(0, std::max(0, d.spec.replicas.value_or(1)) - ready);
    if (std::get<api::Deployment>(next.value).status.unknown_fields ==
            d.status.unknown_fields &&
        status.observed_generation == d.status.observed_generation &&
        status.replicas == d.status.replicas &&
        status.ready_replicas == d.status.ready_replicas &&
        status.available_replicas == d.status.available_replicas) {
      return absl::OkStatus();
    }
    absl::StatusOr<api::Object> written = client_->UpdateStatus(next);
    if (!written.ok() && !client::IsNotFound(written.status())) {
      return written.status();
    }
    return absl::OkStatus();
  }

  // Pods this controller created or deleted that its informer does not
  // reflect yet (upstream's expectations): counted as they will be.
  struct Expected {
    std::set<std::string> created;
    std::set<std::string> deleted;
  };

  client::Client* client_;
  component_helpers::WorkQueue queue_;
  std::unique_ptr<client::Informer> deployments_, pods_;
  std::thread worker_;
  std::map<std::string, Expected> expected_;  // worker thread only
};

DeploymentController::DeploymentController(client::Client* client)
    : impl_(std::make_unique<Impl>(client)) {}
DeploymentController::~DeploymentController() { Stop(); }
absl::Status DeploymentController::Start(absl::Duration sync_timeout) {
  return impl_->Start(sync_timeout);
}
void DeploymentController::Stop() { impl_->Stop(); }

}  // namespace draplane::controllers
