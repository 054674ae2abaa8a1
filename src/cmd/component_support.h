// What the long-running subcommands (server, scheduler, controller, node)
// share: logging flags, HOST:PORT parsing, leader-election identities, and
// the /metrics endpoint of a component that runs against a remote API
// server.
#ifndef DRAPLANE_CMD_COMPONENT_SUPPORT_H_
#define DRAPLANE_CMD_COMPONENT_SUPPORT_H_

#include <atomic>
#include <csignal>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "client/client.h"
#include "client/leader_election.h"
#include "client/rest_config.h"
#include "cmd/health_checks.h"
#include "cmd/secure_serving.h"
#include "http/http_server.h"
#include "metrics/metrics.h"

namespace draplane::cmd {

// --logging-format and -v/--v, as Kubernetes components take them
// (k8s.io/component-base/logs).
struct LoggingFlags {
  std::string format = "text";
  int verbosity = 0;
};
void AddLoggingFlags(CLI::App* cmd, LoggingFlags* flags);
// Configures the process's logger (logging/log.h); InvalidArgument naming
// the flag for an unknown format or a negative verbosity.
absl::Status ApplyLoggingFlags(const LoggingFlags& flags);

// `draplane server`'s data directory when --data-dir is not given:
// $XDG_STATE_HOME/draplane, else ~/.local/state/draplane.
std::string DefaultDataDir();

struct HostPort {
  std::string host;  // without brackets for IPv6
  uint16_t port = 0;
};

// "HOST:PORT" or "[IPv6]:PORT"; InvalidArgument with the reason.
absl::StatusOr<HostPort> ParseHostPort(const std::string& text);

// "host" or "[v6]" for URLs.
std::string UrlHost(const std::string& host);

// A leader-election identity unique to this process: "<hostname>_<random>".
std::string LeaderIdentity();

// kube-scheduler's and kube-controller-manager's leader-election flags:
// --leader-elect, --leader-elect-lease-duration, --leader-elect-renew-
// deadline, --leader-elect-retry-period (Go durations),
// --leader-elect-resource-namespace, --leader-elect-resource-name.
struct LeaderElectionFlags {
  bool enabled = true;
  std::string lease_duration = "15s";
  std::string renew_deadline = "10s";
  std::string retry_period = "2s";
  std::string lease_namespace = "kube-system";
  std::string lease_name;  // the component's default, e.g. draplane-scheduler
};
// `what` says what only the leader does ("schedules").
void AddLeaderElectionFlags(CLI::App* cmd, LeaderElectionFlags* flags,
                            const std::string& what);
// The elector's configuration (identity: LeaderIdentity()), nullopt with
// --leader-elect=false; InvalidArgument naming the flag for a duration that
// does not parse, or with client-go's message for an inconsistent set
// ("leaseDuration must be greater than renewDeadline", ...).
absl::StatusOr<std::optional<client::LeaderElectionConfig>>
LeaderElectionConfigFrom(const LeaderElectionFlags& flags);
// What a component does when its lease is lost, as kube-scheduler and
// kube-controller-manager: logs "Leaderelection lost" and ends the process
// at once with exit code 1 (its Deployment restarts it as a fresh
// candidate; it never holds the lease without acting on it).
[[noreturn]] void ExitOnLostLeadership(const std::string& component);

// SIGTERM and SIGINT for Wait(): blocked in the constructing thread and so
// in every thread started after it (construct it before any thread
// starts, or a signal may reach a thread that dies of it); unblocked again
// by the destructor.
class TerminationSignals {
 public:
  TerminationSignals();
  ~TerminationSignals();
  TerminationSignals(const TerminationSignals&) = delete;
  TerminationSignals& operator=(const TerminationSignals&) = delete;
  // Blocks until one arrives; returns its number.
  int Wait();

 private:
  sigset_t set_;
};

// How a component reaches a remote API server: --kubeconfig, --context,
// --kube-api-qps, --kube-api-burst. Without --kubeconfig: $KUBECONFIG, else
// ~/.kube/config, else the in-cluster configuration
// (client::LoadClientConfig).
struct RemoteApiFlags {
  std::string kubeconfig;
  std::string context;
  // Client-side rate limit; 0 = unlimited. AddRemoteApiFlags sets the
  // component's default.
  double qps = 0;
  int burst = 0;
};
// The upstream component whose client rate limits a command takes by
// default (its --kube-api-qps and --kube-api-burst).
struct ClientRateLimit {
  double qps;
  int burst;
  const char* upstream;  // for the help text, e.g. "kube-scheduler's"
};
inline constexpr ClientRateLimit kSchedulerRateLimit{50, 100,
                                                     "kube-scheduler's"};
inline constexpr ClientRateLimit kControllerManagerRateLimit{
    20, 30, "kube-controller-manager's"};
inline constexpr ClientRateLimit kKubeletRateLimit{50, 100, "the kubelet's"};
// client-go's defaults, which NVIDIA's DRA kubelet plugin keeps.
inline constexpr ClientRateLimit kKubeletPluginRateLimit{
    5, 10, "client-go's (NVIDIA's DRA kubelet plugin's)"};
inline constexpr ClientRateLimit kKubectlRateLimit{50, 300, "kubectl's"};
// `limit` gives --kube-api-qps and --kube-api-burst their defaults.
void AddRemoteApiFlags(CLI::App* cmd, RemoteApiFlags* flags,
                       const ClientRateLimit& limit);
// Loads the kubeconfig and connects with `user_agent`; `config` gets what
// was loaded.
absl::StatusOr<std::unique_ptr<client::Client>> ConnectRemote(
    const RemoteApiFlags& flags, const std::string& user_agent,
    client::RestConfig* config);

// A component connected to a remote API server, serving its health and
// metrics on its secure port (secure_serving.h; none with --secure-port 0).
struct RemoteComponent {
  client::RestConfig config;
  std::unique_ptr<client::Client> client;
  metrics::Registry registry;
  // process_* and draplane_build_info in `registry`.
  std::unique_ptr<metrics::Registry::Collector> process_metrics;
  HealthChecks health;  // /healthz, /livez and /readyz
  // Set by the component when it starts to shut down: /readyz fails
  // ("shutdown", as k8s.io/apiserver's shutdown check).
  std::atomic<bool> shutting_down{false};
  std::unique_ptr<SecurePort> secure_port;  // null: not served
};
// ConnectRemote, then ServeSecurely (errors name the flag).
absl::StatusOr<std::unique_ptr<RemoteComponent>> StartRemoteComponent(
    const RemoteApiFlags& flags, const SecureServingFlags& serving,
    const std::string& user_agent);
// "<name>: health and metrics on https://HOST:PORT" on `out` when the
// component serves them.
void PrintSecurePort(std::ostream& out, const std::string& name,
                     const SecureServingFlags& serving,
                     const RemoteComponent& component);
// process_* and draplane_build_info (metrics/process_metrics.h) with
// draplane's versions, in `registry`.
[[nodiscard]] std::unique_ptr<metrics::Registry::Collector> AddProcessMetrics(
    metrics::Registry& registry);
// The component's leader_election_master_status{name=<lease>} gauge (1
// while `is_leader()`), as client-go's leader-election metrics provider
// reports it.
[[nodiscard]] std::unique_ptr<metrics::Registry::Collector>
AddLeaderElectionMetric(metrics::Registry& registry,
                        const std::string& lease_name,
                        std::function<bool()> is_leader);

}  // namespace draplane::cmd

#endif  // DRAPLANE_CMD_COMPONENT_SUPPORT_H_
