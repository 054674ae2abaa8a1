// Compaction by age, as kube-apiserver's compactor does for etcd
// (--etcd-compaction-interval, 5 minutes by default): every interval it
// compacts the store to the revision it saw one interval before, so
// watches and reads may start from any revision of the last interval and
// history older than two intervals is gone. Compaction by revision count
// is the store's own (StoreOptions::retain_revisions).
//
// Usage:
//   PeriodicCompactor compactor(*store, RealClock(), absl::Minutes(5));
//   compactor.Start();
//   ...
//   compactor.Stop();  // or its destructor
#ifndef DRAPLANE_STORE_COMPACTOR_H_
#define DRAPLANE_STORE_COMPACTOR_H_

#include <cstdint>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "clock/clock.h"
#include "store/store.h"

namespace draplane::store {

class PeriodicCompactor {
 public:
  // `store` and `clock` outlive the compactor. `interval` > 0.
  PeriodicCompactor(Store& store, Clock& clock, absl::Duration interval);
  ~PeriodicCompactor();
  PeriodicCompactor(const PeriodicCompactor&) = delete;
  PeriodicCompactor& operator=(const PeriodicCompactor&) = delete;

  // Starts the thread that ticks every interval; its first tick is one
  // interval after Start.
  void Start();
  // Stops and joins the thread; idempotent.
  void Stop();

  // One tick: compacts to the revision seen at the previous tick (none at
  // the first), then remembers the current revision. Every tick lets the
  // store check its space alarm (Store::Compact), so the alarm clears
  // within one interval of the stored bytes being under the quota. The thread
  // calls it; tests may call it instead of starting the thread.
  absl::Status Tick();

  // Compactions done and failed so far.
  int64_t compactions() const;
  int64_t failures() const;

 private:
  void Run();

  Store& store_;
  Clock& clock_;
  const absl::Duration interval_;
  std::thread thread_;
  mutable absl::Mutex mu_;
  absl::CondVar cv_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int64_t previous_revision_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t compactions_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t failures_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace draplane::store

#endif  // DRAPLANE_STORE_COMPACTOR_H_
