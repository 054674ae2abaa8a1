#include "http/internal/http2_connection.h"

#include <nghttp2/nghttp2.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/str_cat.h"
#include "http/http2_fields.h"
#include "http/internal/request_target.h"

namespace draplane::http::internal {
namespace {

namespace net = boost::asio;
using error_code = boost::system::error_code;
using Clock = std::chrono::steady_clock;

// Bodies longer than this (or of unknown length) are read only after
// HttpServerOptions::may_read_body agrees, as over HTTP/1.1.
constexpr uint64_t kBodyCheckedAbove = 64 * 1024;
// A handler's blocking writes return once no more than this is queued.
constexpr size_t kThreadedWriteWindow = 256 * 1024;
// Bytes gathered from nghttp2 for one socket write.
constexpr size_t kWriteBatch = 64 * 1024;
// The stream and connection receive windows advertised.
constexpr int32_t kReceiveWindow = 1 << 20;

class Http2Session;

// One request and its response. The request's fields are filled on the
// strand while it arrives; the response is queued from the handler's
// thread (or any thread, once detached) and taken by nghttp2's data
// callback on the strand.
class Http2Stream : public DetachedStream,
                    public std::enable_shared_from_this<Http2Stream> {
 public:
  Http2Stream(std::weak_ptr<Http2Session> session, net::any_io_executor strand,
              int32_t id)
      : id_(id), session_(std::move(session)), strand_(std::move(strand)) {}

  int32_t id() const { return id_; }

  // On the strand, while the request arrives.
  HttpRequest request;
  size_t header_bytes = 0;
  size_t held = 0;  // of the connection's held request bytes
  bool header_too_large = false;
  bool remote_ended = false;  // the client sent END_STREAM
  bool dispatched = false;    // handed to a handler (or answered)
  bool discard_body = false;  // what else the client sends is dropped
  Clock::time_point began = Clock::now();

  // Queues the response's header and, with `end`, its whole body.
  void Respond(int status, const HttpHeaders& headers, std::string body,
               bool end);

  bool Write(std::string data) override {
    absl::MutexLock lock(&mu_);
    if (ended_ || closing_) return false;
    if (data.empty()) return true;
    queued_.append(data);
    ResumeLocked();
    return true;
  }

  size_t QueuedBytes() const override {
    absl::MutexLock lock(&mu_);
    return queued_.size() - offset_;
  }

  bool Ended() const override {
    absl::MutexLock lock(&mu_);
    return ended_;
  }

  void Close() override {
    absl::MutexLock lock(&mu_);
    if (ended_ || closing_) return;
    closing_ = true;
    ResumeLocked();
  }

  void Abort() override;

  // From the handler's thread as it begins: the request's bytes are the
  // handler's now, no longer held by the connection.
  void Started();

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

  // Blocks until at most `at_most` bytes are queued, or the stream ends;
  // false when it ended or made no progress for `timeout`.
  bool WaitQueuedAtMost(size_t at_most, absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    while (!ended_ && queued_.size() - offset_ > at_most) {
      const uint64_t before = progress_;
      if (changed_.WaitWithTimeout(&mu_, timeout) && progress_ == before &&
          !ended_) {
        return false;
      }
    }
    return !ended_;
  }

  // On the strand: nghttp2's data source.
  ssize_t ReadData(uint8_t* buf, size_t length, uint32_t* flags);
  // On the strand: the stream is closed (or the connection is over).
  void MarkEnded() {
    std::shared_ptr<std::function<void()>> on_end;
    {
      absl::MutexLock lock(&mu_);
      if (ended_) return;
      ended_ = true;
      std::string().swap(queued_);
      offset_ = 0;
      on_end = std::move(notify_);
      strand_.reset();  // it must not outlive the server's event loop
      changed_.SignalAll();
    }
    if (on_end != nullptr) (*on_end)();
  }

 private:
  // Runs `f` on the strand with the session, if both are still there.
  void Post(std::function<void(Http2Session&)> f)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Wakes nghttp2's data callback once it has said there was nothing.
  void ResumeLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int32_t id_;
  const std::weak_ptr<Http2Session> session_;
  mutable absl::Mutex mu_;
  std::optional<net::any_io_executor> strand_ ABSL_GUARDED_BY(mu_);
  std::string queued_ ABSL_GUARDED_BY(mu_);
  size_t offset_ ABSL_GUARDED_BY(mu_) = 0;  // taken from queued_ already
  uint64_t progress_ ABSL_GUARDED_BY(mu_) = 0;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  bool deferred_ ABSL_GUARDED_BY(mu_) = false;  // the data callback waits
  bool resume_posted_ ABSL_GUARDED_BY(mu_) = false;
  std::shared_ptr<std::function<void()>> notify_ ABSL_GUARDED_BY(mu_);
  absl::CondVar changed_;  // progress_ or ended_ changed
};

// Answers one request from its handler's thread.
class Http2Writer : public ResponseWriter {
 public:
  Http2Writer(std::shared_ptr<Http2Stream> stream,
              const HttpServerOptions& options,
              const std::atomic<bool>& stopping)
      : stream_(std::move(stream)),
        stopping_(stopping),
        timeout_(absl::FromChrono(options.write_timeout)) {}

