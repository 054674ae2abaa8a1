// The informer runs two threads: the reflector (list, watch, backoff) and
// the dispatcher, which applies the reflector's deltas to the cache in
// order and calls the handlers. The cache therefore always equals what the
// handlers have been told. When the server queues watch events without
// bound (in process), the reflector applies a delta itself whenever
// nothing is queued or being applied, saving a thread hand-off per event;
// deltas are still applied one at a time and in order, so handlers see no
// difference but the thread they run on.
#include "client/informer.h"

#include <atomic>
#include <deque>
#include <map>
#include <random>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/str_cat.h"
#include "logging/log.h"

namespace draplane::client {
namespace {

std::string ResourceVersionOf(const api::Object& object) {
  if (const api::ObjectMeta* meta = object.metadata(); meta != nullptr) {
    return meta->resource_version;
  }
  if (const auto* u = std::get_if<api::UnstructuredObject>(&object.value)) {
    try {
      return u->json.at("metadata").value("resourceVersion", "");
    } catch (const std::exception&) {
    }
  }
  return "";
}

}  // namespace

class Informer::Impl {
 public:
  Impl(Client* client, InformerOptions options)
      : client_(client),
        options_(std::move(options)),
        clock_(options_.clock != nullptr ? *options_.clock : RealClock()) {}

  ~Impl() { Stop(); }

  void AddHandler(EventHandler handler) {
    absl::MutexLock lock(&queue_mu_);
    if (!started_) {
      handlers_.push_back(std::move(handler));
      return;
    }
    Item item;
    item.kind = Item::kAddHandler;
    item.handler = std::move(handler);
    queue_.push_back(std::move(item));
    queue_cv_.SignalAll();
  }

  void Start() {
    absl::MutexLock lock(&queue_mu_);
    if (started_ || stopping_) return;
    started_ = true;
    active_handlers_ = std::move(handlers_);
    dispatcher_ = std::thread([this] { DispatchLoop(); });
    reflector_ = std::thread([this] { ReflectLoop(); });
  }

  void Stop() {
    {
      absl::MutexLock lock(&queue_mu_);
      stopping_ = true;
      cancel_ = true;
      queue_cv_.SignalAll();
    }
    if (reflector_.joinable()) reflector_.join();
    if (dispatcher_.joinable()) dispatcher_.join();
  }

  bool HasSynced() const {
    absl::MutexLock lock(&cache_mu_);
    return synced_;
  }

  bool WaitForSync(absl::Duration timeout) const {
    absl::MutexLock lock(&cache_mu_);
    return clock_.WaitFor(sync_cv_, cache_mu_, timeout, [this] {
      cache_mu_.AssertHeld();
      return synced_;
    });
  }

  std::vector<ObjectPtr> List() const {
    absl::MutexLock lock(&cache_mu_);
    std::vector<ObjectPtr> out;
    out.reserve(cache_.size());
    for (const auto& [key, object] : cache_) out.push_back(object);
    return out;
  }

  ObjectPtr Get(std::string_view ns, std::string_view name) const {
    const std::string key =
        options_.kind->namespaced ? StrCat(ns, "/", name) : std::string(name);
    absl::MutexLock lock(&cache_mu_);
    auto it = cache_.find(key);
    return it == cache_.end() ? nullptr : it->second;
  }

  std::string ResourceVersion() const {
    absl::MutexLock lock(&cache_mu_);
    return resource_version_;
  }

 private:
  struct Item {
    enum Kind { kReplace, kEvent, kBookmark, kAddHandler } kind = kEvent;
    std::vector<ObjectPtr> objects;  // kReplace
    std::string type;                // kEvent: ADDED, MODIFIED, DELETED
    ObjectPtr object;                // kEvent
    std::string resource_version;    // kReplace, kEvent, kBookmark
    EventHandler handler;            // kAddHandler
  };

  std::string Key(const api::Object& object) const {
    const api::ObjectMeta* meta = object.metadata();
    if (meta == nullptr) return "";
    return options_.kind->namespaced ? StrCat(meta->namespace_, "/", meta->name)
                                     : meta->name;
  }

  void Enqueue(Item item) {
    absl::MutexLock lock(&queue_mu_);
    queue_.push_back(std::move(item));
    queue_cv_.SignalAll();
  }

