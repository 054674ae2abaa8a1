#include "client/internal/http2_connection.h"

#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <cstdint>
#include <optional>
#include <system_error>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/str_cat.h"
#include "http/http2_fields.h"

namespace draplane::client::internal {
namespace {

// Each stream's receive window: what one slow caller may leave unread.
constexpr int32_t kStreamWindow = 1 << 20;
// The connection's receive window, large enough that streams' windows
// (not the connection's) hold back a slow caller, as client-go's 1 GiB.
constexpr int32_t kConnectionWindow = 1 << 30;
// Streams assumed allowed until the server's SETTINGS say, and at most
// when they set no limit.
constexpr size_t kDefaultMaxStreams = 100;
constexpr size_t kUnlimitedMaxStreams = 1000;
// Bytes gathered from nghttp2 for one socket write.
constexpr size_t kWriteBatch = 64 * 1024;
// How often a waiting caller checks its cancel flag.
constexpr absl::Duration kCancelPoll = absl::Milliseconds(50);

// One exchange, shared by its caller and the connection's thread.
struct StreamState {
  absl::Mutex mu;
  absl::CondVar changed;
  int32_t id ABSL_GUARDED_BY(mu) = 0;
  int status ABSL_GUARDED_BY(mu) = 0;
  std::map<std::string, std::string> headers ABSL_GUARDED_BY(mu);
  bool headers_done ABSL_GUARDED_BY(mu) = false;
  std::string data ABSL_GUARDED_BY(mu);
  bool ended ABSL_GUARDED_BY(mu) = false;
  uint32_t error ABSL_GUARDED_BY(mu) = 0;   // RST_STREAM's code
  bool failed ABSL_GUARDED_BY(mu) = false;  // the connection failed
  bool sent ABSL_GUARDED_BY(mu) = false;    // the request's HEADERS went out
  // The request body, read by nghttp2 on the connection's thread only.
  std::string body;
  size_t body_offset = 0;
};

class Http2ConnectionImpl : public Http2Connection {
 public:
  explicit Http2ConnectionImpl(std::unique_ptr<Conn> conn)
      : conn_(std::move(conn)), work_(net::make_work_guard(conn_->ioc())) {}
  ~Http2ConnectionImpl() override {
    Shutdown();
    if (session_ != nullptr) nghttp2_session_del(session_);
  }
  Http2ConnectionImpl(const Http2ConnectionImpl&) = delete;
  Http2ConnectionImpl& operator=(const Http2ConnectionImpl&) = delete;

  absl::Status Init();

  bool Reserve() override {
    absl::MutexLock lock(&mu_);
    if (!usable_ || active_ >= max_streams_) return false;
    ++active_;
    return true;
  }
  bool Usable() const override {
    absl::MutexLock lock(&mu_);
    return usable_;
  }
  size_t active() const override {
    absl::MutexLock lock(&mu_);
    return active_;
  }

  absl::Status Exchange(
      const Http2Request& req,
      const std::function<void(int, const std::map<std::string, std::string>&)>&
          on_status,
      const std::function<bool(std::string_view)>& on_data,
      absl::Time header_deadline, absl::Time deadline, const CancelFlag* cancel,
      bool* refused) override;

  void Shutdown() override {
    {
      absl::MutexLock lock(&mu_);
      if (stopped_) return;
      stopped_ = true;
      usable_ = false;
    }
    if (thread_.joinable()) {
      net::post(conn_->ioc(), [this] {
        conn_->Close();
        FailAll();
        work_.reset();
      });
      thread_.join();
    }
    FailAll();
  }

 private:
  static Http2ConnectionImpl& Of(void* p) {
    return *static_cast<Http2ConnectionImpl*>(p);
  }
  StreamState* StateOf(int32_t id) {
    auto it = streams_.find(id);
    return it == streams_.end() ? nullptr : it->second.get();
  }