  void Send(int status, const HttpHeaders& headers, std::string body) override {
    if (answered_) return;
    answered_ = true;
    stream_->Respond(status, headers, std::move(body), true);
    WaitWritten();
  }

  bool StartStream(int status, const HttpHeaders& headers) override {
    if (answered_) return false;
    answered_ = true;
    streamed_ = true;
    stream_->Respond(status, headers, "", false);
    return !stream_->Ended();
  }

  bool WriteChunk(std::string_view data) override {
    if (!streamed_ || detached_) return false;
    if (!stream_->Write(std::string(data))) return false;
    if (stream_->WaitQueuedAtMost(kThreadedWriteWindow, timeout_)) return true;
    stream_->Abort();
    return false;
  }

  bool Stopping() const override { return stopping_.load(); }
  bool ClientGone() const override { return stream_->Ended(); }
  void Abort() override { stream_->Abort(); }

  std::shared_ptr<DetachedStream> Detach() override {
    if (!streamed_ || detached_ || stream_->Ended()) return nullptr;
    detached_ = true;
    return stream_;
  }

  void Finish() {
    if (detached_) return;
    if (!answered_) {
      Send(500, {{"Content-Type", "text/plain"}}, "no response\n");
    } else if (streamed_) {
      stream_->Close();
      WaitWritten();
    }
  }

 private:
  // As over HTTP/1.1, the handler's thread waits for a slow reader, so
  // that responses waiting for one are bounded by the handler threads; a
  // reader that takes nothing for the write timeout loses the stream.
  void WaitWritten() {
    if (!stream_->WaitQueuedAtMost(0, timeout_)) stream_->Abort();
  }

  const std::shared_ptr<Http2Stream> stream_;
  const std::atomic<bool>& stopping_;
  const absl::Duration timeout_;
  bool answered_ = false;
  bool streamed_ = false;
  bool detached_ = false;
};

class Http2Session : public std::enable_shared_from_this<Http2Session> {
 public:
  Http2Session(Http2Environment env, TlsStream& stream,
               std::shared_ptr<void> owner, std::function<void()> done)
      : env_(std::move(env)),
        stream_(stream),
        owner_(std::move(owner)),
        done_(std::move(done)),
        tick_(stream.get_executor()) {}

  ~Http2Session() {
    if (session_ != nullptr) nghttp2_session_del(session_);
  }
  Http2Session(const Http2Session&) = delete;
  Http2Session& operator=(const Http2Session&) = delete;

  void Start();

  // On the strand, from a stream's Post.
  void SubmitResponse(int32_t id, int status, const HttpHeaders& headers,
                      std::optional<size_t> content_length);
  void Resume(int32_t id) {
    if (session_ == nullptr || !streams_.contains(id)) return;
    nghttp2_session_resume_data(session_, id);
    Flush();
  }
  void Started(int32_t id) {
    if (Http2Stream* s = StreamOf(id)) Release(*s);
  }
  void Reset(int32_t id, uint32_t code) {
    if (session_ == nullptr || !streams_.contains(id)) return;
    nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, id, code);
    Flush();
  }

