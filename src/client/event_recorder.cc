#include "client/event_recorder.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/rfc3339.h"
#include "common/str_cat.h"
#include "logging/log.h"

namespace draplane::client {

class EventRecorder::Impl {
 public:
  Impl(Client* client, EventRecorderOptions options)
      : client_(client),
        options_(std::move(options)),
        clock_(options_.clock != nullptr ? *options_.clock : RealClock()) {
    thread_ = std::thread([this] { Loop(); });
  }

  ~Impl() {
    {
      absl::MutexLock lock(&mu_);
      closed_ = true;
    }
    cv_.SignalAll();
    thread_.join();
  }

  void Add(api::Event event) {
    {
      absl::MutexLock lock(&mu_);
      if (closed_ || pending_.size() >= options_.max_pending) {
        ++dropped_;
        return;
      }
      pending_.push_back(std::move(event));
      ++queued_;
    }
    cv_.SignalAll();
  }

  bool Flush(absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    const int64_t target = queued_;
    return clock_.WaitFor(cv_, mu_, timeout, [&] {
      mu_.AssertHeld();
      return done_ >= target;
    });
  }

  const EventRecorderOptions& options() const { return options_; }
  Clock& clock() const { return clock_; }

  // Nanoseconds for the next event's name: the time's, made unique per
  // recorder (a simulated clock or a coarse one repeats a time).
  int64_t NameNanos(absl::Time now) {
    absl::MutexLock lock(&mu_);
    last_name_nanos_ = std::max(last_name_nanos_ + 1, absl::ToUnixNanos(now));
    return last_name_nanos_;
  }

  std::atomic<int64_t> written_{0};
  std::atomic<int64_t> failed_{0};
  int64_t dropped() const {
    absl::MutexLock lock(&mu_);
    return dropped_;
  }

 private:
  void Loop() {
    while (true) {
      api::Event event;
      {
        absl::MutexLock lock(&mu_);
        while (!closed_ && pending_.empty()) cv_.Wait(&mu_);
        if (pending_.empty()) return;
        event = std::move(pending_.front());
        pending_.pop_front();
      }
      std::string what = StrCat(event.involved_object.kind, " ",
                                event.involved_object.namespace_, "/",
                                event.involved_object.name);
      // Only success matters: in process the reply is the server's shared
      // typed object (nothing decoded); over HTTP it is decoded less
      // managedFields.
      WriteOptions options;
      options.drop_managed_fields = true;
      absl::StatusOr<api::Object> created = client_->Create(
          api::Object{{"v1", "Event"}, std::move(event)}, options);
      if (created.ok()) {
        ++written_;
      } else {
        ++failed_;
        // An event about an object whose namespace is going away is
        // refused (NotFound or Forbidden); that is not worth a line.
        if (!client::IsNotFound(created.status())) {
          logging::Error("Writing an event failed",
                         {{"component", options_.component},
                          {"about", what},
                          {"err", created.status()}});
        }
      }
      {
        absl::MutexLock lock(&mu_);
        ++done_;
      }
      cv_.SignalAll();
    }
  }

  Client* client_;
  EventRecorderOptions options_;
  Clock& clock_;
  mutable absl::Mutex mu_;
  absl::CondVar cv_;
  std::deque<api::Event> pending_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  int64_t queued_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t done_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t dropped_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t last_name_nanos_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread thread_;
};

EventRecorder::EventRecorder(Client* client, EventRecorderOptions options)
    : impl_(std::make_unique<Impl>(client, std::move(options))) {}

EventRecorder::~EventRecorder() = default;

void EventRecorder::Event(std::string_view kind, std::string_view api_version,
                          const api::ObjectMeta& object, std::string_view type,
                          std::string_view reason, std::string message) {
  absl::Time now = impl_->clock().Now();
  std::string timestamp = Rfc3339(now);
  api::Event event;
  event.metadata.name =
      StrCat(object.name, ".", absl::StrCat(absl::Hex(impl_->NameNanos(now))));
  event.metadata.namespace_ =
      object.namespace_.empty() ? "default" : object.namespace_;
  event.involved_object.kind = std::string(kind);
  event.involved_object.namespace_ = object.namespace_;
  event.involved_object.name = object.name;
  event.involved_object.uid = object.uid;
  event.involved_object.api_version = std::string(api_version);
  event.reason = std::string(reason);
  event.message = std::move(message);
  event.source.Mutable().component = impl_->options().component;
  event.first_timestamp = timestamp;
  event.last_timestamp = timestamp;
  event.count = 1;
  event.type = std::string(type);
  event.unknown_fields["reportingComponent"] = impl_->options().component;
  impl_->Add(std::move(event));
}

bool EventRecorder::Flush(absl::Duration timeout) {
  return impl_->Flush(timeout);
}

int64_t EventRecorder::written() const { return impl_->written_; }
int64_t EventRecorder::dropped() const { return impl_->dropped(); }
int64_t EventRecorder::failed() const { return impl_->failed_; }

}  // namespace draplane::client
