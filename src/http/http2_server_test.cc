// HTTP/2 through HttpServer: ALPN, multiplexing, streamed and detached
// responses, the limits, and the rapid-reset and CONTINUATION-flood
// defences, driven by a small nghttp2 client.
#include <nghttp2/nghttp2.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "apiserver/tls_credentials.h"
#include "gtest/gtest.h"
#include "http/http_server.h"

namespace draplane::http {
namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;

struct Credentials {
  std::string cert_pem, key_pem, ca_pem;
};

const Credentials& ServingCredentials() {
  static const Credentials* creds = [] {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("draplane-h2-test-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    auto c = apiserver::LoadOrCreateCredentials(dir.string(),
                                                {"127.0.0.1", "localhost"});
    std::filesystem::remove_all(dir);
    if (!c.ok()) return new Credentials{};
    return new Credentials{c->cert_pem, c->key_pem, c->ca_cert_pem};
  }();
  return *creds;
}

HttpServerOptions TlsOptions() {
  HttpServerOptions o;
  o.tls_cert_pem = ServingCredentials().cert_pem;
  o.tls_key_pem = ServingCredentials().key_pem;
  return o;
}

struct Response {
  int status = 0;
  std::map<std::string, std::string> headers;
  std::string body;
  bool closed = false;
  uint32_t error = 0;  // RST_STREAM's code
};

// A client connection speaking HTTP/2 with nghttp2, driven by RunUntil on
// the calling thread.
class H2Client {
 public:
  explicit H2Client(uint16_t port, bool offer_h2 = true)
      : ctx_(net::ssl::context::tls_client), stream_(io_, ctx_) {
    ctx_.add_certificate_authority(net::buffer(ServingCredentials().ca_pem));
    ctx_.set_verify_mode(net::ssl::verify_peer);
    const std::string protos = offer_h2 ? std::string("\x02h2\x08http/1.1")
                                        : std::string("\x08http/1.1");
    SSL_set_alpn_protos(stream_.native_handle(),
                        reinterpret_cast<const unsigned char*>(protos.data()),
                        static_cast<unsigned>(protos.size()));
    stream_.next_layer().connect({net::ip::make_address("127.0.0.1"), port});
    stream_.handshake(net::ssl::stream_base::client);
    const unsigned char* alpn = nullptr;
    unsigned len = 0;
    SSL_get0_alpn_selected(stream_.native_handle(), &alpn, &len);
    alpn_.assign(reinterpret_cast<const char*>(alpn), len);
    nghttp2_session_callbacks* cb = nullptr;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_on_header_callback(cb, &OnHeader);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, &OnData);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, &OnClose);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, &OnFrame);
    nghttp2_session_client_new(&session_, cb, this);
    nghttp2_session_callbacks_del(cb);
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, nullptr, 0);
  }
  ~H2Client() { nghttp2_session_del(session_); }
  H2Client(const H2Client&) = delete;
  H2Client& operator=(const H2Client&) = delete;

  const std::string& alpn() const { return alpn_; }
  nghttp2_session* session() { return session_; }

  int32_t Submit(const std::string& method, const std::string& path,
                 const std::string& body = "",
                 std::vector<std::pair<std::string, std::string>> extra = {}) {
    std::vector<std::pair<std::string, std::string>> h =
        Fields(method, path, std::move(extra));
    std::vector<nghttp2_nv> nva = Nva(h);
    auto source = std::make_shared<std::pair<std::string, size_t>>(body, 0);
    nghttp2_data_provider provider{};
    provider.source.ptr = source.get();
    provider.read_callback = [](nghttp2_session*, int32_t, uint8_t* buf,
                                size_t length, uint32_t* flags,
                                nghttp2_data_source* src, void*) -> ssize_t {
      auto* s = static_cast<std::pair<std::string, size_t>*>(src->ptr);
      const size_t n = std::min(length, s->first.size() - s->second);
      std::copy_n(s->first.data() + s->second, n, buf);
      s->second += n;
      if (s->second == s->first.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
      return static_cast<ssize_t>(n);
    };
    const int32_t id =
        nghttp2_submit_request(session_, nullptr, nva.data(), nva.size(),
                               body.empty() ? nullptr : &provider, nullptr);
    bodies_[id] = source;
    responses[id];
    return id;
  }

  // Opens a stream with a header and no END_STREAM: its body is still to
  // come.
  int32_t OpenWithoutBody(const std::string& path,
                          std::vector<std::pair<std::string, std::string>> h) {
    h = Fields("POST", path, std::move(h));
    std::vector<nghttp2_nv> nva = Nva(h);
    const int32_t id =
        nghttp2_submit_headers(session_, NGHTTP2_FLAG_NONE, -1, nullptr,
                               nva.data(), nva.size(), nullptr);
    responses[id];
    return id;
  }

  void Reset(int32_t id) {
    nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
  }

  // Writes `bytes` as they are (after what the session has queued).
  void SendRaw(const std::string& bytes) {
    Pump();
    error_code ec;
    net::write(stream_, net::buffer(bytes), ec);
  }

  // Runs the connection until `done` or `timeout`; false on timeout.
  bool RunUntil(const std::function<bool()>& done, absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    while (!done()) {
      if (absl::Now() > deadline) return false;
      Pump();
      if (!reading_ && !closed) {
        reading_ = true;
        stream_.async_read_some(
            net::buffer(in_), [this](error_code ec, size_t n) {
              reading_ = false;
              if (ec) {
                closed = true;
                return;
              }
              if (nghttp2_session_mem_recv(session_, in_.data(), n) < 0) {
                closed = true;
              }
            });
      }
      io_.run_for(std::chrono::milliseconds(5));
      if (io_.stopped()) io_.restart();
    }
    return true;
  }

  bool Finished(int32_t id) { return responses[id].closed; }

  std::map<int32_t, Response> responses;
  bool closed = false;
  bool goaway = false;
  uint32_t goaway_error = 0;

 private:
  static std::vector<std::pair<std::string, std::string>> Fields(
      const std::string& method, const std::string& path,
      std::vector<std::pair<std::string, std::string>> extra) {
    std::vector<std::pair<std::string, std::string>> h = {
        {":method", method},
        {":scheme", "https"},
        {":authority", "127.0.0.1"},
        {":path", path}};
    for (auto& e : extra) h.push_back(std::move(e));
    return h;
  }
  // Views of `h`, which must outlive them.
  static std::vector<nghttp2_nv> Nva(
      std::vector<std::pair<std::string, std::string>>& h) {
    std::vector<nghttp2_nv> nva;
    nva.reserve(h.size());
    for (auto& [n, v] : h) {
      nva.push_back({reinterpret_cast<uint8_t*>(n.data()),
                     reinterpret_cast<uint8_t*>(v.data()), n.size(), v.size(),
                     NGHTTP2_NV_FLAG_NONE});
    }
    return nva;
  }

  void Pump() {
    if (closed) return;
    std::string out;
    while (true) {
      const uint8_t* data = nullptr;
      const ssize_t n = nghttp2_session_mem_send(session_, &data);
      if (n <= 0) break;
      out.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
    }
    if (out.empty()) return;
    error_code ec;
    net::write(stream_, net::buffer(out), ec);
    if (ec) closed = true;
  }
  static H2Client& Of(void* p) { return *static_cast<H2Client*>(p); }
  static int OnHeader(nghttp2_session*, const nghttp2_frame* f,
                      const uint8_t* name, size_t namelen, const uint8_t* value,
                      size_t valuelen, uint8_t, void* p) {
    Response& r = Of(p).responses[f->hd.stream_id];
    std::string n(reinterpret_cast<const char*>(name), namelen);
    std::string v(reinterpret_cast<const char*>(value), valuelen);
    if (n == ":status") r.status = std::stoi(v);
    r.headers[n] = v;
    return 0;
  }
  static int OnData(nghttp2_session*, uint8_t, int32_t id, const uint8_t* data,
                    size_t len, void* p) {
    Of(p).responses[id].body.append(reinterpret_cast<const char*>(data), len);
    return 0;
  }
  static int OnClose(nghttp2_session*, int32_t id, uint32_t error, void* p) {
    Response& r = Of(p).responses[id];
    r.closed = true;
    r.error = error;
    return 0;
  }
  static int OnFrame(nghttp2_session*, const nghttp2_frame* f, void* p) {
    if (f->hd.type == NGHTTP2_GOAWAY) {
      Of(p).goaway = true;
      Of(p).goaway_error = f->goaway.error_code;
    }
    return 0;
  }

  net::io_context io_;
  net::ssl::context ctx_;
  net::ssl::stream<tcp::socket> stream_;
  std::string alpn_;
  nghttp2_session* session_ = nullptr;
  std::array<uint8_t, 16384> in_{};
  bool reading_ = false;
  std::map<int32_t, std::shared_ptr<std::pair<std::string, size_t>>> bodies_;
};

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
  out.append(" ").append(req.Header("host"));
  if (req.body_withheld) out.append(" withheld");
  w.Send(200, {{"Content-Type", "text/plain"}, {"Connection", "close"}}, out);
}