 private:
  static Http2Session& Of(void* user_data) {
    return *static_cast<Http2Session*>(user_data);
  }
  Http2Stream* StreamOf(int32_t id) {
    auto it = streams_.find(id);
    return it == streams_.end() ? nullptr : it->second.get();
  }

  static int OnBeginHeaders(nghttp2_session*, const nghttp2_frame* frame,
                            void* user_data);
  static int OnHeader(nghttp2_session*, const nghttp2_frame* frame,
                      const uint8_t* name, size_t namelen, const uint8_t* value,
                      size_t valuelen, uint8_t flags, void* user_data);
  static int OnFrameRecv(nghttp2_session*, const nghttp2_frame* frame,
                         void* user_data);
  static int OnDataChunk(nghttp2_session*, uint8_t flags, int32_t stream_id,
                         const uint8_t* data, size_t len, void* user_data);
  static int OnStreamClose(nghttp2_session*, int32_t stream_id,
                           uint32_t error_code, void* user_data);
  static ssize_t ReadCallback(nghttp2_session*, int32_t stream_id, uint8_t* buf,
                              size_t length, uint32_t* flags,
                              nghttp2_data_source* source, void* user_data);

  // The request's header block is complete.
  void OnRequestHeader(Http2Stream& s, bool end_stream);
  // Hands the request to a handler (or answers 503 when none is free).
  void Dispatch(Http2Stream& s, bool body_withheld);
  // Answers without a handler; what else the client sends is dropped.
  void Refuse(Http2Stream& s, int status, std::string content_type,
              std::string body);
  // Counts `n` more bytes of the request `s` is receiving; false, with
  // the stream refused (REFUSED_STREAM), when the connection would hold
  // more than one request of the largest size. A request is held until
  // its handler begins (Started) or its stream closes.
  bool Hold(Http2Stream& s, size_t n);
  // The request's bytes are no longer held (its handler began, or it was
  // dropped).
  void Release(Http2Stream& s) {
    held_bytes_ -= s.held;
    s.held = 0;
  }

  void Read();
  // Writes what nghttp2 has to send, one batch at a time.
  void Flush();
  void ShutDown() {
    error_code ec;
    stream_.next_layer().shutdown(net::ip::tcp::socket::shutdown_both, ec);
  }
  // Ends once neither a read nor a write is in flight.
  void MaybeFinish();
  void Tick();

