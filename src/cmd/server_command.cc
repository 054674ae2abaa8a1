// `draplane server`: the standalone control plane's API server on a data
// directory (SQLite store, TLS credentials, admin kubeconfig).
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <thread>

#include "absl/strings/str_join.h"
#include "api/object_codec.h"
#include "apiserver/api_server.h"
#include "apiserver/tls_credentials.h"
#include "client/client.h"
#include "client/transport.h"
#include "cmd/command_help.h"
#include "cmd/commands.h"
#include "cmd/component_support.h"
#include "cmd/simulated_nodes.h"
#include "common/str_cat.h"
#include "controllers/deployment_controller.h"
#include "controllers/dra_monitor.h"
#include "controllers/job_controller.h"
#include "controllers/node_lifecycle_controller.h"
#include "controllers/resource_claim_controller.h"
#include "controllers/resource_quota_controller.h"
#include "devices/device_model.h"
#include "http/http_server.h"
#include "metrics/metrics.h"
#include "scheduler/scheduler.h"
#include "store/store.h"

namespace draplane::cmd {
namespace {

namespace fs = std::filesystem;

struct ServerFlags {
  std::string data_dir;
  std::string listen = "127.0.0.1:6443";
  std::string insecure_listen;
  std::string kubeconfig_out;
  bool in_memory = false;
  bool scheduler = true;
  bool controllers = true;
  std::string policy = "upstream";
  std::string nodes;
  int64_t not_ready_toleration_s = 300;
  int64_t unreachable_toleration_s = 300;
  int node_monitor_grace_period_s = 50;
  LoggingFlags logging;
};

std::string DefaultDataDir() {
  if (const char* state = std::getenv("XDG_STATE_HOME"); state && *state) {
    return StrCat(state, "/draplane");
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return StrCat(home, "/.local/state/draplane");
  }
  return "draplane-data";
}

bool IsLoopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

int RunServer(const ServerFlags& flags, Streams streams) {
  if (absl::Status s = ApplyLoggingFlags(flags.logging); !s.ok()) {
    streams.err << "error: " << s.message() << "\n";
    return 2;
  }
  const std::string data_dir =
      flags.data_dir.empty() ? DefaultDataDir() : flags.data_dir;
  auto listen = ParseHostPort(flags.listen);
  if (!listen.ok()) {
    streams.err << "error: --listen: " << listen.status().message() << "\n";
    return 2;
  }
  std::optional<HostPort> insecure;
  if (!flags.insecure_listen.empty()) {
    auto hp = ParseHostPort(flags.insecure_listen);
    if (!hp.ok()) {
      streams.err << "error: --insecure-listen: " << hp.status().message()
                  << "\n";
      return 2;
    }
    if (!IsLoopback(hp->host)) {
      streams.err << "error: --insecure-listen serves without TLS or "
                     "authentication and is only allowed on a loopback "
                     "address (127.0.0.0/8, ::1, localhost), not "
                  << hp->host << "\n";
      return 2;
    }
    insecure = *hp;
  }
  std::optional<devices::Inventory> inventory;
  if (!flags.nodes.empty()) {
    auto read = devices::ReadInventoryFile(flags.nodes);
    if (!read.ok()) {
      streams.err << "error: --nodes: " << read.status().message() << "\n";
      return 2;
    }
    inventory = *std::move(read);
  }
  std::error_code ec;
  fs::create_directories(data_dir, ec);
  if (ec) {
    streams.err << "error: cannot create data directory " << data_dir << ": "
                << ec.message() << "\n";
    return 1;
  }
  TerminationSignals signals;  // before any thread starts

  std::unique_ptr<store::Store> store;
  if (flags.in_memory) {
    store = store::NewMemoryStore();
  } else {
    auto opened = store::OpenSqliteStore(data_dir + "/state.db");
    if (!opened.ok()) {
      streams.err << "error: " << opened.status().message() << "\n";
      return 1;
    }
    store = *std::move(opened);
  }
  std::vector<std::string> hosts = {"127.0.0.1", "localhost", "::1"};
  if (!IsLoopback(listen->host) && listen->host != "0.0.0.0" &&
      listen->host != "::") {
    hosts.push_back(listen->host);
  }
  auto creds = apiserver::LoadOrCreateCredentials(data_dir + "/pki", hosts);
  if (!creds.ok()) {
    streams.err << "error: " << creds.status().message() << "\n";
    return 1;
  }
  // Every component's metrics, served on /metrics (authenticated).
  metrics::Registry registry;
  apiserver::ApiServerOptions api_options;
  api_options.metrics = [&registry] { return registry.Text(); };
  api_options.default_not_ready_toleration_seconds =
      flags.not_ready_toleration_s;
  api_options.default_unreachable_toleration_seconds =
      flags.unreachable_toleration_s;
  apiserver::ApiServer api(store.get(), api_options);
  api_options.tokens = {creds->admin_token};
  apiserver::ApiServer secure_api(store.get(), api_options);

  http::HttpServerOptions http;
  http.address = listen->host;
  http.port = listen->port;
  http.tls_cert_pem = creds->cert_pem;
  http.tls_key_pem = creds->key_pem;
  auto handler = [&secure_api](const http::HttpRequest& req,
                               http::ResponseWriter& w) {
    secure_api.Handle(req, w);
  };
  auto server = http::HttpServer::Start(http, handler);
  if (!server.ok()) {
    streams.err << "error: " << server.status().message() << "\n";
    return 1;
  }
  std::unique_ptr<http::HttpServer> plain;
  if (insecure) {
    http::HttpServerOptions p;
    p.address = insecure->host;
    p.port = insecure->port;
    auto started = http::HttpServer::Start(
        p, [&api](const http::HttpRequest& req, http::ResponseWriter& w) {
          api.Handle(req, w);
        });
    if (!started.ok()) {
      streams.err << "error: " << started.status().message() << "\n";
      return 1;
    }
    plain = *std::move(started);
  }
  const std::string connect_host =
      listen->host == "0.0.0.0" || listen->host == "::" ? "127.0.0.1"
                                                        : listen->host;
  const std::string url =
      StrCat("https://", UrlHost(connect_host), ":", (*server)->port());
  const std::string kubeconfig = flags.kubeconfig_out.empty()
                                     ? data_dir + "/kubeconfig"
                                     : flags.kubeconfig_out;
  {
    std::ofstream out(kubeconfig, std::ios::trunc);
    out << apiserver::AdminKubeconfig(url, creds->ca_cert_pem,
                                      creds->admin_token);
    if (!out.flush()) {
      streams.err << "error: cannot write " << kubeconfig << "\n";
      return 1;
    }
    fs::permissions(kubeconfig, fs::perms::owner_read | fs::perms::owner_write,
                    ec);
  }
  streams.out << "draplane server: serving the Kubernetes API on " << url
              << "\n";
  if (plain) {
    streams.out << "draplane server: without TLS or authentication on http://"
                << UrlHost(insecure->host) << ":" << plain->port() << "\n";
  }
  streams.out << "draplane server: data directory " << data_dir << "\n"
              << "draplane server: kubeconfig " << kubeconfig << "\n"
              << "  export KUBECONFIG=" << kubeconfig << "\n";
  streams.out.flush();

  // The control plane's own components talk to the API in-process.
  auto in_process = [&api] {
    client::RestConfig config;
    config.server = "in-process";
    return std::make_unique<client::Client>(
        client::NewInProcessTransport(
            [&api](const http::HttpRequest& req, http::InProcessExchange& x) {
              api.HandleInProcess(req, x);
            },
            config),
        config);
  };
  std::unique_ptr<client::Client> controller_client = in_process();
  std::unique_ptr<client::Client> scheduler_client = in_process();
  controllers::ResourceClaimControllerOptions claim_options;
  claim_options.metrics = &registry;
  controllers::ResourceClaimController claim_controller(controller_client.get(),
                                                        claim_options);
  controllers::DraMonitorOptions monitor_options;
  monitor_options.metrics = &registry;
  controllers::DraMonitor monitor(controller_client.get(), monitor_options);
  controllers::NodeLifecycleOptions lifecycle_options;
  lifecycle_options.grace_period =
      absl::Seconds(flags.node_monitor_grace_period_s);
  controllers::NodeLifecycleController node_lifecycle(controller_client.get(),
                                                      lifecycle_options);
  controllers::ResourceQuotaController quota_controller(
      controller_client.get());
  // Standalone only: a real cluster has kube-controller-manager's.
  controllers::DeploymentController deployments(controller_client.get());
  controllers::JobController jobs(controller_client.get());
  if (flags.controllers) {
    absl::Status s = claim_controller.Start();
    if (s.ok()) s = monitor.Start();
    if (s.ok()) s = node_lifecycle.Start();
    if (s.ok()) s = quota_controller.Start();
    if (s.ok()) s = deployments.Start();
    if (s.ok()) s = jobs.Start();
    if (!s.ok()) {
      streams.err << "error: " << s.message() << "\n";
      return 1;
    }
    streams.out << "draplane server: controllers running (resourceclaim, "
                   "node lifecycle, resourcequota, deployment, job, DRA "
                   "monitor)\n";
  }
  std::unique_ptr<scheduler::Scheduler> pod_scheduler;
  if (flags.scheduler) {
    scheduler::SchedulerOptions so;
    so.also_default_scheduler = true;
    so.policy = flags.policy;
    so.metrics = &registry;
    auto created = scheduler::Scheduler::Create(scheduler_client.get(), so);
    if (!created.ok()) {
      streams.err << "error: " << created.status().message() << "\n";
      return 2;
    }
    pod_scheduler = *std::move(created);
    if (absl::Status s = pod_scheduler->Start(); !s.ok()) {
      streams.err << "error: " << s.message() << "\n";
      return 1;
    }
    streams.out << "draplane server: scheduler running (policy " << flags.policy
                << ", schedulerName draplane and default-scheduler)\n";
  }
  streams.out.flush();

  // Simulated GPU nodes (node agents playing the kubelet too).
  std::unique_ptr<SimulatedNodes> simulated;
  if (inventory) {
    node_agent::NodeAgentOptions defaults;
    defaults.simulate_kubelet = true;
    defaults.metrics = &registry;
    auto started = SimulatedNodes::Start(*inventory, "", data_dir + "/nodes",
                                         in_process, defaults);
    if (!started.ok()) {
      streams.err << "error: " << started.status().message() << "\n";
      return 1;
    }
    simulated = *std::move(started);
    // What installing NVIDIA's driver chart creates once per cluster.
    for (const api::Json& json : devices::NvidiaDeviceClasses()) {
      absl::StatusOr<api::DecodeResult> decoded = api::DecodeObject(json);
      if (!decoded.ok()) continue;
      auto created = controller_client->Create(decoded->object);
      if (!created.ok() && !client::IsAlreadyExists(created.status())) {
        streams.err << "warning: cannot create the DeviceClass "
                    << json["metadata"]["name"].get<std::string>() << ": "
                    << created.status().message() << "\n";
      }
    }
    streams.out << "draplane server: simulated GPU nodes running ("
                << absl::StrJoin(simulated->names(), ", ") << ") from "
                << flags.nodes << "\n";
    streams.out.flush();
  }

  // The built-in controllers (namespace finalizer, garbage collector).
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::thread finalizer([&] {
    std::unique_lock lock(mu);
    while (!cv.wait_for(lock, std::chrono::seconds(1), [&] { return done; })) {
      lock.unlock();
      secure_api.RunControllersOnce();
      lock.lock();
    }
  });

  const int sig = signals.Wait();
  streams.out << "draplane server: " << (sig == SIGTERM ? "SIGTERM" : "SIGINT")
              << ", shutting down\n";
  streams.out.flush();
  {
    std::lock_guard lock(mu);
    done = true;
  }
  cv.notify_all();
  finalizer.join();
  if (simulated) simulated->Stop();
  if (pod_scheduler) pod_scheduler->Stop();
  monitor.Stop();
  jobs.Stop();
  deployments.Stop();
  quota_controller.Stop();
  node_lifecycle.Stop();
  claim_controller.Stop();
  if (plain) plain->Stop();
  (*server)->Stop();
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
      "needs over HTTPS with bearer-token authentication, stores everything "
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
  cmd->add_option("--insecure-listen", flags->insecure_listen,
                  "Also serve plain HTTP without authentication on this "
                  "loopback HOST:PORT (development only)");
  cmd->add_option("--kubeconfig-out", flags->kubeconfig_out,
                  "Where to write the admin kubeconfig (default "
                  "DATA_DIR/kubeconfig)");
  cmd->add_flag("--in-memory", flags->in_memory,
                "Keep objects in memory only (nothing survives a restart)");
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
  AddLoggingFlags(cmd, &flags->logging);
  cmd->callback(
      [flags, streams, exit_code] { *exit_code = RunServer(*flags, streams); });
}

}  // namespace draplane::cmd
