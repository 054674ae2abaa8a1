// The HTTP transport. Over TLS it offers HTTP/2 by ALPN, as client-go
// does: requests and watches share connections (internal/http2_connection.h)
// of up to the server's SETTINGS_MAX_CONCURRENT_STREAMS streams each, and
// another connection opens when all are full. HTTP/1.1 (plain HTTP, or a
// server that does not choose h2) is Boost.Beast: every operation is
// asynchronous on a per-connection io_context that the calling thread runs
// in short slices, so that deadlines and cancellation are noticed within
// ~50 ms without extra threads.
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <cctype>
#include <chrono>
#include <cstring>
#include <limits>
#include <optional>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "client/credentials.h"
#include "client/internal/connection.h"
#include "client/internal/http2_connection.h"
#include "client/internal/proxy.h"
#include "client/internal/url.h"
#include "client/transport.h"
#include "common/str_cat.h"
#include "http/http2_fields.h"

namespace draplane::client {
namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast_http = boost::beast::http;
using tcp = net::ip::tcp;
using boost::system::error_code;
using internal::Conn;
using internal::Http2Connection;

constexpr size_t kMaxIdleConnections = 32;

std::string ErrorText(const error_code& ec) {
  std::string text = ec.message();
  if (ec.category() == net::error::get_ssl_category()) {
    const unsigned long err = ec.value();
    char buf[256];
    ERR_error_string_n(err, buf, sizeof(buf));
    text = StrCat(text, " (", buf, ")");
  }
  return text;
}

bool Idempotent(std::string_view method) {
  return method == "GET" || method == "HEAD" || method == "PUT" ||
         method == "DELETE" || method == "OPTIONS";
}

std::map<std::string, std::string> LowerHeaders(
    const beast_http::fields& fields) {
  std::map<std::string, std::string> out;
  for (const auto& f : fields) {
    std::string name(f.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(c));
    std::string value(f.value());
    auto [it, inserted] = out.emplace(name, value);
    if (!inserted) it->second = StrCat(it->second, ", ", value);
  }
  return out;
}

class HttpTransport : public Transport {
 public:
  HttpTransport(RestConfig config, internal::Url url)
      : config_(std::move(config)),
        url_(std::move(url)),
        credentials_(config_),
        ssl_ctx_(ssl::context::tls_client) {}