constexpr absl::Duration kWait = absl::Seconds(20);

TEST(Http2ServerTest, NegotiatesH2AndServesRequests) {
  auto server = HttpServer::Start(TlsOptions(), Echo);
  ASSERT_TRUE(server.ok()) << server.status();
  H2Client c((*server)->port());
  ASSERT_EQ(c.alpn(), "h2");
  const int32_t get = c.Submit("GET", "/a%2Fb?labelSelector=app%3Dx&sp=a+b", "",
                               {{"x-test", "hdr"}});
  const int32_t post = c.Submit("POST", "/p", "payload");
  const int32_t stream = c.Submit("GET", "/stream");
  ASSERT_TRUE(c.RunUntil(
      [&] { return c.Finished(get) && c.Finished(post) && c.Finished(stream); },
      kWait));
  EXPECT_EQ(c.responses[get].status, 200);
  EXPECT_EQ(c.responses[get].body,
            "GET /a/b labelSelector=app=x sp=a b [] hdr 127.0.0.1");
  EXPECT_EQ(c.responses[get].headers["content-type"], "text/plain");
  EXPECT_FALSE(c.responses[get].headers.contains("connection"));
  EXPECT_EQ(c.responses[post].body, "POST /p [payload]  127.0.0.1");
  EXPECT_EQ(c.responses[stream].body, "one\ntwo\nthree\n");
  EXPECT_EQ(nghttp2_session_get_remote_settings(
                c.session(), NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS),
            100u);
}

