#include "http/http_server.h"

#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <list>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "common/str_cat.h"
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

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decoding as Go's url package: in queries '+' is a space.
std::string PercentDecode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      const int hi = HexValue(s[i + 1]), lo = HexValue(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(plus_is_space && s[i] == '+' ? ' ' : s[i]);
  }
  return out;
}

void ParseTarget(std::string_view target, HttpRequest& req) {
  const size_t q = target.find('?');
  req.path = PercentDecode(target.substr(0, q), false);
  if (q == std::string_view::npos) return;
  std::string_view query = target.substr(q + 1);
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? "" : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    req.query.emplace(PercentDecode(pair.substr(0, eq), true),
                      eq == std::string_view::npos
                          ? ""
                          : PercentDecode(pair.substr(eq + 1), true));
  }
}

class HttpServerImpl;

// Writes responses on one connection's stream.
template <class Stream>
class StreamWriter : public ResponseWriter {
 public:
  StreamWriter(Stream& stream, unsigned version, bool keep_alive,
               const std::atomic<bool>& stopping)
      : stream_(stream),
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
    beast::error_code ec;
    beast_http::write(stream_, res, ec);
    if (ec) failed_ = true;
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
    beast::error_code ec;
    beast_http::write_header(stream_, sr, ec);
    if (ec) failed_ = true;
    return !failed_;
  }

  bool WriteChunk(std::string_view data) override {
    if (!streamed_ || failed_) return false;
    if (data.empty()) return true;
    beast::error_code ec;
    net::write(stream_,
               beast_http::make_chunk(net::buffer(data.data(), data.size())),
               ec);
    if (ec) failed_ = true;
    return !failed_;
  }

  bool Stopping() const override { return stopping_.load(); }

  bool ClientGone() const override {
    pollfd p{};
    p.fd = beast::get_lowest_layer(stream_).native_handle();
    p.events = POLLRDHUP;
    return ::poll(&p, 1, 0) > 0 &&
           (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
  }

  void Abort() override {
    ::shutdown(beast::get_lowest_layer(stream_).native_handle(), SHUT_RDWR);
  }

  void Finish() {
    if (!answered_) {
      Send(500, {{"Content-Type", "text/plain"}}, "no response\n");
    } else if (streamed_ && !failed_) {
      beast::error_code ec;
      net::write(stream_, beast_http::make_chunk_last(), ec);
    }
  }
  bool streamed() const { return streamed_; }
  bool failed() const { return failed_; }

 private:
  Stream& stream_;
  unsigned version_;
  bool keep_alive_;
  const std::atomic<bool>& stopping_;
  bool answered_ = false;
  bool streamed_ = false;
  bool failed_ = false;
};

class HttpServerImpl : public HttpServer {
 public:
  HttpServerImpl(HttpServerOptions options, HttpHandler handler)
      : options_(std::move(options)),
        handler_(std::move(handler)),
        acceptor_(io_),
        ssl_(ssl::context::tls_server) {}

  ~HttpServerImpl() override { Stop(); }

