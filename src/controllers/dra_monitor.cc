#include "controllers/dra_monitor.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <tuple>

#include "absl/synchronization/mutex.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "common/str_cat.h"

namespace draplane::controllers {

namespace {

struct ClaimCounts {
  double total = 0, pending = 0, allocated = 0;
  double oldest_pending_seconds = 0;
};

}  // namespace

class DraMonitor::Impl {
 public:
  Impl(client::Client* client, DraMonitorOptions options)
      : client_(client),
        options_(options),
        clock_(options.clock != nullptr ? *options.clock : RealClock()) {}

  absl::Status Start(absl::Duration sync_timeout) {
    claims_ = client::NewInformer(client_, "ResourceClaim");
    slices_ = client::NewInformer(client_, "ResourceSlice");
    classes_ = client::NewInformer(client_, "DeviceClass");
    client::EventHandler changed;
    changed.on_add = [this](const client::ObjectPtr&) { MarkDirty(); };
    changed.on_update = [this](const client::ObjectPtr&,
                               const client::ObjectPtr&) { MarkDirty(); };
    changed.on_delete = [this](const client::ObjectPtr&) { MarkDirty(); };
    slices_->AddHandler(changed);
    classes_->AddHandler(changed);
    if (!client::StartAndSync({claims_.get(), slices_.get(), classes_.get()},
                              sync_timeout)) {
      return absl::DeadlineExceededError(
          "dra monitor: informers did not sync in time");
    }
    if (options_.warn_classes) {
      recorder_ = std::make_unique<client::EventRecorder>(
          client_, client::EventRecorderOptions{
                       .component = "draplane-dra-monitor", .clock = &clock_});
      MarkDirty();
      warn_thread_ = std::thread([this] { WarnLoop(); });
    }
    if (options_.metrics != nullptr) {
      collector_ = options_.metrics->AddCollector([this] { return Collect(); });
    }
    return absl::OkStatus();
  }

  void Stop() {
    collector_.reset();
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
    }
    cv_.SignalAll();
    if (warn_thread_.joinable()) warn_thread_.join();
    for (client::Informer* i : {claims_.get(), slices_.get(), classes_.get()}) {
      if (i != nullptr) i->Stop();
    }
    recorder_.reset();
  }

  Inventory CurrentInventory() {
    absl::MutexLock lock(&inventory_mu_);
    return inventory_.Compute(slices_->List(), classes_->List(),
                              claims_->List());
  }

  std::vector<prometheus::MetricFamily> Collect() {
    std::vector<client::ObjectPtr> claims = claims_->List();
    absl::Time now = clock_.Now();
    std::map<std::string, ClaimCounts> by_ns;
    for (const client::ObjectPtr& o : claims) {
      const auto& c = std::get<api::ResourceClaim>(o->value);
      ClaimCounts& n = by_ns[c.metadata.namespace_];
      ++n.total;
      if (c.metadata.deletion_timestamp.has_value()) continue;
      if (c.status.allocation.has_value()) {
        ++n.allocated;
        continue;
      }
      ++n.pending;
      absl::Time created;
      std::string error;
      if (c.metadata.creation_timestamp.has_value() &&
          absl::ParseTime(absl::RFC3339_full, *c.metadata.creation_timestamp,
                          &created, &error)) {
        n.oldest_pending_seconds = std::max(
            n.oldest_pending_seconds, absl::ToDoubleSeconds(now - created));
      }
    }
    std::map<std::vector<std::string>, double> total, pending, allocated,
        oldest;
    for (const auto& [ns, n] : by_ns) {
      total[{ns}] = n.total;
      pending[{ns}] = n.pending;
      allocated[{ns}] = n.allocated;
      oldest[{ns}] = n.oldest_pending_seconds;
    }
    Inventory inv;
    {
      absl::MutexLock lock(&inventory_mu_);
      inv = inventory_.Compute(slices_->List(), classes_->List(), claims);
    }
    std::map<std::vector<std::string>, double> available, in_use;
    for (const auto& [key, counts] : inv.by_class) {
      available[{key.first, key.second}] =
          static_cast<double>(counts.available);
      in_use[{key.first, key.second}] = static_cast<double>(counts.allocated);
    }
    std::vector<prometheus::MetricFamily> out;
    out.push_back(metrics::GaugeFamily("dra_resource_claims_total",
                                       "Number of ResourceClaims.",
                                       {"namespace"}, total));
    out.push_back(metrics::GaugeFamily(
        "dra_resource_claims_pending",
        "Number of ResourceClaims without an allocation (not being deleted).",
        {"namespace"}, pending));
    out.push_back(metrics::GaugeFamily(
        "dra_resource_claims_allocated",
        "Number of allocated ResourceClaims (not being deleted).",
        {"namespace"}, allocated));
    out.push_back(metrics::GaugeFamily(
        "dra_resource_claims_oldest_pending_seconds",
        "Age of the oldest ResourceClaim without an allocation (0 when none; "
        "draplane's addition).",
        {"namespace"}, oldest));
    out.push_back(metrics::GaugeFamily(
        "dra_devices_available",
        "Published devices the DeviceClass selects that can be allocated now.",
        {"deviceclass", "driver"}, available));
    out.push_back(metrics::GaugeFamily(
        "dra_devices_allocated",
        "Published devices the DeviceClass selects that are allocated.",
        {"deviceclass", "driver"}, in_use));
    return out;
  }

