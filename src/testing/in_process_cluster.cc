#include "testing/in_process_cluster.h"

#include <cstdlib>

#include "absl/time/clock.h"
#include "api/object_codec.h"
#include "client/transport.h"
#include "logging/log.h"

namespace draplane::testing {

absl::StatusOr<std::unique_ptr<InProcessCluster>> InProcessCluster::Start(
    const InProcessClusterOptions& options) {
  std::unique_ptr<InProcessCluster> c(new InProcessCluster());
  if (options.sqlite_path.empty()) {
    c->store_ = store::NewMemoryStore();
  } else {
    absl::StatusOr<std::unique_ptr<store::Store>> s =
        store::OpenSqliteStore(options.sqlite_path);
    if (!s.ok()) return s.status();
    c->store_ = *std::move(s);
  }
  c->server_ = std::make_unique<apiserver::ApiServer>(
      c->store_.get(), apiserver::ApiServerOptions{});
  c->client_ = c->NewClient();
  InProcessCluster* self = c.get();
  absl::Duration period = options.controller_period;
  c->controllers_ = std::thread([self, period] {
    if (period == absl::InfiniteDuration()) return;
    while (!self->stop_) {
      self->server_->RunControllersOnce();
      absl::Time until = absl::Now() + period;
      while (!self->stop_ && absl::Now() < until) {
        absl::SleepFor(absl::Milliseconds(10));
      }
    }
  });
  return c;
}

InProcessCluster::~InProcessCluster() {
  stop_ = true;
  if (controllers_.joinable()) controllers_.join();
}

std::unique_ptr<client::Client> InProcessCluster::NewClient() const {
  client::RestConfig config;
  config.server = "in-process";
  apiserver::ApiServer* server = server_.get();
  return std::make_unique<client::Client>(
      client::NewInProcessTransport(
          [server](const http::HttpRequest& request,
                   http::InProcessExchange& exchange) {
            server->HandleInProcess(request, exchange);
          },
          config),
      config);
}

api::Object InProcessCluster::MustCreate(const api::Json& json) {
  absl::StatusOr<api::DecodeResult> decoded = api::DecodeObject(json);
  if (!decoded.ok()) {
    logging::Fatal("MustCreate: the object does not decode",
                   {{"err", decoded.status()}});
  }
  absl::StatusOr<api::Object> created = client_->Create(decoded->object);
  if (!created.ok()) {
    logging::Fatal(
        "MustCreate: creating the object failed",
        {{"object", decoded->object.DisplayName()}, {"err", created.status()}});
  }
  return *std::move(created);
}

}  // namespace draplane::testing