  absl::Status Init() {
    if (!config_.proxy_url.empty()) {
      auto proxy = internal::ParseProxyUrl(config_.proxy_url);
      if (!proxy.ok()) return proxy.status();
      proxy_ = *std::move(proxy);
    } else {
      auto proxy =
          internal::ProxyFor(url_, internal::ProxyEnvironment::FromProcess());
      if (!proxy.ok()) return proxy.status();
      proxy_ = *std::move(proxy);
    }
    if (!url_.tls) return absl::OkStatus();
    error_code ec;
    ssl_ctx_.set_options(ssl::context::default_workarounds |
                         ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                         ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    if (config_.insecure_skip_tls_verify) {
      ssl_ctx_.set_verify_mode(ssl::verify_none);
    } else {
      ssl_ctx_.set_verify_mode(ssl::verify_peer);
      if (!config_.ca_pem.empty()) {
        ssl_ctx_.add_certificate_authority(
            net::buffer(config_.ca_pem.data(), config_.ca_pem.size()), ec);
        if (ec) {
          return absl::InvalidArgumentError(
              StrCat("invalid CA certificate: ", ErrorText(ec)));
        }
      } else {
        ssl_ctx_.set_default_verify_paths(ec);
        if (ec) {
          return absl::InternalError(
              StrCat("cannot load the system trust store: ", ErrorText(ec)));
        }
      }
    }
    if (!config_.client_cert_pem.empty()) {
      ssl_ctx_.use_certificate_chain(
          net::buffer(config_.client_cert_pem.data(),
                      config_.client_cert_pem.size()),
          ec);
      if (ec) {
        return absl::InvalidArgumentError(
            StrCat("invalid client certificate: ", ErrorText(ec)));
      }
      ssl_ctx_.use_private_key(net::buffer(config_.client_key_pem.data(),
                                           config_.client_key_pem.size()),
                               ssl::context::pem, ec);
      if (ec) {
        return absl::InvalidArgumentError(
            StrCat("invalid client key: ", ErrorText(ec)));
      }
    }
    return absl::OkStatus();
  }

  ~HttpTransport() override {
    std::vector<std::shared_ptr<Http2Connection>> h2;
    {
      absl::MutexLock lock(&mu_);
      h2.swap(h2_);
    }
    for (const auto& c : h2) c->Shutdown();
  }
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  absl::StatusOr<HttpReply> RoundTrip(const HttpCall& call) override {
    const absl::Time deadline = config_.timeout > absl::ZeroDuration()
                                    ? absl::Now() + config_.timeout
                                    : absl::InfiniteFuture();
    auto cred = CurrentCredential();
    if (!cred.ok()) return cred.status();
    bool reused = false;
    bool retryable = false;
    std::unique_ptr<Conn> conn;
    absl::StatusOr<HttpReply> reply;
    if (UseHttp2()) {
      reply = RoundTripHttp2(call, **cred, deadline, &conn);
      reused = conn != nullptr;  // connected, and the server chose HTTP/1.1
    } else {
      conn = Take(&reused);
    }
    if (conn != nullptr) {
      reply = TryRoundTrip(std::move(conn), call, **cred, deadline, reused,
                           &retryable);
      if (!reply.ok() && retryable && Idempotent(call.method)) {
        // A pooled connection the server had closed: once more, fresh.
        reply = TryRoundTrip(std::make_unique<Conn>(url_.tls, &ssl_ctx_), call,
                             **cred, deadline, false, &retryable);
      }
    }
    if (reply.ok() && reply->status == 401) credentials_.Unauthorized(*cred);
    return reply;
  }

  absl::Status Stream(
      const HttpCall& call,
      const std::function<void(int, const std::map<std::string, std::string>&)>&
          on_status,
      const std::function<bool(std::string_view)>& on_data,
      const ObjectEventFn& /*on_object: events come as lines*/,
      const CancelFlag& cancel) override {
    const absl::Time header_deadline = config_.timeout > absl::ZeroDuration()
                                           ? absl::Now() + config_.timeout
                                           : absl::InfiniteFuture();
    auto cred = CurrentCredential();
    if (!cred.ok()) return cred.status();
    // A 401 makes the credential source forget an exec plugin's credential.
    auto status_seen = [&](int status,
                           const std::map<std::string, std::string>& h) {
      if (status == 401) credentials_.Unauthorized(*cred);
      if (on_status) on_status(status, h);
    };
    std::unique_ptr<Conn> conn;
    absl::Status st;
    if (UseHttp2()) {
      st = StreamHttp2(call, **cred, status_seen, on_data, cancel,
                       header_deadline, &conn);
      if (conn == nullptr) return st;
    } else {
      conn = std::make_unique<Conn>(url_.tls, &ssl_ctx_);
      st = Connect(*conn, **cred, header_deadline, &cancel, false);
      if (absl::IsCancelled(st)) return absl::OkStatus();
      if (!st.ok()) return st;
    }
    st = Write(*conn, call, **cred, header_deadline, &cancel);
    if (absl::IsCancelled(st)) return absl::OkStatus();
    if (!st.ok()) return st;

    beast_http::response_parser<beast_http::buffer_body> parser;
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    bool done = false;
    error_code ec;
    conn->WithStream([&](auto& stream) {
      beast_http::async_read_header(stream, conn->buffer(), parser,
                                    [&](error_code e, size_t) {
                                      ec = e;
                                      done = true;
                                    });
    });
    st = conn->Run(done, header_deadline, &cancel);
    if (absl::IsCancelled(st)) return absl::OkStatus();
    if (!st.ok()) return Failed(call, "reading the response", st);
    if (ec) return Failed(call, "reading the response", ec);
    status_seen(parser.get().result_int(), LowerHeaders(parser.get()));
    std::string chunk(64 * 1024, '\0');
    while (!parser.is_done()) {
      parser.get().body().data = chunk.data();
      parser.get().body().size = chunk.size();
      done = false;
      conn->WithStream([&](auto& stream) {
        beast_http::async_read_some(stream, conn->buffer(), parser,
                                    [&](error_code e, size_t) {
                                      ec = e;
                                      done = true;
                                    });
      });
      st = conn->Run(done, absl::InfiniteFuture(), &cancel);
      if (absl::IsCancelled(st)) return absl::OkStatus();
      if (!st.ok()) return Failed(call, "reading the response", st);
      if (ec == beast_http::error::need_buffer) ec = {};
      const size_t n = chunk.size() - parser.get().body().size;
      if (n > 0 && !on_data(std::string_view(chunk.data(), n))) {
        conn->Close();
        return absl::OkStatus();
      }
      if (ec) {
        if (cancel.load()) return absl::OkStatus();
        return Failed(call, "reading the response", ec);
      }
      if (cancel.load()) {
        conn->Close();
        return absl::OkStatus();
      }
    }
    conn->Close();
    return absl::OkStatus();
  }

 private:
  bool UseHttp2() const { return url_.tls && !http11_only_.load(); }

  // A connection with a stream slot taken for the caller; a new one only
  // when every connection is full (one dialled at a time). When the
  // server chooses HTTP/1.1 instead, returns null with `*http11` the
  // connection, connected.
  absl::StatusOr<std::shared_ptr<Http2Connection>> AcquireHttp2(
      const Credential& cred, absl::Time deadline, const CancelFlag* cancel,
      std::unique_ptr<Conn>* http11) {
    absl::MutexLock dial_lock(&dial_mu_);
    if (std::shared_ptr<Http2Connection> c = ReserveHttp2()) return c;
    auto conn = std::make_unique<Conn>(true, &ssl_ctx_);
    absl::Status st = Connect(*conn, cred, deadline, cancel, true);
    if (!st.ok()) return st;
    const unsigned char* alpn = nullptr;
    unsigned alpn_length = 0;
    SSL_get0_alpn_selected(conn->tls().native_handle(), &alpn, &alpn_length);
    if (alpn_length != 2 || std::memcmp(alpn, "h2", 2) != 0) {
      http11_only_ = true;
      *http11 = std::move(conn);
      return nullptr;
    }
    auto c = Http2Connection::Start(std::move(conn));
    if (!c.ok()) return c.status();
    (*c)->Reserve();  // a new connection has room
    absl::MutexLock lock(&mu_);
    h2_.push_back(*c);
    return *c;
  }

  // A slot on a pooled connection, or null; drops the connections that
  // can take no more streams and serve none.
  std::shared_ptr<Http2Connection> ReserveHttp2() {
    std::vector<std::shared_ptr<Http2Connection>> done;
    std::shared_ptr<Http2Connection> found;
    {
      absl::MutexLock lock(&mu_);
      for (auto it = h2_.begin(); it != h2_.end();) {
        if (!(*it)->Usable() && (*it)->active() == 0) {
          done.push_back(std::move(*it));
          it = h2_.erase(it);
          continue;
        }
        if (found == nullptr && (*it)->Reserve()) found = *it;
        ++it;
      }
    }
    for (const auto& c : done) c->Shutdown();
    return found;
  }

  absl::StatusOr<HttpReply> RoundTripHttp2(const HttpCall& call,
                                           const Credential& cred,
                                           absl::Time deadline,
                                           std::unique_ptr<Conn>* http11) {
    const internal::Http2Request req = Http2Call(call, cred);
    absl::Status st;
    // A request the server did not process goes again on another
    // connection (as does an idempotent one whose connection was lost).
    for (int attempt = 0; attempt < 3; ++attempt) {
      auto c = AcquireHttp2(cred, deadline, nullptr, http11);
      if (!c.ok()) return c.status();
      if (*c == nullptr) return absl::UnavailableError("HTTP/1.1");
      HttpReply reply;
      bool refused = false;
      st = (*c)->Exchange(
          req,
          [&reply](int status, const std::map<std::string, std::string>& h) {
            reply.status = status;
            reply.headers = h;
          },
          [&reply](std::string_view data) {
            reply.body.append(data);
            return true;
          },
          deadline, deadline, nullptr, &refused);
      if (st.ok()) return reply;
      const bool retry =
          refused || (absl::IsUnavailable(st) && reply.status == 0 &&
                      Idempotent(call.method));
      if (!retry) break;
    }
    return Failed(call, "HTTP/2", st);
  }

  absl::Status StreamHttp2(
      const HttpCall& call, const Credential& cred,
      const std::function<void(int, const std::map<std::string, std::string>&)>&
          on_status,
      const std::function<bool(std::string_view)>& on_data,
      const CancelFlag& cancel, absl::Time header_deadline,
      std::unique_ptr<Conn>* http11) {
    const internal::Http2Request req = Http2Call(call, cred);
    absl::Status st;
    for (int attempt = 0; attempt < 3; ++attempt) {
      auto c = AcquireHttp2(cred, header_deadline, &cancel, http11);
      if (absl::IsCancelled(c.status())) return absl::OkStatus();
      if (!c.ok()) return c.status();
      if (*c == nullptr) return absl::OkStatus();
      bool refused = false;
      st = (*c)->Exchange(req, on_status, on_data, header_deadline,
                          absl::InfiniteFuture(), &cancel, &refused);
      if (st.ok() || !refused) break;
    }
    if (!st.ok()) return Failed(call, "HTTP/2", st);
    return st;
  }

  std::unique_ptr<Conn> Take(bool* reused) {
    {
      absl::MutexLock lock(&mu_);
      while (!idle_.empty()) {
        std::unique_ptr<Conn> conn = std::move(idle_.back());
        idle_.pop_back();
        if (conn->LooksAlive()) {
          *reused = true;
          return conn;
        }
      }
    }
    *reused = false;
    return std::make_unique<Conn>(url_.tls, &ssl_ctx_);
  }

  void Put(std::unique_ptr<Conn> conn) {
    absl::MutexLock lock(&mu_);
    if (idle_.size() < kMaxIdleConnections) idle_.push_back(std::move(conn));
  }

  absl::Status Failed(const HttpCall& call, std::string_view what,
                      const absl::Status& st) {
    return absl::Status(
        st.code(), StrCat(call.method, " ", url_.Describe(), call.path, ": ",
                          what, ": ", st.message()));
  }
  absl::Status Failed(const HttpCall& call, std::string_view what,
                      const error_code& ec) {
    return absl::UnavailableError(StrCat(call.method, " ", url_.Describe(),
                                         call.path, ": ", what, ": ",
                                         ErrorText(ec)));
  }

  // Dials and, for https, shakes hands, offering HTTP/2 by ALPN when
  // `offer_http2`.
  absl::Status Connect(Conn& conn, const Credential& cred, absl::Time deadline,
                       const CancelFlag* cancel, bool offer_http2) {
    bool done = false;
    error_code ec;
    const std::string& dial_host = proxy_ ? proxy_->host : url_.host;
    const std::string& dial_port = proxy_ ? proxy_->port : url_.port;
    const std::string dialled =
        proxy_ ? StrCat(url_.Describe(), " through proxy ", proxy_->Describe())
               : url_.Describe();
    tcp::resolver resolver(conn.ioc());
    tcp::resolver::results_type results;
    resolver.async_resolve(dial_host, dial_port,
                           [&](error_code e, tcp::resolver::results_type r) {
                             ec = e;
                             results = std::move(r);
                             done = true;
                           });
    absl::Status st = conn.Run(done, deadline, cancel);
    if (!st.ok() || ec) {
      if (!st.ok() && !absl::IsCancelled(st)) {
        return absl::Status(
            st.code(), StrCat("resolving ", url_.host, ": ", st.message()));
      }
      if (!st.ok()) return st;
      return absl::UnavailableError(
          StrCat("resolving ", dial_host, ": ", ErrorText(ec)));
    }
    done = false;
    net::async_connect(conn.socket(), results,
                       [&](error_code e, const tcp::endpoint&) {
                         ec = e;
                         done = true;
                       });
    st = conn.Run(done, deadline, cancel);
    if (!st.ok()) {
      if (absl::IsCancelled(st)) return st;
      return absl::Status(
          st.code(), StrCat("connecting to ", dialled, ": ", st.message()));
    }
    if (ec) {
      return absl::UnavailableError(
          StrCat("connecting to ", dialled, ": ", ErrorText(ec)));
    }
    error_code ignored;
    conn.socket().set_option(tcp::no_delay(true), ignored);
    if (!conn.is_tls()) return absl::OkStatus();
    if (proxy_) {
      st = Tunnel(conn, deadline, cancel);
      if (!st.ok()) return st;
    }

    SSL* ssl = conn.tls().native_handle();
    const std::string& name =
        config_.tls_server_name.empty() ? url_.host : config_.tls_server_name;
    error_code not_ip;
    net::ip::make_address(name, not_ip);
    if (not_ip) {
      SSL_set_tlsext_host_name(ssl, name.c_str());
    }
    if (offer_http2) {
      SSL_set_alpn_protos(
          ssl,
          reinterpret_cast<const unsigned char*>(
              internal::kAlpnH2AndHttp11.data()),
          static_cast<unsigned>(internal::kAlpnH2AndHttp11.size()));
    }
    if (!config_.insecure_skip_tls_verify) {
      X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
      X509_VERIFY_PARAM_set_hostflags(param,
                                      X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      const int ok =
          not_ip ? X509_VERIFY_PARAM_set1_host(param, name.c_str(), name.size())
                 : X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str());
      if (ok != 1) {
        return absl::InvalidArgumentError(
            StrCat("invalid TLS server name \"", name, "\""));
      }
    }
    if (!cred.client_cert_pem.empty() &&
        cred.client_cert_pem != config_.client_cert_pem) {
      st = UseClientCertificate(ssl, cred);
      if (!st.ok()) return st;
    }
    done = false;
    conn.tls().async_handshake(ssl::stream_base::client, [&](error_code e) {
      ec = e;
      done = true;
    });
    st = conn.Run(done, deadline, cancel);
    if (!st.ok()) {
      if (absl::IsCancelled(st)) return st;
      return absl::Status(
          st.code(),
          StrCat("TLS handshake with ", url_.Describe(), ": ", st.message()));
    }
    if (ec) {
      std::string detail = ErrorText(ec);
      const long verify = SSL_get_verify_result(ssl);
      if (verify != X509_V_OK) {
        detail = StrCat(detail, ": certificate verification failed: ",
                        X509_verify_cert_error_string(verify));
      }
      return absl::UnavailableError(
          StrCat("TLS handshake with ", url_.Describe(), ": ", detail));
    }
    return absl::OkStatus();
  }

  // The call's headers and the transport's defaults (Authorization,
  // User-Agent, Accept, Content-Type), names as given.
  std::vector<std::pair<std::string, std::string>> Headers(
      const HttpCall& call, const Credential& cred, bool has_body) const {
    std::vector<std::pair<std::string, std::string>> out;
    bool has_auth = false, has_ua = false, has_accept = false, has_type = false;
    for (const auto& [name, value] : call.headers) {
      out.emplace_back(name, value);
      std::string lower = name;
      for (char& c : lower) c = static_cast<char>(std::tolower(c));
      has_auth |= lower == "authorization";
      has_ua |= lower == "user-agent";
      has_accept |= lower == "accept";
      has_type |= lower == "content-type";
    }
    if (!has_auth && !cred.bearer_token.empty()) {
      out.emplace_back("Authorization", StrCat("Bearer ", cred.bearer_token));
    }
    if (!has_ua) out.emplace_back("User-Agent", config_.user_agent);
    if (!has_accept) out.emplace_back("Accept", "application/json");
    if (!has_type && has_body) {
      out.emplace_back("Content-Type", "application/json");
    }
    return out;
  }

  static std::string Body(const HttpCall& call) {
    return call.json_body != nullptr ? api::DumpJson(*call.json_body)
                                     : call.body;
  }

  internal::Http2Request Http2Call(const HttpCall& call,
                                   const Credential& cred) const {
    internal::Http2Request req;
    req.method = call.method;
    req.authority = url_.HostHeader();
    req.target = url_.Target(call.path, call.query);
    req.body = Body(call);
    for (auto& [name, value] : Headers(call, cred, !req.body.empty())) {
      for (char& c : name) c = static_cast<char>(std::tolower(c));
      if (name == "host" || http::IsConnectionSpecificHeader(name)) continue;
      req.headers.emplace_back(std::move(name), std::move(value));
    }
    return req;
  }

  absl::Status Write(Conn& conn, const HttpCall& call, const Credential& cred,
                     absl::Time deadline, const CancelFlag* cancel) {
    beast_http::request<beast_http::string_body> req;
    req.method_string(call.method);
    if (proxy_ && !url_.tls) {
      // Through an HTTP proxy, plain HTTP requests name the whole URL.
      req.target(StrCat("http://", url_.HostHeader(),
                        url_.Target(call.path, call.query)));
      if (!proxy_->authorization.empty()) {
        req.set(beast_http::field::proxy_authorization, proxy_->authorization);
      }
    } else {
      req.target(url_.Target(call.path, call.query));
    }
    req.version(11);
    req.keep_alive(true);
    req.set(beast_http::field::host, url_.HostHeader());
    req.body() = Body(call);
    for (const auto& [name, value] : Headers(call, cred, !req.body().empty())) {
      req.insert(name, value);
    }
    req.prepare_payload();
    bool done = false;
    error_code ec;
    conn.WithStream([&](auto& stream) {
      beast_http::async_write(stream, req, [&](error_code e, size_t) {
        ec = e;
        done = true;
      });
    });
    absl::Status st = conn.Run(done, deadline, cancel);
    if (!st.ok()) {
      if (absl::IsCancelled(st)) return st;
      return Failed(call, "writing the request", st);
    }
    if (ec) return Failed(call, "writing the request", ec);
    return absl::OkStatus();
  }

  // One attempt on `conn`; `retryable` tells whether it failed because a
  // reused connection turned out to be closed before any answer came.
  absl::StatusOr<HttpReply> TryRoundTrip(std::unique_ptr<Conn> conn,
                                         const HttpCall& call,
                                         const Credential& cred,
                                         absl::Time deadline, bool reused,
                                         bool* retryable) {
    *retryable = false;
    if (!reused) {
      absl::Status st = Connect(*conn, cred, deadline, nullptr, false);
      if (!st.ok()) return st;
    }
    absl::Status st = Write(*conn, call, cred, deadline, nullptr);
    if (!st.ok()) {
      *retryable = reused && absl::IsUnavailable(st);
      return st;
    }
    beast_http::response_parser<beast_http::string_body> parser;
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    bool done = false;
    error_code ec;
    conn->WithStream([&](auto& stream) {
      beast_http::async_read(stream, conn->buffer(), parser,
                             [&](error_code e, size_t) {
                               ec = e;
                               done = true;
                             });
    });
    st = conn->Run(done, deadline, nullptr);
    if (!st.ok()) return Failed(call, "reading the response", st);
    if (ec) {
      *retryable =
          reused && !parser.got_some() &&
          (ec == beast_http::error::end_of_stream || ec == net::error::eof ||
           ec == net::error::connection_reset ||
           ec == net::ssl::error::stream_truncated);
      return Failed(call, "reading the response", ec);
    }
    auto& msg = parser.get();
    HttpReply reply;
    reply.status = msg.result_int();
    reply.headers = LowerHeaders(msg);
    reply.body = std::move(msg.body());
    if (msg.keep_alive() && parser.is_done() &&
        cred.certificate_generation == certificate_generation_.load()) {
      Put(std::move(conn));
    } else {
      conn->Close();
    }
    return reply;
  }

  // The credential for a request; when its client certificate is newer than
  // the connections', every connection is closed first (client-go's
  // connection tracker closes them all when an exec plugin's certificate
  // changes).
  absl::StatusOr<std::shared_ptr<const Credential>> CurrentCredential() {
    auto cred = credentials_.Current();
    if (!cred.ok()) return cred.status();
    uint64_t seen = certificate_generation_.load();
    while ((*cred)->certificate_generation > seen) {
      if (certificate_generation_.compare_exchange_weak(
              seen, (*cred)->certificate_generation)) {
        CloseAllConnections();
        break;
      }
    }
    return cred;
  }

  void CloseAllConnections() {
    std::vector<std::shared_ptr<Http2Connection>> h2;
    std::vector<std::unique_ptr<Conn>> idle;
    {
      absl::MutexLock lock(&mu_);
      h2.swap(h2_);
      idle.swap(idle_);
    }
    for (const auto& c : h2) c->Shutdown();
    for (const auto& c : idle) c->Close();
  }

  // The exec plugin's client certificate (and the chain after it) and key
  // for this connection, in place of the configuration's.
  static absl::Status UseClientCertificate(SSL* ssl, const Credential& cred) {
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(
        BIO_new_mem_buf(cred.client_cert_pem.data(),
                        static_cast<int>(cred.client_cert_pem.size())),
        BIO_free);
    std::unique_ptr<X509, decltype(&X509_free)> leaf(
        PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), X509_free);
    bool ok = leaf != nullptr && SSL_use_certificate(ssl, leaf.get()) == 1;
    while (ok) {
      X509* next = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr);
      if (next == nullptr) break;
      ok = SSL_add0_chain_cert(ssl, next) == 1;
      if (!ok) X509_free(next);
    }
    ERR_clear_error();  // the end of the chain reads as an error
    std::unique_ptr<BIO, decltype(&BIO_free)> key_bio(
        BIO_new_mem_buf(cred.client_key_pem.data(),
                        static_cast<int>(cred.client_key_pem.size())),
        BIO_free);
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
        PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr),
        EVP_PKEY_free);
    ok = ok && key != nullptr && SSL_use_PrivateKey(ssl, key.get()) == 1;
    if (!ok) {
      ERR_clear_error();
      return absl::InvalidArgumentError(
          "the exec plugin's client certificate or key does not load");
    }
    return absl::OkStatus();
  }

  // Asks the proxy for a tunnel to the API server (HTTP CONNECT), on the
  // connected socket, before the TLS handshake.
  absl::Status Tunnel(Conn& conn, absl::Time deadline,
                      const CancelFlag* cancel) {
    const bool v6 = url_.host.find(':') != std::string::npos;
    const std::string authority =
        StrCat(v6 ? "[" : "", url_.host, v6 ? "]" : "", ":", url_.port);
    beast_http::request<beast_http::empty_body> req(beast_http::verb::connect,
                                                    authority, 11);
    req.set(beast_http::field::host, authority);
    if (!proxy_->authorization.empty()) {
      req.set(beast_http::field::proxy_authorization, proxy_->authorization);
    }
    req.set(beast_http::field::user_agent, config_.user_agent);
    bool done = false;
    error_code ec;
    beast_http::async_write(conn.socket(), req, [&](error_code e, size_t) {
      ec = e;
      done = true;
    });
    absl::Status st = conn.Run(done, deadline, cancel);
    const std::string where =
        StrCat("proxy CONNECT to ", authority, " through ", proxy_->Describe());
    if (!st.ok())
      return absl::Status(st.code(), StrCat(where, ": ", st.message()));
    if (ec) return absl::UnavailableError(StrCat(where, ": ", ErrorText(ec)));
    beast_http::response_parser<beast_http::empty_body> parser;
    parser.skip(true);  // a 200 to CONNECT has no body
    parser.header_limit(64 * 1024);
    boost::beast::flat_buffer buffer;
    done = false;
    beast_http::async_read_header(conn.socket(), buffer, parser,
                                  [&](error_code e, size_t) {
                                    ec = e;
                                    done = true;
                                  });
    st = conn.Run(done, deadline, cancel);
    if (!st.ok())
      return absl::Status(st.code(), StrCat(where, ": ", st.message()));
    if (ec) return absl::UnavailableError(StrCat(where, ": ", ErrorText(ec)));
    const auto& res = parser.get();
    if (res.result_int() != 200) {
      return absl::UnavailableError(StrCat(where, ": ", res.result_int(), " ",
                                           std::string(res.reason())));
    }
    if (buffer.size() != 0) {
      return absl::UnavailableError(
          StrCat(where, ": the proxy sent data before the TLS handshake"));
    }
    return absl::OkStatus();
  }

  const RestConfig config_;
  const internal::Url url_;
  CredentialSource credentials_;
  // The HTTP proxy every connection goes through; nullopt: direct.
  std::optional<internal::Proxy> proxy_;
  // The newest client-certificate generation a request has used.
  std::atomic<uint64_t> certificate_generation_{0};
  ssl::context ssl_ctx_;
  // Set once the server chose HTTP/1.1 by ALPN: HTTP/2 is not offered
  // again.
  std::atomic<bool> http11_only_{false};
  absl::Mutex dial_mu_;  // held while a new HTTP/2 connection is dialled
  absl::Mutex mu_;
  std::vector<std::unique_ptr<Conn>> idle_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<Http2Connection>> h2_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

absl::StatusOr<std::unique_ptr<Transport>> NewHttpTransport(
    const RestConfig& config) {
  auto url = internal::ParseServerUrl(config.server);
  if (!url.ok()) return url.status();
  auto transport = std::make_unique<HttpTransport>(config, *std::move(url));
  if (absl::Status st = transport->Init(); !st.ok()) return st;
  return transport;
}

}  // namespace draplane::client