 private:
  void MarkDirty() {
    {
      absl::MutexLock lock(&mu_);
      dirty_ = true;
    }
    cv_.SignalAll();
  }

  void WarnLoop() {
    while (true) {
      {
        absl::MutexLock lock(&mu_);
        clock_.WaitUntil(cv_, mu_, absl::InfiniteFuture(), [this] {
          mu_.AssertHeld();
          return stopping_ || dirty_;
        });
        if (stopping_) return;
        // Let a burst of changes (a driver publishing its slices) settle.
        if (clock_.WaitFor(cv_, mu_, options_.settle, [this] {
              mu_.AssertHeld();
              return stopping_;
            })) {
          return;
        }
        dirty_ = false;
      }
      CheckClasses();
    }
  }

  void CheckClasses() {
    Inventory inv = CurrentInventory();
    std::set<std::string> drivers;
    for (const client::ObjectPtr& o : slices_->List()) {
      drivers.insert(std::get<api::ResourceSlice>(o->value).spec.driver);
    }
    std::string driver_list;
    for (const std::string& d : drivers) {
      driver_list += driver_list.empty() ? d : StrCat(", ", d);
    }
    std::set<std::string> seen;
    for (const client::ObjectPtr& o : classes_->List()) {
      const auto& dc = std::get<api::DeviceClass>(o->value);
      const std::string& name = dc.metadata.name;
      seen.insert(name);
      std::string outcome = "ok";
      std::string message;
      if (auto e = inv.class_errors.find(name); e != inv.class_errors.end()) {
        outcome = StrCat("error:", e->second);
        message =
            StrCat("a selector of DeviceClass ", name,
                   " does not compile, so it selects no device: ", e->second);
      } else if (inv.selected[name] == 0 && inv.published_devices > 0) {
        outcome = "none";
        message = StrCat(
            "the selectors of DeviceClass ", name, " select none of the ",
            inv.published_devices, " published devices (drivers: ", driver_list,
            "); claims using it stay pending. See which selector excludes "
            "them with: draplane cel match --class ",
            name, " -f <the class and the slices as YAML>");
      }
      std::string state =
          StrCat(dc.metadata.uid, "/", dc.metadata.generation, "/", outcome);
      {
        absl::MutexLock lock(&outcomes_mu_);
        outcomes_[name] = outcome;
      }
      std::string& last = last_state_[name];
      if (state == last) continue;
      last = state;
      if (outcome != "ok" && recorder_ != nullptr) {
        recorder_->Event("DeviceClass", "resource.k8s.io/v1", dc.metadata,
                         "Warning", "NoMatchingDevices", message);
      }
    }
    for (auto it = last_state_.begin(); it != last_state_.end();) {
      it = seen.count(it->first) ? std::next(it) : last_state_.erase(it);
    }
    absl::MutexLock lock(&outcomes_mu_);
    for (auto it = outcomes_.begin(); it != outcomes_.end();) {
      it = seen.count(it->first) ? std::next(it) : outcomes_.erase(it);
    }
  }

 public:
  std::string ClassOutcome(const std::string& device_class) const {
    absl::MutexLock lock(&outcomes_mu_);
    auto it = outcomes_.find(device_class);
    return it == outcomes_.end() ? "" : it->second;
  }

 private:
  client::Client* client_;
  DraMonitorOptions options_;
  Clock& clock_;
  std::unique_ptr<client::Informer> claims_, slices_, classes_;
  std::unique_ptr<client::EventRecorder> recorder_;
  std::unique_ptr<metrics::Registry::Collector> collector_;

  absl::Mutex inventory_mu_;
  DeviceInventory inventory_ ABSL_GUARDED_BY(inventory_mu_);

  absl::Mutex mu_;
  absl::CondVar cv_;
  bool dirty_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread warn_thread_;
  std::map<std::string, std::string> last_state_;  // class -> last outcome
  mutable absl::Mutex outcomes_mu_;
  // class -> the last check's outcome ("ok", "none", "error:...").
  std::map<std::string, std::string> outcomes_ ABSL_GUARDED_BY(outcomes_mu_);
};

DraMonitor::DraMonitor(client::Client* client, DraMonitorOptions options)
    : impl_(std::make_unique<Impl>(client, options)) {}
DraMonitor::~DraMonitor() { Stop(); }
absl::Status DraMonitor::Start(absl::Duration sync_timeout) {
  return impl_->Start(sync_timeout);
}
void DraMonitor::Stop() { impl_->Stop(); }
std::vector<prometheus::MetricFamily> DraMonitor::Collect() {
  return impl_->Collect();
}
Inventory DraMonitor::CurrentInventory() { return impl_->CurrentInventory(); }
std::string DraMonitor::ClassOutcome(const std::string& device_class) const {
  return impl_->ClassOutcome(device_class);
}

}  // namespace draplane::controllers
