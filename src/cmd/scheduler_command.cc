// `draplane scheduler`: the DRA scheduler as its own process against any
// Kubernetes API server (kubeconfig), with leader election.
#include <atomic>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/client.h"
#include "client/rest_config.h"
#include "cmd/command_help.h"
#include "cmd/commands.h"
#include "cmd/component_support.h"
#include "common/str_cat.h"
#include "scheduler/scheduler.h"
#include "scheduler/scoring_policy.h"

namespace draplane::cmd {
namespace {

struct SchedulerFlags {
  RemoteApiFlags remote;
  SecureServingFlags serving;
  LoggingFlags logging;
  std::string scheduler_name = "draplane";
  bool also_default = false;
  std::string policy = "upstream";
  std::vector<std::string> topology_attributes;
  LeaderElectionFlags leader_election{.lease_name = "draplane-scheduler"};
  int bind_workers = 16;
  int percentage_of_nodes_to_score = 0;
};

int RunScheduler(const SchedulerFlags& flags, Streams streams) {
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
      StartRemoteComponent(flags.remote, flags.serving, "draplane-scheduler");
  if (!component.ok()) {
    streams.err << "error: " << component.status().message() << "\n";
    return 1;
  }
  scheduler::SchedulerOptions options;
  options.scheduler_name = flags.scheduler_name;
  options.also_default_scheduler = flags.also_default;
  options.policy = flags.policy;
  options.topology_attributes = flags.topology_attributes;
  options.bind_workers = flags.bind_workers;
  options.cycle.percentage_of_nodes_to_score =
      flags.percentage_of_nodes_to_score;
  if (leader_election.has_value()) {
    options.leader_election = leader_election;
    options.on_leadership_lost = [] {
      ExitOnLostLeadership("draplane-scheduler");
    };
  }
  options.metrics = &(*component)->registry;
  absl::StatusOr<std::unique_ptr<scheduler::Scheduler>> s =
      scheduler::Scheduler::Create((*component)->client.get(), options);
  if (!s.ok()) {
    streams.err << "error: " << s.status().message() << "\n";
    return 2;
  }
  // Ready once the scheduler's informers have synced and its handlers
  // run, as kube-scheduler's "sched-handler-sync".
  auto started_flag = std::make_shared<std::atomic<bool>>(false);
  (*component)->health.AddReadiness("sched-handler-sync", [started_flag] {
    return started_flag->load()
               ? absl::OkStatus()
               : absl::UnavailableError("handlers are not fully synchronized");
  });
  scheduler::Scheduler* running = s->get();
  std::unique_ptr<metrics::Registry::Collector> leader_metric;
  if (leader_election.has_value()) {
    (*component)->health.Add("leaderElection", [running] {
      return running->LeaderElectionCheck();
    });
    leader_metric = AddLeaderElectionMetric(
        (*component)->registry, leader_election->lease_name,
        [running] { return running->stats().leading; });
  }
  if (absl::Status started = (*s)->Start(); !started.ok()) {
    streams.err << "error: " << started.message() << "\n";
    (*component)->secure_port.reset();  // its checks read the scheduler
    return 1;
  }
  started_flag->store(true);
  streams.out << "draplane scheduler: scheduling pods with schedulerName "
              << flags.scheduler_name << " on " << (*component)->config.server
              << " (policy " << flags.policy
              << (flags.leader_election.enabled ? ", leader election on" : "")
              << ")\n";
  PrintSecurePort(streams.out, "draplane scheduler", flags.serving,
                  **component);
  streams.out.flush();
  signals.Wait();
  (*component)->shutting_down = true;
  streams.out << "draplane scheduler: shutting down\n";
  (*s)->Stop();
  leader_metric.reset();
  (*component)->secure_port.reset();
  return 0;
}

}  // namespace

void RegisterScheduler(CLI::App& app, Streams streams, int* exit_code) {
  auto flags = std::make_shared<SchedulerFlags>();
  CLI::App* cmd = AddCommand(
      app, "scheduler",
      "Run draplane's DRA scheduler against a Kubernetes API server",
      "Run draplane's DRA scheduler against a Kubernetes API server.\n\n"
      "Places pods whose spec.schedulerName matches --scheduler-name the "
      "way kube-scheduler's DynamicResources plugin does: allocates their "
      "ResourceClaims with the structured-parameters allocator, writes "
      "status.allocation and status.reservedFor, and binds the pod. "
      "Unschedulable pods get a FailedScheduling event that explains which "
      "request, selector or constraint failed (draplane beyond upstream).\n\n"
      "Policies: upstream (kube-scheduler's), binpack, spread, topology "
      "(draplane's; see docs/scheduler.md).\n\n"
      "Example:\n"
      "  draplane scheduler --kubeconfig ~/.kube/config --policy binpack");
  AddLoggingFlags(cmd, &flags->logging);
  AddRemoteApiFlags(cmd, &flags->remote, kSchedulerRateLimit);
  AddSecureServingFlags(cmd, &flags->serving, 10259);
  cmd->add_option("--scheduler-name", flags->scheduler_name,
                  "Schedule pods with this spec.schedulerName")
      ->capture_default_str();
  cmd->add_flag("--also-default-scheduler", flags->also_default,
                "Also take pods for default-scheduler (only where no other "
                "scheduler runs, e.g. a standalone cluster)");
  cmd->add_option("--policy", flags->policy,
                  "Scoring policy: upstream, binpack, spread, topology, or a "
                  "GPU-sharing policy (random, dotprod, gpu-clustering, "
                  "gpu-packing, bestfit, fgd, draplane; fgd and draplane "
                  "learn the target workload from the pods they schedule; "
                  "docs/scheduling-policies.md)")
      ->capture_default_str();
  cmd->add_option("--topology-attribute", flags->topology_attributes,
                  "Interconnect attribute the topology policy prefers "
                  "devices to share (repeatable; default "
                  "gpu.nvidia.com/nvlinkInterconnect, "
                  "resource.kubernetes.io/pcieRoot)");
  AddLeaderElectionFlags(cmd, &flags->leader_election, "schedules");
  cmd->add_option("--bind-workers", flags->bind_workers,
                  "Concurrent claim writes and bindings")
      ->capture_default_str();
  cmd->add_option("--percentage-of-nodes-to-score",
                  flags->percentage_of_nodes_to_score,
                  "As kube-scheduler's (0 = adaptive); the upstream policy "
                  "only")
      ->capture_default_str();
  cmd->callback([flags, streams, exit_code] {
    *exit_code = RunScheduler(*flags, streams);
  });
}

}  // namespace draplane::cmd
