#include <algorithm>
#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/synchronization/mutex.h"
#include "apiserver/internal/api_errors.h"
#include "apiserver/internal/handlers.h"
#include "apiserver/internal/negotiation.h"
#include "apiserver/internal/watch_dispatcher.h"
#include "common/str_cat.h"

namespace draplane::apiserver::internal {
namespace {

// How often an idle watch checks whether its client is gone, the server
// stops, its time is up or a bookmark is due.
constexpr absl::Duration kWatchCheckInterval = absl::Milliseconds(500);
// A detached watch converts events one at a time, only while less than
// this is waiting to be written (so at most this and one event per
// watcher): the rest wait as store events (shared with every watcher),
// counted against the queue's limit.
constexpr size_t kDetachedWindowBytes = 256 * 1024;

// Events queued by the store's sink for one watcher. An HTTP watcher whose
// queue passes the limit has fallen too far behind: its stream is aborted
// (a write it is blocked in fails) and the client resumes from the last
// revision it saw, as with kube-apiserver's cacher. A watcher in this
// process is never behind for long: its queue is not limited.
class WatchQueue {
 public:
  // `limit` 0: none. `writer` is aborted on overflow until Detach().
  WatchQueue(size_t limit, http::ResponseWriter* writer)
      : limit_(limit), writer_(writer) {}

  // The store's sink.
  void Push(const store::Event& e) {
    absl::MutexLock lock(&mu_);
    if (overflowed_) return;
    if (limit_ > 0 && events_.size() >= limit_) {
      overflowed_ = true;
      events_.clear();
      if (writer_ != nullptr) writer_->Abort();
      return;
    }
    events_.push_back(e);
  }

  // Moves the queued events to `batch`, waiting for some at most
  // kWatchCheckInterval: events wake the watcher at once; the interval
  // only paces its checks of the client, the server's stop, the deadline
  // and bookmarks. False once the queue overflowed.
  bool Take(std::deque<store::Event>& batch) {
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(this, &WatchQueue::Ready),
                         kWatchCheckInterval);
    if (overflowed_) return false;
    batch.swap(events_);
    return true;
  }

  // Take() without waiting, and at most `max` events.
  bool TakeNow(std::deque<store::Event>& batch, size_t max) {
    absl::MutexLock lock(&mu_);
    if (overflowed_) return false;
    while (!events_.empty() && batch.size() < max) {
      batch.push_back(std::move(events_.front()));
      events_.pop_front();
    }
    return true;
  }

  bool Overflowed() {
    absl::MutexLock lock(&mu_);
    return overflowed_;
  }

  // The handler is done with the writer.
  void Detach() {
    absl::MutexLock lock(&mu_);
    writer_ = nullptr;
  }

 private:
  bool Ready() const ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    return !events_.empty() || overflowed_;
  }

  const size_t limit_;
  absl::Mutex mu_;
  std::deque<store::Event> events_ ABSL_GUARDED_BY(mu_);
  bool overflowed_ ABSL_GUARDED_BY(mu_) = false;
  http::ResponseWriter* writer_ ABSL_GUARDED_BY(mu_);
};

// The watch's duration: the server's maximum, shortened by timeoutSeconds.
absl::StatusOr<absl::Duration> WatchTimeout(const http::HttpRequest& req,
                                            absl::Duration max) {
  if (!req.HasQuery("timeoutSeconds")) return max;
  int64_t seconds = 0;
  if (!absl::SimpleAtoi(req.Query("timeoutSeconds"), &seconds) || seconds < 0) {
    return BadRequest("invalid timeoutSeconds");
  }
  return std::min(max, absl::Seconds(seconds));
}

// What a stored change is to a watcher with `filter` (as upstream's
// cacheWatcher sees it): an object entering the filter is ADDED, one
// leaving it DELETED; "" when the watcher does not see it.
std::string_view WatchEventType(const ObjectEvent& ev,
                                const ObjectFilter& filter) {
  const bool now_matches = !filter || filter(*ev.object);
  const bool before_matched =
      ev.type == ObjectEvent::kModified && (!filter || [&] {
        const auto prev = ev.PrevObject();
        return prev != nullptr && filter(*prev);
      }());
  switch (ev.type) {
    case ObjectEvent::kAdded:
      return now_matches ? "ADDED" : "";
    case ObjectEvent::kModified:
      return now_matches ? (before_matched ? "MODIFIED" : "ADDED")
                         : (before_matched ? "DELETED" : "");
    case ObjectEvent::kDeleted:
      return now_matches ? "DELETED" : "";
  }
  return "";
}