  Http2Environment env_;
  TlsStream& stream_;
  std::shared_ptr<void> owner_;
  std::function<void()> done_;
  net::steady_timer tick_;
  nghttp2_session* session_ = nullptr;
  std::array<uint8_t, 16 * 1024> in_{};
  std::string out_;
  bool reading_ = false;  // a read is in flight
  bool read_failed_ = false;
  bool writing_ = false;
  bool finished_ = false;
  bool had_request_ = false;
  Clock::time_point write_since_{};
  Clock::time_point idle_since_ = Clock::now();
  // Header and body bytes of requests not yet handed to a handler.
  size_t held_bytes_ = 0;
  absl::flat_hash_map<int32_t, std::shared_ptr<Http2Stream>> streams_;
  // Handlers running for this connection's streams, reset ones included.
  std::shared_ptr<std::atomic<size_t>> running_ =
      std::make_shared<std::atomic<size_t>>(0);
};

void Http2Stream::Post(std::function<void(Http2Session&)> f) {
  if (!strand_) return;
  net::post(*strand_, [weak = session_, f = std::move(f)] {
    if (std::shared_ptr<Http2Session> session = weak.lock()) f(*session);
  });
}

void Http2Stream::ResumeLocked() {
  if (!deferred_ || resume_posted_) return;
  resume_posted_ = true;
  Post([id = id_, self = shared_from_this()](Http2Session& session) {
    {
      absl::MutexLock lock(&self->mu_);
      self->resume_posted_ = false;
      self->deferred_ = false;
    }
    session.Resume(id);
  });
}

void Http2Stream::Respond(int status, const HttpHeaders& headers,
                          std::string body, bool end) {
  absl::MutexLock lock(&mu_);
  if (ended_) return;
  std::optional<size_t> length;
  if (end) {
    length = body.size();
    if (queued_.empty()) {
      queued_ = std::move(body);
    } else {
      queued_.append(body);
    }
    closing_ = true;
  }
  Post([id = id_, status, headers, length](Http2Session& session) {
    session.SubmitResponse(id, status, headers, length);
  });
}

void Http2Stream::Started() {
  absl::MutexLock lock(&mu_);
  Post([id = id_](Http2Session& session) { session.Started(id); });
}

void Http2Stream::Abort() {
  absl::MutexLock lock(&mu_);
  if (ended_) return;
  Post(
      [id = id_](Http2Session& session) { session.Reset(id, NGHTTP2_CANCEL); });
}

ssize_t Http2Stream::ReadData(uint8_t* buf, size_t length, uint32_t* flags) {
  absl::MutexLock lock(&mu_);
  if (ended_) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
  const size_t n = std::min(length, queued_.size() - offset_);
  std::copy_n(queued_.data() + offset_, n, buf);
  offset_ += n;
  progress_ += n;
  if (n > 0) changed_.SignalAll();
  if (offset_ == queued_.size()) {
    // An idle stream keeps no buffer.
    std::string().swap(queued_);
    offset_ = 0;
    if (closing_) {
      *flags |= NGHTTP2_DATA_FLAG_EOF;
      return static_cast<ssize_t>(n);
    }
    if (n > 0 && notify_ != nullptr) {
      // Run later, not from within nghttp2: the owner may write at once.
      Post([drained = notify_](Http2Session&) { (*drained)(); });
    }
    if (n == 0) {
      deferred_ = true;
      return NGHTTP2_ERR_DEFERRED;
    }
  } else if (offset_ > kThreadedWriteWindow && offset_ * 2 > queued_.size()) {
    queued_.erase(0, offset_);
    offset_ = 0;
  }
  return static_cast<ssize_t>(n);
}

void Http2Session::Start() {
  nghttp2_session_callbacks* callbacks = nullptr;
  nghttp2_session_callbacks_new(&callbacks);
  nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks,
                                                          &OnBeginHeaders);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, &OnHeader);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &OnFrameRecv);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks,
                                                            &OnDataChunk);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks,
                                                         &OnStreamClose);
  nghttp2_option* option = nullptr;
  nghttp2_option_new(&option);
  nghttp2_option_set_max_continuations(option, kMaxContinuations);
  // nghttp2's own defaults, stated: a burst of 1,000 resets, then 33/s.
  nghttp2_option_set_stream_reset_rate_limit(option, 1000, 33);
  const int rv =
      nghttp2_session_server_new2(&session_, callbacks, this, option);
  nghttp2_option_del(option);
  nghttp2_session_callbacks_del(callbacks);
  if (rv != 0) {
    session_ = nullptr;
    ShutDown();
    finished_ = true;
    done_();
    return;
  }
  const HttpServerOptions& o = *env_.options;
  const std::array<nghttp2_settings_entry, 3> settings{{
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS,
       static_cast<uint32_t>(o.max_concurrent_streams)},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, kReceiveWindow},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE,
       static_cast<uint32_t>(std::min<size_t>(o.max_header_bytes, UINT32_MAX))},
  }};
  nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings.data(),
                          settings.size());
  nghttp2_session_set_local_window_size(session_, NGHTTP2_FLAG_NONE, 0,
                                        kReceiveWindow);
  env_.set_idle(true);
  Read();
  Flush();
  Tick();
}

void Http2Session::Read() {
  reading_ = true;
  stream_.async_read_some(
      net::buffer(in_), [self = shared_from_this()](error_code ec, size_t n) {
        self->reading_ = false;
        if (ec || self->finished_) {
          self->read_failed_ = true;
          self->ShutDown();
          self->MaybeFinish();
          return;
        }
        const ssize_t rv =
            nghttp2_session_mem_recv(self->session_, self->in_.data(), n);
        if (rv < 0) {
          // A flood or a protocol error: GOAWAY (nghttp2 may have queued
          // its own already), then the connection closes once it is
          // written.
          nghttp2_session_terminate_session(
              self->session_,
              rv == NGHTTP2_ERR_FLOODED || rv == NGHTTP2_ERR_CALLBACK_FAILURE
                  ? NGHTTP2_ENHANCE_YOUR_CALM
                  : NGHTTP2_PROTOCOL_ERROR);
        } else if (nghttp2_session_want_read(self->session_) != 0) {
          self->Read();
        }
        self->Flush();
      });
}

