#include "controllers/service_account_controller.h"

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "client/informer.h"
#include "common/str_cat.h"
#include "logging/log.h"

namespace draplane::controllers {

class ServiceAccountController::Impl {
 public:
  Impl(client::Client* client, ServiceAccountControllerOptions options)
      : client_(client),
        options_(std::move(options)),
        clock_(options_.clock != nullptr ? *options_.clock : RealClock()) {}

  absl::Status Start(absl::Duration sync_timeout) {
    namespaces_ = client::NewInformer(client_, "Namespace");
    accounts_ = client::NewInformer(client_, "ServiceAccount");
    client::EventHandler n;
    n.on_add = [this](const client::ObjectPtr& o) {
      MarkDirty(o->metadata()->name);
    };
    n.on_update = [this](const client::ObjectPtr&, const client::ObjectPtr& o) {
      MarkDirty(o->metadata()->name);
    };
    namespaces_->AddHandler(n);
    client::EventHandler a;
    a.on_delete = [this](const client::ObjectPtr& o) {
      MarkDirty(o->metadata()->namespace_);
    };
    accounts_->AddHandler(a);
    if (!client::StartAndSync({namespaces_.get(), accounts_.get()},
                              sync_timeout)) {
      return absl::DeadlineExceededError(
          "serviceaccount controller: informers did not sync in time");
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
    for (client::Informer* i : {namespaces_.get(), accounts_.get()}) {
      if (i != nullptr) i->Stop();
    }
  }

  int64_t created() const { return created_; }

 private:
  void MarkDirty(const std::string& ns) {
    {
      absl::MutexLock lock(&mu_);
      dirty_.insert(ns);
    }
    cv_.SignalAll();
  }

  void Loop() {
    while (true) {
      std::set<std::string> namespaces;
      {
        absl::MutexLock lock(&mu_);
        while (!stopping_ && dirty_.empty()) cv_.Wait(&mu_);
        if (stopping_) return;
        namespaces = std::move(dirty_);
        dirty_.clear();
      }
      std::set<std::string> retry;
      for (const std::string& ns : namespaces) {
        if (!Sync(ns)) retry.insert(ns);
      }
      if (!retry.empty()) {
        absl::MutexLock lock(&mu_);
        dirty_.insert(retry.begin(), retry.end());
        clock_.WaitFor(cv_, mu_, kRetryPause, [this] {
          mu_.AssertHeld();
          return stopping_;
        });
      }
    }
  }

  // Creates the namespace's missing ServiceAccounts; false when a create
  // failed in a way worth retrying.
  bool Sync(const std::string& ns) {
    client::ObjectPtr namespace_object = namespaces_->Get("", ns);
    if (namespace_object == nullptr) return true;  // gone
    const auto& n = std::get<api::Namespace>(namespace_object->value);
    if (n.status.phase != "Active" || n.metadata.deletion_timestamp) {
      return true;
    }
    bool ok = true;
    for (const std::string& name : options_.service_accounts) {
      if (accounts_->Get(ns, name) != nullptr) continue;
      api::ServiceAccount account;
      account.metadata.name = name;
      account.metadata.namespace_ = ns;
      absl::StatusOr<api::Object> made = client_->Create(
          api::Object{{"v1", "ServiceAccount"}, std::move(account)});
      if (made.ok()) {
        ++created_;
        continue;
      }
      if (client::IsAlreadyExists(made.status())) continue;
      // A namespace being deleted refuses new objects (403): it will not
      // need them.
      if (absl::IsPermissionDenied(made.status()) ||
          client::IsNotFound(made.status())) {
        continue;
      }
      logging::Error(
          "Creating a ServiceAccount failed",
          {{"serviceAccount", StrCat(ns, "/", name)}, {"err", made.status()}});
      ok = false;
    }
    return ok;
  }

  static constexpr absl::Duration kRetryPause = absl::Milliseconds(200);

  client::Client* client_;
  ServiceAccountControllerOptions options_;
  Clock& clock_;
  std::unique_ptr<client::Informer> namespaces_, accounts_;
  std::thread thread_;
  absl::Mutex mu_;
  absl::CondVar cv_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::set<std::string> dirty_ ABSL_GUARDED_BY(mu_);
  std::atomic<int64_t> created_{0};
};

ServiceAccountController::ServiceAccountController(
    client::Client* client, ServiceAccountControllerOptions options)
    : impl_(std::make_unique<Impl>(client, std::move(options))) {}
ServiceAccountController::~ServiceAccountController() { Stop(); }
absl::Status ServiceAccountController::Start(absl::Duration sync_timeout) {
  return impl_->Start(sync_timeout);
}
void ServiceAccountController::Stop() { impl_->Stop(); }
int64_t ServiceAccountController::created() const { return impl_->created(); }

}  // namespace draplane::controllers
