#include "controllers/job_controller.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "client/informer.h"
#include "common/rfc3339.h"
#include "common/str_cat.h"
#include "component_helpers/work_queue.h"
#include "controllers/internal/owned_pods.h"

namespace draplane::controllers {

namespace {

bool Finished(const api::Job& job) {
  const api::Json& conditions = job.status.unknown_fields.contains("conditions")
                                    ? job.status.unknown_fields["conditions"]
                                    : api::Json();
  if (!conditions.is_array()) return false;
  for (const api::Json& c : conditions) {
    if (!c.is_object() || c.value("status", "") != "True") continue;
    std::string type = c.value("type", "");
    if (type == "Complete" || type == "Failed") return true;
  }
  return false;
}

api::Json Condition(const char* type, const std::string& reason,
                    const std::string& message, const std::string& now) {
  api::Json c = {{"type", type},
                 {"status", "True"},
                 {"lastProbeTime", now},
                 {"lastTransitionTime", now}};
  if (!reason.empty()) c["reason"] = reason;
  if (!message.empty()) c["message"] = message;
  return c;
}

}  // namespace

class JobController::Impl {
 public:
  Impl(client::Client* client, Clock* clock)
      : client_(client),
        clock_(clock != nullptr ? *clock : RealClock()),
        queue_(absl::Milliseconds(5), absl::Seconds(30), &clock_) {}

  absl::Status Start(absl::Duration sync_timeout) {
    jobs_ = client::NewInformer(client_, "Job");
    pods_ = client::NewInformer(client_, "Pod");
    auto add = [this](const std::string& key) { queue_.Add(key); };
    jobs_->AddHandler(internal::QueueKeys(add));
    pods_->AddHandler(internal::QueueOwnerKeys("Job", add));
    if (!client::StartAndSync({jobs_.get(), pods_.get()}, sync_timeout)) {
      return absl::DeadlineExceededError(
          "job controller: informers did not sync in time");
    }
    worker_ = std::thread([this] {
      component_helpers::RunWorker(
          queue_, "job controller",
          [this](const std::string& key) { return Sync(key); });
    });
    return absl::OkStatus();
  }

  void Stop() {
    queue_.ShutDown();
    if (worker_.joinable()) worker_.join();
    for (client::Informer* i : {pods_.get(), jobs_.get()}) {
      if (i != nullptr) i->Stop();
    }
  }

 private:
  absl::Status Sync(const std::string& key) {
    const size_t slash = key.find('/');
    const std::string ns = key.substr(0, slash);
    client::ObjectPtr object = jobs_->Get(ns, key.substr(slash + 1));
    if (object == nullptr) {
      created_.erase(key);
      return absl::OkStatus();
    }
    const auto& job = std::get<api::Job>(object->value);
    if (job.metadata.deletion_timestamp.has_value() || Finished(job)) {
      return absl::OkStatus();
    }
    std::set<std::string>& created = created_[key];
    std::vector<client::ObjectPtr> active;
    int32_t succeeded = 0, failed = 0;
    std::set<std::string> seen;
    for (const client::ObjectPtr& o :
         internal::OwnedPods(*pods_, ns, job.metadata.uid)) {
      const auto& pod = std::get<api::Pod>(o->value);
      seen.insert(pod.metadata.name);
      if (pod.status.phase == "Succeeded") {
        ++succeeded;
      } else if (pod.status.phase == "Failed") {
        ++failed;
      } else if (!pod.metadata.deletion_timestamp.has_value()) {
        active.push_back(o);
      }
    }
    for (auto it = created.begin(); it != created.end();) {
      it = seen.count(*it) ? created.erase(it) : std::next(it);
    }
    const int32_t completions = std::max(0, job.spec.completions.value_or(1));
    const int32_t parallelism = std::max(0, job.spec.parallelism.value_or(1));
    const int32_t backoff_limit =
        std::max(0, job.spec.backoff_limit.value_or(6));

    api::Object next = *object;
    auto& status = std::get<api::Job>(next.value).status;
    const std::string now = Rfc3339(clock_.Now());
    if (!status.unknown_fields.contains("startTime")) {
      status.unknown_fields["startTime"] = now;
    }
    api::Json conditions =
        status.unknown_fields.value("conditions", api::Json::array());
    int32_t running = static_cast<int32_t>(active.size() + created.size());
    if (failed > backoff_limit) {
      for (const client::ObjectPtr& o : active) {
        absl::Status s =
            client_->Delete(client::Kind("Pod"), ns, o->metadata()->name);
        if (!s.ok() && !client::IsNotFound(s)) return s;
      }
      running = 0;
      const std::string message = "Job has reached the specified backoff limit";
      conditions.push_back(
          Condition("FailureTarget", "BackoffLimitExceeded", message, now));
      conditions.push_back(
          Condition("Failed", "BackoffLimitExceeded", message, now));
    } else if (succeeded >= completions) {
      conditions.push_back(
          Condition("SuccessCriteriaMet", "CompletionsReached",
                    "Reached expected number of succeeded pods", now));
      conditions.push_back(
          Condition("Complete", "CompletionsReached",
                    "Reached expected number of succeeded pods", now));
      status.unknown_fields["completionTime"] = now;
    } else {
      const int32_t want = std::min(parallelism, completions - succeeded);
      api::OwnerReference owner;
      owner.api_version = "batch/v1";
      owner.kind = "Job";
      owner.name = job.metadata.name;
      owner.uid = job.metadata.uid;
      const std::map<std::string, std::string> labels = {
          {"batch.kubernetes.io/controller-uid", job.metadata.uid},
          {"batch.kubernetes.io/job-name", job.metadata.name},
          {"controller-uid", job.metadata.uid},
          {"job-name", job.metadata.name}};
      for (int32_t i = running; i < want; ++i) {
        absl::StatusOr<api::Object> pod =
            client_->Create(internal::PodFromTemplate(
                *job.spec.template_, ns, StrCat(job.metadata.name, "-"), labels,
                owner));
        if (!pod.ok()) return pod.status();
        created.insert(pod->metadata()->name);
        ++running;
      }
    }
    status.active = running;
    status.succeeded = succeeded;
    status.failed = failed;
    if (!conditions.empty()) status.unknown_fields["conditions"] = conditions;
    const auto& before = job.status;
    if (status.active == before.active &&
        status.succeeded == before.succeeded &&
        status.failed == before.failed &&
        status.unknown_fields == before.unknown_fields) {
      return absl::OkStatus();
    }
    absl::StatusOr<api::Object> written = client_->UpdateStatus(next);
    if (!written.ok() && !client::IsNotFound(written.status())) {
      return written.status();
    }
    return absl::OkStatus();
  }

  client::Client* client_;
  Clock& clock_;
  component_helpers::WorkQueue queue_;
  std::unique_ptr<client::Informer> jobs_, pods_;
  std::thread worker_;
  // Pods created that the informer does not show yet, by Job key.
  std::map<std::string, std::set<std::string>> created_;  // worker only
};

JobController::JobController(client::Client* client, Clock* clock)
    : impl_(std::make_unique<Impl>(client, clock)) {}
JobController::~JobController() { Stop(); }
absl::Status JobController::Start(absl::Duration sync_timeout) {
  return impl_->Start(sync_timeout);
}
void JobController::Stop() { impl_->Stop(); }

}  // namespace draplane::controllers
