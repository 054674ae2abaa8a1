// `draplane server`: the standalone control plane's API server on a data
// directory (SQLite store, TLS credentials, admin kubeconfig).
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "api/object_codec.h"
#include "apiserver/api_server.h"
#include "apiserver/audit_policy.h"
#include "apiserver/service_account_keys.h"
#include "apiserver/tls_credentials.h"
#include "auth/rbac.h"
#include "auth/token_file.h"
#include "client/client.h"
#include "client/transport.h"
#include "clock/clock.h"
#include "cmd/command_help.h"
#include "cmd/commands.h"
#include "cmd/component_support.h"
#include "cmd/simulated_nodes.h"
#include "cmd/standalone_identities.h"
#include "common/private_files.h"
#include "common/str_cat.h"
#include "component_helpers/runnable.h"
#include "controllers/deployment_controller.h"
#include "controllers/dra_monitor.h"
#include "controllers/job_controller.h"
#include "controllers/node_lifecycle_controller.h"
#include "controllers/resource_claim_controller.h"
#include "controllers/resource_quota_controller.h"
#include "controllers/service_account_controller.h"
#include "devices/device_model.h"
#include "http/http_server.h"
#include "metrics/metrics.h"
#include "scheduler/scheduler.h"
#include "store/compactor.h"
#include "store/store.h"

