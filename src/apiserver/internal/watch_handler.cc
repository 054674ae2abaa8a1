
#include <chrono>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/synchronization/mutex.h"
#include "apiserver/internal/api_errors.h"
#include "apiserver/internal/handlers.h"
#include "apiserver/internal/negotiation.h"
#include "common/str_cat.h"

namespace draplane::apiserver::internal {
namespace {

// How often an idle watch checks whether its client is gone, the server
// stops, its time is up or a bookmark is due.
constexpr absl::Duration kWatchCheckInterval = absl::Milliseconds(500);

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

// A watch: events queued by the store's sink, converted and filtered on
// the connection's thread.
void Handlers::Watch(const http::HttpRequest& req, const Target& t,
                     Responder& w) {
  const ResourceInfo& r = *t.resource;
  auto filter = Filter(req, t);
  if (!filter.ok()) {
    w.SendError(filter.status(), {});
    return;
  }
  const Negotiated n = Negotiate(req.Header("accept"));
  const bool bookmarks = req.Query("allowWatchBookmarks") == "true";
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

  const bool typed = !n.table && w.TakesTypedEvents();
  auto queue = std::make_shared<WatchQueue>(
      w.TakesTypedEvents() ? 0 : options_.watch_queue_limit, &w.writer());
  struct Detach {
    WatchQueue* queue;
    ~Detach() { queue->Detach(); }
  } detach{queue.get()};
  auto watch =
      registry_.Watch(r, t.namespace_, start,
                      [queue](const store::Event& e) { queue->Push(e); });
  http::HttpHeaders headers{{"Content-Type", kJsonContentType},
                            {"Cache-Control", "no-cache, private"}};
  if (!w.writer().StartStream(200, headers)) return;
  bool first_table = true;
  auto send = [&](std::string_view type, const Json& object) -> bool {
    Json out;
    if (type == "BOOKMARK" || type == "ERROR") {
      out = object;
    } else if (n.table) {
      auto table = Table(req, t, {object}, "", "", n);
      if (!table.ok()) return false;
      out = *std::move(table);
      if (!first_table) out.erase("columnDefinitions");
      first_table = false;
    } else {
      auto v = ToVersion(r, object, t.version);
      if (!v.ok()) return false;
      out = *std::move(v);
    }
    return w.writer().WriteChunk(
        api::DumpJson(Json{{"type", std::string(type)}, {"object", out}}) +
        "\n");
  };
  auto bookmark = [&](int64_t revision, bool initial_end) {
    Json meta{{"resourceVersion", std::to_string(revision)}};
    if (initial_end) {
      meta["annotations"] = Json{{"k8s.io/initial-events-end", "true"}};
    }
    return send("BOOKMARK", Json{{"kind", std::string(r.kind->kind)},
                                 {"apiVersion", r.ApiVersion(t.version)},
                                 {"metadata", std::move(meta)}});
  };
  if (!watch.ok()) {
    send("ERROR", internal::StatusBody(watch.status()));
    return;
  }
  for (const Json& object : begin->initial) {
    if (!send("ADDED", object)) return;
  }
  if (send_initial && bookmarks && !bookmark(start, true)) return;

  Clock& clock = registry_.clock();
  const absl::Time deadline = clock.Now() + *timeout;
  absl::Time next_bookmark = clock.Now() + options_.bookmark_interval;
  int64_t last_revision = start;
  while (!w.writer().Stopping()) {
    std::deque<store::Event> batch;
    if (!queue->Take(batch)) return;
    for (const store::Event& e : batch) {
      const auto ev = watch_cache_.Decoded(registry_, e);
      last_revision = e.revision;
      const std::string_view type = WatchEventType(*ev, *filter);
      if (type.empty()) continue;
      if (n.table) {
        if (!send(type, *ev->object)) return;
        continue;
      }
      // The stored version of a live object, managedFields dropped: the
      // registry's typed form, shared with the next update's validation.
      if (typed && w.DropsManagedFields() && t.version == r.StorageVersion() &&
          ev->type != internal::ObjectEvent::kDeleted) {
        if (auto object = registry_.TypedObject(e.value, e.revision)) {
          if (!w.WriteEvent(type, std::move(object))) return;
          continue;
        }
      }
      if (typed) {
        auto object = watch_cache_.Typed(
            e.revision, t.version, w.DropsManagedFields(), [&] {
              return TypedEventObject(r, *ev->object, t.version,
                                      w.DropsManagedFields());
            });
        // An object that does not decode goes out as a line: the caller
        // reports it as it would have.
        if (object.ok()) {
          if (!w.WriteEvent(type, *std::move(object))) return;
          continue;
        }
      }
      // Plain JSON lines are the same for every watcher of this version.
      auto line = watch_cache_.Line(
          e.revision, type, t.version, [&]() -> absl::StatusOr<std::string> {
            if (t.version == r.StorageVersion()) {
              return WatchLine(type, *ev->object);
            }
            auto v = ToVersion(r, *ev->object, t.version);
            if (!v.ok()) return v.status();
            return WatchLine(type, *v);
          });
      if (!line.ok() || !w.writer().WriteChunk(**line)) return;
    }
    const absl::Time now = clock.Now();
    if (now >= deadline) break;
    if (bookmarks && now >= next_bookmark) {
      if (!bookmark(std::max(last_revision, start), false)) return;
      next_bookmark = now + options_.bookmark_interval;
    }
    if (w.writer().ClientGone()) break;
  }
}

}  // namespace draplane::apiserver::internal
