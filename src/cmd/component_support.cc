#include "cmd/component_support.h"

#include <pthread.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/str_cat.h"
#include "common/version.h"
#include "logging/log.h"
#include "metrics/process_metrics.h"

namespace draplane::cmd {

void AddLoggingFlags(CLI::App* cmd, LoggingFlags* flags) {
  cmd->add_option("--logging-format", flags->format,
                  "Log format: text (klog) or json")
      ->capture_default_str()
      ->group("Logging");
  cmd->add_option("-v,--v", flags->verbosity,
                  "Log verbosity: V(n) records up to this level")
      ->capture_default_str()
      ->group("Logging");
}

absl::Status ApplyLoggingFlags(const LoggingFlags& flags) {
  absl::StatusOr<logging::Format> format = logging::ParseFormat(flags.format);
  if (!format.ok()) {
    return absl::InvalidArgumentError(
        StrCat("--logging-format: ", format.status().message()));
  }
  if (flags.verbosity < 0) {
    return absl::InvalidArgumentError(
        StrCat("-v: ", flags.verbosity, " is negative"));
  }
  logging::Options options;
  options.format = *format;
  options.verbosity = flags.verbosity;
  logging::Configure(options);
  return absl::OkStatus();
}

absl::StatusOr<HostPort> ParseHostPort(const std::string& text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return absl::InvalidArgumentError(
        StrCat("\"", text, "\" is not HOST:PORT"));
  }
  HostPort hp;
  hp.host = text.substr(0, colon);
  if (hp.host.size() > 2 && hp.host.front() == '[' && hp.host.back() == ']') {
    hp.host = hp.host.substr(1, hp.host.size() - 2);
  }
  const std::string port = text.substr(colon + 1);
  char* end = nullptr;
  const long value = std::strtol(port.c_str(), &end, 10);
  if (port.empty() || *end != '\0' || value < 0 || value > 65535) {
    return absl::InvalidArgumentError(
        StrCat("\"", port, "\" is not a port number"));
  }
  hp.port = static_cast<uint16_t>(value);
  return hp;
}

std::string UrlHost(const std::string& host) {
  return host.find(':') != std::string::npos ? StrCat("[", host, "]") : host;
}

std::string LeaderIdentity() {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  std::random_device rd;
  return StrCat(host, "_", absl::StrCat(absl::Hex(rd())));
}

void AddLeaderElectionFlags(CLI::App* cmd, LeaderElectionFlags* flags,
                            const std::string& what) {
  cmd->add_option("--leader-elect", flags->enabled,
                  StrCat("Only the holder of the lease ", what,
                         "; a process that loses its lease exits 1"))
      ->capture_default_str();
  cmd->add_option("--leader-elect-lease-duration", flags->lease_duration,
                  "How long non-leaders wait after the last renewal before "
                  "taking the lease")
      ->capture_default_str();
  cmd->add_option("--leader-elect-renew-deadline", flags->renew_deadline,
                  "How long the leader retries renewing before it gives up "
                  "(less than the lease duration)")
      ->capture_default_str();
  cmd->add_option("--leader-elect-retry-period", flags->retry_period,
                  "Time between attempts to acquire or renew the lease")
      ->capture_default_str();
  cmd->add_option("--leader-elect-resource-namespace", flags->lease_namespace)
      ->capture_default_str();
  cmd->add_option("--leader-elect-resource-name", flags->lease_name)
      ->capture_default_str();
}

absl::StatusOr<std::optional<client::LeaderElectionConfig>>
LeaderElectionConfigFrom(const LeaderElectionFlags& flags) {
  if (!flags.enabled) return std::nullopt;
  client::LeaderElectionConfig config;
  for (const auto& [flag, text, out] :
       {std::tuple<const char*, const std::string*, absl::Duration*>{
            "--leader-elect-lease-duration", &flags.lease_duration,
            &config.lease_duration},
        {"--leader-elect-renew-deadline", &flags.renew_deadline,
         &config.renew_deadline},
        {"--leader-elect-retry-period", &flags.retry_period,
         &config.retry_period}}) {
    if (!absl::ParseDuration(*text, out) || *out == absl::InfiniteDuration() ||
        *out == -absl::InfiniteDuration()) {
      return absl::InvalidArgumentError(
          StrCat("invalid argument \"", *text, "\" for \"", flag,
                 "\" flag: time: invalid duration \"", *text, "\""));
    }
  }
  config.lease_namespace = flags.lease_namespace;
  config.lease_name = flags.lease_name;
  config.identity = LeaderIdentity();
  if (absl::Status valid = client::ValidateLeaderElectionConfig(config);
      !valid.ok()) {
    return valid;
  }
  return config;
}

