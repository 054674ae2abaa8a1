// The server's defences: deadlines, the connection cap, the handler
// threads' bound and reading a body only when the request may be served.
#include <sys/socket.h>
#include <sys/time.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "http/http_server.h"

namespace draplane::http {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace beast_http = beast::http;
using tcp = net::ip::tcp;

void Ok(const HttpRequest& req, ResponseWriter& w) {
  w.Send(200, {{"Content-Type", "text/plain"}},
         req.body_withheld ? "withheld" : std::to_string(req.body.size()));
}

// A connected socket whose reads give up after 30 s, so that a test never
// hangs on a server that keeps a connection open.
std::unique_ptr<tcp::socket> Connect(net::io_context& io, uint16_t port) {
  auto socket = std::make_unique<tcp::socket>(io);
  socket->connect({net::ip::make_address("127.0.0.1"), port});
  timeval tv{};
  tv.tv_sec = 30;
  ::setsockopt(socket->native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv,
               sizeof(tv));
  return socket;
}

beast_http::response<beast_http::string_body> Get(tcp::socket& socket,
                                                  beast::error_code& ec) {
  beast_http::request<beast_http::empty_body> req{beast_http::verb::get, "/",
                                                  11};
  req.set(beast_http::field::host, "127.0.0.1");
  beast_http::write(socket, req, ec);
  beast_http::response<beast_http::string_body> res;
  if (ec) return res;
  beast::flat_buffer buffer;
  beast_http::read(socket, buffer, res, ec);
  return res;
}

// Whether the server closed the connection (a read ends at once, rather
// than after the socket's 30 s read timeout).
bool ClosedByServer(tcp::socket& socket) {
  char byte = 0;
  const ssize_t n = ::recv(socket.native_handle(), &byte, 1, 0);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

size_t ThreadsOfThisProcess() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Threads:", 0) == 0) return std::stoul(line.substr(8));
  }
  return 0;
}

TEST(HttpServerLimitsTest, SilentConnectionsAreClosedAfterTheHeaderTimeout) {
  HttpServerOptions o;
  o.header_timeout = std::chrono::seconds(1);
  auto server = HttpServer::Start(o, Ok);
  ASSERT_TRUE(server.ok()) << server.status();
  net::io_context io;
  auto socket = Connect(io, (*server)->port());
  EXPECT_TRUE(ClosedByServer(*socket));
}

TEST(HttpServerLimitsTest, IdleKeptAliveConnectionsAreClosed) {
  HttpServerOptions o;
  o.idle_timeout = std::chrono::seconds(1);
  auto server = HttpServer::Start(o, Ok);
  ASSERT_TRUE(server.ok()) << server.status();
  net::io_context io;
  auto socket = Connect(io, (*server)->port());
  beast::error_code ec;
  EXPECT_EQ(Get(*socket, ec).result_int(), 200);
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_TRUE(ClosedByServer(*socket));
}

TEST(HttpServerLimitsTest, HeadersOverTheLimitGet431) {
  HttpServerOptions o;
  o.max_header_bytes = 1024;
  auto server = HttpServer::Start(o, Ok);
  ASSERT_TRUE(server.ok()) << server.status();
  net::io_context io;
  auto socket = Connect(io, (*server)->port());
  beast_http::request<beast_http::empty_body> req{beast_http::verb::get, "/",
                                                  11};
  req.set("X-Large", std::string(2048, 'a'));
  beast_http::write(*socket, req);
  beast::flat_buffer buffer;
  beast_http::response<beast_http::string_body> res;
  beast_http::read(*socket, buffer, res);
  EXPECT_EQ(res.result_int(), 431);
  // One field over Beast's 64 KiB: the connection is dropped, and the
  // server goes on.
  const std::string huge_field =
      "GET / HTTP/1.1\r\nX-Huge: " + std::string(70 * 1024, 'a') + "\r\n\r\n";
  o.max_header_bytes = 1024 * 1024;
  auto big_server = HttpServer::Start(o, Ok);
  ASSERT_TRUE(big_server.ok()) << big_server.status();
  auto huge_big = Connect(io, (*big_server)->port());
  beast::error_code write_ec;
  net::write(*huge_big, net::buffer(huge_field), write_ec);
  EXPECT_TRUE(ClosedByServer(*huge_big));
  beast::error_code ec;
  auto after = Connect(io, (*big_server)->port());
  EXPECT_EQ(Get(*after, ec).result_int(), 200);
  // Go's http.Server default: a megabyte of headers is served (written
  // by hand: Beast's client caps one field at 64 KiB).
  auto roomy = HttpServer::Start({}, Ok);
  ASSERT_TRUE(roomy.ok()) << roomy.status();
  auto other = Connect(io, (*roomy)->port());
  std::string large = "GET / HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 8; ++i) {
    large += "X-Large-" + std::to_string(i) + ": " +
             std::string(60 * 1024, 'a') + "\r\n";
  }
  large += "\r\n";
  net::write(*other, net::buffer(large));
  beast_http::response<beast_http::string_body> served;
  beast::flat_buffer buffer2;
  beast_http::read(*other, buffer2, served);
  EXPECT_EQ(served.result_int(), 200);
}

