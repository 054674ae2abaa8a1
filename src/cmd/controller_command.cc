// `draplane controller`: the controllers as their own process against any
// Kubernetes API server (kubeconfig), with leader election: the
// resourceclaim controller (claims from templates, reservation cleanup,
// deallocation) and the DRA monitor (the guide's cluster metrics, warnings
// on DeviceClasses that select nothing).
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>

#include "absl/synchronization/mutex.h"
#include "client/client.h"
#include "client/leader_election.h"
#include "client/rest_config.h"
#include "cmd/command_help.h"
#include "cmd/commands.h"
#include "cmd/component_support.h"
#include "cmd/controller_selection.h"
#include "component_helpers/runnable.h"
#include "controllers/dra_monitor.h"
#include "controllers/node_lifecycle_controller.h"
#include "controllers/resource_claim_controller.h"
#include "controllers/resource_quota_controller.h"

namespace draplane::cmd {
namespace {

struct ControllerFlags {
  RemoteApiFlags remote;
  SecureServingFlags serving;
  LoggingFlags logging;
  LeaderElectionFlags leader_election{.lease_name = "draplane-controller"};
  int workers = 8;
  int node_monitor_period_s = 5;
  int node_monitor_grace_period_s = 50;
  std::string controllers = "*";
  std::set<std::string> enabled;  // from `controllers`
};

// The controllers, started while this process leads.
class Controllers {
 public:
  Controllers(client::Client* client, metrics::Registry* registry,
              const ControllerFlags& flags, std::ostream& err)
      : client_(client), registry_(registry), flags_(flags), err_(err) {}

  bool Start() {
    absl::MutexLock lock(&mu_);
    if (group_ != nullptr) return true;
    group_ = std::make_unique<component_helpers::RunGroup>();
    const auto on = [this](std::string_view name) {
      return flags_.enabled.count(std::string(name)) > 0;
    };
    if (on(kResourceClaimController)) {
      controllers::ResourceClaimControllerOptions co;
      co.workers = flags_.workers;
      co.metrics = registry_;
      claims_ =
          std::make_unique<controllers::ResourceClaimController>(client_, co);
      group_->Add("resourceclaim controller", claims_.get());
    }
    if (on(kDraMonitor)) {
      controllers::DraMonitorOptions mo;
      mo.metrics = registry_;
      monitor_ = std::make_unique<controllers::DraMonitor>(client_, mo);
      group_->Add("DRA monitor", monitor_.get());
    }
    if (on(kNodeLifecycleController)) {
      controllers::NodeLifecycleOptions no;
      no.monitor_period = absl::Seconds(flags_.node_monitor_period_s);
      no.grace_period = absl::Seconds(flags_.node_monitor_grace_period_s);
      nodes_ =
          std::make_unique<controllers::NodeLifecycleController>(client_, no);
      group_->Add("node lifecycle controller", nodes_.get());
    }
    if (on(kResourceQuotaController)) {
      quotas_ = std::make_unique<controllers::ResourceQuotaController>(client_);
      group_->Add("resourcequota controller", quotas_.get());
    }
    if (absl::Status s = group_->Start(); !s.ok()) {
      err_ << "error: " << s.message() << "\n";
      StopLocked();
      return false;
    }
    return true;
  }

  void Stop() {
    absl::MutexLock lock(&mu_);
    StopLocked();
  }

 private:
  void StopLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    group_.reset();  // stops them in reverse order
    monitor_.reset();
    quotas_.reset();
    nodes_.reset();
    claims_.reset();
  }