// Where a watch starts: with no resourceVersion, "0" or sendInitialEvents,
// a list at the current revision whose items are sent first as ADDED;
// else the given revision.
struct WatchStart {
  int64_t revision = 0;
  std::vector<Json> initial;
};

absl::StatusOr<WatchStart> StartOfWatch(const Registry& registry,
                                        const Target& t,
                                        const ObjectFilter& filter,
                                        const std::string& rv_text,
                                        bool send_initial) {
  WatchStart start;
  if (rv_text.empty() || rv_text == "0" || send_initial) {
    ListQuery q;
    q.namespace_ = t.namespace_;
    q.filter = filter;
    auto list = registry.List(*t.resource, q);
    if (!list.ok()) return list.status();
    start.initial = std::move(list->items);
    start.revision = list->revision;
  } else if (!absl::SimpleAtoi(rv_text, &start.revision) ||
             start.revision < 0) {
    return BadRequest(StrCat("invalid resource version: ", rv_text));
  }
  return start;
}

}  // namespace

// One watch after its start: its events converted, filtered and written,
// its deadline and bookmarks. Served on the handler's thread (Serve) or,
// once its HTTP stream is detached, by the watch dispatcher (Run).
class WatchSession : public WatchDispatcher::Session,
                     public std::enable_shared_from_this<WatchSession> {
 public:
  WatchSession(Handlers& h, const http::HttpRequest& req, const Target& t,
               const Negotiated& n, ObjectFilter filter, Responder& w,
               int64_t start, absl::Duration timeout)
      : h_(h),
        req_(req),
        t_(t),
        n_(n),
        filter_(std::move(filter)),
        w_(&w),
        typed_(!n.table && w.TakesTypedEvents()),
        drop_managed_fields_(w.DropsManagedFields()),
        bookmarks_(req.Query("allowWatchBookmarks") == "true"),
        start_(start),
        last_revision_(start),
        timeout_(timeout),
        queue_(std::make_shared<WatchQueue>(
            w.TakesTypedEvents() ? 0 : h.options_.watch_queue_limit,
            &w.writer())) {}
  // The store's watch must have ended by now (Unwatch, or a last Run):
  // a sink may hold the last reference, and the store's sinks run under
  // its lock, which ending the watch takes.
  ~WatchSession() override { queue_->Detach(); }
  WatchSession(const WatchSession&) = delete;
  WatchSession& operator=(const WatchSession&) = delete;

  // The store's sink: queues the event and, once detached, wakes the
  // session.
  store::WatchSink Sink() {
    return [queue = queue_, weak = weak_from_this()](const store::Event& e) {
      queue->Push(e);
      if (auto self = weak.lock()) self->Wake();
    };
  }

  void Watching(std::unique_ptr<store::Watch> watch) {
    watch_ = std::move(watch);
  }

  bool bookmarks() const { return bookmarks_; }

  // The initial events are sent: the watch's time and the bookmarks'
  // interval run from now.
  void Started() {
    const absl::Time now = h_.registry_.clock().Now();
    deadline_ = now + timeout_;
    next_bookmark_ = now + h_.options_.bookmark_interval;
  }

  // Ends the store's watch unless the dispatcher serves the session.
  void UnwatchUnlessDetached() {
    if (stream_ == nullptr) watch_.reset();
  }

  // One event or bookmark; false when the client is gone or the object
  // does not convert.
  bool Send(std::string_view type, const Json& object) {
    Json out;
    if (type == "BOOKMARK" || type == "ERROR") {
      out = object;
    } else if (n_.table) {
      auto table = h_.Table(req_, t_, {object}, "", "", n_);
      if (!table.ok()) return false;
      out = *std::move(table);
      if (!first_table_) out.erase("columnDefinitions");
      first_table_ = false;
    } else {
      auto v = ToVersion(*t_.resource, object, t_.version);
      if (!v.ok()) return false;
      out = *std::move(v);
    }
    return Write(
        api::DumpJson(Json{{"type", std::string(type)}, {"object", out}}) +
        "\n");
  }

  bool Bookmark(int64_t revision, bool initial_end) {
    const ResourceInfo& r = *t_.resource;
    Json meta{{"resourceVersion", std::to_string(revision)}};
    if (initial_end) {
      meta["annotations"] = Json{{"k8s.io/initial-events-end", "true"}};
    }
    return Send("BOOKMARK", Json{{"kind", std::string(r.kind->kind)},
                                 {"apiVersion", r.ApiVersion(t_.version)},
                                 {"metadata", std::move(meta)}});
  }

  // Serves the watch on this thread until it ends.
  void Serve() {
    while (!w_->writer().Stopping()) {
      std::deque<store::Event> batch;
      if (!queue_->Take(batch) || !Deliver(batch)) return;
      if (!Checks()) return;
      if (w_->writer().ClientGone()) return;
    }
  }

  // Hands the stream to `dispatcher`; false (nothing changed) when the
  // writer keeps its stream or the dispatcher cannot take the session.
  bool Detach(const std::shared_ptr<WatchDispatcher>& dispatcher) {
    if (typed_ || dispatcher == nullptr) return false;
    std::shared_ptr<http::DetachedStream> stream = w_->writer().Detach();
    if (stream == nullptr) return false;
    queue_->Detach();
    stream_ = std::move(stream);
    w_ = nullptr;
    if (!dispatcher->Add(shared_from_this())) {
      // No thread for it: the stream ends (the client resumes).
      watch_.reset();
      stream_->Abort();
      return true;
    }
    {
      absl::MutexLock lock(&mu_);
      dispatcher_ = dispatcher;
    }
    // Written out (room for more) or ended: run again.
    stream_->OnDrainOrEnd([weak = weak_from_this()] {
      if (auto self = weak.lock()) self->Wake();
    });
    // What came before the sink and the stream could wake the session.
    Wake();
    return true;
  }

  // WatchDispatcher::Session: the store's watch ends with the last run.
  bool Run() override {
    const bool more = RunOnce();
    if (!more) watch_.reset();
    return more;
  }
  void Dropped() override {
    watch_.reset();
    stream_->Abort();
  }

 private:
  bool RunOnce() {
    if (stream_->Ended()) return false;
    if (queue_->Overflowed()) {
      stream_->Abort();  // fell too far behind
      return false;
    }
    while (stream_->QueuedBytes() < kDetachedWindowBytes) {
      std::deque<store::Event> batch;
      if (!queue_->TakeNow(batch, 1)) {
        stream_->Abort();  // fell too far behind
        return false;
      }
      if (batch.empty()) break;
      if (!Deliver(batch)) {
        stream_->Close();
        return false;
      }
    }
    if (!Checks()) {
      stream_->Close();
      return false;
    }
    return true;
  }

  void Wake() {
    std::shared_ptr<WatchDispatcher> dispatcher;
    {
      absl::MutexLock lock(&mu_);
      dispatcher = dispatcher_;
    }
    if (dispatcher != nullptr) dispatcher->Schedule(shared_from_this());
  }

  bool Write(std::string_view chunk) {
    return stream_ != nullptr ? stream_->Write(std::string(chunk))
                              : w_->writer().WriteChunk(chunk);
  }

  // Writes the events of `batch` the watcher sees; false when the client
  // is gone or an object does not convert.
  bool Deliver(const std::deque<store::Event>& batch) {
    const ResourceInfo& r = *t_.resource;
    for (const store::Event& e : batch) {
      const auto ev = h_.watch_cache_.Decoded(h_.registry_, e);
      last_revision_ = e.revision;
      const std::string_view type = WatchEventType(*ev, filter_);
      if (type.empty()) continue;
      if (n_.table) {
        if (!Send(type, *ev->object)) return false;
        continue;
      }
      // The stored version of a live object, managedFields dropped: the
      // registry's typed form, shared with the next update's validation.
      if (typed_ && drop_managed_fields_ && t_.version == r.StorageVersion() &&
          ev->type != internal::ObjectEvent::kDeleted) {
        if (auto object = h_.registry_.TypedObject(e.value, e.revision)) {
          if (!w_->WriteEvent(type, std::move(object))) return false;
          continue;
        }
      }
      if (typed_) {
        auto object = h_.watch_cache_.Typed(
            e.revision, t_.version, drop_managed_fields_, [&] {
              return TypedEventObject(r, *ev->object, t_.version,
                                      drop_managed_fields_);
            });
        // An object that does not decode goes out as a line: the caller
        // reports it as it would have.
        if (object.ok()) {
          if (!w_->WriteEvent(type, *std::move(object))) return false;
          continue;
        }
      }
      // Plain JSON lines are the same for every watcher of this version.
      auto line = h_.watch_cache_.Line(
          e.revision, type, t_.version, [&]() -> absl::StatusOr<std::string> {
            if (t_.version == r.StorageVersion()) {
              return WatchLine(type, *ev->object);
            }
            auto v = ToVersion(r, *ev->object, t_.version);
            if (!v.ok()) return v.status();
            return WatchLine(type, *v);
          });
      if (!line.ok() || !Write(**line)) return false;
    }
    return true;
  }

  // The deadline and bookmarks; false once the watch's time is up (or a
  // bookmark cannot be written).
  bool Checks() {
    const absl::Time now = h_.registry_.clock().Now();
    if (now >= deadline_) return false;
    if (bookmarks_ && now >= next_bookmark_) {
      if (!Bookmark(std::max(last_revision_, start_), false)) return false;
      next_bookmark_ = now + h_.options_.bookmark_interval;
    }
    return true;
  }

  Handlers& h_;
  const http::HttpRequest req_;
  const Target t_;
  const Negotiated n_;
  const ObjectFilter filter_;
  // The handler's responder until detached, then the stream.
  Responder* w_;
  std::shared_ptr<http::DetachedStream> stream_;
  const bool typed_;
  const bool drop_managed_fields_;
  const bool bookmarks_;
  const int64_t start_;
  int64_t last_revision_;
  const absl::Duration timeout_;
  // Set by Started().
  absl::Time deadline_;
  absl::Time next_bookmark_;
  bool first_table_ = true;
  const std::shared_ptr<WatchQueue> queue_;
  std::unique_ptr<store::Watch> watch_;
  absl::Mutex mu_;
  std::shared_ptr<WatchDispatcher> dispatcher_ ABSL_GUARDED_BY(mu_);
};