TEST(Http2ServerTest, ClientsWithoutH2GetHttp11) {
  auto server = HttpServer::Start(TlsOptions(), Echo);
  ASSERT_TRUE(server.ok()) << server.status();
  H2Client c((*server)->port(), /*offer_h2=*/false);
  EXPECT_EQ(c.alpn(), "http/1.1");
  HttpServerOptions no_h2 = TlsOptions();
  no_h2.http2 = false;
  auto plain = HttpServer::Start(no_h2, Echo);
  ASSERT_TRUE(plain.ok()) << plain.status();
  H2Client d((*plain)->port());
  EXPECT_EQ(d.alpn(), "http/1.1");
}

// Every stream's handler waits until all of them run at once: they can
// only if the connection multiplexes them.
TEST(Http2ServerTest, MultiplexesStreamsUpToTheLimit) {
  absl::Mutex mu;
  int running = 0;
  auto server = HttpServer::Start(
      TlsOptions(), [&](const HttpRequest&, ResponseWriter& w) {
        {
          absl::MutexLock lock(&mu);
          ++running;
          mu.AwaitWithTimeout(absl::Condition(
                                  +[](int* r) { return *r >= 100; }, &running),
                              absl::Seconds(20));
        }
        w.Send(200, {}, "ok");
      });
  ASSERT_TRUE(server.ok()) << server.status();
  H2Client c((*server)->port());
  std::vector<int32_t> ids;
  ids.reserve(100);
  for (int i = 0; i < 100; ++i) ids.push_back(c.Submit("GET", "/"));
  ASSERT_TRUE(c.RunUntil(
      [&] {
        for (int32_t id : ids)
          if (!c.Finished(id)) return false;
        return true;
      },
      kWait));
  for (int32_t id : ids) EXPECT_EQ(c.responses[id].body, "ok");
  absl::MutexLock lock(&mu);
  EXPECT_EQ(running, 100);
}