void Http2Session::Flush() {
  if (writing_ || finished_) return;
  out_.clear();
  while (out_.size() < kWriteBatch) {
    const uint8_t* data = nullptr;
    const ssize_t n = nghttp2_session_mem_send(session_, &data);
    if (n < 0) {
      ShutDown();
      break;
    }
    if (n == 0) break;
    out_.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
  }
  if (out_.empty()) {
    if (nghttp2_session_want_read(session_) == 0 &&
        nghttp2_session_want_write(session_) == 0) {
      ShutDown();
    }
    MaybeFinish();
    return;
  }
  writing_ = true;
  write_since_ = Clock::now();
  net::async_write(stream_, net::buffer(out_),
                   [self = shared_from_this()](error_code ec, size_t) {
                     self->writing_ = false;
                     if (ec) {
                       self->ShutDown();
                       self->MaybeFinish();
                       return;
                     }
                     self->Flush();
                   });
}

void Http2Session::MaybeFinish() {
  if (finished_ || reading_ || writing_) return;
  if (!read_failed_ && (nghttp2_session_want_read(session_) != 0 ||
                        nghttp2_session_want_write(session_) != 0)) {
    return;
  }
  finished_ = true;
  tick_.cancel();
  for (auto& [id, s] : streams_) s->MarkEnded();
  streams_.clear();
  std::function<void()> done = std::move(done_);
  owner_.reset();
  done();
}

void Http2Session::Tick() {
  if (finished_) return;
  const HttpServerOptions& o = *env_.options;
  const Clock::time_point now = Clock::now();
  if (env_.stopping->load()) {
    ShutDown();
    return;
  }
  if (writing_ && now - write_since_ > o.write_timeout) ShutDown();
  for (auto& [id, s] : streams_) {
    if (!s->dispatched && !s->discard_body &&
        now - s->began > o.write_timeout) {
      // A request that never completes.
      s->discard_body = true;
      nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, id,
                                NGHTTP2_CANCEL);
    }
  }
  if (streams_.empty() && !writing_ &&
      now - idle_since_ > (had_request_
                               ? std::chrono::seconds(o.idle_timeout)
                               : std::chrono::seconds(o.header_timeout))) {
    nghttp2_session_terminate_session(session_, NGHTTP2_NO_ERROR);
  }
  Flush();
  tick_.expires_after(std::chrono::seconds(1));
  tick_.async_wait([self = shared_from_this()](error_code ec) {
    if (!ec) self->Tick();
  });
}

int Http2Session::OnBeginHeaders(nghttp2_session* session,
                                 const nghttp2_frame* frame, void* user_data) {
  if (frame->hd.type != NGHTTP2_HEADERS ||
      frame->headers.cat != NGHTTP2_HCAT_REQUEST) {
    return 0;
  }
  Http2Session& self = Of(user_data);
  const int32_t id = frame->hd.stream_id;
  if (self.running_->load() >= self.env_.options->max_concurrent_streams ||
      self.env_.stopping->load()) {
    // Handlers of streams the client reset still run: no more work.
    nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, id,
                              NGHTTP2_REFUSED_STREAM);
    return 0;
  }
  auto s = std::make_shared<Http2Stream>(self.weak_from_this(),
                                         self.tick_.get_executor(), id);
  s->request.client_certificate = self.env_.certificate;
  s->request.remote_address = self.env_.remote_address;
  if (self.streams_.empty()) self.env_.set_idle(false);
  self.streams_[id] = std::move(s);
  self.had_request_ = true;
  return 0;
}

