#include "testing/in_process_cluster.h"

#include <cstdlib>

#include "absl/time/clock.h"
#include "api/object_codec.h"
#include "client/transport.h"
#include "common/str_cat.h"
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
  apiserver::ApiServerOptions server_options;
  if (options.authorization) {
    server_options.authorization_mode =
        apiserver::ApiServerOptions::AuthorizationMode::kNodeAndRbac;
    server_options.anonymous_auth = false;
    std::vector<auth::UserInfo> users = options.users;
    users.insert(users.begin(), auth::UserInfo{"", "", {"system:masters"}, {}});
    for (size_t i = 0; i < users.size(); ++i) {
      const std::string token = StrCat("in-process-cluster-token-", i);
      c->tokens_[users[i].name] = token;
      auth::UserInfo user = users[i];
      if (user.name.empty()) user.name = "in-process-cluster-admin";
      server_options.tokens.push_back(auth::StaticToken{token, user});
    }
  }
  c->server_ =
      std::make_unique<apiserver::ApiServer>(c->store_.get(), server_options);
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
  auto admin = tokens_.find("");
  return NewClientWithToken(admin == tokens_.end() ? "" : admin->second);
}

std::unique_ptr<client::Client> InProcessCluster::NewClientAs(
    std::string_view name) const {
  auto it = tokens_.find(name);
  if (it == tokens_.end()) {
    logging::Fatal("NewClientAs: no such user", {{"user", std::string(name)}});
  }
  return NewClientWithToken(it->second);
}

std::unique_ptr<client::Client> InProcessCluster::NewClientWithToken(
    const std::string& token) const {
  client::RestConfig config;
  config.server = "in-process";
  config.bearer_token = token;
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
