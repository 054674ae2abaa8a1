// The HTTP/1.1 transport: Boost.Beast over TCP or OpenSSL TLS. Every
// operation is asynchronous on a per-connection io_context that the calling
// thread runs in short slices, so that deadlines and cancellation are
// noticed within ~50 ms without extra threads.
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
#include "client/internal/url.h"
#include "client/transport.h"
#include "common/str_cat.h"

namespace draplane::client {
namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace beast_http = boost::beast::http;
using tcp = net::ip::tcp;
using boost::system::error_code;

constexpr size_t kMaxIdleConnections = 32;

// One connection with its own io_context.
class Conn {
 public:
  explicit Conn(bool tls, ssl::context* ctx) {
    if (tls) {
      tls_.emplace(ioc_, *ctx);
    } else {
      plain_.emplace(ioc_);
    }
  }

  tcp::socket& socket() { return tls_ ? tls_->next_layer() : *plain_; }
  bool is_tls() const { return tls_.has_value(); }
  ssl::stream<tcp::socket>& tls() { return *tls_; }
  net::io_context& ioc() { return ioc_; }
  beast::flat_buffer& buffer() { return buffer_; }

  // Calls `fn` with the stream to read and write.
  template <class Fn>
  void WithStream(Fn&& fn) {
    if (tls_) {
      fn(*tls_);
    } else {
      fn(*plain_);
    }
  }

  void Close() {
    error_code ignored;
    socket().shutdown(tcp::socket::shutdown_both, ignored);
    socket().close(ignored);
  }

  // Runs the io_context until `done`; on the deadline or `cancel`, closes
  // the socket, lets the pending operation finish, and returns
  // DeadlineExceeded or Cancelled.
  absl::Status Run(const bool& done, absl::Time deadline,
                   const CancelFlag* cancel) {
    ioc_.restart();
    while (!done) {
      const absl::Time now = absl::Now();
      const bool cancelled = cancel != nullptr && cancel->load();
      if (cancelled || now >= deadline) {
        Close();
        Drain(done);
        return cancelled ? absl::CancelledError("cancelled")
                         : absl::DeadlineExceededError("timed out");
      }
      const absl::Duration slice = std::clamp(
          deadline - now, absl::Milliseconds(1), absl::Milliseconds(50));
      ioc_.run_one_for(
          std::chrono::microseconds(absl::ToInt64Microseconds(slice)));
      if (ioc_.stopped()) {
        if (done) break;
        ioc_.restart();
        // Stopped without the operation finishing: nothing is pending.
        if (ioc_.poll() == 0 && ioc_.stopped() && !done) {
          return absl::InternalError("I/O operation lost");
        }
      }
    }
    return absl::OkStatus();
  }

  // Whether an idle pooled connection still looks usable: the peer has not
  // closed it and (for plain HTTP) sent nothing unasked.
  bool LooksAlive() {
    if (!socket().is_open() || buffer_.size() != 0) return false;
    char c;
    const ssize_t n =
        ::recv(socket().native_handle(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n == 0) return false;  // EOF
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK;
    return is_tls();  // TLS: e.g. a session ticket; plain: garbage
  }

 private:
  void Drain(const bool& done) {
    ioc_.restart();
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!done && std::chrono::steady_clock::now() < until) {
      if (ioc_.run_one_for(std::chrono::milliseconds(50)) == 0 &&
          ioc_.stopped()) {
        ioc_.restart();
        if (ioc_.poll() == 0 && ioc_.stopped()) break;
      }
    }
  }

  net::io_context ioc_{1};
  std::optional<tcp::socket> plain_;
  std::optional<ssl::stream<tcp::socket>> tls_;
  beast::flat_buffer buffer_;
};

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
        ssl_ctx_(ssl::context::tls_client) {}

