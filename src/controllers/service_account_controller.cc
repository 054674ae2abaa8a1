#include "controllers/service_account_controller.h"

#include <atomic>
#include <string>
#include <thread>
#include <utility>

#include "client/informer.h"
#include "common/str_cat.h"
#include "component_helpers/work_queue.h"

namespace draplane::controllers {

class ServiceAccountController::Impl {
 public:
  Impl(client::Client* client, ServiceAccountControllerOptions options)
      : client_(client),
        options_(std::move(options)),
        clock_(options_.clock != nullptr ? *options_.clock : RealClock()),
        // Upstream's serviceaccounts controller queue: the default
        // controller rate limiter's per-item backoff.
        queue_(absl::Milliseconds(5), absl::Seconds(1000), &clock_) {}

  absl::Status Start(absl::Duration sync_timeout) {
    namespaces_ = client::NewInformer(client_, "Namespace");
    accounts_ = client::NewInformer(client_, "ServiceAccount");
    client::EventHandler n;
    n.on_add = [this](const client::ObjectPtr& o) {
      queue_.Add(o->metadata()->name);
    };
    n.on_update = [this](const client::ObjectPtr&, const client::ObjectPtr& o) {
      queue_.Add(o->metadata()->name);
    };
    namespaces_->AddHandler(n);
    client::EventHandler a;
    a.on_delete = [this](const client::ObjectPtr& o) {
      queue_.Add(o->metadata()->namespace_);
    };
    accounts_->AddHandler(a);
    if (!client::StartAndSync({namespaces_.get(), accounts_.get()},
                              sync_timeout)) {
      return absl::DeadlineExceededError(
          "serviceaccount controller: informers did not sync in time");
    }
    worker_ = std::thread([this] {
      component_helpers::RunWorker(
          queue_, "serviceaccount controller",
          [this](const std::string& ns) { return Sync(ns); });
    });
    return absl::OkStatus();
  }

  void Stop() {
    queue_.ShutDown();
    if (worker_.joinable()) worker_.join();
    for (client::Informer* i : {namespaces_.get(), accounts_.get()}) {
      if (i != nullptr) i->Stop();
    }
  }

  int64_t created() const { return created_; }

 private:
  // Creates the namespace's missing ServiceAccounts; an error when a create
  // failed in a way worth retrying.
  absl::Status Sync(const std::string& ns) {
    client::ObjectPtr namespace_object = namespaces_->Get("", ns);
    if (namespace_object == nullptr) return absl::OkStatus();  // gone
    const auto& n = std::get<api::Namespace>(namespace_object->value);
    if (n.status.phase != "Active" || n.metadata.deletion_timestamp) {
      return absl::OkStatus();
    }
    absl::Status result;
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
      // Made meanwhile, or the namespace is being deleted (a 403 then):
      // nothing to do.
      if (client::IsAlreadyExists(made.status()) ||
          absl::IsPermissionDenied(made.status()) ||
          client::IsNotFound(made.status())) {
        continue;
      }
      result = absl::Status(made.status().code(),
                            StrCat("creating ServiceAccount ", ns, "/", name,
                                   ": ", made.status().message()));
    }
    return result;
  }

  client::Client* client_;
  ServiceAccountControllerOptions options_;
  Clock& clock_;
  component_helpers::WorkQueue queue_;
  std::unique_ptr<client::Informer> namespaces_, accounts_;
  std::thread worker_;
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