TEST(Http2ServerTest, DetachedStreamsAndResetsReachTheHandler) {
  std::atomic<bool> saw_gone{false};
  std::vector<std::thread> writers;
  absl::Mutex mu;
  auto server = HttpServer::Start(
      TlsOptions(), [&](const HttpRequest& req, ResponseWriter& w) {
        w.StartStream(200, {{"Content-Type", "text/plain"}});
        if (req.path == "/until-gone") {
          w.WriteChunk("first\n");
          for (int i = 0; i < 2000 && !w.ClientGone(); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
          }
          saw_gone = w.ClientGone();
          return;
        }
        std::shared_ptr<DetachedStream> s = w.Detach();
        ASSERT_NE(s, nullptr);
        absl::MutexLock lock(&mu);
        writers.emplace_back([s] {
          for (const char* c : {"a\n", "b\n", "c\n"}) s->Write(c);
          s->Close();
        });
      });
  ASSERT_TRUE(server.ok()) << server.status();
  H2Client c((*server)->port());
  const int32_t detached = c.Submit("GET", "/detached");
  const int32_t gone = c.Submit("GET", "/until-gone");
  ASSERT_TRUE(c.RunUntil(
      [&] {
        return c.Finished(detached) && c.responses[gone].body == "first\n";
      },
      kWait));
  EXPECT_EQ(c.responses[detached].body, "a\nb\nc\n");
  EXPECT_EQ(c.responses[detached].error, NGHTTP2_NO_ERROR);
  c.Reset(gone);
  ASSERT_TRUE(c.RunUntil([&] { return saw_gone.load(); }, kWait));
  absl::MutexLock lock(&mu);
  for (std::thread& t : writers) t.join();
}

TEST(Http2ServerTest, RefusesLargeHeadersAndBodiesAndWithholdsUnsanctioned) {
  HttpServerOptions o = TlsOptions();
  o.max_header_bytes = 4096;
  o.max_body_bytes = 100 * 1024;
  o.too_large_body = "too large";
  o.may_read_body = [](const HttpRequest& req) {
    return req.Header("authorization") == "ok";
  };
  auto server = HttpServer::Start(o, Echo);
  ASSERT_TRUE(server.ok()) << server.status();
  H2Client c((*server)->port());
  const int32_t big_header =
      c.Submit("GET", "/", "", {{"x-big", std::string(8000, 'x')}});
  // Too large: by its content-length, before any of it is read; or as it
  // arrives.
  const int32_t declared = c.Submit("POST", "/", std::string(200 * 1024, 'd'),
                                    {{"content-length", "204800"}});
  const int32_t big_body = c.Submit("POST", "/", std::string(200 * 1024, 'b'),
                                    {{"authorization", "ok"}});
  const int32_t withheld = c.Submit("POST", "/", std::string(70 * 1024, 'w'));
  ASSERT_TRUE(c.RunUntil(
      [&] {
        return c.responses[big_header].status != 0 &&
               c.responses[big_body].status != 0 &&
               c.responses[declared].status != 0 &&
               c.responses[withheld].status != 0;
      },
      kWait));
  EXPECT_EQ(c.responses[big_header].status, 431);
  EXPECT_EQ(c.responses[declared].status, 413);
  EXPECT_EQ(c.responses[big_body].status, 413);
  EXPECT_EQ(c.responses[big_body].body, "too large");
  EXPECT_EQ(c.responses[withheld].body, "POST / []  127.0.0.1 withheld");
  // Once the refused ones are done (a connection holds one request of the
  // largest size still arriving at a time), a sanctioned large body.
  const int32_t allowed = c.Submit("POST", "/", std::string(70 * 1024, 'a'),
                                   {{"authorization", "ok"}});
  ASSERT_TRUE(c.RunUntil([&] { return c.Finished(allowed); }, kWait));
  EXPECT_EQ(c.responses[allowed].body.size(),
            std::string("POST / []  127.0.0.1").size() + 70 * 1024);
  // The connection still serves.
  const int32_t after = c.Submit("GET", "/after");
  ASSERT_TRUE(c.RunUntil([&] { return c.Finished(after); }, kWait));
  EXPECT_EQ(c.responses[after].status, 200);
}

