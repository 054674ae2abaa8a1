#include "http/http_server.h"

#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "common/str_cat.h"
#include "http/internal/handler_pool.h"
#include "http/internal/http2_connection.h"
#include "http/internal/request_target.h"
#include "logging/log.h"
#include "openssl/ssl.h"
#include "openssl/x509.h"

namespace draplane::http {
namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace beast_http = boost::beast::http;
using tcp = net::ip::tcp;

// The UTF-8 values of `nid` in `name`, in order.
std::vector<std::string> NameEntries(X509_NAME* name, int nid) {
  std::vector<std::string> out;
  for (int i = X509_NAME_get_index_by_NID(name, nid, -1); i >= 0;
       i = X509_NAME_get_index_by_NID(name, nid, i)) {
    unsigned char* utf8 = nullptr;
    int n = ASN1_STRING_to_UTF8(
        &utf8, X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i)));
    if (n < 0) continue;
    out.emplace_back(reinterpret_cast<char*>(utf8), static_cast<size_t>(n));
    OPENSSL_free(utf8);
  }
  return out;
}

// What the client of a finished handshake presented, nullopt when none.
std::optional<ClientCertificate> PeerCertificate(SSL* ssl) {
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      SSL_get1_peer_certificate(ssl), &X509_free);
  if (cert == nullptr) return std::nullopt;
  ClientCertificate c;
  const long result =
      SSL_get_verify_result(ssl);  // NOLINT(google-runtime-int): OpenSSL's type
  c.verified = result == X509_V_OK;
  if (!c.verified) c.error = X509_verify_cert_error_string(result);
  X509_NAME* subject = X509_get_subject_name(cert.get());
  std::vector<std::string> cn = NameEntries(subject, NID_commonName);
  if (!cn.empty()) c.common_name = cn.front();
  c.organizations = NameEntries(subject, NID_organizationName);
  return c;
}

// OpenSSL's ALPN choice: the server's first protocol (`arg`, wire form)
// that the client offers; no ALPN when none is.
int SelectAlpn(SSL*, const unsigned char** out, unsigned char* outlen,
               const unsigned char* in, unsigned inlen, void* arg) {
  const auto* offered = static_cast<const std::string*>(arg);
  unsigned char* chosen = nullptr;
  if (SSL_select_next_proto(
          &chosen, outlen,
          reinterpret_cast<const unsigned char*>(offered->data()),
          static_cast<unsigned>(offered->size()), in,
          inlen) != OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_NOACK;
  }
  *out = chosen;
  return SSL_TLSEXT_ERR_OK;
}

// Raises the soft limit of open files to the hard one, as Go programs do
// at start; returns the soft limit in force.
size_t RaiseFileLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  if (limit.rlim_cur == RLIM_INFINITY) return size_t{1} << 20;
  return static_cast<size_t>(limit.rlim_cur);
}

// Handler threads a server may start: half the process limit
// (RLIMIT_NPROC, which counts every thread of the user), so that a burst
// of requests leaves threads for the rest of the process and for other
// processes; unlimited without one.
size_t ThreadsAllowed() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NPROC, &limit) != 0 ||
      limit.rlim_cur == RLIM_INFINITY) {
    return SIZE_MAX;
  }
  return std::max<size_t>(1, static_cast<size_t>(limit.rlim_cur) / 2);
}

// Connections one server may hold with `open_files` descriptors: an
// eighth of them (64 at least) is kept for the store, logs, outgoing
// connections and the other servers of the process.
size_t DefaultMaxConnections(size_t open_files) {
  const size_t reserve = std::max<size_t>(64, open_files / 8);
  return open_files > 2 * reserve ? open_files - reserve : open_files / 2;
}

// Bodies longer than this (or of unknown length) are read only after
// HttpServerOptions::may_read_body agrees; shorter ones arrive with their
// header anyway.
constexpr uint64_t kBodyCheckedAbove = 64 * 1024;
// How long a handler's thread waits for the next request on its
// connection before handing the connection back to the event loop.
constexpr int kLingerMilliseconds = 1;
// How long a TLS connection being closed waits for the client's
// close_notify.
constexpr std::chrono::seconds kTlsShutdownTimeout{1};

class HttpServerImpl;

