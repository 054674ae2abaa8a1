// HTTP/2 (RFC 9113, with nghttp2) on a TLS connection whose handshake
// chose "h2" by ALPN, as kube-apiserver serves it: each request is a
// stream; streams are multiplexed, their handlers run on the server's
// handler threads, and a handler's response reaches the client through
// the connection's event-loop strand.
//
// Bounds, besides the server's own (header and body size, timeouts):
// - at most HttpServerOptions::max_concurrent_streams streams open, and as
//   many handlers running, per connection: a stream the client reset
//   counts until its handler returns, so resetting streams never starts
//   more work (rapid reset, CVE-2023-44487); resets past nghttp2's rate
//   limit (a burst of 1,000, then 33 a second) end the connection;
// - a header block of at most kMaxContinuations CONTINUATION frames
//   (counted by nghttp2) and max_header_bytes decoded (CONTINUATION
//   floods, as CVE-2024-28182);
// - requests no handler has begun yet (headers and bodies being
//   received, or waiting for a handler thread) hold at most
//   max_header_bytes + max_body_bytes per connection, one request of the
//   largest size; a stream past it is refused (REFUSED_STREAM, which
//   clients retry);
// - a request that is not complete within write_timeout is reset; a
//   connection without streams closes after header_timeout (no request
//   yet) or idle_timeout.
#ifndef DRAPLANE_HTTP_INTERNAL_HTTP2_CONNECTION_H_
#define DRAPLANE_HTTP_INTERNAL_HTTP2_CONNECTION_H_

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "http/http_server.h"

namespace draplane::http::internal {

inline constexpr size_t kMaxContinuations = 8;

// What an HTTP/2 connection needs of its server.
struct Http2Environment {
  const HttpServerOptions* options = nullptr;
  const HttpHandler* handler = nullptr;
  const std::atomic<bool>* stopping = nullptr;
  // Runs a task on a handler thread, or queues it for a busy one; false
  // when neither can be (the stream is answered 503).
  std::function<bool(std::function<void()>)> run_handler;
  // Called with true when the connection has no stream open (it may be
  // closed for a new connection), false when one opens.
  std::function<void(bool idle)> set_idle;
  std::optional<ClientCertificate> certificate;
  std::string remote_address;
};

using TlsStream = boost::asio::ssl::stream<boost::asio::ip::tcp::socket>;

// Serves HTTP/2 on `stream` until the connection ends: reads, writes and
// every nghttp2 call run on the executor of `stream`'s socket (a strand),
// from which this must be called. `owner` keeps `stream` alive until then;
// `done` runs on the strand once the connection is over (its socket shut
// down, every stream ended), to close it.
void ServeHttp2(Http2Environment env, TlsStream& stream,
                std::shared_ptr<void> owner, std::function<void()> done);

// The ALPN protocol list the server offers, in OpenSSL's wire form: "h2"
// (when `http2`) before "http/1.1".
std::string AlpnProtocols(bool http2);

}  // namespace draplane::http::internal

#endif  // DRAPLANE_HTTP_INTERNAL_HTTP2_CONNECTION_H_
