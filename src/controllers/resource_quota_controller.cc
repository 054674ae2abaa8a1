#include "controllers/resource_quota_controller.h"

#include <atomic>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "api/helpers/quota_usage.h"
#include "client/informer.h"
#include "common/str_cat.h"
#include "logging/log.h"

namespace draplane::controllers {

class ResourceQuotaController::Impl {
 public:
  Impl(client::Client* client, ResourceQuotaControllerOptions options)
      : client_(client),
        options_(options),
        clock_(options.clock != nullptr ? *options.clock : RealClock()) {}

  absl::Status Start(absl::Duration sync_timeout) {
    quotas_ = client::NewInformer(client_, "ResourceQuota");
    claims_ = client::NewInformer(client_, "ResourceClaim");
    auto dirty = [this](const client::ObjectPtr& o) {
      MarkDirty(o->metadata()->namespace_);
    };
    client::EventHandler q;
    q.on_add = dirty;
    // As upstream: status changes are this controller's and the
    // admission's own; only a new spec.hard needs a recount.
    q.on_update = [dirty](const client::ObjectPtr& old,
                          const client::ObjectPtr& o) {
      if (!(std::get<api::ResourceQuota>(old->value).spec.hard ==
            std::get<api::ResourceQuota>(o->value).spec.hard)) {
        dirty(o);
      }
    };
    q.on_delete = dirty;
    quotas_->AddHandler(q);
    // Upstream's replenishment: only a deleted claim gives usage back.
    // New claims are charged by the admission; recounting on their events
    // could undo a charge the informer has not seen yet.
    client::EventHandler c;
    c.on_delete = dirty;
    claims_->AddHandler(c);
    if (!client::StartAndSync({quotas_.get(), claims_.get()}, sync_timeout)) {
      return absl::DeadlineExceededError(
          "resourcequota controller: informers did not sync in time");
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
    for (client::Informer* i : {quotas_.get(), claims_.get()}) {
      if (i != nullptr) i->Stop();
    }
  }

  int64_t status_writes() const { return writes_; }

 private:
  void MarkDirty(const std::string& ns) {
    {
      absl::MutexLock lock(&mu_);
      dirty_.insert(ns);
    }
    cv_.SignalAll();
  }

  void Loop() {
    absl::Time next_resync = clock_.Now() + options_.resync;
    while (true) {
      std::set<std::string> namespaces;
      {
        absl::MutexLock lock(&mu_);
        clock_.WaitUntil(cv_, mu_, next_resync, [this] {
          mu_.AssertHeld();
          return stopping_ || !dirty_.empty();
        });
        if (stopping_) return;
        namespaces = std::move(dirty_);
        dirty_.clear();
      }
      if (clock_.Now() >= next_resync) {
        next_resync = clock_.Now() + options_.resync;
        for (const client::ObjectPtr& q : quotas_->List()) {
          namespaces.insert(q->metadata()->namespace_);
        }
      }
      std::set<std::string> retry;
      for (const std::string& ns : namespaces) {
        if (!Sync(ns)) retry.insert(ns);
      }
      if (!retry.empty()) {
        // A conflict or an error: again after a short pause.
        absl::MutexLock lock(&mu_);
        dirty_.insert(retry.begin(), retry.end());
        clock_.WaitFor(cv_, mu_, kRetryPause, [this] {
          mu_.AssertHeld();
          return stopping_;
        });
      }
    }
  }

  // Recomputes the namespace's quotas; false when a write failed.
  bool Sync(const std::string& ns) {
    std::map<std::string, int64_t> usage;
    for (const client::ObjectPtr& o : claims_->List()) {
      if (o->metadata()->namespace_ != ns) continue;
      for (const auto& [name, n] :
           api::ClaimQuotaUsage(std::get<api::ResourceClaim>(o->value))) {
        usage[name] += n;
      }
    }
    bool ok = true;
    for (const client::ObjectPtr& o : quotas_->List()) {
      if (o->metadata()->namespace_ != ns) continue;
      api::Object next = *o;
      auto& quota = std::get<api::ResourceQuota>(next.value);
      quota.status.hard = quota.spec.hard;
      for (const auto& [name, hard] : quota.spec.hard) {
        if (!api::IsClaimQuotaResource(name)) continue;
        auto u = usage.find(name);
        quota.status.used[name] =
            Quantity::FromInt64(u == usage.end() ? 0 : u->second);
      }
      // Used values of resources no longer limited go, as upstream.
      api::ResourceList used;
      for (const auto& [name, q] : quota.status.used) {
        if (quota.spec.hard.find(name) != quota.spec.hard.end()) {
          used[name] = q;
        }
      }
      quota.status.used = std::move(used);
      const auto& before = std::get<api::ResourceQuota>(o->value).status;
      if (before.hard == quota.status.hard &&
          before.used == quota.status.used) {
        continue;
      }
      absl::StatusOr<api::Object> written = client_->UpdateStatus(next);
      if (!written.ok()) {
        if (!client::IsConflict(written.status()) &&
            !client::IsNotFound(written.status())) {
          logging::Error(
              "Writing the quota's status failed",
              {{"resourceQuota", StrCat(ns, "/", quota.metadata.name)},
               {"err", written.status()}});
        }
        ok = client::IsNotFound(written.status());
        continue;
      }
      ++writes_;
    }
    return ok;
  }

  // After a failed write, the namespace is synced again this much later.
  static constexpr absl::Duration kRetryPause = absl::Milliseconds(100);

  client::Client* client_;
  ResourceQuotaControllerOptions options_;
  Clock& clock_;
  std::unique_ptr<client::Informer> quotas_, claims_;
  std::thread thread_;
  absl::Mutex mu_;
  absl::CondVar cv_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::set<std::string> dirty_ ABSL_GUARDED_BY(mu_);
  std::atomic<int64_t> writes_{0};
};

ResourceQuotaController::ResourceQuotaController(
    client::Client* client, ResourceQuotaControllerOptions options)
    : impl_(std::make_unique<Impl>(client, options)) {}
ResourceQuotaController::~ResourceQuotaController() { Stop(); }
absl::Status ResourceQuotaController::Start(absl::Duration sync_timeout) {
  return impl_->Start(sync_timeout);
}
void ResourceQuotaController::Stop() { impl_->Stop(); }
int64_t ResourceQuotaController::status_writes() const {
  return impl_->status_writes();
}

}  // namespace draplane::controllers
