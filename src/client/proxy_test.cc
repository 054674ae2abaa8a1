// HTTP proxies: Go's ProxyFromEnvironment rules, and requests through a
// CONNECT-tunnelling proxy to a real server.
#include "client/internal/proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "client/internal/url.h"
#include "client/testing/test_server.h"
#include "client/transport.h"
#include "gtest/gtest.h"

namespace draplane::client {
namespace {

using internal::ProxyEnvironment;
using internal::ProxyFor;

// The proxy ProxyFor picks for `server` ("" when direct).
std::string Picked(const std::string& server, const ProxyEnvironment& env) {
  auto url = internal::ParseServerUrl(server);
  EXPECT_TRUE(url.ok());
  auto proxy = ProxyFor(*url, env);
  EXPECT_TRUE(proxy.ok()) << proxy.status();
  if (!proxy.ok() || !proxy->has_value()) return "";
  return (*proxy)->Describe();
}

TEST(ProxyForTest, ChoosesAsGosProxyFromEnvironment) {
  ProxyEnvironment env;
  env.https_proxy = "proxy.corp:3128";  // no scheme: http://
  env.http_proxy = "http://plain.corp";
  EXPECT_EQ(Picked("https://api.example.com:6443", env),
            "http://proxy.corp:3128");
  EXPECT_EQ(Picked("http://api.example.com:8080", env), "http://plain.corp:80");
  // Never for localhost or loopback addresses.
  EXPECT_EQ(Picked("https://localhost:6443", env), "");
  EXPECT_EQ(Picked("https://127.0.0.1:6443", env), "");
  EXPECT_EQ(Picked("https://127.9.9.9:6443", env), "");
  EXPECT_EQ(Picked("https://[::1]:6443", env), "");
  EXPECT_EQ(Picked("https://10.0.0.1:6443", env), "http://proxy.corp:3128");

  env.no_proxy =
      " Example.COM, .internal,*.svc.cluster.local,10.96.0.0/12,"
      "192.168.1.5,[fd00::7]:443,other.net:8443";
  EXPECT_EQ(Picked("https://example.com", env), "");
  EXPECT_EQ(Picked("https://api.example.com", env), "");  // subdomain
  EXPECT_EQ(Picked("https://notexample.com", env), "http://proxy.corp:3128");
  EXPECT_EQ(Picked("https://a.internal", env), "");
  EXPECT_EQ(Picked("https://internal", env), "http://proxy.corp:3128");
  EXPECT_EQ(Picked("https://kubernetes.default.svc.cluster.local", env), "");
  EXPECT_EQ(Picked("https://svc.cluster.local", env), "http://proxy.corp:3128");
  EXPECT_EQ(Picked("https://10.96.0.1", env), "");
  EXPECT_EQ(Picked("https://10.112.0.1", env), "http://proxy.corp:3128");
  EXPECT_EQ(Picked("https://192.168.1.5:6443", env), "");
  EXPECT_EQ(Picked("https://[fd00::7]", env), "");  // port 443
  EXPECT_EQ(Picked("https://[fd00::7]:6443", env), "http://proxy.corp:3128");
  EXPECT_EQ(Picked("https://other.net:8443", env), "");
  EXPECT_EQ(Picked("https://other.net:6443", env), "http://proxy.corp:3128");
  env.no_proxy = "*";
  EXPECT_EQ(Picked("https://api.example.com", env), "");

  ProxyEnvironment none;
  EXPECT_EQ(Picked("https://api.example.com", none), "");
  ProxyEnvironment cgi;
  cgi.http_proxy = "http://evil";
  cgi.cgi = true;
  auto url = internal::ParseServerUrl("http://api.example.com");
  EXPECT_FALSE(ProxyFor(*url, cgi).ok());
}

TEST(ProxyForTest, ProxyUrls) {
  auto p = internal::ParseProxyUrl("http://user:p%40ss@proxy:8080/ignored");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->host, "proxy");
  EXPECT_EQ(p->port, "8080");
  EXPECT_EQ(p->authorization, "Basic dXNlcjpwQHNz");  // user:p@ss
  EXPECT_EQ(p->Describe(), "http://proxy:8080");
  auto v6 = internal::ParseProxyUrl("http://[fd00::1]:3128");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "fd00::1");
  EXPECT_EQ(internal::ParseProxyUrl("socks5://proxy:1080").status().message(),
            "proxy \"socks5://proxy:1080\": scheme socks5 is not supported "
            "(draplane's client tunnels through http:// proxies only)");
  EXPECT_FALSE(internal::ParseProxyUrl("https://proxy").ok());
  EXPECT_FALSE(internal::ParseProxyUrl("http://proxy:99999").ok());
  EXPECT_FALSE(internal::ParseProxyUrl("http://:80").ok());
}

