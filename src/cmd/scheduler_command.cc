// `draplane scheduler`: the DRA scheduler as its own process against any
// Kubernetes API server (kubeconfig), with leader election.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/client.h"
#include "client/rest_config.h"
#include "cmd/commands.h"
#include "cmd/component_support.h"
#include "common/str_cat.h"
#include "scheduler/scheduler.h"
#include "scheduler/scoring_policy.h"

namespace draplane::cmd {
namespace {

struct SchedulerFlags {
  std::string kubeconfig;
  std::string context;
  std::string scheduler_name = "draplane";
  bool also_default = false;
  std::string policy = "upstream";
  std::vector<std::string> topology_attributes;
  bool leader_elect = true;
  std::string lease_namespace = "kube-system";
  std::string lease_name = "draplane-scheduler";
  double qps = 0;
  int burst = 0;
  int bind_workers = 16;
  int percentage_of_nodes_to_score = 0;
  std::string metrics_bind_address;
};

int RunScheduler(const SchedulerFlags& flags, Streams streams) {
  absl::StatusOr<client::RestConfig> config = client::LoadKubeconfig(
      client::DefaultKubeconfigPath(flags.kubeconfig), flags.context);
  if (!config.ok()) {
    streams.err << "error: " << config.status().message() << "\n";
    return 1;
  }
  config->qps = flags.qps;
  config->burst = flags.burst;
  config->user_agent = "draplane-scheduler";
  absl::StatusOr<std::unique_ptr<client::Client>> c =
      client::Client::Connect(*config);
  if (!c.ok()) {
    streams.err << "error: " << c.status().message() << "\n";
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
  if (flags.leader_elect) {
    client::LeaderElectionConfig le;
    le.lease_namespace = flags.lease_namespace;
    le.lease_name = flags.lease_name;
    le.identity = LeaderIdentity();
    options.leader_election = le;
  }
  metrics::Registry registry;
  options.metrics = &registry;
  absl::StatusOr<std::unique_ptr<apiserver::HttpServer>> metrics_server =
      ServeMetrics(flags.metrics_bind_address, &registry);
  if (!metrics_server.ok()) {
    streams.err << "error: --metrics-bind-address: "
                << metrics_server.status().message() << "\n";
    return 1;
  }
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  absl::StatusOr<std::unique_ptr<scheduler::Scheduler>> s =
      scheduler::Scheduler::Create(c->get(), options);
  if (!s.ok()) {
    streams.err << "error: " << s.status().message() << "\n";
    return 2;
  }
  if (absl::Status started = (*s)->Start(); !started.ok()) {
    streams.err << "error: " << started.message() << "\n";
    return 1;
  }
  streams.out << "draplane scheduler: scheduling pods with schedulerName "
              << flags.scheduler_name << " on " << config->server << " (policy "
              << flags.policy
              << (flags.leader_elect ? ", leader election on" : "") << ")\n";
  if (*metrics_server != nullptr) {
    streams.out << "draplane scheduler: metrics on http://"
                << UrlHost(ParseHostPort(flags.metrics_bind_address)->host)
                << ":" << (*metrics_server)->port() << "/metrics\n";
  }
  streams.out.flush();
  int sig = 0;
  sigwait(&signals, &sig);
  streams.out << "draplane scheduler: shutting down\n";
  (*s)->Stop();
  if (*metrics_server != nullptr) (*metrics_server)->Stop();
  pthread_sigmask(SIG_UNBLOCK, &signals, nullptr);
  return 0;
}

}  // namespace

void RegisterScheduler(CLI::App& app, Streams streams, int* exit_code) {
  auto flags = std::make_shared<SchedulerFlags>();
  CLI::App* cmd = app.add_subcommand(
      "scheduler",
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
  cmd->add_option("--kubeconfig", flags->kubeconfig,
                  "kubeconfig file (default $KUBECONFIG or ~/.kube/config)");
  cmd->add_option("--context", flags->context, "kubeconfig context");
  cmd->add_option("--scheduler-name", flags->scheduler_name,
                  "Schedule pods with this spec.schedulerName")
      ->capture_default_str();
  cmd->add_flag("--also-default-scheduler", flags->also_default,
                "Also take pods for default-scheduler (only where no other "
                "scheduler runs, e.g. a standalone cluster)");
  cmd->add_option("--policy", flags->policy,
                  "Scoring policy: upstream, binpack, spread or topology")
      ->capture_default_str();
  cmd->add_option("--topology-attribute", flags->topology_attributes,
                  "Interconnect attribute the topology policy prefers "
                  "devices to share (repeatable; default "
                  "gpu.nvidia.com/nvlinkInterconnect, "
                  "resource.kubernetes.io/pcieRoot)");
  cmd->add_option("--leader-elect", flags->leader_elect,
                  "Only the holder of the lease schedules")
      ->capture_default_str();
  cmd->add_option("--leader-elect-resource-namespace", flags->lease_namespace)
      ->capture_default_str();
  cmd->add_option("--leader-elect-resource-name", flags->lease_name)
      ->capture_default_str();
  cmd->add_option("--kube-api-qps", flags->qps,
                  "Client-side request rate limit (0 = unlimited, the "
                  "default: kube-scheduler's 50 QPS would cap throughput)")
      ->capture_default_str();
  cmd->add_option("--kube-api-burst", flags->burst)->capture_default_str();
  cmd->add_option("--bind-workers", flags->bind_workers,
                  "Concurrent claim writes and bindings")
      ->capture_default_str();
  cmd->add_option("--percentage-of-nodes-to-score",
                  flags->percentage_of_nodes_to_score,
                  "As kube-scheduler's (0 = adaptive); the upstream policy "
                  "only")
      ->capture_default_str();
  cmd->add_option("--metrics-bind-address", flags->metrics_bind_address,
                  "Serve Prometheus metrics (plain HTTP) on HOST:PORT, e.g. "
                  "0.0.0.0:10259 (default: no metrics endpoint)");
  cmd->callback([flags, streams, exit_code] {
    *exit_code = RunScheduler(*flags, streams);
  });
}

}  // namespace draplane::cmd
