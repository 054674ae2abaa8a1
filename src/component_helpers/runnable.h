// The life cycle every long-running component shares (controllers, the
// scheduler): Start, then Stop. RunGroup starts a process's components in
// order and stops them in reverse order, as kube-controller-manager runs
// its controllers, so each command's main says only which components it
// runs.
#ifndef DRAPLANE_COMPONENT_HELPERS_RUNNABLE_H_
#define DRAPLANE_COMPONENT_HELPERS_RUNNABLE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace draplane::component_helpers {

// How long Start waits for a component's informers to sync by default.
inline constexpr absl::Duration kDefaultSyncTimeout = absl::Seconds(60);

class Runnable {
 public:
  virtual ~Runnable() = default;
  // Starts the component's work on threads of its own, after its caches
  // have synced (at most `sync_timeout`). On failure nothing is left
  // running.
  virtual absl::Status Start(
      absl::Duration sync_timeout = kDefaultSyncTimeout) = 0;
  // Ends the work and waits for the component's threads. Idempotent; a
  // stopped component may be started again.
  virtual void Stop() = 0;
};

class RunGroup {
 public:
  RunGroup() = default;
  ~RunGroup();  // Stop()s
  RunGroup(const RunGroup&) = delete;
  RunGroup& operator=(const RunGroup&) = delete;

  // `component` outlives the group; `name` names it in errors and in
  // names().
  void Add(std::string name, Runnable* component);

  // Starts every component in the order added. On the first failure, stops
  // the ones already started (in reverse order) and returns that failure,
  // its message prefixed with the component's name.
  absl::Status Start(absl::Duration sync_timeout = kDefaultSyncTimeout);

  // Stops the started components in reverse order. Idempotent.
  void Stop();

  // The names of the components, in the order added.
  std::vector<std::string> names() const;

 private:
  std::vector<std::pair<std::string, Runnable*>> components_;
  size_t started_ = 0;  // components_[0, started_) are running
};

}  // namespace draplane::component_helpers

#endif  // DRAPLANE_COMPONENT_HELPERS_RUNNABLE_H_
