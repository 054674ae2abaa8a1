#include <atomic>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/time/clock.h"
#include "client/client.h"
#include "client/internal/url.h"
#include "client/testing/test_server.h"
#include "client/transport.h"
#include "gtest/gtest.h"
#include "testing/eventually.h"

namespace draplane::client {
namespace {

using testing::TestServer;

HttpCall Get(std::string path,
             std::multimap<std::string, std::string> query = {}) {
  HttpCall call;
  call.method = "GET";
  call.path = std::move(path);
  call.query = std::move(query);
  return call;
}

TEST(UrlTest, ParsesServers) {
  auto url = internal::ParseServerUrl("https://10.0.0.1:6443/prefix/");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_TRUE(url->tls);
  EXPECT_EQ(url->host, "10.0.0.1");
  EXPECT_EQ(url->port, "6443");
  EXPECT_EQ(url->prefix, "/prefix");
  EXPECT_EQ(url->HostHeader(), "10.0.0.1:6443");

  url = internal::ParseServerUrl("http://[::1]");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_FALSE(url->tls);
  EXPECT_EQ(url->host, "::1");
  EXPECT_EQ(url->port, "80");
  EXPECT_EQ(url->HostHeader(), "[::1]");
  EXPECT_EQ(url->Describe(), "http://[::1]");

  url = internal::ParseServerUrl("https://example.com");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->port, "443");

  EXPECT_FALSE(internal::ParseServerUrl("ftp://x").ok());
  EXPECT_FALSE(internal::ParseServerUrl("https://").ok());
  EXPECT_FALSE(internal::ParseServerUrl("https://h:port").ok());
  EXPECT_FALSE(internal::ParseServerUrl("https://u@h").ok());
}

TEST(UrlTest, EscapesPathsAndQueries) {
  EXPECT_EQ(internal::PathEscape("/api/v1/namespaces/a b/pods/x%y"),
            "/api/v1/namespaces/a%20b/pods/x%25y");
  EXPECT_EQ(internal::QueryEscape("tier in (gold, bronze)"),
            "tier+in+%28gold%2C+bronze%29");
  EXPECT_EQ(internal::QueryEscape("a=b,c!=d"), "a%3Db%2Cc%21%3Dd");
  auto url = internal::ParseServerUrl("https://h:1/p");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->Target("/api/v1/pods", {{"watch", "true"},
                                         {"labelSelector", "a=b"},
                                         {"labelSelector", "c"}}),
            "/p/api/v1/pods?labelSelector=a%3Db&labelSelector=c&watch=true");
  EXPECT_EQ(url->Target("/version", {}), "/p/version");
}

TEST(HttpTransportTest, ConnectionRefusedIsUnavailable) {
  // Bind and release a port so nothing listens there.
  uint16_t port;
  {
    TestServer server(true);
    port = server.port();
  }
  RestConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(port);
  auto transport = NewHttpTransport(config);
  ASSERT_TRUE(transport.ok());
  auto reply = (*transport)->RoundTrip(Get("/version"));
  EXPECT_EQ(reply.status().code(), absl::StatusCode::kUnavailable)
      << reply.status();
}

TEST(HttpTransportTest, InvalidCaIsRefused) {
  RestConfig config;
  config.server = "https://127.0.0.1:1";
  config.ca_pem = "not a certificate";
  EXPECT_FALSE(NewHttpTransport(config).ok());
  config.ca_pem.clear();
  config.client_cert_pem = "junk";
  config.client_key_pem = "junk";
  EXPECT_FALSE(NewHttpTransport(config).ok());
}

class HttpsTest : public ::testing::Test {
 protected:
  HttpsTest() : server_(true) {}
  TestServer server_;
};

TEST_F(HttpsTest, RoundTripsReuseConnections) {
  auto transport = NewHttpTransport(server_.Config());
  ASSERT_TRUE(transport.ok()) << transport.status();
  for (int i = 0; i < 5; ++i) {
    auto reply = (*transport)->RoundTrip(Get("/version"));
    ASSERT_TRUE(reply.ok()) << reply.status();
    EXPECT_EQ(reply->status, 200);
    EXPECT_EQ(reply->headers.at("content-type"), "application/json");
    EXPECT_NE(reply->body.find("\"gitVersion\""), std::string::npos);
  }
}

TEST_F(HttpsTest, ConcurrentCallsFromManyThreads) {
  auto client = server_.NewClient();
  std::vector<std::thread> threads;
  threads.reserve(4);
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        const std::string name =
            "n" + std::to_string(t) + "-" + std::to_string(i);
        if (client->Create(testing::Node(name)).ok() &&
            client->Get(Kind("Node"), "", name).ok()) {
          ++ok;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 40);
}

