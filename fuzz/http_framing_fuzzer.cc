// Arbitrary bytes as what a client sends on one connection to the HTTP
// server, over loopback: the first byte picks plain HTTP/1.1 (even) or
// TLS with HTTP/2 chosen by ALPN (odd; the client preface is sent first,
// the rest are raw frames). The client then ends its side and reads until
// the server closes. (An HTTP/2 client ending its side without TLS
// close_notify has gone: the server drops its open streams, so the HTTP/2
// inputs exercise the framing layer rather than the handlers.)
//
// Checked: the server ends the connection within a deadline (a request
// cut short, a stream left open or a flood of frames never holds it), an
// HTTP/1.x answer starts with a status line, the server still serves a
// well-formed request afterwards (checked every 256 inputs), and nothing
// crashes or trips a sanitizer.
#include <errno.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "apiserver/tls_credentials.h"
#include "http/http_server.h"

namespace {

using draplane::http::HttpRequest;
using draplane::http::HttpServer;
using draplane::http::HttpServerOptions;
using draplane::http::ResponseWriter;

constexpr int kReadDeadlineSeconds = 8;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "http_framing_fuzzer: %s\n", what);
  std::abort();
}

// Answers with what it parsed; "/stream..." paths answer in chunks, as a
// watch does.
void Handle(const HttpRequest& req, ResponseWriter& w) {
  std::string body = req.method + " " + req.path + " " +
                     std::to_string(req.query.size()) + " " +
                     std::to_string(req.body.size());
  if (std::string_view(req.path).substr(0, 7) == "/stream") {
    if (!w.StartStream(200, {{"Content-Type", "text/plain"}})) return;
    w.WriteChunk(body);
    w.WriteChunk("\n");
    return;
  }
  w.Send(200, {{"Content-Type", "text/plain"}}, std::move(body));
}

struct Servers {
  std::unique_ptr<HttpServer> plain;
  std::unique_ptr<HttpServer> tls;
  SSL_CTX* client_ctx = nullptr;
};

HttpServerOptions ShortDeadlines() {
  HttpServerOptions o;
  o.header_timeout = std::chrono::seconds(2);
  o.idle_timeout = std::chrono::seconds(2);
  o.write_timeout = std::chrono::seconds(2);
  o.max_body_bytes = 64 * 1024;
  o.max_header_bytes = 16 * 1024;
  o.max_handler_threads = 16;
  o.max_concurrent_streams = 8;
  return o;
}

const Servers& TheServers() {
  static const Servers* servers = [] {
    auto* s = new Servers;
    // A write to a connection the server closed fails (EPIPE) rather than
    // ending the fuzzer.
    std::signal(SIGPIPE, SIG_IGN);
    auto plain = HttpServer::Start(ShortDeadlines(), Handle);
    if (!plain.ok()) Fail("the plain server did not start");
    s->plain = *std::move(plain);

    const auto dir = std::filesystem::temp_directory_path() /
                     ("draplane-http-fuzz-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    auto creds = draplane::apiserver::LoadOrCreateCredentials(
        dir.string(), {"127.0.0.1", "localhost"});
    std::filesystem::remove_all(dir);
    if (!creds.ok()) Fail("no serving credentials");
    HttpServerOptions o = ShortDeadlines();
    o.tls_cert_pem = creds->cert_pem;
    o.tls_key_pem = creds->key_pem;
    auto tls = HttpServer::Start(o, Handle);
    if (!tls.ok()) Fail("the TLS server did not start");
    s->tls = *std::move(tls);

    s->client_ctx = SSL_CTX_new(TLS_client_method());
    if (s->client_ctx == nullptr) Fail("no client TLS context");
    static const unsigned char kAlpn[] = "\x02h2";
    SSL_CTX_set_alpn_protos(s->client_ctx, kAlpn, sizeof(kAlpn) - 1);
    return s;
  }();
  return *servers;
}

[[noreturn]] void ConnectFailed(int error) {
  std::fprintf(stderr, "connect: %s\n", std::strerror(error));
  Fail("could not connect to the server");
}

// A blocking loopback connection whose reads and writes give up after the
// deadline.
int Connect(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) Fail("socket");
  timeval tv{kReadDeadlineSeconds, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    // Interrupted by a signal (libFuzzer's timer), the connection goes on:
    // wait until it is made.
    if (errno != EINTR) ConnectFailed(errno);
    pollfd p{fd, POLLOUT, 0};
    while (::poll(&p, 1, kReadDeadlineSeconds * 1000) < 0 && errno == EINTR) {
    }
    int error = 0;
    socklen_t len = sizeof(error);
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len);
    if (error != 0) ConnectFailed(error);
  }
  return fd;
}