  // From the reflector: applies `item` on this thread when the server
  // queues events without bound and nothing is queued or being applied
  // (so order holds), else queues it for the dispatcher.
  void Deliver(Item item) {
    {
      absl::MutexLock lock(&queue_mu_);
      if (!apply_on_watch_thread_ || applying_ || !queue_.empty() ||
          stopping_) {
        queue_.push_back(std::move(item));
        queue_cv_.SignalAll();
        return;
      }
      applying_ = true;
    }
    Apply(item, active_handlers_);
    ReleaseApplying();
  }

  // Ends a thread's turn at applying deltas; wakes the dispatcher for what
  // queued up meanwhile.
  void ReleaseApplying() {
    absl::MutexLock lock(&queue_mu_);
    applying_ = false;
    if (!queue_.empty()) queue_cv_.SignalAll();
  }

  // Sleeps for `d` unless stopped first; false when stopping.
  bool Sleep(absl::Duration d) {
    absl::MutexLock lock(&queue_mu_);
    return !clock_.WaitFor(queue_cv_, queue_mu_, d, [this] {
      queue_mu_.AssertHeld();
      return stopping_;
    });
  }

  bool Stopping() {
    absl::MutexLock lock(&queue_mu_);
    return stopping_;
  }

  void Log(std::string_view what, const absl::Status& st) {
    logging::Warning(StrCat("Informer: ", what),
                     {{"resource", options_.kind->resource}, {"err", st}});
  }

  // Lists every page; falls back to one unpaged list when a continue
  // token expires (as client-go's pager does).
  absl::Status ListAll(std::vector<ObjectPtr>* items, std::string* rv) {
    ListOptions list_options;
    list_options.label_selector = options_.label_selector;
    list_options.field_selector = options_.field_selector;
    list_options.limit = options_.page_size;
    list_options.drop_managed_fields = options_.drop_managed_fields;
    items->clear();
    while (true) {
      auto page = client_->List(*options_.kind, options_.ns, list_options);
      if (!page.ok()) {
        // An expired (410) or refused continue token: one unpaged list
        // (client-go's pager falls back the same way on 410).
        if (!list_options.continue_token.empty() &&
            (IsGone(page.status()) ||
             page.status().code() == absl::StatusCode::kInvalidArgument)) {
          items->clear();
          list_options.continue_token.clear();
          list_options.limit = 0;
          continue;
        }
        return page.status();
      }
      for (api::Object& object : page->items) {
        items->push_back(
            std::make_shared<const api::Object>(std::move(object)));
      }
      if (page->continue_token.empty()) {
        *rv = page->resource_version;
        return absl::OkStatus();
      }
      list_options.continue_token = page->continue_token;
      if (Stopping()) return absl::CancelledError("stopping");
    }
  }

  void ReflectLoop() {
    std::mt19937 rng(std::random_device{}());
    absl::Duration backoff = options_.initial_backoff;
    auto failed = [&] {
      const bool ok = Sleep(backoff);
      backoff = std::min(backoff * 2, options_.max_backoff);
      return ok;
    };
    bool need_list = true;
    std::string rv;
    while (!Stopping()) {
      if (need_list) {
        std::vector<ObjectPtr> items;
        absl::Status st = ListAll(&items, &rv);
        if (Stopping()) return;
        if (!st.ok()) {
          Log("list failed", st);
          if (!failed()) return;
          continue;
        }
        Item item;
        item.kind = Item::kReplace;
        item.objects = std::move(items);
        item.resource_version = rv;
        Deliver(std::move(item));
        need_list = false;
      }
      WatchOptions watch_options;
      watch_options.label_selector = options_.label_selector;
      watch_options.field_selector = options_.field_selector;
      watch_options.resource_version = rv;
      watch_options.allow_bookmarks = true;
      watch_options.drop_managed_fields = options_.drop_managed_fields;
      // client-go: a random timeout in [5, 10) minutes spreads re-watches.
      watch_options.timeout_seconds =
          std::uniform_int_distribution<int64_t>(300, 599)(rng);
      absl::Status event_error;
      int events = 0;
      const absl::Time started = clock_.Now();
      absl::Status st = client_->Watch(
          *options_.kind, options_.ns, watch_options,
          [&](WatchEvent event) {
            if (event.type == "ERROR") {
              event_error = event.error;
              return false;
            }
            const std::string event_rv =
                event.object ? ResourceVersionOf(*event.object) : "";
            Item item;
            if (event.type == "BOOKMARK") {
              item.kind = Item::kBookmark;
            } else if (event.type == "ADDED" || event.type == "MODIFIED" ||
                       event.type == "DELETED") {
              item.kind = Item::kEvent;
              item.type = event.type;
              item.object = std::move(event.object);
            } else {
              event_error = absl::DataLossError(
                  StrCat("unexpected watch event type ", event.type));
              return false;
            }
            if (!event_rv.empty()) rv = event_rv;
            item.resource_version = event_rv;
            ++events;
            Deliver(std::move(item));
            return true;
          },
          cancel_);
      if (Stopping()) return;
      if (st.ok() && !event_error.ok()) st = event_error;
      if (!st.ok()) {
        if (IsGone(st)) {
          need_list = true;  // the resourceVersion is too old
        }
        Log(need_list ? "watch expired, re-listing" : "watch failed", st);
        if (!failed()) return;
        continue;
      }
      if (events == 0 && clock_.Now() - started < absl::Seconds(1)) {
        // client-go's "very short watch": back off rather than spin.
        if (!failed()) return;
        continue;
      }
      backoff = options_.initial_backoff;
    }
  }