  // On the connection's thread.
  void Submit(const std::shared_ptr<StreamState>& st, const Http2Request& req);
  void Reset(const std::shared_ptr<StreamState>& st);
  void Consume(const std::shared_ptr<StreamState>& st, size_t n);
  void Read();
  void Flush();
  // The connection is over: every stream fails.
  void Fail() {
    {
      absl::MutexLock lock(&mu_);
      usable_ = false;
    }
    conn_->Close();
    FailAll();
  }
  void FailAll() {
    for (auto& [id, st] : streams_) {
      absl::MutexLock lock(&st->mu);
      st->failed = true;
      st->ended = true;
      st->changed.SignalAll();
    }
    streams_.clear();
  }
  void Release() {
    absl::MutexLock lock(&mu_);
    --active_;
  }

  static int OnHeader(nghttp2_session*, const nghttp2_frame* frame,
                      const uint8_t* name, size_t namelen, const uint8_t* value,
                      size_t valuelen, uint8_t, void* p);
  static int OnFrameRecv(nghttp2_session*, const nghttp2_frame* frame, void* p);
  static int OnDataChunk(nghttp2_session*, uint8_t, int32_t id,
                         const uint8_t* data, size_t len, void* p);
  static int OnStreamClose(nghttp2_session*, int32_t id, uint32_t error,
                           void* p);
  static int OnFrameSend(nghttp2_session*, const nghttp2_frame* frame, void* p);
  static int OnFrameNotSend(nghttp2_session*, const nghttp2_frame* frame,
                            int error, void* p);
  static ssize_t ReadBody(nghttp2_session*, int32_t, uint8_t* buf,
                          size_t length, uint32_t* flags,
                          nghttp2_data_source* source, void*);

  const std::unique_ptr<Conn> conn_;
  net::executor_work_guard<net::io_context::executor_type> work_;
  std::thread thread_;
  // The connection's thread only.
  nghttp2_session* session_ = nullptr;
  absl::flat_hash_map<int32_t, std::shared_ptr<StreamState>> streams_;
  std::array<uint8_t, 16 * 1024> in_{};
  std::string out_;
  bool writing_ = false;

  mutable absl::Mutex mu_;
  size_t active_ ABSL_GUARDED_BY(mu_) = 0;
  size_t max_streams_ ABSL_GUARDED_BY(mu_) = kDefaultMaxStreams;
  bool usable_ ABSL_GUARDED_BY(mu_) = true;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

absl::Status Http2ConnectionImpl::Init() {
  nghttp2_session_callbacks* cb = nullptr;
  if (nghttp2_session_callbacks_new(&cb) != 0) {
    return absl::ResourceExhaustedError("cannot start an HTTP/2 session");
  }
  nghttp2_session_callbacks_set_on_header_callback(cb, &OnHeader);
  nghttp2_session_callbacks_set_on_frame_recv_callback(cb, &OnFrameRecv);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, &OnDataChunk);
  nghttp2_session_callbacks_set_on_stream_close_callback(cb, &OnStreamClose);
  nghttp2_session_callbacks_set_on_frame_send_callback(cb, &OnFrameSend);
  nghttp2_session_callbacks_set_on_frame_not_send_callback(cb, &OnFrameNotSend);
  nghttp2_option* option = nullptr;
  nghttp2_option_new(&option);
  // Windows open as callers take their data (Consume).
  nghttp2_option_set_no_auto_window_update(option, 1);
  const int rv = nghttp2_session_client_new2(&session_, cb, this, option);
  nghttp2_option_del(option);
  nghttp2_session_callbacks_del(cb);
  if (rv != 0) {
    session_ = nullptr;
    return absl::ResourceExhaustedError("cannot start an HTTP/2 session");
  }
  const std::array<nghttp2_settings_entry, 2> settings{{
      {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, kStreamWindow},
  }};
  nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings.data(),
                          settings.size());
  nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0,
                                        kConnectionWindow);
  conn_->ioc().restart();
  net::post(conn_->ioc(), [this] {
    Read();
    Flush();
  });
  try {
    thread_ = std::thread([this] { conn_->ioc().run(); });
  } catch (const std::system_error& e) {
    absl::MutexLock lock(&mu_);
    usable_ = false;
    stopped_ = true;
    return absl::ResourceExhaustedError(
        StrCat("cannot start an HTTP/2 connection's thread: ", e.what()));
  }
  return absl::OkStatus();
}