int Http2Session::OnHeader(nghttp2_session*, const nghttp2_frame* frame,
                           const uint8_t* name, size_t namelen,
                           const uint8_t* value, size_t valuelen, uint8_t,
                           void* user_data) {
  Http2Session& self = Of(user_data);
  Http2Stream* s = self.StreamOf(frame->hd.stream_id);
  if (s == nullptr || s->dispatched || s->header_too_large) return 0;
  // Counted as SETTINGS_MAX_HEADER_LIST_SIZE is (RFC 9113 6.5.2).
  const size_t size = namelen + valuelen + 32;
  s->header_bytes += size;
  if (s->header_bytes > self.env_.options->max_header_bytes) {
    s->header_too_large = true;
    s->request.headers.clear();
    self.Release(*s);
    return 0;
  }
  if (!self.Hold(*s, size)) return 0;
  std::string_view n(reinterpret_cast<const char*>(name), namelen);
  std::string v(reinterpret_cast<const char*>(value), valuelen);
  HttpRequest& req = s->request;
  if (n == ":method") {
    req.method = std::move(v);
  } else if (n == ":path") {
    req.target = std::move(v);
  } else if (n == ":authority") {
    req.headers["host"] = std::move(v);
  } else if (!n.empty() && n.front() != ':') {
    // nghttp2 has checked that names are lower case.
    auto [it, inserted] = req.headers.emplace(std::string(n), v);
    if (!inserted) StrAppend(&it->second, "\n", v);
  }
  return 0;
}

int Http2Session::OnFrameRecv(nghttp2_session*, const nghttp2_frame* frame,
                              void* user_data) {
  Http2Session& self = Of(user_data);
  Http2Stream* s = self.StreamOf(frame->hd.stream_id);
  if (s == nullptr) return 0;
  const bool end_stream = (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
  if (end_stream) s->remote_ended = true;
  if (s->dispatched) return 0;  // answered or refused already
  switch (frame->hd.type) {
    case NGHTTP2_HEADERS:
      if (frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
        self.OnRequestHeader(*s, end_stream);
      } else if (end_stream && !s->dispatched && !s->discard_body) {
        self.Dispatch(*s, false);  // after trailers
      }
      break;
    case NGHTTP2_DATA:
      if (end_stream && !s->dispatched && !s->discard_body) {
        self.Dispatch(*s, false);
      }
      break;
    default:
      break;
  }
  return 0;
}

int Http2Session::OnDataChunk(nghttp2_session*, uint8_t, int32_t stream_id,
                              const uint8_t* data, size_t len,
                              void* user_data) {
  Http2Session& self = Of(user_data);
  Http2Stream* s = self.StreamOf(stream_id);
  if (s == nullptr || s->dispatched || s->discard_body) return 0;
  const HttpServerOptions& o = *self.env_.options;
  if (s->request.body.size() + len > o.max_body_bytes) {
    self.Refuse(*s, 413, "application/json", o.too_large_body);
    return 0;
  }
  if (!self.Hold(*s, len)) return 0;
  s->request.body.append(reinterpret_cast<const char*>(data), len);
  return 0;
}

int Http2Session::OnStreamClose(nghttp2_session*, int32_t stream_id, uint32_t,
                                void* user_data) {
  Http2Session& self = Of(user_data);
  auto it = self.streams_.find(stream_id);
  if (it == self.streams_.end()) return 0;
  std::shared_ptr<Http2Stream> s = std::move(it->second);
  self.streams_.erase(it);
  self.Release(*s);
  s->MarkEnded();
  if (self.streams_.empty()) {
    self.idle_since_ = Clock::now();
    self.env_.set_idle(true);
  }
  return 0;
}

ssize_t Http2Session::ReadCallback(nghttp2_session* session, int32_t stream_id,
                                   uint8_t* buf, size_t length, uint32_t* flags,
                                   nghttp2_data_source* source, void*) {
  auto* s = static_cast<Http2Stream*>(source->ptr);
  const ssize_t n = s->ReadData(buf, length, flags);
  if ((*flags & NGHTTP2_DATA_FLAG_EOF) != 0 && s->discard_body &&
      !s->remote_ended) {
    // Answered before the client finished sending: it may stop now.
    nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, stream_id,
                              NGHTTP2_NO_ERROR);
  }
  return n;
}