  void DispatchLoop() {
    std::vector<EventHandler>& handlers = active_handlers_;
    const bool resync = options_.resync > absl::ZeroDuration();
    absl::Time next_resync =
        resync ? clock_.Now() + options_.resync : absl::InfiniteFuture();
    while (true) {
      std::deque<Item> batch;
      {
        absl::MutexLock lock(&queue_mu_);
        while (!stopping_ && (queue_.empty() || applying_) &&
               (applying_ || clock_.Now() < next_resync)) {
          // While the reflector applies, a due resync waits for it (woken
          // by what it leaves queued, else within a second).
          const absl::Time now = clock_.Now();
          clock_.WaitUntil(queue_cv_, queue_mu_,
                           applying_
                               ? now + absl::Seconds(1)
                               : std::min(next_resync, now + absl::Seconds(1)));
        }
        if (stopping_) return;
        batch.swap(queue_);
        applying_ = true;
      }
      // Gives the applying role back however this iteration ends.
      struct Release {
        Impl* impl;
        ~Release() { impl->ReleaseApplying(); }
      } release{this};
      for (Item& item : batch) {
        if (Stopping()) return;
        Apply(item, handlers);
      }
      if (resync && clock_.Now() >= next_resync) {
        next_resync = clock_.Now() + options_.resync;
        bool synced;
        {
          absl::MutexLock lock(&cache_mu_);
          synced = synced_;
        }
        if (!synced) continue;
        for (const ObjectPtr& object : List()) {
          if (Stopping()) return;
          for (const EventHandler& h : handlers) {
            if (h.on_update) h.on_update(object, object);
          }
        }
      }
    }
  }