// A CONNECT proxy on 127.0.0.1 that tunnels to the address asked for,
// remembering each request head; or, with `answer` set, a proxy that
// answers every request with it instead.
class TunnellingProxy {
 public:
  explicit TunnellingProxy(std::string answer = "")
      : answer_(std::move(answer)) {
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)),
              0);
    EXPECT_EQ(listen(listener_, 16), 0);
    socklen_t len = sizeof(addr);
    getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { Accept(); });
  }
  ~TunnellingProxy() {
    stopping_ = true;
    shutdown(listener_, SHUT_RDWR);
    close(listener_);
    acceptor_.join();
    for (auto& t : tunnels_) t.join();
  }
  std::string Url(const std::string& userinfo = "") const {
    return "http://" + userinfo + "127.0.0.1:" + std::to_string(port_);
  }
  std::vector<std::string> Heads() {
    absl::MutexLock lock(&mu_);
    return heads_;
  }

 private:
  void Accept() {
    while (!stopping_) {
      const int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) return;
      tunnels_.emplace_back([this, fd] { Serve(fd); });
    }
  }

  void Serve(int client) {
    std::string head;
    char c;
    while (head.find("\r\n\r\n") == std::string::npos &&
           read(client, &c, 1) == 1) {
      head.push_back(c);
    }
    {
      absl::MutexLock lock(&mu_);
      heads_.push_back(head);
    }
    if (!answer_.empty()) {
      (void)!write(client, answer_.data(), answer_.size());
      close(client);
      return;
    }
    // "CONNECT 127.0.0.1:PORT HTTP/1.1"
    const size_t colon = head.find(':');
    const int port = std::atoi(head.c_str() + colon + 1);
    const int upstream = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    if (head.rfind("CONNECT 127.0.0.1:", 0) != 0 ||
        connect(upstream, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) !=
            0) {
      const std::string refused = "HTTP/1.1 502 Bad Gateway\r\n\r\n";
      (void)!write(client, refused.data(), refused.size());
      close(client);
      close(upstream);
      return;
    }
    const std::string ok = "HTTP/1.1 200 Connection established\r\n\r\n";
    (void)!write(client, ok.data(), ok.size());
    pollfd fds[2] = {{client, POLLIN, 0}, {upstream, POLLIN, 0}};
    char buf[16384];
    while (!stopping_) {
      if (poll(fds, 2, 100) < 0) break;
      bool closed = false;
      for (int i = 0; i < 2; ++i) {
        if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
        const ssize_t n = read(fds[i].fd, buf, sizeof(buf));
        if (n <= 0 || write(fds[1 - i].fd, buf, static_cast<size_t>(n)) != n) {
          closed = true;
        }
      }
      if (closed) break;
    }
    close(client);
    close(upstream);
  }

  const std::string answer_;
  int listener_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  std::vector<std::thread> tunnels_;  // joined by the destructor
  absl::Mutex mu_;
  std::vector<std::string> heads_ ABSL_GUARDED_BY(mu_);
};

HttpCall Get(const std::string& path) {
  HttpCall call;
  call.method = "GET";
  call.path = path;
  return call;
}

TEST(ProxyTest, HttpsGoesThroughACONNECTTunnelWithProxyCredentials) {
  testing::TestServer server(true);
  TunnellingProxy proxy;
  RestConfig config = server.Config();
  config.proxy_url = proxy.Url("draplane:s3cret@");
  auto transport = NewHttpTransport(config);
  ASSERT_TRUE(transport.ok()) << transport.status();
  for (const char* path : {"/version", "/api/v1/namespaces"}) {
    auto reply = (*transport)->RoundTrip(Get(path));
    ASSERT_TRUE(reply.ok()) << reply.status();
    EXPECT_EQ(reply->status, 200) << path;
  }
  const std::vector<std::string> heads = proxy.Heads();
  ASSERT_EQ(heads.size(), 1u);  // one HTTP/2 connection for both
  const std::string target =
      config.server.substr(std::string("https://").size());
  EXPECT_EQ(heads[0].rfind("CONNECT " + target + " HTTP/1.1\r\n", 0), 0u)
      << heads[0];
  EXPECT_NE(
      heads[0].find("Proxy-Authorization: Basic ZHJhcGxhbmU6czNjcmV0\r\n"),
      std::string::npos)
      << heads[0];
}

TEST(ProxyTest, AProxyThatRefusesTheTunnelIsAnError) {
  testing::TestServer server(true);
  TunnellingProxy proxy(
      "HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: "
      "0\r\n\r\n");
  RestConfig config = server.Config();
  config.proxy_url = proxy.Url();
  auto transport = NewHttpTransport(config);
  ASSERT_TRUE(transport.ok()) << transport.status();
  auto reply = (*transport)->RoundTrip(Get("/version"));
  ASSERT_FALSE(reply.ok());
  EXPECT_NE(
      reply.status().message().find("through " + proxy.Url() +
                                    ": 407 Proxy Authentication Required"),
      std::string::npos)
      << reply.status();
}

TEST(ProxyTest, PlainHttpNamesTheWholeUrlToTheProxy) {
  TunnellingProxy proxy(
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
      "Content-Length: 2\r\nConnection: close\r\n\r\n{}");
  RestConfig config;
  config.server = "http://api.example.com:8080";
  config.proxy_url = proxy.Url("u:p@");
  auto transport = NewHttpTransport(config);
  ASSERT_TRUE(transport.ok()) << transport.status();
  auto reply = (*transport)->RoundTrip(Get("/version"));
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->body, "{}");
  const std::vector<std::string> heads = proxy.Heads();
  ASSERT_EQ(heads.size(), 1u);
  EXPECT_EQ(
      heads[0].rfind("GET http://api.example.com:8080/version HTTP/1.1\r\n", 0),
      0u)
      << heads[0];
  EXPECT_NE(heads[0].find("Proxy-Authorization: Basic dTpw\r\n"),
            std::string::npos);
}

}  // namespace
}  // namespace draplane::client
