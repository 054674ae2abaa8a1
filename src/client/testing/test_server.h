// Test support: the real draplane API server over an in-memory store,
// reachable in-process or over TLS with a bearer token.
#ifndef DRAPLANE_CLIENT_TESTING_TEST_SERVER_H_
#define DRAPLANE_CLIENT_TESTING_TEST_SERVER_H_

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>

#include "api/object_codec.h"
#include "apiserver/api_server.h"
#include "apiserver/tls_credentials.h"
#include "auth/rbac.h"
#include "client/client.h"
#include "gtest/gtest.h"
#include "http/http_server.h"
#include "store/store.h"

namespace draplane::client::testing {

// A fresh empty directory under the test's temp dir.
inline std::string TempDir(const std::string& name) {
  static std::atomic<int> counter{0};
  std::string dir = ::testing::TempDir() + "/draplane_client_" +
                    std::to_string(::getpid()) + "_" + name + "_" +
                    std::to_string(counter++);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// An object from its JSON text; dies on invalid input (a test bug).
inline api::Object Obj(const std::string& json) {
  auto decoded = api::DecodeObject(api::Json::parse(json));
  EXPECT_TRUE(decoded.ok()) << decoded.status() << " for " << json;
  return decoded.ok() ? decoded->object : api::Object{};
}

// `object` with its JSON (in its own apiVersion) changed by `fn`.
template <class Fn>
api::Object Mutated(const api::Object& object, Fn&& fn) {
  auto json = api::EncodeObject(object);
  EXPECT_TRUE(json.ok()) << json.status();
  fn(*json);
  auto decoded = api::DecodeObject(*json);
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  return decoded->object;
}

inline const api::ObjectMeta& Meta(const api::Object& object) {
  return *object.metadata();
}

inline api::Object Claim(const std::string& name,
                         const std::string& ns = "default") {
  return Obj(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
      "metadata":{"name":")" +
             name + R"(","namespace":")" + ns + R"("},
      "spec":{"devices":{"requests":[{"name":"gpu",
        "exactly":{"deviceClassName":"gpu.example.com"}}]}}})");
}

inline api::Object Pod(const std::string& name,
                       const std::string& ns = "default") {
  return Obj(R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":")" +
             name + R"(","namespace":")" + ns + R"("},
      "spec":{"containers":[{"name":"c","image":"busybox"}]}})");
}

inline api::Object Node(const std::string& name) {
  return Obj(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
             R"("}})");
}

// The API server over a memory store, plus an optional TLS listener.
class TestServer {
 public:
  explicit TestServer(bool tls, apiserver::ApiServerOptions options = {}) {
    store_ = store::NewMemoryStore();
    if (tls) {
      creds_dir_ = TempDir("creds");
      auto creds =
          apiserver::LoadOrCreateCredentials(creds_dir_, {"127.0.0.1"});
      EXPECT_TRUE(creds.ok()) << creds.status();
      creds_ = *creds;
      // As `draplane server`: the admin token, client certificates, RBAC
      // with the bootstrap policy.
      options.tokens.push_back(apiserver::AdminToken(creds_.admin_token));
      options.authorization_mode =
          apiserver::ApiServerOptions::AuthorizationMode::kRbac;
    }
    api_ = std::make_unique<apiserver::ApiServer>(store_.get(),
                                                  std::move(options));
    if (tls) {
      http::HttpServerOptions http;
      http.tls_cert_pem = creds_.cert_pem;
      http.tls_key_pem = creds_.key_pem;
      http.tls_client_ca_pem = creds_.ca_cert_pem;
      auto server = http::HttpServer::Start(
          http, [this](const http::HttpRequest& req, http::ResponseWriter& w) {
            api_->Handle(req, w);
          });
      EXPECT_TRUE(server.ok()) << server.status();
      http_ = *std::move(server);
    }
  }
  ~TestServer() {
    if (http_) http_->Stop();
  }

  // A config that reaches this server (TLS: CA and token set).
  RestConfig Config() const {
    RestConfig config;
    if (http_) {
      config.server = "https://127.0.0.1:" + std::to_string(http_->port());
      config.ca_pem = creds_.ca_cert_pem;
      config.bearer_token = creds_.admin_token;
    } else {
      config.server = "in-process";
    }
    return config;
  }

  std::unique_ptr<Client> NewClient(const RestConfig& config) {
    if (http_) {
      auto client = Client::Connect(config);
      EXPECT_TRUE(client.ok()) << client.status();
      return client.ok() ? *std::move(client) : nullptr;
    }
    return std::make_unique<Client>(
        NewInProcessTransport(InProcessHandler(), config), config);
  }
  std::unique_ptr<Client> NewClient() { return NewClient(Config()); }

  http::InProcessHandler InProcessHandler() {
    return [this](const http::HttpRequest& req, http::InProcessExchange& x) {
      api_->HandleInProcess(req, x);
    };
  }

  store::Store& store() { return *store_; }
  const apiserver::ServingCredentials& credentials() const { return creds_; }
  // The CA's folder (TLS only), for IssueClientCredentials.
  const std::string& credentials_dir() const { return creds_dir_; }
  uint16_t port() const { return http_ ? http_->port() : 0; }

 private:
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<apiserver::ApiServer> api_;
  apiserver::ServingCredentials creds_;
  std::string creds_dir_;
  std::unique_ptr<http::HttpServer> http_;
};

}  // namespace draplane::client::testing

#endif  // DRAPLANE_CLIENT_TESTING_TEST_SERVER_H_
