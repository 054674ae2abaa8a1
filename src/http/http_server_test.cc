#include "http/http_server.h"

#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "apiserver/tls_credentials.h"
#include "gtest/gtest.h"

namespace draplane::http {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace beast_http = beast::http;
using tcp = net::ip::tcp;
using apiserver::LoadOrCreateCredentials;

// Echoes the request: method, path, query and body; /stream answers with
// three chunks.
void Echo(const HttpRequest& req, ResponseWriter& w) {
  if (req.path == "/stream") {
    w.StartStream(200, {{"Content-Type", "text/plain"}});
    for (const char* c : {"one\n", "two\n", "three\n"}) w.WriteChunk(c);
    return;
  }
  std::string out = req.method + " " + req.path;
  for (const auto& [k, v] : req.query)
    out.append(" ").append(k).append("=").append(v);
  out.append(" [").append(req.body).append("] ").append(req.Header("x-test"));
  w.Send(200, {{"Content-Type", "text/plain"}}, out);
}

template <class Stream>
beast_http::response<beast_http::string_body> Fetch(
    Stream& stream, beast_http::verb verb, const std::string& target,
    const std::string& body = "") {
  beast_http::request<beast_http::string_body> req{verb, target, 11};
  req.set(beast_http::field::host, "127.0.0.1");
  req.set("X-Test", "hdr");
  req.body() = body;
  req.prepare_payload();
  beast_http::write(stream, req);
  beast::flat_buffer buffer;
  beast_http::response<beast_http::string_body> res;
  beast_http::read(stream, buffer, res);
  return res;
}

TEST(HttpServerTest, ServesRequestsWithKeepAliveAndDecodesQueries) {
  auto server = HttpServer::Start({}, Echo);
  ASSERT_TRUE(server.ok()) << server.status();
  net::io_context io;
  tcp::socket socket(io);
  socket.connect({net::ip::make_address("127.0.0.1"), (*server)->port()});
  auto res = Fetch(socket, beast_http::verb::post,
                   "/a%2Fb?labelSelector=app%3Dx%2Cy&flag&sp=a+b", "payload");
  EXPECT_EQ(res.result_int(), 200);
  EXPECT_EQ(res.body(),
            "POST /a/b flag= labelSelector=app=x,y sp=a b [payload] hdr");
  // Same connection again.
  auto second = Fetch(socket, beast_http::verb::get, "/x");
  EXPECT_EQ(second.body(), "GET /x [] hdr");
  auto streamed = Fetch(socket, beast_http::verb::get, "/stream");
  EXPECT_EQ(streamed.body(), "one\ntwo\nthree\n");
}

TEST(HttpServerTest, RequestsCarryTheRawTargetAndThePeerAddress) {
  auto server =
      HttpServer::Start({}, [](const HttpRequest& req, ResponseWriter& w) {
        w.Send(200, {}, req.target + " " + req.remote_address);
      });
  ASSERT_TRUE(server.ok()) << server.status();
  net::io_context io;
  tcp::socket socket(io);
  socket.connect({net::ip::make_address("127.0.0.1"), (*server)->port()});
  auto res = Fetch(socket, beast_http::verb::get, "/a%2Fb?x=1%2C2&y");
  EXPECT_EQ(res.body(), "/a%2Fb?x=1%2C2&y 127.0.0.1");
}

TEST(HttpServerTest, RepeatedHeadersKeepEveryValueInOrder) {
  auto server = HttpServer::Start({}, Echo);
  ASSERT_TRUE(server.ok()) << server.status();
  net::io_context io;
  tcp::socket socket(io);
  socket.connect({net::ip::make_address("127.0.0.1"), (*server)->port()});
  beast_http::request<beast_http::string_body> req{beast_http::verb::get, "/",
                                                   11};
  req.set(beast_http::field::host, "127.0.0.1");
  req.insert("X-Test", "a,b");
  req.insert("x-test", "c");
  req.prepare_payload();
  beast_http::write(socket, req);
  beast::flat_buffer buffer;
  beast_http::response<beast_http::string_body> res;
  beast_http::read(socket, buffer, res);
  EXPECT_EQ(res.body(), "GET / [] a,b\nc");
}

TEST(HttpServerTest, RefusesTooLargeBodies) {
  HttpServerOptions options;
  options.max_body_bytes = 1024;
  options.too_large_body = "{\"code\":413}";
  auto server = HttpServer::Start(options, Echo);
  ASSERT_TRUE(server.ok());
  net::io_context io;
  tcp::socket socket(io);
  socket.connect({net::ip::make_address("127.0.0.1"), (*server)->port()});
  auto res = Fetch(socket, beast_http::verb::post, "/", std::string(4096, 'x'));
  EXPECT_EQ(res.result_int(), 413);
  EXPECT_EQ(res.body(), "{\"code\":413}");
}

TEST(HttpServerTest, StopClosesIdleConnections) {
  auto server = HttpServer::Start({}, Echo);
  ASSERT_TRUE(server.ok());
  net::io_context io;
  tcp::socket socket(io);
  socket.connect({net::ip::make_address("127.0.0.1"), (*server)->port()});
  (*server)->Stop();  // must not hang on the idle keep-alive connection
  beast::error_code ec;
  char byte;
  socket.read_some(net::buffer(&byte, 1), ec);
  EXPECT_TRUE(ec);
}

TEST(HttpServerTest, ServesTlsWithTheGeneratedCa) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("draplane-tls-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto creds =
      LoadOrCreateCredentials(dir.string(), {"127.0.0.1", "localhost"});
  ASSERT_TRUE(creds.ok()) << creds.status();
  EXPECT_EQ(creds->admin_token.size(), 64u);
  // A second load keeps the CA and the token.
  auto again = LoadOrCreateCredentials(dir.string(), {"127.0.0.1"});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->ca_cert_pem, creds->ca_cert_pem);
  EXPECT_EQ(again->admin_token, creds->admin_token);

