// A small HTTP server with optional TLS, for the API server and every
// component's metrics and health endpoints: HTTP/1.1 (Boost.Beast), and
// over TLS HTTP/2 (nghttp2) for clients that offer "h2" by ALPN, as
// kube-apiserver serves it (kubectl and client-go multiplex requests and
// watches on one connection).
//
// Connections live on an event loop: accepting, TLS handshakes, waiting
// for and reading requests cost no thread. A request whose header and body
// have arrived runs its handler on a bounded pool of handler threads, so
// threads follow the requests being served, not the connections open; a
// handler may detach a streamed response (a watch), which then costs no
// thread either.
// Every wait has a deadline (handshake and header, idle keep-alive, body,
// each write); the number of connections is capped below the process's
// file-descriptor limit; failing to get a thread answers 503 and never
// ends the process.
#ifndef DRAPLANE_HTTP_HTTP_SERVER_H_
#define DRAPLANE_HTTP_HTTP_SERVER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace draplane::http {

// The certificate a TLS client presented, when the server asks for one
// (HttpServerOptions::tls_client_ca_pem).
struct ClientCertificate {
  // Whether it chains to the client CA, is within its validity and is
  // meant for client authentication; `error` says why not.
  bool verified = false;
  std::string error;
  std::string common_name;                 // the subject's CN
  std::vector<std::string> organizations;  // the subject's O values
};

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // percent-decoded, without the query
  // The request target as sent (path and query, not decoded); "" for
  // requests made in process.
  std::string target;
  // Query parameters, percent-decoded; repeated names keep every value.
  std::multimap<std::string, std::string> query;
  // Header names lower-cased. A header sent more than once holds its
  // values in order, joined by '\n' (which no header value can hold).
  std::map<std::string, std::string> headers;
  std::string body;
  // Set when the connection's client presented a certificate.
  std::optional<ClientCertificate> client_certificate;
  // The connection's peer IP address ("" in process), for audit records.
  std::string remote_address;
  // Set when HttpServerOptions::may_read_body refused the body: `body` is
  // empty and the handler must refuse the request.
  bool body_withheld = false;

  // The first value of a query parameter, or "" when absent.
  std::string Query(std::string_view name) const;
  bool HasQuery(std::string_view name) const;
  // The header's value, or "" when absent. `name` must be lower case.
  std::string Header(std::string_view name) const;
};

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

// A streamed response its handler handed over (ResponseWriter::Detach) so
// that no thread waits on it: writes queue without blocking and go out on
// the server's event loop; the connection stays open until the stream
// ends. Thread-safe.
class DetachedStream {
 public:
  virtual ~DetachedStream() = default;
  // Queues one chunk; false once the stream has ended.
  virtual bool Write(std::string data) = 0;
  // Bytes queued or being written.
  virtual size_t QueuedBytes() const = 0;
  // True once the stream has ended: the client closed the connection or
  // sent anything on it, a write failed or passed the write timeout, the
  // server stopped, or Close() or Abort() ended it.
  virtual bool Ended() const = 0;
  // Ends the response once what is queued has been written.
  virtual void Close() = 0;
  // Ends it at once; what is queued is dropped.
  virtual void Abort() = 0;
  // `f` runs on the event loop each time everything queued has been
  // written, and once more when the stream ends (at once, on this thread,
  // if it has ended already). It must not block.
  virtual void OnDrainOrEnd(std::function<void()> f) = 0;
};

