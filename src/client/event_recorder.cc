#include "client/event_recorder.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/rfc3339.h"
#include "common/str_cat.h"
#include "logging/log.h"

namespace draplane::client {

class EventRecorder::Impl {
 public:
  Impl(Client* client, EventRecorderOptions options)
      : client_(client), options_(std::move(options)) {
    thread_ = std::thread([this] { Loop(); });
  }

  ~Impl() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  void Add(api::Event event) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_ || pending_.size() >= options_.max_pending) {
        ++dropped_;
        return;
      }
      pending_.push_back(std::move(event));
      ++queued_;
    }
    cv_.notify_all();
  }

  bool Flush(absl::Duration timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    const int64_t target = queued_;
    return cv_.wait_for(lock, absl::ToChronoNanoseconds(timeout),
                        [&] { return done_ >= target; });
  }

  const EventRecorderOptions& options() const { return options_; }

  std::atomic<int64_t> written_{0};
  std::atomic<int64_t> failed_{0};
  int64_t dropped() const {
    std::lock_guard<std::mutex> lock(mu_);
    return dropped_;
  }

 private:
  void Loop() {
    while (true) {
      api::Event event;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return closed_ || !pending_.empty(); });
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
        std::lock_guard<std::mutex> lock(mu_);
        ++done_;
      }
      cv_.notify_all();
    }
  }

  Client* client_;
  EventRecorderOptions options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<api::Event> pending_;
  bool closed_ = false;
  int64_t queued_ = 0;
  int64_t done_ = 0;
  int64_t dropped_ = 0;
  std::thread thread_;
};

EventRecorder::EventRecorder(Client* client, EventRecorderOptions options)
    : impl_(std::make_unique<Impl>(client, std::move(options))) {}

EventRecorder::~EventRecorder() = default;

void EventRecorder::Event(std::string_view kind, std::string_view api_version,
                          const api::ObjectMeta& object, std::string_view type,
                          std::string_view reason, std::string message) {
  absl::Time now = absl::Now();
  std::string timestamp = Rfc3339(now);
  api::Event event;
  event.metadata.name =
      StrCat(object.name, ".", absl::StrCat(absl::Hex(absl::ToUnixNanos(now))));
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