void Http2Session::OnRequestHeader(Http2Stream& s, bool end_stream) {
  const HttpServerOptions& o = *env_.options;
  if (s.header_too_large) {
    Refuse(s, 431, "text/plain; charset=utf-8",
           "431 Request Header Fields Too Large");
    return;
  }
  HttpRequest& req = s.request;
  ParseTarget(req.target, req);
  if (end_stream) {
    Dispatch(s, false);
    return;
  }
  std::optional<uint64_t> length;
  if (uint64_t n = 0; absl::SimpleAtoi(req.Header("content-length"), &n)) {
    length = n;
  }
  if (length && *length > o.max_body_bytes) {
    Refuse(s, 413, "application/json", o.too_large_body);
    return;
  }
  if (o.may_read_body && (!length || *length > kBodyCheckedAbove) &&
      !o.may_read_body(req)) {
    s.discard_body = true;
    Dispatch(s, true);
  }
}

void Http2Session::Dispatch(Http2Stream& s, bool body_withheld) {
  // The request stays held (Hold) until its handler begins: requests
  // waiting for a thread count against the connection's bound too.
  s.dispatched = true;
  auto req = std::make_shared<HttpRequest>(std::move(s.request));
  req->body_withheld = body_withheld;
  if (body_withheld) req->body.clear();
  running_->fetch_add(1);
  const bool running = env_.run_handler(
      [stream = s.shared_from_this(), req, handler = env_.handler,
       options = env_.options, stopping = env_.stopping, running = running_] {
        stream->Started();
        {
          Http2Writer writer(stream, *options, *stopping);
          (*handler)(*req, writer);
          writer.Finish();
        }
        running->fetch_sub(1);
      });
  if (!running) {
    running_->fetch_sub(1);
    Refuse(s, 503, "text/plain; charset=utf-8",
           "The server has no thread free for this request, please try "
           "again later.\n");
  }
}

void Http2Session::Refuse(Http2Stream& s, int status, std::string content_type,
                          std::string body) {
  Release(s);
  s.request = HttpRequest();
  s.dispatched = true;
  s.discard_body = true;
  s.Respond(status, {{"Content-Type", std::move(content_type)}},
            std::move(body), true);
}

bool Http2Session::Hold(Http2Stream& s, size_t n) {
  const HttpServerOptions& o = *env_.options;
  if (held_bytes_ + n <= o.max_header_bytes + o.max_body_bytes) {
    held_bytes_ += n;
    s.held += n;
    return true;
  }
  Release(s);
  s.request = HttpRequest();
  s.dispatched = true;
  s.discard_body = true;
  nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, s.id(),
                            NGHTTP2_REFUSED_STREAM);
  return false;
}

void Http2Session::SubmitResponse(int32_t id, int status,
                                  const HttpHeaders& headers,
                                  std::optional<size_t> content_length) {
  Http2Stream* s = StreamOf(id);
  if (session_ == nullptr || finished_ || s == nullptr) return;
  static const std::string kStatus = ":status";
  static const std::string kContentLength = "content-length";
  const std::string status_text = std::to_string(status);
  std::vector<std::string> names;
  names.reserve(headers.size());
  std::vector<nghttp2_nv> nva;
  nva.reserve(headers.size() + 2);
  nva.push_back(Http2Field(kStatus, status_text));
  for (const auto& [name, value] : headers) {
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(c));
    if (IsConnectionSpecificHeader(lower) || lower == kContentLength) continue;
    names.push_back(std::move(lower));
    nva.push_back(Http2Field(names.back(), value));
  }
  const std::string length_text =
      content_length ? std::to_string(*content_length) : "";
  if (content_length) nva.push_back(Http2Field(kContentLength, length_text));
  nghttp2_data_provider provider{};
  provider.source.ptr = s;
  provider.read_callback = &ReadCallback;
  const bool no_body = content_length && *content_length == 0;
  nghttp2_submit_response(session_, id, nva.data(), nva.size(),
                          no_body ? nullptr : &provider);
  Flush();
}

}  // namespace

void ServeHttp2(Http2Environment env, TlsStream& stream,
                std::shared_ptr<void> owner, std::function<void()> done) {
  auto session = std::make_shared<Http2Session>(
      std::move(env), stream, std::move(owner), std::move(done));
  session->Start();
}

std::string AlpnProtocols(bool http2) {
  return http2 ? std::string("\x02h2\x08http/1.1")
               : std::string("\x08http/1.1");
}

}  // namespace draplane::http::internal