  HttpServerOptions options;
  options.tls_cert_pem = creds->cert_pem;
  options.tls_key_pem = creds->key_pem;
  auto server = HttpServer::Start(options, Echo);
  ASSERT_TRUE(server.ok()) << server.status();

  net::io_context io;
  net::ssl::context ctx(net::ssl::context::tls_client);
  ctx.add_certificate_authority(net::buffer(creds->ca_cert_pem));
  ctx.set_verify_mode(net::ssl::verify_peer);
  net::ssl::stream<tcp::socket> stream(io, ctx);
  stream.set_verify_callback(net::ssl::host_name_verification("localhost"));
  stream.next_layer().connect(
      {net::ip::make_address("127.0.0.1"), (*server)->port()});
  stream.handshake(net::ssl::stream_base::client);
  auto res = Fetch(stream, beast_http::verb::get, "/tls");
  EXPECT_EQ(res.body(), "GET /tls [] hdr");

  std::filesystem::remove_all(dir);
}

// Who the server saw: "none", or "<verified>/<CN>/<O,...>/<error>".
void WhoAmI(const HttpRequest& req, ResponseWriter& w) {
  std::string out = "none";
  if (req.client_certificate.has_value()) {
    const ClientCertificate& c = *req.client_certificate;
    out = std::string(c.verified ? "verified" : "unverified") + "/" +
          c.common_name + "/";
    for (const std::string& o : c.organizations) out += o + ",";
    out += "/" + c.error;
  }
  w.Send(200, {{"Content-Type", "text/plain"}}, out);
}

// A TLS client of `port` presenting `cert` (none when empty).
std::string FetchWho(uint16_t port, const std::string& ca_pem,
                     const apiserver::ClientCredentials& cert) {
  net::io_context io;
  net::ssl::context ctx(net::ssl::context::tls_client);
  ctx.add_certificate_authority(net::buffer(ca_pem));
  ctx.set_verify_mode(net::ssl::verify_peer);
  if (!cert.cert_pem.empty()) {
    ctx.use_certificate_chain(net::buffer(cert.cert_pem));
    ctx.use_private_key(net::buffer(cert.key_pem), net::ssl::context::pem);
  }
  net::ssl::stream<tcp::socket> stream(io, ctx);
  stream.next_layer().connect({net::ip::make_address("127.0.0.1"), port});
  stream.handshake(net::ssl::stream_base::client);
  return Fetch(stream, beast_http::verb::get, "/who").body();
}