  client::Client* client_;
  metrics::Registry* registry_;
  const ControllerFlags& flags_;
  std::ostream& err_;
  absl::Mutex mu_;
  std::unique_ptr<controllers::ResourceClaimController> claims_
      ABSL_GUARDED_BY(mu_);
  std::unique_ptr<controllers::DraMonitor> monitor_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<controllers::NodeLifecycleController> nodes_
      ABSL_GUARDED_BY(mu_);
  std::unique_ptr<controllers::ResourceQuotaController> quotas_
      ABSL_GUARDED_BY(mu_);
  std::unique_ptr<component_helpers::RunGroup> group_ ABSL_GUARDED_BY(mu_);
};

int RunController(const ControllerFlags& flags, Streams streams) {
  if (absl::Status s = ApplyLoggingFlags(flags.logging); !s.ok()) {
    streams.err << "error: " << s.message() << "\n";
    return 2;
  }
  absl::StatusOr<std::optional<client::LeaderElectionConfig>> le =
      LeaderElectionConfigFrom(flags.leader_election);
  if (!le.ok()) {
    streams.err << "error: " << le.status().message() << "\n";
    return 2;
  }
  const std::optional<client::LeaderElectionConfig>& leader_election = *le;
  TerminationSignals signals;  // before any thread starts
  absl::StatusOr<std::unique_ptr<RemoteComponent>> component =
      StartRemoteComponent(flags.remote, flags.serving, "draplane-controller");
  if (!component.ok()) {
    streams.err << "error: " << component.status().message() << "\n";
    return 1;
  }
  client::Client* c = (*component)->client.get();
  Controllers controllers(c, &(*component)->registry, flags, streams.err);
  std::unique_ptr<client::LeaderElector> elector;
  std::unique_ptr<metrics::Registry::Collector> leader_metric;
  std::atomic<bool> failed{false};
  if (leader_election.has_value()) {
    client::LeaderCallbacks callbacks;
    callbacks.on_started_leading = [&] {
      if (!controllers.Start()) {
        failed = true;
        kill(getpid(), SIGTERM);
      }
    };
    callbacks.on_stopped_leading = [&](client::LeadershipEnd end) {
      if (end == client::LeadershipEnd::kLost) {
        ExitOnLostLeadership("draplane-controller");
      }
      controllers.Stop();
    };
    elector =
        std::make_unique<client::LeaderElector>(c, *leader_election, callbacks);
    elector->Start();
    client::LeaderElector* running = elector.get();
    (*component)->health.Add("leaderElection", [running] {
      return running->Check();
    });
    leader_metric = AddLeaderElectionMetric(
        (*component)->registry, leader_election->lease_name,
        [running] { return running->IsLeader(); });
  } else if (!controllers.Start()) {
    return 1;
  }
  streams.out << "draplane controller: running against "
              << (*component)->config.server
              << (flags.leader_election.enabled ? " (leader election on)" : "")
              << "\n";
  PrintSecurePort(streams.out, "draplane controller", flags.serving,
                  **component);
  streams.out.flush();
  signals.Wait();
  (*component)->shutting_down = true;
  streams.out << "draplane controller: shutting down\n";
  // The secure port first: its checks and metrics read the elector.
  (*component)->secure_port.reset();
  leader_metric.reset();
  if (elector != nullptr) elector->Stop();
  controllers.Stop();
  return failed ? 1 : 0;
}

}  // namespace

void RegisterController(CLI::App& app, Streams streams, int* exit_code) {
  auto flags = std::make_shared<ControllerFlags>();
  CLI::App* cmd = AddCommand(
      app, "controller",
      "Run draplane's controllers against a Kubernetes API server",
      "Run draplane's controllers against a Kubernetes API server.\n\n"
      "The resourceclaim controller as kube-controller-manager's: creates "
      "pods' ResourceClaims from ResourceClaimTemplates, removes "
      "reservations of pods that are gone or finished, deallocates claims "
      "nobody reserves and deletes generated claims of finished pods. The "
      "node lifecycle controller as kube-controller-manager's: nodes whose "
      "kube-node-lease Lease stops being renewed become Unknown and get "
      "the unreachable taints, and pods that do not tolerate them are "
      "evicted (their claims are then deallocated). The resourcequota "
      "controller keeps status.used of quotas on claims true. The "
      "DRA monitor (draplane's): the guide's Prometheus metrics "
      "(dra_resource_claims_*, dra_devices_*) and a Warning event on "
      "DeviceClasses whose selectors select no published device.\n\n"
      "Example:\n"
      "  draplane controller --kubeconfig ~/.kube/config\n"
      "  curl -k -H \"Authorization: Bearer $TOKEN\" "
      "https://127.0.0.1:10257/metrics");
  AddLoggingFlags(cmd, &flags->logging);
  AddRemoteApiFlags(cmd, &flags->remote, kControllerManagerRateLimit);
  AddSecureServingFlags(cmd, &flags->serving, 10257);
  AddLeaderElectionFlags(cmd, &flags->leader_election, "runs the controllers");
  cmd->add_option("--concurrent-resource-claim-syncs", flags->workers,
                  "Workers of the resourceclaim controller")
      ->capture_default_str();
  cmd->add_option("--node-monitor-period", flags->node_monitor_period_s,
                  "Seconds between node heartbeat checks")
      ->capture_default_str();
  cmd->add_option("--node-monitor-grace-period",
                  flags->node_monitor_grace_period_s,
                  "Seconds without a heartbeat before a node is marked "
                  "Unknown and tainted unreachable")
      ->capture_default_str();
  cmd->add_option(
         "--controllers", flags->controllers,
         "Controllers to run, as kube-controller-manager's --controllers: "
         "'*' all (resourceclaim-controller, node-lifecycle-controller, "
         "resourcequota-controller, dra-monitor), 'foo' enables foo, '-foo' "
         "disables it. On a cluster whose kube-controller-manager runs its "
         "own, run only dra-monitor (or disable theirs there)")
      ->capture_default_str();
  cmd->callback([flags, streams, exit_code] {
    auto enabled = SelectControllers(flags->controllers);
    if (!enabled.ok()) {
      streams.err << "error: --controllers: " << enabled.status().message()
                  << "\n";
      *exit_code = 2;
      return;
    }
    flags->enabled = *std::move(enabled);
    *exit_code = RunController(*flags, streams);
  });
}

}  // namespace draplane::cmd
