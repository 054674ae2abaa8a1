#include "store/compactor.h"

#include <algorithm>
#include <utility>

#include "logging/log.h"

namespace draplane::store {

PeriodicCompactor::PeriodicCompactor(Store& store, Clock& clock,
                                     absl::Duration interval)
    : store_(store), clock_(clock), interval_(interval) {}

PeriodicCompactor::~PeriodicCompactor() { Stop(); }

void PeriodicCompactor::Start() {
  absl::MutexLock lock(&mu_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { Run(); });
}

void PeriodicCompactor::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  cv_.SignalAll();
  if (thread_.joinable()) thread_.join();
}

absl::Status PeriodicCompactor::Tick() {
  int64_t target = 0;
  {
    absl::MutexLock lock(&mu_);
    target = std::exchange(previous_revision_, store_.Revision());
  }
  const int64_t before = store_.CompactRevision();
  // At or below the compact revision nothing is compacted, but the store
  // checks its space alarm: an alarm a refused write raised clears even on
  // a store that no write advanced since.
  absl::Status s = store_.Compact(std::max(target, before));
  absl::MutexLock lock(&mu_);
  if (!s.ok()) {
    ++failures_;
  } else if (store_.CompactRevision() > before) {
    ++compactions_;
  }
  return s;
}

int64_t PeriodicCompactor::compactions() const {
  absl::MutexLock lock(&mu_);
  return compactions_;
}

int64_t PeriodicCompactor::failures() const {
  absl::MutexLock lock(&mu_);
  return failures_;
}

void PeriodicCompactor::Run() {
  for (;;) {
    {
      absl::MutexLock lock(&mu_);
      if (clock_.WaitFor(cv_, mu_, interval_, [this] {
            mu_.AssertHeld();
            return stopping_;
          })) {
        return;
      }
    }
    // A failed compaction (a full disk) is retried at the next tick, to
    // the revision seen at this one.
    if (absl::Status s = Tick(); !s.ok()) {
      logging::Warning("Compaction failed; retrying at the next interval",
                       {{"err", s}, {"interval", interval_}});
    }
  }
}

}  // namespace draplane::store
