// kube-scheduler's scheduling queue, simplified to what draplane needs:
// an active queue ordered by pod priority (higher first) then arrival, a
// backoff queue (per-pod exponential backoff after failed attempts), and a
// set of unschedulable pods that wait for a cluster event that could change
// the answer (or, at the latest, `max_unschedulable` time). Thread-safe.
#ifndef DRAPLANE_SCHEDULER_INTERNAL_SCHEDULING_QUEUE_H_
#define DRAPLANE_SCHEDULER_INTERNAL_SCHEDULING_QUEUE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "clock/clock.h"

namespace draplane::scheduler::internal {

struct QueueOptions {
  // Upstream podInitialBackoffDuration / podMaxBackoffDuration.
  absl::Duration initial_backoff = absl::Seconds(1);
  absl::Duration max_backoff = absl::Seconds(10);
  // Upstream podMaxInUnschedulablePodsDuration.
  absl::Duration max_unschedulable = absl::Minutes(5);
  // What backoffs and the unschedulable scan read (null: RealClock());
  // outlives the queue.
  Clock* clock = nullptr;
};

class SchedulingQueue {
 public:
  explicit SchedulingQueue(QueueOptions options = {});

  // A pod to schedule (new, or updated). A pod waiting as unschedulable
  // or in backoff stays there; a pod being scheduled is re-queued when its
  // attempt ends.
  void Add(const std::string& key, int32_t priority);
  // The pod is gone or bound: forget it.
  void Remove(const std::string& key);
  // The next pod to schedule, blocking; nullopt once closed.
  std::optional<std::string> Pop();
  // The attempt for `key` ended:
  //   kDone: bound (forgotten, even if updated meanwhile);
  //   kUnschedulable: wait for a cluster event (then backoff);
  //   kBackoff: retry after the pod's backoff (errors);
  //   kGated: PreEnqueue refused it (a claim is missing): wait for an event,
  //   then go straight to active, without counting an attempt.
  enum class Outcome { kDone, kUnschedulable, kBackoff, kGated };
  void Finish(const std::string& key, Outcome outcome);
  // A cluster event that can make unschedulable pods schedulable: they
  // move to backoff (if still backing off) or active.
  void MoveAllToActiveOrBackoff();
  // The same for one waiting pod (an event only it cares about).
  void MoveToActiveOrBackoff(const std::string& key);
  void Close();

  struct Counts {
    size_t active = 0, backoff = 0, unschedulable = 0, in_flight = 0;
  };
  Counts counts() const;

 private:
  enum class Where { kActive, kBackoff, kUnschedulable, kInFlight };
  struct Entry {
    int32_t priority = 0;
    uint64_t seq = 0;
    Where where = Where::kActive;
    int attempts = 0;
    absl::Time backoff_until;
    absl::Time unschedulable_since;
    bool event_while_in_flight = false;
    bool re_added_while_in_flight = false;
  };
  void PushActiveLocked(const std::string& key, Entry& e)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ToBackoffOrActiveLocked(const std::string& key, Entry& e)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves due backoff entries to active, and (at most once a second)
  // unschedulable entries older than max_unschedulable out.
  void FlushLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  QueueOptions options_;
  Clock& clock_;
  mutable absl::Mutex mu_;
  absl::CondVar cv_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, Entry> entries_ ABSL_GUARDED_BY(mu_);
  // (-priority, seq, key)
  std::set<std::tuple<int64_t, uint64_t, std::string>> active_
      ABSL_GUARDED_BY(mu_);
  std::set<std::pair<absl::Time, std::string>> backoff_ ABSL_GUARDED_BY(mu_);
  absl::Time last_unschedulable_scan_ ABSL_GUARDED_BY(mu_) =
      absl::InfinitePast();
};

}  // namespace draplane::scheduler::internal

#endif  // DRAPLANE_SCHEDULER_INTERNAL_SCHEDULING_QUEUE_H_
