// The threads that run HTTP handlers: created on demand up to a maximum,
// each leaving after a while without work, so that the number of threads
// follows the requests being served.
#ifndef DRAPLANE_HTTP_INTERNAL_HANDLER_POOL_H_
#define DRAPLANE_HTTP_INTERNAL_HANDLER_POOL_H_

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <list>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace draplane::http::internal {

class HandlerPool {
 public:
  // At most `max_threads` (at least 1) threads; an idle one leaves after
  // `idle_exit`.
  explicit HandlerPool(size_t max_threads, std::chrono::milliseconds idle_exit =
                                               std::chrono::seconds(30));
  // Waits for the tasks running and queued, and joins every thread.
  ~HandlerPool();
  HandlerPool(const HandlerPool&) = delete;
  HandlerPool& operator=(const HandlerPool&) = delete;

  // Runs `task` on an idle thread, or on a new one. False, with `task` not
  // run, when every thread is busy and no other can be had: the maximum is
  // reached or the system refused a thread. Never throws.
  bool Run(std::function<void()> task);
  // As Run, but when no thread can be had while some run, `task` waits
  // for the first to finish, unless `max_waiting` tasks are queued
  // already. False, with `task` not run, then or when no thread runs at
  // all.
  bool RunOrQueue(std::function<void()> task, size_t max_waiting);

  // Threads alive now (for tests).
  size_t threads() const;

 private:
  struct Worker {
    std::thread thread;
    bool done = false;
  };
  void Loop(std::list<Worker>::iterator self);
  // Joins the threads that left.
  void Reap() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Adds a thread; false when the maximum is reached or the system
  // refused one.
  bool StartWorker() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether a thread waiting for work should wake.
  bool HasWorkOrStop() const ABSL_SHARED_LOCKS_REQUIRED(mu_);

  const size_t max_threads_;
  const std::chrono::milliseconds idle_exit_;
  mutable absl::Mutex mu_;
  std::deque<std::function<void()>> tasks_ ABSL_GUARDED_BY(mu_);
  std::list<Worker> workers_ ABSL_GUARDED_BY(mu_);
  size_t alive_ ABSL_GUARDED_BY(mu_) = 0;  // workers not done
  size_t idle_ ABSL_GUARDED_BY(mu_) = 0;   // alive workers waiting for work
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace draplane::http::internal

#endif  // DRAPLANE_HTTP_INTERNAL_HANDLER_POOL_H_