// One client connection. Its reads run on its strand of the event loop; a
// request's handler runs on a pool thread and writes the response itself
// (Write: blocking writes, nothing else uses the stream meanwhile), timed
// by the server's sweep. The descriptor stays open until the object is
// destroyed, so that shutting it down from another thread (deadline,
// sweep, eviction, stop, Abort) never touches a reused descriptor.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // `ssl`: the TLS context, null for plain HTTP.
  Connection(HttpServerImpl& server, tcp::socket socket, ssl::context* ssl,
             std::string remote_address);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Begins with the TLS handshake or the first request. On the strand.
  void Start();
  int fd() const { return fd_; }
  net::any_io_executor executor() { return Socket().get_executor(); }

  // Runs `op(stream, ec)`, a blocking write, from the handler's thread;
  // the server's sweep shuts the connection down when it takes longer
  // than the write timeout.
  template <class Op>
  beast::error_code Write(Op op) {
    write_since_.store(
        std::chrono::steady_clock::now().time_since_epoch().count());
    beast::error_code ec;
    WithStream([&op, &ec](auto& stream) { op(stream, ec); });
    write_since_.store(0);
    return ec;
  }
  // When the write in progress began (steady clock ticks), 0 when none.
  int64_t write_since() const { return write_since_.load(); }

  // For a detached stream, on the strand: writes `data` (which must live
  // until `done` runs) in full within the write timeout, then calls
  // done(ec).
  void AsyncWrite(const std::string& data,
                  std::function<void(beast::error_code)> done);
  // On the strand: calls `done` once the client sends anything or closes,
  // or the connection is shut down.
  template <class Done>
  void AsyncWaitForClient(Done done) {
    Socket().async_wait(tcp::socket::wait_read, std::move(done));
  }
  // On the strand: closes the connection (TLS close_notify first).
  void Close();

 private:
  tcp::socket& Socket() { return tls_ ? tls_->next_layer() : *plain_; }
  template <class F>
  void WithStream(F&& f) {
    if (tls_) {
      f(*tls_);
    } else {
      f(*plain_);
    }
  }
  void Handshake();
  // After a handshake that chose "h2": the connection speaks HTTP/2 until
  // it closes.
  void ServeHttp2();
  // A parser for the next request, with the server's limits.
  void NewParser();
  void ReadHeader(bool first);
  void OnHeader(beast::error_code ec);
  void ReadBody();
  HttpRequest Request() const;
  void Dispatch(bool body_withheld);
  // On a pool thread: serves `req`, and the requests that follow it at
  // once.
  void Serve(const HttpRequest& first, unsigned first_version,
             bool first_keep_alive);
  enum class NextRequest {
    kServeHere,    // read in full into parser_
    kNone,         // nothing came: the event loop waits for it
    kToEventLoop,  // a header read (or failed, linger_error_) that
                   // OnHeader must finish
  };
  // Reads the next request on the handler's thread if it comes within
  // kLingerMilliseconds.
  NextRequest ReadNextHere();
  // Answers without a handler, then closes.
  void Refuse(int status, const HttpHeaders& headers, std::string body);
  // Shuts the connection down unless the next CancelDeadline() comes
  // first.
  void Deadline(std::chrono::seconds d);
  void CancelDeadline();

  HttpServerImpl& server_;
  std::optional<tcp::socket> plain_;
  // Made when the client's first bytes arrive (a TLS stream holds some
  // 40 KiB of buffers: silent connections should not).
  std::optional<ssl::stream<tcp::socket>> tls_;
  ssl::context* const ssl_;
  const int fd_;
  const std::string remote_address_;
  net::steady_timer timer_;
  uint64_t deadline_generation_ = 0;
  bool shutting_down_ = false;
  std::atomic<int64_t> write_since_{0};
  beast::error_code linger_error_;
  std::optional<ClientCertificate> certificate_;
  beast::flat_buffer buffer_;
  std::optional<beast_http::request_parser<beast_http::string_body>> parser_;
};