TEST_F(HttpsTest, WrongCaFailsVerification) {
  // Another server's CA does not sign this server's certificate.
  TestServer other(true);
  RestConfig config = server_.Config();
  config.ca_pem = other.credentials().ca_cert_pem;
  auto transport = NewHttpTransport(config);
  ASSERT_TRUE(transport.ok());
  auto reply = (*transport)->RoundTrip(Get("/version"));
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(reply.status().message().find("certificate verification failed"),
            absl::string_view::npos)
      << reply.status();

  // insecure-skip-tls-verify accepts it.
  config.insecure_skip_tls_verify = true;
  transport = NewHttpTransport(config);
  ASSERT_TRUE(transport.ok());
  reply = (*transport)->RoundTrip(Get("/version"));
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->status, 200);
}

TEST_F(HttpsTest, ServerNameIsChecked) {
  RestConfig config = server_.Config();
  config.tls_server_name = "other.example.com";  // not in the certificate
  auto transport = NewHttpTransport(config);
  ASSERT_TRUE(transport.ok());
  auto reply = (*transport)->RoundTrip(Get("/version"));
  EXPECT_FALSE(reply.ok());
  // The certificate is issued for 127.0.0.1 (an IP SAN).
  config.tls_server_name = "127.0.0.1";
  transport = NewHttpTransport(config);
  ASSERT_TRUE(transport.ok());
  reply = (*transport)->RoundTrip(Get("/version"));
  EXPECT_TRUE(reply.ok()) << reply.status();
}

// No credentials: system:anonymous, whom RBAC refuses (403); a wrong
// token: 401, as kube-apiserver.
TEST_F(HttpsTest, MissingTokenIsAnonymousAndAWrongOneUnauthenticated) {
  RestConfig config = server_.Config();
  config.bearer_token.clear();
  auto anonymous = server_.NewClient(config)->Get(Kind("Node"), "", "n");
  EXPECT_EQ(anonymous.status().code(), absl::StatusCode::kPermissionDenied)
      << anonymous.status();
  EXPECT_EQ(Reason(anonymous.status()), "Forbidden");
  config.bearer_token = "wrong";
  auto wrong = server_.NewClient(config)->Get(Kind("Node"), "", "n");
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kUnauthenticated)
      << wrong.status();
  EXPECT_EQ(Reason(wrong.status()), "Unauthorized");
}

TEST_F(HttpsTest, StreamCancellationIsPrompt) {
  auto transport = NewHttpTransport(server_.Config());
  ASSERT_TRUE(transport.ok());
  CancelFlag cancel{false};
  std::atomic<int> status{0};
  absl::Status st;
  std::thread t([&] {
    st = (*transport)
             ->Stream(
                 Get("/api/v1/nodes", {{"watch", "true"}}),
                 [&](int code, const std::map<std::string, std::string>&) {
                   status = code;
                 },
                 [&](std::string_view) { return true; }, nullptr, cancel);
  });
  // The stream is open once its status line arrived.
  ASSERT_TRUE(draplane::testing::Eventually([&] { return status != 0; }));
  const absl::Time start = absl::Now();
  cancel = true;
  t.join();
  std::printf("HTTP stream cancellation noticed after %s\n",
              absl::FormatDuration(absl::Now() - start).c_str());
  EXPECT_TRUE(st.ok()) << st;
  EXPECT_EQ(status, 200);
}

// Client connections to `port` ESTABLISHED now (/proc/net/tcp).
int ConnectionsTo(uint16_t port) {
  std::ifstream in("/proc/net/tcp");
  std::string line;
  std::getline(in, line);  // the heading
  int n = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    fields >> slot >> local >> remote >> state;
    const size_t colon = remote.find(':');
    if (state == "01" && colon != std::string::npos &&
        std::stoul(remote.substr(colon + 1), nullptr, 16) == port) {
      ++n;
    }
  }
  return n;
}

// A TLS server whose /watch streams "hello" and holds the stream until
// the client goes; anything else answers "ok".
class Http2Server {
 public:
  explicit Http2Server(bool http2) {
    auto creds = apiserver::LoadOrCreateCredentials(testing::TempDir("h2creds"),
                                                    {"127.0.0.1"});
    EXPECT_TRUE(creds.ok()) << creds.status();
    ca_ = creds->ca_cert_pem;
    http::HttpServerOptions o;
    o.tls_cert_pem = creds->cert_pem;
    o.tls_key_pem = creds->key_pem;
    o.http2 = http2;
    auto server = http::HttpServer::Start(
        o, [](const http::HttpRequest& req, http::ResponseWriter& w) {
          if (req.path != "/watch") {
            w.Send(200, {{"Content-Type", "text/plain"}},
                   "ok " + req.Header("authorization"));
            return;
          }
          w.StartStream(200, {{"Content-Type", "text/plain"}});
          w.WriteChunk("hello\n");
          while (!w.ClientGone() && !w.Stopping()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
          }
        });
    EXPECT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }
  RestConfig Config() const {
    RestConfig config;
    config.server = "https://127.0.0.1:" + std::to_string(server_->port());
    config.ca_pem = ca_;
    config.bearer_token = "token";
    return config;
  }
  uint16_t port() const { return server_->port(); }