bool TimedOut() { return errno == EAGAIN || errno == EWOULDBLOCK; }

// A blocking TLS call cut short by a signal (libFuzzer's timeout timer
// raises SIGALRM): it is called again.
bool Interrupted(int ssl_error, int saved_errno) {
  return (ssl_error == SSL_ERROR_WANT_READ ||
          ssl_error == SSL_ERROR_WANT_WRITE ||
          ssl_error == SSL_ERROR_SYSCALL) &&
         saved_errno == EINTR;
}

// Plain HTTP/1.1: sends `bytes`, ends the write side, reads until the
// server closes. Returns what came back.
std::string ExchangePlain(std::string_view bytes) {
  const int fd = Connect(TheServers().plain->port());
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n =
        ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the server closed first: fine
    sent += static_cast<size_t>(n);
  }
  ::shutdown(fd, SHUT_WR);
  std::string answer;
  char buf[16384];
  while (true) {
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n > 0) {
      answer.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && TimedOut()) Fail("the server kept an ended connection open");
    break;
  }
  ::close(fd);
  return answer;
}

// TLS with ALPN h2: the client preface, then `frames`, then the write side
// ends (without close_notify); reads until the server closes.
void ExchangeHttp2(std::string_view frames) {
  const int fd = Connect(TheServers().tls->port());
  SSL* ssl = SSL_new(TheServers().client_ctx);
  SSL_set_fd(ssl, fd);
  while (true) {
    const int rc = SSL_connect(ssl);
    if (rc == 1) break;
    const int error = SSL_get_error(ssl, rc);
    const int saved_errno = errno;
    if (Interrupted(error, saved_errno)) continue;
    char why[256];
    ERR_error_string_n(ERR_get_error(), why, sizeof(why));
    std::fprintf(stderr, "SSL_connect: ssl error %d, errno %d (%s), %s\n",
                 error, saved_errno, std::strerror(saved_errno), why);
    Fail("TLS handshake with the server failed");
  }
  const unsigned char* alpn = nullptr;
  unsigned alpn_len = 0;
  SSL_get0_alpn_selected(ssl, &alpn, &alpn_len);
  if (std::string_view(reinterpret_cast<const char*>(alpn), alpn_len) != "h2") {
    Fail("the server did not choose h2");
  }
  std::string out = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  out.append(frames);
  size_t sent = 0;
  while (sent < out.size()) {
    const int n =
        SSL_write(ssl, out.data() + sent, static_cast<int>(out.size() - sent));
    if (n <= 0 && Interrupted(SSL_get_error(ssl, n), errno)) continue;
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  ::shutdown(fd, SHUT_WR);
  char buf[16384];
  while (true) {
    const int n = SSL_read(ssl, buf, sizeof(buf));
    if (n > 0) continue;
    const int error = SSL_get_error(ssl, n);
    if (Interrupted(error, errno)) continue;
    if ((error == SSL_ERROR_SYSCALL || error == SSL_ERROR_WANT_READ) &&
        TimedOut()) {
      Fail("the server kept an ended HTTP/2 connection open");
    }
    break;
  }
  ERR_clear_error();
  SSL_free(ssl);
  ::close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1),
                               size - 1);
  if ((data[0] & 1) == 0) {
    const std::string answer = ExchangePlain(bytes);
    // An HTTP/1.0 request is answered in HTTP/1.0, as Go's server does.
    if (!answer.empty() && answer.rfind("HTTP/1.1 ", 0) != 0 &&
        answer.rfind("HTTP/1.0 ", 0) != 0) {
      Fail("an HTTP/1.1 answer without a status line");
    }
  } else {
    ExchangeHttp2(bytes);
  }
  static unsigned inputs = 0;
  if (++inputs % 256 == 0) {
    const std::string answer =
        ExchangePlain("GET /alive?x=1 HTTP/1.1\r\nHost: f\r\n\r\n");
    if (answer.rfind("HTTP/1.1 200 ", 0) != 0 ||
        answer.find("GET /alive 1 0") == std::string::npos) {
      Fail("the server no longer serves a well-formed request");
    }
  }
  return 0;
}
