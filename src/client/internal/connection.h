// One client connection (TCP, or TLS over it) with its own io_context,
// which the calling thread runs in short slices (Run), so that deadlines
// and cancellation are noticed within ~50 ms without extra threads; an
// HTTP/2 connection runs it on a thread of its own instead.
#ifndef DRAPLANE_CLIENT_INTERNAL_CONNECTION_H_
#define DRAPLANE_CLIENT_INTERNAL_CONNECTION_H_

#include <sys/socket.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <cerrno>
#include <chrono>
#include <optional>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "client/transport.h"

namespace draplane::client::internal {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
using tcp = net::ip::tcp;
using boost::system::error_code;

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

}  // namespace draplane::client::internal

#endif  // DRAPLANE_CLIENT_INTERNAL_CONNECTION_H_