  void Apply(Item& item, std::vector<EventHandler>& handlers) {
    switch (item.kind) {
      case Item::kReplace: {
        std::map<std::string, ObjectPtr> next;
        for (ObjectPtr& object : item.objects) {
          next[Key(*object)] = std::move(object);
        }
        std::map<std::string, ObjectPtr> previous;
        {
          absl::MutexLock lock(&cache_mu_);
          previous = cache_;
          cache_ = next;
          resource_version_ = item.resource_version;
        }
        for (const auto& [key, object] : next) {
          auto it = previous.find(key);
          if (it == previous.end()) {
            for (const EventHandler& h : handlers) {
              if (h.on_add) h.on_add(object);
            }
          } else if (ResourceVersionOf(*it->second) !=
                     ResourceVersionOf(*object)) {
            for (const EventHandler& h : handlers) {
              if (h.on_update) h.on_update(it->second, object);
            }
          }
        }
        for (const auto& [key, object] : previous) {
          if (next.count(key)) continue;
          for (const EventHandler& h : handlers) {
            if (h.on_delete) h.on_delete(object);
          }
        }
        {
          absl::MutexLock lock(&cache_mu_);
          synced_ = true;
        }
        sync_cv_.SignalAll();
        return;
      }
      case Item::kEvent: {
        const std::string key = Key(*item.object);
        ObjectPtr old;
        {
          absl::MutexLock lock(&cache_mu_);
          auto it = cache_.find(key);
          if (it != cache_.end()) old = it->second;
          if (item.type == "DELETED") {
            if (it != cache_.end()) cache_.erase(it);
          } else {
            cache_[key] = item.object;
          }
          if (!item.resource_version.empty()) {
            resource_version_ = item.resource_version;
          }
        }
        for (const EventHandler& h : handlers) {
          if (item.type == "DELETED") {
            if (h.on_delete) h.on_delete(item.object);
          } else if (old != nullptr) {
            if (h.on_update) h.on_update(old, item.object);
          } else if (h.on_add) {
            h.on_add(item.object);
          }
        }
        return;
      }
      case Item::kBookmark: {
        absl::MutexLock lock(&cache_mu_);
        if (!item.resource_version.empty()) {
          resource_version_ = item.resource_version;
        }
        return;
      }
      case Item::kAddHandler: {
        handlers.push_back(std::move(item.handler));
        const EventHandler& h = handlers.back();
        if (h.on_add) {
          for (const ObjectPtr& object : List()) {
            if (Stopping()) return;
            h.on_add(object);
          }
        }
        return;
      }
    }
  }

  Client* const client_;
  const InformerOptions options_;
  Clock& clock_;
  CancelFlag cancel_{false};

  absl::Mutex queue_mu_;
  absl::CondVar queue_cv_;
  std::deque<Item> queue_ ABSL_GUARDED_BY(queue_mu_);
  bool started_ ABSL_GUARDED_BY(queue_mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(queue_mu_) = false;
  // Before Start().
  std::vector<EventHandler> handlers_ ABSL_GUARDED_BY(queue_mu_);
  // The handlers deltas are applied with (from Start(); kAddHandler adds
  // to them): used only by the thread applying (applying_).
  std::vector<EventHandler> active_handlers_;
  // A thread (the dispatcher, or the reflector in Deliver) is applying
  // deltas; the other waits or queues.
  bool applying_ ABSL_GUARDED_BY(queue_mu_) = false;
  const bool apply_on_watch_thread_ = client_->WatchQueueIsUnbounded();
  std::thread reflector_;
  std::thread dispatcher_;

  mutable absl::Mutex cache_mu_;
  mutable absl::CondVar sync_cv_;
  std::map<std::string, ObjectPtr> cache_ ABSL_GUARDED_BY(cache_mu_);
  std::string resource_version_ ABSL_GUARDED_BY(cache_mu_);
  bool synced_ ABSL_GUARDED_BY(cache_mu_) = false;
};

Informer::Informer(Client* client, InformerOptions options)
    : impl_(std::make_unique<Impl>(client, std::move(options))) {}

Informer::~Informer() { impl_->Stop(); }

void Informer::AddHandler(EventHandler handler) {
  impl_->AddHandler(std::move(handler));
}
void Informer::Start() { impl_->Start(); }
void Informer::Stop() { impl_->Stop(); }
bool Informer::HasSynced() const { return impl_->HasSynced(); }
bool Informer::WaitForSync(absl::Duration timeout) const {
  return impl_->WaitForSync(timeout);
}
std::vector<ObjectPtr> Informer::List() const { return impl_->List(); }
ObjectPtr Informer::Get(std::string_view ns, std::string_view name) const {
  return impl_->Get(ns, name);
}
std::string Informer::ResourceVersion() const {
  return impl_->ResourceVersion();
}

std::unique_ptr<Informer> NewInformer(Client* client, std::string_view kind,
                                      std::string ns) {
  InformerOptions options;
  options.kind = &Kind(kind);
  options.ns = std::move(ns);
  return std::make_unique<Informer>(client, options);
}

bool StartAndSync(const std::vector<Informer*>& informers,
                  absl::Duration timeout) {
  for (Informer* i : informers) i->Start();
  const absl::Time deadline = absl::Now() + timeout;
  for (Informer* i : informers) {
    if (!i->WaitForSync(
            std::max(absl::ZeroDuration(), deadline - absl::Now()))) {
      return false;
    }
  }
  return true;
}

}  // namespace draplane::client
