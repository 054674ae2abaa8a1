// client-go's record.EventRecorder for core/v1 Events, as the scheduler
// and kube-controller-manager use it: Event() returns at once, one thread
// writes the events in order, and a queue over `max_pending` drops new
// events rather than slowing its caller down. Events are named like
// client-go's ("<object>.<unix nanoseconds in hex>") and carry the
// component as source and reportingComponent. No series aggregation or
// spam filter (upstream's correlator): every call is one Event. Thread-safe.
#ifndef DRAPLANE_CLIENT_EVENT_RECORDER_H_
#define DRAPLANE_CLIENT_EVENT_RECORDER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "api/core_types.h"
#include "api/meta_types.h"
#include "client/client.h"
#include "clock/clock.h"

namespace draplane::client {

struct EventRecorderOptions {
  std::string component;  // e.g. "draplane", "resource_claim"
  size_t max_pending = 1000;
  // What event timestamps (and names) and Flush's timeout read (null:
  // RealClock()); outlives the recorder.
  Clock* clock = nullptr;
};

class EventRecorder {
 public:
  // `client` outlives the recorder.
  EventRecorder(Client* client, EventRecorderOptions options);
  ~EventRecorder();  // writes what is queued, then stops
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // Queues an event about `object` (kind and apiVersion as served, e.g.
  // "Pod"/"v1"). `type` is "Normal" or "Warning". The event goes into the
  // object's namespace ("default" for cluster-scoped objects, as
  // client-go's recorder does).
  void Event(std::string_view kind, std::string_view api_version,
             const api::ObjectMeta& object, std::string_view type,
             std::string_view reason, std::string message);

  // Blocks until every event queued before the call was written or
  // failed, or `timeout` passed; returns whether the queue drained.
  bool Flush(absl::Duration timeout = absl::Seconds(10));

  int64_t written() const;
  int64_t dropped() const;  // queue full
  int64_t failed() const;   // the server refused the write

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace draplane::client

#endif  // DRAPLANE_CLIENT_EVENT_RECORDER_H_