// A stream detached from its handler: chunks queue under mu_ and are
// written on the connection's strand, as many as are queued at once; the
// connection is released when the stream ends, so that the server's Stop
// (which shuts every connection down) waits for no stream's owner.
class ConnectionStream : public DetachedStream,
                         public std::enable_shared_from_this<ConnectionStream> {
 public:
  explicit ConnectionStream(std::shared_ptr<Connection> connection)
      : connection_(std::move(connection)),
        fd_(connection_->fd()),
        executor_(connection_->executor()) {}

  // On the strand, once: watches for the client.
  void Begin(bool stopping) {
    if (stopping) {
      End();
      return;
    }
    connection_->AsyncWaitForClient(
        [self = shared_from_this()](beast::error_code) { self->End(); });
  }

  bool Write(std::string data) override {
    absl::MutexLock lock(&mu_);
    if (ended_ || closing_) return false;
    if (data.empty()) return true;
    std::array<char, 20> size{};
    const int n =
        std::snprintf(size.data(), size.size(), "%zx\r\n", data.size());
    StrAppend(&queued_, std::string_view(size.data(), n), data, "\r\n");
    SchedulePump();
    return true;
  }

  size_t QueuedBytes() const override {
    absl::MutexLock lock(&mu_);
    return queued_.size() + writing_bytes_;
  }

  bool Ended() const override {
    absl::MutexLock lock(&mu_);
    return ended_;
  }

  void Close() override {
    absl::MutexLock lock(&mu_);
    if (ended_ || closing_) return;
    closing_ = true;
    SchedulePump();
  }

  void Abort() override {
    absl::MutexLock lock(&mu_);
    // The descriptor stays open until ended_ is set (End, under mu_).
    if (!ended_) ::shutdown(fd_, SHUT_RDWR);
  }

  void OnDrainOrEnd(std::function<void()> f) override {
    {
      absl::MutexLock lock(&mu_);
      if (!ended_) {
        notify_ = std::make_shared<std::function<void()>>(std::move(f));
        return;
      }
    }
    f();
  }

 private:
  void SchedulePump() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (pumping_) return;
    pumping_ = true;
    net::post(*executor_, [self = shared_from_this()] { self->Pump(); });
  }

  // On the strand: writes what is queued, then what was queued meanwhile;
  // the last chunk once closing and nothing is left.
  void Pump() {
    std::shared_ptr<std::function<void()>> drained;
    {
      absl::MutexLock lock(&mu_);
      if (ended_) return;
      writing_.clear();
      writing_.swap(queued_);
      writing_bytes_ = writing_.size();
      if (writing_.empty()) {
        if (!closing_) {
          pumping_ = false;
          drained = notify_;
          // An idle stream keeps no buffers.
          std::string().swap(queued_);
          std::string().swap(writing_);
        } else {
          writing_ = "0\r\n\r\n";
          last_ = true;
        }
      }
    }
    if (drained != nullptr) {
      (*drained)();
      return;
    }
    if (!last_ && writing_.empty()) return;
    write_in_flight_ = true;
    connection_->AsyncWrite(writing_,
                            [self = shared_from_this()](beast::error_code ec) {
                              self->write_in_flight_ = false;
                              if (ec || self->last_) {
                                self->End();
                                return;
                              }
                              self->Pump();
                            });
  }

  // On the strand: the stream is over; the connection closes.
  void End() {
    std::shared_ptr<std::function<void()>> on_end;
    {
      absl::MutexLock lock(&mu_);
      if (ended_) return;
      ended_ = true;
      queued_.clear();
      writing_bytes_ = 0;
      on_end = std::move(notify_);
      // The strand must not outlive the server's event loop.
      executor_.reset();
    }
    if (write_in_flight_) {
      // Nothing else (a TLS close_notify) may be written meanwhile: the
      // write fails once the connection is shut down under it, and its
      // handler lets the connection go.
      ::shutdown(fd_, SHUT_RDWR);
    } else {
      writing_.clear();
      connection_->Close();
    }
    connection_.reset();
    if (on_end != nullptr) (*on_end)();
  }

  // Touched on the strand only (connection_ is null once ended).
  std::shared_ptr<Connection> connection_;
  std::string writing_;
  bool write_in_flight_ = false;
  bool last_ = false;
  const int fd_;
  mutable absl::Mutex mu_;
  // The connection's strand until the stream ends (the server's Stop
  // waits for every stream to end before its event loop goes).
  std::optional<net::any_io_executor> executor_ ABSL_GUARDED_BY(mu_);
  std::string queued_ ABSL_GUARDED_BY(mu_);
  size_t writing_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  bool pumping_ ABSL_GUARDED_BY(mu_) = false;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  // Shared, so that it runs outside mu_.
  std::shared_ptr<std::function<void()>> notify_ ABSL_GUARDED_BY(mu_);
};

// Writes one request's response from its handler's thread.
class ConnectionWriter : public ResponseWriter {
 public:
  ConnectionWriter(Connection& connection, unsigned version, bool keep_alive,
                   const std::atomic<bool>& stopping)
      : connection_(connection),
        version_(version),
        keep_alive_(keep_alive),
        stopping_(stopping) {}

  void Send(int status, const HttpHeaders& headers, std::string body) override {
    if (answered_) return;
    answered_ = true;
    beast_http::response<beast_http::string_body> res{
        static_cast<beast_http::status>(status), version_};
    for (const auto& [k, v] : headers) res.set(k, v);
    res.keep_alive(keep_alive_);
    res.body() = std::move(body);
    res.prepare_payload();
    Check(connection_.Write([&res](auto& stream, beast::error_code& ec) {
      beast_http::write(stream, res, ec);
    }));
  }

  bool StartStream(int status, const HttpHeaders& headers) override {
    if (answered_) return false;
    answered_ = true;
    streamed_ = true;
    beast_http::response<beast_http::empty_body> res{
        static_cast<beast_http::status>(status), version_};
    for (const auto& [k, v] : headers) res.set(k, v);
    res.keep_alive(false);
    res.chunked(true);
    beast_http::response_serializer<beast_http::empty_body> sr{res};
    Check(connection_.Write([&sr](auto& stream, beast::error_code& ec) {
      beast_http::write_header(stream, sr, ec);
    }));
    return !failed_;
  }