TEST(HttpServerTest, ClientCertificatesAreCheckedAgainstTheClientCa) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("draplane-client-ca-" + std::to_string(::getpid()));
  const auto other = dir / "other";
  std::filesystem::remove_all(dir);
  auto creds = LoadOrCreateCredentials(dir.string(), {"127.0.0.1"});
  ASSERT_TRUE(creds.ok()) << creds.status();
  auto stranger = LoadOrCreateCredentials(other.string(), {"127.0.0.1"});
  ASSERT_TRUE(stranger.ok()) << stranger.status();

  HttpServerOptions options;
  options.tls_cert_pem = creds->cert_pem;
  options.tls_key_pem = creds->key_pem;
  options.tls_client_ca_pem = creds->ca_cert_pem;
  auto server = HttpServer::Start(options, WhoAmI);
  ASSERT_TRUE(server.ok()) << server.status();
  const uint16_t port = (*server)->port();

  EXPECT_EQ(FetchWho(port, creds->ca_cert_pem, {}), "none");
  auto alice = apiserver::IssueClientCredentials(
      dir.string(), "alice", {"team-a", "team-b"}, absl::Hours(1));
  ASSERT_TRUE(alice.ok()) << alice.status();
  EXPECT_EQ(FetchWho(port, creds->ca_cert_pem, *alice),
            "verified/alice/team-a,team-b,/");
  // The admin certificate is in system:masters.
  EXPECT_EQ(FetchWho(port, creds->ca_cert_pem,
                     {creds->admin_cert_pem, creds->admin_key_pem}),
            "verified/admin/system:masters,/");
  // Another CA's certificate (of the same name), and an expired one, reach
  // the handler unverified (the API server answers 401).
  auto forged = apiserver::IssueClientCredentials(
      other.string(), "admin", {"system:masters"}, absl::Hours(1));
  ASSERT_TRUE(forged.ok());
  EXPECT_EQ(FetchWho(port, creds->ca_cert_pem, *forged),
            "unverified/admin/system:masters,/certificate signature failure");
  auto expired = apiserver::IssueClientCredentials(dir.string(), "alice", {},
                                                   absl::Hours(-1));
  ASSERT_TRUE(expired.ok());
  EXPECT_EQ(FetchWho(port, creds->ca_cert_pem, *expired),
            "unverified/alice//certificate has expired");
  // The serving certificate is no client certificate.
  EXPECT_EQ(
      FetchWho(port, creds->ca_cert_pem, {creds->cert_pem, creds->key_pem}),
      "unverified/draplane-apiserver//unsuitable certificate purpose");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace draplane::http

namespace draplane::http {
namespace {

// A server whose /detach handler starts a stream, writes one chunk and
// hands the stream over; the streams handed over.
class DetachedStreams {
 public:
  absl::StatusOr<std::unique_ptr<HttpServer>> Serve(
      const HttpServerOptions& options = {}) {
    return HttpServer::Start(
        options,
        [this](const HttpRequest& req, ResponseWriter& w) { Handle(req, w); });
  }
  // The n-th stream, waiting up to 10 s for it.
  std::shared_ptr<DetachedStream> Get(size_t n) {
    absl::MutexLock lock(&mu_);
    auto arrived = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return streams_.size() > n;
    };
    if (!mu_.AwaitWithTimeout(absl::Condition(&arrived), absl::Seconds(10))) {
      return nullptr;
    }
    return streams_[n];
  }

 private:
  void Handle(const HttpRequest& req, ResponseWriter& w) {
    if (req.path != "/detach") {
      w.Send(200, {{"Content-Type", "text/plain"}}, "plain");
      return;
    }
    w.StartStream(200, {{"Content-Type", "text/plain"}});
    w.WriteChunk("first\n");  // before: on the handler's thread
    std::shared_ptr<DetachedStream> stream = w.Detach();
    ASSERT_NE(stream, nullptr);
    EXPECT_EQ(w.Detach(), nullptr);  // once only
    absl::MutexLock lock(&mu_);
    streams_.push_back(std::move(stream));
  }