void ExitOnLostLeadership(const std::string& component) {
  logging::Error("Leaderelection lost", {{"component", component}});
  std::fflush(nullptr);  // standard streams are synced with stdio
  _exit(1);
}

TerminationSignals::TerminationSignals() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGTERM);
  sigaddset(&set_, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set_, nullptr);
}

TerminationSignals::~TerminationSignals() {
  pthread_sigmask(SIG_UNBLOCK, &set_, nullptr);
}

int TerminationSignals::Wait() {
  int sig = 0;
  sigwait(&set_, &sig);
  return sig;
}

void AddRemoteApiFlags(CLI::App* cmd, RemoteApiFlags* flags,
                       const ClientRateLimit& limit) {
  flags->qps = limit.qps;
  flags->burst = limit.burst;
  cmd->add_option("--kubeconfig", flags->kubeconfig,
                  "kubeconfig file (default $KUBECONFIG, else ~/.kube/config, "
                  "else the in-cluster configuration of a pod's "
                  "ServiceAccount)");
  cmd->add_option("--context", flags->context, "kubeconfig context");
  cmd->add_option("--kube-api-qps", flags->qps,
                  StrCat("Client-side limit of requests per second to the "
                         "API server (",
                         limit.upstream, " default; 0 = unlimited)"))
      ->capture_default_str();
  cmd->add_option("--kube-api-burst", flags->burst,
                  "Requests allowed at once above --kube-api-qps")
      ->capture_default_str();
}

absl::StatusOr<std::unique_ptr<client::Client>> ConnectRemote(
    const RemoteApiFlags& flags, const std::string& user_agent,
    client::RestConfig* config) {
  absl::StatusOr<client::RestConfig> loaded =
      client::LoadClientConfig(flags.kubeconfig, flags.context);
  if (!loaded.ok()) return loaded.status();
  *config = *std::move(loaded);
  config->qps = flags.qps;
  config->burst = flags.burst;
  config->user_agent = user_agent;
  return client::Client::Connect(*config);
}

absl::StatusOr<std::unique_ptr<RemoteComponent>> StartRemoteComponent(
    const RemoteApiFlags& flags, const SecureServingFlags& serving,
    const std::string& user_agent) {
  auto component = std::make_unique<RemoteComponent>();
  absl::StatusOr<std::unique_ptr<client::Client>> c =
      ConnectRemote(flags, user_agent, &component->config);
  if (!c.ok()) return c.status();
  component->client = *std::move(c);
  component->process_metrics = AddProcessMetrics(component->registry);
  RemoteComponent* self = component.get();
  component->health.AddReadiness("shutdown", [self] {
    return self->shutting_down.load()
               ? absl::UnavailableError("process is shutting down")
               : absl::OkStatus();
  });
  absl::StatusOr<std::unique_ptr<SecurePort>> served =
      ServeSecurely(serving, user_agent, component->client.get(),
                    &component->registry, &component->health);
  if (!served.ok()) return served.status();
  component->secure_port = *std::move(served);
  return component;
}

void PrintSecurePort(std::ostream& out, const std::string& name,
                     const SecureServingFlags& serving,
                     const RemoteComponent& component) {
  if (component.secure_port == nullptr) return;
  out << name << ": /healthz, /livez, /readyz and /metrics on https://"
      << UrlHost(serving.bind_address) << ":"
      << component.secure_port->server->port() << "\n";
}

std::unique_ptr<metrics::Registry::Collector> AddProcessMetrics(
    metrics::Registry& registry) {
  return metrics::AddProcessMetrics(registry, std::string(DraplaneVersion()),
                                    KubernetesGitVersion());
}

std::unique_ptr<metrics::Registry::Collector> AddLeaderElectionMetric(
    metrics::Registry& registry, const std::string& lease_name,
    std::function<bool()> is_leader) {
  return registry.AddCollector([lease_name, is_leader = std::move(is_leader)] {
    return std::vector<prometheus::MetricFamily>{metrics::GaugeFamily(
        "leader_election_master_status",
        "[ALPHA] Gauge of if the reporting system is master of the relevant "
        "lease, 0 indicates backup, 1 indicates master. 'name' is the string "
        "used to identify the lease. Please make sure to group by name.",
        {"name"}, {{{lease_name}, is_leader() ? 1.0 : 0.0}})};
  });
}

std::string DefaultDataDir() {
  if (const char* state = std::getenv("XDG_STATE_HOME"); state && *state) {
    return StrCat(state, "/draplane");
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return StrCat(home, "/.local/state/draplane");
  }
  return "draplane-data";
}

}  // namespace draplane::cmd