// Requests still arriving hold at most one request of the largest size
// per connection: streams past it are refused, and the connection serves
// on.
TEST(Http2ServerTest, RequestsStillArrivingAreBoundedPerConnection) {
  HttpServerOptions o = TlsOptions();
  o.max_header_bytes = 4096;
  o.max_body_bytes = 8192;  // 12 KiB held at most: three of these
  auto server = HttpServer::Start(o, Echo);
  ASSERT_TRUE(server.ok()) << server.status();
  H2Client c((*server)->port());
  std::vector<int32_t> pending;
  pending.reserve(10);
  for (int i = 0; i < 10; ++i) {
    pending.push_back(
        c.OpenWithoutBody("/", {{"x-pad", std::string(3000, 'p')}}));
  }
  const int32_t after = c.Submit("GET", "/after");
  ASSERT_TRUE(c.RunUntil([&] { return c.Finished(after); }, kWait));
  EXPECT_EQ(c.responses[after].status, 200);
  int refused = 0;
  for (int32_t id : pending) {
    if (c.responses[id].closed &&
        c.responses[id].error == NGHTTP2_REFUSED_STREAM) {
      ++refused;
    }
  }
  EXPECT_EQ(refused, 7);
}

// Requests waiting for a handler thread stay held by their connection:
// with every thread busy, the connection takes as many waiting requests
// as the bound allows and refuses the rest, rather than queueing them all.
TEST(Http2ServerTest, RequestsWaitingForAThreadCountAgainstTheBound) {
  HttpServerOptions o = TlsOptions();
  o.max_header_bytes = 4096;
  o.max_body_bytes = 8192;  // 12 KiB held at most: three of those below
  o.max_handler_threads = 4;
  absl::Mutex mu;
  bool release = false;
  auto server =
      HttpServer::Start(o, [&](const HttpRequest&, ResponseWriter& w) {
        {
          absl::MutexLock lock(&mu);
          mu.AwaitWithTimeout(absl::Condition(&release), absl::Seconds(30));
        }
        w.Send(200, {}, "ok");
      });
  ASSERT_TRUE(server.ok()) << server.status();
  H2Client c((*server)->port());
  std::vector<int32_t> busy, waiting;
  for (int i = 0; i < 4; ++i) busy.push_back(c.Submit("GET", "/busy"));
  c.RunUntil([] { return false; }, absl::Milliseconds(300));
  for (int i = 0; i < 10; ++i) {
    waiting.push_back(
        c.Submit("GET", "/wait", "", {{"x-pad", std::string(3000, 'p')}}));
  }
  ASSERT_TRUE(c.RunUntil(
      [&] {
        int closed = 0;
        for (int32_t id : waiting) closed += c.responses[id].closed ? 1 : 0;
        return closed == 7;
      },
      kWait));
  {
    absl::MutexLock lock(&mu);
    release = true;
  }
  ASSERT_TRUE(c.RunUntil(
      [&] {
        for (int32_t id : busy)
          if (!c.Finished(id)) return false;
        for (int32_t id : waiting)
          if (!c.Finished(id)) return false;
        return true;
      },
      kWait));
  int refused = 0, served = 0;
  for (int32_t id : waiting) {
    if (c.responses[id].error == NGHTTP2_REFUSED_STREAM) ++refused;
    if (c.responses[id].status == 200) ++served;
  }
  EXPECT_EQ(refused, 7);
  EXPECT_EQ(served, 3);
}

// CVE-2023-44487: streams opened and reset at once. Handlers of reset
// streams still count, so no more than the stream limit ever run for one
// connection, and the server goes on answering others.
TEST(Http2ServerTest, RapidResetStartsNoMoreHandlersThanTheStreamLimit) {
  absl::Mutex mu;
  int running = 0, most = 0, started = 0;
  bool release = false;
  auto server = HttpServer::Start(
      TlsOptions(), [&](const HttpRequest& req, ResponseWriter& w) {
        if (req.path == "/free") {
          w.Send(200, {}, "free");
          return;
        }
        absl::MutexLock lock(&mu);
        ++started;
        most = std::max(most, ++running);
        mu.AwaitWithTimeout(absl::Condition(&release), absl::Seconds(30));
        --running;
      });
  ASSERT_TRUE(server.ok()) << server.status();
  H2Client attacker((*server)->port());
  int sent = 0;
  for (int round = 0; round < 40 && !attacker.closed; ++round) {
    for (int i = 0; i < 50; ++i, ++sent) {
      attacker.Reset(attacker.Submit("GET", "/slow"));
    }
    attacker.RunUntil([] { return false; }, absl::Milliseconds(20));
  }
  {
    absl::MutexLock lock(&mu);
    EXPECT_LE(most, 100) << "handlers at once for one connection";
    EXPECT_LE(started, 100) << "of " << sent << " streams opened and reset";
  }
  H2Client other((*server)->port());
  const int32_t id = other.Submit("GET", "/free");
  ASSERT_TRUE(other.RunUntil([&] { return other.Finished(id); }, kWait));
  EXPECT_EQ(other.responses[id].body, "free");
  absl::MutexLock lock(&mu);
  release = true;
}