absl::Status Http2ConnectionImpl::Exchange(
    const Http2Request& req,
    const std::function<void(int, const std::map<std::string, std::string>&)>&
        on_status,
    const std::function<bool(std::string_view)>& on_data,
    absl::Time header_deadline, absl::Time deadline, const CancelFlag* cancel,
    bool* refused) {
  *refused = false;
  auto st = std::make_shared<StreamState>();
  st->body = req.body;
  net::post(conn_->ioc(), [this, st, req] { Submit(st, req); });
  bool status_given = false;
  absl::Status result = absl::OkStatus();
  while (true) {
    std::string chunk;
    std::optional<std::pair<int, std::map<std::string, std::string>>> status;
    bool ended = false;
    bool failed = false;
    bool sent = false;
    uint32_t error = 0;
    {
      absl::MutexLock lock(&st->mu);
      auto ready = [&]() ABSL_SHARED_LOCKS_REQUIRED(st->mu) {
        return (st->headers_done && !status_given) || !st->data.empty() ||
               st->ended;
      };
      while (!ready()) {
        if (cancel != nullptr && cancel->load()) break;
        const absl::Time until = status_given ? deadline : header_deadline;
        if (absl::Now() >= until) break;
        st->changed.WaitWithTimeout(&st->mu,
                                    std::min(kCancelPoll, until - absl::Now()));
      }
      if (st->headers_done && !status_given) {
        status.emplace(st->status, std::move(st->headers));
      }
      chunk.swap(st->data);
      ended = st->ended && chunk.empty();
      failed = st->failed;
      sent = st->sent;
      error = st->error;
    }
    if (status) {
      status_given = true;
      if (on_status) on_status(status->first, status->second);
    }
    if (!chunk.empty()) {
      const size_t n = chunk.size();
      net::post(conn_->ioc(), [this, st, n] { Consume(st, n); });
      if (!on_data(chunk)) {
        net::post(conn_->ioc(), [this, st] { Reset(st); });
        break;
      }
      continue;
    }
    if (ended) {
      if (failed) {
        result = absl::UnavailableError("the HTTP/2 connection was lost");
        *refused = !sent;
      } else if (error == NGHTTP2_REFUSED_STREAM) {
        result = absl::UnavailableError("the server refused the stream");
        *refused = !status_given;
      } else if (error != NGHTTP2_NO_ERROR || !status_given) {
        result = absl::UnavailableError(
            StrCat("the server reset the stream (HTTP/2 error ", error, ")"));
      }
      break;
    }
    if (status) continue;
    if (cancel != nullptr && cancel->load()) {
      net::post(conn_->ioc(), [this, st] { Reset(st); });
      break;
    }
    if (absl::Now() >= (status_given ? deadline : header_deadline)) {
      net::post(conn_->ioc(), [this, st] { Reset(st); });
      result = absl::DeadlineExceededError("timed out");
      break;
    }
  }
  Release();
  return result;
}

