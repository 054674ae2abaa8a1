#include "component_helpers/work_queue.h"

#include <algorithm>

#include "logging/log.h"

namespace draplane::component_helpers {

WorkQueue::WorkQueue(absl::Duration initial_backoff, absl::Duration max_backoff,
                     Clock* clock)
    : initial_backoff_(initial_backoff),
      max_backoff_(max_backoff),
      clock_(clock != nullptr ? *clock : RealClock()) {}

void WorkQueue::AddLocked(const std::string& key) {
  if (shut_down_ || dirty_.count(key) > 0) return;
  dirty_.insert(key);
  if (processing_.count(key) > 0) return;  // re-queued by Done
  queue_.push_back(key);
  cv_.Signal();
}

void WorkQueue::Add(const std::string& key) {
  absl::MutexLock lock(&mu_);
  AddLocked(key);
}

void WorkQueue::AddRateLimited(const std::string& key) {
  absl::MutexLock lock(&mu_);
  int n = failures_[key]++;
  absl::Duration d = initial_backoff_;
  for (int i = 0; i < n && d < max_backoff_; ++i) d *= 2;
  delayed_.emplace(clock_.Now() + std::min(d, max_backoff_), key);
  cv_.Signal();
}

void WorkQueue::Forget(const std::string& key) {
  absl::MutexLock lock(&mu_);
  failures_.erase(key);
}

std::optional<std::string> WorkQueue::Get() {
  absl::MutexLock lock(&mu_);
  while (true) {
    if (shut_down_) return std::nullopt;
    absl::Time now = clock_.Now();
    while (!delayed_.empty() && delayed_.begin()->first <= now) {
      std::string key = delayed_.begin()->second;
      delayed_.erase(delayed_.begin());
      AddLocked(key);
    }
    if (!queue_.empty()) {
      std::string key = std::move(queue_.front());
      queue_.pop_front();
      dirty_.erase(key);
      processing_.insert(key);
      return key;
    }
    clock_.WaitUntil(
        cv_, mu_,
        delayed_.empty() ? absl::InfiniteFuture() : delayed_.begin()->first);
  }
}

void WorkQueue::Done(const std::string& key) {
  absl::MutexLock lock(&mu_);
  processing_.erase(key);
  if (dirty_.count(key) > 0) {
    queue_.push_back(key);
    cv_.Signal();
  }
}

void WorkQueue::ShutDown() {
  absl::MutexLock lock(&mu_);
  shut_down_ = true;
  cv_.SignalAll();
}

size_t WorkQueue::Len() const {
  absl::MutexLock lock(&mu_);
  return queue_.size();
}

void RunWorker(WorkQueue& queue, std::string_view component,
               const std::function<absl::Status(const std::string&)>& sync) {
  while (std::optional<std::string> key = queue.Get()) {
    absl::Status s = sync(*key);
    if (s.ok()) {
      queue.Forget(*key);
    } else {
      logging::Error("Sync failed; retrying after backoff",
                     {{"component", component}, {"key", *key}, {"err", s}});
      queue.AddRateLimited(*key);
    }
    queue.Done(*key);
  }
}

}  // namespace draplane::component_helpers