  absl::Status Init() {
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
    tls_ = !options_.tls_cert_pem.empty();
    if (tls_) {
      ssl_.set_options(ssl::context::default_workarounds |
                       ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                       ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
      ssl_.use_certificate_chain(net::buffer(options_.tls_cert_pem), ec);
      if (!ec) {
        ssl_.use_private_key(net::buffer(options_.tls_key_pem),
                             ssl::context::pem, ec);
      }
      if (ec) {
        return absl::InvalidArgumentError(
            StrCat("invalid TLS certificate or key: ", ec.message()));
      }
      if (!options_.tls_client_ca_pem.empty()) {
        ssl_.add_certificate_authority(net::buffer(options_.tls_client_ca_pem),
                                       ec);
        if (ec) {
          return absl::InvalidArgumentError(
              StrCat("invalid client CA bundle: ", ec.message()));
        }
        // Ask, do not require; the verdict is read after the handshake.
        ssl_.set_verify_mode(ssl::verify_peer);
        ssl_.set_verify_callback(
            [](bool, ssl::verify_context&) { return true; });
      }
    }
    accept_thread_ = std::thread([this] { AcceptLoop(); });
    return absl::OkStatus();
  }

  uint16_t port() const override { return port_; }

  void Stop() override {
    if (stopping_.exchange(true)) {
      if (accept_thread_.joinable()) accept_thread_.join();
      return;
    }
    // Only Stop() closes the acceptor, after the accept thread is gone, so
    // the descriptor shut down here is still the listening socket.
    ::shutdown(acceptor_.native_handle(), SHUT_RDWR);
    if (accept_thread_.joinable()) accept_thread_.join();
    {
      beast::error_code ec;
      acceptor_.close(ec);
    }
    std::list<Worker> workers;
    {
      absl::MutexLock lock(&mu_);
      for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
      while (connections_ != 0) idle_.Wait(&mu_);
      workers.swap(workers_);
    }
    // Joined, not detached: no connection thread (with its TLS state)
    // outlives Stop().
    for (Worker& w : workers) w.thread.join();
  }

 private:
  void AcceptLoop() {
    while (!stopping_) {
      tcp::socket socket(io_);
      beast::error_code ec;
      acceptor_.accept(socket, ec);
      if (stopping_) break;
      if (ec) continue;
      socket.set_option(tcp::no_delay(true), ec);
      absl::MutexLock lock(&mu_);
      // Reap the threads of finished connections.
      for (auto it = workers_.begin(); it != workers_.end();) {
        if (it->done->load()) {
          it->thread.join();
          it = workers_.erase(it);
        } else {
          ++it;
        }
      }
      ++connections_;
      open_fds_.insert(socket.native_handle());
      auto done = std::make_shared<std::atomic<bool>>(false);
      workers_.push_back(
          Worker{std::thread([this, done, s = std::move(socket)]() mutable {
                   Connection(std::move(s));
                   done->store(true);
                 }),
                 done});
    }
  }

  void Connection(tcp::socket socket) {
    const int fd = socket.native_handle();
    beast::error_code peer_ec;
    const tcp::endpoint peer = socket.remote_endpoint(peer_ec);
    const std::string remote_address =
        peer_ec ? "" : peer.address().to_string();
    // Deregistered while the descriptor is still open, so Stop() never
    // shuts down a reused descriptor.
    auto forget = [&] {
      absl::MutexLock lock(&mu_);
      open_fds_.erase(fd);
    };
    if (tls_) {
      ssl::stream<tcp::socket> stream(std::move(socket), ssl_);
      beast::error_code ec;
      stream.handshake(ssl::stream_base::server, ec);
      if (!ec) {
        const std::optional<ClientCertificate> certificate =
            PeerCertificate(stream.native_handle());
        Serve(stream, certificate ? &*certificate : nullptr, remote_address);
        stream.shutdown(ec);
      }
      forget();
    } else {
      Serve(socket, nullptr, remote_address);
      beast::error_code ec;
      socket.shutdown(tcp::socket::shutdown_send, ec);
      forget();
    }
    absl::MutexLock lock(&mu_);
    if (--connections_ == 0) idle_.SignalAll();
  }

  // `certificate`: what the client presented, null when nothing;
  // `remote_address`: the peer's IP address.
  template <class Stream>
  void Serve(Stream& stream, const ClientCertificate* certificate,
             const std::string& remote_address) {
    beast::flat_buffer buffer;
    while (!stopping_) {
      beast_http::request_parser<beast_http::string_body> parser;
      parser.header_limit(64 * 1024);
      parser.body_limit(options_.max_body_bytes);
      beast::error_code ec;
      beast_http::read(stream, buffer, parser, ec);
      if (ec == beast_http::error::body_limit) {
        StreamWriter<Stream> w(stream, parser.get().version(), false,
                               stopping_);
        w.Send(413, {{"Content-Type", "application/json"}},
               options_.too_large_body);
        return;
      }
      if (ec) return;  // closed, or not HTTP
      const auto& msg = parser.get();
      HttpRequest req;
      req.method = std::string(msg.method_string());
      req.target = std::string(msg.target());
      ParseTarget(req.target, req);
      for (const auto& field : msg) {
        std::string name(field.name_string());
        for (char& c : name) c = static_cast<char>(std::tolower(c));
        std::string value(field.value());
        auto [it, inserted] = req.headers.emplace(std::move(name), value);
        if (!inserted) StrAppend(&it->second, "\n", value);
      }
      req.body = msg.body();
      if (certificate != nullptr) req.client_certificate = *certificate;
      req.remote_address = remote_address;
      StreamWriter<Stream> writer(stream, msg.version(), msg.keep_alive(),
                                  stopping_);
      handler_(req, writer);
      writer.Finish();
      if (!msg.keep_alive() || writer.streamed() || writer.failed()) return;
    }
  }

  const HttpServerOptions options_;
  const HttpHandler handler_;
  net::io_context io_;
  tcp::acceptor acceptor_;
  ssl::context ssl_;
  bool tls_ = false;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread accept_thread_;
  absl::Mutex mu_;
  absl::CondVar idle_;
  int connections_ ABSL_GUARDED_BY(mu_) = 0;
  std::set<int> open_fds_ ABSL_GUARDED_BY(mu_);
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  // Connection threads, joined when done.
  std::list<Worker> workers_ ABSL_GUARDED_BY(mu_);
};

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