void Http2ConnectionImpl::Submit(const std::shared_ptr<StreamState>& st,
                                 const Http2Request& req) {
  static const std::string kMethod = ":method", kScheme = ":scheme",
                           kHttps = "https", kAuthority = ":authority",
                           kPath = ":path";
  std::vector<nghttp2_nv> nva;
  nva.reserve(req.headers.size() + 4);
  nva.push_back(http::Http2Field(kMethod, req.method));
  nva.push_back(http::Http2Field(kScheme, kHttps));
  nva.push_back(http::Http2Field(kAuthority, req.authority));
  nva.push_back(http::Http2Field(kPath, req.target));
  for (const auto& [name, value] : req.headers)
    nva.push_back(http::Http2Field(name, value));
  nghttp2_data_provider provider{};
  provider.source.ptr = st.get();
  provider.read_callback = &ReadBody;
  bool stopped = false;
  {
    absl::MutexLock lock(&mu_);
    stopped = stopped_;
  }
  const int32_t id = stopped
                         ? -1
                         : nghttp2_submit_request(
                               session_, nullptr, nva.data(), nva.size(),
                               st->body.empty() ? nullptr : &provider, nullptr);
  if (id < 0) {
    absl::MutexLock lock(&st->mu);
    st->failed = true;
    st->ended = true;
    st->changed.SignalAll();
    return;
  }
  {
    absl::MutexLock lock(&st->mu);
    st->id = id;
  }
  streams_[id] = st;
  Flush();
}

void Http2ConnectionImpl::Reset(const std::shared_ptr<StreamState>& st) {
  int32_t id = 0;
  {
    absl::MutexLock lock(&st->mu);
    id = st->id;
  }
  if (id <= 0 || !streams_.contains(id)) return;
  nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
  Flush();
}

void Http2ConnectionImpl::Consume(const std::shared_ptr<StreamState>& st,
                                  size_t n) {
  int32_t id = 0;
  {
    absl::MutexLock lock(&st->mu);
    id = st->id;
  }
  if (streams_.contains(id)) {
    nghttp2_session_consume(session_, id, n);
  } else {
    nghttp2_session_consume_connection(session_, n);
  }
  Flush();
}

void Http2ConnectionImpl::Read() {
  conn_->tls().async_read_some(
      net::buffer(in_), [this](error_code ec, size_t n) {
        if (ec) {
          Fail();
          return;
        }
        if (nghttp2_session_mem_recv(session_, in_.data(), n) < 0) {
          Fail();
          return;
        }
        Read();
        Flush();
      });
}

void Http2ConnectionImpl::Flush() {
  if (writing_) return;
  out_.clear();
  while (out_.size() < kWriteBatch) {
    const uint8_t* data = nullptr;
    const ssize_t n = nghttp2_session_mem_send(session_, &data);
    if (n < 0) {
      Fail();
      return;
    }
    if (n == 0) break;
    out_.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
  }
  if (out_.empty()) return;
  writing_ = true;
  net::async_write(conn_->tls(), net::buffer(out_),
                   [this](error_code ec, size_t) {
                     writing_ = false;
                     if (ec) {
                       Fail();
                       return;
                     }
                     Flush();
                   });
}

int Http2ConnectionImpl::OnHeader(nghttp2_session*, const nghttp2_frame* frame,
                                  const uint8_t* name, size_t namelen,
                                  const uint8_t* value, size_t valuelen,
                                  uint8_t, void* p) {
  StreamState* st = Of(p).StateOf(frame->hd.stream_id);
  if (st == nullptr) return 0;
  std::string n(reinterpret_cast<const char*>(name), namelen);
  std::string v(reinterpret_cast<const char*>(value), valuelen);
  absl::MutexLock lock(&st->mu);
  if (st->headers_done) return 0;  // trailers
  if (n == ":status") {
    if (!absl::SimpleAtoi(v, &st->status)) st->status = 0;
    return 0;
  }
  auto [it, inserted] = st->headers.emplace(n, v);
  if (!inserted) it->second = StrCat(it->second, ", ", v);
  return 0;
}