 private:
  std::string ca_;
  std::unique_ptr<http::HttpServer> server_;
};

// 150 watches at once from one transport: two HTTP/2 connections (the
// server allows 100 streams on each), and plain requests share them.
TEST(HttpTransportHttp2Test, WatchesShareConnectionsUpToTheStreamLimit) {
  Http2Server server(true);
  auto transport = NewHttpTransport(server.Config());
  ASSERT_TRUE(transport.ok()) << transport.status();
  constexpr int kWatches = 150;
  CancelFlag cancel{false};
  std::atomic<int> hellos{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> watchers;
  watchers.reserve(kWatches);
  for (int i = 0; i < kWatches; ++i) {
    watchers.emplace_back([&] {
      absl::Status st =
          (*transport)
              ->Stream(
                  Get("/watch"), nullptr,
                  [&](std::string_view data) {
                    if (data.find("hello") != std::string_view::npos) ++hellos;
                    return true;
                  },
                  nullptr, cancel);
      if (!st.ok()) ++failures;
    });
  }
  ASSERT_TRUE(
      draplane::testing::Eventually([&] { return hellos == kWatches; }));
  EXPECT_EQ(ConnectionsTo(server.port()), 2);
  auto reply = (*transport)->RoundTrip(Get("/version"));
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->body, "ok Bearer token");
  EXPECT_EQ(ConnectionsTo(server.port()), 2);
  cancel = true;
  for (auto& t : watchers) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(HttpTransportHttp2Test, FallsBackToHttp11WhenTheServerDoesNotChooseH2) {
  Http2Server server(false);
  auto transport = NewHttpTransport(server.Config());
  ASSERT_TRUE(transport.ok()) << transport.status();
  for (int i = 0; i < 3; ++i) {
    auto reply = (*transport)->RoundTrip(Get("/x"));
    ASSERT_TRUE(reply.ok()) << reply.status();
    EXPECT_EQ(reply->body, "ok Bearer token");
  }
  CancelFlag cancel{false};
  std::string got;
  absl::Status st = (*transport)
                        ->Stream(
                            Get("/watch"), nullptr,
                            [&](std::string_view data) {
                              got.append(data);
                              return false;  // ends the stream
                            },
                            nullptr, cancel);
  EXPECT_TRUE(st.ok()) << st;
  EXPECT_EQ(got, "hello\n");
}

TEST(HttpTransportTest, PlainHttpAndAServerRestartBehindAPooledConnection) {
  auto store = store::NewMemoryStore();
  apiserver::ApiServer api(store.get(), {});
  auto handler = [&](const http::HttpRequest& req, http::ResponseWriter& w) {
    api.Handle(req, w);
  };
  auto first = http::HttpServer::Start({}, handler);
  ASSERT_TRUE(first.ok()) << first.status();
  const uint16_t port = (*first)->port();
  RestConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(port);
  auto client = Client::Connect(config);
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE((*client)->Create(testing::Node("a")).ok());
  // The pooled keep-alive connection dies with the server.
  (*first)->Stop();
  http::HttpServerOptions again;
  again.port = port;
  auto second = http::HttpServer::Start(again, handler);
  ASSERT_TRUE(second.ok()) << second.status();
  auto got = (*client)->Get(Kind("Node"), "", "a");
  EXPECT_TRUE(got.ok()) << got.status();
}

}  // namespace
}  // namespace draplane::client

namespace draplane::client {
namespace {

TEST(HttpTransportTest, RoundTripTimesOut) {
  auto slow = http::HttpServer::Start(
      {}, [](const http::HttpRequest&, http::ResponseWriter& w) {
        absl::SleepFor(absl::Milliseconds(600));
        w.Send(200, {}, "late");
      });
  ASSERT_TRUE(slow.ok()) << slow.status();
  RestConfig config;
  config.server = "http://127.0.0.1:" + std::to_string((*slow)->port());
  config.timeout = absl::Milliseconds(100);
  auto transport = NewHttpTransport(config);
  ASSERT_TRUE(transport.ok());
  HttpCall call;
  call.method = "GET";
  call.path = "/slow";
  auto reply = (*transport)->RoundTrip(call);
  EXPECT_EQ(reply.status().code(), absl::StatusCode::kDeadlineExceeded)
      << reply.status();
  config.timeout = absl::Seconds(10);
  transport = NewHttpTransport(config);
  ASSERT_TRUE(transport.ok());
  reply = (*transport)->RoundTrip(call);
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->body, "late");
}

}  // namespace
}  // namespace draplane::client