  bool WriteChunk(std::string_view data) override {
    if (!streamed_ || failed_) return false;
    if (data.empty()) return true;
    auto chunk = beast_http::make_chunk(net::buffer(data.data(), data.size()));
    Check(connection_.Write([&chunk](auto& stream, beast::error_code& ec) {
      net::write(stream, chunk, ec);
    }));
    return !failed_;
  }

  bool Stopping() const override { return stopping_.load(); }

  bool ClientGone() const override {
    pollfd p{};
    p.fd = connection_.fd();
    p.events = POLLRDHUP;
    return ::poll(&p, 1, 0) > 0 &&
           (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
  }

  void Abort() override { ::shutdown(connection_.fd(), SHUT_RDWR); }

  std::shared_ptr<DetachedStream> Detach() override {
    if (!streamed_ || failed_ || detached_) return nullptr;
    detached_ = true;
    auto stream =
        std::make_shared<ConnectionStream>(connection_.shared_from_this());
    net::post(connection_.executor(), [stream, &stopping = stopping_] {
      stream->Begin(stopping.load());
    });
    return stream;
  }

  void Finish() {
    if (detached_) return;
    if (!answered_) {
      Send(500, {{"Content-Type", "text/plain"}}, "no response\n");
    } else if (streamed_ && !failed_) {
      auto last = beast_http::make_chunk_last();
      Check(connection_.Write([&last](auto& stream, beast::error_code& ec) {
        net::write(stream, last, ec);
      }));
    }
  }
  bool streamed() const { return streamed_; }
  bool failed() const { return failed_; }
  bool detached() const { return detached_; }

 private:
  void Check(beast::error_code ec) {
    if (ec) failed_ = true;
  }

  Connection& connection_;
  unsigned version_;
  bool keep_alive_;
  const std::atomic<bool>& stopping_;
  bool answered_ = false;
  bool streamed_ = false;
  bool failed_ = false;
  bool detached_ = false;
};

class HttpServerImpl : public HttpServer {
 public:
  HttpServerImpl(HttpServerOptions options, HttpHandler handler)
      : options_(std::move(options)),
        handler_(std::move(handler)),
        acceptor_(io_),
        accept_backoff_(io_),
        sweep_(io_),
        ssl_(ssl::context::tls_server),
        pool_(std::make_unique<internal::HandlerPool>(
            std::min(options_.max_handler_threads, ThreadsAllowed()))) {}

  ~HttpServerImpl() override { Stop(); }

  absl::Status Init() {
    const size_t open_files = RaiseFileLimit();
    max_connections_ = options_.max_connections != 0
                           ? options_.max_connections
                           : DefaultMaxConnections(open_files);
    if (auto s = Listen(); !s.ok()) return s;
    if (auto s = SetUpTls(); !s.ok()) return s;
    Accept();
    Sweep();
    try {
      io_thread_ = std::thread([this] { RunEventLoop(); });
    } catch (const std::system_error& e) {
      return absl::ResourceExhaustedError(
          StrCat("cannot start the HTTP server's thread: ", e.what()));
    }
    return absl::OkStatus();
  }

  uint16_t port() const override { return port_; }

