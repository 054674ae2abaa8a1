// One HTTP/2 connection of the client (nghttp2), shared by many calls as
// client-go shares one: each call is a stream; the connection runs on a
// thread of its own, and calls from any thread wait for their stream.
// Flow control follows each caller: a stream's window opens only as its
// caller takes the data, so a slow watcher holds back no other stream.
#ifndef DRAPLANE_CLIENT_INTERNAL_HTTP2_CONNECTION_H_
#define DRAPLANE_CLIENT_INTERNAL_HTTP2_CONNECTION_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "client/internal/connection.h"
#include "client/transport.h"

namespace draplane::client::internal {

struct Http2Request {
  std::string method;
  std::string authority;  // host[:port]
  std::string target;     // path and query, escaped
  // Lower-case names; no connection-specific ones.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

class Http2Connection {
 public:
  // `conn`: connected, its TLS handshake chose "h2". Starts the
  // connection's thread.
  static absl::StatusOr<std::shared_ptr<Http2Connection>> Start(
      std::unique_ptr<Conn> conn);
  virtual ~Http2Connection() = default;

  // Takes a stream slot for one Exchange: false when the connection is at
  // the server's SETTINGS_MAX_CONCURRENT_STREAMS (100 until the server
  // says), going away, or broken.
  virtual bool Reserve() = 0;
  // False once no new stream may be opened on it (GOAWAY, failure).
  virtual bool Usable() const = 0;
  // Streams in use now.
  virtual size_t active() const = 0;

  // Runs `req` on a slot taken by Reserve (given back on return):
  // `on_status` once with the status and headers (names lower-cased),
  // then `on_data` per piece of body, until the body ends (OK), `on_data`
  // returns false (OK; the stream is reset), `cancel` (OK), no status by
  // `header_deadline` or no end by `deadline` (DeadlineExceeded), or a
  // failure (Unavailable). `*refused` tells that the server did not
  // process the request (REFUSED_STREAM, or a GOAWAY before it), so it may
  // be sent again on another connection.
  virtual absl::Status Exchange(
      const Http2Request& req,
      const std::function<void(
          int status, const std::map<std::string, std::string>&)>& on_status,
      const std::function<bool(std::string_view)>& on_data,
      absl::Time header_deadline, absl::Time deadline, const CancelFlag* cancel,
      bool* refused) = 0;

  // Ends the connection and joins its thread; pending exchanges fail.
  virtual void Shutdown() = 0;
};

// The ALPN protocols a client offers for HTTP/2 with a fallback to
// HTTP/1.1, in OpenSSL's wire form.
inline constexpr std::string_view kAlpnH2AndHttp11("\x02h2\x08http/1.1", 12);

}  // namespace draplane::client::internal

#endif  // DRAPLANE_CLIENT_INTERNAL_HTTP2_CONNECTION_H_