std::string Frame(uint8_t type, uint8_t flags, uint32_t stream,
                  const std::string& payload) {
  std::string f;
  f.push_back(static_cast<char>((payload.size() >> 16) & 0xff));
  f.push_back(static_cast<char>((payload.size() >> 8) & 0xff));
  f.push_back(static_cast<char>(payload.size() & 0xff));
  f.push_back(static_cast<char>(type));
  f.push_back(static_cast<char>(flags));
  for (int shift = 24; shift >= 0; shift -= 8) {
    f.push_back(static_cast<char>((stream >> shift) & 0xff));
  }
  return f + payload;
}

// A HEADERS frame followed by CONTINUATION frames that never end the
// block: the connection ends after a few of them.
TEST(Http2ServerTest, ContinuationFloodEndsTheConnection) {
  std::atomic<int> handled{0};
  auto server = HttpServer::Start(TlsOptions(),
                                  [&](const HttpRequest&, ResponseWriter& w) {
                                    ++handled;
                                    w.Send(200, {}, "ok");
                                  });
  ASSERT_TRUE(server.ok()) << server.status();
  H2Client c((*server)->port());
  ASSERT_TRUE(c.RunUntil([] { return false; }, absl::Milliseconds(100)) ==
              false);
  // ":method: GET" (indexed 2), ":path: /" (4), ":scheme: https" (7).
  std::string flood = Frame(0x1, 0x0, 1, std::string("\x82\x84\x87", 3));
  // Each fragment: a literal header without indexing, "x-a: b".
  const std::string field(
      "\x00\x03x-a\x01"
      "b",
      7);
  for (int i = 0; i < 10000; ++i) flood += Frame(0x9, 0x0, 1, field);
  c.SendRaw(flood);
  ASSERT_TRUE(c.RunUntil([&] { return c.closed; }, kWait));
  // nghttp2 answers a ninth CONTINUATION frame with GOAWAY.
  EXPECT_TRUE(c.goaway);
  EXPECT_NE(c.goaway_error, NGHTTP2_NO_ERROR);
  EXPECT_EQ(handled.load(), 0);
  H2Client other((*server)->port());
  const int32_t id = other.Submit("GET", "/");
  ASSERT_TRUE(other.RunUntil([&] { return other.Finished(id); }, kWait));
  EXPECT_EQ(other.responses[id].body, "ok");
}

TEST(Http2ServerTest, ConnectionWithoutStreamsClosesAfterTheHeaderTimeout) {
  HttpServerOptions o = TlsOptions();
  o.header_timeout = std::chrono::seconds(1);
  auto server = HttpServer::Start(o, Echo);
  ASSERT_TRUE(server.ok()) << server.status();
  H2Client c((*server)->port());
  ASSERT_TRUE(c.RunUntil([&] { return c.closed; }, absl::Seconds(10)));
  EXPECT_TRUE(c.goaway);
  EXPECT_EQ(c.goaway_error, NGHTTP2_NO_ERROR);
}

TEST(Http2ServerTest, StopEndsHttp2ConnectionsAndDetachedStreams) {
  std::shared_ptr<DetachedStream> held;
  absl::Mutex mu;
  auto server = HttpServer::Start(TlsOptions(),
                                  [&](const HttpRequest&, ResponseWriter& w) {
                                    w.StartStream(200, {});
                                    w.WriteChunk("started\n");
                                    absl::MutexLock lock(&mu);
                                    held = w.Detach();
                                  });
  ASSERT_TRUE(server.ok()) << server.status();
  H2Client c((*server)->port());
  const int32_t id = c.Submit("GET", "/watch");
  ASSERT_TRUE(
      c.RunUntil([&] { return c.responses[id].body == "started\n"; }, kWait));
  (*server)->Stop();
  absl::MutexLock lock(&mu);
  ASSERT_NE(held, nullptr);
  EXPECT_TRUE(held->Ended());
  EXPECT_FALSE(held->Write("late"));
}

}  // namespace
}  // namespace draplane::http
