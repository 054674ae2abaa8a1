// Runs the work of watches whose HTTP streams were detached from their
// handler threads (http::ResponseWriter::Detach), on a few threads shared
// by all of them: so that an idle watch costs no thread.
#ifndef DRAPLANE_APISERVER_INTERNAL_WATCH_DISPATCHER_H_
#define DRAPLANE_APISERVER_INTERNAL_WATCH_DISPATCHER_H_

#include <atomic>
#include <deque>
#include <memory>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace draplane::apiserver::internal {

class WatchDispatcher {
 public:
  // One watch's work.
  class Session {
   public:
    virtual ~Session() = default;
    // Delivers what has arrived and makes the periodic checks (deadline,
    // bookmarks); false when the watch is over: the dispatcher forgets it.
    // Never runs on two threads at once.
    virtual bool Run() = 0;
    // The dispatcher stops and drops the session (never while it runs).
    virtual void Dropped() {}

   private:
    friend class WatchDispatcher;
    // kIdle, kQueued, kRunning or kRunAgain.
    std::atomic<int> state_{0};
  };

  // At most `threads` threads (made as sessions come); every session runs
  // at least every `tick`.
  WatchDispatcher(int threads, absl::Duration tick);
  // Stop().
  ~WatchDispatcher();
  WatchDispatcher(const WatchDispatcher&) = delete;
  WatchDispatcher& operator=(const WatchDispatcher&) = delete;

  // Takes `session` on and runs it soon. False, taking nothing, when no
  // thread could be made for it (the process's thread limit): the caller
  // serves the watch itself.
  bool Add(const std::shared_ptr<Session>& session);
  // Runs `session` soon (again, if it is running). Any thread; never
  // blocks on a session's work.
  void Schedule(const std::shared_ptr<Session>& session);

  // Joins the threads and drops the sessions held (Session::Dropped);
  // Add() is refused from then on. Idempotent.
  void Stop();

  // Sessions held (for tests).
  size_t SessionCount() const;

 private:
  void Loop();
  // Queues every session held (the tick).
  void ScheduleAll() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Enqueue(std::shared_ptr<Session> session)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool StartThreadLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const size_t max_threads_;
  const absl::Duration tick_;
  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<Session>> sessions_ ABSL_GUARDED_BY(mu_);
  std::deque<std::shared_ptr<Session>> ready_ ABSL_GUARDED_BY(mu_);
  absl::Time next_tick_ ABSL_GUARDED_BY(mu_);
};

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_WATCH_DISPATCHER_H_
