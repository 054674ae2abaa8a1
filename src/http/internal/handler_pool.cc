#include "http/internal/handler_pool.h"

#include <system_error>
#include <utility>

#include "absl/time/time.h"
#include "logging/log.h"

namespace draplane::http::internal {

HandlerPool::HandlerPool(size_t max_threads,
                         std::chrono::milliseconds idle_exit)
    : max_threads_(max_threads == 0 ? 1 : max_threads), idle_exit_(idle_exit) {}

HandlerPool::~HandlerPool() {
  std::list<Worker> workers;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    mu_.Await(absl::Condition(
        +[](size_t* alive) { return *alive == 0; }, &alive_));
    workers.swap(workers_);
  }
  for (Worker& w : workers) w.thread.join();
}

size_t HandlerPool::threads() const {
  absl::MutexLock lock(&mu_);
  return alive_;
}

bool HandlerPool::HasWorkOrStop() const { return !tasks_.empty() || stopping_; }

void HandlerPool::Reap() {
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (it->done) {
      it->thread.join();
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
}

bool HandlerPool::StartWorker() {
  if (alive_ >= max_threads_) return false;
  workers_.emplace_back();
  auto self = std::prev(workers_.end());
  try {
    self->thread = std::thread([this, self] { Loop(self); });
  } catch (const std::system_error&) {
    // Out of threads (a process limit, memory): the caller refuses the
    // request or waits; the process goes on.
    workers_.erase(self);
    return false;
  }
  ++alive_;
  return true;
}

bool HandlerPool::Run(std::function<void()> task) {
  return RunOrQueue(std::move(task), 0);
}

bool HandlerPool::RunOrQueue(std::function<void()> task, size_t max_waiting) {
  absl::MutexLock lock(&mu_);
  if (stopping_) return false;
  Reap();
  if (idle_ > tasks_.size() || StartWorker()) {
    tasks_.push_back(std::move(task));
    return true;
  }
  // Every thread is busy.
  if (alive_ == 0 || tasks_.size() >= max_waiting) return false;
  tasks_.push_back(std::move(task));
  return true;
}

void HandlerPool::Loop(std::list<Worker>::iterator self) {
  while (true) {
    std::function<void()> task;
    {
      absl::MutexLock lock(&mu_);
      ++idle_;
      const bool woke = mu_.AwaitWithTimeout(
          absl::Condition(this, &HandlerPool::HasWorkOrStop),
          absl::FromChrono(idle_exit_));
      --idle_;
      if (tasks_.empty()) {
        // Stopping with nothing queued, or idle for too long.
        if (!stopping_ && woke) continue;
        self->done = true;
        --alive_;
        return;
      }
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    try {
      task();
    } catch (const std::exception& e) {
      // A handler's bug ends its request (the connection it holds is
      // dropped with the task), not the process.
      logging::Error("HTTP handler failed", {{"err", std::string(e.what())}});
    }
  }
}

}  // namespace draplane::http::internal
