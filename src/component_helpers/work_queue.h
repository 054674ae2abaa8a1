// client-go's rate-limited work queue: keys are deduplicated while
// waiting, a key being processed is never handed to a second worker (a key
// added meanwhile is processed again afterwards), and failed keys come
// back after a per-key exponential backoff. Thread-safe. Backoffs run on
// the Clock it is given.
#ifndef DRAPLANE_COMPONENT_HELPERS_WORK_QUEUE_H_
#define DRAPLANE_COMPONENT_HELPERS_WORK_QUEUE_H_

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "clock/clock.h"

namespace draplane::component_helpers {

class WorkQueue {
 public:
  // `clock` (null: RealClock()) must outlive the queue.
  WorkQueue(absl::Duration initial_backoff, absl::Duration max_backoff,
            Clock* clock = nullptr);

  void Add(const std::string& key);
  // Adds `key` after its backoff (doubling with each call until Forget).
  void AddRateLimited(const std::string& key);
  // Resets the key's backoff.
  void Forget(const std::string& key);
  // The next key, blocking; nullopt once shut down.
  std::optional<std::string> Get();
  // Processing of `key` ended.
  void Done(const std::string& key);
  void ShutDown();
  size_t Len() const;

 private:
  void AddLocked(const std::string& key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const absl::Duration initial_backoff_;
  const absl::Duration max_backoff_;
  Clock& clock_;
  mutable absl::Mutex mu_;
  absl::CondVar cv_;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<std::string> queue_ ABSL_GUARDED_BY(mu_);
  // Waiting in queue_ (or re-added).
  std::set<std::string> dirty_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> processing_ ABSL_GUARDED_BY(mu_);  // not Done yet
  std::map<std::string, int> failures_ ABSL_GUARDED_BY(mu_);
  std::set<std::pair<absl::Time, std::string>> delayed_ ABSL_GUARDED_BY(mu_);
};

// A controller worker: takes keys until the queue shuts down and runs
// `sync` on each; OK forgets the key's backoff, an error is logged as
// "<component>: <key> failed with: <message>" and the key comes back after
// its backoff.
void RunWorker(WorkQueue& queue, std::string_view component,
               const std::function<absl::Status(const std::string&)>& sync);

}  // namespace draplane::component_helpers

#endif  // DRAPLANE_COMPONENT_HELPERS_WORK_QUEUE_H_