// A watch: the initial events on the handler's thread, then the rest on
// the watch dispatcher once the stream is detached (HTTP), or on the
// handler's thread (in process).
void Handlers::Watch(const http::HttpRequest& req, const Target& t,
                     Responder& w) {
  const ResourceInfo& r = *t.resource;
  auto filter = Filter(req, t);
  if (!filter.ok()) {
    w.SendError(filter.status(), {});
    return;
  }
  const bool send_initial = req.Query("sendInitialEvents") == "true";
  const absl::StatusOr<absl::Duration> timeout =
      WatchTimeout(req, options_.max_watch);
  if (!timeout.ok()) {
    w.SendError(timeout.status(), {});
    return;
  }
  absl::StatusOr<WatchStart> begin = StartOfWatch(
      registry_, t, *filter, req.Query("resourceVersion"), send_initial);
  if (!begin.ok()) {
    w.SendError(begin.status(), {});
    return;
  }
  const int64_t start = begin->revision;
  auto session = std::make_shared<WatchSession>(*this, req, t,
                                                Negotiate(req.Header("accept")),
                                                *filter, w, start, *timeout);
  auto watch = registry_.Watch(r, t.namespace_, start, session->Sink());
  http::HttpHeaders headers{{"Content-Type", kJsonContentType},
                            {"Cache-Control", "no-cache, private"}};
  if (!w.writer().StartStream(200, headers)) return;
  if (!watch.ok()) {
    session->Send("ERROR", internal::StatusBody(watch.status()));
    return;
  }
  session->Watching(*std::move(watch));
  struct Unwatch {
    WatchSession& session;
    ~Unwatch() { session.UnwatchUnlessDetached(); }
  } unwatch{*session};
  for (const Json& object : begin->initial) {
    if (!session->Send("ADDED", object)) return;
  }
  if (send_initial && session->bookmarks() && !session->Bookmark(start, true)) {
    return;
  }
  session->Started();
  if (session->Detach(watch_dispatcher_)) return;
  session->Serve();
}

}  // namespace draplane::apiserver::internal