TEST(HttpServerLimitsTest, AFullServerClosesTheLongestIdleConnection) {
  HttpServerOptions o;
  o.max_connections = 2;
  auto server = HttpServer::Start(o, Ok);
  ASSERT_TRUE(server.ok()) << server.status();
  net::io_context io;
  beast::error_code ec;
  // The server counts a connection idle just after it answers: the
  // pauses let it.
  auto first = Connect(io, (*server)->port());
  ASSERT_EQ(Get(*first, ec).result_int(), 200);
  absl::SleepFor(absl::Milliseconds(100));
  auto second = Connect(io, (*server)->port());
  ASSERT_EQ(Get(*second, ec).result_int(), 200);
  absl::SleepFor(absl::Milliseconds(100));
  auto third = Connect(io, (*server)->port());
  EXPECT_EQ(Get(*third, ec).result_int(), 200);
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_TRUE(ClosedByServer(*first));
  EXPECT_EQ(Get(*second, ec).result_int(), 200);
  EXPECT_FALSE(ec) << ec.message();
}

TEST(HttpServerLimitsTest, AFullServerWithNoIdleConnectionRefusesNewOnes) {
  HttpServerOptions o;
  o.max_connections = 1;
  absl::Notification entered, release;
  auto server =
      HttpServer::Start(o, [&](const HttpRequest&, ResponseWriter& w) {
        entered.Notify();
        release.WaitForNotification();
        w.Send(200, {}, "late");
      });
  ASSERT_TRUE(server.ok()) << server.status();
  net::io_context io;
  auto busy = Connect(io, (*server)->port());
  beast_http::request<beast_http::empty_body> req{beast_http::verb::get, "/",
                                                  11};
  beast_http::write(*busy, req);
  ASSERT_TRUE(entered.WaitForNotificationWithTimeout(absl::Seconds(30)));
  auto refused = Connect(io, (*server)->port());
  EXPECT_TRUE(ClosedByServer(*refused));
  release.Notify();
  beast::flat_buffer buffer;
  beast_http::response<beast_http::string_body> res;
  beast_http::read(*busy, buffer, res);
  EXPECT_EQ(res.body(), "late");
}

TEST(HttpServerLimitsTest, RequestsBeyondTheHandlerThreadsGet503) {
  HttpServerOptions o;
  o.max_handler_threads = 1;
  absl::Notification entered, release;
  auto server =
      HttpServer::Start(o, [&](const HttpRequest& req, ResponseWriter& w) {
        if (req.path == "/block") {
          entered.Notify();
          release.WaitForNotification();
        }
        w.Send(200, {}, "ok");
      });
  ASSERT_TRUE(server.ok()) << server.status();
  net::io_context io;
  auto busy = Connect(io, (*server)->port());
  beast_http::request<beast_http::empty_body> block{beast_http::verb::get,
                                                    "/block", 11};
  beast_http::write(*busy, block);
  ASSERT_TRUE(entered.WaitForNotificationWithTimeout(absl::Seconds(30)));
  auto other = Connect(io, (*server)->port());
  beast::error_code ec;
  auto res = Get(*other, ec);
  EXPECT_EQ(res.result_int(), 503);
  EXPECT_EQ(res[beast_http::field::retry_after], "1");
  release.Notify();
}