  void Stop() override {
    absl::MutexLock stop_lock(&stop_mu_);
    if (stopped_) return;
    stopped_ = true;
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
      for (const auto& [fd, c] : connected_) ::shutdown(fd, SHUT_RDWR);
    }
    net::post(io_, [this] {
      beast::error_code ec;
      acceptor_.close(ec);
      accept_backoff_.cancel();
      sweep_.cancel();
    });
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](size_t* n) { return *n == 0; }, &connections_));
    }
    // The event loop ends once what is queued has run (an accepted
    // connection still queued is closed then) and nothing is left.
    work_.reset();
    if (io_thread_.joinable()) io_thread_.join();
    pool_.reset();  // joins the handler threads
  }

  const HttpServerOptions& options() const { return options_; }
  const HttpHandler& handler() const { return handler_; }
  const std::atomic<bool>& stopping() const { return stopping_; }

  // Runs `task` on a handler thread; false when none can be had.
  bool RunHandler(std::function<void()> task) {
    return pool_->Run(std::move(task));
  }
  // As RunHandler, but `task` waits for a busy handler thread when no
  // other can be had (at most max_handler_threads tasks wait): for
  // HTTP/2 streams, which a client opens by the hundred at once.
  bool RunOrQueueHandler(std::function<void()> task) {
    return pool_->RunOrQueue(std::move(task), options_.max_handler_threads);
  }

  // The connection waits for its client (a handshake, a request): it may
  // be closed for a new connection when the server is full.
  void MarkIdle(Connection& c) {
    absl::MutexLock lock(&mu_);
    if (idle_index_.contains(&c)) return;
    idle_.push_back(c.weak_from_this());
    idle_index_[&c] = std::prev(idle_.end());
  }
  void MarkBusy(const Connection& c) {
    absl::MutexLock lock(&mu_);
    ForgetIdle(c);
  }
  // From the connection's destructor, before its descriptor closes.
  void Forget(const Connection& c) {
    absl::MutexLock lock(&mu_);
    ForgetIdle(c);
    connected_.erase(c.fd());
  }

 private:
  // The connection's deleter: counts it gone once it is destroyed
  // entirely (its socket and timer deregistered from the event loop).
  struct Ended {
    HttpServerImpl* server;
    void operator()(Connection* c) const {
      delete c;
      absl::MutexLock lock(&server->mu_);
      --server->connections_;
    }
  };

  absl::Status Listen() {
    beast::error_code ec;
    auto address = net::ip::make_address(options_.address, ec);
    if (ec) {
      return absl::InvalidArgumentError(StrCat(
          "invalid listen address ", options_.address, ": ", ec.message()));
    }
    tcp::endpoint endpoint{address, options_.port};
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
      return absl::UnavailableError(StrCat("cannot listen on ",
                                           options_.address, ":", options_.port,
                                           ": ", ec.message()));
    }
    port_ = acceptor_.local_endpoint().port();
    return absl::OkStatus();
  }

  absl::Status SetUpTls() {
    tls_ = !options_.tls_cert_pem.empty();
    if (!tls_) return absl::OkStatus();
    beast::error_code ec;
    ssl_.set_options(ssl::context::default_workarounds |
                     ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                     ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    ssl_.use_certificate_chain(net::buffer(options_.tls_cert_pem), ec);
    if (!ec) {
      ssl_.use_private_key(net::buffer(options_.tls_key_pem), ssl::context::pem,
                           ec);
    }
    if (ec) {
      return absl::InvalidArgumentError(
          StrCat("invalid TLS certificate or key: ", ec.message()));
    }
    alpn_ = internal::AlpnProtocols(options_.http2);
    SSL_CTX_set_alpn_select_cb(ssl_.native_handle(), &SelectAlpn, &alpn_);
    if (!options_.tls_client_ca_pem.empty()) {
      ssl_.add_certificate_authority(net::buffer(options_.tls_client_ca_pem),
                                     ec);
      if (ec) {
        return absl::InvalidArgumentError(
            StrCat("invalid client CA bundle: ", ec.message()));
      }
      // Ask, do not require; the verdict is read after the handshake.
      ssl_.set_verify_mode(ssl::verify_peer);
      ssl_.set_verify_callback([](bool, ssl::verify_context&) { return true; });
    }
    return absl::OkStatus();
  }

  void Accept() {
    acceptor_.async_accept(net::make_strand(io_), [this](beast::error_code ec,
                                                         tcp::socket socket) {
      if (stopping_ || ec == net::error::operation_aborted) return;
      if (ec) {
        // Out of descriptors, say: try again a little later rather
        // than spin, as Go's http.Server does.
        accept_backoff_.expires_after(std::chrono::milliseconds(50));
        accept_backoff_.async_wait([this](beast::error_code wait_ec) {
          if (!wait_ec && !stopping_) Accept();
        });
        return;
      }
      Admit(std::move(socket));
      Accept();
    });
  }

  // Takes a new connection, closing the one idle the longest when the
  // server is full; refuses it (closes it) when none is idle.
  void Admit(tcp::socket socket) {
    beast::error_code ec;
    socket.set_option(tcp::no_delay(true), ec);
    const tcp::endpoint peer = socket.remote_endpoint(ec);
    std::string remote_address = ec ? "" : peer.address().to_string();
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
      if (connections_ >= max_connections_ && !EvictIdle()) return;
      ++connections_;  // Ended counts it gone
    }
    std::shared_ptr<Connection> connection(
        new Connection(*this, std::move(socket), tls_ ? &ssl_ : nullptr,
                       std::move(remote_address)),
        Ended{this});
    {
      absl::MutexLock lock(&mu_);
      connected_[connection->fd()] = connection.get();
      // Stop() may have shut the others down meanwhile.
      if (stopping_) ::shutdown(connection->fd(), SHUT_RDWR);
    }
    MarkIdle(*connection);
    net::dispatch(connection->executor(),
                  [connection] { connection->Start(); });
  }

  // Runs the event loop until Stop() lets it end. An exception out of a
  // handler (Beast refuses a header field over 64 KiB by throwing) ends
  // only the connection it came from: its operation's state unwinds,
  // dropping the connection, and the loop goes on.
  void RunEventLoop() {
    while (true) {
      try {
        io_.run();
        return;
      } catch (const std::exception& e) {
        logging::Error("HTTP connection dropped",
                       {{"err", std::string(e.what())}});
      }
    }
  }

  // Every second: shuts down the connections whose handler has been
  // blocked in one write for longer than the write timeout.
  void Sweep() {
    {
      absl::MutexLock lock(&mu_);
      const int64_t now =
          std::chrono::steady_clock::now().time_since_epoch().count();
      const int64_t limit =
          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
              options_.write_timeout)
              .count();
      for (const auto& [fd, c] : connected_) {
        const int64_t since = c->write_since();
        if (since != 0 && now - since > limit) ::shutdown(fd, SHUT_RDWR);
      }
    }
    sweep_.expires_after(std::chrono::seconds(1));
    sweep_.async_wait([this](beast::error_code ec) {
      if (!ec && !stopping_) Sweep();
    });
  }

  // Shuts down the connection idle the longest; false when none is.
  bool EvictIdle() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    // A connection being destroyed stays listed until its destructor
    // forgets it.
    for (const std::weak_ptr<Connection>& weak : idle_) {
      std::shared_ptr<Connection> oldest = weak.lock();
      if (oldest == nullptr) continue;
      ForgetIdle(*oldest);
      ::shutdown(oldest->fd(), SHUT_RDWR);
      return true;
    }
    return false;
  }

  void ForgetIdle(const Connection& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = idle_index_.find(&c);
    if (it == idle_index_.end()) return;
    idle_.erase(it->second);
    idle_index_.erase(it);
  }

  const HttpServerOptions options_;
  const HttpHandler handler_;
  net::io_context io_;
  net::executor_work_guard<net::io_context::executor_type> work_ =
      net::make_work_guard(io_);
  tcp::acceptor acceptor_;
  net::steady_timer accept_backoff_;
  net::steady_timer sweep_;
  ssl::context ssl_;
  bool tls_ = false;
  std::string alpn_;  // the protocols offered, in ALPN's wire form
  uint16_t port_ = 0;
  size_t max_connections_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread io_thread_;
  std::unique_ptr<internal::HandlerPool> pool_;
  absl::Mutex stop_mu_;
  bool stopped_ ABSL_GUARDED_BY(stop_mu_) = false;
  absl::Mutex mu_;
  size_t connections_ ABSL_GUARDED_BY(mu_) = 0;
  // Every connection by descriptor; a connection leaves it in its
  // destructor, before its descriptor closes.
  absl::flat_hash_map<int, const Connection*> connected_ ABSL_GUARDED_BY(mu_);
  // Connections waiting for their client, the longest waiting first.
  std::list<std::weak_ptr<Connection>> idle_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<const Connection*,
                      std::list<std::weak_ptr<Connection>>::iterator>
      idle_index_ ABSL_GUARDED_BY(mu_);
};

