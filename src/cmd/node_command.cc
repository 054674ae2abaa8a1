// `draplane node`: the NVIDIA GPU DRA driver of one node against any
// Kubernetes API server: discovers GPUs (NVML, or a fake inventory
// node), publishes them as ResourceSlices, serves the kubelet plugin
// protocol on the kubelet's socket directories, and optionally plays the
// kubelet for a simulated node.
#include <ostream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "client/client.h"
#include "cmd/command_help.h"
#include "cmd/commands.h"
#include "cmd/component_support.h"
#include "cmd/simulated_nodes.h"
#include "common/str_cat.h"
#include "devices/fake_backend.h"
#include "devices/nvml/nvml_backend.h"
#include "metrics/metrics.h"
#include "node_agent/node_agent.h"
#include "nvidia_config/gpu_config.h"

namespace draplane::cmd {
namespace {

struct NodeFlags {
  RemoteApiFlags remote;
  SecureServingFlags serving;
  LoggingFlags logging;
  std::string node_name;
  std::string backend = "nvml";
  std::string inventory;
  std::string driver_root = "/";
  std::string nvml_library;
  std::string registrar_dir = "/var/lib/kubelet/plugins_registry";
  std::string plugins_dir = "/var/lib/kubelet/plugins";
  std::string cdi_root = "/var/run/cdi";
  std::string feature_gates;
  std::string additional_xids_to_ignore;
  bool simulate_kubelet = false;
  std::string simulate_root;
  int heartbeat_s = 10;
  int healthcheck_port = -1;
};

// --backend none: only the simulated kubelet, in front of the plugin
// registered in the registrar directory by another process.
int RunKubeletOnly(const NodeFlags& flags, client::Client* api,
                   const std::string& server, TerminationSignals& signals,
                   Streams streams) {
  if (!flags.simulate_kubelet) {
    streams.err << "error: --backend none needs --simulate-kubelet (a node "
                   "without the driver only plays the kubelet)\n";
    return 2;
  }
  node_agent::SimulatedKubeletOptions k;
  k.node_name = flags.node_name;
  k.driver_name = devices::kNvidiaGpuDriver;
  k.registration_socket =
      StrCat(flags.registrar_dir, "/", devices::kNvidiaGpuDriver, "-reg.sock");
  k.heartbeat_period = absl::Seconds(std::max(1, flags.heartbeat_s));
  auto kubelet = node_agent::SimulatedKubelet::Start(k, api);
  if (!kubelet.ok()) {
    streams.err << "error: " << kubelet.status().message() << "\n";
    return 1;
  }
  streams.out << "draplane node: " << flags.node_name
              << " (simulated kubelet for the plugin at "
              << k.registration_socket << ") on " << server << "\n";
  streams.out.flush();
  signals.Wait();
  (*kubelet)->Stop();
  return 0;
}

int RunNode(const NodeFlags& flags, Streams streams) {
  if (absl::Status s = ApplyLoggingFlags(flags.logging); !s.ok()) {
    streams.err << "error: " << s.message() << "\n";
    return 2;
  }
  if (flags.node_name.empty()) {
    streams.err << "error: --node-name is required (the Node and pool name)\n";
    return 2;
  }
  node_agent::NodeAgentOptions options;
  options.node_name = flags.node_name;
  options.heartbeat_period = absl::Seconds(std::max(1, flags.heartbeat_s));
  {
    // draplane's defaults, then the user's settings.
    std::string gates = "DynamicMIG=true,TimeSlicingSettings=true";
    if (!flags.feature_gates.empty()) gates += "," + flags.feature_gates;
    auto parsed = nvidia_config::ParseFeatureGates(gates);
    if (!parsed.ok()) {
      streams.err << "error: --feature-gates: " << parsed.status().message()
                  << "\n";
      return 2;
    }
    options.gates = *parsed;
  }
  for (absl::string_view x : absl::StrSplit(flags.additional_xids_to_ignore,
                                            ',', absl::SkipEmpty())) {
    uint32_t xid = 0;
    if (!absl::SimpleAtoi(x, &xid)) {
      streams.err << "error: --additional-xids-to-ignore: " << std::string(x)
                  << " is not a number\n";
      return 2;
    }
    options.additional_ignored_xids.push_back(xid);
  }
  TerminationSignals signals;
  metrics::Registry registry;
  const auto process_metrics = AddProcessMetrics(registry);
  options.metrics = &registry;
  options.healthcheck_port =
      flags.healthcheck_port > 0 ? flags.healthcheck_port : -1;
  client::RestConfig config;
  auto api = ConnectRemote(flags.remote, "draplane-node", &config);
  if (!api.ok()) {
    streams.err << "error: " << api.status().message() << "\n";
    return 1;
  }
  HealthChecks health;
  auto secure_port = ServeSecurely(flags.serving, "draplane-node", api->get(),
                                   &registry, &health);
  if (!secure_port.ok()) {
    streams.err << "error: " << secure_port.status().message() << "\n";
    return 1;
  }
  if (flags.backend == "fake") {
    if (flags.inventory.empty()) {
      streams.err << "error: --backend fake needs --inventory FILE\n";
      return 2;
    }
    auto inventory = devices::ReadInventoryFile(flags.inventory);
    if (!inventory.ok()) {
      streams.err << "error: " << inventory.status().message() << "\n";
      return 2;
    }
    options.simulate_kubelet = flags.simulate_kubelet;
    const std::string root =
        flags.simulate_root.empty()
            ? StrCat("/tmp/draplane-node-", flags.node_name)
            : flags.simulate_root;
    if (!flags.simulate_kubelet) {
      options.registrar_dir = flags.registrar_dir;
      options.plugins_dir = flags.plugins_dir;
      options.cdi_root = flags.cdi_root;
    }
    const RemoteApiFlags remote = flags.remote;
    auto nodes = SimulatedNodes::Start(
        *inventory, flags.node_name, root,
        [&remote](const std::string&) {
          client::RestConfig c;
          auto client = ConnectRemote(remote, "draplane-node", &c);
          return client.ok() ? *std::move(client) : nullptr;
        },
        options,
        // A driver apart from its kubelet restarts as a Pod does: the
        // simulated machine and what it prepared stay.
        flags.simulate_kubelet ? SimulatedNodes::Hardware::kBootsWithProcess
                               : SimulatedNodes::Hardware::kOutlivesProcess);
    if (!nodes.ok()) {
      streams.err << "error: " << nodes.status().message() << "\n";
      return 1;
    }
    streams.out << "draplane node: " << flags.node_name
                << " (simulated GPUs from " << flags.inventory << ") on "
                << config.server << "\n";
    streams.out.flush();
    signals.Wait();
    (*nodes)->Stop();
    return 0;
  }
  if (flags.backend == "none") {
    return RunKubeletOnly(flags, api->get(), config.server, signals, streams);
  }
  if (flags.backend != "nvml") {
    streams.err << "error: --backend must be nvml, fake or none, not "
                << flags.backend << "\n";
    return 2;
  }
  devices::NvmlBackendOptions nvml;
  nvml.driver_root = flags.driver_root;
  nvml.library_path = flags.nvml_library;
  auto backend = devices::OpenNvmlBackend(nvml);
  if (!backend.ok()) {
    streams.err << "error: " << backend.status().message() << "\n";
    return 1;
  }
  options.simulate_kubelet = flags.simulate_kubelet;
  options.root_dir = flags.simulate_root.empty() ? "/" : flags.simulate_root;
  options.registrar_dir = flags.registrar_dir;
  options.plugins_dir = flags.plugins_dir;
  options.cdi_root = flags.cdi_root;
  auto agent =
      node_agent::NodeAgent::Start(options, api->get(), backend->get());
  if (!agent.ok()) {
    streams.err << "error: " << agent.status().message() << "\n";
    return 1;
  }
  streams.out << "draplane node: " << flags.node_name << " serving "
              << (*agent)->dra_socket() << ", publishing to " << config.server
              << "\n";
  streams.out.flush();
  signals.Wait();
  (*agent)->Stop();
  return 0;
}

}  // namespace

void RegisterNode(CLI::App& app, Streams streams, int* exit_code) {
  auto flags = std::make_shared<NodeFlags>();
  CLI::App* cmd = AddCommand(
      app, "node", "Run the NVIDIA GPU DRA driver (gpu.nvidia.com) of one node",
      "Run the NVIDIA GPU DRA driver (gpu.nvidia.com) of one node.\n\n"
      "Discovers the node's GPUs (NVML from the driver root, or a node of a "
      "fake inventory), publishes them as ResourceSlices with NVIDIA's "
      "device names and attributes (MIG placements as partitionable "
      "devices), and serves the kubelet plugin protocol (registration in "
      "--kubelet-registrar-directory-path, the DRA service v1/v1beta1 in "
      "--kubelet-plugins-directory-path/gpu.nvidia.com/dra.sock), writing "
      "one CDI spec per prepared claim to --cdi-root. Beyond NVIDIA's "
      "driver: --simulate-kubelet also plays the kubelet (Node object, "
      "heartbeat, pods marked Running with their CDI devices) for a "
      "simulated node. With --backend none the process is only that "
      "simulated kubelet, in front of the gpu.nvidia.com plugin registered in "
      "--kubelet-registrar-directory-path (another process, such as the "
      "Helm chart's kubelet-plugin DaemonSet): run it with a node's "
      "credentials (system:node:NAME in group system:nodes) to see the "
      "plugin's claims prepared under kube-apiserver's Node authorizer "
      "without a kubelet and container runtime.\n\n"
      "DynamicMIG (on by default here, off in NVIDIA's driver) publishes "
      "MIG placements and creates MIG devices on demand; like NVIDIA's "
      "DynamicMIG it destroys at start the MIG devices no prepared claim "
      "owns. On nodes whose MIG layout is managed otherwise (mig-parted, "
      "the GPU Operator) pass --feature-gates DynamicMIG=false.\n\n"
      "Examples:\n"
      "  draplane node --node-name $(hostname) --kubeconfig ~/.kube/config\n"
      "  draplane node --backend fake --inventory "
      "examples/standalone/inventory.yaml \\\n"
      "      --node-name node1 --simulate-kubelet --kubeconfig "
      "/tmp/dp/kubeconfig");
  AddLoggingFlags(cmd, &flags->logging);
  AddRemoteApiFlags(cmd, &flags->remote, kKubeletPluginRateLimit);
  AddSecureServingFlags(cmd, &flags->serving, 0);
  cmd->add_option("--node-name", flags->node_name,
                  "This node's name (the pool name of its slices)")
      ->envname("NODE_NAME");
  cmd->add_option("--backend", flags->backend,
                  "nvml, fake, or none (with --simulate-kubelet: no driver "
                  "here, only the kubelet's part for the plugin registered "
                  "in --kubelet-registrar-directory-path)")
      ->capture_default_str();
  cmd->add_option("--inventory", flags->inventory,
                  "Inventory file for --backend fake (see docs/node.md)");
  cmd->add_option("--nvidia-driver-root", flags->driver_root,
                  "Where the NVIDIA driver is installed (libnvidia-ml.so.1 "
                  "is searched below it)")
      ->envname("NVIDIA_DRIVER_ROOT")
      ->capture_default_str();
  cmd->add_option("--nvml-library", flags->nvml_library,
                  "Path of libnvidia-ml.so.1 (default: searched)");
  cmd->add_option("--kubelet-registrar-directory-path", flags->registrar_dir,
                  "The kubelet's plugin registration directory")
      ->capture_default_str();
  cmd->add_option("--kubelet-plugins-directory-path", flags->plugins_dir,
                  "The kubelet's plugins directory")
      ->capture_default_str();
  cmd->add_option("--cdi-root", flags->cdi_root, "Where CDI specs are written")
      ->envname("CDI_ROOT")
      ->capture_default_str();
  cmd->add_option("--feature-gates", flags->feature_gates,
                  "NVIDIA driver feature gates, Key=bool,... (draplane "
                  "turns DynamicMIG and TimeSlicingSettings on)")
      ->envname("FEATURE_GATES");
  cmd->add_option("--additional-xids-to-ignore",
                  flags->additional_xids_to_ignore,
                  "XIDs that taint with effect None, comma-separated");
  cmd->add_option("--healthcheck-port", flags->healthcheck_port,
                  "TCP port of the plugin's gRPC health service "
                  "(grpc.health.v1, service \"liveness\") for the Pod's "
                  "liveness probe, as NVIDIA's; <= 0: off")
      ->capture_default_str();
  cmd->add_flag("--simulate-kubelet", flags->simulate_kubelet,
                "Also play the kubelet (draplane's simulated nodes); the "
                "client limits default to the kubelet's (50 QPS, burst 100)");
  cmd->add_option("--simulate-root", flags->simulate_root,
                  "A simulated node's files (default "
                  "/tmp/draplane-node-NAME): with --simulate-kubelet its "
                  "sockets, CDI specs and checkpoint, a new boot at each "
                  "start; without, the state of its fake GPUs, which "
                  "outlive the process (delete the folder to reboot)");
  cmd->add_option("--heartbeat-seconds", flags->heartbeat_s,
                  "Lease renewal period of a simulated node")
      ->capture_default_str();
  cmd->callback([cmd, flags, streams, exit_code] {
    // A node that also plays the kubelet gets the kubelet's client limits
    // unless they were given.
    if (flags->simulate_kubelet) {
      if (cmd->count("--kube-api-qps") == 0) {
        flags->remote.qps = kKubeletRateLimit.qps;
      }
      if (cmd->count("--kube-api-burst") == 0) {
        flags->remote.burst = kKubeletRateLimit.burst;
      }
    }
    *exit_code = RunNode(*flags, streams);
  });
}

}  // namespace draplane::cmd