  absl::Mutex mu_;
  std::vector<std::shared_ptr<DetachedStream>> streams_ ABSL_GUARDED_BY(mu_);
};

// A client of /detach: connected, its request sent and the response's
// header read.
struct StreamClient {
  StreamClient(net::io_context& io, uint16_t port) : socket(io) {
    socket.connect({net::ip::make_address("127.0.0.1"), port});
    beast_http::request<beast_http::string_body> req{beast_http::verb::get,
                                                     "/detach", 11};
    req.set(beast_http::field::host, "127.0.0.1");
    beast_http::write(socket, req);
    beast_http::read_header(socket, buffer, parser);
  }
  tcp::socket socket;
  beast::flat_buffer buffer;
  beast_http::response_parser<beast_http::string_body> parser;
};

// True once `done` holds, checked for up to 10 s.
template <class F>
bool Within10s(F done) {
  for (int i = 0; i < 10'000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

TEST(DetachedStreamTest, HoldsNoThreadAndWritesFromAnyThread) {
  DetachedStreams streams;
  HttpServerOptions options;
  options.max_handler_threads = 1;
  auto server = streams.Serve(options);
  ASSERT_TRUE(server.ok()) << server.status();
  net::io_context io;
  StreamClient watcher(io, (*server)->port());
  EXPECT_EQ(watcher.parser.get().result_int(), 200);
  std::shared_ptr<DetachedStream> stream = streams.Get(0);
  ASSERT_NE(stream, nullptr);
  // The only handler thread is free again once the handler has returned
  // (until then a request gets 503).
  std::string body;
  EXPECT_TRUE(Within10s([&] {
    tcp::socket other(io);
    other.connect({net::ip::make_address("127.0.0.1"), (*server)->port()});
    auto res = Fetch(other, beast_http::verb::get, "/x");
    body = res.body();
    return res.result_int() == 200;
  }));
  EXPECT_EQ(body, "plain");
  std::atomic<int> notified{0};
  stream->OnDrainOrEnd([&notified] { notified.fetch_add(1); });
  ASSERT_TRUE(stream->Write("drained?\n"));
  EXPECT_TRUE(Within10s([&] { return notified.load() == 1; }));
  EXPECT_EQ(stream->QueuedBytes(), 0u);
  // Writes from other threads, in order; Close ends the response.
  std::thread writer([&stream] {
    for (int i = 0; i < 100; ++i) {
      EXPECT_TRUE(stream->Write("line " + std::to_string(i) + "\n"));
    }
    stream->Close();
  });
  writer.join();
  beast_http::read(watcher.socket, watcher.buffer, watcher.parser);
  std::string expected = "first\ndrained?\n";
  for (int i = 0; i < 100; ++i) {
    expected += "line " + std::to_string(i) + "\n";
  }
  EXPECT_EQ(watcher.parser.get().body(), expected);
  EXPECT_TRUE(watcher.parser.is_done());
  EXPECT_TRUE(Within10s([&] { return stream->Ended(); }));
  // Drained, and ended (the call follows Ended()).
  EXPECT_TRUE(Within10s([&] { return notified.load() >= 2; }));
  EXPECT_FALSE(stream->Write("late\n"));
  EXPECT_EQ(stream->QueuedBytes(), 0u);
}

TEST(DetachedStreamTest, EndsWhenTheClientCloses) {
  DetachedStreams streams;
  auto server = streams.Serve();
  ASSERT_TRUE(server.ok()) << server.status();
  net::io_context io;
  auto watcher = std::make_unique<StreamClient>(io, (*server)->port());
  std::shared_ptr<DetachedStream> stream = streams.Get(0);
  ASSERT_NE(stream, nullptr);
  std::atomic<int> ended{0};
  stream->OnDrainOrEnd([&ended] { ended.fetch_add(1); });
  EXPECT_FALSE(stream->Ended());
  watcher.reset();  // the client goes away
  EXPECT_TRUE(Within10s([&] { return ended.load() == 1; }));
  EXPECT_TRUE(stream->Ended());
  EXPECT_FALSE(stream->Write("nobody\n"));
  // Registered after the end: runs at once.
  stream->OnDrainOrEnd([&ended] { ended.fetch_add(1); });
  EXPECT_EQ(ended.load(), 2);
}

TEST(DetachedStreamTest, AbortAndStopEndStreams) {
  DetachedStreams streams;
  auto server = streams.Serve();
  ASSERT_TRUE(server.ok()) << server.status();
  net::io_context io;
  StreamClient first(io, (*server)->port());
  StreamClient second(io, (*server)->port());
  std::shared_ptr<DetachedStream> aborted = streams.Get(0);
  std::shared_ptr<DetachedStream> stopped = streams.Get(1);
  ASSERT_NE(aborted, nullptr);
  ASSERT_NE(stopped, nullptr);
  aborted->Write("queued\n");
  aborted->Abort();
  EXPECT_TRUE(Within10s([&] { return aborted->Ended(); }));
  EXPECT_FALSE(stopped->Ended());
  // Stop returns although the stream's owner still holds it.
  (*server)->Stop();
  EXPECT_TRUE(stopped->Ended());
  EXPECT_FALSE(stopped->Write("after stop\n"));
}

}  // namespace
}  // namespace draplane::http
