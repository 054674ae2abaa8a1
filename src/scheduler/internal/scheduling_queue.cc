#include "scheduler/internal/scheduling_queue.h"

#include <algorithm>

namespace draplane::scheduler::internal {

SchedulingQueue::SchedulingQueue(QueueOptions options)
    : options_(options),
      clock_(options.clock != nullptr ? *options.clock : RealClock()) {}

void SchedulingQueue::PushActiveLocked(const std::string& key, Entry& e) {
  e.where = Where::kActive;
  e.seq = next_seq_++;
  active_.emplace(-static_cast<int64_t>(e.priority), e.seq, key);
  cv_.Signal();
}

void SchedulingQueue::Add(const std::string& key, int32_t priority) {
  absl::MutexLock lock(&mu_);
  if (closed_) return;
  auto [it, inserted] = entries_.try_emplace(key);
  Entry& e = it->second;
  if (inserted) {
    e.priority = priority;
    PushActiveLocked(key, e);
    return;
  }
  switch (e.where) {
    case Where::kInFlight:
      e.re_added_while_in_flight = true;
      e.priority = priority;
      break;
    case Where::kActive:
      if (e.priority != priority) {
        active_.erase({-static_cast<int64_t>(e.priority), e.seq, key});
        e.priority = priority;
        PushActiveLocked(key, e);
      }
      break;
    case Where::kUnschedulable:
      // An update of the pod itself may make it schedulable (e.g. the
      // controller recorded its generated claims): as upstream, it moves.
      e.priority = priority;
      ToBackoffOrActiveLocked(key, e);
      break;
    case Where::kBackoff:
      e.priority = priority;
      break;
  }
}

void SchedulingQueue::Remove(const std::string& key) {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  Entry& e = it->second;
  if (e.where == Where::kActive) {
    active_.erase({-static_cast<int64_t>(e.priority), e.seq, key});
  } else if (e.where == Where::kBackoff) {
    backoff_.erase({e.backoff_until, key});
  }
  entries_.erase(it);
}

void SchedulingQueue::FlushLocked(absl::Time now) {
  while (!backoff_.empty() && backoff_.begin()->first <= now) {
    std::string key = backoff_.begin()->second;
    backoff_.erase(backoff_.begin());
    PushActiveLocked(key, entries_[key]);
  }
  // The scan for pods unschedulable too long visits every entry: at most
  // once a second, not once per Pop.
  if (now - last_unschedulable_scan_ < absl::Seconds(1)) return;
  last_unschedulable_scan_ = now;
  for (auto& [key, e] : entries_) {
    if (e.where == Where::kUnschedulable &&
        now - e.unschedulable_since >= options_.max_unschedulable) {
      ToBackoffOrActiveLocked(key, e);
    }
  }
}

std::optional<std::string> SchedulingQueue::Pop() {
  absl::MutexLock lock(&mu_);
  while (true) {
    if (closed_) return std::nullopt;
    const absl::Time now = clock_.Now();
    FlushLocked(now);
    if (!active_.empty()) {
      auto [prio, seq, key] = *active_.begin();
      active_.erase(active_.begin());
      Entry& e = entries_[key];
      e.where = Where::kInFlight;
      e.event_while_in_flight = false;
      e.re_added_while_in_flight = false;
      return key;
    }
    // Until the first backoff ends, and at least once a second for the
    // unschedulable scan.
    absl::Time until = now + absl::Seconds(1);
    if (!backoff_.empty()) until = std::min(until, backoff_.begin()->first);
    clock_.WaitUntil(cv_, mu_, until);
  }
}

void SchedulingQueue::ToBackoffOrActiveLocked(const std::string& key,
                                              Entry& e) {
  absl::Time now = clock_.Now();
  if (e.attempts > 0 && e.backoff_until > now) {
    e.where = Where::kBackoff;
    backoff_.emplace(e.backoff_until, key);
    cv_.Signal();
  } else {
    PushActiveLocked(key, e);
  }
}

void SchedulingQueue::Finish(const std::string& key, Outcome outcome) {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return;  // removed meanwhile
  Entry& e = it->second;
  if (outcome == Outcome::kDone) {
    // The pod is bound: updates that arrived while it was being bound do
    // not schedule it again (upstream skips updates of assumed pods). An
    // entry not in flight is another pod of that name, added after this
    // one was removed: it stays.
    if (e.where == Where::kInFlight) entries_.erase(it);
    return;
  }
  if (outcome == Outcome::kGated) {
    if (e.event_while_in_flight || e.re_added_while_in_flight) {
      PushActiveLocked(key, e);
    } else {
      e.where = Where::kUnschedulable;
      e.unschedulable_since = clock_.Now();
    }
    return;
  }
  ++e.attempts;
  absl::Duration backoff = options_.initial_backoff;
  for (int i = 1; i < e.attempts && backoff < options_.max_backoff; ++i) {
    backoff *= 2;
  }
  e.backoff_until = clock_.Now() + std::min(backoff, options_.max_backoff);
  if (outcome == Outcome::kBackoff || e.event_while_in_flight ||
      e.re_added_while_in_flight) {
    e.where = Where::kBackoff;
    backoff_.emplace(e.backoff_until, key);
    cv_.Signal();
    return;
  }
  e.where = Where::kUnschedulable;
  e.unschedulable_since = clock_.Now();
}

void SchedulingQueue::MoveAllToActiveOrBackoff() {
  absl::MutexLock lock(&mu_);
  for (auto& [key, e] : entries_) {
    if (e.where == Where::kUnschedulable) {
      ToBackoffOrActiveLocked(key, e);
    } else if (e.where == Where::kInFlight) {
      e.event_while_in_flight = true;
    }
  }
}

void SchedulingQueue::MoveToActiveOrBackoff(const std::string& key) {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  if (it->second.where == Where::kUnschedulable) {
    ToBackoffOrActiveLocked(key, it->second);
  } else if (it->second.where == Where::kInFlight) {
    it->second.event_while_in_flight = true;
  }
}

void SchedulingQueue::Close() {
  absl::MutexLock lock(&mu_);
  closed_ = true;
  cv_.SignalAll();
}

SchedulingQueue::Counts SchedulingQueue::counts() const {
  absl::MutexLock lock(&mu_);
  Counts c;
  for (const auto& [key, e] : entries_) {
    switch (e.where) {
      case Where::kActive:
        ++c.active;
        break;
      case Where::kBackoff:
        ++c.backoff;
        break;
      case Where::kUnschedulable:
        ++c.unschedulable;
        break;
      case Where::kInFlight:
        ++c.in_flight;
        break;
    }
  }
  return c;
}

}  // namespace draplane::scheduler::internal