Connection::Connection(HttpServerImpl& server, tcp::socket socket,
                       ssl::context* ssl, std::string remote_address)
    : server_(server),
      ssl_(ssl),
      fd_(socket.native_handle()),
      remote_address_(std::move(remote_address)),
      timer_(socket.get_executor()) {
  plain_.emplace(std::move(socket));
}

Connection::~Connection() { server_.Forget(*this); }

void Connection::Start() {
  if (ssl_ == nullptr) {
    ReadHeader(true);
    return;
  }
  // The handshake, from the client's first byte on, within the same
  // deadline.
  Deadline(server_.options().header_timeout);
  plain_->async_wait(tcp::socket::wait_read, [self = shared_from_this()](
                                                 beast::error_code ec) {
    if (ec) {
      self->CancelDeadline();
      self->Close();
      return;
    }
    self->tls_.emplace(std::move(*self->plain_), *self->ssl_);
    self->plain_.reset();
    self->Handshake();
  });
}

void Connection::Handshake() {
  tls_->async_handshake(ssl::stream_base::server, [self = shared_from_this()](
                                                      beast::error_code ec) {
    self->CancelDeadline();
    if (ec) {
      self->shutting_down_ = true;  // no TLS session to close
      self->Close();
      return;
    }
    self->certificate_ = PeerCertificate(self->tls_->native_handle());
    const unsigned char* alpn = nullptr;
    unsigned alpn_length = 0;
    SSL_get0_alpn_selected(self->tls_->native_handle(), &alpn, &alpn_length);
    if (alpn_length == 2 && std::memcmp(alpn, "h2", 2) == 0) {
      self->ServeHttp2();
      return;
    }
    self->ReadHeader(true);
  });
}