// How a handler answers. Exactly one of Send() or StartStream() must be
// called, once.
class ResponseWriter {
 public:
  virtual ~ResponseWriter() = default;
  // A complete response with Content-Length.
  virtual void Send(int status, const HttpHeaders& headers,
                    std::string body) = 0;
  // Starts a chunked response; false when the client is gone.
  virtual bool StartStream(int status, const HttpHeaders& headers) = 0;
  // Writes and flushes one chunk; false when the client is gone (the
  // handler should then return).
  virtual bool WriteChunk(std::string_view data) = 0;
  // True once the server is stopping: long streams should end.
  virtual bool Stopping() const = 0;
  // True when the client has closed its side (checked without blocking):
  // an idle stream should end.
  virtual bool ClientGone() const = 0;
  // Ends the exchange at once: callable from any thread while the handler
  // runs (a write it is blocked in fails, later writes fail), for a stream
  // whose reader fell too far behind. Writers that never block need not
  // do anything.
  virtual void Abort() {}
  // After StartStream(): hands the stream over, so that the handler can
  // return and write through the result from any thread, and the rest of
  // the stream costs no thread. Null when this writer keeps streams on
  // the handler's thread (in process): the handler streams as before.
  // Once detached, the writer must not be used again.
  virtual std::shared_ptr<DetachedStream> Detach() { return nullptr; }
};

// Called on a handler thread; may block (watches do) and may take as long
// as it needs, but each write it makes fails after
// HttpServerOptions::write_timeout without progress.
using HttpHandler = std::function<void(const HttpRequest&, ResponseWriter&)>;

struct HttpServerOptions {
  std::string address = "127.0.0.1";
  uint16_t port = 0;  // 0: any free port
  // PEM certificate chain and key; both empty = plain HTTP.
  std::string tls_cert_pem;
  std::string tls_key_pem;
  // PEM CA bundle. Set (with TLS): the server asks every client for a
  // certificate without requiring one, and checks a presented one against
  // these CAs after the handshake (a bad certificate does not fail the
  // handshake; the handler sees why in HttpRequest::client_certificate, so
  // that it can answer 401 as kube-apiserver does).
  std::string tls_client_ca_pem;
  // Larger request bodies get 413 (the handler never sees them).
  size_t max_body_bytes = 3 * 1024 * 1024;
  // Larger request headers close the connection (Go's http.Server
  // DefaultMaxHeaderBytes).
  size_t max_header_bytes = 1024 * 1024;
  // Deadline of the TLS handshake and, from then, of the first request's
  // header (kube-apiserver's ReadHeaderTimeout).
  std::chrono::seconds header_timeout{32};
  // How long a kept-alive connection may wait for its next request.
  std::chrono::seconds idle_timeout{90};
  // Deadline of reading a request's body, and of each write of a
  // response (a stream's chunk too).
  std::chrono::seconds write_timeout{60};
  // Connections open at once; 0: derived from the file-descriptor limit
  // (raised to its hard limit when the server starts). At the cap the
  // connection idle the longest is closed for a new one; when none is
  // idle the new one is closed at once.
  size_t max_connections = 0;
  // Handler threads at most (and at most half the process limit,
  // RLIMIT_NPROC, when there is one); an HTTP/1.1 request beyond them gets
  // 503 with Retry-After, an HTTP/2 stream waits for a thread (at most
  // this many streams wait; beyond that, 503).
  size_t max_handler_threads = 1024;
  // With TLS: offer HTTP/2 by ALPN.
  bool http2 = true;
  // HTTP/2 streams open at once per connection, as advertised in
  // SETTINGS_MAX_CONCURRENT_STREAMS (kube-apiserver's default); handlers
  // running for a connection's streams, reset ones included, are bounded
  // by it too.
  size_t max_concurrent_streams = 100;
  // Called on the event loop with a request's header (no body yet) before
  // a body of more than 64 KiB, or of unknown length, is read; false: the
  // body is not read, the handler gets the request without it (to answer,
  // say, 401), and the connection is closed. Must not block. Unset: every
  // body is read.
  std::function<bool(const HttpRequest&)> may_read_body;
  // Body of the 413 answer (a Kubernetes Status in the API server).
  std::string too_large_body;
};

class HttpServer {
 public:
  // Binds and starts accepting on a background thread.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(
      const HttpServerOptions& options, HttpHandler handler);
  virtual ~HttpServer() = default;
  // The bound port (useful with port 0).
  virtual uint16_t port() const = 0;
  // Stops accepting, closes every connection (streams see Stopping() and
  // failed writes) and joins all threads. Idempotent; the destructor
  // calls it.
  virtual void Stop() = 0;
};

}  // namespace draplane::http

#endif  // DRAPLANE_HTTP_HTTP_SERVER_H_