  absl::Status Init() {
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

  absl::StatusOr<HttpReply> RoundTrip(const HttpCall& call) override {
    const absl::Time deadline = config_.timeout > absl::ZeroDuration()
                                    ? absl::Now() + config_.timeout
                                    : absl::InfiniteFuture();
    bool reused = false;
    bool retryable = false;
    std::unique_ptr<Conn> conn = Take(&reused);
    auto reply =
        TryRoundTrip(std::move(conn), call, deadline, reused, &retryable);
    if (!reply.ok() && retryable && Idempotent(call.method)) {
      // A pooled connection the server had closed: once more, fresh.
      reply = TryRoundTrip(std::make_unique<Conn>(url_.tls, &ssl_ctx_), call,
                           deadline, false, &retryable);
    }
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
    auto conn = std::make_unique<Conn>(url_.tls, &ssl_ctx_);
    absl::Status st = Connect(*conn, header_deadline, &cancel);
    if (absl::IsCancelled(st)) return absl::OkStatus();
    if (!st.ok()) return st;
    st = Write(*conn, call, header_deadline, &cancel);
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
    if (on_status) {
      on_status(parser.get().result_int(), LowerHeaders(parser.get()));
    }
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

  absl::Status Connect(Conn& conn, absl::Time deadline,
                       const CancelFlag* cancel) {
    bool done = false;
    error_code ec;
    tcp::resolver resolver(conn.ioc());
    tcp::resolver::results_type results;
    resolver.async_resolve(url_.host, url_.port,
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
          StrCat("resolving ", url_.host, ": ", ErrorText(ec)));
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
      return absl::Status(st.code(), StrCat("connecting to ", url_.Describe(),
                                            ": ", st.message()));
    }
    if (ec) {
      return absl::UnavailableError(
          StrCat("connecting to ", url_.Describe(), ": ", ErrorText(ec)));
    }
    error_code ignored;
    conn.socket().set_option(tcp::no_delay(true), ignored);
    if (!conn.is_tls()) return absl::OkStatus();

    SSL* ssl = conn.tls().native_handle();
    const std::string& name =
        config_.tls_server_name.empty() ? url_.host : config_.tls_server_name;
    error_code not_ip;
    net::ip::make_address(name, not_ip);
    if (not_ip) {
      SSL_set_tlsext_host_name(ssl, name.c_str());
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

  absl::Status Write(Conn& conn, const HttpCall& call, absl::Time deadline,
                     const CancelFlag* cancel) {
    beast_http::request<beast_http::string_body> req;
    req.method_string(call.method);
    req.target(url_.Target(call.path, call.query));
    req.version(11);
    req.keep_alive(true);
    req.set(beast_http::field::host, url_.HostHeader());
    bool has_auth = false, has_ua = false, has_accept = false, has_type = false;
    for (const auto& [name, value] : call.headers) {
      req.insert(name, value);
      std::string lower = name;
      for (char& c : lower) c = static_cast<char>(std::tolower(c));
      has_auth |= lower == "authorization";
      has_ua |= lower == "user-agent";
      has_accept |= lower == "accept";
      has_type |= lower == "content-type";
    }
    if (!has_auth && !config_.bearer_token.empty()) {
      req.set(beast_http::field::authorization,
              StrCat("Bearer ", config_.bearer_token));
    }
    if (!has_ua) req.set(beast_http::field::user_agent, config_.user_agent);
    if (!has_accept) req.set(beast_http::field::accept, "application/json");
    req.body() =
        call.json_body != nullptr ? api::DumpJson(*call.json_body) : call.body;
    if (!has_type && !req.body().empty()) {
      req.set(beast_http::field::content_type, "application/json");
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
                                         absl::Time deadline, bool reused,
                                         bool* retryable) {
    *retryable = false;
    if (!reused) {
      absl::Status st = Connect(*conn, deadline, nullptr);
      if (!st.ok()) return st;
    }
    absl::Status st = Write(*conn, call, deadline, nullptr);
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
    if (msg.keep_alive() && parser.is_done()) {
      Put(std::move(conn));
    } else {
      conn->Close();
    }
    return reply;
  }

  const RestConfig config_;
  const internal::Url url_;
  ssl::context ssl_ctx_;
  absl::Mutex mu_;
  std::vector<std::unique_ptr<Conn>> idle_;
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