void Connection::ServeHttp2() {
  internal::Http2Environment env;
  env.options = &server_.options();
  env.handler = &server_.handler();
  env.stopping = &server_.stopping();
  env.run_handler = [server = &server_](std::function<void()> task) {
    return server->RunOrQueueHandler(std::move(task));
  };
  env.set_idle = [server = &server_, weak = weak_from_this()](bool idle) {
    std::shared_ptr<Connection> self = weak.lock();
    if (self == nullptr) return;
    if (idle) {
      server->MarkIdle(*self);
    } else {
      server->MarkBusy(*self);
    }
  };
  env.certificate = certificate_;
  env.remote_address = remote_address_;
  internal::ServeHttp2(std::move(env), *tls_, shared_from_this(),
                       [self = shared_from_this()] { self->Close(); });
}

void Connection::AsyncWrite(const std::string& data,
                            std::function<void(beast::error_code)> done) {
  Deadline(server_.options().write_timeout);
  WithStream([this, &data, &done](auto& stream) {
    net::async_write(stream, net::buffer(data),
                     [self = shared_from_this(), done = std::move(done)](
                         beast::error_code ec, size_t) {
                       self->CancelDeadline();
                       done(ec);
                     });
  });
}

void Connection::Deadline(std::chrono::seconds d) {
  const uint64_t generation = ++deadline_generation_;
  timer_.expires_after(d);
  timer_.async_wait(
      [weak = weak_from_this(), generation](beast::error_code ec) {
        if (ec) return;
        std::shared_ptr<Connection> self = weak.lock();
        if (self == nullptr || self->deadline_generation_ != generation) {
          return;
        }
        ::shutdown(self->fd_, SHUT_RDWR);
      });
}

void Connection::CancelDeadline() {
  ++deadline_generation_;
  timer_.cancel();
}

void Connection::ReadHeader(bool first) {
  if (server_.stopping()) {
    Close();
    return;
  }
  server_.MarkIdle(*this);
  const HttpServerOptions& o = server_.options();
  // Memory of a large request is not kept while the client is idle.
  if (buffer_.size() == 0) buffer_.shrink_to_fit();
  NewParser();
  Deadline(first ? o.header_timeout : o.idle_timeout);
  WithStream([this](auto& stream) {
    beast_http::async_read_header(
        stream, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) {
          self->OnHeader(ec);
        });
  });
}

void Connection::NewParser() {
  const HttpServerOptions& o = server_.options();
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(
      std::min<size_t>(o.max_header_bytes, UINT32_MAX)));
  parser_->body_limit(o.max_body_bytes);
}

void Connection::OnHeader(beast::error_code ec) {
  CancelDeadline();
  server_.MarkBusy(*this);
  const HttpServerOptions& o = server_.options();
  if (ec == beast_http::error::body_limit) {
    Refuse(413, {{"Content-Type", "application/json"}}, o.too_large_body);
    return;
  }
  if (ec == beast_http::error::header_limit) {
    Refuse(431, {{"Content-Type", "text/plain; charset=utf-8"}},
           "431 Request Header Fields Too Large");
    return;
  }
  if (ec) {
    Close();  // closed, timed out, or not HTTP
    return;
  }
  if (parser_->is_done()) {
    Dispatch(false);
    return;
  }
  const auto length = parser_->content_length();
  if (o.may_read_body && (!length || *length > kBodyCheckedAbove) &&
      !o.may_read_body(Request())) {
    Dispatch(true);
    return;
  }
  ReadBody();
}

void Connection::ReadBody() {
  Deadline(server_.options().write_timeout);
  WithStream([this](auto& stream) {
    beast_http::async_read(
        stream, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) {
          self->CancelDeadline();
          if (ec == beast_http::error::body_limit) {
            self->Refuse(413, {{"Content-Type", "application/json"}},
                         self->server_.options().too_large_body);
          } else if (ec) {
            self->Close();
          } else {
            self->Dispatch(false);
          }
        });
  });
}

HttpRequest Connection::Request() const {
  const auto& msg = parser_->get();
  HttpRequest req;
  req.method = std::string(msg.method_string());
  req.target = std::string(msg.target());
  internal::ParseTarget(req.target, req);
  for (const auto& field : msg) {
    std::string name(field.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(c));
    std::string value(field.value());
    auto [it, inserted] = req.headers.emplace(std::move(name), value);
    if (!inserted) StrAppend(&it->second, "\n", value);
  }
  req.client_certificate = certificate_;
  req.remote_address = remote_address_;
  return req;
}

