// Watches claims, ResourceSlices and DeviceClasses and
// - serves the guide's cluster metrics, computed when scraped:
//     dra_resource_claims_total{namespace}      claims (a gauge: the guide's
//                                                name, although promlint
//                                                wants _total for counters)
//     dra_resource_claims_pending{namespace}    claims without allocation
//     dra_resource_claims_allocated{namespace}  claims with allocation
//     dra_resource_claims_oldest_pending_seconds{namespace}  (draplane's:
//                                                for the "pending > 5 min"
//                                                alert)
//     dra_devices_available{deviceclass,driver} devices the class selects
//                                                that can be allocated now
//     dra_devices_allocated{deviceclass,driver} devices the class selects
//                                                that are allocated
//   (device_inventory.h has the counting rules; a claim being deleted is
//   neither pending nor allocated);
// - warns about the guide's failure case 4: a DeviceClass whose selectors
//   select none of the published devices (or do not compile) gets a
//   Warning event "NoMatchingDevices" naming how many devices were
//   published, once per change of the class or of that outcome. Nothing is
//   said while no device is published at all (no driver yet).
#ifndef DRAPLANE_CONTROLLERS_DRA_MONITOR_H_
#define DRAPLANE_CONTROLLERS_DRA_MONITOR_H_

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "client/client.h"
#include "clock/clock.h"
#include "component_helpers/runnable.h"
#include "controllers/device_inventory.h"
#include "metrics/metrics.h"
#include "prometheus/metric_family.h"

namespace draplane::controllers {

struct DraMonitorOptions {
  // Where the metrics go (null: none).
  metrics::Registry* metrics = nullptr;
  bool warn_classes = true;
  // How long class and slice changes settle before classes are checked.
  absl::Duration settle = absl::Milliseconds(500);
  // What the monitor reads (pending claims' ages) and waits on (null:
  // RealClock()); outlives the monitor.
  Clock* clock = nullptr;
};

class DraMonitor : public component_helpers::Runnable {
 public:
  // `client` (and options.metrics) outlive the monitor.
  DraMonitor(client::Client* client, DraMonitorOptions options);
  ~DraMonitor() override;  // Stop()s
  DraMonitor(const DraMonitor&) = delete;
  DraMonitor& operator=(const DraMonitor&) = delete;

  absl::Status Start(absl::Duration sync_timeout =
                         component_helpers::kDefaultSyncTimeout) override;
  void Stop() override;

  // The cluster gauges as of now (what a scrape returns).
  std::vector<prometheus::MetricFamily> Collect();
  // The device counts as of now.
  Inventory CurrentInventory();
  // What the last check of the classes (warn_classes) concluded about
  // `device_class`: "ok", "none" (selects none of the published devices),
  // "error:<reason>"; "" before its first check.
  std::string ClassOutcome(const std::string& device_class) const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace draplane::controllers

#endif  // DRAPLANE_CONTROLLERS_DRA_MONITOR_H_