namespace draplane::cmd {
namespace {

namespace fs = std::filesystem;

struct ServerFlags {
  std::string data_dir;
  std::string listen = "127.0.0.1:6443";
  std::string token_auth_file;
  bool anonymous_auth = true;
  std::string kubeconfig_out;
  bool in_memory = false;
  // etcd's --quota-backend-bytes default, and kube-apiserver's
  // --etcd-compaction-interval default.
  int64_t store_quota_bytes = int64_t{2} << 30;
  std::string compaction_interval = "5m";
  // kube-apiserver's --event-ttl default.
  std::string event_ttl = "1h";
  bool scheduler = true;
  bool controllers = true;
  std::string policy = "upstream";
  std::string nodes;
  int64_t not_ready_toleration_s = 300;
  int64_t unreachable_toleration_s = 300;
  int node_monitor_grace_period_s = 50;
  // kube-apiserver's audit flags, with its defaults.
  std::string audit_log_path;
  std::string audit_policy_file;
  int audit_log_maxsize_mb = 100;
  int audit_log_maxbackup = 100;
  // kube-apiserver's --service-account-issuer (kubeadm's value) and
  // --service-account-max-token-expiration (0: no limit).
  std::string service_account_issuer =
      "https://kubernetes.default.svc.cluster.local";
  int64_t service_account_max_token_expiration_s = 0;
  // kube-apiserver's, with its defaults.
  int max_requests_inflight = 400;
  int max_mutating_requests_inflight = 200;
  LoggingFlags logging;
};

bool IsLoopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// What installing NVIDIA's driver chart creates once per cluster; a
// warning for each class that cannot be created (and does not exist).
void CreateNvidiaDeviceClasses(client::Client& client, Streams streams) {
  for (const api::Json& json : devices::NvidiaDeviceClasses()) {
    absl::StatusOr<api::DecodeResult> decoded = api::DecodeObject(json);
    if (!decoded.ok()) continue;
    auto created = client.Create(decoded->object);
    if (!created.ok() && !client::IsAlreadyExists(created.status())) {
      streams.err << "warning: cannot create the DeviceClass "
                  << json["metadata"]["name"].get<std::string>() << ": "
                  << created.status().message() << "\n";
    }
  }
}

// The admin kubeconfig for `url` (the admin's client certificate),
// readable by its owner only.
absl::Status WriteKubeconfig(const std::string& path, const std::string& url,
                             const apiserver::ServingCredentials& creds) {
  apiserver::KubeconfigUser admin;
  admin.name = "admin";
  admin.cert_pem = creds.admin_cert_pem;
  admin.key_pem = creds.admin_key_pem;
  return WritePrivateFile(path,
                          apiserver::Kubeconfig(url, creds.ca_cert_pem, admin));
}

// What the server's flags name, checked before anything starts.
struct ServerSetup {
  std::string data_dir;
  HostPort listen;
  std::vector<auth::StaticToken> token_file;
  std::optional<devices::Inventory> inventory;
  std::shared_ptr<const apiserver::AuditPolicy> audit_policy;
};

// The audit flags: the policy read and validated, the log file created
// (owner-only) as kube-apiserver's ensureLogFile does; the exit code.
int PrepareAudit(const ServerFlags& flags, Streams streams,
                 ServerSetup& setup) {
  for (const auto& [flag, value] :
       {std::pair{"--audit-log-maxbackup", flags.audit_log_maxbackup},
        std::pair{"--audit-log-maxsize", flags.audit_log_maxsize_mb}}) {
    if (value < 0) {
      streams.err << "error: " << flag << " " << value
                  << " can't be a negative number\n";
      return 2;
    }
  }
  if (!flags.audit_policy_file.empty()) {
    std::vector<std::string> warnings;
    auto policy =
        apiserver::LoadAuditPolicyFile(flags.audit_policy_file, &warnings);
    if (!policy.ok()) {
      streams.err << "error: --audit-policy-file: " << policy.status().message()
                  << "\n";
      return 2;
    }
    for (const std::string& w : warnings) {
      streams.err << "warning: --audit-policy-file: " << w << "\n";
    }
    setup.audit_policy =
        std::make_shared<const apiserver::AuditPolicy>(*std::move(policy));
  }
  const std::string& path = flags.audit_log_path;
  if (path.empty() || path == "-") return 0;
  if (setup.audit_policy == nullptr) {
    streams.err << "warning: --audit-log-path without --audit-policy-file: "
                   "no events will be recorded\n";
    return 0;
  }
  std::error_code ec;
  if (fs::path(path).has_parent_path()) {
    fs::create_directories(fs::path(path).parent_path(), ec);
  }
  const int fd =
      ::open(path.c_str(), O_CREAT | O_APPEND | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {
    streams.err << "error: --audit-log-path: cannot open " << path << ": "
                << std::error_code(errno, std::generic_category()).message()
                << "\n";
    return 1;
  }
  ::close(fd);
  return 0;
}

// Fills `setup` from `flags` and creates the data directory; the exit
// code (2 for a bad flag, 1 for a failure), 0 when all is well.
int PrepareServer(const ServerFlags& flags, Streams streams,
                  ServerSetup& setup) {
  setup.data_dir = flags.data_dir.empty() ? DefaultDataDir() : flags.data_dir;
  const std::string& data_dir = setup.data_dir;
  auto listen = ParseHostPort(flags.listen);
  if (!listen.ok()) {
    streams.err << "error: --listen: " << listen.status().message() << "\n";
    return 2;
  }
  setup.listen = *listen;
  if (!flags.token_auth_file.empty()) {
    auto tokens = auth::ReadTokenFile(flags.token_auth_file);
    if (!tokens.ok()) {
      streams.err << "error: --token-auth-file: " << tokens.status().message()
                  << "\n";
      return 2;
    }
    setup.token_file = *std::move(tokens);
  }
  if (!flags.nodes.empty()) {
    auto read = devices::ReadInventoryFile(flags.nodes);
    if (!read.ok()) {
      streams.err << "error: --nodes: " << read.status().message() << "\n";
      return 2;
    }
    setup.inventory = *std::move(read);
  }
  if (int code = PrepareAudit(flags, streams, setup); code != 0) return code;
  // The data directory holds the CA key and the store: its owner's only.
  if (absl::Status s = CreatePrivateDirectories(data_dir); !s.ok()) {
    streams.err << "error: cannot create data directory " << data_dir << ": "
                << s.message() << "\n";
    return 1;
  }
  return 0;
}

// The API server's built-in controllers (namespace finalizer, garbage
// collector), run once a second on a thread of their own.
class BuiltInControllers : public component_helpers::Runnable {
 public:
  explicit BuiltInControllers(apiserver::ApiServer* api) : api_(api) {}
  ~BuiltInControllers() override { Stop(); }

  absl::Status Start(
      absl::Duration = component_helpers::kDefaultSyncTimeout) override {
    absl::MutexLock lock(&mu_);
    if (thread_.joinable()) return absl::OkStatus();
    done_ = false;
    thread_ = std::thread([this] {
      while (true) {
        {
          absl::MutexLock lock(&mu_);
          if (mu_.AwaitWithTimeout(absl::Condition(&done_), absl::Seconds(1))) {
            return;
          }
        }
        api_->RunControllersOnce();
      }
    });
    return absl::OkStatus();
  }

  void Stop() override {
    {
      absl::MutexLock lock(&mu_);
      done_ = true;
    }
    if (thread_.joinable()) thread_.join();
  }

 private:
  apiserver::ApiServer* api_;
  absl::Mutex mu_;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

// Serves `api` with TLS on --listen; client certificates signed by
// the cluster CA authenticate.
absl::Status ServeApi(const ServerSetup& setup,
                      const apiserver::ServingCredentials& creds,
                      apiserver::ApiServer& api,
                      std::unique_ptr<http::HttpServer>& server) {
  http::HttpServerOptions http;
  http.address = setup.listen.host;
  http.port = setup.listen.port;
  http.tls_cert_pem = creds.cert_pem;
  http.tls_key_pem = creds.key_pem;
  http.tls_client_ca_pem = creds.ca_cert_pem;
  // kube-apiserver's answer to a body over its limit.
  http.too_large_body = api::DumpJson(api::Json{
      {"kind", "Status"},
      {"apiVersion", "v1"},
      {"metadata", api::Json::object()},
      {"status", "Failure"},
      {"message",
       StrCat("Request entity too large: limit is ", http.max_body_bytes)},
      {"reason", "RequestEntityTooLarge"},
      {"code", 413}});
  http.may_read_body = [&api](const http::HttpRequest& req) {
    return api.MayReadBody(req);
  };
  auto started = http::HttpServer::Start(
      http, [&api](const http::HttpRequest& req, http::ResponseWriter& w) {
        api.Handle(req, w);
      });
  if (!started.ok()) return started.status();
  server = *std::move(started);
  return absl::OkStatus();
}

// The in-process scheduler: schedulerName draplane and default-scheduler.
absl::StatusOr<std::unique_ptr<scheduler::Scheduler>> NewScheduler(
    client::Client* client, const ServerFlags& flags,
    metrics::Registry* registry) {
  scheduler::SchedulerOptions so;
  so.also_default_scheduler = true;
  so.policy = flags.policy;
  so.metrics = registry;
  return scheduler::Scheduler::Create(client, so);
}

// Node agents playing the kubelet too, one per node of `inventory`.
absl::StatusOr<std::unique_ptr<SimulatedNodes>> StartSimulatedNodes(
    const devices::Inventory& inventory, const std::string& data_dir,
    const std::function<std::unique_ptr<client::Client>(const std::string&)>&
        new_client,
    metrics::Registry* registry) {
  node_agent::NodeAgentOptions defaults;
  defaults.simulate_kubelet = true;
  defaults.metrics = registry;
  return SimulatedNodes::Start(inventory, "", data_dir + "/nodes", new_client,
                               defaults);
}

// The cluster CA and a serving certificate for every name the server is
// reached by (loopback, and --listen's host unless it is a wildcard).
absl::StatusOr<apiserver::ServingCredentials> LoadCredentials(
    const ServerSetup& setup) {
  std::vector<std::string> hosts = {"127.0.0.1", "localhost", "::1"};
  const std::string& host = setup.listen.host;
  if (!IsLoopback(host) && host != "0.0.0.0" && host != "::") {
    hosts.push_back(host);
  }
  return apiserver::LoadOrCreateCredentials(setup.data_dir + "/pki", hosts);
}

// Where the server serves and how to reach it.
void PrintServing(const ServerSetup& setup, const std::string& url,
                  const std::string& kubeconfig, Streams streams) {
  streams.out << "draplane server: serving the Kubernetes API on " << url
              << "\n";
  streams.out << "draplane server: data directory " << setup.data_dir << "\n"
              << "draplane server: kubeconfig " << kubeconfig << "\n"
              << "  export KUBECONFIG=" << kubeconfig << "\n";
  streams.out.flush();
}

// A client of `api` in this process (no sockets, no serialisation) that
// authenticates with `token`.
std::unique_ptr<client::Client> NewInProcessClient(
    apiserver::ApiServer& api, const auth::StaticToken& token) {
  client::RestConfig config;
  config.server = "in-process";
  config.bearer_token = token.token;
  return std::make_unique<client::Client>(
      client::NewInProcessTransport(
          [&api](const http::HttpRequest& req, http::InProcessExchange& x) {
            api.HandleInProcess(req, x);
          },
          config),
      config);
}

// The names of the nodes of --nodes' inventory (none without one).
std::vector<std::string> InventoryNodeNames(const ServerSetup& setup) {
  std::vector<std::string> names;
  if (!setup.inventory) return names;
  for (const devices::InventoryNode& n : setup.inventory->nodes) {
    names.push_back(n.name);
  }
  return names;
}

// The API server's options: every request, the in-process components'
// too, authenticated (the token file, the admin token, the components'
// tokens, client certificates) and authorized by Node and RBAC.
apiserver::ApiServerOptions ServerApiOptions(
    const ServerFlags& flags, const ServerSetup& setup,
    const apiserver::ServingCredentials& creds,
    const apiserver::ServiceAccountKeys& keys,
    apiserver::ServiceAccountExpiryLog& expiry_log,
    const StandaloneIdentities& identities, metrics::Registry& registry) {
  apiserver::ApiServerOptions options;
  // Checked when the flags were parsed.
  (void)absl::ParseDuration(flags.event_ttl, &options.event_ttl);
  auto& tokens = options.service_account_tokens;
  tokens.issuer = flags.service_account_issuer;
  tokens.signing_key_pem = keys.signing_key_pem;
  tokens.extra_verification_key_pems = keys.retired_public_key_pems;
  tokens.max_expiration =
      absl::Seconds(flags.service_account_max_token_expiration_s);
  tokens.on_issued = [&expiry_log](absl::Time expiry) {
    expiry_log.Record(expiry);
  };
  options.metrics = [&registry] { return registry.Text(); };
  options.store_backup_dir = setup.data_dir;
  options.default_not_ready_toleration_seconds = flags.not_ready_toleration_s;
  options.default_unreachable_toleration_seconds =
      flags.unreachable_toleration_s;
  options.tokens = setup.token_file;
  options.tokens.push_back(apiserver::AdminToken(creds.admin_token));
  for (auth::StaticToken& t : identities.Tokens()) {
    options.tokens.push_back(std::move(t));
  }
  options.anonymous_auth = flags.anonymous_auth;
  options.max_requests_inflight = flags.max_requests_inflight;
  options.max_mutating_requests_inflight = flags.max_mutating_requests_inflight;
  options.authorization_mode =
      apiserver::ApiServerOptions::AuthorizationMode::kNodeAndRbac;
  options.bootstrap_policy_additions = StandalonePolicyObjects();
  options.audit_policy = setup.audit_policy;
  options.audit_log_path = flags.audit_log_path;
  options.audit_log_max_size_mb = flags.audit_log_maxsize_mb;
  options.audit_log_max_backups = flags.audit_log_maxbackup;
  return options;
}

// The controllers the server runs, each with a client of its own identity.
class InProcessControllers {
 public:
  using NewClient =
      std::function<std::unique_ptr<client::Client>(const auth::StaticToken&)>;

  InProcessControllers(const NewClient& client_as,
                       const StandaloneIdentities& ids,
                       const ServerFlags& flags, metrics::Registry* registry)
      : claim_client_(client_as(ids.claim_controller)),
        monitor_client_(client_as(ids.dra_monitor)),
        lifecycle_client_(client_as(ids.node_lifecycle)),
        quota_client_(client_as(ids.quota_controller)),
        deployment_client_(client_as(ids.deployment_controller)),
        job_client_(client_as(ids.job_controller)),
        service_account_client_(client_as(ids.service_account_controller)),
        claims_(
            claim_client_.get(),
            controllers::ResourceClaimControllerOptions{.metrics = registry}),
        monitor_(monitor_client_.get(),
                 controllers::DraMonitorOptions{.metrics = registry}),
        lifecycle_(lifecycle_client_.get(),
                   controllers::NodeLifecycleOptions{
                       .grace_period =
                           absl::Seconds(flags.node_monitor_grace_period_s)}),
        quota_(quota_client_.get()),
        deployments_(deployment_client_.get()),
        jobs_(job_client_.get()),
        service_accounts_(service_account_client_.get()) {}

  void AddTo(component_helpers::RunGroup& group) {
    group.Add("resourceclaim controller", &claims_);
    group.Add("DRA monitor", &monitor_);
    group.Add("node lifecycle controller", &lifecycle_);
    group.Add("resourcequota controller", &quota_);
    group.Add("deployment controller", &deployments_);
    group.Add("job controller", &jobs_);
    group.Add("serviceaccount controller", &service_accounts_);
  }

 private:
  std::unique_ptr<client::Client> claim_client_;
  std::unique_ptr<client::Client> monitor_client_;
  std::unique_ptr<client::Client> lifecycle_client_;
  std::unique_ptr<client::Client> quota_client_;
  std::unique_ptr<client::Client> deployment_client_;
  std::unique_ptr<client::Client> job_client_;
  std::unique_ptr<client::Client> service_account_client_;
  controllers::ResourceClaimController claims_;
  controllers::DraMonitor monitor_;
  controllers::NodeLifecycleController lifecycle_;
  controllers::ResourceQuotaController quota_;
  // Standalone only: a real cluster has kube-controller-manager's.
  controllers::DeploymentController deployments_;
  controllers::JobController jobs_;
  controllers::ServiceAccountController service_accounts_;
};

// The store's usage, as etcd's and kube-apiserver's storage gauges.
std::vector<prometheus::MetricFamily> StoreMetrics(const store::Store& store) {
  const store::StoreUsage u = store.Usage();
  std::vector<prometheus::MetricFamily> out;
  out.push_back(metrics::GaugeFamily(
      "draplane_store_stored_bytes",
      "Bytes of every retained version's key and value: live objects and "
      "history not compacted yet (what the quota counts)",
      {}, {{{}, static_cast<double>(u.stored_bytes)}}));
  out.push_back(
      metrics::GaugeFamily("draplane_store_quota_bytes",
                           "The store's quota (--store-quota-bytes; 0: none)",
                           {}, {{{}, static_cast<double>(u.quota_bytes)}}));
  out.push_back(metrics::GaugeFamily(
      "draplane_store_space_alarm",
      "1 while the store refuses writes other than deletes because its "
      "quota is used up (etcd's NOSPACE alarm)",
      {}, {{{}, u.space_alarm ? 1.0 : 0.0}}));
  out.push_back(metrics::GaugeFamily(
      "draplane_store_retained_versions",
      "Versions the store holds: live, superseded and deleted", {},
      {{{}, static_cast<double>(u.retained_versions)}}));
  out.push_back(metrics::GaugeFamily(
      "draplane_store_compact_revision",
      "The revision up to which history is compacted", {},
      {{{}, static_cast<double>(store.CompactRevision())}}));
  return out;
}

int RunServer(const ServerFlags& flags, Streams streams) {
  if (absl::Status s = ApplyLoggingFlags(flags.logging); !s.ok()) {
    streams.err << "error: " << s.message() << "\n";
    return 2;
  }
  ServerSetup setup;
  if (int code = PrepareServer(flags, streams, setup); code != 0) return code;
  const std::string& data_dir = setup.data_dir;
  TerminationSignals signals;  // before any thread starts

  absl::Duration compaction_interval;
  if (!absl::ParseDuration(flags.compaction_interval, &compaction_interval) ||
      compaction_interval < absl::ZeroDuration()) {
    streams.err << "error: --compaction-interval: \""
                << flags.compaction_interval
                << "\" is not a duration such as 5m or 1h30m\n";
    return 2;
  }
  const store::StoreOptions store_options{.quota_bytes =
                                              flags.store_quota_bytes};
  absl::StatusOr<std::unique_ptr<store::Store>> store =
      flags.in_memory
          ? absl::StatusOr<std::unique_ptr<store::Store>>(
                store::NewMemoryStore(store_options))
          : store::OpenSqliteStore(data_dir + "/state.db", store_options);
  if (!store.ok()) {
    streams.err << "error: " << store.status().message() << "\n";
    return 1;
  }
  std::optional<store::PeriodicCompactor> compactor;
  if (compaction_interval > absl::ZeroDuration()) {
    compactor.emplace(**store, RealClock(), compaction_interval);
    compactor->Start();
  }
  auto creds = LoadCredentials(setup);
  if (!creds.ok()) {
    streams.err << "error: " << creds.status().message() << "\n";
    return 1;
  }
  auto keys =
      apiserver::LoadOrCreateServiceAccountKeys(data_dir + "/pki", absl::Now());
  if (!keys.ok()) {
    streams.err << "error: " << keys.status().message() << "\n";
    return 1;
  }
  apiserver::ServiceAccountExpiryLog expiry_log(data_dir + "/pki",
                                                keys->key_id);
  auto identities = NewStandaloneIdentities(InventoryNodeNames(setup));
  if (!identities.ok()) {
    streams.err << "error: " << identities.status().message() << "\n";
    return 1;
  }
  // Every component's metrics, served on /metrics (authenticated).
  metrics::Registry registry;
  const auto process_metrics = AddProcessMetrics(registry);
  const apiserver::ApiServerOptions api_options = ServerApiOptions(
      flags, setup, *creds, *keys, expiry_log, *identities, registry);
  apiserver::ApiServer api(store->get(), api_options);
  std::unique_ptr<metrics::Registry::Collector> store_metrics =
      registry.AddCollector([&store] { return StoreMetrics(**store); });

  std::unique_ptr<http::HttpServer> server;
  if (absl::Status s = ServeApi(setup, *creds, api, server); !s.ok()) {
    streams.err << "error: " << s.message() << "\n";
    return 1;
  }
  const std::string& host = setup.listen.host;
  const std::string connect_host =
      host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host;
  const std::string url =
      StrCat("https://", UrlHost(connect_host), ":", server->port());
  const std::string kubeconfig = flags.kubeconfig_out.empty()
                                     ? data_dir + "/kubeconfig"
                                     : flags.kubeconfig_out;
  if (absl::Status s = WriteKubeconfig(kubeconfig, url, *creds); !s.ok()) {
    streams.err << "error: " << s.message() << "\n";
    return 1;
  }
  PrintServing(setup, url, kubeconfig, streams);

  // The control plane's own components talk to the API in-process, each
  // as itself.
  auto client_as = [&api](const auth::StaticToken& token) {
    return NewInProcessClient(api, token);
  };
  InProcessControllers controllers(client_as, *identities, flags, &registry);
  std::unique_ptr<client::Client> scheduler_client =
      client_as(identities->scheduler);
  // Declared before the group, which holds a pointer to it.
  std::unique_ptr<scheduler::Scheduler> pod_scheduler;
  component_helpers::RunGroup components;
  if (flags.controllers) {
    controllers.AddTo(components);
    if (absl::Status s = components.Start(); !s.ok()) {
      streams.err << "error: " << s.message() << "\n";
      return 1;
    }
    streams.out << "draplane server: controllers running (resourceclaim, "
                   "node lifecycle, resourcequota, deployment, job, DRA "
                   "monitor)\n";
  }
  if (flags.scheduler) {
    auto created = NewScheduler(scheduler_client.get(), flags, &registry);
    if (!created.ok()) {
      streams.err << "error: " << created.status().message() << "\n";
      return 2;
    }
    pod_scheduler = *std::move(created);
    components.Add("scheduler", pod_scheduler.get());
    if (absl::Status s = components.Start(); !s.ok()) {
      streams.err << "error: " << s.message() << "\n";
      return 1;
    }
    streams.out << "draplane server: scheduler running (policy " << flags.policy
                << ", schedulerName draplane and default-scheduler)\n";
  }
  streams.out.flush();

  // Simulated GPU nodes (node agents playing the kubelet too).
  std::unique_ptr<SimulatedNodes> simulated;
  if (setup.inventory) {
    auto node_client = [&](const std::string& node) {
      return client_as(identities->nodes.at(node));
    };
    auto started =
        StartSimulatedNodes(*setup.inventory, data_dir, node_client, &registry);
    if (!started.ok()) {
      streams.err << "error: " << started.status().message() << "\n";
      return 1;
    }
    simulated = *std::move(started);
    CreateNvidiaDeviceClasses(*client_as(identities->loopback), streams);
    streams.out << "draplane server: simulated GPU nodes running ("
                << absl::StrJoin(simulated->names(), ", ") << ") from "
                << flags.nodes << "\n";
    streams.out.flush();
  }

  BuiltInControllers built_in(&api);
  (void)built_in.Start();
  const int sig = signals.Wait();
  streams.out << "draplane server: " << (sig == SIGTERM ? "SIGTERM" : "SIGINT")
              << ", shutting down\n";
  streams.out.flush();
  built_in.Stop();
  if (simulated) simulated->Stop();
  components.Stop();
  server->Stop();
  return 0;
}

}  // namespace

void RegisterServer(CLI::App& app, Streams streams, int* exit_code) {
  auto flags = std::make_shared<ServerFlags>();
  CLI::App* cmd = AddCommand(
      app, "server",
      "Run the standalone control plane: API server, scheduler, controllers",
      "Run the standalone control plane's Kubernetes API server.\n\n"
      "Serves resource.k8s.io (v1, v1beta2, v1beta1) and the core kinds DRA "
      "needs over HTTPS (client certificates, bearer tokens, RBAC with "
      "upstream's bootstrap roles; docs/security.md), stores everything "
      "in SQLite in the data directory (every acknowledged write is on "
      "disk), and writes an admin kubeconfig for kubectl. Stops cleanly on "
      "SIGTERM or SIGINT; a restart on the same data directory keeps "
      "everything.\n\n"
      "Example:\n"
      "  draplane server --data-dir /tmp/dp &\n"
      "  KUBECONFIG=/tmp/dp/kubeconfig kubectl get deviceclasses");
  cmd->add_option("--data-dir", flags->data_dir,
                  "Data directory (default $XDG_STATE_HOME/draplane or "
                  "~/.local/state/draplane)");
  cmd->add_option("--listen", flags->listen,
                  "HTTPS address (HOST:PORT; port 0 picks a free one)")
      ->capture_default_str();
  cmd->add_option("--token-auth-file", flags->token_auth_file,
                  "Bearer tokens that authenticate, kube-apiserver's CSV "
                  "format: token,user,uid[,\"group1,group2\"]");
  cmd->add_option("--anonymous-auth", flags->anonymous_auth,
                  "Requests without credentials act as system:anonymous "
                  "(authorized by RBAC: /version and health only); false: "
                  "401")
      ->capture_default_str();
  cmd->add_option("--kubeconfig-out", flags->kubeconfig_out,
                  "Where to write the admin kubeconfig (default "
                  "DATA_DIR/kubeconfig)");
  cmd->add_flag("--in-memory", flags->in_memory,
                "Keep objects in memory only (nothing survives a restart)");
  cmd->add_option("--store-quota-bytes", flags->store_quota_bytes,
                  "Bytes the store may hold, history not compacted yet "
                  "included (etcd's --quota-backend-bytes); past it, writes "
                  "other than deletes are refused (500, \"database space "
                  "exceeded\") until a compaction brings it under the quota, "
                  "which clears the alarm by itself; 0: no quota")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--event-ttl", flags->event_ttl,
                  "How long Events are kept after their last write "
                  "(kube-apiserver's --event-ttl); 0: kept until deleted")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            absl::Duration d;
            if (absl::ParseDuration(value, &d) && d >= absl::ZeroDuration()) {
              return "";
            }
            return "\"" + value + "\" is not a duration such as 1h or 30m";
          },
          "DURATION"))
      ->capture_default_str();
  cmd->add_option("--compaction-interval", flags->compaction_interval,
                  "How often history is compacted: each time, to the "
                  "revision of the previous interval (kube-apiserver's "
                  "--etcd-compaction-interval); 0: only the store's own "
                  "compaction, beyond 100,000 revisions")
      ->capture_default_str();
  cmd->add_option("--scheduler", flags->scheduler,
                  "Run the DRA scheduler inside the server; it takes pods "
                  "for draplane and default-scheduler")
      ->capture_default_str();
  cmd->add_option("--controllers", flags->controllers,
                  "Run the controllers inside the server: resourceclaim "
                  "(claims from templates, reservation cleanup, "
                  "deallocation), node lifecycle (nodes whose Lease stops "
                  "being renewed are tainted and their pods evicted), "
                  "resourcequota (status.used of claim quotas), deployment "
                  "and job (standalone only: pods from their templates) and "
                  "the DRA monitor (the guide's metrics on "
                  "/metrics, warnings on DeviceClasses that select nothing)")
      ->capture_default_str();
  cmd->add_option("--nodes", flags->nodes,
                  "Run simulated GPU nodes from this inventory file "
                  "(KWOK-style, in-process: Node objects and heartbeats, "
                  "the GPU driver's ResourceSlices from fake GPUs, and a "
                  "kubelet that prepares pods' claims over the driver's "
                  "gRPC socket and marks them Running; see docs/node.md), "
                  "e.g. examples/standalone/inventory.yaml");
  cmd->add_option("--default-not-ready-toleration-seconds",
                  flags->not_ready_toleration_s,
                  "tolerationSeconds of the not-ready toleration new pods "
                  "get (kube-apiserver's flag)")
      ->capture_default_str();
  cmd->add_option("--default-unreachable-toleration-seconds",
                  flags->unreachable_toleration_s,
                  "tolerationSeconds of the unreachable toleration new pods "
                  "get (kube-apiserver's flag)")
      ->capture_default_str();
  cmd->add_option("--node-monitor-grace-period",
                  flags->node_monitor_grace_period_s,
                  "Seconds without a node heartbeat before the node is "
                  "marked Unknown (kube-controller-manager's flag)")
      ->capture_default_str();
  cmd->add_option("--scheduler-policy", flags->policy,
                  "Scoring policy: upstream, binpack, spread, topology, or a "
                  "GPU-sharing policy (random, dotprod, gpu-clustering, "
                  "gpu-packing, bestfit, fgd, draplane; "
                  "docs/scheduling-policies.md)")
      ->capture_default_str();
  cmd->add_option("--max-requests-inflight", flags->max_requests_inflight,
                  "Read-only requests (get, list) served at once; more are "
                  "answered 429 with Retry-After, except for system:masters "
                  "(watches are not counted; 0: no limit)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--max-mutating-requests-inflight",
                  flags->max_mutating_requests_inflight,
                  "Mutating requests served at once; more are answered 429 "
                  "with Retry-After, except for system:masters (0: no limit)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--service-account-issuer", flags->service_account_issuer,
                  "The `iss` of the ServiceAccount tokens the server issues "
                  "(TokenRequest, `kubectl create token`) and the only one "
                  "it accepts; served at /.well-known/openid-configuration")
      ->capture_default_str();
  cmd->add_option("--service-account-max-token-expiration",
                  flags->service_account_max_token_expiration_s,
                  "Seconds: longer TokenRequests are shortened to this, with "
                  "a warning (0: no limit)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--audit-policy-file", flags->audit_policy_file,
                  "Audit policy (audit.k8s.io/v1 Policy, YAML or JSON): which "
                  "requests are recorded at which level (None, Metadata, "
                  "Request, RequestResponse); nothing is audited without it "
                  "(docs/security.md)");
  cmd->add_option("--audit-log-path", flags->audit_log_path,
                  "Write an audit.k8s.io/v1 Event per JSON line to this file "
                  "for every request the audit policy selects ('-': "
                  "standard output)");
  cmd->add_option("--audit-log-maxsize", flags->audit_log_maxsize_mb,
                  "Megabytes the audit log may reach before it is renamed "
                  "with a timestamp (audit-2006-01-02T15-04-05.000.log) and "
                  "a new one started; 0: never rotated")
      ->capture_default_str();
  cmd->add_option("--audit-log-maxbackup", flags->audit_log_maxbackup,
                  "Rotated audit logs to keep (the oldest are removed); 0: "
                  "keep all")
      ->capture_default_str();
  AddLoggingFlags(cmd, &flags->logging);
  cmd->callback(
      [flags, streams, exit_code] { *exit_code = RunServer(*flags, streams); });
}

}  // namespace draplane::cmd
