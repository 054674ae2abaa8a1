#include "apiserver/internal/watch_dispatcher.h"

#include <algorithm>
#include <system_error>
#include <utility>

namespace draplane::apiserver::internal {
namespace {

// Session::state_: not queued; queued; running; running and to run again.
constexpr int kIdle = 0;
constexpr int kQueued = 1;
constexpr int kRunning = 2;
constexpr int kRunAgain = 3;

}  // namespace

WatchDispatcher::WatchDispatcher(int threads, absl::Duration tick)
    : max_threads_(static_cast<size_t>(std::max(1, threads))),
      tick_(tick),
      next_tick_(absl::Now() + tick) {}

WatchDispatcher::~WatchDispatcher() { Stop(); }

void WatchDispatcher::Stop() {
  std::vector<std::thread> threads;
  std::vector<std::shared_ptr<Session>> sessions;
  std::deque<std::shared_ptr<Session>> ready;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    threads.swap(threads_);
  }
  for (std::thread& t : threads) t.join();
  // Sessions (and what they hold) go outside the lock.
  {
    absl::MutexLock lock(&mu_);
    sessions.swap(sessions_);
    ready.swap(ready_);
  }
  for (const std::shared_ptr<Session>& s : sessions) s->Dropped();
}

bool WatchDispatcher::StartThreadLocked() {
  try {
    threads_.emplace_back([this] { Loop(); });
  } catch (const std::system_error&) {
    return false;
  }
  return true;
}

bool WatchDispatcher::Add(const std::shared_ptr<Session>& session) {
  absl::MutexLock lock(&mu_);
  if (stopping_) return false;
  while (threads_.size() < max_threads_ && StartThreadLocked()) {
  }
  if (threads_.empty()) return false;
  sessions_.push_back(session);
  session->state_.store(kQueued);
  Enqueue(session);
  return true;
}

void WatchDispatcher::Schedule(const std::shared_ptr<Session>& session) {
  int state = session->state_.load();
  while (true) {
    if (state == kIdle) {
      if (session->state_.compare_exchange_weak(state, kQueued)) {
        absl::MutexLock lock(&mu_);
        Enqueue(session);
        return;
      }
    } else if (state == kRunning) {
      if (session->state_.compare_exchange_weak(state, kRunAgain)) return;
    } else {
      return;  // queued, or to run again already
    }
  }
}

size_t WatchDispatcher::SessionCount() const {
  absl::MutexLock lock(&mu_);
  return sessions_.size();
}

void WatchDispatcher::Enqueue(std::shared_ptr<Session> session) {
  if (!stopping_) ready_.push_back(std::move(session));
}

void WatchDispatcher::ScheduleAll() {
  for (const std::shared_ptr<Session>& s : sessions_) {
    int state = kIdle;
    if (s->state_.compare_exchange_strong(state, kQueued)) {
      Enqueue(s);
    } else if (state == kRunning) {
      s->state_.compare_exchange_strong(state, kRunAgain);
    }
  }
}

void WatchDispatcher::Loop() {
  absl::MutexLock lock(&mu_);
  while (true) {
    auto ready_or_stopping = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return stopping_ || !ready_.empty();
    };
    mu_.AwaitWithDeadline(absl::Condition(&ready_or_stopping), next_tick_);
    if (stopping_) return;
    const absl::Time now = absl::Now();
    if (now >= next_tick_) {
      next_tick_ = now + tick_;
      ScheduleAll();
    }
    if (ready_.empty()) continue;
    std::shared_ptr<Session> session = std::move(ready_.front());
    ready_.pop_front();
    session->state_.store(kRunning);
    bool more = false;
    {
      mu_.Unlock();
      more = session->Run();
      mu_.Lock();
    }
    if (!more) {
      auto it = std::find(sessions_.begin(), sessions_.end(), session);
      if (it != sessions_.end()) {
        *it = std::move(sessions_.back());
        sessions_.pop_back();
      }
      // Destroyed outside the lock.
      mu_.Unlock();
      session.reset();
      mu_.Lock();
      continue;
    }
    int state = kRunning;
    if (!session->state_.compare_exchange_strong(state, kIdle)) {
      session->state_.store(kQueued);
      Enqueue(std::move(session));
    }
  }
}

}  // namespace draplane::apiserver::internal