void Connection::Dispatch(bool body_withheld) {
  HttpRequest req = Request();
  auto& msg = parser_->get();
  if (body_withheld) {
    req.body_withheld = true;
  } else {
    req.body = std::move(msg.body());
  }
  const unsigned version = msg.version();
  const bool keep_alive = msg.keep_alive() && !body_withheld;
  const bool running = server_.RunHandler(
      [self = shared_from_this(), req = std::move(req), version, keep_alive] {
        self->Serve(req, version, keep_alive);
      });
  if (!running) {
    Refuse(
        503,
        {{"Content-Type", "text/plain; charset=utf-8"}, {"Retry-After", "1"}},
        "The server has no thread free for this request, please try "
        "again later.\n");
  }
}

void Connection::Serve(const HttpRequest& first, unsigned first_version,
                       bool first_keep_alive) {
  HttpRequest req = first;
  unsigned version = first_version;
  bool keep_alive = first_keep_alive;
  while (true) {
    ConnectionWriter writer(*this, version, keep_alive, server_.stopping());
    server_.handler()(req, writer);
    // A detached stream closes the connection when it ends.
    if (writer.detached()) return;
    writer.Finish();
    if (!keep_alive || writer.streamed() || writer.failed() ||
        server_.stopping()) {
      net::post(executor(), [self = shared_from_this()] { self->Close(); });
      return;
    }
    // A busy client's next request tends to follow at once: read here, a
    // plain request is served on this thread without handing the
    // connection to the event loop and back.
    switch (ReadNextHere()) {
      case NextRequest::kServeHere: {
        auto& msg = parser_->get();
        req = Request();
        req.body = std::move(msg.body());
        version = msg.version();
        keep_alive = msg.keep_alive();
        continue;
      }
      case NextRequest::kNone:
        net::post(executor(),
                  [self = shared_from_this()] { self->ReadHeader(false); });
        return;
      case NextRequest::kToEventLoop:
        net::post(executor(), [self = shared_from_this(), ec = linger_error_] {
          self->OnHeader(ec);
        });
        return;
    }
  }
}

Connection::NextRequest Connection::ReadNextHere() {
  if (buffer_.size() == 0) {
    pollfd p{};
    p.fd = fd_;
    p.events = POLLIN;
    if (::poll(&p, 1, kLingerMilliseconds) <= 0 || (p.revents & POLLIN) == 0) {
      return NextRequest::kNone;
    }
  }
  NewParser();
  // Blocking reads, timed by the sweep as writes are.
  linger_error_ = Write([this](auto& stream, beast::error_code& ec) {
    beast_http::read_header(stream, buffer_, *parser_, ec);
    if (ec || parser_->is_done()) return;
    const auto length = parser_->content_length();
    // A large or chunked body waits for may_read_body, on the event loop.
    if (!length || *length > kBodyCheckedAbove) return;
    beast_http::read(stream, buffer_, *parser_, ec);
  });
  return !linger_error_ && parser_->is_done() ? NextRequest::kServeHere
                                              : NextRequest::kToEventLoop;
}

void Connection::Refuse(int status, const HttpHeaders& headers,
                        std::string body) {
  auto res = std::make_shared<beast_http::response<beast_http::string_body>>(
      static_cast<beast_http::status>(status), 11);
  for (const auto& [k, v] : headers) res->set(k, v);
  res->keep_alive(false);
  res->body() = std::move(body);
  res->prepare_payload();
  Deadline(server_.options().write_timeout);
  WithStream([this, &res](auto& stream) {
    beast_http::async_write(
        stream, *res,
        [self = shared_from_this(), res](beast::error_code, size_t) {
          self->CancelDeadline();
          self->Close();
        });
  });
}

void Connection::Close() {
  if (tls_ && !shutting_down_) {
    // close_notify, then a short wait for the client's.
    shutting_down_ = true;
    Deadline(kTlsShutdownTimeout);
    tls_->async_shutdown([self = shared_from_this()](beast::error_code) {
      self->CancelDeadline();
      self->Close();
    });
    return;
  }
  beast::error_code ec;
  Socket().shutdown(tcp::socket::shutdown_both, ec);
  // The descriptor closes with the last reference.
}

}  // namespace

std::string HttpRequest::Query(std::string_view name) const {
  auto it = query.find(std::string(name));
  return it == query.end() ? "" : it->second;
}

bool HttpRequest::HasQuery(std::string_view name) const {
  return query.contains(std::string(name));
}

std::string HttpRequest::Header(std::string_view name) const {
  auto it = headers.find(std::string(name));
  return it == headers.end() ? "" : it->second;
}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(
    const HttpServerOptions& options, HttpHandler handler) {
  auto server = std::make_unique<HttpServerImpl>(options, std::move(handler));
  if (auto s = server->Init(); !s.ok()) return s;
  return std::unique_ptr<HttpServer>(std::move(server));
}

}  // namespace draplane::http
