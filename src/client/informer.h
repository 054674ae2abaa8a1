// A shared informer: keeps a local cache of one kind in step with the
// server (list, then watch from the list's resourceVersion; bookmarks
// advance it; a 410 or a broken stream re-lists after a backoff and
// reports the differences as events), and calls handlers one at a time, in
// order, on its own threads (never the caller's; over an in-process
// transport usually the watching thread, see informer.cc). Like
// client-go's SharedIndexInformer without indexes.
#ifndef DRAPLANE_CLIENT_INFORMER_H_
#define DRAPLANE_CLIENT_INFORMER_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "api/object.h"
#include "client/client.h"
#include "clock/clock.h"

namespace draplane::client {

using ObjectPtr = std::shared_ptr<const api::Object>;

struct InformerOptions {
  const api::KindInfo* kind = nullptr;
  std::string ns;  // "" = all namespaces
  std::string label_selector;
  std::string field_selector;
  // Every resync period each cached object is delivered again as an
  // update (old == new). 0 = never.
  absl::Duration resync = absl::ZeroDuration();
  // Page size of the initial list (0 = one page).
  int64_t page_size = 500;
  // Backoff after a failed list/watch: starts here, doubles, capped.
  absl::Duration initial_backoff = absl::Milliseconds(100);
  absl::Duration max_backoff = absl::Seconds(30);
  // Cached objects have no metadata.managedFields, as kube-scheduler's and
  // kube-controller-manager's informers trim them (less memory and
  // decoding); turn off for a cache whose users read managedFields.
  bool drop_managed_fields = true;
  // What backoffs, resync periods and WaitForSync run on (null:
  // RealClock()); outlives the informer.
  Clock* clock = nullptr;
};

struct EventHandler {
  std::function<void(const ObjectPtr&)> on_add;
  // `old_object` is the cached object before the change.
  std::function<void(const ObjectPtr& old_object, const ObjectPtr& object)>
      on_update;
  // The last known state of the deleted object.
  std::function<void(const ObjectPtr&)> on_delete;
};

class Informer {
 public:
  // `client` outlives the informer.
  Informer(Client* client, InformerOptions options);
  ~Informer();  // Stop()s
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Handlers added before Start() see every object as an add; handlers
  // added later first get adds for the cached objects.
  void AddHandler(EventHandler handler);
  void Start();
  // Ends the watch and joins the thread; no handler runs afterwards.
  void Stop();
  // True once the first list has been delivered to the handlers.
  bool HasSynced() const;
  // Blocks until HasSynced() or the timeout; returns HasSynced().
  bool WaitForSync(absl::Duration timeout) const;

  // The cache (thread-safe snapshot reads).
  std::vector<ObjectPtr> List() const;
  ObjectPtr Get(std::string_view ns, std::string_view name) const;
  // The resourceVersion the cache reflects.
  std::string ResourceVersion() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// An informer of the served kind named `kind` ("Pod") in `ns` ("" = all
// namespaces) with the default options.
std::unique_ptr<Informer> NewInformer(Client* client, std::string_view kind,
                                      std::string ns = "");

// Starts every informer, then waits until all have synced, `timeout` in
// all; false when one did not.
bool StartAndSync(const std::vector<Informer*>& informers,
                  absl::Duration timeout);

}  // namespace draplane::client

#endif  // DRAPLANE_CLIENT_INFORMER_H_