int Http2ConnectionImpl::OnFrameRecv(nghttp2_session* session,
                                     const nghttp2_frame* frame, void* p) {
  Http2ConnectionImpl& self = Of(p);
  switch (frame->hd.type) {
    case NGHTTP2_HEADERS: {
      StreamState* st = self.StateOf(frame->hd.stream_id);
      if (st == nullptr) break;
      absl::MutexLock lock(&st->mu);
      if (st->status >= 200 && !st->headers_done) {
        st->headers_done = true;
        st->changed.SignalAll();
      } else if (st->status < 200) {
        st->headers.clear();  // an informational response: another follows
      }
      break;
    }
    case NGHTTP2_SETTINGS:
      if ((frame->hd.flags & NGHTTP2_FLAG_ACK) == 0) {
        // A server that sets no limit gets at most kUnlimitedMaxStreams
        // (Go's http2 client: 1,000).
        absl::MutexLock lock(&self.mu_);
        self.max_streams_ = std::min<size_t>(
            kUnlimitedMaxStreams,
            nghttp2_session_get_remote_settings(
                session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS));
      }
      break;
    case NGHTTP2_GOAWAY: {
      absl::MutexLock lock(&self.mu_);
      self.usable_ = false;
      break;
    }
    default:
      break;
  }
  return 0;
}

int Http2ConnectionImpl::OnDataChunk(nghttp2_session*, uint8_t, int32_t id,
                                     const uint8_t* data, size_t len, void* p) {
  StreamState* st = Of(p).StateOf(id);
  if (st == nullptr) return 0;
  absl::MutexLock lock(&st->mu);
  st->data.append(reinterpret_cast<const char*>(data), len);
  st->changed.SignalAll();
  return 0;
}

int Http2ConnectionImpl::OnStreamClose(nghttp2_session*, int32_t id,
                                       uint32_t error, void* p) {
  Http2ConnectionImpl& self = Of(p);
  auto it = self.streams_.find(id);
  if (it == self.streams_.end()) return 0;
  {
    StreamState& st = *it->second;
    absl::MutexLock lock(&st.mu);
    st.ended = true;
    st.error = error;
    st.changed.SignalAll();
  }
  self.streams_.erase(it);
  return 0;
}

int Http2ConnectionImpl::OnFrameSend(nghttp2_session*,
                                     const nghttp2_frame* frame, void* p) {
  if (frame->hd.type != NGHTTP2_HEADERS) return 0;
  StreamState* st = Of(p).StateOf(frame->hd.stream_id);
  if (st == nullptr) return 0;
  absl::MutexLock lock(&st->mu);
  st->sent = true;
  return 0;
}

// A request that could not be sent (the server said GOAWAY meanwhile)
// fails unsent: it may go on another connection.
int Http2ConnectionImpl::OnFrameNotSend(nghttp2_session*,
                                        const nghttp2_frame* frame, int,
                                        void* p) {
  if (frame->hd.type != NGHTTP2_HEADERS) return 0;
  Http2ConnectionImpl& self = Of(p);
  auto it = self.streams_.find(frame->hd.stream_id);
  if (it == self.streams_.end()) return 0;
  {
    StreamState& st = *it->second;
    absl::MutexLock lock(&st.mu);
    st.failed = true;
    st.ended = true;
    st.changed.SignalAll();
  }
  self.streams_.erase(it);
  return 0;
}

ssize_t Http2ConnectionImpl::ReadBody(nghttp2_session*, int32_t, uint8_t* buf,
                                      size_t length, uint32_t* flags,
                                      nghttp2_data_source* source, void*) {
  auto* st = static_cast<StreamState*>(source->ptr);
  const size_t n = std::min(length, st->body.size() - st->body_offset);
  std::copy_n(st->body.data() + st->body_offset, n, buf);
  st->body_offset += n;
  if (st->body_offset == st->body.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(n);
}

}  // namespace

absl::StatusOr<std::shared_ptr<Http2Connection>> Http2Connection::Start(
    std::unique_ptr<Conn> conn) {
  auto c = std::make_shared<Http2ConnectionImpl>(std::move(conn));
  if (absl::Status st = c->Init(); !st.ok()) return st;
  return std::shared_ptr<Http2Connection>(std::move(c));
}

}  // namespace draplane::client::internal