TEST(HttpServerLimitsTest, IdleConnectionsTakeNoThreads) {
  auto server = HttpServer::Start({}, Ok);
  ASSERT_TRUE(server.ok()) << server.status();
  net::io_context io;
  std::vector<std::unique_ptr<tcp::socket>> warm;
  beast::error_code ec;
  warm.push_back(Connect(io, (*server)->port()));
  ASSERT_EQ(Get(*warm.back(), ec).result_int(), 200);
  const size_t before = ThreadsOfThisProcess();
  std::vector<std::unique_ptr<tcp::socket>> idle;
  idle.reserve(200);
  for (int i = 0; i < 200; ++i) idle.push_back(Connect(io, (*server)->port()));
  // Every one of them served once, and then idle: the handler threads
  // follow the requests in flight (each waits a millisecond for its
  // connection's next request), far fewer than the connections.
  for (auto& s : idle) ASSERT_EQ(Get(*s, ec).result_int(), 200);
  EXPECT_LE(ThreadsOfThisProcess(), before + 50);
}

TEST(HttpServerLimitsTest, ABodyIsReadOnlyWhenTheRequestMayBeServed) {
  HttpServerOptions o;
  o.may_read_body = [](const HttpRequest& req) {
    return req.Header("authorization") == "ok";
  };
  auto server = HttpServer::Start(o, Ok);
  ASSERT_TRUE(server.ok()) << server.status();
  net::io_context io;
  // A large body that never arrives: answered at once, from the header.
  auto stalled = Connect(io, (*server)->port());
  const std::string head =
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\nab";
  net::write(*stalled, net::buffer(head));
  beast::flat_buffer buffer;
  beast_http::response<beast_http::string_body> res;
  beast_http::read(*stalled, buffer, res);
  EXPECT_EQ(res.body(), "withheld");
  EXPECT_FALSE(res.keep_alive());
  // Small bodies come with their header, and are read.
  auto small = Connect(io, (*server)->port());
  beast_http::request<beast_http::string_body> post{beast_http::verb::post, "/",
                                                    11};
  post.body() = "small";
  post.prepare_payload();
  beast_http::write(*small, post);
  beast_http::response<beast_http::string_body> small_res;
  beast::flat_buffer buffer2;
  beast_http::read(*small, buffer2, small_res);
  EXPECT_EQ(small_res.body(), "5");
  // An authorized large body is read.
  auto allowed = Connect(io, (*server)->port());
  post.set(beast_http::field::authorization, "ok");
  post.body() = std::string(100 * 1024, 'x');
  post.prepare_payload();
  beast_http::write(*allowed, post);
  beast_http::response<beast_http::string_body> allowed_res;
  beast::flat_buffer buffer3;
  beast_http::read(*allowed, buffer3, allowed_res);
  EXPECT_EQ(allowed_res.body(), std::to_string(100 * 1024));
}

TEST(HttpServerLimitsTest, AWriteToAClientThatNeverReadsFailsAfterItsTimeout) {
  HttpServerOptions o;
  o.write_timeout = std::chrono::seconds(1);
  absl::Notification failed;
  auto server =
      HttpServer::Start(o, [&](const HttpRequest&, ResponseWriter& w) {
        if (!w.StartStream(200, {})) return;
        const std::string chunk(1 << 20, 'x');
        for (int i = 0; i < 1000 && w.WriteChunk(chunk); ++i) {
        }
        failed.Notify();
      });
  ASSERT_TRUE(server.ok()) << server.status();
  net::io_context io;
  auto socket = Connect(io, (*server)->port());
  beast_http::request<beast_http::empty_body> req{beast_http::verb::get, "/",
                                                  11};
  beast_http::write(*socket, req);
  EXPECT_TRUE(failed.WaitForNotificationWithTimeout(absl::Seconds(60)));
}

}  // namespace
}  // namespace draplane::http
